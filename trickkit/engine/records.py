"""Verified replays of game records (the JSON lines written by ``trickkit simulate --out``).

Each record names its game (``game``, and ``ruleset``, the file, when the game was loaded
from a path), the seat count, the parameters, the state seed, the actions, the final
scores and winners, and the ruleset's content hash. `replay_records` loads the
ruleset, refuses a record whose ``ruleset_sha256`` differs from the loaded ruleset's
content hash (unless ``force``), replays the actions through the normal
``apply_action`` path and compares the result with the recorded one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from trickkit import jsonsafe
from trickkit.errors import RulesetError, TrickkitError, short_repr
from trickkit.rules.confine import confined_ruleset
from trickkit.rules.source import open_regular

if TYPE_CHECKING:
    from trickkit.engine.game import Game

__all__ = ["ReplayResult", "read_records", "replay_record", "replay_records"]

MAX_RECORD_LINE = 50_000_000
"""Longest accepted record line, in characters (a record of 100,000 actions is about 1 MB)."""

MAX_RECORDS_FILE = 2_000_000_000
"""Largest records file `read_records` reads, in bytes (refused before reading: about 2,000
games of 100,000 actions, or millions of short ones)."""

_REQUIRED = ("game", "params", "players", "seed", "actions", "scores", "winners", "ruleset_sha256")


@attrs.frozen
class ReplayResult:
    """The outcome of replaying one record.

    Attributes:
        line: 1-based line of the record in its file.
        status: ``"confirmed"`` (same scores and winners), ``"diverged"`` (an action was
            refused, the game did not end where it should, or the result differs) or
            ``"refused"`` (the record cannot be replayed: other ruleset content, unreadable
            record, ruleset not loadable).
        message: what happened, in plain words (names the action index and text on a divergence).
        action: index of the refused action, when one was refused.
    """

    line: int
    status: str
    message: str
    action: int | None = None
    state: Any = attrs.field(default=None, repr=False, eq=False)
    """The replayed `trickkit.State` of a confirmed record (for ``trickkit replay --show``)."""

    @property
    def ok(self) -> bool:
        return self.status == "confirmed"

    def __str__(self) -> str:
        return f"line {self.line}: {self.status}: {self.message}"


def read_records(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, parsed JSON or the ValueError)`` for each non-blank line of a JSONL file.

    Only a regular file of at most `MAX_RECORDS_FILE` bytes is read (see
    `trickkit.rules.source.open_regular`); else OSError, before anything is read.

    The error is a `json.JSONDecodeError` (not JSON), a `trickkit.jsonsafe.JSONLimitError`
    (nested too deep, an integer too large) or a ValueError for a line longer than
    `MAX_RECORD_LINE`, which is skipped without being read whole.
    """
    fd = open_regular(path)  # a FIFO, /dev/zero or a folder is refused before it is read
    size = os.fstat(fd).st_size
    if size > MAX_RECORDS_FILE:
        os.close(fd)
        raise OSError(0, f"file too large ({size:,} bytes; records files are read up to {MAX_RECORDS_FILE:,})")
    with open(fd, encoding="utf-8", errors="replace") as fh:
        number = 0
        while True:
            text = fh.readline(MAX_RECORD_LINE + 1)
            if not text:
                return
            number += 1
            if len(text) > MAX_RECORD_LINE and not text.endswith("\n"):
                while text and not text.endswith("\n"):  # skip the rest of the line
                    text = fh.readline(MAX_RECORD_LINE)
                yield number, ValueError(f"line longer than {MAX_RECORD_LINE:,} characters")
                continue
            if not text.strip():
                continue
            try:
                yield number, jsonsafe.loads(text)
            except ValueError as e:
                yield number, e


def _source(record: dict[str, Any], base: str | None, ruleset: str | None) -> str:
    """What to load: the ``--ruleset`` override, the record's ruleset file, or the game name.

    The record's ``ruleset`` is confined as ``extends`` is (`trickkit.rules.confine.confined_ruleset`):
    a shipped name, or a relative path that stays in the records file's folder (``base``; the
    current folder for a record given without its file).

    Raises:
        ValueError: the record's ``ruleset`` may not be loaded (absolute, outside the folder).
    """
    if ruleset is not None:
        return ruleset
    path = record.get("ruleset")
    if isinstance(path, str) and path:
        return confined_ruleset(path, base if base is not None else os.curdir)
    game: str = record["game"]  # (not checked here: a name that is no str fails to load)
    return game


