"""Name resolution: DSL names to locals, globals and definitions.

A name is a local of the `Scope` (the rule's context, a loop variable, a ``let``), a global of
the ruleset's `Namespace` (a parameter, variable, zone or state value), or a definition. A
definition is inlined where it is small (or reads the rule's context), else generated once per
(context, argument types) as a function ``_dN`` (memoised when it reads the state alone).
Also the checks that a new name (``let``, loop variable) hides none visible.
"""

from __future__ import annotations

import re
from typing import cast

import lark

from trickkit.dsl import builtins as B
from trickkit.dsl.body import (
    Body,
    flatten,
    location_comment,
    tree_size,
)
from trickkit.dsl.gen_base import GenBase
from trickkit.dsl.scope import Local, Scope, where_declared
from trickkit.dsl.types import (
    CompiledDefinition,
    Context,
    Defs,
    DSLCompileError,
    Node,
    Tree,
    Val,
    error_at,
    in_definition,
)
from trickkit.errors import did_you_mean

_INLINE_MAX_NODES = 60
"""Largest definition (counting the definitions it uses) inlined where it reads the rule's context;
larger ones become functions, so no chain of definitions can blow up the generated code."""


_INLINE_FILTER_NODES = 200
"""Largest definition inlined where a combination filter calls it with the kind's choices (see
`trickkit.dsl.card_filters.FiltersMixin.combo_filter`): called for every combination, its call
would cost more than its lines, and inlined its parts naming only some choices leave the loops.
Past `_INLINE_MAX_NODES` its call's charge of one budget item is written out where it stood."""


_INLINE_ALWAYS_NODES = 6
"""A definition this small (``lead: trick[0]``) is inlined everywhere: a call would cost more."""


_CHARGE_CALL = ["    s.budget -= 1", "    if s.budget < 0:", "        _over_budget()"]
"""The first lines of a generated definition function too large to be inlined (after a memo hit,
for a state-only one): each call costs one item of the evaluation budget, so definitions that call
each other twice (``dN(x): dN-1(x) + dN-1(x + 1)``) stop at the budget instead of running for ever.
A smaller definition is not charged: with every definition it uses inlined it is at most
`_INLINE_MAX_NODES` tree nodes, so a call of it costs a bounded amount (its loops are charged), and
it is charged the same in the generated step functions, which inline it, and on the general path."""


