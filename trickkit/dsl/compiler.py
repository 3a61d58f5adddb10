"""Compiles parsed DSL trees to Python source, checks it against an allow-list, and compiles it.

Each rule becomes one generated function ``f(state, frame) -> value`` (a block:
``-> None``). ``frame`` holds the rule's context values (``card``, ``seat``, ``winner``,
an action's choices) in order. Inside, everything is plain Python: aggregates are ``for``
loops over locals, attributes are reads of per-deck tables, definitions are generated
functions (state-only ones memoised while the engine holds the state still), and
state-only parts of a loop body are computed once, when first needed.

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

import itertools
import operator
import re
from typing import Any, Callable, Mapping, Sequence

import attrs
import lark

from trickkit.dsl import allowlist
from trickkit.dsl import builtins as B
from trickkit.dsl import coverage as _coverage
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.dsl.runtime import EVALUATION_BUDGET, HELPERS, Budget, EvaluationLimit, GameEnded
from trickkit.errors import did_you_mean


class DSLCompileError(Exception):
    """A DSL text that parses but cannot be compiled (unknown name, wrong arity, type error)."""

    def __init__(self, message: str, line: int = 0, column: int = 0):
        super().__init__(message)
        self.line = line
        self.column = column


@attrs.frozen
class Symbol:
    """A name visible to DSL text, provided by the game compiler.

    ``kind`` is one of: ``const`` (``value`` is the constant), ``state`` (``value`` is a
    getter ``f(state)``; ``code``, when given, is the Python expression over ``s`` that
    reads it), ``seat_var`` / ``table_var`` / ``seat_zone`` / ``table_zone`` (``value`` is
    the index into the state's tables), ``zone_family`` (``value`` is ``(start, count)``).
    """

    kind: str
    type: str
    value: Any
    doc: str = ""
    code: str | None = None
    choices: tuple | None = None
    """For a parameter of type ``choice``: the values it may take (a text compared with it
    must be one of them)."""


@attrs.frozen
class Namespace:
    """Everything DSL text of one ruleset can name."""

    symbols: Mapping[str, Symbol]
    """Global names: parameters, variables, zones, state values."""
    card_attrs: Mapping[str, tuple]
    """Card attribute -> tuple of values indexed by card id."""
    face_attrs: Mapping[str, tuple]
    """Card attribute -> tuple of values indexed by face id (a card played in a mode)."""
    face_mode: tuple
    """Mode name (or null) of each face."""
    definitions: Mapping[str, Any] = attrs.field(factory=dict)
    """Definition name -> parse tree, compiled once per context it is used in."""
    definition_params: Mapping[str, tuple] = attrs.field(factory=dict)
    """Definition name -> its parameter names, for definitions written ``name(a, b)``."""
    num_players: int = 2
    """Seat count, for seat arithmetic."""
    action_kinds: frozenset = frozenset()
    """Names of the ruleset's action kinds, for ``can('kind')``."""
    attr_aliases: Mapping[str, Mapping[str, str]] = attrs.field(factory=dict)
    """Attribute -> {short code: value}, e.g. ``{"suit": {"H": "hearts"}}``, for suggestions."""
    attr_values: Mapping[str, frozenset] | None = None
    """Attribute -> every text value it takes in any deck the parameters allow (optional card
    groups included); None: take them from the tables."""
    variable_nullable: frozenset = frozenset()
    """Variables that may be set to null (their initial value is null)."""
    team_of: tuple | None = None
    """The team number of each seat (``teams:``); None: every seat is a team of its own."""


def elem_type(t: str) -> str:
    if t == "zone":
        return "card"
    return t[5:-1] if t.startswith("list[") else "any"


def is_list(t: str) -> bool:
    """True for list types, zones (lists of cards) and unknown types."""
    return t.startswith("list[") or t in ("zone", "any")


def _pos(node) -> tuple[int, int]:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    if isinstance(node, lark.Token):
        return node.line or 0, node.column or 0
    return 0, 0


def _err(node, message: str) -> DSLCompileError:
    return DSLCompileError(message, *_pos(node))


PLAY_FIELDS = {"seat": "int", "card": "card", "order": "int", "mode": "str"}
"""Attributes of a play (a card in a trick) besides the card's own attributes."""

_PLAY_INDEX = {"seat": 0, "card": 1, "order": 3}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod}

NOT_CONST = object()
"""`Val.const` of a value known only at play time."""

_SIMPLE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|s\.[a-z_]+|-?[0-9]+|'[^'\\]*'|True|False|None|_T[0-9]+\[a[0-9]+\])$")
"""Generated expressions cheap and safe to evaluate twice (a name, a state field, a literal, an
attribute table read at a card of the rule's context, as ``card.rank`` in a card test)."""

_GENERATED_FN = re.compile(r"^_[rg][0-9]+$")
"""Names of the generated rule functions and combination filters a kinds pass may call."""

_SEAT_NOW = ("s.current", "(s.turn_player if s.window >= 0 else s.current)")
"""Generated code of ``current_player`` and ``turn_player``: a seat, always in 0..n-1."""

_SEAT_LISTS = re.compile(r"^s\.(seat_zones|seat_vars)\[[0-9]+\]$")
"""Generated code of a seat zone or seat variable: one item per seat."""

MAX_FOLDED_INT_BITS = 4096
"""Largest int (in bits) constant folding computes at load; larger ones are left to play time."""

_INLINE_MAX_NODES = 60
"""Largest definition (counting the definitions it uses) inlined where it reads the rule's context;
larger ones become functions, so no chain of definitions can blow up the generated code."""

_INLINE_ALWAYS_NODES = 6
"""A definition this small (``lead: trick[0]``) is inlined everywhere: a call would cost more."""

_MEMO_MIN_NODES = 6
"""Smallest state-only subtree worth memoising in the state's cache (below it the cache costs more)."""


@attrs.define
class Val:
    """A compiled expression: Python ``code`` valid after the statements emitted for it."""

    code: str
    type: str
    const: Any = NOT_CONST
    nullable: bool = True
    state: bool = False  # reads the game state
    free: frozenset = frozenset()  # locals it reads that it does not bind itself
    values: tuple | None = None  # (attribute, its text values) when it reads a card attribute, or
    # (("parameter", name), its choices) for a parameter of type choice

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST


@attrs.frozen
class Local:
    name: str  # the Python local (made by the generator), or the code of an inlined argument
    type: str
    nullable: bool = True
    free: frozenset | None = None  # what it reads, when it is an inlined argument's code
    state: bool = False
    declared: tuple | None = None  # (line, column) of its ``let``: a local name the block may assign


class _Scope:
    """DSL names bound to Python locals: the rule's context, then loop variables."""

    def __init__(self, names: dict[str, Local], parent: "_Scope | None" = None):
        self.names = names
        self.parent = parent

    def lookup(self, name: str) -> Local | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> list[str]:
        out, scope = [], self
        while scope is not None:
            out += list(scope.names)
            scope = scope.parent
        return out

    def root(self) -> "_Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def child(self, name: str, local: Local) -> "_Scope":
        return _Scope({name: local}, self)


def _where(declared: tuple) -> str:
    return f"line {declared[0]}" if declared and declared[0] else "this block"


class _Body:
    """The statements of one generated function under construction.

    Lines are strings or nested lists (an indented block); a ``_Hoist`` placeholder
    collects the ``hN = _MISS`` lines of loop invariants before the outermost loop.
    """

    def __init__(self):
        self.lines: list = []
        self.counter = itertools.count()
        self.loops = 0  # aggregates (or the card loop of a filter) around the code emitted now
        self.hoist: list | None = None  # where the current outermost loop's invariants start
        self.eager = False  # compute invariants before the loop, not when first needed (card filters)
        self.hoisted: dict[str, str] = {}  # code of an eagerly hoisted part -> its local
        self.inner: set = set()  # loop variables of the aggregates within the outermost one
        # a combination filter's loops but the innermost: (choices bound there, lines run there
        # before the next choice's loop, hoisted code -> its local)
        self.levels: list[tuple[frozenset, list, dict]] = []

    def temp(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self.counter)}"


def _flatten(lines, depth=1, out=None) -> list[str]:
    out = [] if out is None else out
    for line in lines:
        if isinstance(line, str):
            out.append("    " * depth + line)
        elif isinstance(line, _Hoist):
            _flatten(line.lines, depth, out)
        elif isinstance(line, _Memo):
            _flatten(line.render(), depth, out)
        else:
            _flatten(line, depth + 1, out)
    return out


class _Memo:
    """A part memoised in the state's cache (`Compiler._memoised`), rendered when flattened:
    inside a larger memoised part it is plain (its lines, then its value), as the outer part's
    cache already computes it at most once per state held still."""

    __slots__ = ("m", "key", "t", "lines", "code", "plain")

    def __init__(self, m: str, key: int, t: str, lines: list, code: str):
        self.m, self.key, self.t, self.lines, self.code, self.plain = m, key, t, lines, code, False

    def render(self) -> list:
        m, key, t = self.m, self.key, self.t
        if self.plain:
            return list(self.lines) + [f"{t} = {self.code}"]
        return [
            f"{m} = s.memo",
            f"if {m} is not None and {key} in {m}:",
            [f"{t} = {m}[{key}]"],
            "else:",
            list(self.lines) + [f"{t} = {self.code}", f"if {m} is not None:", [f"{m}[{key}] = {t}"]],
        ]


def _plain_memos(lines) -> None:
    """Make every memoised part in ``lines`` plain (they are about to be memoised as a whole)."""
    for line in lines:
        if isinstance(line, _Memo):
            line.plain = True
            _plain_memos(line.lines)
        elif isinstance(line, _Hoist):
            _plain_memos(line.lines)
        elif isinstance(line, list):
            _plain_memos(line)


class _Hoist:
    def __init__(self):
        self.lines: list[str] = []


