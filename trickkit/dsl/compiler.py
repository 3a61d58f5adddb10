"""The DSL compiler's facade: `Compiler`, which the rules layer uses, and `Splice`.

Each rule becomes one generated function ``f(state, frame) -> value`` (a block:
``-> None``). ``frame`` holds the rule's context values (``card``, ``seat``, ``winner``,
an action's choices) in order. Inside, everything is plain Python: aggregates are ``for``
loops over locals, attributes are reads of per-deck tables, definitions are generated
functions (state-only ones memoised while the engine holds the state still), and
state-only parts of a loop body are computed once, when first needed.

The passes, one module each: parse (`trickkit.dsl.parser`, `trickkit.dsl.lalr`) -> resolve
names and check types (`trickkit.dsl.types`, `trickkit.dsl.scope`, `trickkit.dsl.gen_names`)
-> generate Python source (`trickkit.dsl.gen_base`, `gen_expr`, `gen_operators`,
`gen_aggregates`, `gen_effects`, `card_filters`, building a `trickkit.dsl.body.Body`) -> the
AST allow-list (`trickkit.dsl.allowlist`) -> load: compiled once, executed into the generated
module's own namespace (`trickkit.dsl.load`). Name resolution, type checks and generation
happen in one walk of the tree: each construct's method resolves, checks and emits.
`Compiler` stacks the generation mixins (each module's one concern) and adds the entry points.

Why generate code: the closure tree it replaces made about 80 Python calls per decision;
a generated function makes a handful. How it stays safe (ruleset text is untrusted):

- every name in generated code is made here (``s``, ``t3``, ``_d4``, ``_T2``); DSL names
  never become Python identifiers;
- literals are ints, texts, bools or None written with ``repr()``; other constants and the
  attribute tables are values in the module's namespace, under generated names;
- the module runs with no Python built-ins, and every generated source passes the AST
  allow-list of `trickkit.dsl.allowlist` before ``compile()``.

Evaluation stays bounded: the only loops are over finite lists, each charged to the
state's evaluation budget; definitions may not refer to themselves, so calls never recurse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import attrs

from trickkit.dsl.body import Body, Hoist, Hoisted, Line, flatten, location_comment
from trickkit.dsl.card_filters import FiltersMixin
from trickkit.dsl.gen_operators import _SMALL_FACTOR_BOUND
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.dsl.runtime import EVALUATION_BUDGET, Budget, EvaluationLimit, GameEnded
from trickkit.dsl.scope import Local, Scope
from trickkit.dsl.types import (
    NOT_CONST,
    PLAY_FIELDS,
    WANTED,
    Context,
    DSLCompileError,
    Namespace,
    Node,
    Rule,
    Symbol,
    Tree,
    Val,
    assignable,
    describe_type,
    elem_type,
    error_at,
    is_list,
)

T = TypeVar("T")

_TABLE_VAR = re.compile(r"s\.table_vars\[([0-9]+)\]")
"""A rule's code that only reads a table variable."""


