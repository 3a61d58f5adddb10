"""Aggregates over a collection (``any``, ``count``, ``first``, ``highest`` ...) as closures.

``name(E for x in C if P by K)`` runs a loop that stores each item in the frame slot of
``x`` and calls the closures of ``E``, ``P`` and ``K``. Most aggregates in rulesets are
simpler than that: ``first(p for p in trick if p.kind == 'mermaid')``,
``sum(p.heads for p in trick)``. When ``E``, ``P`` or ``K`` only read an attribute of the
item (and ``P`` compares it with a value that does not depend on the item), the loop reads
the attribute straight from its table instead of calling closures: the same answers with
a few closure calls per aggregate instead of a few per item.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import attrs

Closure = Callable[[Any, list], Any]
Getter = Callable[[Any], Any]
"""Reads one value from an item (a card id or a play tuple), without the frame."""

IDENTITY = "identity"
"""Marks an element that is the item itself (``first(p for p in ...)``)."""


@attrs.frozen
class ItemTest:
    """``getter(item) OP value`` where ``value`` is computed once per aggregate call."""

    getter: Getter
    op: str  # ==, !=, <, <=, >, >= or in
    value: Closure


@attrs.frozen
class FastParts:
    """The item-only parts of an aggregate (None where the general closure is needed)."""

    elem: Getter | str | None = None  # a Getter, IDENTITY or None
    test: ItemTest | None = None
    key: Getter | None = None
    elem_test: ItemTest | None = None  # E itself is an item test (``any(p.kind == 'x' for p in C)``)


def item_filter(test: ItemTest) -> Callable[[Any, list, list], list]:
    """``flt(s, fr, coll)``: the items of ``coll`` passing ``test``, in order."""
    g, vf, op = test.getter, test.value, test.op
    if op == "==":
        def eq(s, fr, coll):
            if not coll:
                return []
            v = vf(s, fr)
            return [x for x in coll if g(x) == v]
        return eq
    if op == "!=":
        def ne(s, fr, coll):
            if not coll:
                return []
            v = vf(s, fr)
            return [x for x in coll if g(x) != v]
        return ne
    if op == "in":
        def member(s, fr, coll):
            if not coll:
                return []
            v = vf(s, fr)
            if v is None:
                return []
            return [x for x in coll if g(x) in v]
        return member
    f = _ORDER[op]

    def ordered(s, fr, coll):  # null orders with nothing, as in the general comparison
        if not coll:
            return []
        v = vf(s, fr)
        if v is None:
            return []
        return [x for x in coll if (a := g(x)) is not None and f(a, v)]
    return ordered


def select(cf: Closure, test: ItemTest | None) -> Closure:
    """``select(s, fr)``: the items of ``C`` passing ``test`` (all of them without one), in order."""
    if test is None:
        return cf
    flt = item_filter(test)
    return lambda s, fr: flt(s, fr, cf(s, fr))


_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def make(name: str, cf: Closure, slot: int, ef: Closure, pf: Closure | None, kf: Closure | None,
         fast: FastParts) -> Closure:
    """The closure of ``name(E for x in C if P by K)``; ``cf`` already charges the budget.

    A fast loop tests every item and computes the compared value once, where the general
    loop stops at the first match and skips null attributes. The answers agree whenever
    both finish; when the fast loop raises (a value that cannot be computed, text ordered
    against a number), the general loop decides, so errors are reported exactly where the
    general loop would meet them, and not at all if it never does. The state's
    ``_slow`` flag, set during such a fallback, sends nested aggregates straight to their
    general loops.
    """
    general = _general(name, cf, slot, ef, pf, kf)
    quick = _fast(name, cf, slot, ef, pf, kf, fast)
    if quick is None:
        return general

    def fast_or_general(s, fr):
        if s._slow:  # inside another aggregate's general loop: no second attempts below it
            return general(s, fr)
        budget = s._budget
        try:
            return quick(s, fr)
        except Exception:
            # The general loop decides, charged as if it ran alone, and every aggregate
            # inside it goes straight to its general loop (else nested failures would
            # retry at every level: exponential).
            s._budget = budget
            s._slow = True
            try:
                return general(s, fr)
            finally:
                s._slow = False
    return fast_or_general


def _fast(name, cf, slot, ef, pf, kf, fast: FastParts) -> Closure | None:
    """The fast loop of an aggregate, or None when it needs the general loop."""
    if fast.test is None and pf is not None:  # a general condition: the general loop
        return None
    if name in ("any", "all") and fast.test is None and fast.elem_test is not None:
        flt = item_filter(fast.elem_test)  # `any(p.kind == 'x' for p in C)`: test the items directly
        if name == "any":
            return lambda s, fr: bool(flt(s, fr, cf(s, fr)))

        def every(s, fr):
            coll = cf(s, fr)
            return len(flt(s, fr, coll)) == len(coll)
        return every
    if fast.elem is None and name not in ("highest", "lowest", "first", "last"):
        return None  # (count too: the general loop computes E for every item, and E may fail)
    if name in ("highest", "lowest") and fast.key is None or name == "sorted":
        return None
    items = select(cf, fast.test)
    value = _elem_value(fast.elem, slot, ef)
    if name == "count":
        return lambda s, fr: len(items(s, fr))
    if name in ("first", "last"):
        pick = 0 if name == "first" else -1

        def one(s, fr):
            chosen = items(s, fr)
            return value(s, fr, chosen[pick]) if chosen else None
        return one
    if name in ("highest", "lowest"):
        key, better = fast.key, operator.gt if name == "highest" else operator.lt

        def extreme(s, fr):
            best = best_key = None
            found = False
            for x in items(s, fr):
                k = key(x)
                if k is not None and (not found or better(k, best_key)):
                    found, best, best_key = True, x, k
            return value(s, fr, best) if found else None
        return extreme
    values = _values(fast.elem, slot, ef, items)
    if name == "any":
        return lambda s, fr: any(values(s, fr))
    if name == "all":
        return lambda s, fr: all(values(s, fr))
    if name == "sum":
        return lambda s, fr: sum(values(s, fr))
    if name == "list":
        return lambda s, fr: list(values(s, fr))
    if name == "min":
        return lambda s, fr: min((v for v in values(s, fr) if v is not None), default=None)
    return lambda s, fr: max((v for v in values(s, fr) if v is not None), default=None)


def _elem_value(elem, slot, ef):
    """``value(s, fr, item)``: the element ``E`` for one chosen item."""
    if elem == IDENTITY:
        return lambda s, fr, x: x
    if elem is not None:
        return lambda s, fr, x: elem(x)

    def general(s, fr, x):
        fr[slot] = x
        return ef(s, fr)
    return general


def _values(elem, slot, ef, items):
    """``values(s, fr)``: the element ``E`` of every selected item, as a list."""
    if elem == IDENTITY:
        return items
    return lambda s, fr: [elem(x) for x in items(s, fr)]


def _general(name, cf, slot, ef, pf, kf) -> Closure:
    """The general loop: the item in its frame slot, ``E``, ``P`` and ``K`` as closures."""
    if name in ("any", "all", "count", "sum", "list", "min", "max"):
        def items(s, fr):
            for x in cf(s, fr):
                fr[slot] = x
                if pf is None or pf(s, fr):
                    yield ef(s, fr)
        if name == "any":
            return lambda s, fr: any(items(s, fr))
        if name == "all":
            return lambda s, fr: all(items(s, fr))
        if name == "count":
            return lambda s, fr: sum(1 for _ in items(s, fr))
        if name == "sum":
            return lambda s, fr: sum(items(s, fr))
        if name == "list":
            return lambda s, fr: list(items(s, fr))
        if name == "min":
            return lambda s, fr: min((v for v in items(s, fr) if v is not None), default=None)
        return lambda s, fr: max((v for v in items(s, fr) if v is not None), default=None)
    if name in ("first", "last"):
        def first(s, fr):
            for x in cf(s, fr):
                fr[slot] = x
                if pf is None or pf(s, fr):
                    return ef(s, fr)
            return None

        def last(s, fr):
            for x in reversed(list(cf(s, fr))):
                fr[slot] = x
                if pf is None or pf(s, fr):
                    return ef(s, fr)
            return None
        return first if name == "first" else last
    if name == "sorted":
        def sort(s, fr):
            keyed = []
            for x in cf(s, fr):
                fr[slot] = x
                if pf is None or pf(s, fr):
                    keyed.append((kf(s, fr), len(keyed), ef(s, fr)))
            keyed.sort(key=lambda t: (t[0] is None, t[0] if t[0] is not None else 0, t[1]))
            return [v for _, _, v in keyed]
        return sort
    better = operator.gt if name == "highest" else operator.lt

    def extreme(s, fr):
        best = best_key = None
        found = False
        for x in cf(s, fr):
            fr[slot] = x
            if pf is None or pf(s, fr):
                k = kf(s, fr)
                if k is None:
                    continue
                if not found or better(k, best_key):
                    found, best, best_key = True, x, k
        if not found:
            return None
        fr[slot] = best
        return ef(s, fr)
    return extreme
