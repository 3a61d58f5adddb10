"""Planned turns and choose steps: each step's legal actions, an action applied, and the step
entered, as one engine function made once per Game that calls the rules' bare generated functions.

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

When a planned step is over, the steps after it are entered here too (`_advance`): a turns
step, a choose step, the end of a ``repeat:`` block, a deal, an effect, the end of the round
(and ``when:`` markers, tricks steps and auctions, `trickkit.engine.enterplan`) have planned
enter functions (their rules run bare), so a round that cycles through them (pick, place,
pick again), or a game whose rounds are a deal, effects and turns, never goes back
through `State._enter_step` and the step-kind dispatch; any other step is handed to
`State._enter_step`, which goes on counting the steps entered without a decision.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

from trickkit.engine.actions import Action
from trickkit.engine.choose import _actions as _choose_actions
from trickkit.engine.choose import choosable, legal_choose
from trickkit.engine.enterplan import bare as _bare
from trickkit.engine.enterplan import bare_int, planned_auction, planned_tricks, planned_when
from trickkit.engine.layout import fresh
from trickkit.engine.protocols import GameTables
from trickkit.engine.repeat import planned_repeat_end
from trickkit.engine.state import MAX_STEPS_WITHOUT_DECISION, State
from trickkit.engine.steps import deal
from trickkit.engine.turns import (
    _close_window,
    _kind_named,
    _next_responder,
    _open_window,
    _plan,
    actions_of,
    legal_turns,
)
from trickkit.rules.checks import RESULT_CHECKS
from trickkit.rules.ruleset import (
    AuctionStep,
    ChooseStep,
    DealStep,
    EffectStep,
    RepeatEnd,
    TrickStep,
    TurnStep,
    WhenStep,
)
from trickkit.rules.steps import never

LegalFn = Callable[[State], "list[Action]"]
ApplyFn = Callable[[State, Action], bool]
EnterFn = Callable[[State], bool]
"""A planned step entered: ``fn(state) -> bool``, True when a seat must decide (as `trickkit.engine.kinds.ENTER`)."""
AdvanceFn = Callable[[State], None]

_SEATS_CHECK = RESULT_CHECKS["list[int]"][0]
"""The check of a ``responders`` rule's result: a list of different seat numbers."""

_MANY_KINDS = 8
"""Kinds in a turns step from which its legal actions are looked up only for the kinds with
combinations, the others skipped in C (in `_turns_plan`'s apply): with fewer, skipping costs more than it saves."""

_TURN_LIMIT = range(MAX_STEPS_WITHOUT_DECISION)
"""The turns in a row that may end as they begin (`trickkit.engine.turns.start_turn`), made once."""


class _Fallback(Exception):
    """The fast path met a case it leaves to the general path (which says what is wrong, located)."""


def plan_steps(
    game: GameTables, steps: tuple[Any, ...], legal: tuple[Any, ...], apply: tuple[Any, ...]
) -> tuple[tuple[Any, ...], tuple[Any, ...], AdvanceFn]:
    """``legal``/``apply`` (the step functions of ``steps``, by index) with the planned ones of
    every turns and choose step in their place; those enter the steps after them (`_advance`).
    Third, that ``advance``: `State.apply_action` enters the steps after any other step with it."""
    legal_out, apply_out = list(legal), list(apply)
    enters: list[EnterFn | None] = [None] * len(steps)  # filled below (`advance` reads it when called)
    advance = _advance(enters, _round_end(game))
    for i, step in enumerate(steps):
        if isinstance(step, TurnStep):
            legal_out[i], apply_out[i], enters[i] = _turns_plan(game, step, advance)
        elif (
            isinstance(step, ChooseStep) and not game._has_copies
        ):  # copies: which copy is taken needs the general path
            legal_out[i], apply_out[i], enters[i] = _choose_plan(game, step, advance)
        elif isinstance(step, RepeatEnd):
            enters[i] = planned_repeat_end(step)
        elif isinstance(step, DealStep):
            enters[i] = _deal_plan(game, step)
        elif isinstance(step, EffectStep):
            enters[i] = _effect_plan(step)
        elif isinstance(step, WhenStep):  # the steps trickkit.engine.enterplan plans
            enters[i] = planned_when(step)
        elif isinstance(step, TrickStep):
            enters[i] = planned_tricks(game, step)
        elif isinstance(step, AuctionStep):
            enters[i] = planned_auction(game, step)
    return tuple(legal_out), tuple(apply_out), advance


