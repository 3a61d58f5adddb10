"""Lookahead trials of turns steps: an action's effect is tried on the state and thrown away.

An action kind with ``lookahead`` is legal for a combination only if, after its effect, the
seat's turn is over or it has some allowed action (`trickkit.engine.turns`). Each such
combination is *tried*: its effect runs, the check after it runs, and the state is put back.
An effect that draws no randomness is tried on the state itself (`trial_in_place`), with its
zones and variables swapped for copies; one that may draw, on a copy (`trial_on_copy`), so the
state's generator is never touched by a lookahead.

(Measured on Saqqara, the one shipped game with a lookahead: putting back only the zones that
changed, found by comparing them with a snapshot taken once per decision, costs about as much
as the copy it saves: a trial moves few cards, but comparing a zone costs about half of
copying it.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.engine.protocols import GameTables
from trickkit.engine.state import State
from trickkit.rules.ruleset import ActionKind

MAX_LOOKAHEAD_DEPTH = 1
"""How far lookahead looks: one action. An action with ``lookahead`` is legal if, after it,
the seat's turn is over or some action is *allowed*; that next action's own lookahead is
not checked again (it would multiply the cost for no gain in the shipped games)."""

After = Callable[[GameTables, State, ActionKind, tuple[Any, ...], Any], bool]
"""What a trial runs: ``after(game, trial state, kind, combination, bare effect or None)``, the
effect and the check after it (`trickkit.engine.turns._trial_after`)."""

_RANDOM_HELPERS = frozenset({"_draw_random", "_shuffle", "_insert_random"})
"""Generated helpers that draw from the state's generator (see `trickkit.dsl.runtime`)."""


def draws(effect: Any) -> bool:
    """True if the effect hook may draw randomness: its trial runs on a copy, so the state's
    generator (shared lazily with copies) is never touched by a lookahead."""
    fn = getattr(effect, "fn", None)
    code = getattr(fn, "__code__", None)
    if code is None:
        return True  # not a generated rule: the copy is always safe
    return not _RANDOM_HELPERS.isdisjoint(code.co_names)


class Unlocated(Exception):
    """The bare effect function of a trial failed: the trial runs again through its hook."""


def trial_on_copy(game: GameTables, s: State, kind: ActionKind, combo: tuple[Any, ...], after: After) -> bool:
    """``after`` on a copy of ``s``; what the trial spent of the evaluation budget is charged
    to ``s`` (the lookahead is part of the engine call that asked for it, so n trials of n
    combinations each cannot run unbounded)."""
    trial = s._trial()
    try:
        return after(game, trial, kind, combo, None)
    finally:
        s.budget = trial.budget


def trial_in_place(game: GameTables, s: State, kind: ActionKind, combo: tuple[Any, ...], fn: Any, after: After) -> bool:
    """``after`` on ``s`` itself: its zones and variables are swapped for copies while the
    effect and the check run, then everything an effect or a check may change (those four
    parts, ``turn_over``, ``next_turn``, ``memo``, ``_depth``, and ``known``: what a ``reveal``
    in the effect showed) is put back, so the state is exactly as before, the very same list
    objects included (tests/test_turns_passes.py); only the evaluation budget stays spent, as
    after a trial on a copy (`trial_on_copy`). ``fn``: the effect's bare generated function
    (frame: the combination), or None; when it fails (`Unlocated`), the trial runs again on a
    copy through the hook, which reports the error, located."""
    saved = (
        s.seat_zones,
        s.table_zones,
        s.seat_vars,
        s.table_vars,
        s.turn_over,
        s.next_turn,
        s.memo,
        s._depth,
        s.known,
    )
    s.seat_zones, s.table_zones, s.seat_vars, s.table_vars = game._copy_layout(s)
    s.memo = None  # as on a fresh copy: the answers memoised so far describe the state before
    s._depth += 1
    try:
        return after(game, s, kind, combo, fn)
    except Unlocated:
        pass
    finally:
        (
            s.seat_zones,
            s.table_zones,
            s.seat_vars,
            s.table_vars,
            s.turn_over,
            s.next_turn,
            s.memo,
            s._depth,
            s.known,
        ) = saved
    return trial_on_copy(game, s, kind, combo, after)
