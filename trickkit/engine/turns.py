"""Runs turns steps: seats choose among declared action kinds, with lookahead and reaction windows.

A *turn* belongs to one seat (``turn_player``) and lasts until an effect calls ``end_turn()``. An action kind may open
a *reaction window*: the other seats, in order from the player's left, may each respond (e.g. cancel the card just
played); the first response closes the window, and if everyone passes the window's ``resolve`` block runs. Responders
with no possible response are skipped, so a window costs no decisions when nobody can react.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

from trickkit.dsl.compiler import EVALUATION_BUDGET, GameEnded
from trickkit.dsl.runtime import distinct_values, dsl_str
from trickkit.engine.actions import Action
from trickkit.engine.lookahead import MAX_LOOKAHEAD_DEPTH, Unlocated, draws, trial_in_place, trial_on_copy
from trickkit.engine.protocols import Frame, GameTables, Seat, located
from trickkit.engine.state import MAX_STEPS_WITHOUT_DECISION, State
from trickkit.engine.turn_actions import MAX_CACHED_ACTIONS, Combo, Rows, _action, _text, flat_tables, row_actions
from trickkit.errors import DSLRuntimeError, did_you_mean, short_repr
from trickkit.rules.ruleset import ALL_COMBINATIONS, ActionKind, TurnStep

Passes = tuple[Callable[[State, Frame], "list[list[Combo]]"], Callable[[State, Frame], bool], bool]
"""The generated passes over the kinds of a turns step or window: ``(legal, any, some kind has a
lookahead)`` (`trickkit.rules.ruleset.TurnStep.passes`)."""
Plan = tuple[tuple[ActionKind, ...], Any, tuple[tuple[ActionKind, Any, dict[Combo, Action]], ...], Any]
"""What `legal_turns` needs of a step (or an open window): see `_plan`."""

PASS = Action("pass", "pass")
"""The action of a responder who lets the window go by."""


def start_turn(game: GameTables, s: State, step: TurnStep, seat: Seat) -> bool:
    """Give the turn to ``seat``: per-turn variables go back to their initial values.

    A turn that ``on_turn_start`` ends (``end_turn()``, ``end_turn(next=seat)``) passes on at
    once, before anyone decides, unless ``until`` now holds (or ``until_after_turn``, checked
    after a turn so ended): that is how an automatic resolution hands the next decision to a
    named seat, or a seat is skipped.

    Returns:
        True if ``until_after_turn`` held after a turn that ``on_turn_start`` ended: the step is over.
        (The caller checks ``until``.)

    Raises:
        DSLRuntimeError: `MAX_STEPS_WITHOUT_DECISION` turns in a row ended as they began.
    """
    for _ in range(MAX_STEPS_WITHOUT_DECISION):
        s.current = s.turn_player = seat % s._n
        s.turn_over = False
        s.next_turn = None
        s.turn_no += 1
        s._reset_variables("per_turn")
        if step.on_turn_start is None:
            return False
        step.on_turn_start(s)
        if not s.turn_over or step.until(s):
            return False
        if step.until_after_turn is not None and step.until_after_turn(s):
            return True
        seat = next_turn_seat(s)
    from trickkit.rules.ruleset import step_where

    raise DSLRuntimeError(
        f"{step_where(step)}: {MAX_STEPS_WITHOUT_DECISION} turns in a row were ended by "
        f"on_turn_start before any seat decided, and 'until' never held: the ruleset "
        f"passes the turn on forever"
    )


def next_turn_seat(s: State) -> Seat:
    """Whose turn follows the one that just ended: the seat ``end_turn(next=...)`` named, else the
    next seat clockwise."""
    return s.turn_player + 1 if s.next_turn is None else s.next_turn


def enter_turns(game: GameTables, s: State, step: TurnStep) -> bool:
    """Start the step: its first turn, unless ``until`` already holds (then no turn starts and
    ``on_turn_start`` does not run). True if a seat must decide."""
    s.window, s.responders = -1, []
    if step.until(s):
        return False
    if start_turn(game, s, step, step.first(s)):
        return False
    return not step.until(s)


# -- legal actions ----------------------------------------------------------------------
def _domains(s: State, kind: ActionKind) -> list[list[Any]]:
    """The values of each choice; copies of a card (same text) are offered once, and so is a
    value a choice's rule gives twice (`trickkit.rules.model.ActionKind.repeats`)."""
    copies, repeats = s.game._has_copies, kind.repeats
    if not copies and not repeats:  # every card's text is its own, no value comes twice: nothing to merge
        return [list(hook(s)) for hook in kind.domains]
    texts = s.rules.deck.texts
    out = []
    for i, (hook, typ) in enumerate(zip(kind.domains, kind.choice_types)):
        values = list(hook(s))
        if typ == "card" and copies:
            seen: set[str] = set()
            values = [c for c in values if c is None or not (texts[c] in seen or seen.add(texts[c]))]  # type: ignore[func-returns-value]  # add() is None: the test goes on
        elif repeats and repeats[i]:
            values = _distinct(kind, i, hook, values)
        out.append(values)
    return out


