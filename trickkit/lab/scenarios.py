"""Runs scenario files: scripted games with expectations.

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
lines; scenarios that run but do not meet their expectations yield a failed
`ScenarioResult` whose message is the first difference.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Sequence

import attrs

from trickkit.errors import (
    IllegalActionError,
    Problem,
    RulesetError,
    ScenarioError,
    TrickkitError,
    did_you_mean,
    short_repr,
)
from trickkit.rules.source import MAX_TEXT_SIZE, format_path, load_yaml, read_limited

__all__ = [
    "Scenario",
    "ScenarioResult",
    "load_game_for_scenario",
    "load_scenario_file",
    "run_scenario",
    "run_scenario_file",
]

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


@attrs.frozen
class ScenarioResult:
    """The outcome of running one scenario.

    Attributes:
        file: the scenario file as given.
        name: the scenario's name.
        passed: whether every expectation held.
        message: ``""`` when passed, else the first difference, e.g.
            ``step 5 (after 'play G7'): scores expected [20, -10] got [20, 0]``.
        line: line of the failing step in the file (0 when passed or unknown).
    """

    file: str
    name: str
    passed: bool
    message: str = ""
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

    def add(self, path: tuple, message: str, at_key: bool = False) -> None:
        where = self.locator.key_position(path) if at_key else self.locator.position(path)
        self.problems.append(Problem(self.file, where[0], where[1], format_path(path), message))

    def line(self, path: tuple) -> int:
        return self.locator.position(path)[0]

    def keys(self, mapping: dict, path: tuple, allowed: Sequence[str], what: str) -> None:
        for key in mapping:
            if key not in allowed:
                self.add(
                    path + (key,),
                    f"unknown {what} key {short_repr(key)}{did_you_mean(str(key), allowed)}",
                    at_key=True,
                )

    def text_list(self, value: Any, path: tuple, what: str, single_ok: bool = False) -> list[str] | None:
        if single_ok and isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.add(path, f"{what} must be a list of action texts, got {short_repr(value)}")
            return None
        return list(value)

    def int_list(self, value: Any, path: tuple, what: str) -> list[int] | None:
        if not isinstance(value, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
        ):
            self.add(path, f"{what} must be a list of numbers, got {short_repr(value)}")
            return None
        return list(value)


def _parse_expect(chk: _Checker, expect: Any, path: tuple) -> dict[str, Any]:
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
            if (v := chk.int_list(value, sub, key)) is not None:
                out[key] = v
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


def _parse_scenario(chk: _Checker, raw: Any, path: tuple, default_name: str, base_dir: str) -> Scenario | None:
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
        game=game,
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
    if items == []:
        chk.add(prefix, "no scenarios in file")
    scenarios = []
    for i, raw in enumerate(items or ()):
        path = (*prefix, i) if prefix is not None else ()
        default = f"{stem}[{i}]" if prefix is not None else stem
        scenario = _parse_scenario(chk, raw, path, default, base_dir)
        if scenario is not None:
            scenarios.append(scenario)
    if chk.problems:
        raise _scenario_error(sorted(chk.problems, key=lambda p: (p.line, p.column)))
    return scenarios


# ----------------------------------------------------------------- running


def load_game_for_scenario(game: str, base_dir: str, params: dict[str, Any]) -> Any:
    """Load the game a scenario names (the single place scenarios load games).

    ``game`` is a ruleset path when it ends in ``.yaml``/``.yml`` or contains a
    path separator (then resolved relative to ``base_dir``), else a shipped
    game name.

    Args:
        game: the scenario's ``game`` value.
        base_dir: the scenario file's directory.
        params: keyword arguments for ``trickkit.load_game``.

    Returns:
        The loaded Game.

    Raises:
        RulesetError: the game cannot be loaded with those parameters.
    """
    from trickkit.engine.loader import load_game

    ref = game
    if game.endswith((".yaml", ".yml")) or "/" in game or os.sep in game:
        ref = os.path.join(base_dir, game)
    return load_game(ref, **params)


def _fmt(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def run_scenario(scenario: Scenario, game: Any = None) -> ScenarioResult:
    """Play a scenario and check its expectations.

    Args:
        scenario: a parsed scenario.
        game: the Game to play; by default loaded with `load_game_for_scenario`.

    Returns:
        A passed result, or a failed one carrying the first difference:
        a failed expectation, an action rejected with IllegalActionError,
        or a game that could not be loaded or set up.
    """

    def fail(message: str, line: int = 0) -> ScenarioResult:
        return ScenarioResult(scenario.file, scenario.name, False, message, line or scenario.line)

    if game is None:
        try:
            game = load_game_for_scenario(scenario.game, scenario.base_dir, scenario.params)
        except TrickkitError as exc:
            return fail(f"cannot load game {scenario.game!r}: {exc}")
    try:
        if scenario.deals is not None:
            state = game.new_initial_state(seed=scenario.seed, deals=scenario.deals)
        else:
            state = game.new_initial_state(seed=scenario.seed)
    except TrickkitError as exc:
        return fail(f"cannot set up the game: {exc}")

    last: str | None = None
    for number, (step, line) in enumerate(zip(scenario.steps, scenario.lines), start=1):
        where = f"step {number} (after {last!r})" if last is not None else f"step {number} (at start)"
        if isinstance(step, str):
            try:
                state.apply_action(step)
            except IllegalActionError as exc:
                return fail(f"{where}: action {step!r} was rejected: {exc}", line)
            except TrickkitError as exc:
                return fail(f"{where}: action {step!r} failed: {type(exc).__name__}: {exc}", line)
            last = step
            continue
        try:
            problem = _check(state, step)
        except TrickkitError as exc:
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            return fail(f"{where}: {problem}", line)
    return ScenarioResult(scenario.file, scenario.name, True, "", 0)


def _check(state: Any, expect: dict[str, Any]) -> str:
    """Return the first unmet expectation as text, or ``""``."""
    if "terminal" in expect:
        got = state.is_terminal()
        if got != expect["terminal"]:
            return f"terminal expected {_fmt(expect['terminal']).lower()} got {_fmt(got).lower()}"
    if "current_player" in expect:
        got = state.current_player()
        if got != expect["current_player"]:
            return f"current_player expected {expect['current_player']} got {got}"
    if "legal" in expect:
        got_list = [str(a) for a in state.legal_actions()]
        want, got_set = set(expect["legal"]), set(got_list)
        if want != got_set:
            parts = []
            if want - got_set:
                parts.append(f"missing {sorted(want - got_set)}")
            if got_set - want:
                parts.append(f"unexpected {sorted(got_set - want)}")
            return f"legal actions differ: {', '.join(parts)} (legal now: {got_list})"
    for text in expect.get("illegal", ()):
        before = state.to_json()
        try:
            state.apply_action(text)
        except IllegalActionError as err:
            after = state.to_json()
            if after != before:
                return f"illegal action {text!r} was rejected but changed the state"
            if "reason" in expect and expect["reason"] not in str(err):
                return f"illegal action {text!r} was rejected for another reason: {err}"
        else:
            return f"illegal action {text!r} was accepted"
    if "scores" in expect:
        got = list(state.scores())
        if got != list(expect["scores"]):
            return f"scores expected {list(expect['scores'])} got {got}"
    if "team_scores" in expect:
        got = list(state.team_scores())
        if got != list(expect["team_scores"]):
            return f"team_scores expected {list(expect['team_scores'])} got {got}"
    if "winners" in expect:
        got = sorted(state.winners())
        if got != sorted(expect["winners"]):
            return f"winners expected {sorted(expect['winners'])} got {got}"
    if "zones" in expect:
        problem = _check_zones(state, expect["zones"])
        if problem:
            return problem
    if "variables" in expect:
        problem = _check_variables(state, expect["variables"])
        if problem:
            return problem
    if "observation" in expect:
        want = dict(expect["observation"])
        seat = want.pop("seat")
        if not 0 <= seat < state.game.num_players:
            return f"observation: seat {seat} is not a seat of this game (0..{state.game.num_players - 1})"
        problem = subset_difference(want, state.observation(seat), f"observation({seat})")
        if problem:
            return problem
    return ""


def _by_seat(want: Any, n: int, what: str) -> tuple[dict[int, Any] | None, str]:
    """``{seat: value}`` from a list (every seat) or a mapping (some seats); or an error text."""
    if isinstance(want, list):
        if len(want) != n:
            return None, f"{what} expected {len(want)} values (one per seat) for {n} seats"
        return dict(enumerate(want)), ""
    if isinstance(want, dict):
        out = {}
        for k, v in want.items():
            seat = int(k) if isinstance(k, str) and k.isdigit() else k
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                return None, f"{what}: {k!r} is not a seat (0..{n - 1})"
            out[seat] = v
        return out, ""
    return None, f"{what} must be a list (one per seat) or a mapping by seat, got {short_repr(want)}"


def _cards_differ(want: Any, view: Any, what: str) -> str:
    got = view.get("cards") if isinstance(view, dict) else None
    if not isinstance(want, list):
        return f"{what} must be a list of card texts, got {short_repr(want)}"
    if got != [str(c) for c in want]:
        return f"{what} expected {[str(c) for c in want]} got {got}"
    return ""


def _check_zones(state: Any, zones: dict[str, Any]) -> str:
    """Each named zone holds exactly these cards, in this order (first = bottom / left end)."""
    views = state.observation_all()["zones"]
    rules, n = state.rules, state.game.num_players
    seat_zones = {z.name for z in rules.seat_zones}
    for name, want in zones.items():
        if name not in views:
            return f"zones: unknown zone {name!r}{did_you_mean(name, views)} (zones: {', '.join(views)})"
        view, what = views[name], f"zones.{name}"
        if name in seat_zones or isinstance(view, list):  # per seat, or a zone family (members from 0)
            count = n if name in seat_zones else len(view)
            if name in seat_zones:
                by, problem = _by_seat(want, n, what)
            elif isinstance(want, list) and len(want) == count:
                by, problem = dict(enumerate(want)), ""
            elif isinstance(want, dict):
                by, problem = {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in want.items()}, ""
            else:
                by, problem = None, f"{what} expected a list of {count} zones or a mapping by member"
            if problem:
                return problem
            for k, cards in by.items():
                if not isinstance(k, int) or not 0 <= k < count:
                    return f"{what}: {k!r} is not a member (0..{count - 1})"
                problem = _cards_differ(cards, view[k], f"{what}[{k}]")
                if problem:
                    return problem
        else:
            problem = _cards_differ(want, view, what)
            if problem:
                return problem
    return ""


def _check_variables(state: Any, variables: dict[str, Any]) -> str:
    """Seat variables: a list (every seat) or a mapping by seat; other variables: their value."""
    values = state.observation_all()["variables"]
    seat_vars = {v.name for v in state.rules.seat_vars}
    n = state.game.num_players
    for name, want in variables.items():
        if name not in values:
            return f"variables: unknown variable {name!r}{did_you_mean(name, values)} (variables: {', '.join(values)})"
        got = values[name]
        if name in seat_vars:
            by, problem = _by_seat(want, n, f"variables.{name}")
            if problem:
                return problem
            for seat, v in by.items():
                if got[seat] != v:
                    return f"variables.{name}[{seat}] expected {_fmt(v)} got {_fmt(got[seat])}"
        elif isinstance(got, list) and isinstance(want, dict):  # a list-valued variable (team values ...) by index
            problem = subset_difference({k: v for k, v in want.items()}, dict(enumerate(got)), f"variables.{name}")
            if problem:
                return problem
        elif got != want:
            return f"variables.{name} expected {_fmt(want)} got {_fmt(got)}"
    return ""


def subset_difference(want: Any, got: Any, path: str) -> str:
    """The first place where ``got`` does not match ``want``, or ``""``.

    A mapping matches when every key it gives matches (other keys of ``got`` are ignored); a
    list when it has as many items and each matches; anything else when equal.
    """
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path} expected a mapping {short_repr(want)} got {short_repr(got)}"
        for k, v in want.items():
            key = k if k in got else (int(k) if isinstance(k, str) and k.isdigit() and int(k) in got else k)
            if key not in got:
                return f"{path}: no field {k!r}{did_you_mean(str(k), [str(x) for x in got])}"
            problem = subset_difference(v, got[key], f"{path}.{k}")
            if problem:
                return problem
        return ""
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{path} expected {short_repr(want)} got {short_repr(got)}"
        for i, (w, g) in enumerate(zip(want, got)):
            problem = subset_difference(w, g, f"{path}[{i}]")
            if problem:
                return problem
        return ""
    if want != got or isinstance(want, bool) != isinstance(got, bool):
        return f"{path} expected {_fmt(want)} got {_fmt(got)}"
    return ""


def run_scenario_file(path: str | os.PathLike[str]) -> list[ScenarioResult]:
    """Run every scenario of a file.

    Games are loaded through `load_game_for_scenario` (once per distinct
    game and parameters within the file).

    Args:
        path: the scenario file.

    Returns:
        One result per scenario, in file order.

    Raises:
        ScenarioError: the file is malformed (nothing is run then).
    """
    scenarios = load_scenario_file(path)
    cache: dict[Any, Any] = {}
    results = []
    for scenario in scenarios:
        key = (scenario.game, repr(sorted(scenario.params.items())))
        if key not in cache:
            try:
                cache[key] = load_game_for_scenario(scenario.game, scenario.base_dir, scenario.params)
            except TrickkitError as exc:
                cache[key] = exc
        game = cache[key]
        if isinstance(game, TrickkitError):
            results.append(
                ScenarioResult(
                    scenario.file,
                    scenario.name,
                    False,
                    f"cannot load game {scenario.game!r}: {game}",
                    scenario.line,
                )
            )
            continue
        results.append(run_scenario(scenario, game))
    return results