def _literal(value) -> str | None:
    """Python source of a constant that is written literally (int, text, bool, null)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_FOLDED_INT_BITS:
        return None  # a huge number (a bad parameter, reported elsewhere) stays a namespace constant
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    return None


def _location_comment(where: str) -> str:
    return "# " + repr(where)[1:-1][:300]


class Compiler:
    """Compiles DSL texts of one ruleset against its `Namespace`, to generated functions.

    ``context`` names given to `expression` / `block` are the rule's frame, in order; the
    callers pass their values positionally. All generated functions of one Compiler share
    one namespace (one module per game); `source` shows it.
    """

    def __init__(self, namespace: Namespace):
        self.ns = namespace
        self._def_trees: dict[str, lark.Tree] = dict(namespace.definitions)
        self._def_names: dict[str, tuple[str, ...]] = {}  # see _names_in_definition
        self.env: dict[str, Any] = {"__builtins__": {}}
        self.env.update(HELPERS)
        for name, b in B.FUNCTIONS.items():
            self.env[f"_fn_{name}"] = b.impl
        self._ids = itertools.count()
        self._tables: dict[int, str] = {}  # id(table) -> its name in env
        self._consts: list[Any] = []
        self._defs: dict[tuple, tuple | Val] = {}  # (name, context sig, param types) -> compiled definition
        self._memo_keys = itertools.count()
        self._sizes: dict[str, int] = {}  # expanded size of each definition (see _expanded_size)
        self.definition_where: dict[str, str] = {}
        """Definition name -> ``file:line:col: $.path`` of its text, for comments in generated code."""
        self._sources: list[str] = []
        self._inline_parts: dict[str, tuple] = {}  # rule function name -> (lines, code), see `_inline`
        self.body: _Body | None = None
        self.memoise = True
        # rule coverage (trickkit.dsl.coverage): counters compiled in only when asked for
        self.coverage = _coverage.requested()
        self._rule = ("", "")  # (where, text) of the rule being compiled: the key of its sites
        if self.coverage is not None:
            self.env["_cov"] = self.coverage.hit
        self._ended_lets: dict[str, tuple] = {}  # let names of blocks already closed -> (line, column)
        self.inline_definitions = False
        """Inline state-only definitions too (see `Splice.card_test`: computed once, before the card loop)."""

    # -- entry points -----------------------------------------------------------------
    def expression(
        self,
        text: str,
        context: Sequence[tuple[str, str]] = (),
        want: str | None = None,
        memoise: bool = True,
        where: str = "",
    ):
        """Compile an expression. Returns ``(function, frame_size, type)``.

        ``memoise``: memoise its larger state-only parts in the state's cache while the
        engine holds the state still (worth it for rules tested once per candidate).

        Raises:
            DSLSyntaxError, DSLCompileError: located within ``text``.
        """
        tree = parse(str(text), "expr") if not isinstance(text, bool) else parse(str(text).lower(), "expr")
        if self.coverage is not None:
            tree._text = str(text)  # for the coverage report's snippets
        return self.expression_tree(tree, context, want, memoise, where)

    def expression_tree(self, tree, context=(), want=None, memoise=True, where=""):
        """`expression` for a parsed tree."""
        self._rule = (where, getattr(tree, "_text", ""))
        val, fn = self._function(tree, context, memoise, where)
        if want and not _assignable(val.type, want):
            raise _err(tree, f"must be {WANTED.get(want, want)}, got {_describe_type(val.type)}")
        return fn, len(context), val.type

    def context_reads(self, tree, context) -> bool:
        """Does ``tree``, compiled with ``context`` in scope, read a context name (directly,
        or through a definition)?

        Raises:
            DSLCompileError: as `expression_tree`.
        """
        saved, saved_rule = self.body, self._rule
        self.body, self._rule = _Body(), None  # a trial compile: it registers no coverage site
        try:
            scope = self._root_scope(context)
            val = self._expr_guarded(tree, scope)
        finally:
            self.body, self._rule = saved, saved_rule
        return bool(val.free)

    def block(self, text: str, context: Sequence[tuple[str, str]] = (), where: str = ""):
        """Compile a statement block. Returns ``(function, frame_size)``.

        Blocks change the state between statements, so nothing is memoised across
        statements; loop invariants are hoisted only within one statement's expression.
        """
        tree = parse(str(text), "block")
        saved, self.body = self.body, _Body()
        saved_memo, self.memoise = self.memoise, False
        self._rule = (where, str(text))
        try:
            scope = self._root_scope(context)
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
            lines.append("    " + _location_comment(where))
        lines += self._unpack(context, scope)
        lines += _flatten(body.lines) or ["    pass"]
        return self._define(name, lines), len(context)

    def card_filter(self, tree, context):
        """A card test as one pass over a hand: ``filter(state, frame, cards) -> cards passing``.

        The test's context must start with the card (``("card", "card")``); state-only
        parts of the test are computed once per call, when first needed.

        Raises:
            DSLCompileError: as `expression_tree`.
        """
        self._no_filter_when_counting()
        scope = self._root_scope(context)
        card = scope.names[context[0][0]]
        scope.names[context[0][0]] = Local(card.name, card.type, nullable=False)
        val, body, inner = self._loop_test(tree, scope)
        name = f"_f{next(self._ids)}"
        lines = [f"def {name}(s, fr, cards):"]
        lines += self._unpack(context[1:], scope, offset=1)
        lines += _flatten(body.hoist.lines)
        if not inner:
            lines.append(f"    return [{card.name} for {card.name} in cards if {self._code(val)}]")
        else:
            lines += ["    out = []", f"    for {card.name} in cards:"]
            lines += _flatten(inner, depth=2)
            lines += [f"        if {self._code(val)}:", f"            out.append({card.name})", "    return out"]
        return self._define(name, lines), len(context)

    def combo_filter(self, tree, context, first_only: bool = False):
        """An action kind's test over every combination of its choices, as one generated pass:
        ``filter(state, frame, domains) -> [combination, ...]`` in the order of
        ``itertools.product(*domains)``; ``context`` names the choices, one per domain.

        State-only parts of the test are computed once per call, before the loops (a failure
        there makes the engine fall back to testing each combination on its own). With
        ``first_only`` it stops at the first combination that passes (a list of at most one).

        Raises:
            DSLCompileError: as `expression_tree`.
        """
        self._no_filter_when_counting()
        # choice values are taken as never null: where one is, the generated code raises
        # and the engine tests that kind's combinations one by one, with the null checks
        scope = _Scope({n: Local(f"a{i}", t, nullable=False) for i, (n, t) in enumerate(context)})
        n = len(context)
        levels = [(frozenset(f"a{j}" for j in range(i + 1)), [], {}) for i in range(n - 1)]
        val, body, inner = self._loop_test(tree, scope, levels)
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr, domains):"]
        lines += _flatten(body.hoist.lines)
        lines.append("    out = []")
        for i in range(n):
            lines.append("    " * (i + 1) + f"for a{i} in domains[{i}]:")
            if i < n - 1:  # the parts that name only the choices so far
                lines += _flatten(levels[i][1], depth=i + 2)
        pad = "    " * (n + 1)
        lines += _flatten(inner, depth=n + 1)
        combo = "(" + ", ".join(f"a{i}" for i in range(n)) + ("," if n == 1 else "") + ")"
        found = f"return [{combo}]" if first_only else f"out.append({combo})"
        lines += [f"{pad}if {self._code(val)}:", f"{pad}    {found}", "    return out"]
        return self._define(name, lines)

    def kinds_pass(self, kinds: Sequence[Mapping[str, Any]], first_only: bool = False, texts=None):
        """One generated function over a turns step's action kinds (or a reaction window's):
        for each kind in order, its guard, its choices' domains (copies of a card offered once
        when ``texts``, the deck's card texts, is given), the evaluation budget charge and its
        combination filter, as the engine's general path (`trickkit.engine.turns._combinations`)
        computes them, without a Python call per hook.

        Each of ``kinds`` names the functions already generated for that kind: ``guard``
        (or None), ``domains`` (one per choice), ``cards`` (per choice: is it a card choice),
        ``filter`` (the generated combination filter, or ``"all"``: every combination),
        ``allowed`` (for a kind without choices) and ``where`` (for a comment).

        Returns ``fn(state, frame)``: a list with each kind's combinations (a list of tuples,
        in ``itertools.product`` order), or with ``first_only`` True when some kind has one.
        Any error inside means: ask the general path, which reports it, located.
        """
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr):"]
        if not first_only:
            lines.append("    out = []")
        texts_code = self._table(texts) if texts is not None else None

        def ref(fn) -> str:  # a function generated before, by its own name in this module
            fname = getattr(fn, "__name__", "")
            if not _GENERATED_FN.match(fname) or self.env.get(fname) is not fn:
                raise DSLCompileError(f"not a generated function: {fname!r}")
            return fname

        base = [1000]  # inlined rules' locals are renumbered from here: no clash with the pass's own

        def call(fn, target: str) -> list:
            """Lines computing ``fn(s, ())`` into the test or assignment ``target`` (``"if {}:"``,
            ``"v0 = {}"``): the rule's own statements inlined, or else a call of it."""
            inlined = self._inline(ref(fn), base)
            if inlined is None:
                return [target.format(f"{ref(fn)}(s, ())")]
            lines, code = inlined
            return lines + [target.format(code)]

        found = "return True" if first_only else None
        for kind in kinds:
            body: list = []
            if kind.get("where"):
                lines.append("    " + _location_comment(kind["where"]))
            domains = kind["domains"]
            charge = [
                "s.budget -= " + (" * ".join(f"_len(v{i})" for i in range(len(domains))) or "1"),
                "if s.budget < 0:",
                ["_over_budget()"],
            ]
            if not domains:  # one combination, (): `allowed` itself decides (after the guard, if any)
                test = call(kind["allowed"], "if {}:") + [[found or "out.append([()])"]]
                if not first_only:
                    test += ["else:", ["out.append(())"]]
                if kind["guard"] is None:
                    body = charge + test
                else:
                    body = call(kind["guard"], "t0 = {}") + [
                        "if t0 is True:",
                        [found or "out.append([()])"],
                        "elif t0:",
                        charge + test,
                    ]
                    if not first_only:
                        body += ["else:", ["out.append(())"]]
            else:
                inner = []
                for i, (fn, card) in enumerate(zip(domains, kind["cards"])):
                    inner += call(fn, f"v{i} = {{}}")
                    if card and texts_code is not None:
                        inner.append(f"v{i} = _distinct_cards(v{i}, {texts_code})")
                inner += charge
                listed = "[" + ", ".join(f"v{i}" for i in range(len(domains))) + "]"
                flt = kind["filter"]
                if flt == "all":
                    if first_only:
                        inner += ["if " + " and ".join(f"v{i}" for i in range(len(domains))) + ":", [found]]
                    else:
                        inner.append(f"out.append(_product({listed}))")
                elif first_only:
                    inner += [f"if {ref(flt)}(s, (), {listed}):", [found]]
                else:
                    inner.append(f"out.append({ref(flt)}(s, (), {listed}))")
                if kind["guard"] is None:
                    body = inner
                else:
                    body = call(kind["guard"], "if {}:") + [inner]
                    if not first_only:
                        body += ["else:", ["out.append(())"]]
            lines += _flatten(body)
        lines.append("    return False" if first_only else "    return out")
        return self._define(name, lines)

    def _inline(self, name: str, base: list) -> tuple[list, str] | None:
        """The statements and result of the generated rule ``name`` (a function of the state
        alone, called with an empty frame), its locals renumbered from ``base[0]`` (moved on
        past them): ``(lines, code)`` to put in place of a call of it. None when it reads its
        frame, holds a text literal (renumbering edits names in the code's text) or is long."""
        parts = self._inline_parts.get(name)
        if parts is None:
            return None
        lines, code = parts
        if len(lines) > _INLINE_MAX_LINES:  # a long one would cost more to compile than its call does to run
            return None
        text = "\n".join(lines) + "\n" + code
        if "'" in text or '"' in text or _FRAME_NAME.search(text):
            return None
        top = max((int(n) for n in _TEMP_REF.findall(text)), default=-1)
        offset = base[0]
        base[0] += top + 1

        def renumber(line: str) -> str:
            return _TEMP_SUB.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", line)

        return [renumber(line) for line in lines], f"({renumber(code)})"

    def _loop_test(self, tree, scope, levels=()) -> tuple[Val, _Body, list]:
        """Compile a test that a generated loop runs per candidate: ``(value, body, lines)``,
        with the state-only parts in ``body.hoist``, computed before the loop (and ``levels``:
        see `_Body.levels`)."""
        if isinstance(tree, str):
            tree = parse(tree, "expr")
        saved, self.body = self.body, _Body()
        try:
            body = self.body
            body.levels = list(levels)
            body.loops = 1
            body.hoist = _Hoist()
            body.eager = True
            inner: list = []
            body.lines = inner
            return self._expr_guarded(tree, scope), body, inner
        finally:
            self.body = saved

    def source(self) -> str:
        """The generated module: every function compiled so far, in order."""
        return "\n\n".join(self._sources) + "\n"

    # -- functions --------------------------------------------------------------------
    def _root_scope(self, context) -> _Scope:
        return _Scope({n: Local(f"a{i}", t) for i, (n, t) in enumerate(context)})

    def _unpack(self, context, scope, offset=0, used=None) -> list[str]:
        """Lines reading the frame into the context locals (those in ``used``, if given)."""
        names = [f"a{i + offset}" for i in range(len(context))]
        return [f"    {a} = fr[{i + offset}]" for i, a in enumerate(names) if used is None or a in used]

    def _expr_guarded(self, tree, scope) -> Val:
        try:
            return self._expr(tree, scope, ())
        except RecursionError:
            raise DSLCompileError("expression nested too deeply") from None

    def _function(self, tree, context, memoise, where) -> tuple[Val, Callable]:
        saved, self.body = self.body, _Body()
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
            lines.append("    " + _location_comment(where))
        unpack = self._unpack(context, scope, used=val.free)
        lines += unpack
        lines += _flatten(body.lines)
        lines.append(f"    return {self._code(val)}")
        fn = self._define(name, lines)
        if not unpack:  # a function of the state alone: a generated pass may inline it
            self._inline_parts[name] = (_flatten(body.lines, 0), self._code(val))
        if val.is_const:
            fn.const_value = val.const
        fn.nullable = val.nullable
        return val, fn

    def _define(self, name: str, lines: list[str], record: bool = True):
        source = "\n".join(lines)
        cached = _COMPILED.get(source)
        if cached is not None and cached[1] <= self.env.keys():  # checked before, names all defined here
            code = cached[0]
        else:
            try:
                tree = allowlist.check(source, self.env)
                code = compile(tree, f"<trickkit rules {name}>", "exec")
            except (SyntaxError, RecursionError, MemoryError):
                raise DSLCompileError("expression nested too deeply for the compiler") from None
            if len(_COMPILED) < _COMPILED_MAX:
                _COMPILED[source] = (code, frozenset(n for n in _global_names(code) if n.startswith("_") and n != name))
        exec(code, self.env)  # the allow-listed module, in its own namespace without built-ins
        if record:
            self._sources.append(source)
        return self.env[name]

    def _code(self, val: Val) -> str:
        if val.is_const:
            return self._const_code(val.const)
        return val.code

    def _const_code(self, value) -> str:
        lit = _literal(value)
        if lit is not None:
            return lit
        name = f"_k{next(self._ids)}"
        self.env[name] = value
        return name

    def _table(self, table) -> str:
        name = self._tables.get(id(table))
        if name is None:
            name = self._tables[id(table)] = f"_T{next(self._ids)}"
            self.env[name] = table
            self._consts.append(table)  # keeps id() stable
        return name

    def _emit(self, line: str) -> None:
        self.body.lines.append(line)

    def _dry(self, node, scope, defs) -> Val:
        """Compile ``node`` to check it, and drop its code (a branch a constant rules out)."""
        body = self.body
        saved_hoist, saved_hoisted = body.hoist, body.hoisted
        body.hoist = _Hoist() if saved_hoist is not None else None
        body.hoisted = dict(saved_hoisted)  # parts hoisted here are dropped too: not to be reused
        try:
            return self._capture(lambda: self._expr(node, scope, defs))[0]
        finally:
            body.hoist, body.hoisted = saved_hoist, saved_hoisted

    def _capture(self, fn):
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
        if _SIMPLE.match(code):
            return attrs.evolve(val, code=code)
        t = self.body.temp()
        self._emit(f"{t} = {code}")
        return attrs.evolve(val, code=t)

    # -- expressions ------------------------------------------------------------------
    def _expr(self, node, scope: _Scope, defs: tuple) -> Val:
        kind = node.data if isinstance(node, lark.Tree) else None
        method = getattr(self, f"_e_{kind}", None)
        if method is None:  # pragma: no cover - grammar and compiler out of step
            raise _err(node, f"unsupported construct {kind!r}")
        val, lines = self._capture(lambda: method(node, scope, defs))
        if val.is_const:
            return val  # the statements of a folded constant are dropped
        if not val.free and not val.state and kind not in _LITERALS:
            folded = self._fold(val, lines)
            if folded is not None:
                return folded
        if val.state and not val.free and (kind != "name" or val.code.startswith("_d")):
            if self.body.loops:  # a loop invariant: computed once, when first needed
                return self._hoisted(val, lines)
            if self.memoise and (kind == "aggregate" or _size(node) >= _MEMO_MIN_NODES):
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
        elif self.body.levels and val.free and kind not in _LITERALS:
            leveled = self._leveled(val, lines)
            if leveled is not None:
                return leveled
        self.body.lines.extend(lines)
        return val

    def _fold(self, val: Val, lines) -> Val | None:
        """Evaluate a part that reads neither the game nor a local now, at load time."""
        name = f"_c{next(self._ids)}"
        src = [f"def {name}(s):"] + _flatten(lines) + [f"    return {val.code}"]
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

    def _hoisted(self, val: Val, lines) -> Val:
        body = self.body
        if body.eager:  # before the card loop; if it fails, the engine tests card by card
            if not lines and val.code in body.hoisted:  # the same part met again: computed once
                return attrs.evolve(val, code=body.hoisted[val.code])
            h = body.temp("h")
            body.hoist.lines.extend(list(lines) + [f"{h} = {val.code}"])
            if not lines:
                body.hoisted[val.code] = h
            return attrs.evolve(val, code=h)
        h = body.temp("h")
        self.body.hoist.lines.append(f"{h} = _MISS")
        self._emit(f"if {h} is _MISS:")
        self.body.lines.append(list(lines) + [f"{h} = {val.code}"])
        return attrs.evolve(val, code=h)

    def _leveled(self, val: Val, lines) -> Val | None:
        """In a combination filter, a part naming only the first choices (``rows[row - 1]``
        in ``place {artifact} {row} {end}``) is computed in the loop of the last one it names,
        once per value of it, not once per combination. Only parts that charge no budget and
        call no rule (plain reads and arithmetic) move: computed early, they cost nothing more
        than the combinations would, and one that fails sends the engine to its general path,
        as every failure inside a filter does."""
        flat = "\n".join(_flatten(lines, 0)) + "\n" + val.code
        if "s.budget" in flat or _CALLS_RULES.search(flat):
            return None
        for bound, out, seen in self.body.levels:
            if val.free <= bound:
                if not lines and val.code in seen:
                    return attrs.evolve(val, code=seen[val.code])
                h = self.body.temp("h")
                out.extend(list(lines) + [f"{h} = {val.code}"])
                if not lines:
                    seen[val.code] = h
                return attrs.evolve(val, code=h)
        return None

    def _memoised(self, val: Val, lines) -> Val:
        key = next(self._memo_keys)
        m, t = self.body.temp("m"), self.body.temp()
        _plain_memos(lines)  # this part's cache entry covers the parts inside it
        self.body.lines.append(_Memo(m, key, t, list(lines), val.code))
        return attrs.evolve(val, code=t)

    def _e_int_lit(self, node, scope, defs):
        try:
            v = int(node.children[0])
        except ValueError:  # over Python's limit on digits converted
            raise _err(node, f"integer literal with {len(node.children[0])} digits is too large") from None
        return Val(repr(v), "int", v, False)

    def _e_str_lit(self, node, scope, defs):
        v = str(node.children[0])[1:-1]
        return Val(repr(v), "str", v, False)

    def _e_true_lit(self, node, scope, defs):
        return Val("True", "bool", True, False)

    def _e_false_lit(self, node, scope, defs):
        return Val("False", "bool", False, False)

    def _e_null_lit(self, node, scope, defs):
        return Val("None", "null", None, True)

    def _e_list_lit(self, node, scope, defs):
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
            state=any(v.state for v in items),
            free=frozenset().union(*(v.free for v in items)),
        )

    def _e_name(self, node, scope, defs):
        name = str(node.children[0])
        local = scope.lookup(name)
        if local is not None:
            free = frozenset([local.name]) if local.free is None else local.free
            return Val(local.name, local.type, nullable=local.nullable, free=free, state=local.state)
        if name in self._def_trees and self.ns.definition_params.get(name):
            params = self.ns.definition_params[name]
            raise _err(
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
                raise _err(
                    node,
                    f"{name!r} is a local name of a block that has ended (its let is at "
                    f"{_where(ended[name])}): a local lives until the end of the block that declares it",
                )
            known = list(self.ns.symbols) + list(self._def_trees) + scope.all_names()
            raise _err(node, f"unknown name {name!r}{did_you_mean(name, known)}")
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
        raise _err(node, f"cannot use {name!r} here")  # pragma: no cover

    def _call_definition(self, node, name, args: list[Val], scope, defs) -> Val:
        """A call of a definition: compiled once per (context types, argument types) as a
        generated function taking the context values it reads and its arguments."""
        params = self.ns.definition_params.get(name, ())
        if len(args) != len(params):
            raise _err(node, f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''}, got {len(args)}")
        if name in defs:
            raise _err(node, f"definition {name!r} refers to itself ({' -> '.join(defs + (name,))})")
        root = scope.root()
        size = self._expanded_size(name)
        if (
            (args or self.inline_definitions or self._reads_context(name, root))
            and size <= _INLINE_MAX_NODES
            or size <= _INLINE_ALWAYS_NODES
        ):
            # small and tied to the rule's context: inline, so its state-only parts can be hoisted
            inner = root
            for p, a in zip(params, args):
                x = self._simple(a)
                inner = inner.child(p, Local(x.code, a.type, a.nullable, a.free, a.state))
            # a state-only definition inlined before a card loop (Splice.card_test) is computed once
            once = ("definition", name) if self.inline_definitions and not args and self.body.eager else None
            if once is not None and once in self.body.hoisted:
                return self.body.hoisted[once]
            saved_rule = self._in_definition(name)
            try:
                val = self._expr(self._def_trees[name], inner, defs + (name,))
            except DSLCompileError as e:
                raise _err(node, f"in definition {name!r}: {e}") from None
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
                raise _err(node, f"in definition {name!r}: {e}") from None
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

    def _reads_context(self, name, root: _Scope) -> bool:
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

    def _names_in_definition(self, name) -> tuple[str, ...]:
        """The distinct NAME tokens of definition ``name``'s text, in order (scanned once)."""
        words = self._def_names.get(name)
        if words is None:
            tokens = self._def_trees[name].scan_values(lambda v: isinstance(v, lark.Token) and v.type == "NAME")
            words = self._def_names[name] = tuple(dict.fromkeys(str(tok) for tok in tokens))
        return words

    def _expanded_size(self, name: str, active: tuple = ()) -> int:
        """Tree nodes of a definition with every definition it uses inlined (capped)."""
        if name in self._sizes:
            return self._sizes[name]
        if name in active:
            return _INLINE_MAX_NODES + 1  # a cycle: reported where it is compiled
        tree = self._def_trees[name]
        total = _size(tree)
        for tok in tree.scan_values(lambda v: isinstance(v, lark.Token) and v.type == "NAME"):
            if str(tok) in self._def_trees:
                total += self._expanded_size(str(tok), active + (name,))
            if total > _INLINE_MAX_NODES:
                break
        self._sizes[name] = total = min(total, _INLINE_MAX_NODES + 1)
        return total

    def _compile_definition(self, name, context, params, args, defs):
        saved, self.body = self.body, _Body()
        saved_memo, self.memoise = self.memoise, False  # a state-only definition is memoised whole
        saved_rule = self._in_definition(name)
        try:
            names = {n: Local(f"q{i}", t) for i, (n, t) in enumerate(context)}
            scope = _Scope(names)  # the rule's context is the root: nested definitions see it
            for k, (p, a) in enumerate(zip(params, args)):
                scope = scope.child(p, Local(f"p{k}", a.type, a.nullable))
            val = self._expr(self._def_trees[name], scope, defs + (name,))
            body = self.body
        finally:
            self.body, self.memoise, self._rule = saved, saved_memo, saved_rule
        if val.is_const:
            return val
        read = [n for i, (n, _) in enumerate(context) if f"q{i}" in val.free]
        arg_names = [names[n].name for n in read] + [f"p{k}" for k in range(len(params))]
        fname = f"_d{next(self._ids)}"
        lines = [
            f"def {fname}({', '.join(['s'] + arg_names)}):",
            "    " + _location_comment(self.definition_where.get(name, "definition")),
        ]
        if not arg_names:  # state-only: one value per state held still, shared by every rule
            key = next(self._memo_keys)
            m, r = body.temp("m"), body.temp()
            lines += [f"    {m} = s.memo", f"    if {m} is not None and {key} in {m}:", f"        return {m}[{key}]"]
            lines += _flatten(body.lines)
            lines += [
                f"    {r} = {val.code}",
                f"    if {m} is not None:",
                f"        {m}[{key}] = {r}",
                f"    return {r}",
            ]
        else:
            lines += _flatten(body.lines)
            lines.append(f"    return {val.code}")
        self._define(fname, lines)
        return fname, read, val.type, val.nullable, val.values

    def _e_attr(self, node, scope, defs):
        base, attr_tok = node.children
        attr = str(attr_tok)
        b = self._expr(base, scope, defs)
        bt = b.type
        if bt in ("card", "play") or bt == "any" and (attr in self.ns.card_attrs or attr in PLAY_FIELDS):
            if bt == "card":
                table = self.ns.card_attrs.get(attr)
                if table is None:
                    raise _err(
                        attr_tok,
                        f"cards have no attribute {attr!r}{did_you_mean(attr, self.ns.card_attrs)} "
                        f"(their attributes: {', '.join(self.ns.card_attrs)})",
                    )
                tn = self._table(table)
                result_type, nullable = _attr_type(table), None in table
                read = lambda x: f"{tn}[{x}]"  # noqa: E731
            elif bt == "play":
                if attr in _PLAY_INDEX:
                    k = _PLAY_INDEX[attr]
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
                        raise _err(
                            attr_tok,
                            f"plays have no attribute {attr!r}{did_you_mean(attr, known)} "
                            f"(their attributes: {', '.join(known)})",
                        )
                    tn = self._table(table)
                    result_type, nullable = _attr_type(table), None in table
                    read = lambda x: f"{tn}[{x}[2]]"  # noqa: E731
            else:  # type unknown at load (e.g. a choice seen from a definition): decide per value
                ctable = self.ns.card_attrs.get(attr)
                ftable = self.ns.face_attrs.get(attr)
                args = [
                    self._code(b),
                    self._table(ctable) if ctable is not None else "None",
                    self._table(ftable) if ftable is not None else "None",
                    repr(_PLAY_INDEX.get(attr)),
                ]
                return Val(f"_attr_any({', '.join(args)})", "any", state=b.state, free=b.free)
            values = self._attr_values(attr, bt)
            if b.is_const and b.const is None:
                return Val("None", result_type, None, True)
            if not b.nullable:
                return Val(
                    read(self._code(b)), result_type, nullable=nullable, state=b.state, free=b.free, values=values
                )
            x = self._simple(b)
            return Val(
                f"(None if {x.code} is None else {read(x.code)})",
                result_type,
                state=b.state,
                free=b.free,
                values=values,
            )
        raise _err(attr_tok, f"cannot take attribute {attr!r} of a {bt} value (only cards and plays have attributes)")

    def _attr_values(self, attr: str, base_type: str) -> tuple | None:
        """``(attr, texts)``: the text values a card attribute takes (to check literals against)."""
        if attr == "mode":
            table = self.ns.face_mode
        else:
            table = (self.ns.card_attrs if base_type == "card" else self.ns.face_attrs).get(attr)
        if table is None or _attr_type(table) != "str":
            return None
        if self.ns.attr_values is not None and attr in self.ns.attr_values:
            return attr, self.ns.attr_values[attr]
        return attr, frozenset(v for v in table if v is not None)

    def _check_literal(self, node, attr_val: Val, lit) -> None:
        """A text literal compared with a card attribute must be one of its values."""
        if attr_val.values is None or not isinstance(lit, str) or isinstance(lit, bool):
            return
        attr, values = attr_val.values
        if lit in values:
            return
        if isinstance(attr, tuple):  # a parameter of type choice
            shown = ", ".join(repr(v) for v in sorted(values))
            raise _err(
                node,
                f"parameter {attr[1]!r} is never {lit!r}{did_you_mean(lit, sorted(values))}; its choices are {shown}",
            )
        alias = self.ns.attr_aliases.get(attr, {}).get(lit)
        hint = f" (did you mean {alias!r}?)" if alias in values else did_you_mean(lit, sorted(values))
        shown = ", ".join(repr(v) for v in sorted(values)[:12]) + (" ..." if len(values) > 12 else "")
        raise _err(node, f"no card has {attr} {lit!r}{hint}; the values are {shown}")

    def _e_index(self, node, scope, defs):
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
            xs = self._simple(x)
            test = f"{xs.code} is not None and 0 <= {xs.code} < {count}" if x.nullable else f"0 <= {xs.code} < {count}"
            return Val(f"(s.table_zones[{start} + {xs.code}] if {test} else None)", "zone", state=True, free=x.free)
        b = self._expr(base, scope, defs)
        if x.type not in ("int", "any", "null"):
            raise _err(idx, f"an index must be an int, got {x.type}")
        if not is_list(b.type):
            raise _err(base, f"cannot index a {b.type} value")
        et = elem_type(b.type)
        state, free = b.state or x.state, b.free | x.free
        if x.is_const and isinstance(x.const, int) and not isinstance(x.const, bool):  # `trick[0]`, `row[-1]`
            if b.is_const and b.const is None:  # `piles[9][0]`: no `None[0]` in generated code
                return Val("None", et, None, True)
            i = x.const
            bs = self._simple(b)
            test = bs.code if i in (0, -1) else f"{i} < _len({bs.code})" if i >= 0 else f"{-i} <= _len({bs.code})"
            if b.nullable:
                test = f"{bs.code} is not None and {test}"
            return Val(f"({bs.code}[{i}] if {test} else None)", et, state=state, free=free)
        if x.code in _SEAT_NOW and _SEAT_LISTS.match(b.code):  # `hand[current_player]`: always in range
            return Val(f"{b.code}[{x.code}]", et, nullable=et != "zone", state=True, free=free)
        if not b.nullable and not x.nullable:  # the common `score[s]`: no call when the index is in range
            # a seat list holds one item per seat: its length is the seat count, known here
            size = str(self.ns.num_players) if _SEAT_LISTS.match(b.code) else None
            bs, xs = b if size else self._simple(b), self._simple(x)  # `s.seat_vars[0]` is read only once
            size = size or f"_len({bs.code})"
            return Val(
                f"({bs.code}[{xs.code}] if 0 <= {xs.code} < {size} else _index({bs.code}, {xs.code}))",
                et,
                state=state,
                free=free,
            )
        return Val(f"_index({self._code(b)}, {self._code(x)})", et, state=state, free=free)

    def _family(self, node, scope):
        """(start, count) when ``node`` names a zone family (and no local hides it)."""
        if isinstance(node, lark.Tree) and node.data == "name":
            name = str(node.children[0])
            sym = self.ns.symbols.get(name)
            if sym is not None and sym.kind == "zone_family" and scope.lookup(name) is None:
                return sym.value
        return None

    def _e_call(self, node, scope, defs):
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
            return Val(code, "int", nullable=False, state=state, free=free)
        if name in self.ns.definition_params and name in self._def_trees:
            return self._call_definition(node, name, vals, scope, defs)
        if name == "can":
            self._check_arity(node, name, ("str",), vals)
            kind_node = args[0]
            if not (isinstance(kind_node, lark.Tree) and kind_node.data == "str_lit"):
                raise _err(kind_node, "can() takes the name of an action kind in quotes, e.g. can('place')")
            kind = str(kind_node.children[0])[1:-1]
            if kind not in self.ns.action_kinds:
                raise _err(kind_node, f"no action kind {kind!r}{did_you_mean(kind, self.ns.action_kinds)}")
            return Val(f"_can(s, {kind!r})", "bool", nullable=False, state=True)
        if name == "card_named":
            return self._card_named(node, args, vals)
        b = B.FUNCTIONS.get(name)
        if b is None:
            if name in B.AGGREGATES:
                raise _err(name_tok, f"{name}() takes a generator: {B.AGGREGATES[name].example}")
            known = list(B.FUNCTIONS) + list(B.SEAT_FUNCTIONS) + list(B.AGGREGATES) + ["can"]
            if name in B.EFFECTS:
                raise _err(name_tok, f"{name}() is an effect: use it as a statement in a block, not in an expression")
            raise _err(name_tok, f"unknown function {name!r}{did_you_mean(name, known)}")
        self._check_arity(node, name, b.params, vals)
        result = vals[0].type if b.result == "arg0" else b.result
        if b.result == "concat":
            inner = elem_type(vals[0].type)
            if inner not in ("any", "null") and not is_list(inner):
                raise _err(args[0], f"concat() joins a list of lists (e.g. concat(court)), got a list of {inner}")
            result = inner if is_list(inner) else "list[any]"
            if result == "zone":
                result = "list[card]"
        nullable = name in ("index_of", "seat_holding") or result == "any"
        code = self._text_code if name == "str" else self._code  # str(card) is its text
        args = ", ".join(code(v) for v in vals)
        if name in _WALKING and any(_may_be_long(v) for v in vals):
            # the built-in walks a list: charged by its items, as a loop over it would be
            return Val(f"_charged(s, _fn_{name}, {args})", result, nullable=nullable, state=state, free=free)
        return Val(f"_fn_{name}({args})", result, nullable=nullable, state=state, free=free)

    _TEXTED = ("card", "play", "list[card]", "list[play]", "zone")

    def _text_code(self, v: Val) -> str:
        """Code for ``v`` as text is made of it: a card (or a play, or a list of them) by its
        canonical text (``C10``), not its internal number; other values as they are."""
        texts = self.ns.card_attrs.get("text")
        if v.type not in self._TEXTED or texts is None:
            return self._code(v)
        return f"_card_text({self._code(v)}, {self._table(texts)})"

    def _card_named(self, node, args, vals) -> Val:
        """``card_named('C2')``: the card with that text, checked at load (a constant)."""
        self._check_arity(node, "card_named", ("str",), vals)
        lit = args[0]
        if not (isinstance(lit, lark.Tree) and lit.data == "str_lit"):
            raise _err(lit, "card_named() takes a card's text in quotes, e.g. card_named('C2')")
        text = vals[0].const
        texts = self.ns.card_attrs.get("text", ())
        ids = [i for i, t in enumerate(texts) if t == text]
        if len(ids) > 1:
            raise _err(
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
            raise _err(lit, f"no card has the text {text!r}{hint}")
        return Val(repr(ids[0]), "card", ids[0], False)

    def _check_arity(self, node, name, params, vals):
        if len(params) != len(vals):
            raise _err(node, f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''}, got {len(vals)}")
        for p, v, a in zip(params, vals, node.children[1:]):
            t = v.type
            if p == "list" and not (is_list(t) or t == "null"):
                raise _err(a, f"{name}() expects a list, got {t}")
            if p == "int" and t not in ("int", "any", "null", "bool"):
                raise _err(a, f"{name}() expects an int, got {t}")
            if p == "int" and t == "null" and name not in _TEAM_FUNCTIONS:  # those give null for null
                raise _err(a, f"{name}() expects an int, got null (always null here)")
            if p == "card" and t not in ("card", "any", "null"):
                hint = " (name a card by a card value, e.g. a loop variable over a zone)" if t == "str" else ""
                raise _err(a, f"{name}() expects a card, got {_describe_type(t)}{hint}")

    def _collection(self, coll: Val, node) -> str:
        """Emit the evaluation of a list to iterate over, charged to the budget; its temp."""
        if not is_list(coll.type):
            raise _err(node, f"can only iterate over a list, got {coll.type}")
        t = self.body.temp()
        self._emit(f"{t} = {self._code(coll)}")
        if coll.nullable:
            self._emit(f"if {t} is None:")
            self.body.lines.append(["_null_iter()"])
        self._emit(f"s.budget -= _len({t})")
        self._emit("if s.budget < 0:")
        self.body.lines.append(["_over_budget()"])
        return t

    def _e_aggregate(self, node, scope, defs):
        name_tok, elem, var_tok, coll_node, cond, key = node.children
        name = str(name_tok)
        agg = B.AGGREGATES.get(name)
        if agg is None:
            raise _err(name_tok, f"unknown aggregate {name!r}{did_you_mean(name, B.AGGREGATES)}")
        if agg.uses_by and key is None:
            raise _err(node, f"{name}() needs a key: {agg.example}")
        if not agg.uses_by and key is not None:
            raise _err(key, f"{name}() takes no 'by' key")
        body = self.body
        # the collection first: an aggregate in it (``x for x in list(...)``) opens and closes
        # its own hoist, which must not replace this loop's
        coll = self._expr(coll_node, scope, defs)
        outermost = body.loops == 0
        if outermost:
            hoist = body.hoist = _Hoist()
            self.body.lines.append(hoist)
            body.inner = set()
        items = self._collection(coll, coll_node)
        var = body.temp("v")
        body.inner.add(var)  # parts naming it vary in this loop: never hoisted out of it
        # items known never null: a zone's cards, the plays of the trick, the zones of a seat zone
        # or family, a range; a list built by the rules (`[lead, winner]`) may hold nulls
        item_nullable = not (
            coll.type == "zone"
            or coll.code.startswith("_fn_range(")
            or coll.is_const
            and None not in coll.const
            or coll.type in ("list[zone]", "list[play]")
            and self._names_state_list(coll_node, scope)
        )
        self._check_loop_name(var_tok, scope)
        inner = scope.child(str(var_tok), Local(var, elem_type(coll.type), item_nullable))
        result = body.temp()
        body.loops += 1
        try:
            loop: list = []
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
            branch: list = [f"{var} = {best}"]
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
        free = coll.free.union(*(v.free for v in parts)) - {var}
        state = coll.state or any(v.state for v in parts)
        typ = _agg_type(agg, e.type)
        nullable = name in ("min", "max", "first", "last", "highest", "lowest")
        values = e.values if agg.result == "elem" else None
        return Val(result, typ, nullable=nullable, state=state, free=free, values=values)

    def _items_nullable(self, coll: Val, node, scope) -> bool:
        """May an item of the list ``coll`` be null? Not for a zone's cards, the plays of the
        trick, the zones of a seat zone or family, a range, or a constant list without null
        (so ``for s in seats { score[s] ... }`` indexes without a null check)."""
        return not (
            coll.type == "zone"
            or coll.code.startswith("_fn_range(")
            or coll.is_const
            and isinstance(coll.const, list)
            and None not in coll.const
            or coll.type in ("list[zone]", "list[play]")
            and self._names_state_list(node, scope)
        )

    def _names_state_list(self, node, scope) -> bool:
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

    def _aggregate_step(self, name, result, ec) -> list[str]:
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

    def _e_if_expr(self, node, scope, defs):
        c = self._expr(node.children[0], scope, defs)
        if c.is_const:  # a parameter decides the branch once and for all
            for label, taken in (("then", bool(c.const)), ("else", not c.const)):
                self._site(node.children[0], "if-expression", label, "always" if taken else "never", node.children[0])
            chosen = self._expr(node.children[1 if c.const else 2], scope, defs)
            other = self._dry(node.children[2 if c.const else 1], scope, defs)
            return attrs.evolve(chosen, type=_unify(chosen.type, other.type))
        a, alines = self._capture(lambda: self._expr(node.children[1], scope, defs))
        b, blines = self._capture(lambda: self._expr(node.children[2], scope, defs))
        if self.coverage is not None:  # counters compiled in only when asked for
            a, b = (
                self._counted(node.children[0], "then", a, alines),
                self._counted(node.children[0], "else", b, blines),
            )
        t = _unify(a.type, b.type)
        state = c.state or a.state or b.state
        free = c.free | a.free | b.free
        nullable = a.nullable or b.nullable
        values = _union_values(a, b)
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
        self.body.lines.append(alines + [f"{r} = {self._code(a)}"])
        self._emit("else:")
        self.body.lines.append(blines + [f"{r} = {self._code(b)}"])
        return Val(r, t, nullable=nullable, state=state, free=free, values=values)

    def _e_coalesce(self, node, scope, defs):
        a = self._expr(node.children[0], scope, defs)
        if a.is_const and a.const is not None:
            b = self._dry(node.children[1], scope, defs)
            return attrs.evolve(a, type=_unify(a.type, b.type))
        b, blines = self._capture(lambda: self._expr(node.children[1], scope, defs))
        t = _unify(a.type, b.type)
        state, free = a.state or b.state, a.free | b.free
        if a.is_const:  # null ?? b
            self.body.lines.extend(blines)
            return attrs.evolve(b, type=t)
        x = self._simple(a)
        values = _union_values(a, b)
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
        self.body.lines.append(blines + [f"{r} = {self._code(b)}"])
        return Val(r, t, nullable=b.nullable, state=state, free=free, values=values)

    def _logic(self, node, scope, defs, op: str) -> Val:
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
            if not (_is_bool(a) and _is_bool(b)):
                code = f"(True if {code} else False)"
            return Val(code, "bool", nullable=False, state=state, free=free)
        r = self.body.temp()
        self._emit(f"{r} = {self._bool_code(a)}")
        self._emit(f"if {'' if op == 'and' else 'not '}{r}:")
        self.body.lines.append(blines + [f"{r} = {self._bool_code(b)}"])
        return Val(r, "bool", nullable=False, state=state, free=free)

    def _as_bool(self, v: Val) -> Val:
        if v.is_const:
            return Val(repr(bool(v.const)), "bool", bool(v.const), False)
        return Val(self._bool_code(v), "bool", nullable=False, state=v.state, free=v.free)

    def _bool_code(self, v: Val) -> str:
        code = self._code(v)
        return code if _is_bool(v) else f"(True if {code} else False)"

    def _e_or_(self, node, scope, defs):
        return self._logic(node, scope, defs, "or")

    def _e_and_(self, node, scope, defs):
        return self._logic(node, scope, defs, "and")

    def _e_not_(self, node, scope, defs):
        a = self._expr(node.children[0], scope, defs)
        if a.is_const:
            return Val(repr(not a.const), "bool", not a.const, False)
        return Val(f"(not {self._code(a)})", "bool", nullable=False, state=a.state, free=a.free)

    def _e_neg(self, node, scope, defs):
        a = self._expr(node.children[0], scope, defs)
        _need_number(node, a.type, "-")
        if a.is_const and isinstance(a.const, int):
            return Val(repr(-a.const), "int", -a.const, False)
        return Val(f"(-{self._code(a)})", "int", nullable=False, state=a.state, free=a.free)

    def _e_compare(self, node, scope, defs):
        left, op_tok, right = node.children
        op = str(op_tok)
        a = self._expr(left, scope, defs)
        if op in ("==", "!="):
            return self._compare(node, op, a, self._expr(right, scope, defs))
        # ordering: a null left side is false without computing the right side at all
        b, blines = self._capture(lambda: self._expr(right, scope, defs))
        if a.is_const and a.const is None or not a.nullable or not blines and _SIMPLE.match(self._code(b)):
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

    def _compare(self, node, op, a: Val, b: Val) -> Val:
        left, _, right = node.children
        state, free = a.state or b.state, a.free | b.free
        if op in ("==", "!="):
            _check_comparable(node, a.type, b.type, op)
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
                raise _err(side, f"cannot order {t} values with {op!r}")
        if {a.type, b.type} == {"int", "str"}:
            raise _err(node, f"cannot order an int and a str with {op!r}")
        if a.is_const and a.const is None or b.is_const and b.const is None:
            return Val("False", "bool", False, False)
        x = a if not (a.nullable or b.nullable) else self._simple(a)  # the left side first, as written
        y = b if not b.nullable else self._simple(b)
        tests = [f"{v.code} is not None" for v in (x, y) if v.nullable]
        tests.append(f"{self._code(x)} {op} {self._code(y)}")
        code = " and ".join(tests)
        return Val(f"({code})", "bool", nullable=False, state=state, free=free)

    def _e_contains(self, node, scope, defs):
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

    def _contains(self, node, a: Val, b: Val) -> Val:
        if not (is_list(b.type) or b.type == "null"):
            raise _err(node.children[1], f"'in' needs a list on the right, got {b.type}")
        right = node.children[1]
        if b.is_const and isinstance(right, lark.Tree) and right.data == "list_lit":
            for item_node in right.children:
                if _is_text_literal(item_node):
                    self._check_literal(node, a, str(item_node.children[0])[1:-1])
        state, free = a.state or b.state, a.free | b.free
        # a zone holds at most the deck, and a short constant list is short: plain `in`; any
        # other list may be long, so the test is charged to the budget like a loop over it
        plain = (
            b.type == "zone"
            or b.is_const
            and isinstance(b.const, list)
            and len(b.const) <= 64
            and not is_list(a.type)
            and a.type != "any"
        )
        if not b.nullable:
            if plain:
                return Val(f"({self._code(a)} in {self._code(b)})", "bool", nullable=False, state=state, free=free)
            return Val(f"_in(s, {self._code(a)}, {self._code(b)})", "bool", nullable=False, state=state, free=free)
        y = self._simple(b)
        test = f"{self._code(a)} in {y.code}" if plain else f"_in(s, {self._code(a)}, {y.code})"
        return Val(f"({y.code} is not None and {test})", "bool", nullable=False, state=state, free=free)

    def _e_not_contains(self, node, scope, defs):
        v = self._e_contains(node, scope, defs)
        return attrs.evolve(v, code=f"(not {v.code})")

    def _e_binop(self, node, scope, defs):
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
        _need_number(left, a.type, op)
        _need_number(right, b.type, op)
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
                code = f"({k} * {x.code} if {-_SMALL_FACTOR_BOUND} < {x.code} < {_SMALL_FACTOR_BOUND} else _mul({k}, {x.code}))"
                return Val(code, "int", nullable=False, state=state, free=free)
            return Val(f"_mul({self._code(a)}, {self._code(b)})", "int", nullable=False, state=state, free=free)
        return Val(f"({self._code(a)} {op} {self._code(b)})", "int", nullable=False, state=state, free=free)

    def _check_assignment(self, node, name: str, sym: Symbol, v: Val, op: str) -> None:
        """A variable keeps the type of its initial value (or its declared ``type``)."""
        want, t = sym.type, v.type
        if op != "=":
            if want not in ("int", "any"):
                raise _err(node, f"{name!r} holds {want} values: it cannot be added to")
            return
        if want == "any" or t == "any":
            return
        if t == "null":
            if name in self.ns.variable_nullable:
                return
            raise _err(
                node,
                f"{name!r} holds {want} values and cannot be null "
                f"(give it initial: null or a declared type to allow null)",
            )
        if want.startswith("list[") and is_list(t) or t == want:
            return
        raise _err(node, f"{name!r} holds {want} values (the type of its initial value), not {t}")

    # -- statements -------------------------------------------------------------------
    def _stmt(self, node, scope) -> None:
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
            self._emit(f"for {var} in {t}[:]:")  # a copy: the body may move cards out of it
            self._block(lambda: self._stmts(stmts, inner))
            return None
        if node.data == "let_stmt":
            return self._let(node, scope)
        if node.data == "if_stmt":
            cond, *rest = node.children
            branches, then, else_body = [(cond, [])], [], None
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
        raise _err(node, f"unsupported statement {node.data!r}")  # pragma: no cover

    def _if_chain(self, branches, else_body, scope, first=None, arm=0) -> None:
        (cond, stmts), rest = branches[0], branches[1:]
        first = cond if first is None else first  # the sites of a chain are placed at its first condition
        c = self._expr(cond, scope, ())
        fixed = ("always" if c.const else "never") if c.is_const else ""  # a parameter decides it
        self._emit(f"if {self._code(c)}:")
        self._block(
            lambda: (
                self._count(first, "if", "then" if arm == 0 else f"elif {arm}", cond, fixed),
                self._stmts(stmts, scope),
            )
        )
        if not rest and else_body is None and self.coverage is None:
            return
        self._emit("else:")
        if rest:
            self._block(lambda: self._if_chain(rest, else_body, scope, first, arm + 1))
        else:
            self._block(
                lambda: (
                    self._count(first, "if", "else", None, {"always": "never"}.get(fixed, "")),
                    self._stmts(else_body or [], scope),
                )
            )

    def _stmts(self, stmts, scope) -> None:
        """Compile a list of statements as one block: its ``let`` names live until its end."""
        inner = _Scope({}, scope)
        for st in stmts:
            self._stmt(st, inner)
        for name, local in inner.names.items():  # out of scope now: say so if used later
            self._ended_lets.setdefault(name, local.declared)

    def _let(self, node, scope) -> None:
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
        scope.names[name] = Local(var, t, nullable=True, declared=_pos(name_tok))
        self._ended_lets.pop(name, None)

    def _check_new_name(self, tok, scope) -> None:
        name = str(tok)
        local = scope.lookup(name)
        if local is not None:
            if local.declared is not None:
                raise _err(
                    tok,
                    f"{name!r} is already a local name (from {_where(local.declared)}): "
                    f"assign it with {name} = ..., or choose another name",
                )
            raise _err(
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
            raise _err(tok, f"{name!r} is {taken}: a local name cannot reuse it; choose another name")

    def _check_loop_name(self, tok, scope) -> None:
        local = scope.lookup(str(tok))
        if local is not None and local.declared is not None:
            raise _err(
                tok,
                f"{str(tok)!r} is a local name (from {_where(local.declared)}): a loop variable "
                f"cannot reuse it; choose another name",
            )

    def _block(self, emit) -> None:
        """Run ``emit()`` with its lines going into a new indented block (``pass`` if empty)."""
        _, inner = self._capture(emit)
        self.body.lines.append(inner or ["pass"])

    def _effect(self, node, scope) -> None:
        name_tok, *args = node.children
        args = [a for a in args if a is not None]
        name = str(name_tok)
        spec = B.EFFECTS.get(name)
        if spec is None:
            raise _err(name_tok, f"unknown effect {name!r}{did_you_mean(name, B.EFFECTS)}")
        named = self._named_args(node, name, spec, [a for a in args if _is_named(a)], scope)
        args = [a for a in args if not _is_named(a)]
        if len(args) != len(spec.params):
            raise _err(
                node,
                f"{name}() takes {len(spec.params)} argument{'s' if len(spec.params) != 1 else ''}, got {len(args)}",
            )
        self._count(node, "effect", name, node)
        codes, later = [], []
        for i, (p, a) in enumerate(zip(spec.params, args)):
            if name == "move_random" and i == 1:  # read after the draw (below)
                v, later = self._capture(lambda: self._expr(a, scope, ()))
            else:
                v = self._expr(a, scope, ())
            if p == "zone" and v.type not in ("zone", "any"):
                raise _err(a, f"{name}() needs a zone here (a zone name, or a member of a zone family), got {v.type}")
            if p == "card" and v.type not in ("card", "any", "null"):
                raise _err(a, f"{name}() needs a card here, got {v.type}")
            codes.append(self._code(v))  # a helper's arguments are all read before anything moves
        if name in ("move", "move_front"):
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
            self.body.lines.append([f"{card} = _draw_random(s, {frm})"] + later + [f"_put({codes[1]}, {card})"])
        elif name == "shuffle":
            self._emit(f"_shuffle(s, {codes[0]})")
        elif name == "insert_random":
            self._emit(f"_insert_random(s, {codes[0]}, {codes[1]})")
        elif name == "end_turn" and "next" in named:
            self._emit(f"_end_turn(s, {named['next']})")
        elif name == "end_turn":
            self._emit("s.turn_over = True")
        else:
            self._emit("_end_game()")

    def _named_args(self, node, name: str, spec, args, scope) -> dict[str, str]:
        """The code of each named argument (``next=seat``) of an effect, checked against its keywords."""
        known = dict(spec.keywords)
        out = {}
        for arg in args:
            key_tok, op_tok, value = arg.children
            key = str(key_tok)
            if key not in known:
                offer = f" (it takes {', '.join(k + '=' for k in known)})" if known else " (it takes none)"
                raise _err(key_tok, f"{name}() has no named argument {key!r}{offer}")
            if str(op_tok) != "=" or key in out:
                raise _err(key_tok, f"write {key}=VALUE once in {name}()")
            v = self._expr(value, scope, ())
            if known[key] == "int" and v.type not in ("int", "any", "null"):
                raise _err(value, f"{name}({key}=...) needs a seat (an int), got {v.type}")
            out[key] = self._code(v)
        return out

    def _assign(self, node, scope) -> None:
        target, op_tok, value = node.children
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
            _need_number(value, v.type, op)
        if sym is not None and sym.kind in ("seat_var", "table_var", "team_var"):
            self._check_assignment(value, name, sym, v, op)
            if op == "=" and v.type == "any" and sym.type != "any":  # known only now: checked as it is stored
                nullable = name in self.ns.variable_nullable
                v = attrs.evolve(v, code=f"_kept({self._code(v)}, {sym.type!r}, {nullable!r})", const=NOT_CONST)
            if op == "=" and v.type in ("zone", "list[zone]"):
                v = attrs.evolve(v, code=self._cards_now(v), const=NOT_CONST)
        if target.data == "target_index":
            if sym is None or sym.kind not in ("seat_var", "team_var"):
                raise _err(name_tok, f"{name!r} is not a seat variable{_suggest(name, self.ns, 'seat_var')}")
            x = self._expr(target.children[1], scope, ())
            vs = self._simple(v)
            store = "seat_vars" if sym.kind == "seat_var" else "table_vars"
            if sym.kind == "seat_var" and x.code not in _SEAT_NOW:
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
                raise _err(name_tok, f"{name!r} is a seat variable: write {name}[seat]")
            if sym is not None and sym.kind == "team_var":
                raise _err(name_tok, f"{name!r} is a team variable: write {name}[team_of(seat)]")
            raise _err(name_tok, f"{name!r} is not a table variable{_suggest(name, self.ns, 'table_var')}")
        self._emit(f"s.table_vars[{sym.value}] {op} {self._code(v)}")

    # -- rule coverage (trickkit.dsl.coverage): the one place its counters are emitted ------
    def _site(self, node, kind: str, label: str, decided: str = "", shown=None) -> int | None:
        """The coverage site of ``node`` in the rule being compiled (None: not counting)."""
        if self.coverage is None or not self._rule or not self._rule[0]:
            return None
        where, text = self._rule
        line, column = _pos(node)
        snippet = ""
        meta = getattr(shown, "meta", None)
        if text and meta is not None and not getattr(meta, "empty", True):
            snippet = " ".join(text[meta.start_pos : meta.end_pos].split())[:120]
        return self.coverage.site(where, line, column, kind, label, snippet, decided, text)

    def _count(self, node, kind: str, label: str, shown, decided: str = "") -> None:
        """Emit the counter of a statement-level site (a branch, an effect, a rule)."""
        k = self._site(node, kind, label, decided, shown)
        if k is not None:
            self._emit(f"_cov(s, {k!r}, None)")

    def _counted(self, cond, label: str, val: Val, lines: list) -> Val:
        """An if-expression's branch value, counted as it is taken: ``_cov(s, k, value)``."""
        k = self._site(cond, "if-expression", label, shown=cond)
        if k is None:
            return val
        if lines:
            lines.append(f"_cov(s, {k!r}, None)")
            return val
        return attrs.evolve(val, code=f"_cov(s, {k!r}, {self._code(val)})", const=NOT_CONST)

    def _in_definition(self, name: str):
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

    def _cards_now(self, v: Val) -> str:
        """Code for a copy of the cards a zone (or a list of zones) holds now: a variable keeps
        what it was given, not the zone itself, which later moves change (and which a clone
        copies apart from its variables)."""
        if v.type == "zone":
            return f"[*{self._code(v)}]"
        z = self.body.temp("v")
        return f"[[*{z}] for {z} in {self._code(v)}]"

    def _assign_local(self, node, target, name_tok, local: Local, op: str, v: Val, value) -> None:
        name = str(name_tok)
        if local.declared is None:
            raise _err(
                name_tok,
                f"{name!r} is the rule's context or a loop variable and cannot be assigned: "
                f"declare a local name with let {name}2 = ... instead",
            )
        if target.data == "target_index":
            raise _err(name_tok, f"{name!r} is a local name, not a seat variable: assign it whole, {name} = ...")
        want, t = local.type, v.type
        if op != "=":
            _need_number(value, t, op)
            if want not in ("int", "any"):
                raise _err(value, f"{name!r} holds {want} values (the type its let gave it): it cannot be added to")
        elif not (
            want == "any"
            or t in ("any", "null")
            or t == want
            or want.startswith("list[")
            and is_list(t)
            or {want, t} == {"zone", "list[card]"}
        ):
            raise _err(
                value, f"{name!r} holds {want} values (the type its let gave it, at {_where(local.declared)}), not {t}"
            )
        code = self._code(v)
        if op == "=" and t == "any" and want not in ("any", "null"):  # known only now: checked as it is stored
            code = f"_kept({code}, {want!r}, True)"
        self._emit(f"{local.name} {op} {code}")


class Splice:
    """One generated function the engine assembles from several rules (a step's whole legal
    actions, or a whole action applied: see `trickkit.engine.fused`).

    The engine writes the function's frame (its own statements, as generated lines); each
    rule is compiled into it with `card_test`, `expression` or `block`, which return the
    rule's lines and code. Every part shares the function's temporaries, so parts never
    clash; the finished function passes the allow-list like every generated one (`define`).
    """

    def __init__(self, compiler: "Compiler", prefix: str):
        self.compiler = compiler
        self.body = _Body()
        self.name = f"_{prefix}{next(compiler._ids)}"

    def temp(self, prefix: str = "t") -> str:
        """A new local name of this function."""
        return self.body.temp(prefix)

    def table(self, value) -> str:
        """The generated name of a constant table (a tuple) in the module's namespace."""
        return self.compiler._table(value)

    def const(self, value) -> str:
        """Python code for a constant: a literal, or its generated name in the namespace."""
        return self.compiler._const_code(value)

    def card_test(self, tree, card: str, hoisted: dict | None = None) -> tuple[str, list, list, dict]:
        """A card test (context ``card``, bound to the local ``card``, never null) to run over a hand.

        Returns ``(code, hoist, inner, hoisted)``: the parts of the test that do not depend on
        the card (``hoist``, lines to run once before the loop, as `Compiler.card_filter`
        does), the lines to run per card before testing ``code``, and the hoisted parts by
        code. ``hoisted`` are parts computed before (by lines that surely ran): reused.

        Raises:
            DSLCompileError: as `Compiler.expression_tree`.
        """
        scope = _Scope({"card": Local(card, "card", nullable=False)})
        b, c = self.body, self.compiler
        saved = b.lines, b.loops, b.hoist, b.eager, b.hoisted
        b.lines, b.loops, b.hoist, b.eager, b.hoisted = [], 1, _Hoist(), True, dict(hoisted or {})
        try:
            # a state-only definition is inlined too: computed once before the loop, it needs no call
            c.inline_definitions = True
            val = self._run(lambda: c._expr_guarded(tree, scope), memoise=True)
            return c._code(val), _flatten(b.hoist.lines, 0), _flatten(b.lines, 0), b.hoisted
        finally:
            b.lines, b.loops, b.hoist, b.eager, b.hoisted = saved
            c.inline_definitions = False

    def expression(self, tree, names: Mapping[str, tuple]) -> tuple[Val, list]:
        """An expression, its context ``names`` bound to locals: ``{name: (local, type, nullable)}``.

        Returns ``(value, lines)``: ``value.code`` is valid after ``lines``. Nothing is
        memoised (an action changes the state between the rules it runs).

        Raises:
            DSLCompileError: as `Compiler.expression_tree`.
        """
        scope = _Scope({n: Local(code, t, nullable) for n, (code, t, nullable) in names.items()})
        b = self.body
        saved = b.lines, b.loops, b.hoist, b.eager, b.hoisted
        b.lines, b.loops, b.hoist, b.eager, b.hoisted = [], 0, None, False, {}
        c = self.compiler
        try:
            c.inline_definitions = True  # a state-only definition too: its lines, not a call
            val = self._run(lambda: c._expr_guarded(tree, scope), memoise=False)
            return attrs.evolve(val, code=c._code(val)), _flatten(b.lines, 0)
        finally:
            b.lines, b.loops, b.hoist, b.eager, b.hoisted = saved
            c.inline_definitions = False

    def block(self, tree, names: Mapping[str, tuple]) -> list:
        """A statement block (as `Compiler.block`), its context ``names`` bound to locals; its lines.

        Raises:
            DSLCompileError: as `Compiler.block`.
        """
        scope = _Scope({n: Local(code, t, nullable) for n, (code, t, nullable) in names.items()})
        b = self.body
        saved = b.lines, b.loops, b.hoist, b.eager, b.hoisted
        b.lines, b.loops, b.hoist, b.eager, b.hoisted = [], 0, None, False, {}
        c = self.compiler
        try:

            def run():
                try:
                    c._stmts(tree.children, scope)
                except RecursionError:
                    raise DSLCompileError("block nested too deeply") from None

            c.inline_definitions = True  # a state-only definition too: its lines, not a call
            self._run(run, memoise=False)
            return _flatten(b.lines, 0)
        finally:
            b.lines, b.loops, b.hoist, b.eager, b.hoisted = saved
            c._ended_lets = {}
            c.inline_definitions = False

    def _run(self, fn, memoise: bool):
        c = self.compiler
        saved = c.body, c.memoise, c._rule
        c.body, c.memoise, c._rule = self.body, memoise, None  # no coverage site: the rule's own hook counts
        try:
            return fn()
        finally:
            c.body, c.memoise, c._rule = saved

    def define(self, args: Sequence[str], lines: list):
        """Compile the finished function ``name(args)`` with ``lines`` (nested lists indent)."""
        source = [f"def {self.name}({', '.join(args)}):"] + _flatten(lines)
        return self.compiler._define(self.name, source)


_COMPILED: dict[str, tuple] = {}
"""Generated source -> (its code object, the global names it uses): a game loaded again in
the same process (tests, simulation workers) skips the allow-list walk and compile()."""

_COMPILED_MAX = 20_000


def _global_names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const)
    return names


_LITERALS = {"int_lit", "str_lit", "true_lit", "false_lit", "null_lit", "name"}

_INLINE_MAX_LINES = 4
"""Longest rule (in generated lines) a generated pass inlines instead of calling."""

_TEMP_SUB = re.compile(r"\b([tvhmpq])([0-9]+)\b")
"""A local the generator makes for a rule's own values (see `allowlist.LOCAL_NAME`), in code."""

_TEMP_REF = re.compile(r"\b[tvhmpq]([0-9]+)\b")

_FRAME_NAME = re.compile(r"\b(fr|a[0-9]+)\b|\breturn\b")
"""The frame, a context value, or a return: code that is not inlined as it stands."""

_CALLS_RULES = re.compile(r"\b_(d[0-9]+|can|cov)\(")
"""A call, in generated code, of a definition's function, ``can`` or a coverage counter."""


def _size(node) -> int:
    """Number of tree nodes under ``node`` (to decide whether memoising pays)."""
    n, stack = 0, [node]
    while stack:
        x = stack.pop()
        if isinstance(x, lark.Tree):
            n += 1
            stack.extend(x.children)
    return n


def _union_values(a: Val, b: Val) -> tuple | None:
    """The attribute values either branch may take, when both read the same attribute."""
    if a.values and b.values and a.values[0] == b.values[0]:
        return a.values[0], a.values[1] | b.values[1]
    if a.values and (b.is_const and b.const is None):
        return a.values
    if b.values and (a.is_const and a.const is None):
        return b.values
    return None


def _is_text_literal(node) -> bool:
    """Is ``node`` a text written in the rule itself (not a parameter or a definition)?"""
    return isinstance(node, lark.Tree) and node.data == "str_lit"


def _is_bool(v: Val) -> bool:
    return v.type == "bool" and not v.nullable


def card_filter(compiler: Compiler, text: str, context) -> tuple[Callable, int] | None:
    """``(filter, frame_size)`` for a card test (see `Compiler.card_filter`), or None when
    the test does not compile (its error is reported where the rule itself is compiled)."""
    try:
        return compiler.card_filter(parse(str(text), "expr"), context)
    except (DSLSyntaxError, DSLCompileError):
        return None


def _agg_type(agg, et):
    if et == "zone" and agg.result == "list":
        return "list[zone]"
    if agg.result == "elem":
        return et
    if agg.result == "list":
        return f"list[{et}]"
    return agg.result


def _unify(a: str, b: str) -> str:
    """The type of a value that is either an ``a`` or a ``b`` (if/else branches, ``??``)."""
    if a == b or b == "null":
        return a
    if a == "null":
        return b
    if {a, b} == {"zone", "list[card]"}:
        return "list[card]"
    return "any"


def _attr_type(table) -> str:
    types = {type(v) for v in table if v is not None}
    if types <= {int}:
        return "int"
    if types <= {str}:
        return "str"
    if types <= {bool}:
        return "bool"
    return "any"


def _is_named(node) -> bool:
    return isinstance(node, lark.Tree) and node.data == "named_arg"


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


def _need_number(node, t, op):
    if t == "null":  # a null that is always null (a literal): the arithmetic could never run
        raise _err(node, f"{op!r} needs numbers, got null")
    if t not in ("int", "any", "bool"):
        raise _err(node, f"{op!r} needs numbers, got {t}")


def _check_comparable(node, at, bt, op):
    simple = {"int", "str", "bool", "card", "play"}
    if at in simple and bt in simple and at != bt and {at, bt} != {"int", "bool"}:
        raise _err(node, f"comparing {at} with {bt} using {op!r} is always {'false' if op == '==' else 'true'}")


WANTED = {
    "bool": "true or false (a bool)",
    "int": "a number (an int)",
    "play": "a play (a card in the trick)",
    "list": "a list",
    "list[int]": "a list of numbers",
}
"""How a rule's required type is named in errors."""


def _describe_type(t: str) -> str:
    return {
        "null": "null",
        "str": "a text (str)",
        "int": "a number (int)",
        "bool": "a bool",
        "card": "a card",
        "play": "a play",
        "zone": "a zone",
    }.get(t, t)


def _assignable(t: str, want: str) -> bool:
    """Can a rule whose static type is ``t`` stand where a ``want`` is needed? ``any`` is
    checked when the rule runs; everything else must match here, at load."""
    if t == "any":
        return True
    if want == "list":
        return is_list(t)
    if want == "list[int]":
        return t in ("list[int]", "list[any]")
    return t == want


_TEAM_FUNCTIONS = ("partner", "team_of", "team_members")

_WALKING = frozenset({"str", "distinct", "concat", "index_of", "seat_holding"})
"""Built-ins whose work grows with the items of a list argument: charged to the budget."""


def _may_be_long(v: Val) -> bool:
    """Can the list ``v`` hold more than the deck? A zone, or the game's own zones of each seat,
    hold at most the deck's cards; any other list (a rule built it) may be long."""
    return (is_list(v.type) or v.type == "any") and v.type != "zone" and _SEAT_ZONES.match(v.code) is None


_SEAT_ZONES = re.compile(r"^s\.seat_zones\[[0-9]+\]$")


def _team_table(name: str, team_of, n: int) -> tuple:
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


def _suggest(name, ns, kind):
    return did_you_mean(name, [k for k, s in ns.symbols.items() if s.kind == kind])


__all__ = [
    "Compiler",
    "Splice",
    "Namespace",
    "Symbol",
    "DSLCompileError",
    "DSLSyntaxError",
    "PLAY_FIELDS",
    "card_filter",
    "GameEnded",
    "EvaluationLimit",
    "EVALUATION_BUDGET",
    "Budget",
]