class Compiler(FiltersMixin):
    """Compiles DSL texts of one ruleset against its `Namespace`, to generated functions.

    ``context`` names given to `expression` / `block` are the rule's frame, in order; the
    callers pass their values positionally. All generated functions of one Compiler share
    one namespace (one module per game); `source` shows it.
    """

    def expression(
        self,
        text: str | bool,
        context: Context = (),
        want: str | None = None,
        memoise: bool = True,
        where: str = "",
    ) -> tuple[Rule, int, str]:
        """Compile an expression. Returns ``(function, frame_size, type)``.

        ``memoise``: memoise its larger state-only parts in the state's cache while the
        engine holds the state still (worth it for rules tested once per candidate).

        Raises:
            DSLSyntaxError, DSLCompileError: located within ``text``.
        """
        tree = parse(str(text), "expr") if not isinstance(text, bool) else parse(str(text).lower(), "expr")
        if self.coverage is not None:
            tree._text = str(text)  # type: ignore[attr-defined]  # the coverage report's snippets ride on the tree
        return self.expression_tree(tree, context, want, memoise, where)

    def expression_tree(
        self, tree: Tree, context: Context = (), want: str | None = None, memoise: bool = True, where: str = ""
    ) -> tuple[Rule, int, str]:
        """`expression` for a parsed tree."""
        self._rule = (where, getattr(tree, "_text", ""))
        val, fn = self._function(tree, context, memoise, where)
        if want and not assignable(val.type, want):
            raise error_at(tree, f"must be {WANTED.get(want, want)}, got {describe_type(val.type)}")
        return fn, len(context), val.type

    def context_reads(self, tree: Tree, context: Context) -> bool:
        """Does ``tree``, compiled with ``context`` in scope, read a context name (directly,
        or through a definition)?

        Raises:
            DSLCompileError: as `expression_tree`.
        """
        saved, saved_rule = self.body, self._rule
        self.body, self._rule = Body(), None  # a trial compile: it registers no coverage site
        try:
            scope = self._root_scope(context)
            val = self._expr_guarded(tree, scope)
        finally:
            self.body, self._rule = saved, saved_rule
        return bool(val.free)

    def block(
        self, text: str, context: Context = (), where: str = "", seats: frozenset[str] = frozenset()
    ) -> tuple[Rule, int]:
        """Compile a statement block. Returns ``(function, frame_size)``.

        Blocks change the state between statements, so nothing is memoised across
        statements; loop invariants are hoisted only within one statement's expression.
        ``seats``: context names that always hold a seat in 0..n-1 (a choice offered from
        ``seats``): seat lists are indexed by them without a check.
        """
        tree = parse(str(text), "block")
        saved, self.body = self.body, Body()
        saved_memo, self.memoise = self.memoise, False
        self._rule = (where, str(text))
        try:
            scope = self._root_scope(context)
            self.body.seats.update(scope.names[n].name for n in seats)  # context names are never assigned
            self._count(tree, "rule", "runs", "")
            try:
                self._stmts(tree.children, scope)
            except RecursionError:
                raise DSLCompileError("block nested too deeply") from None
            body = self.body
        finally:
            self.body, self.memoise = saved, saved_memo
            self._ended_lets = {}
        name = f"_r{next(self._ids)}"
        lines = [f"def {name}(s, fr):"]
        if where:
            lines.append("    " + location_comment(where))
        lines += self._unpack(context, scope)
        lines += flatten(body.lines) or ["    pass"]
        return self._define(name, lines), len(context)

    def source(self) -> str:
        """The generated module: every function compiled so far, in order."""
        return "\n\n".join(self._sources) + "\n"

    def _function(self, tree: Tree, context: Context, memoise: bool, where: str) -> tuple[Val, Rule]:
        saved, self.body = self.body, Body()
        saved_memo, self.memoise = self.memoise, memoise
        try:
            scope = self._root_scope(context)
            val = self._expr_guarded(tree, scope)
            body = self.body
        finally:
            self.body, self.memoise = saved, saved_memo
        name = f"_r{next(self._ids)}"
        lines = [f"def {name}(s, fr):"]
        if where:
            lines.append("    " + location_comment(where))
        unpack = self._unpack(context, scope, used=val.free)
        lines += unpack
        lines += flatten(body.lines)
        lines.append(f"    return {self._code(val)}")
        fn: Any = self._define(name, lines)  # it carries const_value and nullable for the rules layer
        if not unpack:  # a function of the state alone: a generated pass may inline it
            self._inline_parts[name] = (flatten(body.lines, 0), self._code(val))
            read = _TABLE_VAR.fullmatch(self._code(val)) if not body.lines else None
            if read is not None:  # a plain table variable (`until: game_ends`): the engine may read it itself
                fn.table_var = int(read.group(1))
        if val.is_const:
            fn.const_value = val.const
        fn.nullable = val.nullable
        return val, fn