def _distinct(kind: ActionKind, i: int, hook: Any, values: list[Any]) -> list[Any]:
    """``values`` of choice ``i`` with repeats dropped; a list among them is a located error."""
    try:
        return distinct_values(values)
    except TypeError:
        bad = next((v for v in values if isinstance(v, (list, dict, set))), values)
        try:
            shown = json.dumps(bad)  # [null], as the DSL writes it
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
        except (TypeError, ValueError, RecursionError):
            shown = short_repr(bad)
        raise DSLRuntimeError(
            f"{located(hook)}: choice {kind.choice_names[i]!r} of action {kind.name!r} offers "
            f"{shown}: a choice takes single values (numbers, texts, cards, true/false, "
            f"null), not lists"
        ) from None


def _combinations(s: State, kind: ActionKind, first_only: bool = False) -> list[Combo]:
    """The combinations of an action kind's choices whose ``allowed`` holds (lookahead aside),
    in the order of ``itertools.product``; none when its choice-free conditions (guard) fail.
    With ``first_only``, at most the first of them."""
    guard = kind.guard
    if guard is not None:
        passed = guard(s)
        if not passed:
            return []
        if passed is True and not kind.domains:  # no choices: the guard is all of `allowed`, and it holds
            return [()]
    domains = _domains(s, kind)
    combinations = 1
    for values in domains:
        combinations *= len(values)
    s.budget -= combinations  # each one is tested: charge them before the first
    if s.budget < 0:
        where = located(kind.domains[0]).rsplit(".choices", 1)[0]
        raise DSLRuntimeError(
            f"{where}: {combinations} combinations of choices to try (the evaluation budget "
            f"is {EVALUATION_BUDGET}): offer fewer values per choice"
        )
    flt = kind.combo_first if first_only else kind.combo_filter
    if flt is ALL_COMBINATIONS:
        return list(itertools.islice(itertools.product(*domains), 1 if first_only else None))
    if flt is not None:
        budget = s.budget
        try:  # the generated pass over every combination
            return flt(s, (), domains)  # type: ignore[no-any-return]  # a generated pass: list[Combo]
        except Exception:  # a rule failed: the per-combination test below reports it, located
            s.budget = budget  # charged as if the pass (which computes its invariants up front) never ran
    test = kind.choice_test if kind.choice_test is not None else kind.allowed
    return [combo for combo in itertools.product(*domains) if test(s, *combo)]


def _passes(game: GameTables, s: State, kind: ActionKind, combo: Combo) -> bool:
    """With ``allowed`` holding for ``combo`` (from `_combinations`): does its lookahead pass?"""
    look: Any = kind.lookahead  # False, True or a RuleHook (its bare fn and frame size used below)
    if not look or s._depth >= MAX_LOOKAHEAD_DEPTH:
        return True
    memo = s.memo
    if memo is not None:  # the state holds still: `can` and the legal list ask once per combination
        key = ("lookahead", id(kind), combo)
        known: bool | None = memo.get(key)
        if known is not None:
            return known
    if look is not True:  # an expression: where it is false, no check for this combination
        if look.size == len(combo):  # its bare function (its frame is the combination) ...
            try:
                asked = look.fn(s, combo)
            except Exception:  # ... or the hook, which reports the error, located
                asked = look(s, *combo)
        else:
            asked = look(s, *combo)
        if not asked:
            if memo is not None:
                memo[key] = True
            return True
    known = _trial_passes(game, s, kind, combo)
    if memo is not None:
        memo[key] = known
    return known


