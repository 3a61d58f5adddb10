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

Speed: a running auction is a `Bidding` node in ``State.auction``: the last call, its seat, the
doubling and the passes in a row, with the legal actions of that moment made once. Nodes are
interned per Game (`CallTable`), so a decision costs one list copy (legal actions) and one
dict lookup (the next node), never a new object nor the parsing of a text; ``State.acted``
counts the auction's decisions, so its record is the end of the state's history. When the
auction ends, ``State.auction`` becomes a `Closed` record of it (every call is public:
`auction_view` is the list observations show).
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

MAX_NODES = 100_000
"""Most `Bidding` nodes one call table keeps; beyond, its nodes are made again as met."""


class CallTable:
    """The actions of one auction step with one list of calls (and its counts), made once per Game,
    and the interned `Bidding` nodes of its auctions."""

    __slots__ = (
        "actions",
        "by_text",
        "codes",
        "double_action",
        "ends",
        "nodes",
        "out",
        "pass_action",
        "redouble_action",
        "team_of",
        "texts",
        "values",
    )

    def __init__(self, step: AuctionStep, values: tuple[Any, ...], ends: int, out: int, team_of: tuple[int, ...]):
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
        self.codes = {t: i for i, t in enumerate(self.texts)}
        """The code of every action text of this auction (calls, pass, double, redouble)."""
        self.codes.update({step.pass_text: PASS, "double": DOUBLE, "redouble": REDOUBLE})
        self.ends, self.out, self.team_of = ends, out, team_of
        self.nodes: dict[tuple[int, int, int, int], Bidding] = {}
        """The nodes met so far, by (last, last seat, doubled, passes)."""

    def node(self, step: AuctionStep, last: int, last_seat: int, doubled: int, passes: int) -> Bidding:
        """The interned node of that moment of an auction."""
        key = (last, last_seat, doubled, passes)
        node = self.nodes.get(key)
        if node is None:
            if len(self.nodes) >= MAX_NODES:
                self.nodes.clear()
            node = self.nodes[key] = Bidding(self, step.double, last, last_seat, doubled, passes)
        return node


class Bidding:
    """One moment of a running auction: the last call (its index, -1 before any), the seat that
    made it, its doubling (0, 1, 2) and the passes in a row since the last call, double or
    redouble (or since the start). Interned: the same moment is the same object."""

    __slots__ = ("after", "doubled", "ended", "higher", "last", "last_seat", "other", "passes", "same", "side", "table")

    def __init__(self, table: CallTable, double: bool, last: int, last_seat: int, doubled: int, passes: int):
        self.table, self.last, self.last_seat, self.doubled, self.passes = table, last, last_seat, doubled, passes
        self.ended = passes >= (table.ends if last >= 0 else table.out) or (last >= 0 and table.ends == 0)
        """True when the auction is over at this moment."""
        self.higher = (*table.actions[last + 1 :], table.pass_action)
        """The calls above the last call, then the pass."""
        self.side = table.team_of[last_seat] if last >= 0 else -1
        """The team of the last caller (-1 before any call)."""
        can = double and last >= 0
        self.same = table.redouble_action if can and doubled == 1 else None
        """What a seat of the caller's side may add: ``redouble`` of the doubled call, or None."""
        self.other = table.double_action if can and doubled == 0 else None
        """What an opponent of the caller may add: ``double`` of the undoubled call, or None."""
        self.after: dict[int, Bidding] = {}
        """The next node, by ``code * num_players + seat`` of the decision taken here."""


class Closed(NamedTuple):
    """An auction that has ended: its record, for observations (``State.auction`` once it is over)."""

    table: CallTable
    record: tuple[tuple[Seat, int], ...]
    """Every decision: (seat, code); a code is a call's index, `PASS`, `DOUBLE` or `REDOUBLE`."""
    last: int
    last_seat: Seat
    doubled: int
    round: int
    """The round in which it was held."""


def _norm(text: str) -> str:
    verb, _, rest = text.partition(" ")
    return f"{verb.lower()} {rest}" if rest else verb.lower()


def call_table(game: GameTables, step: AuctionStep, values: tuple[Any, ...], ends: int, out: int) -> CallTable:
    """The `CallTable` of ``step`` with these calls and counts (made on first use, then reused)."""
    key = (step.template, step.pass_text, step.double, values, ends, out)
    tables = game._auction_tables
    table = tables.get(key)
    if table is None:
        if len(tables) >= MAX_CALL_TABLES:  # bounded: a rule may give any calls
            tables.clear()
        table = tables[key] = CallTable(step, values, ends, out, game.rules.team_of)
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
    start = opening(game, step, values, step.ends_after_passes(s), step.passed_out_after(s))
    s.current = step.first(s) % s._n
    s.auction = start
    s.acted = 0
    return True


def opening(game: GameTables, step: AuctionStep, values: tuple[Any, ...], ends: int, out: int) -> Bidding:
    """The first moment of an auction with these calls and pass counts, which are checked.

    Raises:
        DSLRuntimeError: a count out of range, or a call whose text is the pass's (or a double's), located.
    """
    if ends < 0:
        raise DSLRuntimeError(f"{located(step.ends_after_passes)}: ends_after_passes must be at least 0, got {ends}")
    if out < 1:
        raise DSLRuntimeError(f"{located(step.passed_out_after)}: passed_out_after must be at least 1, got {out}")
    table = call_table(game, step, values, ends, out)
    own = {step.pass_text} | ({"double", "redouble"} if step.double else set())
    clash = next((t for t in table.texts if t in own), None)
    if clash is not None:
        raise DSLRuntimeError(f"{located(step.calls)}: the call text {clash!r} is also the text of a {clash}")
    return table.node(step, -1, -1, 0, 0)


