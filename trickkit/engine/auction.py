"""Runs auction steps: seats call in turn, each call outranking the last, until enough passes.

A card player knows this as the bidding of Bridge (``1C``, ``pass``, ``1H``, ``double``,
``redouble``, three passes), a numbers auction (``18``, ``20``, ... until the others pass) or
Euchre's making (the first seat to order up or name a suit ends it: ``ends_after_passes: 0``).

The calls are a list in ascending order (`trickkit.rules.model.AuctionStep.calls`); a call is
legal when it comes later in that list than the last call (and ``allowed`` holds for it).
With ``double: true`` a seat may ``double`` the last call while it is undoubled and made by
an opponent (a seat of another team; without ``teams`` every other seat), and ``redouble``
its own side's doubled call. The auction ends after ``ends_after_passes`` passes in a row
that follow the last call (or double, or redouble), or after ``passed_out_after`` passes with
no call at all (passed out). Then the step writes its outputs: the winning call, the seat
that made it, the declarer (the first seat of the caller's team to have made a call whose
``strain`` is the winning call's) and 0, 1 or 2 for the doubling; null (0 for the doubling)
when passed out.

The running auction lives in ``State.auction`` as an `AuctionState` (immutable: a copy of a
state shares it). Every call is public: `auction_view` is the list shown in observations.
The actions of a list of calls are made once per Game (`CallTable`), so a decision costs a
slice of that table, never the parsing of a text.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from trickkit.engine.actions import Action
from trickkit.engine.observation import AuctionCall
from trickkit.engine.protocols import GameTables, Seat, located
from trickkit.engine.state import State
from trickkit.errors import DSLRuntimeError, did_you_mean, short_repr
from trickkit.rules.ruleset import AuctionStep
from trickkit.rules.steps import auction_calls_problem

PASS, DOUBLE, REDOUBLE = -1, -2, -3
"""The codes of a pass, a double and a redouble in an auction's record (a call's code is its
index in the list of calls, from 0)."""

MAX_CALL_TABLES = 256
"""Most call tables a Game keeps (one per list of calls met); beyond, the cache starts again."""


class CallTable:
    """The actions of one auction step with one list of calls, made once per Game."""

    __slots__ = ("actions", "by_text", "double_action", "pass_action", "redouble_action", "texts", "values")

    def __init__(self, step: AuctionStep, values: tuple[Any, ...]):
        self.values = values
        """The calls, lowest first (texts, or numbers)."""
        self.texts = tuple(step.template.replace("{call}", str(v)) for v in values)
        """The action text of each call (``bid 1H``)."""
        self.actions = tuple(Action(t, t.split(" ", 1)[0], value=i) for i, t in enumerate(self.texts))
        """The action of each call; its ``value`` is the call's index."""
        self.by_text = {_norm(t): i for i, t in enumerate(self.texts)}
        """Call index by action text (its first word in lower case, as refused texts come)."""
        self.pass_action = Action(step.pass_text, step.pass_text.split(" ", 1)[0], value=PASS)
        self.double_action = Action("double", "double", value=DOUBLE)
        self.redouble_action = Action("redouble", "redouble", value=REDOUBLE)


class AuctionState(NamedTuple):
    """An auction in progress (or the last one of the round, once it has ended)."""

    table: CallTable
    record: tuple[tuple[Seat, int], ...]
    """Every decision so far: (seat, code); a code is a call's index, `PASS`, `DOUBLE` or `REDOUBLE`."""
    last: int
    """The index of the last call, -1 before any call."""
    last_seat: Seat
    """The seat that made the last call (-1 before any)."""
    doubled: int
    """0, 1 (the last call is doubled) or 2 (redoubled)."""
    passes: int
    """Passes in a row since the last call, double or redouble (or since the start)."""
    ends: int
    """``ends_after_passes`` as evaluated when the step started."""
    out: int
    """``passed_out_after`` as evaluated when the step started."""
    round: int
    """The round in which this auction was held."""
    step: int
    """The index of its step."""


def _norm(text: str) -> str:
    verb, _, rest = text.partition(" ")
    return f"{verb.lower()} {rest}" if rest else verb.lower()


def call_table(game: GameTables, step: AuctionStep, values: tuple[Any, ...]) -> CallTable:
    """The `CallTable` of ``step`` with these calls (made on first use, then reused)."""
    key = (step.template, step.pass_text, values)
    tables = game._auction_tables
    table = tables.get(key)
    if table is None:
        if len(tables) >= MAX_CALL_TABLES:  # bounded: a rule may give any calls
            tables.clear()
        table = tables[key] = CallTable(step, values)
    return table


def enter_auction(game: GameTables, s: State, step: AuctionStep) -> bool:
    """Start the auction: evaluate its calls and counts; the seat ``first`` calls first."""
    values = step.fixed_calls
    if values is None:
        got = step.calls(s)
        problem = auction_calls_problem(got)
        if problem:
            raise DSLRuntimeError(f"{located(step.calls)}: {problem}")
        values = tuple(got)
    table = call_table(game, step, values)
    own = {step.pass_text} | ({"double", "redouble"} if step.double else set())
    clash = next((t for t in table.texts if t in own), None)
    if clash is not None:
        raise DSLRuntimeError(f"{located(step.calls)}: the call text {clash!r} is also the text of a {clash}")
    ends, out = step.ends_after_passes(s), step.passed_out_after(s)
    if ends < 0:
        raise DSLRuntimeError(f"{located(step.ends_after_passes)}: ends_after_passes must be at least 0, got {ends}")
    if out < 1:
        raise DSLRuntimeError(f"{located(step.passed_out_after)}: passed_out_after must be at least 1, got {out}")
    s.current = step.first(s) % s._n
    s.auction = AuctionState(table, (), -1, -1, 0, 0, ends, out, s.round, s.step)
    return True