def _draws(effect: Any) -> bool:
    """True if the effect hook may draw randomness (its trial then runs on a copy): `lookahead.draws`."""
    return draws(effect)


def _trial_passes(game: GameTables, s: State, kind: ActionKind, combo: Combo) -> bool:
    """Try ``combo`` and throw its effect away: True if afterwards the turn is over (or the
    game, or a reaction window opens) or the seat has some allowed action.

    An effect that draws no randomness runs on ``s`` itself (`_trial_in_place`), saving the
    copy of a whole state; one that draws runs on a copy (`State._trial`)."""
    plan = game._effect_draws.get(id(kind))
    if plan is None:
        effect = kind.effect
        fn = getattr(effect, "fn", None)
        bare = fn if fn is not None and getattr(effect, "size", -1) == len(kind.domains) else None
        plan = game._effect_draws[id(kind)] = (kind, draws(effect), bare)
    if not plan[1]:
        return trial_in_place(game, s, kind, combo, plan[2], _trial_after)
    return trial_on_copy(game, s, kind, combo, _trial_after)


def _trial_on_copy(game: GameTables, s: State, kind: ActionKind, combo: Combo) -> bool:
    """`_trial_passes` on a copy of ``s`` (`lookahead.trial_on_copy`)."""
    return trial_on_copy(game, s, kind, combo, _trial_after)


def _trial_in_place(game: GameTables, s: State, kind: ActionKind, combo: Combo, fn: Any = None) -> bool:
    """`_trial_passes` on ``s`` itself, put back exactly as it was (`lookahead.trial_in_place`).
    ``fn``: the effect's bare generated function (frame: the combination), or None."""
    return trial_in_place(game, s, kind, combo, fn, _trial_after)


def _trial_after(game: GameTables, trial: State, kind: ActionKind, combo: Combo, fn: Any = None) -> bool:
    """Run ``combo``'s effect on ``trial`` (a copy, or the state in a trial) and check it.
    ``fn``: the effect's bare generated function; when it fails, `Unlocated` is raised."""
    turn = trial.turn_no
    try:
        if fn is None:
            kind.effect(trial, *combo)
        else:
            fn(trial, combo)
    except GameEnded:
        return True
    except Exception as e:
        if fn is None:
            raise
        raise Unlocated() from e
    if trial.turn_over or trial.turn_no != turn or kind.opens is not None:
        return True
    step = game.rules.steps[trial.step]
    passes: Passes | None = step.passes
    if passes is not None and (trial._depth >= MAX_LOOKAHEAD_DEPTH or not passes[2]):
        # no lookahead is checked from the trial: the generated pass answers
        trial.memo = None  # each rule is asked once here: storing its parts in a memo would only cost
        budget = trial.budget
        try:
            return passes[1](trial, ())
        except Exception:  # the general path below decides (or reports the error, located)
            trial.memo, trial.budget = None, budget
    return _any_passes(game, trial, step.kinds)


def _kinds_now(s: State, step: TurnStep) -> tuple[ActionKind, ...]:
    return step.windows[s.window].kinds if s.window >= 0 else step.kinds


def _passes_of(s: State, step: TurnStep) -> tuple[Any, ...] | None:
    """The generated passes ``(legal, any, lookahead)`` over the kinds the current seat chooses
    among now (see `trickkit.rules.ruleset.TurnStep.passes`), or None."""
    return step.windows[s.window].passes if s.window >= 0 else step.passes


def _run_pass(s: State, fn: Any) -> Any:
    """Run a generated pass; None when it failed, with the state's budget and memo as they were
    before it, so that the general path computes (or reports) everything exactly as alone."""
    budget = s.budget
    memo: dict[Any, Any] = s.memo  # type: ignore[assignment]  # open: legal_turns and _any_passes opened it
    known = len(memo)  # memo entries are only ever added: the pass's own are the last ones
    try:
        return fn(s, ())
    except Exception:  # a rule failed, or a choice was null where the pass assumes none: the general path decides
        s.budget = budget
        for key in list(memo)[known:]:
            del memo[key]
        return None


