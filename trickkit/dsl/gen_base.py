"""The generator's core: the state shared by every generation pass, and what each part passes through.

`GenBase` holds one ruleset's generated module under construction (its namespace ``env``,
constants, tables, sources) and the function being generated (`Body`). `_expr` dispatches a
parse tree node to its pass (``_e_<construct>`` in the mixins above) and then decides where the
part's code goes: folded to a constant at load, hoisted out of a loop, memoised in the state's
cache, or left in place. Also here: the rule coverage counters (`trickkit.dsl.coverage`) and
`_define`, which hands a finished function to `trickkit.dsl.load`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import attrs
import lark

from trickkit.dsl import builtins as B
from trickkit.dsl import coverage as _coverage
from trickkit.dsl.body import (
    CALLS_RULES,
    LITERAL_NODES,
    MAX_FOLDED_INT_BITS,
    SEAT_NOW,
    SIMPLE,
    Body,
    Hoist,
    Line,
    Memo,
    flatten,
    literal_code,
    plain_memos,
    tree_size,
)
from trickkit.dsl.load import load
from trickkit.dsl.runtime import HELPERS, Budget
from trickkit.dsl.scope import Local, Scope
from trickkit.dsl.types import (
    NOT_CONST,
    CompiledDefinition,
    Context,
    Defs,
    DSLCompileError,
    Namespace,
    Node,
    Rule,
    Tree,
    Val,
    error_at,
    node_pos,
)

T = TypeVar("T")

_LEN_OF_LOCAL = re.compile(r"^_len\([a-z][0-9]+\)$")
"""``len(x)`` of a list a local holds: its test is staged, not the length (see `GenBase._hoisted`)."""

_LOCAL = re.compile(r"^[ah][0-9]+$")
"""A choice of a combination filter, or a part its loops computed (see `GenBase._leveled`)."""


_MEMO_MIN_NODES = 6
"""Smallest state-only subtree worth memoising in the state's cache (below it the cache costs more)."""


_CALL_OR_LOOP = re.compile(r"\w\(| for ")
"""Code that calls a function (a name then its parenthesis) or loops: a part worth memoising."""


