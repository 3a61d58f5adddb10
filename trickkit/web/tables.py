"""The tables of the web server: which game, its parameters, who sits where (a human with a
secret seat token, or a bot), and the record of actions. Bots move here, on the server.

A `Catalogue` lists the games the lobby offers (the shipped ones and ruleset files given to
``trickkit serve``); clients name games by the catalogue's key, never by a path. A `Table`
holds the live `trickkit.State`; `Table.act` applies one seat's action after checking the
seat's turn and the move number it saw, and leaves the game as it was when it refuses.
The `Registry` opens tables, finds them, saves each change to the `trickkit.web.store.Store`
and resumes the stored tables by replaying their actions.
"""

from __future__ import annotations

import hmac
import json
import random
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trickkit.agents import make_agent, parse_agent_spec
from trickkit.engine.loader import game_info, list_games, load_game, read_document
from trickkit.errors import IllegalActionError, TrickkitError
from trickkit.web.store import Store, game_record

__all__ = ["Catalogue", "GameEntry", "Registry", "Seat", "Table", "TableError"]

MAX_ISMCTS_ITERATIONS = 5000
"""The most ISMCTS iterations a bot may be given (a bot's move runs on the server)."""
MAX_NAME = 40
"""Longest seat name, in characters."""


class TableError(Exception):
    """A request the table refuses; ``status`` is the HTTP status that fits it."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class GameEntry:
    """A game the lobby offers: ``key`` (how clients name it), ``source`` (a shipped name or a
    ruleset path), its title, seat counts and parameter declarations."""

    key: str
    source: str
    shipped: bool
    title: str
    players_min: int
    players_max: int
    players_default: int
    parameters: list[dict[str, Any]]

    def public(self) -> dict[str, Any]:
        """What the lobby is sent about the game (never the path of a file)."""
        return {
            "key": self.key,
            "title": self.title,
            "shipped": self.shipped,
            "players": {"min": self.players_min, "max": self.players_max, "default": self.players_default},
            "parameters": self.parameters,
            "rules": f"/games/{self.key}/rules",
        }


class Catalogue:
    """The games of a server, by key, and the loaded games (one per seat count and parameters)."""

    def __init__(self, entries: Sequence[GameEntry]) -> None:
        self.entries = {e.key: e for e in entries}
        self._games: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_sources(cls, sources: Sequence[str] = ()) -> Catalogue:
        """The shipped games and then ``sources`` (shipped names or ruleset paths), each once.

        Raises:
            RulesetError: a source cannot be read.
        """
        entries: list[GameEntry] = []
        seen: set[str] = set()
        for source in [*list_games(), *sources]:
            shipped = source in list_games()
            if shipped and source in seen:
                continue
            info = game_info(source)
            doc, _ = read_document(source)
            key = info.name
            while key in seen:  # a file whose game shares a name: key it apart
                key += "_"
            seen.add(key)
            params = []
            for name, spec in (doc.get("parameters") or {}).items():
                params.append({"name": str(name), **{k: v for k, v in spec.items() if k != "name"}})
            entries.append(
                GameEntry(
                    key,
                    str(source),
                    shipped,
                    info.title,
                    info.players_min,
                    info.players_max,
                    info.players_default,
                    params,
                )
            )
        return cls(entries)

    def entry(self, key: Any) -> GameEntry:
        """The entry of ``key``. Raises `TableError` (404) for a key the catalogue lacks."""
        if not isinstance(key, str) or key not in self.entries:
            raise TableError(f"no game {str(key)[:40]!r} here (games: {', '.join(self.entries)})", 404)
        return self.entries[key]

    def load(self, source: str, players: int | None, params: dict[str, Any]) -> Any:
        """The game ``source`` with ``players`` seats and ``params``, loaded once and kept.

        Raises:
            TrickkitError: the ruleset refuses the seat count or a parameter (located problems).
        """
        key = json.dumps([source, players, params], sort_keys=True)
        with self._lock:
            if key not in self._games:
                self._games[key] = load_game(source, players, **params)
            return self._games[key]


@dataclass
class Seat:
    """One seat: a human (``token`` is its secret) or a bot (``agent`` is its spec, e.g. ``ismcts:iterations=200``)."""

    kind: str
    name: str
    token: str | None = None
    agent: str | None = None

    def public(self) -> dict[str, Any]:
        """What every seat may know of this one (never the token)."""
        return {"kind": self.kind, "name": self.name, **({"agent": self.agent} if self.agent else {})}


def parse_seats(specs: Any, players: int) -> list[Seat]:
    """Seats from the lobby's request: a list of ``{"kind": "human", "name": ...}`` or
    ``{"kind": "bot", "agent": "random" | "first" | "ismcts:iterations=200" ...}``, one per seat.

    Raises:
        TableError: a malformed list, an unknown agent or option, too many ISMCTS iterations.
    """
    if not isinstance(specs, list) or len(specs) != players:
        raise TableError(f"'seats' must be a list of {players} seats")
    seats = []
    for i, spec in enumerate(specs):
        if not isinstance(spec, dict):
            raise TableError(f"seat {i}: expected an object with 'kind'")
        kind = spec.get("kind")
        name = spec.get("name")
        if name is not None and not isinstance(name, str):
            raise TableError(f"seat {i}: 'name' must be text")
        name = " ".join((name or "").split())[:MAX_NAME]
        if kind == "human":
            seats.append(Seat("human", name or f"seat {i}", token=secrets.token_urlsafe(24)))
        elif kind == "bot":
            text = spec.get("agent", "random")
            if not isinstance(text, str) or len(text) > 200:
                raise TableError(f"seat {i}: 'agent' must be a spec such as 'random' or 'ismcts:iterations=200'")
            try:
                agent = parse_agent_spec(text)
            except TrickkitError as e:
                raise TableError(f"seat {i}: {e}") from None
            for option, cap in (
                ("iterations", MAX_ISMCTS_ITERATIONS),
                ("max_tries", 10_000),
                ("rollout_limit", 10_000),
            ):
                if agent.options.get(option, 0) > cap:
                    raise TableError(f"seat {i}: at most {option}={cap} here")
            seats.append(Seat("bot", name or f"{agent.name} bot", agent=repr(agent)))
        else:
            raise TableError(f"seat {i}: 'kind' must be 'human' or 'bot'")
    return seats


class Table:
    """One game at one table.

    Args:
        table_id: the table's id (URL-safe).
        entry: the catalogue entry of its game.
        game: the loaded game.
        seed: the state seed (a server secret until the game is over).
        seats: one `Seat` per seat.
        created: when it was opened (seconds since the epoch).
    """

    def __init__(self, table_id: str, entry: GameEntry, game: Any, seed: int, seats: list[Seat], created: float):
        self.id = table_id
        self.entry = entry
        self.game = game
        self.seed = seed
        self.seats = seats
        self.created = created
        self.state = game.new_initial_state(seed=seed)
        self.actors: list[int] = []  # the seat that took each action, in order
        self.lock = threading.RLock()

    @property
    def move(self) -> int:
        """The number of actions taken so far (a seat's move must name it: older ones are stale)."""
        return len(self.actors)

    @property
    def finished(self) -> bool:
        return bool(self.state.is_terminal())

    def seat_by_token(self, seat: Any, token: Any) -> int:
        """``seat`` when ``token`` is its secret (compared in constant time).

        Raises:
            TableError: 404 for a seat the table lacks, 403 for a wrong or missing token.
        """
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise TableError(f"no seat {str(seat)[:20]} at this table", 404)
        expected = self.seats[seat].token
        given = token.encode("utf-8", "replace") if isinstance(token, str) else b""
        if expected is None or not hmac.compare_digest(given, expected.encode("ascii")):
            raise TableError("wrong seat token", 403)
        return seat

    def apply(self, seat: int, text: str) -> None:
        """Apply ``text`` for ``seat`` (its turn, checked by the caller) and note who took it."""
        self.state.apply_action(text)
        self.actors.append(seat)

    def act(self, seat: int, move: Any, action: Any) -> None:
        """Seat ``seat`` takes ``action`` (a text) at move number ``move``.

        Raises:
            TableError: the game is over, it is not the seat's turn, ``move`` is stale (409),
                or the engine refuses the action (its reason); the game is left as it was.
        """
        if isinstance(move, bool) or not isinstance(move, int):
            raise TableError("'move' must be the move number the seat saw")
        if not isinstance(action, str) or not action.strip() or len(action) > 1000:
            raise TableError("'action' must be an action text")
        with self.lock:
            if move != self.move:
                raise TableError(f"stale move {move}: the game is at move {self.move}", 409)
            if self.finished:
                raise TableError("the game is over", 409)
            if self.state.current_player() != seat:
                raise TableError(f"not your turn: seat {self.state.current_player()} is to act", 409)
            try:
                self.apply(seat, action)
            except IllegalActionError as e:
                raise TableError(f"not allowed: {e}") from None
            except TrickkitError as e:
                raise TableError(f"the rules failed on that action: {e}") from None

    def run_bots(self, limit: int = 100_000) -> int:
        """Let the bots move until a human is to act or the game is over (at most ``limit`` moves).

        Each bot move is built from a generator seeded by the table's seed and the move number,
        so a table resumed after a restart plays on as it would have.
        """
        done = 0
        with self.lock:
            while done < limit and not self.finished:
                seat = self.state.current_player()
                spec = self.seats[seat]
                if spec.kind != "bot" or spec.agent is None:
                    break
                agent = make_agent(parse_agent_spec(spec.agent), random.Random(f"trickkit:web:{self.seed}:{self.move}"))
                action = agent.step(self.state)
                self.apply(seat, str(action))
                done += 1
        return done

    def to_json(self) -> dict[str, Any]:
        """The table's stored record (tokens included: it stays on the server)."""
        return {
            "format": "trickkit-web-table",
            "id": self.id,
            "game": self.entry.key,
            "source": self.entry.source,
            "shipped": self.entry.shipped,
            "players": self.game.num_players,
            "params": dict(self.game.params),
            "ruleset_sha256": self.game.content_hash,
            "seed": self.seed,
            "seats": [vars(s) for s in self.seats],
            "actions": [[seat, text] for seat, text in zip(self.actors, self.state.history(), strict=True)],
            "created": self.created,
            "finished": self.finished,
        }

    def record(self) -> dict[str, Any]:
        """The finished game as a ``trickkit replay`` record. Raises `TableError` (409) before the end."""
        if not self.finished:
            raise TableError("the game is not over yet", 409)
        return game_record(self.game, self.state, self.entry.source, self.entry.shipped)

    def summary(self) -> dict[str, Any]:
        """What the lobby lists about the table (no tokens, no cards)."""
        return {
            "id": self.id,
            "game": self.entry.key,
            "title": self.entry.title,
            "seats": [s.public() for s in self.seats],
            "move": self.move,
            "finished": self.finished,
            "created": self.created,
        }


class Registry:
    """The open tables of a server, saved to ``store`` after every change.

    Args:
        catalogue: the games offered.
        store: where tables are kept (None: in memory only).
    """

    def __init__(self, catalogue: Catalogue, store: Store | None = None) -> None:
        self.catalogue = catalogue
        self.store = store
        self.tables: dict[str, Table] = {}
        self._lock = threading.Lock()

    def open(self, game: Any, players: Any, params: Any, seats: Any) -> Table:
        """Open a table of catalogue game ``game`` and let the bots move up to the first human.

        Raises:
            TableError: an unknown game, a bad seat count, parameter or seat list.
        """
        entry = self.catalogue.entry(game)
        if players is None:
            players = entry.players_default
        if isinstance(players, bool) or not isinstance(players, int):
            raise TableError("'players' must be a number")
        if not entry.players_min <= players <= entry.players_max:
            raise TableError(f"{entry.title} seats {entry.players_min}..{entry.players_max} players, not {players}")
        if params is None:
            params = {}
        if not isinstance(params, dict) or len(params) > 100:
            raise TableError("'params' must be an object of parameter values")
        try:
            loaded = self.catalogue.load(entry.source, players, params)
        except TrickkitError as e:
            raise TableError(f"cannot open {entry.title} with these settings: {e}") from None
        except TypeError as e:
            raise TableError(f"bad parameters: {e}") from None
        table = Table(
            secrets.token_urlsafe(9), entry, loaded, secrets.randbelow(2**31), parse_seats(seats, players), time.time()
        )
        table.run_bots()
        with self._lock:
            self.tables[table.id] = table
        self.save(table)
        return table

    def get(self, table_id: str) -> Table:
        """The table ``table_id``. Raises `TableError` (404) when there is none."""
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no such table", 404)
        return table

    def save(self, table: Table) -> None:
        """Write ``table``'s record to the store."""
        if self.store is not None:
            with table.lock:
                data = table.to_json()
            self.store.save(table.id, data)

    def resume(self) -> list[str]:
        """Rebuild the stored tables by replaying their actions; returns a problem per table that could not be."""
        if self.store is None:
            return []
        records, problems = self.store.load_all()
        for data in records:
            try:
                table = self._rebuild(data)
            except (TrickkitError, TableError, KeyError, TypeError, ValueError) as e:
                problems.append(f"table {str(data.get('id'))[:20]}: not resumed: {e}")
                continue
            table.run_bots()  # the server stopped between a human's move and the bots' answers
            self.tables[table.id] = table
            self.save(table)
        return problems

    def _rebuild(self, data: dict[str, Any]) -> Table:
        key, source, shipped = data["game"], data["source"], bool(data["shipped"])
        entry = self.catalogue.entries.get(key)
        if entry is None or entry.source != source:  # a game no longer offered: load it from the record
            info = game_info(source)
            entry = GameEntry(
                key, source, shipped, info.title, info.players_min, info.players_max, info.players_default, []
            )
        game = self.catalogue.load(source, data["players"], data["params"])
        if game.content_hash != data["ruleset_sha256"]:
            raise TableError(f"the ruleset {source!r} has changed since the table was opened")
        seats = [Seat(s["kind"], s["name"], s.get("token"), s.get("agent")) for s in data["seats"]]
        table = Table(data["id"], entry, game, data["seed"], seats, data["created"])
        for seat, text in data["actions"]:
            if table.state.current_player() != seat:
                raise TableError(f"the record says seat {seat} took {text!r}, but it was not that seat's turn")
            table.apply(seat, text)
        return table