def _plan(game: GameTables, step: TurnStep, window: int) -> Plan:
    """What the fast path of `legal_turns` needs for ``step`` (``window``: -1, or the reaction
    window open), found once per Game: ``(kinds, legal pass or None, rows, flat)``, one row per kind:
    ``(kind, has a lookahead (or its `Rows` when the pass gives it rows), its actions already
    made by combination)``; ``flat``: the pass's flat variant and its tables, or None (see
    `trickkit.engine.turn_actions.flat_tables`). Those actions are
    entries of ``game._turn_actions``, found without building its (template, name, combination) key."""
    plans = game._turn_kind_actions.get(id(step))
    if plans is None:
        plans = game._turn_kind_actions[id(step)] = (step, [None] * (len(step.windows) + 1))
    plan: Plan | None = plans[1][window + 1]
    if plan is None:
        owner = step.windows[window] if window >= 0 else step
        legal = owner.passes[0] if owner.passes is not None else None
        as_rows = getattr(legal, "rows", None) or (False,) * len(owner.kinds)
        rows: tuple[Any, ...] = tuple(
            (k, Rows() if r else bool(k.lookahead), {}) for k, r in zip(owner.kinds, as_rows, strict=True)
        )
        flat = flat_tables(game, owner.kinds, getattr(legal, "flat", None), [row[2] for row in rows])
        plan = plans[1][window + 1] = (owner.kinds, legal, rows, flat)
    return plan


def actions_of(game: GameTables, s: State, rows: Any, found: list[Any]) -> list[Action]:
    """The actions of what a generated legal pass ``found``, kind by kind (``rows``: the plan's rows,
    see `_plan`): cached actions looked up, rows that pass whole taken at once, lookaheads checked."""
    out: list[Action] = []
    for (kind, look, cache), combos in zip(rows, found):
        if not combos:
            continue
        if look is False:  # every combination made before: their actions, looked up in one C loop
            # (`is False`, not `not look`: the truth of `Rows`, a dict, is a Python call)
            try:
                out += list(map(cache.__getitem__, combos))
                continue
            except KeyError:  # one not made yet: the loop below makes it
                pass
        elif look.__class__ is Rows:  # rows that pass whole: each row's actions, made once
            outers, last = combos
            for outer in outers:
                known = look.get(outer)
                out += (
                    known[1]
                    if known is not None and known[0] == last
                    else row_actions(game, s, kind, cache, look, outer, last)
                )
            continue
        for combo in combos:
            if look and not _passes(game, s, kind, combo):
                continue
            action = cache.get(combo)
            out.append(action if action is not None else _action(game, s, kind, combo, cache))
    return out


def legal_turns(game: GameTables, step: TurnStep, s: State) -> list[Action]:
    opened = s.memo is None
    if opened:  # the state holds still while every combination is tested: memoise
        s.memo = {}
    try:
        plans = game._turn_kind_actions.get(id(step))  # `_plan`, its lookup inlined: this runs per decision
        plan = plans[1][s.window + 1] if plans is not None else None
        kinds, legal, rows, flat = plan if plan is not None else _plan(game, step, s.window)
        if flat is not None:  # the flat pass: the actions themselves, looked up in its tables
            out: list[Action] | None = _run_pass(s, flat[2])
            if out is not None:
                if s.window >= 0:
                    out.append(PASS)
                return out
        found = _run_pass(s, legal) if legal is not None else None
        if found is not None:  # the generated pass: each kind's combinations, lookahead aside
            out = actions_of(game, s, rows, found)
            if s.window >= 0:
                out.append(PASS)
            return out
        out = []
        made = game._turn_actions
        kept = getattr(legal, "kept", ())  # as the generated pass keeps them for `can`
        for i, kind in enumerate(kinds):
            combos = _combinations(s, kind)
            if i in kept:
                s.memo[("can", kind.name)] = combos  # type: ignore[index]  # opened above
            for combo in combos:
                if not kind.lookahead or _passes(game, s, kind, combo):
                    key = (kind.template, kind.name, combo)
                    action = made.get(key)
                    if action is None:
                        action = Action(_text(s, kind, combo), kind.name, choices=combo)
                        if len(made) < MAX_CACHED_ACTIONS:
                            made[key] = action
                    out.append(action)
        if s.window >= 0:
            out.append(PASS)
        return out
    finally:
        if opened:
            s.memo = None


