"""Runs one check on one game (`run_check`), replays a reported failure (`replay_case`) and
makes a failing game smaller (`shrink`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from trickkit.errors import TrickkitError
from trickkit.lab.conformance.case import CHECKS, GameCase, InvariantError
from trickkit.lab.conformance.checks import (
    _clone,
    _conservation,
    _determinism,
    _illegal_actions,
    _json_round_trip,
    _termination,
)
from trickkit.lab.conformance.driver import Chooser, IndexChooser, _Run
from trickkit.lab.conformance.hidden import _hidden_information
from trickkit.lab.conformance.samples import _agent_samples

_CHECK_FUNCTIONS: dict[str, Callable[[_Run], None]] = {
    "termination": _termination,
    "conservation": _conservation,
    "illegal_actions": _illegal_actions,
    "determinism": _determinism,
    "clone": _clone,
    "json_round_trip": _json_round_trip,
    "hidden_information": _hidden_information,
    "agent_samples": _agent_samples,
}


# ---------------------------------------------------------------- running checks
def run_check(
    check: str,
    game: Any,
    seed: int,
    chooser: Chooser,
    *,
    ruleset: str | None = None,
    params: dict[str, Any] | None = None,
    max_actions: int | None = None,
) -> None:
    """Play one game of ``game`` and check one invariant at every decision.

    Args:
        check: one of `CHECKS`.
        game: a loaded `trickkit.Game`.
        seed: the shuffle seed.
        chooser: ``chooser(state, legal_actions) -> action`` picks each action; returning None
            stops the game there (a replay that ran out of actions).
        ruleset: how to name the ruleset in a report (default ``game.path``).
        params: the parameters the game was loaded with, for the report.
        max_actions: a game longer than this fails (default the ruleset's ``max_actions``).

    Raises:
        InvariantError: the invariant does not hold; its `GameCase` replays the game.
        ValueError: ``check`` is not one of `CHECKS`.
    """
    if check not in _CHECK_FUNCTIONS:
        raise ValueError(f"unknown check {check!r} (checks: {', '.join(CHECKS)})")
    limit = game.rules.max_actions if max_actions is None else min(max_actions, game.rules.max_actions)
    _CHECK_FUNCTIONS[check](_Run(check, game, ruleset or game.path, dict(params or {}), seed, chooser, limit))


def replay_case(case: GameCase | str, game: Any = None) -> None:
    """Replay a reported game (a `GameCase` or its JSON) and run its check on it again.

    Args:
        case: the case, e.g. the JSON printed after ``replay:`` in a failure report.
        game: the game to play (default: load ``case.ruleset`` with its players and params).

    Raises:
        InvariantError: the check still fails on that game.
        ValueError: the case is malformed or names no check.
        trickkit.RulesetError: the ruleset does not load.
    """
    from trickkit.engine.loader import load_game

    if isinstance(case, str):
        case = GameCase.from_json(case)
    if game is None:
        game = load_game(case.ruleset, players=case.players, **case.params)
    actions = list(case.actions)

    def chooser(state: Any, legal: list[Any]) -> str | None:
        if not actions:
            return None
        return actions.pop(0)

    run_check(case.check, game, case.seed, chooser, ruleset=case.ruleset, params=case.params)


SHRINK_BUDGET = 60
"""Most games `shrink` replays to make a failing game smaller (a counted limit)."""

SHRINK_ACTIONS = 50_000
"""Most actions `shrink` replays in all, over its games (a counted limit): a game that never ends
is replayed to its action cap once or twice, not `SHRINK_BUDGET` times."""


def shrink(
    error: InvariantError,
    check: str,
    game_for: Callable[[int], Any],
    n: int,
    seed: int,
    taken: Sequence[int],
    *,
    lo: int,
    ruleset: str,
    params: dict[str, Any],
    max_actions: int | None = None,
    budget: int = SHRINK_BUDGET,
) -> InvariantError:
    """A smaller failing game than ``error``'s, found in at most ``budget`` replays.

    Tries, in order: fewer seats with the first legal action every time (seeds 0-2 and the
    failing seed); the failing seat count and seed with the first legal action every time;
    then sets runs of the failing game's choices to the first legal action, halving the runs.
    Keeps the failure with the fewest actions (of the same check).
    """
    best, best_taken = error, list(taken)
    tries = [0]
    replayed = [0]  # actions replayed so far (SHRINK_ACTIONS)

    def attempt(players: int, game_seed: int, indices: Sequence[int]) -> bool:
        nonlocal best, best_taken
        if tries[0] >= budget or replayed[0] >= SHRINK_ACTIONS:
            tries[0] = budget  # out of either budget: stop shrinking
            return False
        tries[0] += 1
        chooser = IndexChooser(indices)  # after the indices: the first legal action
        try:
            run_check(
                check, game_for(players), game_seed, chooser, ruleset=ruleset, params=params, max_actions=max_actions
            )
        except InvariantError as e:
            replayed[0] += len(chooser.taken)
            smaller = (len(e.case.actions), players) < (len(best.case.actions), best.case.players)
            if smaller:
                best, best_taken = e, chooser.taken
            return smaller
        except TrickkitError:
            replayed[0] += len(chooser.taken)
            return False
        replayed[0] += len(chooser.taken)
        return False

    for players in range(lo, n + 1):
        for game_seed in dict.fromkeys((0, 1, 2, seed)):
            attempt(players, game_seed, ())
    players, game_seed = best.case.players, best.case.seed
    size = max(len(best_taken) // 2, 1)
    while size >= 1 and tries[0] < budget:
        start = 0
        while start < len(best_taken) and tries[0] < budget:
            candidate = list(best_taken)
            if any(candidate[start : start + size]):
                candidate[start : start + size] = [0] * len(candidate[start : start + size])
                if attempt(players, game_seed, candidate):
                    continue  # best_taken changed: try the same run again
            start += size
        size //= 2
    return InvariantError(best.check, best.message, best.case)
