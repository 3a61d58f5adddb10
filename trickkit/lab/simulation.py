"""Plays many games with random agents and summarises them.

Every game ``i`` of a run with master seed ``seed`` is independent and
reproducible on its own:

* its state seed is `game_seed` ``(seed, i)``;
* its agents draw from one ``random.Random`` seeded with `agent_seed`
  ``(seed, i)`` (shared by all seats, consulted in turn order).

Both derivations hash the text ``"trickkit:<kind>:<seed>:<i>"`` (``random.Random``
seeds a ``str`` through SHA-512, so the result does not depend on the Python
process or ``PYTHONHASHSEED``) and take 63 random bits.  Runs with ``jobs > 1``
therefore play exactly the same games as ``jobs == 1``, and their results are
merged back in game order, so an ``out`` file is byte-identical for any ``jobs``.

Memory stays flat: results are folded into running totals (and written to the
``out`` file) as they arrive; no run keeps every game.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from trickkit.agents.basic import RandomAgent
from trickkit.errors import TrickkitError
from trickkit.lab.files import atomic_writer
from trickkit.lab.record import game_record, record_line
from trickkit.lab.workers import _exit_with_parent, _game_spec, chunks_in_order, pooled_chunks, worker_count

__all__ = [
    "RandomAgent",
    "SimulationSummary",
    "agent_seed",
    "game_record",
    "game_seed",
    "play_game",
    "record_line",
    "simulate",
]

#: A game that has not ended after this many actions is reported as an error
#: (it almost certainly means the ruleset never terminates).
MAX_ACTIONS = 100_000


def _derive(kind: str, seed: int, index: int) -> int:
    return random.Random(f"trickkit:{kind}:{seed}:{index}").getrandbits(63)


def game_seed(seed: int, index: int) -> int:
    """Return the state seed of game ``index`` in a run with master ``seed``.

    Defined as ``random.Random(f"trickkit:game:{seed}:{index}").getrandbits(63)``.

    Args:
        seed: master seed of the run.
        index: 0-based number of the game within the run.

    Returns:
        A non-negative integer below ``2**63``.
    """
    return _derive("game", seed, index)


def agent_seed(seed: int, index: int) -> int:
    """Return the seed of the agents' RNG for game ``index`` of a run with master ``seed``.

    Defined as ``random.Random(f"trickkit:agents:{seed}:{index}").getrandbits(63)``.

    Args:
        seed: master seed of the run.
        index: 0-based number of the game within the run.

    Returns:
        A non-negative integer below ``2**63``.
    """
    return _derive("agents", seed, index)


def _make_agents(agents: Sequence[Any] | None, num_players: int, rng: random.Random) -> list[Any]:
    """Instantiate the per-seat agents of one game.

    Each entry of ``agents`` is either an agent object (anything with a
    ``step(state)`` method, used as is), a factory called as ``factory(rng)``
    (e.g. the class `RandomAgent`) or an agent spec (``"ismcts:iterations=50"``,
    see `trickkit.agents`).  ``None`` entries, or ``agents=None``,
    mean a `RandomAgent` on the game's agent RNG.
    """
    if isinstance(agents, str):  # "ismcts,random,random,random"
        from trickkit.agents import parse_agent_specs

        agents = parse_agent_specs(agents, num_players)
    if agents is not None and len(agents) != num_players:
        raise TrickkitError(f"got {len(agents)} agents for a {num_players}-player game")
    made: list[Any] = []
    for seat in range(num_players):
        spec = None if agents is None else agents[seat]
        if spec is None:
            made.append(RandomAgent(rng))
        elif isinstance(spec, str):
            from trickkit.agents import parse_agent_spec

            made.append(parse_agent_spec(spec)(rng))
        elif isinstance(spec, type) or not hasattr(spec, "step"):
            if not callable(spec):
                raise TrickkitError(f"agent for seat {seat} has no step() and is not callable: {spec!r}")
            made.append(spec(rng))
        else:
            made.append(spec)
    return made


def play_game(game: Any, seed: int, index: int, agents: Sequence[Any] | None = None) -> dict[str, Any]:
    """Play game ``index`` of a run with master ``seed`` to its end.

    Args:
        game: a loaded Game.
        seed: master seed of the run.
        index: 0-based game number; selects the state seed and the agent RNG.
        agents: per-seat agents or factories (see `simulate`); ``None`` = random.

    Returns:
        The game record ``{"game", "params", "players", "seed", "actions",
        "scores", "winners", "ruleset_sha256", "trickkit_version"}`` where ``seed`` is the state seed
        (`game_seed`), ``actions`` the action texts in order; a game loaded from a ruleset
        file (not a shipped name) also has ``"ruleset"``, the path as given to ``load_game``,
        and a game with partnerships (``teams:``) also has ``"team_scores"``, one per team.

    Raises:
        TrickkitError: an agent chose an illegal action, a non-terminal state
            had no legal action, or the game exceeded `MAX_ACTIONS`.
    """
    sseed = game_seed(seed, index)
    rng = random.Random(agent_seed(seed, index))
    players = game.num_players
    seats = _make_agents(agents, players, rng)
    state = game.new_initial_state(seed=sseed)
    actions: list[str] = []
    while not state.is_terminal():
        if len(actions) >= MAX_ACTIONS:
            raise TrickkitError(f"game {index} (seed {sseed}) did not end after {MAX_ACTIONS} actions")
        seat = state.current_player()
        action = seats[seat].step(state)
        state.apply_action(action)
        actions.append(str(action))
    return game_record(game, sseed, actions, state)


@attrs.frozen
class SimulationSummary:
    """Aggregate statistics of a simulation run.

    Attributes:
        game: name of the game.
        params: resolved parameter values of the game.
        players: number of seats.
        games: number of games played.
        seconds: wall-clock duration of the run.
        games_per_s: games played per second.
        actions_per_s: actions applied per second.
        mean_length: mean number of actions per game.
        mean_score: mean final score of each seat.
        win_rate: fraction of games each seat won (a shared win counts for every winner, so
            with ties or partners these add up to more than 1).
        wins: games each seat won (a shared win counts for every winner); empty if not counted.
        win_share: each seat's share of the wins, a win shared by ``k`` seats counting ``1/k``
            (adds up to the games played); the seat-equality test uses it. Empty if not counted.
        teams: the partnerships (each a tuple of seats); without ``teams:`` one per seat.
        team_mean_score: mean final score of each team.
        team_win_rate: each team's share of the wins. A game won by k teams together (a tie)
            gives each of them 1/k of a win, so these add up to 1 over the teams (for any
            game with at least one winner).
        tie_rate: fraction of games won by more than one team together.
    """

    game: str
    params: dict[str, Any]
    players: int
    games: int
    seconds: float
    games_per_s: float
    actions_per_s: float
    mean_length: float
    mean_score: tuple[float, ...]
    win_rate: tuple[float, ...]
    teams: tuple[tuple[int, ...], ...] = ()
    team_mean_score: tuple[float, ...] = ()
    team_win_rate: tuple[float, ...] = ()
    tie_rate: float = 0.0
    wins: tuple[int, ...] = ()
    win_share: tuple[float, ...] = ()

    def win_interval(self, seat: int) -> Any:
        """The 95% Wilson interval of ``seat``'s win rate (a `trickkit.lab.stats.Interval`)."""
        from trickkit.lab import stats

        wins = self.wins[seat] if self.wins else round(self.win_rate[seat] * self.games)
        return stats.wilson(wins, self.games)

    def _partnerships(self) -> bool:
        return bool(self.teams) and len(self.teams) < self.players

    def seat_test(self) -> Any:
        """Chi-square test of "every seat wins equally often" on `win_share` (a
        `trickkit.lab.stats.ChiSquare`), or None when there is nothing to test. In a
        partnership game, where only teams are meaningful, of "every team wins equally often"
        on the teams' shares of the wins (`team_win_rate`, ties split)."""
        from trickkit.lab import stats

        if self._partnerships() and self.team_win_rate:
            return stats.chi_square_equal([rate * self.games for rate in self.team_win_rate])
        return stats.chi_square_equal(self.win_share) if self.win_share else None

    def to_table(self) -> Any:
        """Return the summary as a ``rich.table.Table`` (one row per seat)."""
        from rich.table import Table

        params = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        caption = (
            f"{self.games} games in {self.seconds:.2f}s\n"
            f"{self.games_per_s:.1f} games/s, {self.actions_per_s:.0f} actions/s\n"
            f"mean game length {self.mean_length:.1f} actions"
        )
        test = self.seat_test()
        if test is not None:  # no percent sign here: the seat rows are the lines with one
            caption += (
                f"\nevery {'team' if self._partnerships() else 'seat'} equal? "
                f"chi-square {test.statistic:.2f} on {test.df} df, "
                f"p = {test.p_value:.3g}" + (" (few games: rough)" if test.expected < 5 else "")
            )
        from rich.text import Text

        table = Table(  # Text: a name or parameter value is never read as rich markup or an emoji code
            title=Text(f"{self.game} ({params})" if params else self.game),
            caption=caption,
            min_width=48,
        )
        table.add_column("seat", justify="right")
        table.add_column("mean score", justify="right")
        table.add_column("win rate", justify="right")
        table.add_column("95 CI", justify="right")
        for seat in range(self.players):
            ci = self.win_interval(seat) if self.games else None
            table.add_row(
                str(seat),
                f"{self.mean_score[seat]:.2f}",
                f"{self.win_rate[seat]:.1%}",
                f"{ci.low:.1%}-{ci.high:.1%}" if ci is not None else "",
            )
        if self.teams and len(self.teams) < self.players:  # partnerships: one row per team, wins shared
            table.add_section()
            for t, members in enumerate(self.teams):
                table.add_row(
                    Text(f"team {t} ({'+'.join(map(str, members))})"),
                    f"{self.team_mean_score[t]:.2f}",
                    f"{self.team_win_rate[t]:.1%}",
                )
            table.caption = caption + f"\nteam win rates share each tie equally; ties {self.tie_rate:.1%}"
        return table

    def to_text(self) -> str:
        """Return the summary as plain text (the table rendered without colour)."""
        from rich.console import Console

        # soft_wrap: the title and caption lines whole, as the CLI prints them (not wrapped to the table)
        console = Console(width=100, record=True, color_system=None, file=io.StringIO(), soft_wrap=True)
        console.print(self.to_table())
        return console.export_text()


