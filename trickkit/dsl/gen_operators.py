"""Code generation for the operators: ``if``/``else``, ``??``, ``and``/``or``/``not``, comparisons, ``in``, arithmetic.

Each keeps the DSL's null rules (an ordering with a null side is false, ``x in null`` is
false) and evaluates as little as the DSL text does; constants fold at load, and a literal
compared with a card attribute or a choice parameter is checked against its values.
"""

from __future__ import annotations

import operator
import re
from typing import TypeGuard

import attrs
import lark

from trickkit.dsl.body import (
    MAX_FOLDED_INT_BITS,
    SIMPLE,
    Line,
)
from trickkit.dsl.gen_expr import ExprMixin
from trickkit.dsl.scope import Scope
from trickkit.dsl.types import (
    NOT_CONST,
    Defs,
    Node,
    Tree,
    Val,
    check_comparable,
    error_at,
    is_bool,
    is_list,
    need_number,
    text_value,
    unify,
    union_values,
)

_SCALARS = ("int", "str", "bool", "card")
"""Types of an item `in` tests without walking it: the charge of `runtime.contains` is the list's length."""

_PLAIN_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|-?[0-9]+)$")
"""A local or a number: read after the charge as well as before it (it cannot fail)."""

_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod}


_SMALL_FACTOR_BOUND = (1 << 30) - 1
"""A product of a constant below 2**16 and an int below this is computed inline (`_small_factor`);
the bound is a one-digit int of CPython, which compares fastest."""


def _small_factor(a: Val, b: Val) -> tuple[str, Val] | None:
    """``(code of the constant, the other factor)`` when one factor of ``a * b`` is an int constant
    below 2**16 and the other an int that is never null and not a constant; else None."""
    for c, x in ((a, b), (b, a)):
        if (
            c.is_const
            and c.const.__class__ is int
            and abs(c.const) < 1 << 16
            and x.type == "int"
            and not x.nullable
            and not x.is_const
        ):
            return repr(c.const), x
    return None


def _sized(code: str) -> str | None:
    """``X`` of code ``_len(X)`` as a whole (the length of a list that is there, see
    `ExprMixin._e_call`), else None."""
    if not (code.startswith("_len(") and code.endswith(")")):
        return None
    depth = 0
    for i, ch in enumerate(code):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(code) - 1:
                return None  # ``_len(a) + _len(b)``: not one call
    inner = code[5:-1]
    return None if "'" in inner or '"' in inner else inner


def _is_text_literal(node: Node) -> TypeGuard[Tree]:
    """Is ``node`` a text written in the rule itself (not a parameter or a definition)?"""
    return isinstance(node, lark.Tree) and node.data == "str_lit"


