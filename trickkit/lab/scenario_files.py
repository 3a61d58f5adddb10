"""Reads scenario files (scripted games with expectations) into `Scenario` values, with located errors.

A scenario file is YAML holding one scenario mapping, a list of them, or a
mapping ``{scenarios: [...]}``.  A scenario::

    name: the trump wins                  # optional
    game: my_game                         # shipped name, or path relative to this file
    params: {players: 4, rounds: 1}       # optional, passed to load_game
    seed: 7                               # optional, default 0
    deals: [[[B2], [G13], [Y1], [G7]]]    # optional: each seat's hand per deal
    actions:
      - bid 1                             # an action text: applied
      - expect:                           # checks on the current state
          current_player: 1
          legal: [bid 0, bid 1]           # exact set of legal action texts
          illegal: bid 5                  # text(s) that must be rejected, state untouched
          reason: "a bid must be"         # text the refusal message must contain
          scores: [20, -10, 0, 0]
          winners: [0]                    # compared sorted
          terminal: false
          zones: {stock: [G3, B1], hand: {0: [B2, G13]}}     # card texts, in order
          variables: {bid: [1, 0, 0, 0], tricks: {2: 1}}     # seat variables: all, or by seat
          observation: {seat: 1, phase: bid}                  # a subset of observation(seat)

(A top-level ``players`` key is accepted too and means ``params.players``.)

Malformed files raise `trickkit.errors.ScenarioError` with located
lines. `trickkit.lab.scenarios` runs what this module reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeAlias, cast

import attrs

from trickkit.errors import (
    Problem,
    RulesetError,
    ScenarioError,
    did_you_mean,
    short_repr,
)
from trickkit.rules.confine import confined_ruleset
from trickkit.rules.source import MAX_TEXT_SIZE, format_path, load_yaml, read_limited

Path_: TypeAlias = tuple[str | int, ...]
"""Where a value is in the file: the keys and indices leading to it (``("actions", 3, "expect")``)."""

_RESERVED_PARAMS = ("name_or_path",)
"""Keyword arguments of ``load_game`` that ``params`` may not set (``players`` may: it is one)."""
SCENARIO_KEYS = ("name", "game", "params", "players", "seed", "deals", "actions")
EXPECT_KEYS = (
    "current_player",
    "legal",
    "illegal",
    "reason",
    "scores",
    "winners",
    "terminal",
    "team_scores",
    "zones",
    "variables",
    "observation",
)
_MAX_TEXT = MAX_TEXT_SIZE


@attrs.frozen
class Scenario:
    """One parsed scenario (see the module docstring for the file format).

    Attributes:
        file: the scenario file as given.
        name: the scenario's name (``<file stem>`` or ``<file stem>[i]`` when unnamed).
        game: the game reference as written (shipped name or relative path).
        base_dir: directory of the scenario file (relative game paths start here).
        params: keyword arguments for ``load_game`` (``players`` included).
        seed: seed of the initial state.
        deals: the ``deals`` argument of ``new_initial_state``, or ``None``.
        steps: the action items in order: ``str`` action texts or ``dict`` expectations.
        lines: the 1-based line of each step (0 when unknown).
        line: the line where the scenario starts.
    """

    file: str
    name: str
    game: str
    base_dir: str
    params: dict[str, Any]
    seed: int
    deals: Any
    steps: tuple[Any, ...]
    lines: tuple[int, ...]
    line: int = 0


# ----------------------------------------------------------------- loading


class _ShiftedLocator:
    """Positions in a top-level-list file parsed as ``scenarios:`` + indented text."""

    def __init__(self, inner: Any):
        self.inner = inner

    def position(self, path: Sequence[Any]) -> tuple[int, int]:
        line, col = self.inner.position(("scenarios", *path))
        return (line - 1, max(col - 2, 1)) if line > 1 else (0, 0)

    def key_position(self, path: Sequence[Any]) -> tuple[int, int]:
        line, col = self.inner.key_position(("scenarios", *path))
        return (line - 1, max(col - 2, 1)) if line > 1 else (0, 0)


def _read_yaml(path: str) -> tuple[Any, Any]:
    """Load a scenario file as ``(data, locator)`` using trickkit's safe YAML dialect.

    ``trickkit.rules.source.load_yaml`` only accepts a mapping at the top level, so a
    file whose top level is a list is re-read as ``scenarios:`` followed by the
    file indented by two spaces, and positions are shifted back.
    """
    try:
        raw = read_limited(path, _MAX_TEXT)  # a FIFO, a device or a directory is refused, not read
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        reason = (exc.strerror or exc) if isinstance(exc, OSError) else exc
        raise ScenarioError(f"{path}: cannot read: {reason}") from None
    if len(raw) > _MAX_TEXT:
        raise ScenarioError(f"{path}: scenario file too large")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: not valid UTF-8 text (offset {exc.start})") from None
    try:
        return load_yaml(text, path)
    except RulesetError as exc:
        if not (
            len(exc.problems) == 1 and exc.problems[0].message.startswith("top level must be a mapping, got a list")
        ):
            raise _scenario_error(exc.problems) from None
    wrapped = "scenarios:\n" + "".join("  " + line for line in text.splitlines(keepends=True))
    try:
        data, inner = load_yaml(wrapped, path)
    except RulesetError as exc:
        shifted = [
            Problem(
                p.file,
                p.line - 1 if p.line > 1 else 0,
                max(p.column - 2, 1) if p.line > 1 else 0,
                "$" + p.path[len("$.scenarios") :] if p.path.startswith("$.scenarios") else p.path,
                re.sub(r"\(first at line (\d+)\)", lambda m: f"(first at line {int(m[1]) - 1})", p.message),
            )
            for p in exc.problems
        ]
        raise _scenario_error(shifted) from None
    return data["scenarios"], _ShiftedLocator(inner)


def _scenario_error(problems: Sequence[Problem]) -> ScenarioError:
    error = ScenarioError("\n".join(str(p) for p in problems))
    error.problems = list(problems)  # type: ignore[attr-defined]
    return error


class _Checker:
    """Collects located problems while validating one file's data."""

    def __init__(self, file: str, locator: Any):
        self.file = file
        self.locator = locator
        self.problems: list[Problem] = []

    def add(self, path: Path_, message: str, at_key: bool = False) -> None:
        where = self.locator.key_position(path) if at_key else self.locator.position(path)
        self.problems.append(Problem(self.file, where[0], where[1], format_path(path), message))

    def line(self, path: Path_) -> int:
        line: int = self.locator.position(path)[0]
        return line

    def keys(self, mapping: dict[str, Any], path: Path_, allowed: Sequence[str], what: str) -> None:
        for key in mapping:
            if key not in allowed:
                self.add(
                    path + (key,),
                    f"unknown {what} key {short_repr(key)}{did_you_mean(str(key), allowed)}",
                    at_key=True,
                )

    def text_list(self, value: Any, path: Path_, what: str, single_ok: bool = False) -> list[str] | None:
        if single_ok and isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.add(path, f"{what} must be a list of action texts, got {short_repr(value)}")
            return None
        return list(value)

    def int_list(self, value: Any, path: Path_, what: str) -> list[int] | None:
        if not isinstance(value, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
        ):
            self.add(path, f"{what} must be a list of numbers, got {short_repr(value)}")
            return None
        return list(value)