def kind_available(game: GameTables, s: State, step: TurnStep, name: str) -> bool:
    """True if the current seat may now take an action of kind ``name`` (the DSL's ``can``)."""
    memo = s.memo
    if memo is not None:  # the legal actions being found: that kind's, found before, were kept
        known = memo.get(("can", name))
        if known is not None:
            return bool(known)
    for kind in _kinds_now(s, step):
        if kind.name == name:
            passes = _passes_of(s, step)
            by_kind = getattr(passes[1], "by_kind", None) if passes is not None else None
            if by_kind is not None and name in by_kind:  # its own generated pass (a rule asks `can`)
                return _any_passes(game, s, (kind,), (None, by_kind[name], bool(kind.lookahead)))
            return _any_passes(game, s, (kind,))
    return False


def _any_passes(game: GameTables, s: State, kinds: Sequence[ActionKind], passes: tuple[Any, ...] | None = None) -> bool:
    """True if some combination of some kind in ``kinds`` is legal now (memoising, like legal_turns).
    ``passes``: the generated passes over ``kinds`` (see `_passes_of`), if any."""
    opened = s.memo is None
    if opened:
        s.memo = {}
    try:
        # the generated pass answers when no lookahead is to be checked (it stops at the first
        # allowed combination, as the loop below does then)
        if passes is not None and (s._depth >= MAX_LOOKAHEAD_DEPTH or not passes[2]):
            found: bool | None = _run_pass(s, passes[1])
            if found is not None:
                return found
        for kind in kinds:
            # without a lookahead to check, the first allowed combination answers
            first_only = not kind.lookahead or s._depth >= MAX_LOOKAHEAD_DEPTH
            if any(_passes(game, s, kind, combo) for combo in _combinations(s, kind, first_only)):
                return True
        return False
    finally:
        if opened:
            s.memo = None


# -- applying ---------------------------------------------------------------------------
def apply_turns(game: GameTables, step: TurnStep, s: State, action: Action) -> bool:
    if s.window >= 0:
        window = step.windows[s.window]
        if action.verb == "pass":
            _next_responder(game, s, step)
        else:
            kind = _kind_named(game, window.kinds, action.verb)
            kind.effect(s, *action.choices)
            _close_window(s)
    else:
        kind = _kind_named(game, step.kinds, action.verb)
        kind.effect(s, *action.choices)
        if kind.opens is not None:
            _open_window(game, s, step, kind.opens)
    if s.window >= 0:  # a responder decides next
        return False
    return _after_action(game, s, step)


def _kind_named(game: GameTables, kinds: tuple[ActionKind, ...], name: str) -> ActionKind:
    """The kind of ``kinds`` called ``name`` (a legal action's verb names one)."""
    by_name = game._turn_kind_names.get(id(kinds))
    if by_name is None:
        by_name = game._turn_kind_names[id(kinds)] = (kinds, {})
        for k in reversed(kinds):  # the first of a name wins, as a search in order finds it
            by_name[1][k.name] = k
    return by_name[1][name]


def _after_action(game: GameTables, s: State, step: TurnStep) -> bool:
    if step.after_action is not None:
        step.after_action(s)
    if step.until(s):
        return True
    if s.turn_over:
        if step.until_after_turn is not None and step.until_after_turn(s):
            return True
        if start_turn(game, s, step, next_turn_seat(s)) or step.until(s):
            return True
    legal = legal_turns(game, step, s)
    if not legal:
        from trickkit.rules.ruleset import step_where

        raise DSLRuntimeError(
            f"{step_where(step)}: seat {s.current} has no legal action and this turns "
            f"step has not ended (its 'until' is false): the ruleset leaves the seat stuck"
        )
    s._legal = legal  # computed anyway: the next legal_actions() call reuses it
    return False