class GenBase:
    """The state of one ruleset's code generation, and the steps every part goes through."""

    def __init__(self, namespace: Namespace) -> None:
        self.ns = namespace
        self._def_trees: dict[str, Tree] = dict(namespace.definitions)
        self._def_names: dict[str, tuple[str, ...]] = {}  # see _names_in_definition
        self.env: dict[str, Any] = {"__builtins__": {}}
        self.env.update(HELPERS)
        for name, b in B.FUNCTIONS.items():
            self.env[f"_fn_{name}"] = b.impl
        self._ids = itertools.count()
        self._tables: dict[int, str] = {}  # id(table) -> its name in env
        self._consts: list[Any] = []
        # (name, context sig or None, param types) -> compiled definition
        self._defs: dict[tuple[str, Context | None, tuple[str, ...]], CompiledDefinition | Val] = {}
        self._memo_keys = itertools.count()
        self._sizes: dict[str, int] = {}  # expanded size of each definition (see _expanded_size)
        self._site_sizes: dict[tuple[str, tuple[str, ...], tuple[str, ...]], int] = {}  # see _site_size
        self.definition_where: dict[str, str] = {}
        """Definition name -> ``file:line:col: $.path`` of its text, for comments in generated code."""
        self._sources: list[str] = []
        self._inline_parts: dict[str, tuple[list[str], str]] = {}  # rule function name -> (lines, code), see `_inline`
        self.body: Body = Body()  # the function being generated (each entry point sets its own)
        self.memoise = True
        # rule coverage (trickkit.dsl.coverage): counters compiled in only when asked for
        self.coverage = _coverage.requested()
        self._rule: tuple[str, str] | None = ("", "")  # (where, text) of the rule being compiled: the key of its sites
        if self.coverage is not None:
            self.env["_cov"] = self.coverage.hit
        self._ended_lets: dict[str, tuple[int, int] | None] = {}  # let names of blocks already closed -> (line, column)
        self.asked_kinds: set[str] = set()
        """The action kinds a rule asks about with ``can('kind')``: each gets a generated pass
        of its own (see `trickkit.rules.actions.ActionKindCompiler._kinds_passes`)."""
        self.inline_definitions = False
        self.in_filter = False
        """Compiling a combination filter: larger definitions over the choices are inlined too."""
        """Inline state-only definitions too (see `Splice.card_test`: computed once, before the card loop)."""

    def _root_scope(self, context: Context) -> Scope:
        return Scope({n: Local(f"a{i}", t) for i, (n, t) in enumerate(context)})

    def _unpack(self, context: Context, scope: Scope, offset: int = 0, used: frozenset[str] | None = None) -> list[str]:
        """Lines reading the frame into the context locals (those in ``used``, if given)."""
        names = [f"a{i + offset}" for i in range(len(context))]
        return [f"    {a} = fr[{i + offset}]" for i, a in enumerate(names) if used is None or a in used]

    def _expr_guarded(self, tree: Node, scope: Scope) -> Val:
        try:
            return self._expr(tree, scope, ())
        except RecursionError:
            raise DSLCompileError("expression nested too deeply") from None

    def _define(self, name: str, lines: list[str], record: bool = True) -> Rule:
        """Load the generated function ``name`` from its ``lines`` into the module (recorded in
        `source` unless ``record`` is False: a constant folded at load)."""
        source = "\n".join(lines)
        fn = load(self.env, name, source)
        if record:
            self._sources.append(source)
        return fn

    def _code(self, val: Val) -> str:
        if val.is_const:
            return self._const_code(val.const)
        return val.code

    def _const_code(self, value: Any) -> str:
        lit = literal_code(value)
        if lit is not None:
            return lit
        name = f"_k{next(self._ids)}"
        self.env[name] = value
        return name

    def _table(self, table: Sequence[Any]) -> str:
        name = self._tables.get(id(table))
        if name is None:
            name = self._tables[id(table)] = f"_T{next(self._ids)}"
            self.env[name] = table
            self._consts.append(table)  # keeps id() stable
        return name

    def _emit(self, line: str) -> None:
        self.body.lines.append(line)

    def _capture(self, fn: Callable[[], T]) -> tuple[T, list[Line]]:
        """Run ``fn()`` with a fresh list of lines; return ``(result, lines)``."""
        body = self.body
        saved = body.lines
        body.lines = []
        try:
            result = fn()
            return result, body.lines
        finally:
            body.lines = saved

    def _simple(self, val: Val) -> Val:
        """``val`` as code that may be evaluated twice: bound to a temp unless already simple."""
        code = self._code(val)
        if SIMPLE.match(code):
            return attrs.evolve(val, code=code)
        t = self.body.temp()
        self._emit(f"{t} = {code}")
        if code in SEAT_NOW or code in self.body.seats:  # a fresh temp, never assigned again: it keeps the seat
            self.body.seats.add(t)
        return attrs.evolve(val, code=t)

    def _is_seat(self, code: str) -> bool:
        """Is ``code`` a seat in 0..n-1 for sure (``current_player``, or a local known to hold one)?"""
        return (
            code in SEAT_NOW
            or code in self.body.seats
            or (code.isdigit() and int(code) < self.ns.num_players)  # a seat written as a number
        )

    def _note_bounds(self, var: str, coll: Val) -> None:
        """Record that the loop variable ``var`` over ``coll`` is an int in 0..k-1 when ``coll`` is
        a constant list of such ints (``range(0, 4)``), for `Body.bounded`."""
        items = coll.const if coll.is_const else None
        if isinstance(items, (list, tuple)) and items and all(x.__class__ is int and x >= 0 for x in items):
            self.body.bounded[var] = max(items) + 1

    def _seat_items(self, coll: Val) -> bool:
        """Is ``coll`` a constant list of seats in 0..n-1 (``seats``), or a temp of
        `Body.seat_lists`: its loop variable holds one?"""
        n = self.ns.num_players
        return coll.code in self.body.seat_lists or (
            coll.is_const
            and isinstance(coll.const, (list, tuple))
            and all(x.__class__ is int and 0 <= x < n for x in coll.const)
        )

    def _dry(self, node: Node, scope: Scope, defs: Defs) -> Val:
        """Compile ``node`` to check it, and drop its code (a branch a constant rules out)."""
        body = self.body
        saved_hoist, saved_hoisted = body.hoist, body.hoisted
        body.hoist = Hoist() if saved_hoist is not None else None
        body.hoisted = dict(saved_hoisted)  # parts hoisted here are dropped too: not to be reused
        # and so are the parts a combination filter staged at its loops' levels (they may read
        # parts of the hoist just dropped)
        saved_levels = [(len(lines), dict(parts)) for _, lines, parts in body.levels]
        try:
            return self._capture(lambda: self._expr(node, scope, defs))[0]
        finally:
            body.hoist, body.hoisted = saved_hoist, saved_hoisted
            for (_, lines, parts), (n, kept) in zip(body.levels, saved_levels, strict=True):
                del lines[n:]
                parts.clear()
                parts.update(kept)

    def _expr(self, node: Node, scope: Scope, defs: Defs) -> Val:
        kind = node.data if isinstance(node, lark.Tree) else None
        method: Callable[[Node, Scope, Defs], Val] | None = getattr(self, f"_e_{kind}", None)
        if method is None:  # pragma: no cover - grammar and compiler out of step
            raise error_at(node, f"unsupported construct {kind!r}")
        val, lines = self._capture(lambda: method(node, scope, defs))
        if val.is_const:
            return val  # the statements of a folded constant are dropped
        if not val.free and not val.state and kind not in LITERAL_NODES:
            folded = self._fold(val, lines)
            if folded is not None:
                return folded
        if val.state and not val.free and (kind != "name" or val.code.startswith("_d")):
            if self.body.loops:  # a loop invariant: computed once, when first needed
                return self._hoisted(val, lines)
            if (
                self.memoise
                and (kind == "aggregate" or tree_size(node) >= _MEMO_MIN_NODES)
                and val.code not in self.body.cards_at  # `pile[-1]`: a read cheaper than a memo
                and (lines or _CALL_OR_LOOP.search(val.code))  # plain reads and tests: cheaper than a memo too
            ):
                return self._memoised(val, lines)
        elif (
            val.state
            and self.body.loops
            and not self.body.eager
            and kind != "name"
            and val.free.isdisjoint(self.body.inner)
        ):
            # invariant too: it names only locals bound outside the loops (a `for` statement's
            # variable, the rule's context), which hold still while the expression runs
            return self._hoisted(val, lines)
        elif self.body.levels and val.free and kind not in LITERAL_NODES:
            leveled = self._leveled(val, lines)
            if leveled is not None:
                return leveled
        self.body.lines.extend(lines)
        return val

    def _fold(self, val: Val, lines: list[Line]) -> Val | None:
        """Evaluate a part that reads neither the game nor a local now, at load time."""
        name = f"_c{next(self._ids)}"
        src = [f"def {name}(s):", *flatten(lines), f"    return {val.code}"]
        try:
            fn = self._define(name, src, record=False)
            value = fn(Budget())
        except DSLCompileError:
            raise
        except Exception:  # e.g. 1 // 0: left to fail, located, at play time
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_FOLDED_INT_BITS:
            return None
        return attrs.evolve(val, const=value, code=self._const_code(value), nullable=value is None)

    def _hoisted(self, val: Val, lines: list[Line]) -> Val:
        body = self.body
        if body.eager and not lines and _LEN_OF_LOCAL.match(val.code):
            # `len(x)` of a list held in a local: left for the test around it (``len(x) == 0``
            # becomes ``not x``, no call), which is staged in its place
            return val
        if body.eager:  # before the card loop; if it fails, the engine tests card by card
            if not lines and val.code in body.hoisted:  # the same part met again: computed once
                return attrs.evolve(val, code=cast(str, body.hoisted[val.code]))
            h = body.temp("h")
            assert body.hoist is not None  # set by the loop around (see Body.hoist)
            body.hoist.lines.extend([*list(lines), f"{h} = {val.code}"])
            if not lines:
                body.hoisted[val.code] = h
            return attrs.evolve(val, code=h)
        h = body.temp("h")
        assert body.hoist is not None
        body.hoist.lines.append(f"{h} = _MISS")
        self._emit(f"if {h} is _MISS:")
        self.body.lines.append([*list(lines), f"{h} = {val.code}"])
        return attrs.evolve(val, code=h)

    def _leveled(self, val: Val, lines: list[Line]) -> Val | None:
        """In a combination filter, a part naming only the first choices (``rows[row - 1]``
        in ``place {artifact} {row} {end}``) is computed in the loop of the last one it names,
        once per value of it, not once per combination. Only parts that charge no budget and
        call no rule (plain reads and arithmetic) move: computed early, they cost nothing more
        than the combinations would, and one that fails sends the engine to its general path,
        as every failure inside a filter does."""
        if not lines and _LEN_OF_LOCAL.match(val.code):
            return val  # left for the test around it, as in `_hoisted`
        flat = "\n".join(flatten(lines, 0)) + "\n" + val.code
        if "s.budget" in flat or CALLS_RULES.search(flat):
            return None
        for bound, out, seen in self.body.levels:
            if val.free <= bound:
                if not lines and _LOCAL.match(val.code):  # already a local of the loops: no copy
                    return val
                if not lines and val.code in seen:
                    return attrs.evolve(val, code=seen[val.code])
                h = self.body.temp("h")
                out.extend([*list(lines), f"{h} = {val.code}"])
                if val.code in self.body.ranges:  # (what is known of its value holds for its local)
                    self.body.ranges[h] = self.body.ranges[val.code]
                    if val.code in self.body.bounded:
                        self.body.bounded[h] = self.body.bounded[val.code]
                if not lines:
                    seen[val.code] = h
                return attrs.evolve(val, code=h)
        return None

    def _memoised(self, val: Val, lines: list[Line]) -> Val:
        key = next(self._memo_keys)
        m, t = self.body.temp("m"), self.body.temp()
        plain_memos(lines)  # this part's cache entry covers the parts inside it
        self.body.lines.append(Memo(m, key, t, list(lines), val.code))
        return attrs.evolve(val, code=t)

    def _site(self, node: Node, kind: str, label: str, decided: str = "", shown: object = None) -> int | None:
        """The coverage site of ``node`` in the rule being compiled (None: not counting)."""
        if self.coverage is None or not self._rule or not self._rule[0]:
            return None
        where, text = self._rule
        line, column = node_pos(node)
        snippet = ""
        meta = getattr(shown, "meta", None)
        if text and meta is not None and not getattr(meta, "empty", True):
            snippet = " ".join(text[meta.start_pos : meta.end_pos].split())[:120]
        return self.coverage.site(where, line, column, kind, label, snippet, decided, text)

    def _count(self, node: Node, kind: str, label: str, shown: object, decided: str = "") -> None:
        """Emit the counter of a statement-level site (a branch, an effect, a rule)."""
        k = self._site(node, kind, label, decided, shown)
        if k is not None:
            self._emit(f"_cov(s, {k!r}, None)")

    def _counted(self, cond: Node, label: str, val: Val, lines: list[Line]) -> Val:
        """An if-expression's branch value, counted as it is taken: ``_cov(s, k, value)``."""
        k = self._site(cond, "if-expression", label, shown=cond)
        if k is None:
            return val
        if lines:
            lines.append(f"_cov(s, {k!r}, None)")
            return val
        return attrs.evolve(val, code=f"_cov(s, {k!r}, {self._code(val)})", const=NOT_CONST)

    def _in_definition(self, name: str) -> tuple[str, str] | None:
        """Point the coverage sites at definition ``name`` while its text is compiled; returns
        the rule to restore after."""
        saved = self._rule
        if saved:  # None while a trial compile counts nothing
            self._rule = (self.definition_where.get(name, ""), "")
        return saved

    def _no_filter_when_counting(self) -> None:
        """With coverage on, no generated filter: every test runs through its rule, counted
        once per evaluation (the engine falls back on the rule when a filter is missing)."""
        if self.coverage is not None:
            raise DSLCompileError("no generated filter while counting coverage")
