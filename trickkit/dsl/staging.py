"""Staged card tests: a rule like ``must_play_if_able`` compiled into a filter over a whole hand.

A card test such as ``if len(trick) == 0 then card.heads != 5 else card.rank < lead.rank``
mostly reads the state, which holds still while the engine tests every card of a hand.
Staging splits it in two: the parts that do not read ``card`` run once per decision, and
the rest becomes one pass over the hand, e.g. ``[c for c in hand if rank[c] < v]``.

A staged filter is ``flt(state, frame, cards) -> list[int]``: the cards of ``cards`` (in
their order) for which the test is true, exactly as calling the compiled test on each card
would decide. Constructs that cannot be staged fall back to calling the test per card.
The engine stages only texts that compiled without error, and re-runs the test per card
if a staged filter raises, so errors are reported as the per-card test reports them.
"""

from __future__ import annotations

from typing import Any, Callable

import lark

from .compiler import Compiler, DSLCompileError, _is_const, _Scope
from .parser import DSLSyntaxError, parse

CardFilter = Callable[[Any, list, list], list]


def _all(s, fr, cards):
    return list(cards)


def _none(s, fr, cards):
    return []


def card_filter(compiler: Compiler, text: str, context) -> tuple[CardFilter, int] | None:
    """Stage ``text``, a test of the first context name (a card), as a hand filter.

    Returns ``(filter, frame_size)``, or None when the text does not compile (the plain
    compile of the same text reports why).
    """
    scope = _Scope(context)
    stager = _Stager(compiler, scope.lookup(context[0][0]).slot, context[0][0])
    try:
        flt = stager.stage(parse(str(text), "expr"), scope, ())
    except (DSLSyntaxError, DSLCompileError, RecursionError):
        return None
    return flt, scope.size


