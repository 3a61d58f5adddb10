"""Planned turns and choose steps: each step's legal actions, and an action applied, as one
engine function made once per Game that calls the rules' bare generated functions.

`trickkit.engine.turns` and `trickkit.engine.choose` are the general path: every rule runs
through its hook (a wrapper that turns a Python error into a located one), a step's parts
are found by lookups per decision, and an action's next legal actions are found by a chain of
helpers (apply, after the action, start of the next turn, the generated pass, its actions).
Here that chain is one function per step, with the step's parts found once: about half the
Python calls per decision.

This is a fast path, not a second engine, as `trickkit.engine.fused` is for tricks and bids:
an error raised here (a rule that fails, a check of a rule's result, a counted limit reached)
leaves the state to `State.apply_action`, which puts it back as it was and runs the same action
on the general path, which reports the error, located. The legal actions computed inside an
apply fall back on the general path in place (a generated pass may fail only because a choice
was null where it assumes none). Rules run in the same order, as often, as on the general
path: the evaluation budget is charged alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.engine.actions import Action
from trickkit.engine.choose import _actions as _choose_actions
from trickkit.engine.choose import choosable, legal_choose
from trickkit.engine.layout import fresh
from trickkit.engine.protocols import GameTables
from trickkit.engine.state import MAX_STEPS_WITHOUT_DECISION, State
from trickkit.engine.turns import (
    _close_window,
    _kind_named,
    _next_responder,
    _open_window,
    _plan,
    actions_of,
    legal_turns,
)
from trickkit.rules.ruleset import ChooseStep, TurnStep
from trickkit.rules.steps import never

LegalFn = Callable[[State], "list[Action]"]
ApplyFn = Callable[[State, Action], bool]


class _Fallback(Exception):
    """The fast path met a case it leaves to the general path (which says what is wrong, located)."""


def plan_steps(
    game: GameTables, steps: tuple[Any, ...], legal: tuple[Any, ...], apply: tuple[Any, ...]
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``legal``/``apply`` (the step functions of ``steps``, by index) with the planned ones of
    every turns and choose step in their place."""
    legal_out, apply_out = list(legal), list(apply)
    for i, step in enumerate(steps):
        if isinstance(step, TurnStep):
            legal_out[i], apply_out[i] = _turns_plan(game, step)
        elif (
            isinstance(step, ChooseStep) and not game._has_copies
        ):  # copies: which copy is taken needs the general path
            legal_out[i], apply_out[i] = _choose_plan(game, step)
    return tuple(legal_out), tuple(apply_out)


def _bare(hook: Any) -> tuple[Any, tuple[Any, ...], bool]:
    """A state-only rule as ``(fn, frame, checked)``, called ``fn(s, frame)``: its bare generated
    function where it has one, else a call of the hook; ``checked``: its result must be a bool
    (`trickkit.rules.checks.checked_result`; the fast path leaves any other to the hook)."""
    fn, size, checks = getattr(hook, "fn", None), getattr(hook, "size", None), getattr(hook, "checks", "")
    if fn is None or size.__class__ is not int or checks not in ("", "bool"):
        return (lambda s, frame: hook(s)), (), False
    return fn, (None,) * size, checks == "bool"