class _Totals:
    """Running totals folded from game records (constant memory)."""

    def __init__(self, players: int, teams: Sequence[Sequence[int]] = ()):
        self.games = 0
        self.actions = 0
        self.score_sum = [0] * players
        self.wins = [0] * players
        self.share = [0.0] * players
        self.teams = tuple(tuple(t) for t in teams) or tuple((s,) for s in range(players))
        self.team_of = {s: t for t, members in enumerate(self.teams) for s in members}
        self.team_score_sum = [0] * len(self.teams)
        self.team_wins = [0.0] * len(self.teams)
        self.ties = 0

    def add(self, record: dict[str, Any]) -> None:
        self.games += 1
        self.actions += record["length"]
        for seat, score in enumerate(record["scores"]):
            self.score_sum[seat] += score
        for seat in record["winners"]:
            self.wins[seat] += 1
            self.share[seat] += 1 / len(record["winners"])
        team_scores = record.get("team_scores") or [record["scores"][m[0]] for m in self.teams]
        for t, score in enumerate(team_scores):
            self.team_score_sum[t] += score
        won = sorted({self.team_of[s] for s in record["winners"]})
        for t in won:  # a tie shares one win between the teams that tie
            self.team_wins[t] += 1 / len(won)
        self.ties += len(won) > 1