class _Stager:
    def __init__(self, compiler: Compiler, slot: int, card_name: str):
        self.c = compiler
        self.slot = slot
        self.card_name = card_name
        self._mentions: dict[int, bool] = {}  # id(node) -> mentions the card
        self._def_mentions: dict[str, bool] = {}

    def compile(self, node, scope, defs):
        """Compile a subtree; also say whether it reads the card."""
        mark = len(self.c._reads)
        fn, typ = self.c._expr(node, scope, defs)
        return fn, self.slot in self.c._reads[mark:]

    def mentions_card(self, node) -> bool:
        """Does ``node`` name the card, itself or through a definition? (Decided on the text,
        so each subtree is compiled once: a loop variable called like the card counts too,
        which only costs speed.)"""
        if not isinstance(node, lark.Tree):
            return False
        known = self._mentions.get(id(node))
        if known is None:
            known = self._mentions[id(node)] = self._scan(node)
        return known

    def _scan(self, node) -> bool:
        if node.data in ("name", "call"):
            name = str(node.children[0])
            if name == self.card_name:
                return True
            if name in self.c._def_trees:
                if name not in self._def_mentions:
                    self._def_mentions[name] = True  # while scanning it (a cycle is an error anyway)
                    self._def_mentions[name] = self.mentions_card(self.c._def_trees[name])
                if self._def_mentions[name]:
                    return True
        return any(self.mentions_card(child) for child in node.children)

    def stage(self, node, scope, defs) -> CardFilter:
        kind = node.data if isinstance(node, lark.Tree) else None
        method = getattr(self, f"_s_{kind}", None)
        if method is not None:
            flt = method(node, scope, defs)
            if flt is not None:
                return flt
        return self.per_card(node, scope, defs)

    def per_card(self, node, scope, defs) -> CardFilter:
        fn, reads_card = self.compile(node, scope, defs)
        if _is_const(fn):
            return _all if fn.const_value else _none
        if not reads_card:  # the same answer for every card: ask once
            return lambda s, fr, cards: list(cards) if fn(s, fr) else []
        slot = self.slot

        def each(s, fr, cards):
            out = []
            for c in cards:
                fr[slot] = c
                if fn(s, fr):
                    out.append(c)
            return out
        return each

    # -- the constructs staged --------------------------------------------------------
    def _s_name(self, node, scope, defs):
        name = str(node.children[0])
        if scope.lookup(name) is not None or name not in self.c._def_trees or self.c.ns.definition_params.get(name):
            return None
        if name in defs:
            return None  # the plain compile reports the cycle
        return self.stage(self.c._def_trees[name], scope.globals_only(), defs + (name,))

    def _s_if_expr(self, node, scope, defs):
        cond, a, b = node.children
        if self.mentions_card(cond):
            return None
        cf, _ = self.compile(cond, scope, defs)
        fa, fb = self.stage(a, scope, defs), self.stage(b, scope, defs)
        if _is_const(cf):
            return fa if cf.const_value else fb
        return lambda s, fr, cards: fa(s, fr, cards) if cf(s, fr) else fb(s, fr, cards)

    def _s_and_(self, node, scope, defs):
        a, b = node.children
        cf = self._condition(a, scope, defs)
        if cf is not None:  # `rule_applies and card test`: decide once whether to filter at all
            fb = self.stage(b, scope, defs)
            return lambda s, fr, cards: fb(s, fr, cards) if cf(s, fr) else []
        fa, fb = self.stage(a, scope, defs), self.stage(b, scope, defs)

        def both(s, fr, cards):
            first = fa(s, fr, cards)
            return fb(s, fr, first) if first else first
        return both

    def _s_or_(self, node, scope, defs):
        a, b = node.children
        cf = self._condition(a, scope, defs)
        if cf is not None:  # `no_rule_applies or card test`: every card, or the filter
            fb = self.stage(b, scope, defs)
            return lambda s, fr, cards: list(cards) if cf(s, fr) else fb(s, fr, cards)
        fa, fb = self.stage(a, scope, defs), self.stage(b, scope, defs)

        def either(s, fr, cards):
            first = fa(s, fr, cards)
            if len(first) == len(cards):
                return first
            passed = set(first)
            second = set(fb(s, fr, [c for c in cards if c not in passed]))
            return [c for c in cards if c in passed or c in second]
        return either

    def _condition(self, node, scope, defs):
        """The compiled ``node`` if it does not name the card (one answer for all cards), else None."""
        if self.mentions_card(node):
            return None
        fn, _ = self.compile(node, scope, defs)
        return None if _is_const(fn) else fn  # constants: left to stage() so they fold away

    def _s_not_(self, node, scope, defs):
        fa = self.stage(node.children[0], scope, defs)

        def negated(s, fr, cards):
            passed = set(fa(s, fr, cards))
            return [c for c in cards if c not in passed]
        return negated

    def _s_compare(self, node, scope, defs):
        left, op_tok, right = node.children
        op = str(op_tok)
        table = self._card_attr(left, scope)
        other = right
        if table is None:
            table, other = self._card_attr(right, scope), left
            op = _FLIPPED[op]
        if table is None or self.mentions_card(other):
            return None
        vf, _ = self.compile(other, scope, defs)
        return _attr_filter(table, op, vf)

    def _s_contains(self, node, scope, defs):
        elem, coll = node.children
        table = self._card_attr(elem, scope)
        if table is None or self.mentions_card(coll):
            return None
        cf, _ = self.compile(coll, scope, defs)

        def member(s, fr, cards):
            values = cf(s, fr)
            if values is None:
                return []
            return [c for c in cards if table[c] in values]
        return member

    def _card_attr(self, node, scope):
        """The attribute table when ``node`` is ``card.attr`` of the staged card, else None."""
        if not (isinstance(node, lark.Tree) and node.data == "attr"):
            return None
        base, attr = node.children
        if not (isinstance(base, lark.Tree) and base.data == "name"):
            return None
        local = scope.lookup(str(base.children[0]))
        if local is None or local.slot != self.slot or local.type != "card":
            return None
        return self.c.ns.card_attrs.get(str(attr))


_FLIPPED = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _attr_filter(table, op: str, vf) -> CardFilter:
    """``[c for c in cards if table[c] OP v]`` with ``v`` computed once; null never orders."""
    if op == "==":
        def eq(s, fr, cards):
            v = vf(s, fr)
            return [c for c in cards if table[c] == v]
        return eq
    if op == "!=":
        def ne(s, fr, cards):
            v = vf(s, fr)
            return [c for c in cards if table[c] != v]
        return ne

    def ordered(s, fr, cards):
        v = vf(s, fr)
        if v is None:
            return []
        if op == "<":
            return [c for c in cards if (x := table[c]) is not None and x < v]
        if op == ">":
            return [c for c in cards if (x := table[c]) is not None and x > v]
        if op == "<=":
            return [c for c in cards if (x := table[c]) is not None and x <= v]
        return [c for c in cards if (x := table[c]) is not None and x >= v]
    return ordered