def legal_auction(game: GameTables, step: AuctionStep, s: State) -> list[Action]:
    """The higher calls (those ``allowed``), then pass, then double or redouble when they apply."""
    node: Bidding = s.auction
    legal = [*node.higher] if step.allowed is None else _allowed(s, step, node)
    if node.side >= 0:
        extra = node.same if node.table.team_of[s.current] == node.side else node.other
        if extra is not None:
            legal.append(extra)
    return legal


def _allowed(s: State, step: AuctionStep, node: Bidding) -> list[Action]:
    """The calls above the last call that the step's ``allowed`` rule lets the current seat
    make, then the pass."""
    allowed = step.allowed
    assert allowed is not None
    opened = s.memo is None
    if opened:  # the state holds still while the calls are tested: memoise definitions
        s.memo = {}
    try:
        values = node.table.values
        legal = [act for act in node.higher[:-1] if allowed(s, values[act.value])]
    finally:
        if opened:
            s.memo = None
    legal.append(node.higher[-1])
    return legal


def apply_auction(game: GameTables, step: AuctionStep, s: State, action: Action) -> bool:
    """Record the call, pass, double or redouble; True when it ends the auction."""
    node: Bidding = s.auction
    seat = s.current
    key = action.value * s._n + seat  # one key per (code, seat): codes from -3, seats 0..n-1
    nxt = node.after.get(key)
    if nxt is None:
        nxt = node.after[key] = _next(step, node, action.value, seat)
    s.auction = nxt
    s.acted += 1
    if nxt.ended:
        return _finish(step, s)
    s.current = (seat + 1) % s._n
    return False


def _next(step: AuctionStep, node: Bidding, code: int, seat: Seat) -> Bidding:
    """The node after the decision ``code`` of ``seat`` at ``node``."""
    if code >= 0:
        return node.table.node(step, code, seat, 0, 0)
    if code == PASS:
        return node.table.node(step, node.last, node.last_seat, node.doubled, node.passes + 1)
    return node.table.node(step, node.last, node.last_seat, 1 if code == DOUBLE else 2, 0)


def _record(s: State, table: CallTable, decisions: int) -> tuple[tuple[Seat, int], ...]:
    """The last ``decisions`` actions of the state's history as an auction's record."""
    history = s._history
    codes = table.codes
    return tuple([(seat, codes[text]) for seat, text in history[len(history) - decisions :]])


def _finish(step: AuctionStep, s: State) -> bool:
    """Close the auction and write its outputs into their table variables; True (the step is over)."""
    node: Bidding = s.auction
    table = node.table
    record = _record(s, table, s.acted)
    s.auction = Closed(table, record, node.last, node.last_seat, node.doubled, s.round)
    values = table.values
    contract = caller = declarer = None
    if node.last >= 0:
        contract, caller = values[node.last], node.last_seat
        if step.declarer is not None:
            strain = step.strain
            if strain is None:
                same = [seat for seat, code in record if code >= 0 and values[code] == contract]
            else:
                target = strain(s, contract)
                same = [seat for seat, code in record if code >= 0 and strain(s, values[code]) == target]
            team = table.team_of
            declarer = next(seat for seat in same if team[seat] == team[caller])
    tv = s.table_vars  # the outputs the step names
    if step.contract is not None:
        tv[step.contract.index] = contract
    if step.caller is not None:
        tv[step.caller.index] = caller
    if step.declarer is not None:
        tv[step.declarer.index] = declarer
    if step.doubled is not None:
        tv[step.doubled.index] = node.doubled if node.last >= 0 else 0
    return True


def _running_record(s: State) -> tuple[CallTable, tuple[tuple[Seat, int], ...]] | None:
    """The call table and record of the round's running or last auction (None: none this round)."""
    a = s.auction
    if a is None:
        return None
    if a.__class__ is Closed:
        return (a.table, a.record) if a.round == s.round else None
    return a.table, _record(s, a.table, s.acted)


def auction_view(s: State) -> list[AuctionCall]:
    """The auction of the current round so far, as every seat sees it: one entry per decision,
    ``{"seat": 1, "kind": "call", "call": "1H"}``; ``kind`` is ``call``, ``pass``, ``double`` or
    ``redouble``, and ``call`` the call made, doubled or redoubled (null for a pass). Empty
    before the round's first auction step."""
    got = _running_record(s)
    if got is None:
        return []
    table, record = got
    values = table.values
    out: list[AuctionCall] = []
    last = None
    for seat, code in record:
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
    a: Bidding = s.auction
    table, last = a.table, a.last
    shown = table.values[last] if last >= 0 else None
    if text in ("double", "redouble") and not step.double:
        return f"this auction has no {text}s: call higher or say {step.pass_text!r}"
    if text == "double":
        if last < 0:
            return "there is no call to double yet"
        if a.doubled:
            return f"{shown} is already {'doubled' if a.doubled == 1 else 'redoubled'}"
        return "you may only double an opponent's call"
    if text == "redouble":
        if last < 0:
            return "there is no call to redouble yet"
        if a.doubled == 0:
            return f"{shown} is not doubled: only a doubled call may be redoubled"
        if a.doubled == 2:
            return f"{shown} is already redoubled"
        return "you may only redouble your own side's doubled call"
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
