"""Code generation for statement blocks: effects, assignments, ``let``, ``if`` and ``for`` statements.

Effects become calls of the runtime helpers (`trickkit.dsl.runtime`); assignments are checked
against the variable's type (a value known only at play time is checked as it is stored).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import TypeGuard, cast

import attrs
import lark

from trickkit.dsl import builtins as B
from trickkit.dsl.body import Line
from trickkit.dsl.builtins import Effect
from trickkit.dsl.gen_aggregates import AggregatesMixin
from trickkit.dsl.scope import Local, Scope, where_declared
from trickkit.dsl.types import (
    NOT_CONST,
    Namespace,
    Node,
    Symbol,
    Tree,
    Val,
    elem_type,
    error_at,
    is_list,
    may_nest,
    need_number,
    node_pos,
)
from trickkit.errors import did_you_mean

# a seat's zone read directly (``hand[target]`` with a known seat): its place key is (zone, seat)
# the top card of a zone held by a temp: ``(t0[-1] if t0 else None)``
_TOP_CARD = re.compile(r"^\(([tv][0-9]+)\[-1\] if (?:\1 is not None and )?\1 else None\)$")
_SEAT_ZONE = re.compile(r"^s\.seat_zones\[([0-9]+)\]\[(s\.current|[a-z][0-9]+|[0-9]+)\]$")


def _is_named(node: Node) -> TypeGuard[Tree]:
    return isinstance(node, lark.Tree) and node.data == "named_arg"


def _suggest(name: str, ns: Namespace, kind: str) -> str:
    return did_you_mean(name, [k for k, s in ns.symbols.items() if s.kind == kind])


class StatementsMixin(AggregatesMixin):
    """Statements and effects (see the module docstring)."""

    def _stmts(self, stmts: Sequence[Node], scope: Scope) -> None:
        """Compile a list of statements as one block: its ``let`` names live until its end."""
        inner = Scope({}, scope)
        for st in stmts:
            self._stmt(cast(Tree, st), inner)  # the grammar makes every statement a tree
        for name, local in inner.names.items():  # out of scope now: say so if used later
            self._ended_lets.setdefault(name, local.declared)

    def _stmt(self, node: Tree, scope: Scope) -> None:
        if node.data == "assign":
            return self._assign(node, scope)
        if node.data == "call_stmt":
            return self._effect(node, scope)
        body = self.body
        if node.data == "for_stmt":
            var_tok, coll_node, *stmts = node.children
            coll = self._expr(coll_node, scope, ())
            t = self._collection(coll, coll_node)
            var = body.temp("v")
            self._check_loop_name(var_tok, scope)
            inner = scope.child(
                str(var_tok), Local(var, elem_type(coll.type), self._items_nullable(coll, coll_node, scope))
            )
            if self._seat_items(coll):
                self.body.seats.add(var)
            self._note_bounds(var, coll)
            if coll.is_const:  # a constant list (``range(1, 4)``): no effect changes it
                self._emit(f"for {var} in {t}:")
            else:
                self._emit(f"for {var} in {t}[:]:")  # a copy: the body may move cards out of it
            self._block(lambda: self._stmts(stmts, inner))
            return None
        if node.data == "let_stmt":
            return self._let(node, scope)
        if node.data == "if_stmt":
            cond, *rest = node.children
            branches: list[tuple[Node, list[Node]]] = [(cond, [])]
            then: list[Node] = []
            else_body: list[Node] | None = None
            for part in rest:
                if isinstance(part, lark.Tree) and part.data == "elif_part":
                    c, *b = part.children
                    branches.append((c, [x for x in b if x is not None]))
                elif isinstance(part, lark.Tree) and part.data == "else_part":
                    else_body = [x for x in part.children if x is not None]
                elif part is not None:
                    then.append(part)
            branches[0] = (cond, then)
            self._if_chain(branches, else_body, scope)
            return None
        raise error_at(node, f"unsupported statement {node.data!r}")  # pragma: no cover

    def _if_chain(
        self,
        branches: list[tuple[Node, list[Node]]],
        else_body: list[Node] | None,
        scope: Scope,
        first: Node | None = None,
        arm: int = 0,
    ) -> None:
        (cond, stmts), rest = branches[0], branches[1:]
        first = cond if first is None else first  # the sites of a chain are placed at its first condition
        c = self._expr(cond, scope, ())
        fixed = ("always" if c.const else "never") if c.is_const else ""  # a parameter decides it
        self._emit(f"if {self._code(c)}:")

        def then() -> None:
            self._count(first, "if", "then" if arm == 0 else f"elif {arm}", cond, fixed)
            self._stmts(stmts, scope)

        self._block(then)
        if not rest and else_body is None and self.coverage is None:
            return
        self._emit("else:")
        if rest:
            self._block(lambda: self._if_chain(rest, else_body, scope, first, arm + 1))
        else:

            def otherwise() -> None:
                self._count(first, "if", "else", None, {"always": "never"}.get(fixed, ""))
                self._stmts(else_body or [], scope)

            self._block(otherwise)

    def _let(self, node: Tree, scope: Scope) -> None:
        """``let NAME = E``: a local name of the enclosing block, typed by ``E``.

        A local may not reuse any name visible here (a parameter, variable, zone, definition,
        built-in, the rule's context, a loop variable or another local): one name, one meaning.
        """
        name_tok, value = node.children
        name = str(name_tok)
        self._check_new_name(name_tok, scope)
        v = self._expr(value, scope, ())
        var = self.body.temp("v")
        t = "any" if v.type == "null" else v.type  # ``let best = null``: any value may follow
        self._emit(f"{var} = {self._code(v)}")
        scope.names[name] = Local(var, t, nullable=True, declared=node_pos(name_tok))
        self._ended_lets.pop(name, None)

    def _block(self, emit: Callable[[], object]) -> None:
        """Run ``emit()`` with its lines going into a new indented block (``pass`` if empty)."""
        _, inner = self._capture(emit)
        self.body.lines.append(inner or ["pass"])

    def _effect(self, node: Tree, scope: Scope) -> None:
        name_tok, *args = node.children
        args = [a for a in args if a is not None]
        name = str(name_tok)
        spec = B.EFFECTS.get(name)
        if spec is None:
            raise error_at(name_tok, f"unknown effect {name!r}{did_you_mean(name, B.EFFECTS)}")
        named = self._named_args(node, name, spec, [a for a in args if _is_named(a)], scope)
        args = [a for a in args if not _is_named(a)]
        if len(args) != len(spec.params):
            raise error_at(
                node,
                f"{name}() takes {len(spec.params)} argument{'s' if len(spec.params) != 1 else ''}, got {len(args)}",
            )
        self._count(node, "effect", name, node)
        codes: list[str] = []
        nullable: list[bool] = []
        later: list[Line] = []
        for i, (p, a) in enumerate(zip(spec.params, args, strict=False)):
            if name == "move_random" and i == 1:  # read after the draw (below)
                v, later = self._capture(functools.partial(self._expr, a, scope, ()))
            else:
                v = self._expr(a, scope, ())
            if p == "zone" and v.type not in ("zone", "any"):
                raise error_at(
                    a, f"{name}() needs a zone here (a zone name, or a member of a zone family), got {v.type}"
                )
            if p == "card" and v.type not in ("card", "any", "null"):
                raise error_at(a, f"{name}() needs a card here, got {v.type}")
            if p == "cards" and v.type not in ("card", "zone", "list[card]", "list[any]", "any", "null"):
                raise error_at(a, f"{name}() needs a card, a list of cards or a zone here, got {v.type}")
            if p == "seats" and v.type not in ("int", "list[int]", "list[any]", "any"):
                raise error_at(a, f"{name}() needs a seat or a list of seats here, got {v.type}")
            codes.append(self._code(v))  # a helper's arguments are all read before anything moves
            nullable.append(v.nullable)
        top = _TOP_CARD.match(codes[0]) if len(codes) == 3 else None
        if name == "move" and top and (codes[1] == top.group(1) or f"{top.group(1)} = {codes[1]}" in self.body.lines):
            # `move(stock[-1], stock, to)`, the draw: its temp holds that zone (temps are never
            # assigned again), or the zone is that very local (``let p = piles[i]``, `move(p[-1], p, to)`),
            # so the top card is popped, not searched for (a null zone fails as `_move` fails)
            if nullable[2]:
                self._emit(f"_move_top({top.group(1)}, {codes[2]}, {name!r})")
            else:  # a zone that is there: inline (no helper call); an empty one goes to the helper, which says so
                to = codes[2]
                if not re.match(r"^[tv][0-9]+$", to):  # (a local already: popped into as it is)
                    to = self.body.temp()
                    self._emit(f"{to} = {codes[2]}")
                self._emit(f"if {top.group(1)}:")
                self.body.lines += [[f"{to}.append({top.group(1)}.pop())"], "else:"]
                self.body.lines.append([f"_move_top({top.group(1)}, {to}, {name!r})"])
        elif name == "move" and not nullable[1] and not nullable[2]:
            # one card between two zones that are there, inline (no helper call); a card not in
            # the zone it leaves goes to the helper, which says so
            card, frm, to = self.body.temp(), self.body.temp(), self.body.temp()
            self._emit(f"{card}, {frm}, {to} = {codes[0]}, {codes[1]}, {codes[2]}")
            self._emit(f"if {card} in {frm}:")
            self.body.lines += [[f"{frm}.remove({card})", f"{to}.append({card})"], "else:"]
            self.body.lines.append([f"_move({card}, {frm}, {to}, False, {name!r})"])
        elif name in ("move", "move_front"):
            self._emit(f"_move({codes[0]}, {codes[1]}, {codes[2]}, {name == 'move_front'!r}, {name!r})")
        elif name == "move_all":
            self._emit(f"_move_all({codes[0]}, {codes[1]})")
        elif name == "swap":
            self._emit(f"_swap({codes[0]}, {codes[1]})")
        elif name == "sort":
            self._emit(f"_sort_zone({codes[0]})")
        elif name == "move_random":
            # the destination is read once the card is drawn, and not at all from an empty zone
            frm, card = self.body.temp(), self.body.temp()
            self._emit(f"{frm} = {codes[0]}")
            self._emit(f"if {frm}:")
            self.body.lines.append([f"{card} = _draw_random(s, {frm})", *later, f"_put({codes[1]}, {card})"])
        elif name == "shuffle":
            self._emit(f"_shuffle(s, {codes[0]})")
        elif name == "insert_random":
            self._emit(f"_insert_random(s, {codes[0]}, {codes[1]})")
        elif name == "reveal":
            m = _SEAT_ZONE.match(codes[0])
            if m and self._is_seat(m.group(2)):  # a seat's zone: its place is known, not searched for
                self._emit(f"_reveal(s, {codes[0]}, {codes[1]}, ({m.group(1)}, {m.group(2)}))")
            else:
                self._emit(f"_reveal(s, {codes[0]}, {codes[1]})")
        elif name == "end_turn" and "next" in named:
            self._emit(f"_end_turn(s, {named['next']})")
        elif name == "end_turn":
            self._emit("s.turn_over = True")
        else:
            self._emit("_end_game()")

    def _named_args(self, node: Tree, name: str, spec: Effect, args: list[Tree], scope: Scope) -> dict[str, str]:
        """The code of each named argument (``next=seat``) of an effect, checked against its keywords."""
        known = dict(spec.keywords)
        out = {}
        for arg in args:
            key_tok, op_tok, value = arg.children
            key = str(key_tok)
            if key not in known:
                offer = f" (it takes {', '.join(k + '=' for k in known)})" if known else " (it takes none)"
                raise error_at(key_tok, f"{name}() has no named argument {key!r}{offer}")
            if str(op_tok) != "=" or key in out:
                raise error_at(key_tok, f"write {key}=VALUE once in {name}()")
            v = self._expr(value, scope, ())
            if known[key] == "int" and v.type not in ("int", "any", "null"):
                raise error_at(value, f"{name}({key}=...) needs a seat (an int), got {v.type}")
            out[key] = self._code(v)
        return out

    def _assign(self, node: Tree, scope: Scope) -> None:
        target_node, op_tok, value = node.children
        target = cast(Tree, target_node)  # target_name or target_index: a tree (the grammar)
        self._count(node, "effect", f"{target.children[0]} {op_tok}", node)
        v = self._expr(value, scope, ())
        op = str(op_tok)
        name_tok = target.children[0]
        name = str(name_tok)
        local = scope.lookup(name)
        if local is not None:
            return self._assign_local(node, target, name_tok, local, op, v, value)
        sym = self.ns.symbols.get(name)
        if op != "=":
            need_number(value, v.type, op)
        if target.data == "target_item" or (
            target.data == "target_index" and sym is not None and sym.kind == "table_var"
        ):
            return self._assign_item(target, name_tok, sym, op, v, value, scope)
        if sym is not None and sym.kind in ("seat_var", "table_var", "team_var"):
            self._check_assignment(value, name, sym, v, op)
            if op == "=" and v.type == "any" and sym.type != "any":  # known only now: checked as it is stored
                nullable = name in self.ns.variable_nullable
                v = attrs.evolve(v, code=f"_kept({self._code(v)}, {sym.type!r}, {nullable!r})", const=NOT_CONST)
            if op == "=" and v.type in ("zone", "list[zone]"):
                v = attrs.evolve(v, code=self._cards_now(v), const=NOT_CONST)
            elif op == "=" and may_nest(v.type):  # measured as it is stored (size and depth)
                v = attrs.evolve(v, code=f"_stored(s, {self._code(v)})", const=NOT_CONST)
        if target.data == "target_index":
            if sym is None or sym.kind not in ("seat_var", "team_var"):
                raise error_at(name_tok, f"{name!r} is not a seat variable{_suggest(name, self.ns, 'seat_var')}")
            x = self._expr(target.children[1], scope, ())
            vs = self._simple(v)
            store = "seat_vars" if sym.kind == "seat_var" else "table_vars"
            if sym.kind == "seat_var" and not self._is_seat(x.code):
                # a seat out of 0..n-1 is an error, never a write to another seat (Python's
                # negative index would write `score[-1]` into the last seat's)
                xs = self._simple(x)
                self._emit(f"if not (0 <= {xs.code} < {self.ns.num_players}):")
                self.body.lines.append([f"_bad_seat({xs.code}, {name!r}, {self.ns.num_players})"])
                x = xs
            self._emit(f"s.{store}[{sym.value}][{self._code(x)}] {op} {self._code(vs)}")
            return
        if sym is None or sym.kind != "table_var":
            if sym is not None and sym.kind == "seat_var":
                raise error_at(name_tok, f"{name!r} is a seat variable: write {name}[seat]")
            if sym is not None and sym.kind == "team_var":
                raise error_at(name_tok, f"{name!r} is a team variable: write {name}[team_of(seat)]")
            raise error_at(name_tok, f"{name!r} is not a table variable{_suggest(name, self.ns, 'table_var')}")
        self._emit(f"s.table_vars[{sym.value}] {op} {self._code(v)}")

    def _assign_item(
        self, target: Tree, name_tok: Node, sym: Symbol | None, op: str, v: Val, value: Node, scope: Scope
    ) -> None:
        """``xs[i] = v`` (a table variable holding a list) or ``xs[seat][i] = v`` (a seat or team
        variable holding lists): one item of the list, its index checked at play (a located
        error, never a write elsewhere: Python's ``xs[-1]`` would write the last item)."""
        name = str(name_tok)
        owner = ("seat_var", "team_var") if target.data == "target_item" else ("table_var",)
        if sym is None or sym.kind not in owner:
            want = "a seat or team variable holding lists" if owner[0] == "seat_var" else "a table variable"
            raise error_at(name_tok, f"{name!r} is not {want}{_suggest(name, self.ns, owner[0])}")
        if not (sym.type.startswith("list") or sym.type == "any"):
            raise error_at(name_tok, f"{name!r} holds {sym.type} values, not lists: assign it whole, {name} = ...")
        elem = sym.type[5:-1] if sym.type.startswith("list[") else "any"
        if op != "=" and elem not in ("int", "any"):
            raise error_at(value, f"the items of {name!r} are {elem} values: they cannot be added to")
        if (
            op == "="
            and elem != "any"
            and v.type not in (elem, "any", "null")
            and not (is_list(elem) and is_list(v.type))
        ):
            raise error_at(value, f"the items of {name!r} are {elem} values, not {v.type}")
        vs = self._simple(v)
        if target.data == "target_item":
            x = self._simple(self._expr(target.children[1], scope, ()))
            if sym.kind == "seat_var":
                if not self._is_seat(x.code):
                    self._emit(f"if not (0 <= {x.code} < {self.ns.num_players}):")
                    self.body.lines.append([f"_bad_seat({x.code}, {name!r}, {self.ns.num_players})"])
                whole = f"s.seat_vars[{sym.value}][{x.code}]"
            else:
                whole = f"s.table_vars[{sym.value}][{x.code}]"
            index_node = target.children[2]
        else:
            whole = f"s.table_vars[{sym.value}]"
            index_node = target.children[1]
        i = self._expr(index_node, scope, ())
        if i.type not in ("int", "any"):
            raise error_at(index_node, f"a list item is chosen by an int, not {i.type}")
        items, k = self.body.temp("v"), self._simple(i)
        self._emit(f"{items} = {whole}")
        self._emit(f"if not (0 <= {k.code} < _len({items})):")
        self.body.lines.append([f"_bad_item({items}, {k.code}, {name!r})"])
        self._emit(f"{items}[{k.code}] {op} {self._code(vs)}")

    def _check_assignment(self, node: Node, name: str, sym: Symbol, v: Val, op: str) -> None:
        """A variable keeps the type of its initial value (or its declared ``type``)."""
        want, t = sym.type, v.type
        if op != "=":
            if want not in ("int", "any"):
                raise error_at(node, f"{name!r} holds {want} values: it cannot be added to")
            return
        if want == "any" or t == "any":
            return
        if t == "null":
            if name in self.ns.variable_nullable:
                return
            raise error_at(
                node,
                f"{name!r} holds {want} values and cannot be null "
                f"(give it initial: null or a declared type to allow null)",
            )
        if (want.startswith("list[") and is_list(t)) or t == want:
            return
        raise error_at(node, f"{name!r} holds {want} values (the type of its initial value), not {t}")

    def _assign_local(
        self, node: Tree, target: Tree, name_tok: Node, local: Local, op: str, v: Val, value: Node
    ) -> None:
        name = str(name_tok)
        if local.declared is None:
            raise error_at(
                name_tok,
                f"{name!r} is the rule's context or a loop variable and cannot be assigned: "
                f"declare a local name with let {name}2 = ... instead",
            )
        if target.data == "target_index":
            raise error_at(name_tok, f"{name!r} is a local name, not a seat variable: assign it whole, {name} = ...")
        want, t = local.type, v.type
        if op != "=":
            need_number(value, t, op)
            if want not in ("int", "any"):
                raise error_at(value, f"{name!r} holds {want} values (the type its let gave it): it cannot be added to")
        elif not (
            want == "any"
            or t in ("any", "null")
            or t == want
            or (want.startswith("list[") and is_list(t))
            or {want, t} == {"zone", "list[card]"}
        ):
            raise error_at(
                value,
                f"{name!r} holds {want} values (the type its let gave it, at {where_declared(local.declared)}), "
                f"not {t}",
            )
        code = self._code(v)
        if op == "=" and t == "any" and want not in ("any", "null"):  # known only now: checked as it is stored
            code = f"_kept({code}, {want!r}, True)"
        self._emit(f"{local.name} {op} {code}")

    def _cards_now(self, v: Val) -> str:
        """Code for a copy of the cards a zone (or a list of zones) holds now: a variable keeps
        what it was given, not the zone itself, which later moves change (and which a clone
        copies apart from its variables)."""
        if v.type == "zone":
            return f"[*{self._code(v)}]"
        z = self.body.temp("v")
        return f"[[*{z}] for {z} in {self._code(v)}]"