class OperatorsMixin(ExprMixin):
    """Conditionals, logic, comparisons, membership and arithmetic (see the module docstring)."""

    def _e_if_expr(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        c = self._expr(node.children[0], scope, defs)
        if c.is_const:  # a parameter decides the branch once and for all
            for label, taken in (("then", bool(c.const)), ("else", not c.const)):
                self._site(node.children[0], "if-expression", label, "always" if taken else "never", node.children[0])
            chosen = self._expr(node.children[1 if c.const else 2], scope, defs)
            other = self._dry(node.children[2 if c.const else 1], scope, defs)
            return attrs.evolve(chosen, type=unify(chosen.type, other.type))
        a, alines = self._capture(lambda: self._expr(node.children[1], scope, defs))
        b, blines = self._capture(lambda: self._expr(node.children[2], scope, defs))
        if self.coverage is not None:  # counters compiled in only when asked for
            a, b = (
                self._counted(node.children[0], "then", a, alines),
                self._counted(node.children[0], "else", b, blines),
            )
        t = unify(a.type, b.type)
        state = c.state or a.state or b.state
        free = c.free | a.free | b.free
        nullable = a.nullable or b.nullable
        values = union_values(a, b)
        if not alines and not blines:
            return Val(
                f"({self._code(a)} if {self._code(c)} else {self._code(b)})",
                t,
                nullable=nullable,
                state=state,
                free=free,
                values=values,
            )
        r = self.body.temp()
        self._emit(f"if {self._code(c)}:")
        self.body.lines.append([*alines, f"{r} = {self._code(a)}"])
        self._emit("else:")
        self.body.lines.append([*blines, f"{r} = {self._code(b)}"])
        return Val(r, t, nullable=nullable, state=state, free=free, values=values)

    def _e_coalesce(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        a = self._expr(node.children[0], scope, defs)
        if a.is_const and a.const is not None:
            b = self._dry(node.children[1], scope, defs)
            return attrs.evolve(a, type=unify(a.type, b.type))
        b, blines = self._capture(lambda: self._expr(node.children[1], scope, defs))
        t = unify(a.type, b.type)
        state, free = a.state or b.state, a.free | b.free
        if a.is_const:  # null ?? b
            self.body.lines.extend(blines)
            return attrs.evolve(b, type=t)
        x = self._simple(a)
        values = union_values(a, b)
        if not blines:
            return Val(
                f"({self._code(b)} if {x.code} is None else {x.code})",
                t,
                nullable=b.nullable,
                state=state,
                free=free,
                values=values,
            )
        r = self.body.temp()
        self._emit(f"{r} = {x.code}")
        self._emit(f"if {r} is None:")
        self.body.lines.append([*blines, f"{r} = {self._code(b)}"])
        return Val(r, t, nullable=b.nullable, state=state, free=free, values=values)

    def _logic(self, node: Tree, scope: Scope, defs: Defs, op: str) -> Val:
        a = self._expr(node.children[0], scope, defs)
        if a.is_const and bool(a.const) == (op == "or"):  # expressions have no side effects: fold
            self._dry(node.children[1], scope, defs)
            return Val(repr(op == "or"), "bool", op == "or", False)
        b, blines = self._capture(lambda: self._expr(node.children[1], scope, defs))
        if a.is_const:
            self.body.lines.extend(blines)
            return self._as_bool(b)
        if b.is_const and not blines:
            if bool(b.const) == (op == "or"):
                return Val(repr(op == "or"), "bool", op == "or", False)
            return self._as_bool(a)
        state, free = a.state or b.state, a.free | b.free
        if not blines:
            code = f"({self._code(a)} {op} {self._code(b)})"
            if not (is_bool(a) and is_bool(b)):
                code = f"(True if {code} else False)"
            return Val(code, "bool", nullable=False, state=state, free=free)
        r = self.body.temp()
        self._emit(f"{r} = {self._bool_code(a)}")
        self._emit(f"if {'' if op == 'and' else 'not '}{r}:")
        self.body.lines.append([*blines, f"{r} = {self._bool_code(b)}"])
        return Val(r, "bool", nullable=False, state=state, free=free)

    def _as_bool(self, v: Val) -> Val:
        if v.is_const:
            return Val(repr(bool(v.const)), "bool", bool(v.const), False)
        return Val(self._bool_code(v), "bool", nullable=False, state=v.state, free=v.free)

    def _bool_code(self, v: Val) -> str:
        code = self._code(v)
        return code if is_bool(v) else f"(True if {code} else False)"

    def _e_or_(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        return self._logic(node, scope, defs, "or")

    def _e_and_(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        return self._logic(node, scope, defs, "and")

    def _e_not_(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        a = self._expr(node.children[0], scope, defs)
        if a.is_const:
            return Val(repr(not a.const), "bool", not a.const, False)
        return Val(f"(not {self._code(a)})", "bool", nullable=False, state=a.state, free=a.free)

    def _e_neg(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        a = self._expr(node.children[0], scope, defs)
        need_number(node, a.type, "-")
        if a.is_const and isinstance(a.const, int):
            return Val(repr(-a.const), "int", -a.const, False)
        return Val(f"(-{self._code(a)})", "int", nullable=False, state=a.state, free=a.free)

    def _e_compare(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        left, op_tok, right = node.children
        op = str(op_tok)
        a = self._expr(left, scope, defs)
        if op in ("==", "!="):
            return self._compare(node, op, a, self._expr(right, scope, defs))
        # ordering: a null left side is false without computing the right side at all
        b, blines = self._capture(lambda: self._expr(right, scope, defs))
        if (a.is_const and a.const is None) or not a.nullable or (not blines and SIMPLE.match(self._code(b))):
            if not (a.is_const and a.const is None):
                self.body.lines.extend(blines)
            return self._compare(node, op, a, b)
        x = self._simple(a)
        v, vlines = self._capture(lambda: self._compare(node, op, attrs.evolve(x, nullable=False), b))
        r = self.body.temp()
        self._emit(f"{r} = False")
        self._emit(f"if {x.code} is not None:")
        self.body.lines.append(blines + vlines + [f"{r} = {v.code}"])
        return attrs.evolve(v, code=r, const=NOT_CONST)

    def _compare(self, node: Tree, op: str, a: Val, b: Val) -> Val:
        left, _, right = node.children
        state, free = a.state or b.state, a.free | b.free
        listed = _sized(a.code) if b.is_const and b.const == 0 and b.type == "int" else None
        if listed is not None and op in ("==", "!=", ">"):  # a list's emptiness: its truth, no call
            code = f"(not {listed})" if op == "==" else f"(not not {listed})"
            return Val(code, "bool", nullable=False, state=state, free=free)
        if op in ("==", "!="):
            check_comparable(node, a.type, b.type, op)
            if b.is_const and _is_text_literal(right):  # a literal, not a parameter ('none' may mean no suit)
                self._check_literal(node, a, b.const)
            if a.is_const and _is_text_literal(left):
                self._check_literal(node, b, a.const)
            if a.is_const and b.is_const:
                v = (a.const == b.const) == (op == "==")
                return Val(repr(v), "bool", v, False)
            if (
                (is_list(a.type) or a.type == "any")
                and (is_list(b.type) or b.type == "any")
                and (is_list(a.type) or is_list(b.type))
            ):  # two lists: charged by their items
                test = f"_eq(s, {self._code(a)}, {self._code(b)})"
                return Val(test if op == "==" else f"(not {test})", "bool", nullable=False, state=state, free=free)
            return Val(f"({self._code(a)} {op} {self._code(b)})", "bool", nullable=False, state=state, free=free)
        for t, side in ((a.type, left), (b.type, right)):
            if t not in ("int", "any", "null", "str"):
                raise error_at(side, f"cannot order {t} values with {op!r}")
        if {a.type, b.type} == {"int", "str"}:
            raise error_at(node, f"cannot order an int and a str with {op!r}")
        if (a.is_const and a.const is None) or (b.is_const and b.const is None):
            return Val("False", "bool", False, False)
        x = a if not (a.nullable or b.nullable) else self._simple(a)  # the left side first, as written
        y = b if not b.nullable else self._simple(b)
        tests = [f"{v.code} is not None" for v in (x, y) if v.nullable]
        tests.append(f"{self._code(x)} {op} {self._code(y)}")
        code = " and ".join(tests)
        return Val(f"({code})", "bool", nullable=False, state=state, free=free)

    def _e_contains(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        # the list first: when it is null the item is never computed (`x in null` is false)
        a, alines = self._capture(lambda: self._expr(node.children[0], scope, defs))
        b = self._expr(node.children[1], scope, defs)
        if not alines:
            return self._contains(node, a, self._simple(b) if not b.is_const else b)
        y = self._simple(b)
        v, vlines = self._capture(lambda: self._contains(node, a, attrs.evolve(y, nullable=False)))
        if not b.nullable:
            self.body.lines.extend(alines + vlines)
            return v
        r = self.body.temp()
        self._emit(f"{r} = False")
        self._emit(f"if {y.code} is not None:")
        self.body.lines.append(alines + vlines + [f"{r} = {v.code}"])
        return attrs.evolve(v, code=r)

    def _contains(self, node: Tree, a: Val, b: Val) -> Val:
        if not (is_list(b.type) or b.type == "null"):
            raise error_at(node.children[1], f"'in' needs a list on the right, got {b.type}")
        right = node.children[1]
        if b.is_const and isinstance(right, lark.Tree) and right.data == "list_lit":
            for item_node in right.children:
                if _is_text_literal(item_node):
                    self._check_literal(node, a, text_value(item_node.children[0]))
        state, free = a.state or b.state, a.free | b.free
        # a zone holds at most the deck, and a short constant list is short: plain `in`; any
        # other list may be long, so the test is charged to the budget like a loop over it
        plain = b.type == "zone" or (
            b.is_const and isinstance(b.const, list) and len(b.const) <= 64 and not is_list(a.type) and a.type != "any"
        )
        if not plain and a.type in _SCALARS and not b.is_const and SIMPLE.match(b.code):
            # `seat in used`: the charge of `_in` written out (an item that is no list adds nothing
            # to it), without a call; the item first, then the charge, as the call does
            r = self.body.temp()
            xa = self._code(a)
            charged: list[Line] = []
            if not _PLAIN_NAME.match(xa):
                charged.append(f"{r} = {xa}")
                xa = r
            charged += [
                f"s.budget -= _len({b.code})",
                "if s.budget < 0:",
                ["_over_budget()"],
                f"{r} = ({xa} in {b.code})",
            ]
            if b.nullable:
                self._emit(f"{r} = False")
                self._emit(f"if {b.code} is not None:")
                self.body.lines.append(charged)
            else:
                self.body.lines.extend(charged)
            return Val(r, "bool", nullable=False, state=state, free=free)
        if not b.nullable:
            if plain:
                code = self._code(b)
                if (
                    b.is_const
                    and len(b.const) >= 3
                    and a.type in ("int", "str")
                    and all(x.__class__ in (int, str) for x in b.const)
                ):  # `rank in [2, 3, 6]`: one hashed look-up, not a comparison per item (same result)
                    code = self._const_code(frozenset(b.const))
                return Val(f"({self._code(a)} in {code})", "bool", nullable=False, state=state, free=free)
            return Val(f"_in(s, {self._code(a)}, {self._code(b)})", "bool", nullable=False, state=state, free=free)
        y = self._simple(b)
        test = f"{self._code(a)} in {y.code}" if plain else f"_in(s, {self._code(a)}, {y.code})"
        return Val(f"({y.code} is not None and {test})", "bool", nullable=False, state=state, free=free)

    def _e_not_contains(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        v = self._e_contains(node, scope, defs)
        return attrs.evolve(v, code=f"(not {v.code})")

    def _e_binop(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        left, op_tok, right = node.children
        a, b = self._expr(left, scope, defs), self._expr(right, scope, defs)
        op = str(op_tok)
        state, free = a.state or b.state, a.free | b.free
        if op == "+" and (a.type == "str" or b.type == "str"):  # a card joins a text as its text ('C10')
            return Val(
                f"_cat(s, {self._text_code(a)}, {self._text_code(b)})", "str", nullable=False, state=state, free=free
            )
        if op == "+" and is_list(a.type) and is_list(b.type) and "any" not in (a.type, b.type):
            typ = "list[card]" if a.type == "zone" else a.type
            return Val(f"_join(s, {self._code(a)}, {self._code(b)})", typ, nullable=False, state=state, free=free)
        need_number(left, a.type, op)
        need_number(right, b.type, op)
        if a.is_const and b.is_const and isinstance(a.const, int) and isinstance(b.const, int):
            try:
                v = _ARITH[op](a.const, b.const)
            except ZeroDivisionError:  # left to fail, located, at play time
                v = None
            if v is not None and v.bit_length() <= MAX_FOLDED_INT_BITS:
                return Val(repr(v), "int", v, False)
        if op == "*":  # the one operator that can grow a number fast: bounded
            small = _small_factor(a, b)
            if small is not None:  # a small constant times an int below 2**30: far below the bound, no call
                k, other = small
                x = self._simple(other)
                bound = _SMALL_FACTOR_BOUND
                code = f"({k} * {x.code} if {-bound} < {x.code} < {bound} else _mul({k}, {x.code}))"
                return Val(code, "int", nullable=False, state=state, free=free)
            return Val(f"_mul({self._code(a)}, {self._code(b)})", "int", nullable=False, state=state, free=free)
        code = f"({self._code(a)} {op} {self._code(b)})"
        known = self.body.ranges.get(a.code) if op in ("+", "-") and b.const.__class__ is int else None
        if known is not None:  # a value known to lie in lo..hi, plus a constant: known too
            k = b.const if op == "+" else -b.const
            self.body.ranges[code] = (known[0] + k, known[1] + k)
            if known[0] + k >= 0:
                self.body.bounded[code] = known[1] + k + 1
        return Val(code, "int", nullable=False, state=state, free=free)
