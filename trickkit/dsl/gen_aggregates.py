"""Code generation for aggregates (``sum(x for x in xs if c)``, ``highest(...) by k``...): ``for`` loops over locals.

Each iteration is charged to the state's evaluation budget; the parts of a loop body that do
not vary in it are hoisted by `GenBase._expr` (see `Body.hoist`).
"""

from __future__ import annotations

import re

import lark

from trickkit.dsl import builtins as B
from trickkit.dsl.body import Hoist, Line
from trickkit.dsl.gen_operators import OperatorsMixin
from trickkit.dsl.scope import Local, Scope
from trickkit.dsl.types import (
    Defs,
    Node,
    Tree,
    Val,
    aggregate_type,
    elem_type,
    error_at,
    is_list,
)
from trickkit.errors import did_you_mean

_TABLE_FAMILY = re.compile(r"^s\.table_zones\[([0-9]+):([0-9]+)\]$")
"""Generated code of a table zone family: a slice of a fixed number of zones."""


class AggregatesMixin(OperatorsMixin):
    """Aggregates as loops (see the module docstring)."""

    def _collection(self, coll: Val, node: Node) -> str:
        """Emit the evaluation of a list to iterate over, charged to the budget; its temp."""
        if not is_list(coll.type):
            raise error_at(node, f"can only iterate over a list, got {coll.type}")
        t = self.body.temp()
        self._emit(f"{t} = {self._code(coll)}")
        if coll.nullable:
            self._emit(f"if {t} is None:")
            self.body.lines.append(["_null_iter()"])
        # a constant list (``seats``) or a table zone family (``piles``, a fixed slice): its length is known now
        family = _TABLE_FAMILY.match(coll.code)
        if coll.is_const and coll.const.__class__ in (list, tuple):
            size = repr(len(coll.const))
        elif family is not None:
            size = repr(int(family.group(2)) - int(family.group(1)))
        else:
            size = f"_len({t})"
        if coll.length is not None:  # a list written out (``[a, b]``): its length too
            size = repr(coll.length)
        self._emit(f"s.budget -= {size}")
        self._emit("if s.budget < 0:")
        self.body.lines.append(["_over_budget()"])
        return t

    def _e_aggregate(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        name_tok, elem, var_tok, coll_node, cond, key = node.children
        name = str(name_tok)
        agg = B.AGGREGATES.get(name)
        if agg is None:
            raise error_at(name_tok, f"unknown aggregate {name!r}{did_you_mean(name, B.AGGREGATES)}")
        if agg.uses_by and key is None:
            raise error_at(node, f"{name}() needs a key: {agg.example}")
        if not agg.uses_by and key is not None:
            raise error_at(key, f"{name}() takes no 'by' key")
        body = self.body
        # the collection first: an aggregate in it (``x for x in list(...)``) opens and closes
        # its own hoist, which must not replace this loop's
        coll = self._expr(coll_node, scope, defs)
        outermost = body.loops == 0
        if outermost:
            hoist = body.hoist = Hoist()
            self.body.lines.append(hoist)
            body.inner = set()
        items = self._collection(coll, coll_node)
        var = body.temp("v")
        if self._seat_items(coll):
            body.seats.add(var)
        self._note_bounds(var, coll)
        body.inner.add(var)  # parts naming it vary in this loop: never hoisted out of it
        # items known never null: a zone's cards, the plays of the trick, the zones of a seat zone
        # or family, a range; a list built by the rules (`[lead, winner]`) may hold nulls
        item_nullable = not (
            coll.type == "zone"
            or coll.code.startswith("_fn_range(")
            or (coll.is_const and None not in coll.const)
            or coll.items_there
            or (coll.type in ("list[zone]", "list[play]") and self._names_state_list(coll_node, scope))
        )
        self._check_loop_name(var_tok, scope)
        inner = scope.child(str(var_tok), Local(var, elem_type(coll.type), item_nullable))
        result = body.temp()
        e: Val | None
        body.loops += 1
        try:
            loop: list[Line] = []
            saved = body.lines
            body.lines = loop
            try:
                if cond is not None:
                    p = self._expr(cond, inner, defs)
                    self._emit(f"if not ({self._code(p)}):")
                    body.lines.append(["continue"])
                else:
                    p = None
                parts = [p] if p is not None else []
                if name in ("highest", "lowest", "sorted"):
                    k = self._expr(key, inner, defs)
                    parts.append(k)
                if name in ("highest", "lowest"):
                    best, best_key, kt = body.temp(), body.temp(), body.temp()
                    better = ">" if name == "highest" else "<"
                    self._emit(f"{kt} = {self._code(k)}")
                    self._emit(f"if {kt} is not None and ({best} is _MISS or {kt} {better} {best_key}):")
                    body.lines.append([f"{best} = {var}", f"{best_key} = {kt}"])
                    init = [f"{best} = _MISS", f"{best_key} = None"]
                    e = None
                elif name == "count":  # the element is checked, never computed
                    e, _ = self._capture(lambda: self._expr(elem, inner, defs))
                    self._emit(f"{result} += 1")
                    init = [f"{result} = 0"]
                elif name == "sorted":
                    e = self._expr(elem, inner, defs)
                    parts.append(e)
                    self._emit(f"{result}.append(({self._code(k)}, {self._code(e)}))")
                    init = [f"{result} = []"]
                else:
                    e = self._expr(elem, inner, defs)
                    parts.append(e)
                    init = self._aggregate_step(name, result, self._code(e))
            finally:
                body.lines = saved
        finally:
            body.loops -= 1
            if outermost:
                body.hoist = None
        for line in init:
            self._emit(line)
        self._emit(f"for {var} in {items if name != 'last' else items + '[::-1]'}:")
        body.lines.append(loop)
        if name in ("highest", "lowest"):
            self._emit(f"if {best} is _MISS:")
            body.lines.append([f"{result} = None"])
            self._emit("else:")
            # the element of the best item, with the item bound again (loop code may be hoisted)
            branch: list[Line] = [f"{var} = {best}"]
            saved = body.lines
            body.lines = branch
            try:
                e = self._expr(elem, inner, defs)
                self._emit(f"{result} = {self._code(e)}")
            finally:
                body.lines = saved
            body.lines.append(branch)
            parts.append(e)
        elif name == "sorted":
            self._emit(f"{result} = _sort_keyed({result})")
            if e is not None and e.code in body.seats:  # the seats themselves, reordered
                body.seat_lists.add(result)
        free = coll.free.union(*(v.free for v in parts)) - {var}
        state = coll.state or any(v.state for v in parts)
        assert e is not None  # highest / lowest compute the element after the loop
        typ = aggregate_type(agg, e.type)
        nullable = name in ("min", "max", "first", "last", "highest", "lowest")
        values = e.values if agg.result == "elem" else None
        return Val(result, typ, nullable=nullable, state=state, free=free, values=values)

    def _items_nullable(self, coll: Val, node: Node, scope: Scope) -> bool:
        """May an item of the list ``coll`` be null? Not for a zone's cards, the plays of the
        trick, the zones of a seat zone or family, a range, a constant list without null or a
        list written out of values that are there (so ``for s in seats { score[s] ... }``
        indexes without a null check)."""
        return not (
            coll.type == "zone"
            or coll.code.startswith("_fn_range(")
            or (coll.is_const and isinstance(coll.const, list) and None not in coll.const)
            or coll.items_there
            or (coll.type in ("list[zone]", "list[play]") and self._names_state_list(node, scope))
        )

    def _names_state_list(self, node: Node, scope: Scope) -> bool:
        """Does ``node`` name a list the game holds (``trick``, a seat zone, a zone family)?"""
        if not (isinstance(node, lark.Tree) and node.data == "name"):
            return False
        name = str(node.children[0])
        sym = self.ns.symbols.get(name)
        return (
            scope.lookup(name) is None
            and name not in self._def_trees
            and sym is not None
            and sym.kind in ("state", "seat_zone", "zone_family")
        )

    def _aggregate_step(self, name: str, result: str, ec: str) -> list[str]:
        """Emit the loop body's use of the element ``ec``; return the result's initial lines."""
        body = self.body
        if name == "any":
            self._emit(f"if {ec}:")
            body.lines.append([f"{result} = True", "break"])
            return [f"{result} = False"]
        if name == "all":
            self._emit(f"if not ({ec}):")
            body.lines.append([f"{result} = False", "break"])
            return [f"{result} = True"]
        if name == "sum":
            self._emit(f"{result} += {ec}")
            return [f"{result} = 0"]
        if name == "list":
            self._emit(f"{result}.append({ec})")
            return [f"{result} = []"]
        if name in ("min", "max"):
            t = body.temp()
            better = "<" if name == "min" else ">"
            self._emit(f"{t} = {ec}")
            self._emit(f"if {t} is not None and ({result} is None or {t} {better} {result}):")
            body.lines.append([f"{result} = {t}"])
            return [f"{result} = None"]
        if name in ("first", "last"):
            self._emit(f"{result} = {ec}")
            self._emit("break")
            return [f"{result} = None"]
        raise AssertionError(name)  # pragma: no cover
