"""Helpers shared by the tests that play a game on its fast functions (fused tricks and bids,
planned turns and enters, flat kinds passes) in lockstep with the general path they stand for.

Import it as the other shared test modules are imported (the tests run with
``--import-mode=importlib``, so tests/ is put on ``sys.path`` first)::

    sys.path.insert(0, str(Path(__file__).parent))
    from lockstep import general_twin, step_both

The helpers only play and collect; every assertion stays in the test that uses them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from trickkit.engine.actions import Action
from trickkit.engine.enterplan import enter_next
from trickkit.engine.game import Game
from trickkit.engine.state import State
from trickkit.engine.turns import actions_of
from trickkit.rules.ruleset import TurnStep

Pass = tuple[list[Action], int, dict[Any, Any]]
"""One run of a kinds pass: its actions, the budget it charged and the memo it left."""


def general_twin(game: Game) -> Game:
    """The same game (same rules) running on the general path only: the step-kind functions of
    `trickkit.engine.steps`, and the steps after a finished one entered by the dispatch too."""
    twin = Game(game.rules, game.content_hash, game.path)
    twin._legal_fns, twin._apply_fns = twin._legal_general, twin._apply_general
    twin._advance = enter_next
    return twin


def dispatched(game: Game, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of the steps entered through ``Game.step_enter`` (the general dispatch), in order:
    a list that grows as the game is played."""
    seen: list[str] = []
    general = game.step_enter

    def step_enter(state: Any, step: Any) -> bool:
        seen.append(step.kind)
        return general(state, step)

    monkeypatch.setattr(game, "step_enter", step_enter)
    return seen


def step_both(state: State, choose: Callable[[list[Action]], Action]) -> tuple[Action, State]:
    """One decision on both paths: a clone of ``state`` is taken first, then ``choose`` picks one
    of ``state``'s legal actions, which the clone performs on the general path (entering the steps
    after it by the dispatch) and ``state`` applies as usual. Returns the action and the clone."""
    slow = state.clone()
    action = choose(state.legal_actions())
    slow._perform(action, state.game._apply_general[slow.step])
    state.apply_action(action)
    return action, slow


def turn_steps(game: Game) -> list[TurnStep]:
    """The game's turns steps, in order."""
    return [st for st in game.rules.steps if isinstance(st, TurnStep)]


def states_at(game: Game, step: TurnStep, seeds: Sequence[int], rng: random.Random) -> Iterator[State]:
    """Random games (one a seed, every action chosen by ``rng``): each state where ``step`` asks
    with no reaction window open. The game goes on from the state as the caller leaves it."""
    for seed in seeds:
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal():
            if s.rules.steps[s.step] is step and s.window < 0:
                yield s
            s.apply_action(rng.choice(s.legal_actions()))


def flat_and_general(game: Game, s: State, rows: Any, legal: Any, flat: Any) -> tuple[Pass, Pass]:
    """The legal actions of a turns step's kinds found by its flat pass, then by the general pass
    and the engine's mapping of its combinations (``rows``, ``legal`` and ``flat`` as
    `trickkit.engine.turns._plan` gives them), each from a fresh memo and a budget of 1000."""
    results = []
    for flat_run in (True, False):
        s.memo, s.budget = {}, 1000
        got = flat[0](s, flat[1]) if flat_run else actions_of(game, s, rows, legal(s, ()))
        results.append((got, 1000 - s.budget, s.memo))
        s.memo = None
    return results[0], results[1]