def _parse_expect(chk: _Checker, expect: Any, path: Path_) -> dict[str, Any]:
    if not isinstance(expect, dict):
        chk.add(path, f"expect must be a mapping of checks, got {short_repr(expect)}")
        return {}
    if not expect:
        chk.add(path, "expect has no checks (use any of: " + ", ".join(EXPECT_KEYS) + ")")
    chk.keys(expect, path, EXPECT_KEYS, "expect")
    out: dict[str, Any] = {}
    for key, value in expect.items():
        sub = path + (key,)
        if key == "current_player":
            if isinstance(value, bool) or not isinstance(value, int):
                chk.add(sub, f"current_player must be an integer seat, got {short_repr(value)}")
            else:
                out[key] = value
        elif key == "legal":
            if (v := chk.text_list(value, sub, "legal")) is not None:
                out[key] = v
        elif key == "illegal":
            if (v := chk.text_list(value, sub, "illegal", single_ok=True)) is not None:
                out[key] = v
        elif key == "reason":
            if not isinstance(value, str) or "illegal" not in expect:
                chk.add(sub, f"reason must be text and go with 'illegal', got {short_repr(value)}")
            else:
                out[key] = value
        elif key in ("scores", "winners", "team_scores"):
            if (numbers := chk.int_list(value, sub, key)) is not None:
                out[key] = numbers
        elif key == "terminal":
            if not isinstance(value, bool):
                chk.add(sub, f"terminal must be true or false, got {short_repr(value)}")
            else:
                out[key] = value
        elif key in ("zones", "variables"):
            if not isinstance(value, dict) or not value or not all(isinstance(k, str) for k in value):
                chk.add(
                    sub, f"{key} must be a mapping from {key[:-1]} names to what they hold, got {short_repr(value)}"
                )
            else:
                out[key] = value
        elif key == "observation":
            seat = value.get("seat") if isinstance(value, dict) else None
            if not isinstance(value, dict) or isinstance(seat, bool) or not isinstance(seat, int):
                chk.add(
                    sub,
                    f"observation must be a mapping with the 'seat' observing and the fields to "
                    f"compare, got {short_repr(value)}",
                )
            else:
                out[key] = value
    return out


