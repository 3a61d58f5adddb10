"""Code generation for the value expressions: literals, attributes, indexing and calls.

Card and play attributes are reads of per-deck tables; indexes are bounds-checked (null when
out of range); built-in functions are calls of `trickkit.dsl.builtins` (charged to the budget
when they walk a long list), seat and team functions arithmetic or load-time tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import lark

from trickkit.dsl import builtins as B
from trickkit.dsl.body import (
    SEAT_LISTS,
)
from trickkit.dsl.gen_names import NamesMixin
from trickkit.dsl.scope import Scope
from trickkit.dsl.types import (
    NOT_CONST,
    PLAY_FIELDS,
    PLAY_INDEX,
    AttrValues,
    Defs,
    Node,
    Tree,
    Val,
    attr_type,
    describe_type,
    elem_type,
    error_at,
    is_list,
    text_value,
)
from trickkit.errors import did_you_mean

_TEAM_FUNCTIONS = ("partner", "team_of", "team_members")


_WALKING = frozenset({"str", "distinct", "concat", "index_of", "seat_holding"})
"""Built-ins whose work grows with the items of a list argument: charged to the budget."""


_HASHED = ("int", "str", "bool", "card")
"""Types of values that hash as they compare with numbers and texts (`ExprMixin._index_in_constant`)."""

_SEAT_ZONES = re.compile(r"^s\.seat_zones\[[0-9]+\]$")
_ZONE_FAMILY = re.compile(r"^s\.table_zones\[([0-9]+):([0-9]+)\]$")


def _may_be_long(v: Val) -> bool:
    """Can the list ``v`` hold more than the deck? A zone, or the game's own zones of each seat,
    hold at most the deck's cards; any other list (a rule built it) may be long."""
    return (is_list(v.type) or v.type == "any") and v.type != "zone" and _SEAT_ZONES.match(v.code) is None


def _team_table(name: str, team_of: Sequence[int] | None, n: int) -> tuple[Any, ...]:
    """The load-time table behind ``partner``/``team_of`` (by seat) or ``team_members`` (by team)."""
    team_of = tuple(team_of) if team_of is not None else tuple(range(n))
    members = tuple(tuple(s for s in range(n) if team_of[s] == t) for t in range(max(team_of, default=-1) + 1))
    if name == "team_of":
        return team_of
    if name == "team_members":
        return tuple(list(m) for m in members)
    partners = []
    for s in range(n):  # the next seat of the same team clockwise (the seat itself when it plays alone)
        clockwise = [(s + k) % n for k in range(1, n + 1)]
        partners.append(next(x for x in clockwise if team_of[x] == team_of[s]))
    return tuple(partners)