def replay_record(
    record: Any,
    line: int = 1,
    *,
    force: bool = False,
    base: str | None = None,
    ruleset: str | None = None,
    _cache: dict[tuple[str, str, str], Game] | None = None,
) -> ReplayResult:
    """Replay one record and compare its result.

    Args:
        record: the parsed JSON record.
        line: its line number (for messages).
        force: replay even when the ruleset's content hash differs from the recorded one.
        base: folder of the records file: the record's ``ruleset`` path is relative to it and
            may not leave it (default: the current folder).
        ruleset: load this ruleset (name or path) instead of the one the record names.

    Returns:
        The `ReplayResult`.
    """
    from trickkit.engine.loader import load_game

    def result(status: str, message: str, action: int | None = None) -> ReplayResult:
        return ReplayResult(line, status, message, action)

    if not isinstance(record, dict):
        return result("refused", f"not a game record (a JSON {type(record).__name__}, expected an object)")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        return result("refused", f"record lacks {', '.join(repr(k) for k in missing)}")
    actions = record["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        return result("refused", "record has no list of action texts (was it written with --out?)")
    if not isinstance(record["params"], dict):
        return result("refused", f"record 'params' must be an object, got {short_repr(record['params'])}")
    try:
        source = _source(record, base, ruleset)
    except ValueError as e:
        return result("refused", f"record 'ruleset': {e} (replay it with --ruleset FILE)")
    try:
        key = (source, short_repr(record["players"], 200), json.dumps(record["params"], sort_keys=True))
    except (TypeError, ValueError, RecursionError):  # from Python callers: keys of mixed types, huge ints
        return result("refused", f"record 'params' cannot be read: {short_repr(record['params'])}")
    cache = _cache if _cache is not None else {}
    try:
        if key not in cache:
            cache[key] = load_game(source, players=record["players"], **record["params"])
        game = cache[key]
    except RulesetError as e:
        return result(
            "refused",
            f"cannot load {short_repr(source)} with players={short_repr(record['players'])} "
            f"and {short_repr(record['params'])}:\n" + "\n".join(f"  {p}" for p in e.problems),
        )
    except (TrickkitError, TypeError) as e:
        return result("refused", f"cannot load {short_repr(source)}: {e}")
    if game.name != record["game"] and ruleset is None:
        return result(
            "refused", f"record is of game {short_repr(record['game'])}, but {short_repr(source)} is {game.name!r}"
        )
    if record["ruleset_sha256"] != game.content_hash:
        recorded = str(record["ruleset_sha256"])
        if not force:
            return result(
                "refused",
                f"ruleset {game.name!r} has changed since the record was made "
                f"(recorded content hash {recorded[:12]}, now {game.content_hash[:12]}); "
                f"use --force to replay anyway",
            )
    try:
        state = game.new_initial_state(seed=record["seed"])
    except (TrickkitError, ValueError, TypeError) as e:
        return result("refused", f"bad seed {short_repr(record['seed'])}: {e}")
    for i, action in enumerate(actions):
        if state.is_terminal():
            return result(
                "diverged",
                f"the game ended after {i} actions, but the record has {len(actions)} "
                f"(action {i} {short_repr(action)} is one too many)",
                i,
            )
        try:
            state.apply_action(action)
        except TrickkitError as e:
            return result(
                "diverged", f"action {i} {short_repr(action)} by seat {state.current_player()} was refused: {e}", i
            )
    if not state.is_terminal():
        return result(
            "diverged",
            f"the game is not over after the record's {len(actions)} actions (seat {state.current_player()} to act)",
        )
    scores, winners = list(state.scores()), list(state.winners())
    problems = []
    if scores != record["scores"]:
        problems.append(f"final scores expected {short_repr(record['scores'], 200)}, got {scores}")
    if winners != record["winners"]:
        problems.append(f"winners expected {short_repr(record['winners'], 200)}, got {winners}")
    if "team_scores" in record and list(state.team_scores()) != record["team_scores"]:  # games with partnerships
        problems.append(f"team scores expected {short_repr(record['team_scores'], 200)}, got {state.team_scores()}")
    if problems:
        return result("diverged", "; ".join(problems))
    note = " (content hash differs; replayed with --force)" if record["ruleset_sha256"] != game.content_hash else ""
    return ReplayResult(
        line,
        "confirmed",
        f"{game.name} seed {record['seed']}: {len(actions)} actions, scores {scores}, winners {winners}{note}",
        state=state,
    )


def replay_records(
    path: str | os.PathLike[str], *, force: bool = False, ruleset: str | None = None
) -> list[ReplayResult]:
    """Replay every record of a JSONL file (see `replay_record`), one result per record.

    Raises:
        OSError: the file cannot be read.
    """
    base = os.path.dirname(os.path.abspath(os.fspath(path)))
    cache: dict[tuple[str, str, str], Game] = {}
    results = []
    for line, record in read_records(path):
        if isinstance(record, json.JSONDecodeError):
            results.append(ReplayResult(line, "refused", f"not JSON: {record.msg} (column {record.colno})"))
            continue
        if isinstance(record, ValueError):
            results.append(ReplayResult(line, "refused", f"not a readable record: {record}"))
            continue
        results.append(replay_record(record, line, force=force, base=base, ruleset=ruleset, _cache=cache))
    return results