def _compact(record: dict[str, Any], keep_actions: bool) -> dict[str, Any]:
    record["length"] = len(record["actions"])
    if not keep_actions:
        record["actions"] = None
    return record


# ---------------------------------------------------------------- worker side

_WORKER: dict[str, Any] = {}


def _worker_init(spec: tuple[Any, ...], agents: Sequence[Any] | None, parent: int | None = None) -> None:
    if parent is not None:
        _exit_with_parent(parent)
    if spec[0] == "pickle":
        game = pickle.loads(spec[1])
    else:
        from trickkit.engine.loader import load_game

        game = load_game(spec[1], **spec[2])
    _WORKER["game"] = game
    _WORKER["agents"] = agents


def _worker_chunk(seed: int, start: int, stop: int, keep_actions: bool) -> list[dict[str, Any]]:
    game, agents = _WORKER["game"], _WORKER["agents"]
    return [_compact(play_game(game, seed, i, agents), keep_actions) for i in range(start, stop)]


def _parallel_records(
    game: Any, games: int, seed: int, agents: Sequence[Any] | None, jobs: int, keep_actions: bool
) -> Iterator[dict[str, Any]]:
    """Yield the records of games ``0..games-1`` in order, played by ``jobs`` processes."""
    for records in pooled_chunks(
        games,
        jobs,
        _worker_init,
        (_game_spec(game), agents, os.getpid()),
        lambda start, stop: (_worker_chunk, seed, start, stop, keep_actions),
    ):
        yield from records