def legal_auction(game: GameTables, step: AuctionStep, s: State) -> list[Action]:
    """The higher calls (those ``allowed``), then pass, then double or redouble when they apply."""
    a: AuctionState = s.auction
    table, last = a.table, a.last
    legal = [*table.actions[last + 1 :]] if step.allowed is None else _allowed(s, step, table, last)
    legal.append(table.pass_action)
    if step.double and last >= 0:
        team = s.rules.team_of
        if a.doubled == 0:
            if team[a.last_seat] != team[s.current]:
                legal.append(table.double_action)
        elif a.doubled == 1 and team[a.last_seat] == team[s.current]:
            legal.append(table.redouble_action)
    return legal


def _allowed(s: State, step: AuctionStep, table: CallTable, last: int) -> list[Action]:
    """The calls above ``last`` that the step's ``allowed`` rule lets the current seat make."""
    allowed = step.allowed
    assert allowed is not None
    opened = s.memo is None
    if opened:  # the state holds still while the calls are tested: memoise definitions
        s.memo = {}
    try:
        values = table.values
        return [act for act in table.actions[last + 1 :] if allowed(s, values[act.value])]
    finally:
        if opened:
            s.memo = None


def apply_auction(game: GameTables, step: AuctionStep, s: State, action: Action) -> bool:
    """Record the call, pass, double or redouble; True when it ends the auction."""
    a: AuctionState = s.auction
    seat, code = s.current, action.value
    record = (*a.record, (seat, code))
    if code >= 0:  # a call
        if a.ends == 0:
            s.auction = a._replace(record=record, last=code, last_seat=seat, doubled=0, passes=0)
            return _finish(step, s)
        s.auction = AuctionState(a.table, record, code, seat, 0, 0, a.ends, a.out, a.round, a.step)
    elif code == PASS:
        passes = a.passes + 1
        s.auction = a._replace(record=record, passes=passes)
        if passes >= (a.ends if a.last >= 0 else a.out):
            return _finish(step, s)
    else:  # a double or a redouble
        s.auction = a._replace(record=record, doubled=1 if code == DOUBLE else 2, passes=0)
    s.current = (seat + 1) % s._n
    return False


def _finish(step: AuctionStep, s: State) -> bool:
    """Write the auction's outputs into their table variables; True (the step is over)."""
    a: AuctionState = s.auction
    values = a.table.values
    contract = caller = declarer = None
    if a.last >= 0:
        contract, caller = values[a.last], a.last_seat
        declarer = caller
        if step.declarer is not None:
            strain = step.strain
            if strain is None:
                target = contract
                same = [seat for seat, code in a.record if code >= 0 and values[code] == target]
            else:
                target = strain(s, contract)
                same = [seat for seat, code in a.record if code >= 0 and strain(s, values[code]) == target]
            team = s.rules.team_of
            declarer = next(seat for seat in same if team[seat] == team[caller])
    tv = s.table_vars
    for var, value in (
        (step.contract, contract),
        (step.caller, caller),
        (step.declarer, declarer),
        (step.doubled, a.doubled if a.last >= 0 else 0),
    ):
        if var is not None:
            tv[var.index] = value
    return True


def auction_view(s: State) -> list[AuctionCall]:
    """The auction of the current round so far, as every seat sees it: one entry per decision,
    ``{"seat": 1, "kind": "call", "call": "1H"}``; ``kind`` is ``call``, ``pass``, ``double`` or
    ``redouble``, and ``call`` the call made, doubled or redoubled (null for a pass). Empty
    before the round's first auction step."""
    a: AuctionState | None = s.auction
    if a is None or a.round != s.round:
        return []
    values = a.table.values
    out: list[AuctionCall] = []
    last = None
    for seat, code in a.record:
        if code >= 0:
            last = values[code]
            out.append({"seat": seat, "kind": "call", "call": last})
        elif code == PASS:
            out.append({"seat": seat, "kind": "pass", "call": None})
        else:
            out.append({"seat": seat, "kind": "double" if code == DOUBLE else "redouble", "call": last})
    return out


def explain_auction(game: GameTables, s: State, step: AuctionStep, text: str) -> str:
    """Why ``text`` is not a legal action of the running auction."""
    a: AuctionState = s.auction
    table, last = a.table, a.last
    team = s.rules.team_of
    shown = table.values[last] if last >= 0 else None
    if text in ("double", "redouble") and not step.double:
        return f"this auction has no {text}s: call higher or say {step.pass_text!r}"
    if text == "double":
        if last < 0:
            return "there is no call to double yet"
        if team[a.last_seat] == team[s.current]:
            return "you may only double an opponent's call"
        return f"{shown} is already {'doubled' if a.doubled == 1 else 'redoubled'}"
    if text == "redouble":
        if last < 0:
            return "there is no call to redouble yet"
        if a.doubled == 0:
            return f"{shown} is not doubled: only a doubled call may be redoubled"
        if team[a.last_seat] != team[s.current]:
            return "you may only redouble your own side's doubled call"
        return f"{shown} is already redoubled"
    index = table.by_text.get(text)
    if index is None:
        example = table.texts[last + 1] if last + 1 < len(table.texts) else step.pass_text
        return (
            f"unknown call {short_repr(text)}{did_you_mean(text, list(table.by_text))}: "
            f"say {step.pass_text!r} or a call such as {example!r}"
        )
    if index <= last:
        return f"{table.texts[index]} does not outrank {shown}"
    return f"{table.texts[index]} is not allowed now (the rules of this auction forbid it)"