def _advance(enters: list[EnterFn | None], round_end: Callable[[State], bool]) -> AdvanceFn:
    """What a planned apply calls when its step is over: `State._enter_step` from the next step,
    the planned steps entered here (``enters``, by index) and the round's end (``round_end``),
    any other handed to `State._enter_step` with the count of steps entered so far."""
    last = len(enters)

    def advance(s: State) -> None:
        i = s.step
        ran = 0
        while True:
            i += 1
            ran += 1
            if ran > MAX_STEPS_WITHOUT_DECISION:
                raise _Fallback()  # the general path counts the same steps and says so
            if i == last:  # the round is over: the game too, or the next round starts (as `State._enter_step`)
                if round_end(s):
                    return
                i = 0
            s.step = i
            enter = enters[i]
            if enter is None:
                s._enter_step(ran - 1)
                return
            if enter(s):
                return
            i = s.step  # the end of a repeat block may have sent the round back to its start

    return advance


def _round_end(game: GameTables) -> Callable[[State], bool]:
    """The end of a round as `State._enter_step` runs it, ``game_over`` bare: True if the game is
    over (the state terminal), else the next round's number, dealer and variables set."""
    rules = game.rules
    over, over_frame, over_checked = _bare(rules.game_over)
    n = rules.num_players
    resets = any(v.per_round for v in (*rules.seat_vars, *rules.table_vars))
    # the variables `State._reset_variables` puts back, when none holds a list (shared values)
    seat_resets = tuple((v.index, [v.initial] * n) for v in rules.seat_vars if v.per_round)
    table_resets = tuple((v.index, v.initial) for v in rules.table_vars if v.per_round)
    if any(v.initial.__class__ is list for v in (*rules.seat_vars, *rules.table_vars) if v.per_round):
        seat_resets = table_resets = ()  # a list to copy for each: `State._reset_variables`

    def end(s: State) -> bool:
        """True if the game is over."""
        v = over(s, over_frame)
        if over_checked and v.__class__ is not bool:
            raise _Fallback()  # the checked hook says what it got, located
        if v:
            s.step = len(rules.steps)  # where the general path leaves a finished game
            s._terminal = True
            return True
        s.round += 1
        s.dealer = (s.dealer + 1) % n
        if seat_resets or table_resets:  # `_reset_variables("per_round")`, inline
            for index, initial in seat_resets:
                s.seat_vars[index] = [*initial]
            for index, initial in table_resets:
                s.table_vars[index] = initial
        elif resets:
            s._reset_variables("per_round")
        return False

    return end


def _deal_plan(game: GameTables, step: DealStep) -> EnterFn:
    """`trickkit.engine.steps.enter_deal` with its ``count`` rule bare."""
    count, count_frame, _ = _bare(step.count)
    return lambda s: deal(game, s, step, count(s, count_frame))


def _effect_plan(step: EffectStep) -> EnterFn:
    """`trickkit.engine.steps.enter_effect` with its block bare."""
    block, frame, _ = _bare(step.block)

    def enter(s: State) -> bool:
        """Run the block; no seat decides."""
        block(s, frame)
        return False

    return enter