class NamesMixin(GenBase):
    """Name resolution and definitions (see the module docstring)."""

    def _e_name(self, node: Tree, scope: Scope, defs: Defs) -> Val:
        name = str(node.children[0])
        local = scope.lookup(name)
        if local is not None:
            free = frozenset([local.name]) if local.free is None else local.free
            return Val(local.name, local.type, nullable=local.nullable, free=free, state=local.state)
        if name in self._def_trees and self.ns.definition_params.get(name):
            params = self.ns.definition_params[name]
            raise error_at(
                node,
                f"{name} takes {len(params)} argument{'s' if len(params) != 1 else ''}: "
                f"write {name}({', '.join(params)})",
            )
        if name in self._def_trees:
            return self._call_definition(node, name, [], scope, defs)
        sym = self.ns.symbols.get(name)
        if sym is None:
            ended = self._ended_lets
            if name in ended:
                raise error_at(
                    node,
                    f"{name!r} is a local name of a block that has ended (its let is at "
                    f"{where_declared(ended[name])}): a local lives until the end of the block that declares it",
                )
            known = list(self.ns.symbols) + list(self._def_trees) + scope.all_names()
            raise error_at(node, f"unknown name {name!r}{did_you_mean(name, known)}")
        if sym.kind == "const":
            values = (("parameter", name), frozenset(sym.choices)) if sym.choices else None
            return Val(self._const_code(sym.value), sym.type, sym.value, sym.value is None, values=values)
        if sym.kind == "state":
            if sym.code is not None:
                return Val(sym.code, sym.type, nullable=False, state=True)
            getter = self._const_code(sym.value)  # a getter function given by the caller
            return Val(f"{getter}(s)", sym.type, state=True)
        i = sym.value
        if sym.kind == "seat_var":
            return Val(f"s.seat_vars[{i}]", f"list[{sym.type}]", nullable=False, state=True)
        if sym.kind == "table_var":
            return Val(f"s.table_vars[{i}]", sym.type, state=True)
        if sym.kind == "team_var":  # one value per team, kept as a list in a table variable
            return Val(f"s.table_vars[{i}]", f"list[{sym.type}]", nullable=False, state=True)
        if sym.kind == "seat_zone":
            return Val(f"s.seat_zones[{i}]", "list[zone]", nullable=False, state=True)
        if sym.kind == "table_zone":
            return Val(f"s.table_zones[{i}]", "zone", nullable=False, state=True)
        if sym.kind == "zone_family":
            start, count = i
            return Val(f"s.table_zones[{start}:{start + count}]", "list[zone]", nullable=False, state=True)
        raise error_at(node, f"cannot use {name!r} here")  # pragma: no cover

    def _call_definition(self, node: Node, name: str, args: list[Val], scope: Scope, defs: Defs) -> Val:
        """A call of a definition: compiled once per (context types, argument types) as a
        generated function taking the context values it reads and its arguments."""
        params = self.ns.definition_params.get(name, ())
        if len(args) != len(params):
            raise error_at(
                node, f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''}, got {len(args)}"
            )
        if name in defs:
            raise error_at(node, f"definition {name!r} refers to itself ({' -> '.join((*defs, name))})")
        root = scope.root()
        size = self._expanded_size(name)
        bound = args or self._reads_context(name, root)
        # called by a combination filter for every combination: inlined all the same (see
        # `_INLINE_FILTER_NODES`), its call's charge written out below
        filtered = self.in_filter and bound and _INLINE_MAX_NODES < size <= _INLINE_FILTER_NODES
        # what it inlines here: the state-only definitions it uses stay calls (unless inlined too)
        site = size if size <= _INLINE_MAX_NODES or self.inline_definitions else self._site_size(name, root)
        if (
            filtered
            or ((bound or self.inline_definitions) and site <= _INLINE_MAX_NODES)
            or size <= _INLINE_ALWAYS_NODES
        ):
            # small and tied to the rule's context: inline, so its state-only parts can be hoisted
            inner = root
            for p, a in zip(params, args, strict=False):
                x = self._simple(a)
                inner = inner.child(p, Local(x.code, a.type, a.nullable, a.free, a.state))
            if size > _INLINE_MAX_NODES:  # its function would charge each call: so does its text
                self.body.lines += ["s.budget -= 1", "if s.budget < 0:", ["_over_budget()"]]
            # a state-only definition inlined before a card loop (Splice.card_test) is computed once
            once = ("definition", name) if self.inline_definitions and not args and self.body.eager else None
            if once is not None and once in self.body.hoisted:
                return cast(Val, self.body.hoisted[once])  # a ("definition", name) key holds a value
            saved_rule = self._in_definition(name)
            try:
                val = self._expr(self._def_trees[name], inner, (*defs, name))
            except DSLCompileError as e:
                raise in_definition(node, name, e) from None
            finally:
                self._rule = saved_rule
            if once is not None and not val.free and (val.is_const or re.match(r"^h[0-9]+$", val.code)):
                self.body.hoisted[once] = val  # a local the lines before the loop set
            return val
        context = tuple((n, local.type) for n, local in root.names.items())
        arg_types = tuple(a.type for a in args)
        key = (name, context, arg_types)
        # a definition that read no context name where it was first compiled is the same wherever
        # it names none either (where it does, the context value hides a global of that name)
        entry = self._defs.get(key)
        if entry is None and not self._reads_context(name, root):
            entry = self._defs.get((name, None, arg_types))
        if entry is None:
            try:
                entry = self._compile_definition(name, context, params, args, defs)
            except DSLCompileError as e:
                raise in_definition(node, name, e) from None
            self._defs[key] = entry
            if isinstance(entry, Val) or not entry[1]:
                self._defs[(name, None, arg_types)] = entry
        if isinstance(entry, Val):  # a constant
            return entry
        fname, read, typ, nullable, values = entry
        ctx_locals = [root.names[n].name for n in read]
        call_args = ["s"] + ctx_locals + [self._code(a) for a in args]
        return Val(
            f"{fname}({', '.join(call_args)})",
            typ,
            nullable=nullable,
            values=values,
            state=True,
            free=frozenset(ctx_locals).union(*(a.free for a in args)),
        )

    def _reads_context(self, name: str, root: Scope) -> bool:
        """Does definition ``name`` (or one it uses) name a context value of ``root``?"""
        names, seen, stack = set(root.names), set(), [name]
        while stack:
            d = stack.pop()
            if d in seen or d not in self._def_trees:
                continue
            seen.add(d)
            params = self.ns.definition_params.get(d, ())
            for word in self._names_in_definition(d):
                if word in names and word not in params:
                    return True
                stack.append(word)
        return False

    def _names_in_definition(self, name: str) -> tuple[str, ...]:
        """The distinct NAME tokens of definition ``name``'s text, in order (scanned once)."""
        words = self._def_names.get(name)
        if words is None:
            tokens = self._def_trees[name].scan_values(lambda v: isinstance(v, lark.Token) and v.type == "NAME")
            words = self._def_names[name] = tuple(dict.fromkeys(str(tok) for tok in tokens))
        return words

    def _expanded_size(self, name: str, active: tuple[str, ...] = ()) -> int:
        """Tree nodes of a definition with every definition it uses inlined (capped)."""
        if name in self._sizes:
            return self._sizes[name]
        if name in active:
            return _INLINE_FILTER_NODES + 1  # a cycle: reported where it is compiled
        tree = self._def_trees[name]
        total = tree_size(tree)
        for tok in tree.scan_values(lambda v: isinstance(v, lark.Token) and v.type == "NAME"):
            if str(tok) in self._def_trees:
                total += self._expanded_size(str(tok), (*active, name))
            if total > _INLINE_FILTER_NODES:
                break
        self._sizes[name] = total = min(total, _INLINE_FILTER_NODES + 1)
        return total

    def _site_size(self, name: str, root: Scope, active: tuple[str, ...] = ()) -> int:
        """`_expanded_size` of definition ``name`` inlined where ``root`` is the rule's context
        (capped): a definition it uses that stays a call there (state-only, larger than
        `_INLINE_ALWAYS_NODES`, reading no context name of ``root``) counts one node, its call."""
        key = (name, tuple(root.names), active)
        known = self._site_sizes.get(key)
        if known is not None:
            return known
        if name in active:
            return _INLINE_MAX_NODES + 1  # a cycle: reported where it is compiled
        total = tree_size(self._def_trees[name])
        for word in self._def_trees[name].scan_values(lambda v: isinstance(v, lark.Token) and v.type == "NAME"):
            d = str(word)
            if d not in self._def_trees:
                continue
            if (
                not self.ns.definition_params.get(d)
                and self._expanded_size(d) > _INLINE_ALWAYS_NODES
                and not self._reads_context(d, root)
            ):
                total += 1
            else:
                total += self._site_size(d, root, (*active, name))
            if total > _INLINE_MAX_NODES:
                break
        self._site_sizes[key] = total = min(total, _INLINE_MAX_NODES + 1)
        return total

    def _compile_definition(
        self, name: str, context: Context, params: tuple[str, ...], args: list[Val], defs: Defs
    ) -> Val | CompiledDefinition:
        saved, self.body = self.body, Body()
        saved_memo, self.memoise = self.memoise, False  # a state-only definition is memoised whole
        saved_rule = self._in_definition(name)
        try:
            names = {n: Local(f"q{i}", t) for i, (n, t) in enumerate(context)}
            scope = Scope(names)  # the rule's context is the root: nested definitions see it
            for k, (p, a) in enumerate(zip(params, args, strict=False)):
                scope = scope.child(p, Local(f"p{k}", a.type, a.nullable))
            val = self._expr(self._def_trees[name], scope, (*defs, name))
            body = self.body
        finally:
            self.body, self.memoise, self._rule = saved, saved_memo, saved_rule
        if val.is_const:
            return val
        read = [n for i, (n, _) in enumerate(context) if f"q{i}" in val.free]
        arg_names = [names[n].name for n in read] + [f"p{k}" for k in range(len(params))]
        fname = f"_d{next(self._ids)}"
        # a definition too large to inline anywhere is a call wherever it is used: charged
        charge = _CHARGE_CALL if self._expanded_size(name) > _INLINE_MAX_NODES else []
        lines = [
            f"def {fname}({', '.join(['s', *arg_names])}):",
            "    " + location_comment(self.definition_where.get(name, "definition")),
        ]
        if not arg_names:  # state-only: one value per state held still, shared by every rule
            key = next(self._memo_keys)
            m, r = body.temp("m"), body.temp()
            lines += [f"    {m} = s.memo", f"    if {m} is not None and {key} in {m}:", f"        return {m}[{key}]"]
            lines += charge
            lines += flatten(body.lines)
            lines += [
                f"    {r} = {val.code}",
                f"    if {m} is not None:",
                f"        {m}[{key}] = {r}",
                f"    return {r}",
            ]
        else:
            lines += charge
            lines += flatten(body.lines)
            lines.append(f"    return {val.code}")
        self._define(fname, lines)
        return fname, read, val.type, val.nullable, val.values

    def _family(self, node: Node, scope: Scope) -> tuple[int, int] | None:
        """(start, count) when ``node`` names a zone family (and no local hides it)."""
        if isinstance(node, lark.Tree) and node.data == "name":
            name = str(node.children[0])
            sym = self.ns.symbols.get(name)
            if sym is not None and sym.kind == "zone_family" and scope.lookup(name) is None:
                family: tuple[int, int] = sym.value
                return family
        return None

    def _check_new_name(self, tok: Node, scope: Scope) -> None:
        name = str(tok)
        local = scope.lookup(name)
        if local is not None:
            if local.declared is not None:
                raise error_at(
                    tok,
                    f"{name!r} is already a local name (from {where_declared(local.declared)}): "
                    f"assign it with {name} = ..., or choose another name",
                )
            raise error_at(
                tok,
                f"{name!r} is already a name here (the rule's context or a loop variable): "
                f"a local name cannot reuse it; choose another name",
            )
        sym = self.ns.symbols.get(name)
        taken = None
        if sym is not None:
            taken = {
                "const": "a parameter or constant",
                "state": "a built-in name",
                "seat_var": "a seat variable",
                "table_var": "a table variable",
                "seat_zone": "a zone",
                "table_zone": "a zone",
                "zone_family": "a zone family",
            }.get(sym.kind, "a name of the ruleset")
        elif name in self._def_trees:
            taken = "a definition"
        elif (
            name in B.FUNCTIONS
            or name in B.AGGREGATES
            or name in B.EFFECTS
            or name in B.SEAT_FUNCTIONS
            or name in B.ENGINE_FUNCTIONS
        ):
            taken = "a built-in function"
        if taken is not None:
            raise error_at(tok, f"{name!r} is {taken}: a local name cannot reuse it; choose another name")

    def _check_loop_name(self, tok: Node, scope: Scope) -> None:
        if str(tok) in self._def_trees:  # it would hide the definition in the loop, and in definitions used there
            raise error_at(
                tok,
                f"{str(tok)!r} is a definition ({self.definition_where.get(str(tok), '$.definitions')}): "
                f"a loop variable cannot reuse its name; choose another name",
            )
        local = scope.lookup(str(tok))
        if local is not None and local.declared is not None:
            raise error_at(
                tok,
                f"{str(tok)!r} is a local name (from {where_declared(local.declared)}): a loop variable "
                f"cannot reuse it; choose another name",
            )