def _ray_records(
    game: Any,
    games: int,
    seed: int,
    agents: Sequence[Any] | None,
    jobs: int,
    keep_actions: bool,
    address: str | None,
) -> Iterator[dict[str, Any]]:
    """Like `_parallel_records`, with the chunks played as Ray tasks (local or a cluster).

    Game ``i`` gets the same seeds as anywhere else, so the records are identical to a
    single-process run. Every Ray worker must have trickkit installed (and, for a game loaded
    from a file, the file at the same path).
    """
    try:
        import ray
    except ImportError:
        raise TrickkitError("the ray backend needs Ray: pip install 'trickkit[ray]'") from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            options["address"] = address
        else:
            options["num_cpus"] = worker_count(jobs, games)
        ray.init(**options)
    task = ray.remote(_ray_chunk)
    spec = _game_spec(game)
    for records in chunks_in_order(
        games, jobs, lambda start, stop: task.remote(spec, agents, seed, start, stop, keep_actions), ray.get
    ):
        yield from records


def _ray_chunk(
    spec: tuple[Any, ...], agents: Sequence[Any] | None, seed: int, start: int, stop: int, keep_actions: bool
) -> list[dict[str, Any]]:
    if _WORKER.get("spec") != spec:  # a Ray worker keeps its loaded game between tasks
        _worker_init(spec, agents)
        _WORKER["spec"] = spec
    return _worker_chunk(seed, start, stop, keep_actions)


BACKENDS = ("process", "ray")
"""Where parallel games run: worker processes on this machine, or a Ray cluster."""


# ---------------------------------------------------------------- entry point