# -- turns ----------------------------------------------------------------------------------
def _turns_plan(game: GameTables, step: TurnStep, advance: AdvanceFn) -> tuple[LegalFn, ApplyFn, EnterFn]:
    """The legal, apply and enter functions of a turns step (`legal_turns`, `apply_turns`,
    `trickkit.engine.turns.enter_turns`, with `trickkit.engine.turns.start_turn` inline)."""
    n = game.rules.num_players
    effects: dict[str, tuple[Any, tuple[Any, ...], int | None]] = {}
    for kind in reversed(step.kinds):  # the first of a name wins, as `_kind_named` finds it
        fn, size = getattr(kind.effect, "fn", None), getattr(kind.effect, "size", None)
        if fn is None or size.__class__ is not int or size < len(kind.choice_names):
            fn = _hook_call(kind.effect)
            size = len(kind.choice_names)
        effects[kind.name] = (fn, (None,) * (size - len(kind.choice_names)), kind.opens)
    until, until_frame, until_checked = _bare(step.until) if step.until is not never else (None, (), False)
    # `until: game_ends`, a plain table variable: read here, a call less per decision
    until_var = getattr(until, "table_var", -1)
    after, after_frame, _ = _bare(step.after_action) if step.after_action is not None else (None, (), False)
    ended, ended_frame, ended_checked = (
        _bare(step.until_after_turn) if step.until_after_turn is not None else (None, (), False)
    )
    start, start_frame, _ = _bare(step.on_turn_start) if step.on_turn_start is not None else (None, (), False)
    first, first_frame, first_checked = bare_int(step.first)
    resets = any(v.per_turn for v in (*game.rules.seat_vars, *game.rules.table_vars))
    # ``until_after_turn`` and the next turn's start as one generated call (no per-turn variables)
    fused_next = step.fused_next if not resets else None
    # per-turn table variables are reset inline below, without `State._reset_variables`' call:
    # the commonest case, at every turn start; a list (``touched: []``) gets a copy of its own
    per_turn = [(v.index, v.initial) for v in game.rules.table_vars if v.per_turn]
    inline = tuple((i, v) for i, v in per_turn if v.__class__ is not list)
    inline_lists = tuple((i, v) for i, v in per_turn if v.__class__ is list)
    # lists of single values (``used: []``): a copy is `fresh`'s deep copy, without its call
    flat_lists = not any(list in map(type, v) for _, v in inline_lists)
    if any(v.per_turn for v in game.rules.seat_vars) or not inline:  # (lists alone: the general reset)
        inline = inline_lists = ()
    pass_legal = step.passes[0] if step.passes is not None else None
    windows = tuple(map(_window_plan, step.windows))
    tables: Any = ()  # the pass's frame: the flat pass's tables (see below)
    # per kind: (kind, has a lookahead, its actions by combination), shared with legal_turns;
    # `flat`: the pass that gives the actions themselves, from tables (or None)
    _, _, rows, flat = _plan(game, step, -1)
    if flat is not None:
        pass_legal, tables, _ = flat
    # many kinds, each action found by its combination alone (no lookahead, no whole rows)
    caches = tuple(cache for _, look, cache in rows) if len(rows) >= _MANY_KINDS else None
    if flat is not None or any(look is not False for _, look, _ in rows):  # (a flat pass gives the actions)
        caches = None

    def legal(s: State) -> list[Action]:
        """`legal_turns` when no window is open: the generated pass, its combinations mapped to actions."""
        if pass_legal is None or s.window >= 0 or s.memo is not None:
            return legal_turns(game, step, s)
        s.memo = {}  # the state holds still while every combination is tested: memoise
        try:
            budget = s.budget
            try:
                found = pass_legal(s, tables)
            except Exception:  # the general path computes (or reports) it as if alone
                s.budget, s.memo = budget, None
                return legal_turns(game, step, s)
            return found if flat is not None else actions_of(game, s, rows, found)
        finally:
            s.memo = None

    def begin(s: State, seat: int) -> bool:
        """`start_turn` for ``seat``, then the caller's check of ``until``: True if the step is over."""
        for _ in _TURN_LIMIT:
            s.current = s.turn_player = seat % n
            s.turn_over = False
            s.next_turn = None
            s.turn_no += 1
            if resets:
                if inline:
                    for index, initial in inline:
                        s.table_vars[index] = initial
                    if inline_lists:
                        for index, initial in inline_lists:
                            s.table_vars[index] = initial[:] if flat_lists else fresh(initial)
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
        if until is None:
            return False
        v = until(s, until_frame)
        if until_checked and v.__class__ is not bool:
            raise _Fallback()
        return bool(v)

    def enter(s: State) -> bool:
        """`enter_turns`: the first turn starts unless ``until`` holds; True if a seat must decide."""
        s.window, s.responders = -1, []
        if until is not None and _holds(until, until_frame, until_checked, s):
            return False
        seat = first(s, first_frame)
        if first_checked and seat.__class__ is not int:
            raise _Fallback()  # the checked hook says what it got, located
        return not begin(s, seat)

    def apply(s: State, action: Action) -> bool:
        """`apply_turns` (then `_after_action`, `start_turn`); the steps after it are entered here
        when it is over."""
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
                planned = windows[opens]
                if planned is None:
                    _open_window(game, s, step, opens)
                else:  # `_open_window` with its rules bare
                    responders, responders_frame, resolve, resolve_frame = planned
                    order = responders(s, responders_frame)
                    if order.__class__ is not list or (order and not _SEATS_CHECK(order)):
                        raise _Fallback()  # the checked hook says what it got, located
                    if order:
                        s.window = opens
                        s.responders = [seat % n for seat in order]
                        _next_responder(game, s, step, first=True)
                    else:  # nobody may respond: the action resolves at once (`_next_responder`, none left)
                        s.responders = []
                        s.current = s.turn_player
                        if resolve is not None:
                            resolve(s, resolve_frame)
                if s.window >= 0:  # a responder decides next
                    return False
        if after is not None:
            after(s, after_frame)
        if until is not None:
            v = s.table_vars[until_var] if until_var >= 0 else until(s, until_frame)
            if until_checked and v.__class__ is not bool:
                raise _Fallback()  # the checked hook says what it got, located
            if v:
                advance(s)
                return False
        if s.turn_over:
            if fused_next is not None:  # (no ``until``: `trickkit.engine.fused._turn_next`)
                for _ in _TURN_LIMIT:
                    if fused_next(s):
                        advance(s)
                        return False
                    if not s.turn_over:
                        break
                else:
                    raise _Fallback()  # turns that end as they begin, forever: the general path says so
            else:
                if ended is not None:
                    v = ended(s, ended_frame)
                    if ended_checked and v.__class__ is not bool:
                        raise _Fallback()
                    if v:
                        advance(s)
                        return False
                # `begin`, inline: a call less at every turn of games whose every action ends the turn
                seat = s.turn_player + 1 if s.next_turn is None else s.next_turn
                for _ in _TURN_LIMIT:
                    s.current = s.turn_player = seat % n
                    s.turn_over = False
                    s.next_turn = None
                    s.turn_no += 1
                    if resets:
                        if inline:
                            for index, initial in inline:
                                s.table_vars[index] = initial
                            if inline_lists:
                                for index, initial in inline_lists:
                                    s.table_vars[index] = initial[:] if flat_lists else fresh(initial)
                        else:
                            s._reset_variables("per_turn")
                    if start is None:
                        break
                    start(s, start_frame)
                    if not s.turn_over:
                        break
                    if until is not None and _holds(until, until_frame, until_checked, s):
                        _holds(until, until_frame, until_checked, s)
                        advance(s)
                        return False
                    if ended is not None and _holds(ended, ended_frame, ended_checked, s):
                        advance(s)
                        return False
                    seat = s.turn_player + 1 if s.next_turn is None else s.next_turn
                else:
                    raise _Fallback()
                if until is not None:
                    v = s.table_vars[until_var] if until_var >= 0 else until(s, until_frame)
                    if until_checked and v.__class__ is not bool:
                        raise _Fallback()
                    if v:
                        advance(s)
                        return False
        if pass_legal is None or s.window >= 0:
            found = legal(s)
        else:  # `legal`, inline (no memo is open in an apply): a call less per decision
            s.memo = {}
            budget = s.budget
            try:
                found = pass_legal(s, tables)
            except Exception:  # the general path computes (or reports) it as if alone
                s.budget, s.memo = budget, None
                found = legal_turns(game, step, s)
            else:
                if caches is not None:
                    # many kinds: only those with combinations visited, each action looked up by
                    # its combination; one never made sends the whole pass to `actions_of`, which makes it
                    looked: list[Action] = []
                    try:
                        for cache, combos in zip(compress(caches, found), filter(None, found)):
                            looked += map(cache.__getitem__, combos)
                    except KeyError:
                        looked = actions_of(game, s, rows, found)
                    found = looked
                elif flat is None:
                    found = actions_of(game, s, rows, found)
                s.memo = None  # (an error above leaves it: the whole state is put back then)
        if not found:
            raise _Fallback()  # a seat stuck: the general path says so, located
        s._legal = found  # computed anyway: the next legal_actions() call reuses it
        return False

    return legal, apply, enter


