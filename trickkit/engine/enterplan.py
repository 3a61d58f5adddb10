"""Planned enters of ``when:`` markers, tricks steps and auctions: each step entered as one
function made once per Game that calls the rules' bare generated functions.

`trickkit.engine.turnplan` chains a round's steps without `State._enter_step` and the
step-kind dispatch (``advance``): when a step is over, the steps after it are entered by their
planned enter functions until a seat must decide. These are the planned enters of the steps
that turnplan does not plan itself, so a round of a deal, effects, ``when:`` conditions,
auctions, a turns step and tricks (Euchre's making, the dealer's discard, the play) is entered
through and through without the general dispatch, its rules called without their hooks.

A fast path, as turnplan's: an error raised here (a rule that fails bare, a checked result of
the wrong type) leaves the state to `State.apply_action`, which puts it back as it was and runs
the same action on the general path (`trickkit.engine.kinds.ENTER`), which reports the error,
located. Rules run in the same order, as often, as on the general path (`enter_when`,
`trickkit.engine.steps.enter_tricks`, `trickkit.engine.auction.enter_auction`): the evaluation
budget is charged alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.engine.auction import Bidding, enter_auction, opening
from trickkit.engine.protocols import GameTables
from trickkit.engine.state import State
from trickkit.engine.steps import start_trick
from trickkit.rules.ruleset import AuctionStep, TrickStep, WhenStep

EnterFn = Callable[[State], bool]
"""A planned step entered: ``fn(state) -> bool``, True when a seat must decide (as `trickkit.engine.kinds.ENTER`)."""

MAX_OPENINGS = 64
"""Most first moments (per pair of pass counts) one planned auction keeps; beyond, it starts again."""


class Fallback(Exception):
    """The fast path met a case it leaves to the general path (which says what is wrong, located)."""


def enter_next(s: State) -> None:
    """The current step is over: the general path enters the steps after it (`State._enter_step`),
    a Game's ``_advance`` when its rules count coverage (every rule through its hook)."""
    s.step += 1
    s._enter_step()


def bare(hook: Any) -> tuple[Any, tuple[Any, ...], bool]:
    """A state-only rule as ``(fn, frame, checked)``, called ``fn(s, frame)``: its bare generated
    function where it has one, else a call of the hook; ``checked``: its result must be a bool
    (`trickkit.rules.checks.checked_result`; the fast path leaves any other to the hook)."""
    fn, size, checks = getattr(hook, "fn", None), getattr(hook, "size", None), getattr(hook, "checks", "")
    if fn is None or size.__class__ is not int or checks not in ("", "bool"):
        return (lambda s, frame: hook(s)), (), False
    return fn, (None,) * size, checks == "bool"


def bare_int(hook: Any) -> tuple[Any, tuple[Any, ...], bool]:
    """A state-only rule of a number (``first:``) as ``(fn, frame, checked)``, as `bare`, and bare
    also where its hook checks the result is an int: ``checked`` then says the caller must
    leave any other result to the hook (which says what it got, located)."""
    fn, size = getattr(hook, "fn", None), getattr(hook, "size", None)
    if fn is not None and size.__class__ is int and getattr(hook, "checks", "") == "int":
        return fn, (None,) * size, True  # two calls less (the hook and its check) per use
    fn, frame, _ = bare(hook)
    return fn, frame, False


def planned_when(step: WhenStep) -> EnterFn:
    """`trickkit.engine.repeat.enter_when` with its condition bare."""
    condition, frame, checked = bare(step.condition)
    end = step.end

    def enter(s: State) -> bool:
        """Unless the condition holds, the round goes on after the guarded step; no seat decides."""
        v = condition(s, frame)
        if checked and v.__class__ is not bool:
            raise Fallback()  # the checked hook says what it got, located
        if not v:
            s.step = end
        return False

    return enter


def planned_tricks(game: GameTables, step: TrickStep) -> EnterFn:
    """`trickkit.engine.steps.enter_tricks` with its ``count`` and ``leader`` rules bare, and
    the first trick started by the step's generated start (`trickkit.engine.fused`) if it has one."""
    count, count_frame, _ = bare(step.count)
    leader, leader_frame, _ = bare(step.leader)
    n = game.rules.num_players
    plain = step.sits_out is None and step.actor is None
    start = step.fused_start or start_trick

    def enter(s: State) -> bool:
        """The first trick starts (True), unless the step plays none."""
        total = s.tricks_total = count(s, count_frame)
        s.tricks_done = 0
        s.trick = []
        if total <= 0:
            return False
        if plain:
            s.current = leader(s, leader_frame) % n
        else:  # who sits out, who chooses
            start(s, leader(s, leader_frame) % n)
        return True

    return enter


def planned_auction(game: GameTables, step: AuctionStep) -> EnterFn:
    """`trickkit.engine.auction.enter_auction` with its rules bare, for an auction whose calls
    are a fixed list: the first moment of the auction is found once per pair of pass counts
    (checked then, as the general path checks it every time)."""
    values = step.fixed_calls
    if values is None:  # calls evaluated at each auction: the general enter
        return lambda s: enter_auction(game, s, step)
    ends_rule, ends_frame, _ = bare(step.ends_after_passes)
    out_rule, out_frame, _ = bare(step.passed_out_after)
    first, first_frame, _ = bare(step.first)
    n = game.rules.num_players
    starts: dict[tuple[int, int], Bidding] = {}  # by (ends_after_passes, passed_out_after)

    def enter(s: State) -> bool:
        """The auction starts: the seat ``first`` calls (True)."""
        ends, out = ends_rule(s, ends_frame), out_rule(s, out_frame)
        start = starts.get((ends, out))
        if start is None:
            if ends.__class__ is not int or out.__class__ is not int:
                raise Fallback()  # the general path takes them as they are, or says what is wrong
            if len(starts) >= MAX_OPENINGS:
                starts.clear()
            start = starts[ends, out] = opening(game, step, values, ends, out)
        s.current = first(s, first_frame) % n
        s.auction = start
        s.acted = 0
        return True

    return enter