def _parse_scenario(chk: _Checker, raw: Any, path: Path_, default_name: str, base_dir: str) -> Scenario | None:
    if not isinstance(raw, dict):
        chk.add(path, f"a scenario must be a mapping, got {type(raw).__name__} {short_repr(raw)}")
        return None
    before = len(chk.problems)
    chk.keys(raw, path, SCENARIO_KEYS, "scenario")
    name = raw.get("name", default_name)
    if not isinstance(name, (str, int)):
        chk.add(path + ("name",), f"name must be text, got {short_repr(name)}")
    game = raw.get("game")
    if game is None:
        chk.add(path, "missing key 'game' (a shipped game name or a ruleset path)")
    elif not isinstance(game, str) or not game:
        chk.add(path + ("game",), f"game must be a game name or path, got {short_repr(game)}")
    else:
        try:  # confined as `extends` is: a shipped name, or a file in this file's folder (or below)
            confined_ruleset(game, base_dir)
        except ValueError as e:
            chk.add(path + ("game",), f"game: {e}")
    params = raw.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        chk.add(path + ("params",), f"params must be a mapping of parameter values, got {short_repr(params)}")
        params = {}
    params = dict(params)
    for key in params:
        if key in _RESERVED_PARAMS:  # load_game's own argument, not a parameter of the game
            chk.add(
                path + ("params", key), f"{key!r} is not a game parameter (the game is named by 'game')", at_key=True
            )
    if "players" in raw:
        players = raw["players"]
        if isinstance(players, bool) or not isinstance(players, int):
            chk.add(path + ("players",), f"players must be an integer, got {short_repr(players)}")
        elif "players" in params and params["players"] != players:
            chk.add(
                path + ("players",),
                f"players {short_repr(players)} contradicts params.players {short_repr(params['players'])}",
            )
        else:
            params["players"] = players
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        chk.add(path + ("seed",), f"seed must be an integer, got {short_repr(seed)}")
    elif seed < 0:  # new_initial_state would refuse it with a ValueError
        chk.add(path + ("seed",), f"seed must not be negative, got {short_repr(seed)}")
    deals = raw.get("deals")
    if deals is not None and not isinstance(deals, list):
        chk.add(path + ("deals",), f"deals must be a list (per deal, per seat, card texts), got {short_repr(deals)}")
    actions = raw.get("actions")
    steps: list[Any] = []
    lines: list[int] = []
    if actions is None:
        chk.add(path, "missing key 'actions' (a list of action texts and {expect: ...} checks)")
    elif not isinstance(actions, list):
        chk.add(path + ("actions",), f"actions must be a list, got {short_repr(actions)}")
    else:
        for i, item in enumerate(actions):
            sub = path + ("actions", i)
            lines.append(chk.line(sub))
            if isinstance(item, str):
                steps.append(item)
            elif isinstance(item, dict):
                chk.keys(item, sub, ("expect",), "action item")
                if "expect" not in item:
                    if not any(k not in ("expect",) for k in item):
                        chk.add(sub, "empty mapping (expected {expect: {...}})")
                    steps.append({})
                else:
                    steps.append(_parse_expect(chk, item["expect"], sub + ("expect",)))
            else:
                chk.add(sub, f"an action item must be an action text or {{expect: ...}}, got {short_repr(item)}")
                steps.append({})
    if len(chk.problems) > before:
        return None
    return Scenario(
        file=chk.file,
        name=str(name),
        game=cast(str, game),  # checked above: a scenario with problems is None
        base_dir=base_dir,
        params=params,
        seed=seed,
        deals=deals,
        steps=tuple(steps),
        lines=tuple(lines),
        line=chk.line(path),
    )


def load_scenario_file(path: str | os.PathLike[str]) -> list[Scenario]:
    """Parse and validate a scenario file.

    Args:
        path: the YAML file; messages name it as given.

    Returns:
        Its scenarios, in file order.

    Raises:
        ScenarioError: the file cannot be read, is not valid YAML, or is
            malformed (unknown keys, wrong types, missing ``game``/``actions``);
            the message has one located line per problem and the exception
            a ``problems`` list.
    """
    file = os.fspath(path)
    data, locator = _read_yaml(file)
    chk = _Checker(file, locator)
    base_dir = os.path.dirname(os.path.abspath(file))
    stem = Path(file).stem
    prefix: tuple[str, ...] | None
    if isinstance(data, dict) and "scenarios" in data:
        chk.keys(data, (), ("scenarios",), "top-level")
        items, prefix = data["scenarios"], ("scenarios",)
        if not isinstance(items, list):
            chk.add(prefix, f"scenarios must be a list, got {short_repr(items)}")
            items = None
    elif isinstance(data, list):
        items, prefix = data, ()
    else:
        items, prefix = [data], None
    if items == [] and prefix is not None:  # (a file of one scenario has a prefix of None)
        chk.add(prefix, "no scenarios in file")
    scenarios = []
    for i, raw in enumerate(items or ()):
        at: Path_ = (*prefix, i) if prefix is not None else ()
        default = f"{stem}[{i}]" if prefix is not None else stem
        scenario = _parse_scenario(chk, raw, at, default, base_dir)
        if scenario is not None:
            scenarios.append(scenario)
    if chk.problems:
        raise _scenario_error(sorted(chk.problems, key=lambda p: (p.line, p.column)))
    return scenarios