class ExprMixin(NamesMixin):
    """Literals, attributes, indexing and calls (see the module docstring)."""

    def _e_int_lit(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        try:
            digits = str(node.children[0])
            v = int(digits)
        except ValueError:  # over Python's limit on digits converted
            raise error_at(node, f"integer literal with {len(digits)} digits is too large") from None
        return Val(repr(v), "int", v, False)

    def _e_str_lit(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        v = text_value(node.children[0])
        return Val(repr(v), "str", v, False)

    def _e_true_lit(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        return Val("True", "bool", True, False)

    def _e_false_lit(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        return Val("False", "bool", False, False)

    def _e_null_lit(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        return Val("None", "null", None, True)

    def _e_list_lit(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        items = [self._expr(c, scope, defs) for c in node.children if c is not None]
        types = {v.type for v in items if v.type != "null"}
        et = types.pop() if len(types) == 1 else "any"
        if all(v.is_const for v in items):
            value = [v.const for v in items]
            return Val(self._const_code(value), f"list[{et}]", value, False)
        return Val(
            "[" + ", ".join(self._code(v) for v in items) + "]",
            f"list[{et}]",
            nullable=False,
            length=len(items),
            items_there=not any(v.nullable for v in items),
            state=any(v.state for v in items),
            free=frozenset().union(*(v.free for v in items)),
        )

    def _e_attr(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        base, attr_tok = node.children
        attr = str(attr_tok)
        b = self._expr(base, scope, defs)
        bt = b.type
        read: Callable[[str], str]  # the code reading the attribute of the value whose code is given
        if bt in ("card", "play") or (bt == "any" and (attr in self.ns.card_attrs or attr in PLAY_FIELDS)):
            if bt == "card":
                table = self.ns.card_attrs.get(attr)
                if table is None:
                    raise error_at(
                        attr_tok,
                        f"cards have no attribute {attr!r}{did_you_mean(attr, self.ns.card_attrs)} "
                        f"(their attributes: {', '.join(self.ns.card_attrs)})",
                    )
                tn = self._table(table)
                result_type, nullable = attr_type(table), None in table
                read = lambda x: f"{tn}[{x}]"  # noqa: E731
            elif bt == "play":
                if attr in PLAY_INDEX:
                    k = PLAY_INDEX[attr]
                    result_type, nullable = PLAY_FIELDS[attr], False
                    read = lambda x: f"{x}[{k}]"  # noqa: E731
                elif attr == "mode":
                    tn = self._table(self.ns.face_mode)
                    result_type, nullable = "str", True
                    read = lambda x: f"{tn}[{x}[2]]"  # noqa: E731
                else:
                    table = self.ns.face_attrs.get(attr)
                    if table is None:
                        known = list(PLAY_FIELDS) + list(self.ns.face_attrs)
                        raise error_at(
                            attr_tok,
                            f"plays have no attribute {attr!r}{did_you_mean(attr, known)} "
                            f"(their attributes: {', '.join(known)})",
                        )
                    tn = self._table(table)
                    result_type, nullable = attr_type(table), None in table
                    read = lambda x: f"{tn}[{x}[2]]"  # noqa: E731
            else:  # type unknown at load (e.g. a choice seen from a definition): decide per value
                ctable = self.ns.card_attrs.get(attr)
                ftable = self.ns.face_attrs.get(attr)
                args = [
                    self._code(b),
                    self._table(ctable) if ctable is not None else "None",
                    self._table(ftable) if ftable is not None else "None",
                    repr(PLAY_INDEX.get(attr)),
                ]
                return Val(f"_attr_any({', '.join(args)})", "any", state=b.state, free=b.free)
            values = self._attr_values(attr, bt)
            if b.is_const and b.const is None:
                return Val("None", result_type, None, True)
            if not b.nullable:
                return Val(
                    read(self._code(b)), result_type, nullable=nullable, state=b.state, free=b.free, values=values
                )
            card_at = self.body.cards_at.get(b.code)
            if card_at is not None:  # `pile[-1].rank`: read where the card is taken, one test for both
                item, test = card_at
                return Val(
                    f"({read(item)} if {test} else None)",
                    result_type,
                    state=b.state,
                    free=b.free,
                    values=values,
                )
            x = self._simple(b)
            return Val(
                f"(None if {x.code} is None else {read(x.code)})",
                result_type,
                state=b.state,
                free=b.free,
                values=values,
            )
        raise error_at(
            attr_tok, f"cannot take attribute {attr!r} of a {bt} value (only cards and plays have attributes)"
        )

    def _attr_values(self, attr: str, base_type: str) -> AttrValues | None:
        """``(attr, texts)``: the text values a card attribute takes (to check literals against)."""
        table: Sequence[Any] | None
        if attr == "mode":
            table = self.ns.face_mode
        else:
            table = (self.ns.card_attrs if base_type == "card" else self.ns.face_attrs).get(attr)
        if table is None or attr_type(table) != "str":
            return None
        if self.ns.attr_values is not None and attr in self.ns.attr_values:
            return attr, self.ns.attr_values[attr]
        return attr, frozenset(v for v in table if v is not None)

    def _check_literal(self, node: Node, attr_val: Val, lit: Any) -> None:
        """A text literal compared with a card attribute must be one of its values."""
        if attr_val.values is None or not isinstance(lit, str) or isinstance(lit, bool):
            return
        attr, values = attr_val.values
        if lit in values:
            return
        if isinstance(attr, tuple):  # a parameter of type choice
            shown = ", ".join(repr(v) for v in sorted(values))
            raise error_at(
                node,
                f"parameter {attr[1]!r} is never {lit!r}{did_you_mean(lit, sorted(values))}; its choices are {shown}",
            )
        alias = self.ns.attr_aliases.get(attr, {}).get(lit)
        hint = f" (did you mean {alias!r}?)" if alias in values else did_you_mean(lit, sorted(values))
        shown = ", ".join(repr(v) for v in sorted(values)[:12]) + (" ..." if len(values) > 12 else "")
        raise error_at(node, f"no card has {attr} {lit!r}{hint}; the values are {shown}")

    def _e_index(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        base, idx = node.children
        x = self._expr(idx, scope, defs)
        family = self._family(base, scope)
        if family is not None and x.type in ("int", "any"):
            start, count = family
            if x.is_const:
                ok = isinstance(x.const, int) and 0 <= x.const < count
                return Val(
                    f"s.table_zones[{start + x.const}]" if ok else "None",
                    "zone",
                    NOT_CONST if ok else None,
                    nullable=not ok,
                    state=True,
                )
            if self.body.bounded.get(x.code, count + 1) <= count:  # a loop variable surely in range
                return Val(f"s.table_zones[{start} + {x.code}]", "zone", nullable=False, state=True, free=x.free)
            xs = self._simple(x)
            test = f"{xs.code} is not None and 0 <= {xs.code} < {count}" if x.nullable else f"0 <= {xs.code} < {count}"
            return Val(f"(s.table_zones[{start} + {xs.code}] if {test} else None)", "zone", state=True, free=x.free)
        b = self._expr(base, scope, defs)
        if x.type not in ("int", "any", "null"):
            raise error_at(idx, f"an index must be an int, got {x.type}")
        if not is_list(b.type):
            raise error_at(base, f"cannot index a {b.type} value")
        et = elem_type(b.type)
        state, free = b.state or x.state, b.free | x.free
        if x.is_const and isinstance(x.const, int) and not isinstance(x.const, bool):  # `trick[0]`, `row[-1]`
            if b.is_const and b.const is None:  # `piles[9][0]`: no `None[0]` in generated code
                return Val("None", et, None, True)
            i = x.const
            if 0 <= i < self.ns.num_players and SEAT_LISTS.match(b.code):  # `hand[0]`: a seat, in range
                return Val(f"{b.code}[{i}]", et, nullable=et != "zone", state=True, free=free)
            bs = self._simple(b)
            test = bs.code if i in (0, -1) else f"{i} < _len({bs.code})" if i >= 0 else f"{-i} <= _len({bs.code})"
            if b.nullable:
                test = f"{bs.code} is not None and {test}"
            code = f"({bs.code}[{i}] if {test} else None)"
            if b.type == "zone":  # a zone holds cards, never null: null here only when the test fails
                self.body.cards_at[code] = (f"{bs.code}[{i}]", test)
            return Val(code, et, state=state, free=free)
        if self._is_seat(x.code) and SEAT_LISTS.match(b.code):  # `hand[current_player]`: always in range
            return Val(f"{b.code}[{x.code}]", et, nullable=et != "zone", state=True, free=free)
        # a seat list holds one item per seat: its length is the seat count, known here
        size = str(self.ns.num_players) if SEAT_LISTS.match(b.code) else None
        # the common `score[s]` (or a seat list by a nullable seat, `court_up[target]`): no call
        # when the index is in range
        if not b.nullable and (not x.nullable or size):
            if size and self.body.falls_back and not x.nullable:  # out of range raises: the general path gives null
                if self.body.hoist is not None and not b.free:  # the list itself read once, before the loops
                    b = self._hoisted(b, [])
                return Val(f"{b.code}[{self._code(x)}]", et, state=state, free=free)
            bs, xs = b if size else self._simple(b), self._simple(x)  # `s.seat_vars[0]` is read only once
            test = f"0 <= {xs.code} < {size or f'_len({bs.code})'}"
            if x.nullable:
                test = f"{xs.code} is not None and {test}"
            return Val(
                f"({bs.code}[{xs.code}] if {test} else _index({bs.code}, {xs.code}))",
                et,
                state=state,
                free=free,
            )
        return Val(f"_index({self._code(b)}, {self._code(x)})", et, state=state, free=free)

    def _e_call(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        name_tok, *args = node.children
        args = [a for a in args if a is not None]
        name = str(name_tok)
        vals = [self._expr(a, scope, defs) for a in args]
        state, free = any(v.state for v in vals), frozenset().union(*(v.free for v in vals))
        if name in B.SEAT_FUNCTIONS:
            params = B.SEAT_FUNCTIONS[name][0]
            self._check_arity(node, name, params, vals)
            n = self.ns.num_players
            if name in _TEAM_FUNCTIONS:  # tables fixed at load: a seat out of range (or null) gives null
                values = _team_table(name, self.ns.team_of, n)
                x = self._simple(vals[0])
                test = f"0 <= {x.code} < {len(values)}"
                if vals[0].nullable:
                    test = f"{x.code} is not None and {test}"
                code = f"({self._const_code(values)}[{x.code}] if {test} else None)"
                typ = "list[int]" if name == "team_members" else "int"
                return Val(code, typ, nullable=True, state=state, free=free)
            codes = [self._code(v) for v in vals]
            if name == "left_of":
                code = f"(({codes[0]}) + 1) % {n}"
            elif name == "right_of":
                code = f"(({codes[0]}) - 1) % {n}"
            else:
                code = f"(({codes[0]}) + ({codes[1]})) % {n}"
            self.body.seats.add(code)  # an int modulo the seat count (or an error): a seat for sure
            return Val(code, "int", nullable=False, state=state, free=free)
        if name in self.ns.definition_params and name in self._def_trees:
            return self._call_definition(node, name, vals, scope, defs)
        if name == "can":
            self._check_arity(node, name, ("str",), vals)
            kind_node = args[0]
            if not (isinstance(kind_node, lark.Tree) and kind_node.data == "str_lit"):
                raise error_at(kind_node, "can() takes the name of an action kind in quotes, e.g. can('place')")
            kind = text_value(kind_node.children[0])
            if kind not in self.ns.action_kinds:
                raise error_at(kind_node, f"no action kind {kind!r}{did_you_mean(kind, self.ns.action_kinds)}")
            self.asked_kinds.add(kind)
            return Val(f"_can(s, {kind!r})", "bool", nullable=False, state=True)
        if name == "card_named":
            return self._card_named(node, args, vals)
        b = B.FUNCTIONS.get(name)
        if b is None:
            if name in B.AGGREGATES:
                raise error_at(name_tok, f"{name}() takes a generator: {B.AGGREGATES[name].example}")
            known = list(B.FUNCTIONS) + list(B.SEAT_FUNCTIONS) + list(B.AGGREGATES) + ["can"]
            if name in B.EFFECTS:
                raise error_at(
                    name_tok, f"{name}() is an effect: use it as a statement in a block, not in an expression"
                )
            raise error_at(name_tok, f"unknown function {name!r}{did_you_mean(name, known)}")
        self._check_arity(node, name, b.params, vals)
        result = vals[0].type if b.result == "arg0" else b.result
        if b.result == "concat":
            inner = elem_type(vals[0].type)
            if inner not in ("any", "null") and not is_list(inner):
                raise error_at(args[0], f"concat() joins a list of lists (e.g. concat(court)), got a list of {inner}")
            result = inner if is_list(inner) else "list[any]"
            if result == "zone":
                result = "list[card]"
        if name == "len":  # a zone family, or a zone of every seat: as many as the game has, known now
            family = _ZONE_FAMILY.match(vals[0].code)
            count = int(family[2]) - int(family[1]) if family else None
            if count is None and _SEAT_ZONES.match(vals[0].code):
                count = self.ns.num_players
            if count is not None:
                return Val(repr(count), "int", count, False)
            if not vals[0].nullable and is_list(vals[0].type) and vals[0].type != "any":
                # a list that is there: `_len` (the same len), whose emptiness a comparison
                # with 0 may test as the list's truth (see `GenOperators._compare`)
                return Val(f"_len({self._code(vals[0])})", "int", nullable=False, state=state, free=free)
        nullable = name in ("index_of", "seat_holding") or result == "any"
        code_of = self._text_code if name == "str" else self._code  # str(card) is its text
        listed = ", ".join(code_of(v) for v in vals)
        if name == "distinct" and elem_type(vals[0].type) in ("int", "str", "bool", "card") and _may_be_long(vals[0]):
            # single values: charged their number, deduplicated, in one helper call
            return Val(f"_distinct_items(s, {listed})", result, nullable=nullable, state=state, free=free)
        if name == "index_of":
            looked_up = self._index_in_constant(vals)
            if looked_up is not None:
                return looked_up
        if name in _WALKING and any(_may_be_long(v) for v in vals):
            # the built-in walks a list: charged by its items, as a loop over it would be
            return Val(f"_charged(s, _fn_{name}, {listed})", result, nullable=nullable, state=state, free=free)
        return Val(f"_fn_{name}({listed})", result, nullable=nullable, state=state, free=free)

    def _index_in_constant(self, vals: list[Val]) -> Val | None:
        """``index_of(LIST, x)`` of a constant list of numbers and texts (``index_of(all_calls,
        contract)``) and a number, text or card: one hashed look-up in a table of first positions
        made now, not a walk of the list (the same answer: those values hash as they compare).
        Charged as `charged_call` charges the call: the list's items, after ``x`` is computed.
        None for any other call (the general helper)."""
        xs, x = vals
        if not (
            xs.is_const
            and isinstance(xs.const, list)
            and x.type in _HASHED
            and all(v.__class__ in (int, str) for v in xs.const)
        ):
            return None
        first: dict[Any, int] = {}
        for i, v in enumerate(xs.const):
            first.setdefault(v, i)
        table, key = self._const_code(first), self._simple(x)
        if _may_be_long(xs):  # (every constant list is: `_charged` charged its items)
            self.body.lines += [f"s.budget -= {len(xs.const)}", "if s.budget < 0:", ["_over_budget()"]]
        code = f"({table}[{key.code}] if {key.code} in {table} else None)"
        return Val(code, "int", nullable=True, state=xs.state or x.state, free=xs.free | x.free)

    _TEXTED = ("card", "play", "list[card]", "list[play]", "zone")

    def _text_code(self, v: Val) -> str:
        """Code for ``v`` as text is made of it: a card (or a play, or a list of them) by its
        canonical text (``C10``), not its internal number; other values as they are."""
        texts = self.ns.card_attrs.get("text")
        if v.type not in self._TEXTED or texts is None:
            return self._code(v)
        return f"_card_text({self._code(v)}, {self._table(texts)})"

    def _card_named(self, node: Tree, args: list[Node], vals: list[Val]) -> Val:
        """``card_named('C2')``: the card with that text, checked at load (a constant)."""
        self._check_arity(node, "card_named", ("str",), vals)
        lit = args[0]
        if not (isinstance(lit, lark.Tree) and lit.data == "str_lit"):
            raise error_at(lit, "card_named() takes a card's text in quotes, e.g. card_named('C2')")
        text = vals[0].const
        texts = self.ns.card_attrs.get("text", ())
        ids = [i for i, t in enumerate(texts) if t == text]
        if len(ids) > 1:
            raise error_at(
                lit,
                f"card_named({text!r}): the deck has {len(ids)} copies of {text!r}, so no one card "
                f"has that name; test the text instead: card.text == {text!r}",
            )
        if not ids:
            every = (self.ns.attr_values or {}).get("text", frozenset())
            if text in every:  # in the deck only with other parameter values: no such card in this game
                return Val("None", "card", None, True)
            same_letters = [t for t in dict.fromkeys(texts) if t.lower() == text.lower()]  # 'c2' for 'C2'
            hint = f" (did you mean {same_letters[0]!r}?)" if same_letters else did_you_mean(text, sorted(set(texts)))
            raise error_at(lit, f"no card has the text {text!r}{hint}")
        return Val(repr(ids[0]), "card", ids[0], False)

    def _check_arity(self, node: Tree, name: str, params: Sequence[str], vals: list[Val]) -> None:
        if len(params) != len(vals):
            raise error_at(
                node, f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''}, got {len(vals)}"
            )
        for p, v, a in zip(params, vals, node.children[1:], strict=False):
            t = v.type
            if p == "list" and not (is_list(t) or t == "null"):
                raise error_at(a, f"{name}() expects a list, got {t}")
            if p == "int" and t not in ("int", "any", "null", "bool"):
                raise error_at(a, f"{name}() expects an int, got {t}")
            if p == "int" and t == "null" and name not in _TEAM_FUNCTIONS:  # those give null for null
                raise error_at(a, f"{name}() expects an int, got null (always null here)")
            if p == "card" and t not in ("card", "any", "null"):
                hint = " (name a card by a card value, e.g. a loop variable over a zone)" if t == "str" else ""
                raise error_at(a, f"{name}() expects a card, got {describe_type(t)}{hint}")