def _window_plan(window: Any) -> tuple[Any, tuple[Any, ...], Any, tuple[Any, ...]] | None:
    """A reaction window's ``responders`` and ``resolve`` as bare functions (see `_bare`):
    ``(responders, frame, resolve or None, frame)``; None when its responders are not a
    generated rule checked as a list of seats (then `_open_window` opens it)."""
    hook = window.responders
    fn, size = getattr(hook, "fn", None), getattr(hook, "size", None)
    if fn is None or size.__class__ is not int or getattr(hook, "checks", "") != "list[int]":
        return None
    resolve, resolve_frame, _ = _bare(window.resolve) if window.resolve is not None else (None, (), False)
    return fn, (None,) * size, resolve, resolve_frame


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
def _choose_plan(game: GameTables, step: ChooseStep, advance: AdvanceFn) -> tuple[LegalFn, ApplyFn, EnterFn]:
    """The legal, apply and enter functions of a choose step (a deck without copies): the next
    chooser's legal actions are found as the action is applied (or the step entered), from
    the cards that make that seat the next to choose."""
    source, to, allowed = step.source.index, step.to.index, step.allowed
    n = game.rules.num_players
    action_of = _choose_actions(game, step.verb).__getitem__  # card id -> its action
    count, count_frame, _ = _bare(step.count)
    first, first_frame, _ = _bare(step.first)
    orders = tuple(tuple((f + k) % n for k in range(n)) for f in range(n))  # one card each, from seat f

    def next_chooser(s: State, queue: list[int]) -> bool:
        """`_next_chooser`, the legal actions of the seat found with it: True if a seat is to choose."""
        while queue:
            seat = queue[0]
            cards = s.seat_zones[source][seat] if allowed is None else choosable(s, step, seat)
            if cards:
                s.current = seat
                s._legal = [*map(action_of, cards)]  # computed anyway: legal_actions() reuses it
                return True
            while queue and queue[0] == seat:  # that seat has nothing left to choose from
                del queue[0]
        return False

    def enter(s: State) -> bool:
        """`enter_choose`: every seat's decisions queued from ``first``; True if a seat must choose."""
        k = count(s, count_frame)
        if k.__class__ is not int or k < 0:
            raise _Fallback()  # the general path takes it as it is, or says what is wrong, located
        seat = first(s, first_frame) % n
        s.queue = [*orders[seat]] if k == 1 else [(seat + j) % n for j in range(n) for _ in range(k)]
        s.acted = 0
        return next_chooser(s, s.queue)

    def apply(s: State, action: Action) -> bool:
        """`apply_choose`, and the next chooser's legal actions; the steps after it entered when it is over."""
        seat = s.current
        zones = s.seat_zones
        card = action.choices[0]
        zones[source][seat].remove(card)
        zones[to][seat].append(card)
        s.acted += 1
        queue = s.queue
        del queue[0]
        if queue and allowed is None:  # the commonest case inline: the next seat has cards
            cards = zones[source][queue[0]]
            if cards:
                s.current = queue[0]
                s._legal = [*map(action_of, cards)]
                return False
        if not next_chooser(s, queue):
            advance(s)
        return False

    def legal(s: State) -> list[Action]:
        """`legal_choose`."""
        if allowed is None:
            return [*map(action_of, s.seat_zones[source][s.current])]
        return legal_choose(game, step, s)

    return legal, apply, enter