def _open_window(game: GameTables, s: State, step: TurnStep, index: int) -> None:
    window = step.windows[index]
    order = (
        window.responders(s) if window.responders is not None else [(s.turn_player + k) % s._n for k in range(1, s._n)]
    )
    s.window = index
    s.responders = [int(seat) % s._n for seat in order]
    _next_responder(game, s, step, first=True)


def _next_responder(game: GameTables, s: State, step: TurnStep, first: bool = False) -> None:
    """Move to the next responder who can respond; when none is left, resolve the window."""
    if not first and s.responders:
        s.responders.pop(0)
    window = step.windows[s.window]
    while s.responders:
        s.current = s.responders[0]
        if _any_passes(game, s, window.kinds, window.passes):
            return
        s.responders.pop(0)
    s.current = s.turn_player
    s.window = -1
    if window.resolve is not None:
        window.resolve(s)


def _close_window(s: State) -> None:
    s.window, s.responders = -1, []
    s.current = s.turn_player


# -- refusals ---------------------------------------------------------------------------
def explain_turns(game: GameTables, s: State, step: TurnStep, text: str) -> str:
    verb = text.split(" ")[0]
    kinds = _kinds_now(s, step)
    names = list(dict.fromkeys(k.verb or k.name for k in kinds)) + (["pass"] if s.window >= 0 else [])
    sharing = [k for k in kinds if (k.verb or k.name) == verb]  # kinds sharing a verb differ in length
    kind = next(
        (k for k in sharing if len(k.template.split(" ")) == len(text.split(" "))), sharing[0] if sharing else None
    )
    if kind is None:
        if s.window >= 0:
            return (
                f"seat {s.current} may respond to seat {s.turn_player}'s action now: "
                f"{' or '.join(repr(n) for n in names)}"
            )
        return f"unknown action {verb!r}{did_you_mean(verb, names)} (actions here: {', '.join(names)})"
    for combo in itertools.product(*_domains(s, kind)):
        if _text(s, kind, combo) == text:
            if kind.allowed(s, *combo):
                return "it would leave no way to finish the turn"
            why = kind.reason(s, *combo) if kind.reason is not None else None
            if why is not None:  # a reason rule that gives null says nothing: the default below
                return dsl_str(why)
            return f"{text!r} is not allowed now{_legal_now(s)}"
    forms = " or ".join(repr(k.template) for k in sharing)
    return _wrong_choice(s, kind, text) or f"no such {verb!r} action now (the form is {forms})"


def _legal_now(s: State) -> str:
    """`` (legal now: A, B, ...)``: the seat's legal actions (it may see those), at most 8 of them."""
    legal = [a.text for a in s.legal_actions()]
    return f" (legal now: {', '.join(legal[:8])}{', ...' if len(legal) > 8 else ''})" if legal else ""


def _wrong_choice(s: State, kind: ActionKind, text: str) -> str | None:
    """For a text of the right form, which choice has no such value now (e.g. a card not held)."""
    import re

    parts = re.split(r"\{(\w+)\}", kind.template)  # literal, name, literal, name, ...
    match = re.fullmatch("".join(re.escape(p) if i % 2 == 0 else r"(\S+)" for i, p in enumerate(parts)), text)
    if match is None:
        return None
    texts = s.rules.deck.texts
    for name, typ, values, given in zip(kind.choice_names, kind.choice_types, _domains(s, kind), match.groups()):
        shown = {str(texts[v] if typ == "card" and v is not None else v) for v in values}
        if given not in shown:
            # offer only the legal actions (the seat may see those), never the raw choice values,
            # which may come from zones the seat cannot see
            legal = [a.text for a in s.legal_actions() if a.verb == kind.name]
            offer = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
            folded = text.casefold()  # 'pass c4' for 'pass C4': say which one was meant
            hint = did_you_mean(text, legal) if any(a.casefold() == folded for a in legal) else ""
            return f"{given!r} is not a {name} you can choose now" + (f" (legal now: {offer})" if legal else "") + hint
    return None