# -- turns ----------------------------------------------------------------------------------
def _turns_plan(game: GameTables, step: TurnStep) -> tuple[LegalFn, ApplyFn]:
    """The legal and apply functions of a turns step (`legal_turns`, `apply_turns` with
    `trickkit.engine.turns.start_turn` inline)."""
    n = game.rules.num_players
    effects: dict[str, tuple[Any, tuple[Any, ...], int | None]] = {}
    for kind in reversed(step.kinds):  # the first of a name wins, as `_kind_named` finds it
        fn, size = getattr(kind.effect, "fn", None), getattr(kind.effect, "size", None)
        if fn is None or size.__class__ is not int or size < len(kind.choice_names):
            fn = _hook_call(kind.effect)
            size = len(kind.choice_names)
        effects[kind.name] = (fn, (None,) * (size - len(kind.choice_names)), kind.opens)
    until, until_frame, until_checked = _bare(step.until) if step.until is not never else (None, (), False)
    after, after_frame, _ = _bare(step.after_action) if step.after_action is not None else (None, (), False)
    ended, ended_frame, ended_checked = (
        _bare(step.until_after_turn) if step.until_after_turn is not None else (None, (), False)
    )
    start, start_frame, _ = _bare(step.on_turn_start) if step.on_turn_start is not None else (None, (), False)
    resets = any(v.per_turn for v in (*game.rules.seat_vars, *game.rules.table_vars))
    # per-turn table variables are reset inline below, without `State._reset_variables`' call:
    # the commonest case, at every turn start (a list initial value is copied, as there)
    turn_vars = [v for v in game.rules.table_vars if v.per_turn]
    inline: tuple[tuple[int, Any], ...] | None = tuple(
        (v.index, v.initial) for v in turn_vars if v.initial.__class__ is not list
    )
    copied = tuple((v.index, v.initial) for v in turn_vars if v.initial.__class__ is list)
    if any(v.per_turn for v in game.rules.seat_vars):
        inline = None  # seat variables too: `State._reset_variables`
    pass_legal = step.passes[0] if step.passes is not None else None
    rows = _plan(game, step, -1)[
        2
    ]  # per kind: (kind, has a lookahead, its actions by combination), shared with legal_turns

    def legal(s: State) -> list[Action]:
        """`legal_turns` when no window is open: the generated pass, its combinations mapped to actions."""
        if pass_legal is None or s.window >= 0 or s.memo is not None:
            return legal_turns(game, step, s)
        s.memo = {}  # the state holds still while every combination is tested: memoise
        try:
            budget = s.budget
            try:
                found = pass_legal(s, ())
            except Exception:  # the general path computes (or reports) it as if alone
                s.budget, s.memo = budget, None
                return legal_turns(game, step, s)
            return actions_of(game, s, rows, found)
        finally:
            s.memo = None

    def apply(s: State, action: Action) -> bool:
        """`apply_turns` (then `_after_action`, `start_turn`)."""
        if s.window >= 0:  # a response: as `apply_turns` does it, then on as below once the window closed
            if action.verb == "pass":
                _next_responder(game, s, step)
            else:
                _kind_named(game, step.windows[s.window].kinds, action.verb).effect(s, *action.choices)
                _close_window(s)
            if s.window >= 0:  # the next responder decides
                return False
        else:
            fn, pad, opens = effects[action.verb]
            fn(s, action.choices + pad)
            if opens is not None:
                _open_window(game, s, step, opens)
                if s.window >= 0:  # a responder decides next
                    return False
        if after is not None:
            after(s, after_frame)
        if until is not None:
            v = until(s, until_frame)
            if until_checked and v.__class__ is not bool:
                raise _Fallback()  # the checked hook says what it got, located
            if v:
                return True
        if s.turn_over:
            if ended is not None:
                v = ended(s, ended_frame)
                if ended_checked and v.__class__ is not bool:
                    raise _Fallback()
                if v:
                    return True
            seat = s.turn_player + 1 if s.next_turn is None else s.next_turn
            for _ in range(MAX_STEPS_WITHOUT_DECISION):  # start_turn
                s.current = s.turn_player = seat % n
                s.turn_over = False
                s.next_turn = None
                s.turn_no += 1
                if resets:
                    if inline is not None:
                        for index, initial in inline:
                            s.table_vars[index] = initial
                        if copied:
                            for index, initial in copied:
                                s.table_vars[index] = fresh(initial)
                    else:
                        s._reset_variables("per_turn")
                if start is None:
                    break
                start(s, start_frame)
                if not s.turn_over:
                    break
                # a turn ended as it began: the step may be over (both asked as `start_turn` and its caller ask)
                if until is not None and _holds(until, until_frame, until_checked, s):
                    _holds(until, until_frame, until_checked, s)
                    return True
                if ended is not None and _holds(ended, ended_frame, ended_checked, s):
                    return True
                seat = s.turn_player + 1 if s.next_turn is None else s.next_turn
            else:
                raise _Fallback()  # turns that end as they begin, forever: the general path says so
            if until is not None:
                v = until(s, until_frame)
                if until_checked and v.__class__ is not bool:
                    raise _Fallback()
                if v:
                    return True
        found = legal(s)
        if not found:
            raise _Fallback()  # a seat stuck: the general path says so, located
        s._legal = found  # computed anyway: the next legal_actions() call reuses it
        return False

    return legal, apply


def _holds(fn: Any, frame: tuple[Any, ...], checked: bool, s: State) -> bool:
    """Does the state-only rule ``fn`` (see `_bare`) hold? A checked result that is no bool is left to the hook."""
    v = fn(s, frame)
    if checked and v.__class__ is not bool:
        raise _Fallback()  # the checked hook says what it got, located
    return bool(v)


def _hook_call(hook: Any) -> Any:
    """``hook`` called as a bare function ``fn(s, choices)``."""
    return lambda s, choices: hook(s, *choices)


# -- choose ---------------------------------------------------------------------------------
def _choose_plan(game: GameTables, step: ChooseStep) -> tuple[LegalFn, ApplyFn]:
    """The legal and apply functions of a choose step (a deck without copies): the next
    chooser's legal actions are found as the action is applied, from the cards that make
    that seat the next to choose."""
    source, to = step.source.index, step.to.index

    def apply(s: State, action: Action) -> bool:
        """`apply_choose`, and `legal_choose` for the next chooser."""
        seat = s.current
        zones = s.seat_zones
        card = action.choices[0]
        zones[source][seat].remove(card)
        zones[to][seat].append(card)
        s.acted += 1
        queue = s.queue
        del queue[0]
        while queue:  # `_next_chooser`
            seat = queue[0]
            cards = choosable(s, step, seat)
            if cards:
                s.current = seat
                actions = _choose_actions(game, step.verb)
                s._legal = [actions[c] for c in cards]  # computed anyway: legal_actions() reuses it
                return False
            while queue and queue[0] == seat:  # that seat has nothing left to choose from
                del queue[0]
        return True

    def legal(s: State) -> list[Action]:
        return legal_choose(game, step, s)

    return legal, apply
