"""Runs scenarios (scripted games with expectations): `run_scenario`, `run_scenario_file`.

The file format, and its reader `load_scenario_file`, are in `trickkit.lab.scenario_files`; a
scenario that runs but does not meet its expectations yields a failed `ScenarioResult` whose
message is the first difference.
"""

from __future__ import annotations

import os
from typing import Any

import attrs

from trickkit.errors import (
    IllegalActionError,
    Problem,
    RulesetError,
    TrickkitError,
    did_you_mean,
    short_repr,
)
from trickkit.lab.scenario_files import Scenario, load_scenario_file
from trickkit.rules.confine import confined_ruleset

__all__ = [
    "Scenario",
    "ScenarioResult",
    "load_game_for_scenario",
    "load_scenario_file",
    "run_scenario",
    "run_scenario_file",
]


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


# ----------------------------------------------------------------- running


def load_game_for_scenario(game: str, base_dir: str, params: dict[str, Any]) -> Any:
    """Load the game a scenario names (the single place scenarios load games).

    ``game`` is a ruleset path when it ends in ``.yaml``/``.yml`` or contains a
    path separator, else a shipped game name. A path is relative to ``base_dir`` and
    confined to it as ``extends`` is (`trickkit.rules.confine.confined_ruleset`): no
    absolute path, no ``..`` out of the folder, symbolic links resolved.

    Args:
        game: the scenario's ``game`` value.
        base_dir: the scenario file's directory.
        params: keyword arguments for ``trickkit.load_game``.

    Returns:
        The loaded Game.

    Raises:
        RulesetError: the game cannot be loaded with those parameters, or ``game`` is a path
            the scenario may not name.
    """
    from trickkit.engine.loader import load_game

    try:
        ref = confined_ruleset(game, base_dir)
    except ValueError as e:
        raise RulesetError([Problem(base_dir, 0, 0, "$.game", f"game: {e}")]) from None
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
        shown = dict(expect["observation"])
        seat = shown.pop("seat")
        if not 0 <= seat < state.game.num_players:
            return f"observation: seat {seat} is not a seat of this game (0..{state.game.num_players - 1})"
        problem = subset_difference(shown, state.observation(seat), f"observation({seat})")
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
            if by is None:  # (exactly when there is a problem)
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
            if by is None:  # (exactly when there is a problem)
                return problem
            for seat, v in by.items():
                if got[seat] != v:
                    return f"variables.{name}[{seat}] expected {_fmt(v)} got {_fmt(got[seat])}"
        elif isinstance(got, list) and isinstance(want, dict):  # a list-valued variable (team values ...) by index
            problem = subset_difference(dict(want.items()), dict(enumerate(got)), f"variables.{name}")
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