class Splice:
    """One generated function the engine assembles from several rules (a step's whole legal
    actions, or a whole action applied: see `trickkit.engine.fused`).

    The engine writes the function's frame (its own statements, as generated lines); each
    rule is compiled into it with `card_test`, `expression` or `block`, which return the
    rule's lines and code. Every part shares the function's temporaries, so parts never
    clash; the finished function passes the allow-list like every generated one (`define`).
    """

    def __init__(self, compiler: Compiler, prefix: str) -> None:
        self.compiler = compiler
        self.body = Body()
        self.name = f"_{prefix}{next(compiler._ids)}"

    def temp(self, prefix: str = "t") -> str:
        """A new local name of this function."""
        return self.body.temp(prefix)

    def table(self, value: Sequence[Any]) -> str:
        """The generated name of a constant table (a tuple) in the module's namespace."""
        return self.compiler._table(value)

    def const(self, value: Any) -> str:
        """Python code for a constant: a literal, or its generated name in the namespace."""
        return self.compiler._const_code(value)

    def card_test(
        self, tree: Node, card: str, hoisted: Hoisted | None = None
    ) -> tuple[str, list[str], list[str], Hoisted]:
        """A card test (context ``card``, bound to the local ``card``, never null) to run over a hand.

        Returns ``(code, hoist, inner, hoisted)``: the parts of the test that do not depend on
        the card (``hoist``, lines to run once before the loop, as `Compiler.card_filter`
        does), the lines to run per card before testing ``code``, and the hoisted parts by
        code. ``hoisted`` are parts computed before (by lines that surely ran): reused.

        Raises:
            DSLCompileError: as `Compiler.expression_tree`.
        """
        scope = Scope({"card": Local(card, "card", nullable=False)})
        b, c = self.body, self.compiler
        saved = b.lines, b.loops, b.hoist, b.eager, b.hoisted
        b.lines, b.loops, b.hoist, b.eager, b.hoisted = [], 1, Hoist(), True, dict(hoisted or {})
        try:
            # a state-only definition is inlined too: computed once before the loop, it needs no call
            c.inline_definitions = True
            val = self._run(lambda: c._expr_guarded(tree, scope), memoise=True)
            return c._code(val), flatten(b.hoist.lines, 0), flatten(b.lines, 0), b.hoisted
        finally:
            b.lines, b.loops, b.hoist, b.eager, b.hoisted = saved
            c.inline_definitions = False

    def expression(self, tree: Node, names: Mapping[str, tuple[str, str, bool]]) -> tuple[Val, list[str]]:
        """An expression, its context ``names`` bound to locals: ``{name: (local, type, nullable)}``.

        Returns ``(value, lines)``: ``value.code`` is valid after ``lines``. Nothing is
        memoised (an action changes the state between the rules it runs).

        Raises:
            DSLCompileError: as `Compiler.expression_tree`.
        """
        scope = Scope({n: Local(code, t, nullable) for n, (code, t, nullable) in names.items()})
        b = self.body
        saved = b.lines, b.loops, b.hoist, b.eager, b.hoisted
        b.lines, b.loops, b.hoist, b.eager, b.hoisted = [], 0, None, False, {}
        c = self.compiler
        try:
            c.inline_definitions = True  # a state-only definition too: its lines, not a call
            val = self._run(lambda: c._expr_guarded(tree, scope), memoise=False)
            return attrs.evolve(val, code=c._code(val)), flatten(b.lines, 0)
        finally:
            b.lines, b.loops, b.hoist, b.eager, b.hoisted = saved
            c.inline_definitions = False

    def block(self, tree: Tree, names: Mapping[str, tuple[str, str, bool]]) -> list[str]:
        """A statement block (as `Compiler.block`), its context ``names`` bound to locals; its lines.

        Raises:
            DSLCompileError: as `Compiler.block`.
        """
        scope = Scope({n: Local(code, t, nullable) for n, (code, t, nullable) in names.items()})
        b = self.body
        saved = b.lines, b.loops, b.hoist, b.eager, b.hoisted
        b.lines, b.loops, b.hoist, b.eager, b.hoisted = [], 0, None, False, {}
        c = self.compiler
        try:

            def run() -> None:
                try:
                    c._stmts(tree.children, scope)
                except RecursionError:
                    raise DSLCompileError("block nested too deeply") from None

            c.inline_definitions = True  # a state-only definition too: its lines, not a call
            self._run(run, memoise=False)
            return flatten(b.lines, 0)
        finally:
            b.lines, b.loops, b.hoist, b.eager, b.hoisted = saved
            c._ended_lets = {}
            c.inline_definitions = False

    def _run(self, fn: Callable[[], T], memoise: bool) -> T:
        c = self.compiler
        saved = c.body, c.memoise, c._rule
        c.body, c.memoise, c._rule = self.body, memoise, None  # no coverage site: the rule's own hook counts
        try:
            return fn()
        finally:
            c.body, c.memoise, c._rule = saved

    def define(self, args: Sequence[str], lines: Sequence[Line]) -> Rule:
        """Compile the finished function ``name(args)`` with ``lines`` (nested lists indent)."""
        source = [f"def {self.name}({', '.join(args)}):", *flatten(lines)]
        return self.compiler._define(self.name, source)


def card_filter(compiler: Compiler, text: str, context: Context) -> tuple[Rule, int] | None:
    """``(filter, frame_size)`` for a card test (see `Compiler.card_filter`), or None when
    the test does not compile (its error is reported where the rule itself is compiled)."""
    try:
        return compiler.card_filter(parse(str(text), "expr"), context)
    except (DSLSyntaxError, DSLCompileError):
        return None


__all__ = [
    "EVALUATION_BUDGET",
    "NOT_CONST",
    "PLAY_FIELDS",
    "WANTED",
    "_SMALL_FACTOR_BOUND",
    "Budget",
    "Compiler",
    "DSLCompileError",
    "DSLSyntaxError",
    "EvaluationLimit",
    "GameEnded",
    "Namespace",
    "Splice",
    "Symbol",
    "Val",
    "card_filter",
    "elem_type",
    "is_list",
]