def simulate(
    game: Any,
    games: int,
    seed: int = 0,
    agents: Sequence[Any] | None = None,
    jobs: int = 1,
    out: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    backend: str = "process",
    address: str | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> SimulationSummary:
    """Play ``games`` games and summarise them.

    Args:
        game: a loaded Game, or a shipped game name / ruleset path (then loaded
            with ``load_game(game)`` and its default parameters).
        games: number of games to play (>= 0).
        seed: master seed; game ``i`` uses state seed ``game_seed(seed, i)``
            and agent RNG ``random.Random(agent_seed(seed, i))``.
        agents: ``None`` (random agents for every seat) or one entry per seat:
            an agent object with ``step(state) -> Action``, a factory
            ``factory(rng) -> agent`` (e.g. `RandomAgent`), an agent spec text
            (``"ismcts:iterations=100"``, see `trickkit.agents`), or ``None``
            for a random agent; or one text of specs, ``"ismcts,random,random,random"``.
            With ``jobs > 1`` they must be picklable (specs always are; each game builds
            its agents afresh from them).
        jobs: number of worker processes; ``1`` plays in this process.
            Results are identical for any ``jobs``.
        out: path of a JSONL file to write, one line per game in game order:
            ``{"game", "params", "players", "seed", "actions", "scores", "winners", "ruleset_sha256",
            "trickkit_version"}``, and ``ruleset``, the ruleset file relative to ``out``'s folder, for a
            game loaded from a file.
        progress: called as ``progress(done, total)`` as games complete.
        backend: ``"process"`` (worker processes here, when ``jobs > 1``) or ``"ray"``
            (Ray tasks: a local Ray instance with ``jobs`` CPUs, or the cluster at
            ``address``; needs ``pip install 'trickkit[ray]'``). Results are identical.
        address: a Ray cluster address (``ray://host:10001`` or ``auto``) for ``backend="ray"``.
        on_record: called with each game's record in game order as it is folded in (its
            ``scores``, ``winners`` and ``length``; ``actions`` only when ``out`` is given).

    Returns:
        The run's `SimulationSummary`.

    Raises:
        RulesetError: ``game`` is a name/path that cannot be loaded.
        TrickkitError: a game misbehaved (see `play_game`), or bad arguments.
    """
    if isinstance(game, (str, os.PathLike)):
        from trickkit.engine.loader import load_game

        game = load_game(os.fspath(game))
    if games < 0:
        raise TrickkitError(f"games must be >= 0, got {games}")
    if jobs < 1:
        raise TrickkitError(f"jobs must be >= 1, got {jobs}")
    if backend not in BACKENDS:
        raise TrickkitError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    players = game.num_players
    if isinstance(agents, str) or (agents is not None and any(isinstance(a, str) for a in agents)):
        from trickkit.agents import parse_agent_spec, parse_agent_specs  # checked once, before any game

        agents = (
            parse_agent_specs(agents, players)
            if isinstance(agents, str)
            else [parse_agent_spec(a) if isinstance(a, str) else a for a in agents]
        )
    totals = _Totals(players, getattr(game, "teams", ()))
    keep_actions = out is not None
    # the records go to a temporary file that replaces ``out`` once every game is written: an
    # error half-way leaves an earlier file there untouched
    with atomic_writer(out) if out is not None else contextlib.nullcontext(None) as sink:
        started = time.perf_counter()
        if backend == "ray":
            records: Iterator[dict[str, Any]] = _ray_records(game, games, seed, agents, jobs, keep_actions, address)
        elif jobs == 1 or games <= 1:
            records = (_compact(play_game(game, seed, i, agents), keep_actions) for i in range(games))
        else:
            records = _parallel_records(game, games, seed, agents, jobs, keep_actions)
        fold_records(records, totals, games, on_record, sink, progress, _folder(out))
    return summarise(game, totals, time.perf_counter() - started)


def _folder(out: str | os.PathLike[str] | None) -> str | None:
    """The folder of the records file ``out`` (None: no file)."""
    return None if out is None else os.path.dirname(os.path.abspath(os.fspath(out)))


def fold_records(
    records: Iterator[dict[str, Any]],
    totals: _Totals,
    games: int,
    on_record: Callable[[dict[str, Any]], None] | None,
    sink: Any,
    progress: Callable[[int, int], None] | None,
    folder: str | None = None,
) -> None:
    """Fold game records, in game order, into ``totals``; pass each to ``on_record``, write it as a
    JSONL line to ``sink`` (an open text file, or None) and report ``progress(done, games)``.
    ``folder``: the folder of the file ``sink`` writes (record ``ruleset`` paths are written
    relative to it)."""
    for record in records:
        totals.add(record)
        if on_record is not None:
            on_record(record)
        if sink is not None:
            sink.write(record_line(record, folder))
        if progress is not None:
            progress(totals.games, games)


def summarise(game: Any, totals: _Totals, seconds: float) -> SimulationSummary:
    """The `SimulationSummary` of ``totals``, folded from games of ``game`` played in ``seconds``."""
    n = totals.games
    rate = (lambda x: x / seconds) if seconds > 0 else (lambda x: 0.0)
    return SimulationSummary(
        game=game.name,
        params=dict(game.params),
        players=game.num_players,
        games=n,
        seconds=seconds,
        games_per_s=rate(n),
        actions_per_s=rate(totals.actions),
        mean_length=totals.actions / n if n else 0.0,
        mean_score=tuple(s / n if n else 0.0 for s in totals.score_sum),
        win_rate=tuple(w / n if n else 0.0 for w in totals.wins),
        wins=tuple(totals.wins),
        win_share=tuple(totals.share),
        teams=totals.teams,
        team_mean_score=tuple(x / n if n else 0.0 for x in totals.team_score_sum),
        team_win_rate=tuple(w / n if n else 0.0 for w in totals.team_wins),
        tie_rate=totals.ties / n if n else 0.0,
    )
