"""Compiles parsed DSL trees into Python closures, resolving and type-checking every name at load time.

A compiled expression is a closure ``f(state, frame) -> value``. ``frame`` is a small list
holding the hook's context values (``card``, ``seat``, ``winner`` ...) followed by slots for
the loop variables of aggregates and ``for`` statements; slots are assigned here, so at play
time no name is ever looked up by string. Statements compile to ``f(state, frame) -> None``.

Evaluation is bounded by construction: the only iteration is over finite lists (zones,
tricks, seats, ranges of two given ints), definitions may not refer to themselves, and the
nesting depth of a text is bounded by its length (``parser.MAX_TEXT``).
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, Callable, Mapping, Sequence

import attrs
import lark

from ..errors import did_you_mean
from . import aggregates as A
from . import builtins as B
from .parser import DSLSyntaxError, parse

Closure = Callable[[Any, list], Any]


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
    getter ``f(state)``), ``seat_var`` / ``table_var`` / ``seat_zone`` / ``table_zone``
    (``value`` is the index into the state's tables).
    """

    kind: str
    type: str
    value: Any
    doc: str = ""


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
    """Definition name -> parse tree, compiled inline wherever it is used."""
    definition_params: Mapping[str, tuple] = attrs.field(factory=dict)
    """Definition name -> its parameter names, for definitions written ``name(a, b)``."""
    num_players: int = 2
    """Seat count, for seat arithmetic."""
    action_kinds: frozenset = frozenset()
    """Names of the ruleset's action kinds, for ``can('kind')``."""


@attrs.frozen
class Local:
    slot: int
    type: str


def elem_type(t: str) -> str:
    if t == "zone":
        return "card"
    return t[5:-1] if t.startswith("list[") else "any"


def is_list(t: str) -> bool:
    """True for list types, zones (lists of cards) and unknown types."""
    return t.startswith("list[") or t in ("zone", "any")


class GameEnded(Exception):
    """Raised by the ``end_game()`` effect: the game stops at once; the engine catches it."""


class EvaluationLimit(Exception):
    """A rule ran over its evaluation budget (too many items iterated) or built a huge range."""


EVALUATION_BUDGET = 5_000_000
"""Most list items all the rules may iterate over (aggregates, ``for``) while the engine
answers one call (an action, the legal actions, an observation): a runaway rule fails with
a located error instead of hanging."""

MAX_RANGE = 100_000
"""Longest list ``range(a, b)`` may build."""


class Budget:
    """Stands for the state where a constant is computed at load time: it carries only the
    evaluation budget, so a runaway constant (nested aggregates over ranges) stops too."""

    __slots__ = ("_budget", "_cache", "_slow")

    def __init__(self):
        self._budget = EVALUATION_BUDGET
        self._cache = None
        self._slow = False


def _charged(cf: Closure) -> Closure:
    """Charge the length of the collection to the state's evaluation budget."""
    def charged(s, fr):
        coll = cf(s, fr)
        if coll is None:
            raise TypeError("cannot iterate over null")
        try:
            s._budget -= len(coll)
        except AttributeError:  # a bare state used in unit tests has no budget
            return coll
        if s._budget < 0:
            raise EvaluationLimit(f"evaluation budget of {EVALUATION_BUDGET} items exceeded")
        return coll
    return charged


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

_COMPARE = {"==": operator.eq, "!=": operator.ne}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_FLIPPED = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


class Compiler:
    """Compiles DSL texts against one `Namespace`.

    ``context`` names given to `expression` / `block` occupy the first frame
    slots, in order; the callers pass their values positionally.
    """

    def __init__(self, namespace: Namespace):
        self.ns = namespace
        self._def_trees: dict[str, lark.Tree] = dict(namespace.definitions)
        self._reads: list[int] = []  # frame slots (or _STATE) read by the code compiled so far
        self._nodes = 0  # expression nodes compiled so far (to size subtrees)
        self._memo_keys = itertools.count()
        self.memoise = True  # memoise state-only subtrees (off while compiling blocks)
        self.memoised = False  # did the last expression get a memo?
        self._loop_depth = 0  # aggregates around the node being compiled

    # -- entry points -----------------------------------------------------------------
    def expression(self, text: str, context: Sequence[tuple[str, str]] = (), want: str | None = None,
                   memoise: bool = True):
        """Compile an expression. Returns ``(closure, frame_size, type)``.

        ``memoise``: memoise its state-only subtrees in the state's cache (see `_memoised`).
        Worth it for rules the engine evaluates many times on a state it holds still (a card
        test over a hand); other rules would only pay for the check. Loop bodies memoise
        their state-only parts either way (see `_with_cache`).

        Raises:
            DSLSyntaxError, DSLCompileError: located within ``text``.
        """
        tree = parse(str(text), "expr") if not isinstance(text, bool) else parse(str(text).lower(), "expr")
        try:
            return self.expression_tree(tree, context, want, memoise)
        except RecursionError:
            raise DSLCompileError("expression nested too deeply") from None

    def expression_tree(self, tree, context=(), want=None, memoise=True):
        scope = _Scope(context)
        self.memoised = False
        self.memoise = memoise
        try:
            fn, typ = self._expr(tree, scope, ())
        finally:
            self.memoise = True
        if want and not _assignable(typ, want):
            raise _err(tree, f"expected {want}, got {typ}")
        return fn, scope.size, typ

    def context_reads(self, tree, context) -> bool:
        """Compile ``tree`` with ``context`` in scope: does it read a context name
        (directly, or through a definition)?

        Raises:
            DSLCompileError: as `expression_tree`.
        """
        mark = len(self._reads)
        self.expression_tree(tree, context)
        return any(0 <= r < len(context) for r in self._reads[mark:])

    def block(self, text: str, context: Sequence[tuple[str, str]] = ()):
        """Compile a statement block. Returns ``(closure, frame_size)``.

        Blocks change the state between the expressions they evaluate, so a block memoises
        nothing beyond the loop invariants of an aggregate, within that aggregate.
        """
        tree = parse(str(text), "block")
        scope = _Scope(context)
        self.memoise = False  # only loop invariants, each within its own loop
        try:
            stmts = [self._stmt(s, scope) for s in tree.children]
        except RecursionError:
            raise DSLCompileError("block nested too deeply") from None
        finally:
            self.memoise = True
        return _seq(stmts), scope.size

    # -- expressions ------------------------------------------------------------------
    def _expr(self, node, scope: "_Scope", defs: tuple) -> tuple[Closure, str]:
        kind = node.data if isinstance(node, lark.Tree) else None
        method = getattr(self, f"_e_{kind}", None)
        if method is None:  # pragma: no cover - grammar and compiler out of step
            raise _err(node, f"unsupported construct {kind!r}")
        mark, start, size = len(self._reads), scope.size, self._nodes
        self._nodes += 1
        fn, typ = method(node, scope, defs)
        if kind in _LITERALS:
            return fn, typ
        reads = self._reads[mark:]
        outer = [r for r in reads if r != _STATE and r < start]
        if not reads:  # reads neither the game nor the context: a constant, computed now
            try:
                value = fn(Budget(), [None] * max(scope.size, 1))
            except Exception:  # e.g. 1 // 0: leave it to fail, located, at play time
                return fn, typ
            return _constant(value), typ
        if not outer and (self._loop_depth and self._nodes - size >= 2 or  # in a loop body: hoist any invariant
                          self.memoise and (kind in _ALWAYS_MEMO or self._nodes - size >= _MEMO_MIN_NODES)):
            # depends on the state alone: memoise while the engine holds the state still
            fn = _memoised(next(self._memo_keys), fn)
            self.memoised = True
        return fn, typ

    def _e_int_lit(self, node, scope, defs):
        try:
            v = int(node.children[0])
        except ValueError:  # over Python's limit on digits converted
            raise _err(node, f"integer literal with {len(node.children[0])} digits is too large") from None
        return _constant(v), "int"

    def _e_str_lit(self, node, scope, defs):
        v = str(node.children[0])[1:-1]
        return _constant(v), "str"

    def _e_true_lit(self, node, scope, defs):
        return _constant(True), "bool"

    def _e_false_lit(self, node, scope, defs):
        return _constant(False), "bool"

    def _e_null_lit(self, node, scope, defs):
        return _constant(None), "null"

    def _e_list_lit(self, node, scope, defs):
        items = [self._expr(c, scope, defs) for c in node.children if c is not None]
        fns = [f for f, _ in items]
        types = {t for _, t in items if t != "null"}
        et = types.pop() if len(types) == 1 else "any"
        if all(isinstance(c, lark.Tree) and c.data in ("int_lit", "str_lit") for c in node.children if c is not None):
            const = [f(None, None) for f in fns]
            return (lambda s, fr: const), f"list[{et}]"
        return (lambda s, fr: [f(s, fr) for f in fns]), f"list[{et}]"

    def _e_name(self, node, scope, defs):
        name = str(node.children[0])
        local = scope.lookup(name)
        if local is not None:
            slot = local.slot
            self._reads.append(slot)
            return (lambda s, fr: fr[slot]), local.type
        if name in self._def_trees and self.ns.definition_params.get(name):
            params = self.ns.definition_params[name]
            raise _err(node, f"{name} takes {len(params)} argument{'s' if len(params) != 1 else ''}: "
                             f"write {name}({', '.join(params)})")
        if name in self._def_trees:
            if name in defs:
                raise _err(node, f"definition {name!r} refers to itself ({' -> '.join(defs + (name,))})")
            view = scope.globals_only()
            mark = len(self._reads)
            try:
                fn, typ = self._expr(self._def_trees[name], view, defs + (name,))
            except DSLCompileError as e:
                raise _err(node, f"in definition {name!r}: {e}") from None
            if view.used:  # reads the hook's context (card, winner ...): so does the caller
                scope.mark_used()
            context_slots = {local.slot for local in view._names.values()}
            if (self.memoise or self._loop_depth) and not _is_const(fn) and \
                    not context_slots.intersection(self._reads[mark:]):
                # state-only: every use of the definition shares one memo entry
                fn = _memoised(("def", name), getattr(fn, "memo_of", fn))
                self.memoised = True
            return fn, typ
        sym = self.ns.symbols.get(name)
        if sym is None:
            known = list(self.ns.symbols) + list(self._def_trees) + scope.names()
            raise _err(node, f"unknown name {name!r}{did_you_mean(name, known)}")
        if sym.kind == "const":
            return _constant(sym.value), sym.type
        self._reads.append(_STATE)
        if sym.kind == "state":
            g = sym.value
            return (lambda s, fr: g(s)), sym.type
        i = sym.value
        if sym.kind == "seat_var":
            return (lambda s, fr: s.seat_vars[i]), f"list[{sym.type}]"
        if sym.kind == "table_var":
            return (lambda s, fr: s.table_vars[i]), sym.type
        if sym.kind == "seat_zone":
            return (lambda s, fr: s.seat_zones[i]), "list[zone]"
        if sym.kind == "table_zone":
            return (lambda s, fr: s.table_zones[i]), "zone"
        if sym.kind == "zone_family":
            start, count = i
            end = start + count
            return (lambda s, fr: s.table_zones[start:end]), "list[zone]"
        raise _err(node, f"cannot use {name!r} here")  # pragma: no cover

    def _e_attr(self, node, scope, defs):
        base, attr_tok = node.children
        attr = str(attr_tok)
        bf, bt = self._expr(base, scope, defs)
        local = scope.lookup(str(base.children[0])) if isinstance(base, lark.Tree) and base.data == "name" else None
        if bt == "card":
            table = self.ns.card_attrs.get(attr)
            if table is None:
                raise _err(attr_tok, f"cards have no attribute {attr!r}{did_you_mean(attr, self.ns.card_attrs)}")
            if local is not None:  # `card.rank`: read the slot directly
                slot = local.slot
                return (lambda s, fr: None if (v := fr[slot]) is None else table[v]), _attr_type(table)
            return (lambda s, fr: None if (v := bf(s, fr)) is None else table[v]), _attr_type(table)
        if bt == "play":
            if attr == "seat":
                return (lambda s, fr: None if (v := bf(s, fr)) is None else v[0]), "int"
            if attr == "card":
                return (lambda s, fr: None if (v := bf(s, fr)) is None else v[1]), "card"
            if attr == "order":
                return (lambda s, fr: None if (v := bf(s, fr)) is None else v[3]), "int"
            if attr == "mode":
                modes = self.ns.face_mode
                return (lambda s, fr: None if (v := bf(s, fr)) is None else modes[v[2]]), "str"
            table = self.ns.face_attrs.get(attr)
            if table is None:
                known = list(PLAY_FIELDS) + list(self.ns.face_attrs)
                raise _err(attr_tok, f"plays have no attribute {attr!r}{did_you_mean(attr, known)}")
            if local is not None:  # `p.kind` in an aggregate: read the slot directly
                slot = local.slot
                return (lambda s, fr: None if (v := fr[slot]) is None else table[v[2]]), _attr_type(table)
            return (lambda s, fr: None if (v := bf(s, fr)) is None else table[v[2]]), _attr_type(table)
        if bt == "any" and (attr in self.ns.card_attrs or attr in PLAY_FIELDS):
            # type unknown at load (e.g. a choice seen from a definition): decide per value
            ctable = self.ns.card_attrs.get(attr)
            ftable = self.ns.face_attrs.get(attr)
            field = {"seat": 0, "card": 1, "order": 3}.get(attr)

            def dynamic(s, fr):
                v = bf(s, fr)
                if v is None:
                    return None
                if isinstance(v, tuple):  # a play
                    return v[field] if field is not None else ftable[v[2]] if ftable else None
                return ctable[v] if ctable is not None else None
            return dynamic, "any"
        raise _err(attr_tok, f"cannot take attribute {attr!r} of a {bt} value (only cards and plays have attributes)")

    def _e_index(self, node, scope, defs):
        base, idx = node.children
        xf, xt = self._expr(idx, scope, defs)
        family = self._family(base, scope)
        if family is not None and xt in ("int", "any"):
            start, count = family
            self._reads.append(_STATE)

            def member(s, fr):
                i = xf(s, fr)
                return None if i is None or not 0 <= i < count else s.table_zones[start + i]
            return member, "zone"
        bf, bt = self._expr(base, scope, defs)
        if xt not in ("int", "any"):
            raise _err(idx, f"an index must be an int, got {xt}")
        if not is_list(bt):
            raise _err(base, f"cannot index a {bt} value")
        et = elem_type(bt)
        if _is_const(xf) and isinstance(xf.const_value, int):  # `trick[0]`, `row[-1]`
            i = xf.const_value

            def index_const(s, fr):
                seq = bf(s, fr)
                try:
                    return seq[i]
                except IndexError:  # out of range: null
                    return None
                except TypeError:
                    if seq is None:
                        return None
                    raise
            return index_const, et

        def index(s, fr):
            seq = bf(s, fr)
            i = xf(s, fr)
            if i is None or seq is None or not -len(seq) <= i < len(seq):
                return None
            return seq[i]
        return index, et

    def _call_definition(self, node, name, compiled, scope, defs):
        """A definition with parameters, e.g. ``placeable(v)``: its arguments fill fresh slots."""
        params = self.ns.definition_params[name]
        if len(compiled) != len(params):
            raise _err(node, f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''}, got {len(compiled)}")
        if name in defs:
            raise _err(node, f"definition {name!r} refers to itself ({' -> '.join(defs + (name,))})")
        inner = scope.globals_only()
        slots = []
        for p, (_, t) in zip(params, compiled):
            inner = inner.child(p, t)
            slots.append(inner.lookup(p).slot)
        try:
            body, typ = self._expr(self._def_trees[name], inner, defs + (name,))
        except DSLCompileError as e:
            raise _err(node, f"in definition {name!r}: {e}") from None
        scope.mark_used()
        args = [f for f, _ in compiled]
        if len(args) == 1:  # the common cases without a list of values
            a0, = args
            s0, = slots

            def call1(s, fr):
                fr[s0] = a0(s, fr)
                return body(s, fr)
            return call1, typ
        if len(args) == 2:
            a0, a1 = args
            s0, s1 = slots

            def call2(s, fr):
                v0 = a0(s, fr)  # every argument first: one may read a slot another fills
                fr[s1] = a1(s, fr)
                fr[s0] = v0
                return body(s, fr)
            return call2, typ

        def call(s, fr):
            values = [a(s, fr) for a in args]
            for slot, v in zip(slots, values):
                fr[slot] = v
            return body(s, fr)
        return call, typ

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
        compiled = [self._expr(a, scope, defs) for a in args]
        fns = [f for f, _ in compiled]
        if name in B.SEAT_FUNCTIONS:
            params = B.SEAT_FUNCTIONS[name][0]
            self._check_arity(node, name, params, compiled)
            n = self.ns.num_players
            if name == "left_of":
                a, = fns
                return (lambda s, fr: (a(s, fr) + 1) % n), "int"
            if name == "right_of":
                a, = fns
                return (lambda s, fr: (a(s, fr) - 1) % n), "int"
            a, k = fns
            return (lambda s, fr: (a(s, fr) + k(s, fr)) % n), "int"
        if name in self.ns.definition_params and name in self._def_trees:
            return self._call_definition(node, name, compiled, scope, defs)
        if name == "can":
            self._check_arity(node, name, ("str",), compiled)
            kind_node = args[0]
            if not (isinstance(kind_node, lark.Tree) and kind_node.data == "str_lit"):
                raise _err(kind_node, "can() takes the name of an action kind in quotes, e.g. can('place')")
            kind = str(kind_node.children[0])[1:-1]
            if kind not in self.ns.action_kinds:
                raise _err(kind_node, f"no action kind {kind!r}{did_you_mean(kind, self.ns.action_kinds)}")
            self._reads.append(_STATE)
            return (lambda s, fr: s.can(kind)), "bool"
        b = B.FUNCTIONS.get(name)
        if b is None:
            if name in B.AGGREGATES:
                raise _err(name_tok, f"{name}() takes a generator: {B.AGGREGATES[name].example}")
            known = list(B.FUNCTIONS) + list(B.SEAT_FUNCTIONS) + list(B.AGGREGATES) + ["can"]
            if name in B.EFFECTS:
                raise _err(name_tok, f"{name}() is an effect: use it as a statement in a block, not in an expression")
            raise _err(name_tok, f"unknown function {name!r}{did_you_mean(name, known)}")
        self._check_arity(node, name, b.params, compiled)
        impl = b.impl
        result = compiled[0][1] if b.result == "arg0" else b.result
        if b.result == "concat":
            result = elem_type(compiled[0][1]) if is_list(elem_type(compiled[0][1])) else "list[any]"
            if result == "zone":
                result = "list[card]"
        if len(fns) == 1:
            a, = fns
            return (lambda s, fr: impl(a(s, fr))), result
        if len(fns) == 2:
            a, c = fns
            return (lambda s, fr: impl(a(s, fr), c(s, fr))), result
        return (lambda s, fr: impl(*[f(s, fr) for f in fns])), result

    def _check_arity(self, node, name, params, compiled):
        if len(params) != len(compiled):
            raise _err(node, f"{name}() takes {len(params)} argument{'s' if len(params) != 1 else ''}, got {len(compiled)}")
        for p, (_, t), a in zip(params, compiled, node.children[1:]):
            if p == "list" and not (is_list(t) or t == "null"):
                raise _err(a, f"{name}() expects a list, got {t}")
            if p == "int" and t not in ("int", "any", "null", "bool"):
                raise _err(a, f"{name}() expects an int, got {t}")

    def _e_aggregate(self, node, scope, defs):
        name_tok, elem, var_tok, coll, cond, key = node.children
        name = str(name_tok)
        agg = B.AGGREGATES.get(name)
        if agg is None:
            raise _err(name_tok, f"unknown aggregate {name!r}{did_you_mean(name, B.AGGREGATES)}")
        if agg.uses_by and key is None:
            raise _err(node, f"{name}() needs a key: {agg.example}")
        if not agg.uses_by and key is not None:
            raise _err(key, f"{name}() takes no 'by' key")
        cf, ct = self._expr(coll, scope, defs)
        cf = _charged(cf)
        if not is_list(ct):
            raise _err(coll, f"can only iterate over a list, got {ct}")
        inner = scope.child(str(var_tok), elem_type(ct))
        slot = inner.lookup(str(var_tok)).slot
        memoised_before, self.memoised = self.memoised, False
        self._loop_depth += 1
        try:
            ef, et, elem_test = self._item_expr(elem, inner, defs, slot)
            pf, _, test = self._item_expr(cond, inner, defs, slot) if cond is not None else (None, None, None)
            kf = self._expr(key, inner, defs)[0] if key is not None else None
        finally:
            self._loop_depth -= 1
        scope.absorb(inner)
        fast = A.FastParts(elem=self._item_getter(elem, inner, slot), test=test,
                           key=self._item_getter(key, inner, slot, identity=False), elem_test=elem_test)
        fn = A.make(name, cf, slot, ef, pf, kf, fast)
        if self.memoised:  # the loop body has state-only parts: compute them once per loop
            fn = _with_cache(fn)
        self.memoised = self.memoised or memoised_before
        return fn, _agg_type(agg, et)

    def _item_getter(self, node, scope, slot, identity=True):
        """A `trickkit.dsl.aggregates.Getter` when ``node`` is the loop item or one of its
        attributes (``p``, ``p.rank``, ``p.seat``), else None."""
        if not isinstance(node, lark.Tree):
            return None
        if node.data == "name":
            local = scope.lookup(str(node.children[0]))
            return A.IDENTITY if identity and local is not None and local.slot == slot else None
        if node.data != "attr":
            return None
        base, attr = node.children
        if not (isinstance(base, lark.Tree) and base.data == "name"):
            return None
        local = scope.lookup(str(base.children[0]))
        if local is None or local.slot != slot:
            return None
        attr = str(attr)
        if local.type == "card":
            table = self.ns.card_attrs.get(attr)
            return None if table is None else (lambda x: None if x is None else table[x])
        if local.type != "play":
            return None
        field = {"seat": 0, "card": 1, "order": 3}.get(attr)
        if field is not None:
            return lambda x: None if x is None else x[field]
        if attr == "mode":
            modes = self.ns.face_mode
            return lambda x: None if x is None else modes[x[2]]
        table = self.ns.face_attrs.get(attr)
        return None if table is None else (lambda x: None if x is None else table[x[2]])

    def _item_expr(self, node, scope, defs, slot):
        """Compile an aggregate's element or condition: ``(closure, type, test)``, where
        ``test`` is an `trickkit.dsl.aggregates.ItemTest` when ``node`` compares an attribute
        of the loop item with a value that does not depend on the item (``p.kind == 'pirate'``),
        else None. Each part is compiled once (nested aggregates stay linear to compile)."""
        if isinstance(node, lark.Tree) and node.data in ("compare", "contains"):
            if node.data == "contains":
                (left, right), op = node.children, "in"
            else:
                left, op_tok, right = node.children
                op = str(op_tok)
            getter, value_on_right, test_op = self._item_getter(left, scope, slot, identity=False), True, op
            if getter is None and op != "in":
                getter, value_on_right, test_op = self._item_getter(right, scope, slot, identity=False), False, _FLIPPED[op]
            if getter is not None:
                self._nodes += 1  # what _expr counts for this node (it reads the item: no folding, no memo)
                mark = len(self._reads)
                a = self._expr(left, scope, defs)
                middle = len(self._reads)
                b = self._expr(right, scope, defs)
                fn, typ = self._contains(node, a, b) if op == "in" else self._compare(node, op, a, b)
                value, value_reads = (b[0], self._reads[middle:]) if value_on_right else (a[0], self._reads[mark:middle])
                test = A.ItemTest(getter, test_op, value) if slot not in value_reads else None
                return fn, typ, test
        fn, typ = self._expr(node, scope, defs)
        return fn, typ, None

    def _e_if_expr(self, node, scope, defs):
        c, a, b = (self._expr(x, scope, defs) for x in node.children)
        cf, af, bf = c[0], a[0], b[0]
        t = _unify(a[1], b[1])
        if _is_const(cf):  # a parameter decides the branch once and for all
            return (af if cf.const_value else bf), t
        return (lambda s, fr: af(s, fr) if cf(s, fr) else bf(s, fr)), t

    def _e_coalesce(self, node, scope, defs):
        (af, at), (bf, bt) = (self._expr(x, scope, defs) for x in node.children)

        def coalesce(s, fr):
            v = af(s, fr)
            return bf(s, fr) if v is None else v
        return coalesce, _unify(at, bt)

    def _e_or_(self, node, scope, defs):
        (af, at), (bf, bt) = (self._expr(x, scope, defs) for x in node.children)
        for f, g in ((af, bf), (bf, af)):  # expressions have no side effects: fold constants away
            if _is_const(f):
                return (_constant(True) if f.const_value else (lambda s, fr: bool(g(s, fr)))), "bool"
        return (lambda s, fr: True if af(s, fr) or bf(s, fr) else False), "bool"

    def _e_and_(self, node, scope, defs):
        (af, at), (bf, bt) = (self._expr(x, scope, defs) for x in node.children)
        for f, g in ((af, bf), (bf, af)):
            if _is_const(f):
                return ((lambda s, fr: bool(g(s, fr))) if f.const_value else _constant(False)), "bool"
        return (lambda s, fr: True if af(s, fr) and bf(s, fr) else False), "bool"

    def _e_not_(self, node, scope, defs):
        af, _ = self._expr(node.children[0], scope, defs)
        return (lambda s, fr: not af(s, fr)), "bool"

    def _e_neg(self, node, scope, defs):
        af, t = self._expr(node.children[0], scope, defs)
        _need_number(node, t, "-")
        return (lambda s, fr: -af(s, fr)), "int"

    def _e_compare(self, node, scope, defs):
        left, op_tok, right = node.children
        return self._compare(node, str(op_tok), self._expr(left, scope, defs), self._expr(right, scope, defs))

    def _compare(self, node, op, a, b):
        """The closure of ``left OP right`` from its compiled sides ``(closure, type)``."""
        left, _, right = node.children
        (af, at), (bf, bt) = a, b
        if op in _COMPARE:
            _check_comparable(node, at, bt, op)
            if _is_const(bf) or _is_const(af):  # the common `x == 'pip'`: one closure call, no operator call
                g, v = (af, bf.const_value) if _is_const(bf) else (bf, af.const_value)
                if op == "==":
                    return (lambda s, fr: g(s, fr) == v), "bool"
                return (lambda s, fr: g(s, fr) != v), "bool"
            f = _COMPARE[op]
            return (lambda s, fr: f(af(s, fr), bf(s, fr))), "bool"
        for t, side in ((at, left), (bt, right)):
            if t not in ("int", "any", "null", "str"):
                raise _err(side, f"cannot order {t} values with {op!r}")
        if {at, bt} == {"int", "str"}:
            raise _err(node, f"cannot order an int and a str with {op!r}")
        f = _ORDER[op]
        if _is_const(bf) and bf.const_value is not None:
            v = bf.const_value

            def ordered_const(s, fr):
                a = af(s, fr)
                return a is not None and f(a, v)
            return ordered_const, "bool"

        def ordered(s, fr):
            a = af(s, fr)
            if a is None:
                return False
            b = bf(s, fr)
            return b is not None and f(a, b)
        return ordered, "bool"

    def _e_contains(self, node, scope, defs):
        return self._contains(node, *(self._expr(x, scope, defs) for x in node.children))

    def _contains(self, node, a, b):
        """The closure of ``elem in list`` from its compiled sides ``(closure, type)``."""
        (af, _), (bf, bt) = a, b
        if not (is_list(bt) or bt == "null"):
            raise _err(node.children[1], f"'in' needs a list on the right, got {bt}")
        return (lambda s, fr: (c := bf(s, fr)) is not None and af(s, fr) in c), "bool"

    def _e_not_contains(self, node, scope, defs):
        f, t = self._e_contains(node, scope, defs)
        return (lambda s, fr: not f(s, fr)), t

    def _e_binop(self, node, scope, defs):
        left, op_tok, right = node.children
        (af, at), (bf, bt) = self._expr(left, scope, defs), self._expr(right, scope, defs)
        op = str(op_tok)
        if op == "+" and at == "str" or bt == "str" and op == "+":
            return (lambda s, fr: f"{af(s, fr)}{bf(s, fr)}"), "str"
        if op == "+" and is_list(at) and is_list(bt) and "any" not in (at, bt):
            return (lambda s, fr: list(af(s, fr)) + list(bf(s, fr))), "list[card]" if at == "zone" else at
        _need_number(left, at, op)
        _need_number(right, bt, op)
        if _is_const(bf) and isinstance(bf.const_value, int) and op in ("+", "-"):  # `row - 1`: one call fewer
            k = bf.const_value
            if op == "+":
                return (lambda s, fr: af(s, fr) + k), "int"
            return (lambda s, fr: af(s, fr) - k), "int"
        if op == "+":
            return (lambda s, fr: af(s, fr) + bf(s, fr)), "int"
        if op == "-":
            return (lambda s, fr: af(s, fr) - bf(s, fr)), "int"
        if op == "*":
            return (lambda s, fr: af(s, fr) * bf(s, fr)), "int"
        if op == "//":
            return (lambda s, fr: af(s, fr) // bf(s, fr)), "int"
        return (lambda s, fr: af(s, fr) % bf(s, fr)), "int"

    # -- statements -------------------------------------------------------------------
    def _stmt(self, node, scope) -> Closure:
        if node.data == "assign":
            return self._assign(node, scope)
        if node.data == "call_stmt":
            return self._effect(node, scope)
        if node.data == "for_stmt":
            var_tok, coll, *body = node.children
            cf, ct = self._expr(coll, scope, ())
            cf = _charged(cf)
            if not is_list(ct):
                raise _err(coll, f"can only iterate over a list, got {ct}")
            inner = scope.child(str(var_tok), elem_type(ct))
            slot = inner.lookup(str(var_tok)).slot
            run = _seq([self._stmt(b, inner) for b in body])
            scope.absorb(inner)

            def for_stmt(s, fr):
                for x in list(cf(s, fr)):
                    fr[slot] = x
                    run(s, fr)
            return for_stmt
        if node.data == "if_stmt":
            cond, *rest = node.children
            branches = []
            body = []
            else_body = None
            for part in rest:
                if isinstance(part, lark.Tree) and part.data == "elif_part":
                    c, *b = part.children
                    branches.append((self._expr(c, scope, ())[0], _seq([self._stmt(x, scope) for x in b])))
                elif isinstance(part, lark.Tree) and part.data == "else_part":
                    else_body = _seq([self._stmt(x, scope) for x in part.children])
                elif part is not None:
                    body.append(self._stmt(part, scope))
            branches.insert(0, (self._expr(cond, scope, ())[0], _seq(body)))

            def if_stmt(s, fr):
                for c, b in branches:
                    if c(s, fr):
                        b(s, fr)
                        return
                if else_body is not None:
                    else_body(s, fr)
            return if_stmt
        raise _err(node, f"unsupported statement {node.data!r}")  # pragma: no cover

    def _effect(self, node, scope) -> Closure:
        name_tok, *args = node.children
        args = [a for a in args if a is not None]
        name = str(name_tok)
        spec = B.EFFECTS.get(name)
        if spec is None:
            raise _err(name_tok, f"unknown effect {name!r}{did_you_mean(name, B.EFFECTS)}")
        if len(args) != len(spec.params):
            raise _err(node, f"{name}() takes {len(spec.params)} argument{'s' if len(spec.params) != 1 else ''}, got {len(args)}")
        fns = []
        for p, a in zip(spec.params, args):
            f, t = self._expr(a, scope, ())
            if p == "zone" and t not in ("zone", "any"):
                raise _err(a, f"{name}() needs a zone here (a zone name, or a member of a zone family), got {t}")
            if p == "card" and t not in ("card", "any", "null"):
                raise _err(a, f"{name}() needs a card here, got {t}")
            fns.append(f)
        if name in ("move", "move_front"):
            cf, src, dst = fns
            front = name == "move_front"

            def move(s, fr):
                c, frm, to = cf(s, fr), src(s, fr), dst(s, fr)  # all read before anything moves
                if c is None or frm is None or c not in frm:
                    raise ValueError(f"{name}(): the card is not in the zone it is moved from")
                if to is None:
                    raise ValueError(f"{name}(): no zone to move to")
                frm.remove(c)
                if front:
                    to.insert(0, c)
                else:
                    to.append(c)
            return move
        if name == "move_all":
            src, dst = fns

            def move_all(s, fr):
                frm, to = src(s, fr), dst(s, fr)
                if frm is not to:
                    to.extend(frm)
                    frm.clear()
            return move_all
        if name == "swap":
            af, bf = fns

            def swap(s, fr):
                a, b = af(s, fr), bf(s, fr)
                a[:], b[:] = list(b), list(a)
            return swap
        if name == "move_random":
            src, dst = fns

            def move_random(s, fr):
                frm = src(s, fr)
                if frm:
                    c = frm.pop(s._generator().randrange(len(frm)))
                    dst(s, fr).append(c)
            return move_random
        if name == "end_turn":
            def end_turn(s, fr):
                s.turn_over = True
            return end_turn

        def end_game(s, fr):
            raise GameEnded()
        return end_game

    def _assign(self, node, scope) -> Closure:
        target, op_tok, value = node.children
        vf, vt = self._expr(value, scope, ())
        op = str(op_tok)
        name_tok = target.children[0]
        name = str(name_tok)
        sym = self.ns.symbols.get(name)
        if op != "=":
            _need_number(value, vt, op)
        if target.data == "target_index":
            if sym is None or sym.kind != "seat_var":
                raise _err(name_tok, f"{name!r} is not a seat variable{_suggest(name, self.ns, 'seat_var')}")
            i = sym.value
            xf, _ = self._expr(target.children[1], scope, ())
            if op == "=":
                def set_seat(s, fr):
                    s.seat_vars[i][xf(s, fr)] = vf(s, fr)
                return set_seat
            sign = 1 if op == "+=" else -1

            def add_seat(s, fr):
                s.seat_vars[i][xf(s, fr)] += sign * vf(s, fr)
            return add_seat
        if sym is None or sym.kind != "table_var":
            if sym is not None and sym.kind == "seat_var":
                raise _err(name_tok, f"{name!r} is a seat variable: write {name}[seat]")
            raise _err(name_tok, f"{name!r} is not a table variable{_suggest(name, self.ns, 'table_var')}")
        i = sym.value
        if op == "=":
            def set_table(s, fr):
                s.table_vars[i] = vf(s, fr)
            return set_table
        sign = 1 if op == "+=" else -1

        def add_table(s, fr):
            s.table_vars[i] += sign * vf(s, fr)
        return add_table


class _Scope:
    """Compile-time frame layout: context names first, then loop variables."""

    def __init__(self, context=(), _parent=None):
        self._names: dict[str, Local] = {}
        self._parent = _parent
        self._context = tuple(context)
        self.used = False  # did compiled code read a frame slot through this scope?
        if _parent is None:
            self._next = [0]
            for name, typ in context:
                self._names[name] = Local(self._next[0], typ)
                self._next[0] += 1
        else:
            self._next = _parent._next

    @property
    def size(self) -> int:
        return self._next[0]

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope._names:
                self.mark_used()
                return scope._names[name]
            scope = scope._parent
        return None

    def mark_used(self):
        """Record that compiled code reads a frame slot, in this scope and every enclosing one."""
        scope = self
        while scope is not None:
            scope.used = True
            scope = scope._parent

    def names(self):
        out, scope = [], self
        while scope is not None:
            out += list(scope._names)
            scope = scope._parent
        return out

    def child(self, name, typ) -> "_Scope":
        inner = _Scope(_parent=self)
        inner._names[name] = Local(self._next[0], typ)
        self._next[0] += 1
        return inner

    def absorb(self, inner):  # slots are shared through _next; nothing else to merge
        pass

    def globals_only(self) -> "_Scope":
        """The scope a definition sees: the hook's context names but no loop variables."""
        root = self
        while root._parent is not None:
            root = root._parent
        view = _Scope()
        view._names = dict(root._names)
        view._next = root._next
        return view


_STATE = -1
"""Marker in the compiler's read log: the code reads the game state (not a frame slot)."""

_LITERALS = {"int_lit", "str_lit", "true_lit", "false_lit", "null_lit", "name"}
_ALWAYS_MEMO = {"aggregate"}
_MEMO_MIN_NODES = 6
"""Smallest state-only subtree worth memoising: below it the cache costs more than it saves."""


def _constant(value) -> Closure:
    def const(s, fr):
        return value
    const.const_value = value
    return const


def _is_const(fn) -> bool:
    return hasattr(fn, "const_value")


def _memoised(key, fn: Closure) -> Closure:
    """Cache a state-only expression in ``state._cache`` while the engine has one open.

    The engine opens a cache (a dict) only while it reads a state it does not change, such
    as testing every card of a hand for legality, so a test like "the led suit" or "no
    trick has been led yet" is computed once per decision instead of once per card.
    """
    def memo(s, fr):
        cache = s._cache
        if cache is None:
            return fn(s, fr)
        try:
            return cache[key]
        except KeyError:
            value = cache[key] = fn(s, fr)
            return value
    memo.memo_of = fn
    return memo


def _with_cache(fn: Closure) -> Closure:
    """Open a memo cache on the state (if none is open) while ``fn`` runs.

    An expression never changes the state, so the state-only parts of a loop body that
    ``fn`` memoises (``lead.rank`` in ``any(p.rank < lead.rank for p in trick)``) are
    computed once instead of once per item: loop-invariant code, hoisted.
    """
    def cached(s, fr):
        if s._cache is not None:
            return fn(s, fr)
        s._cache = {}
        try:
            return fn(s, fr)
        finally:
            s._cache = None
    return cached


def _seq(stmts: list[Closure]) -> Closure:
    if not stmts:
        return lambda s, fr: None
    if len(stmts) == 1:
        return stmts[0]

    def seq(s, fr):
        for st in stmts:
            st(s, fr)
    return seq


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


def _need_number(node, t, op):
    if t not in ("int", "any", "bool", "null"):
        raise _err(node, f"{op!r} needs numbers, got {t}")


def _check_comparable(node, at, bt, op):
    simple = {"int", "str", "bool", "card", "play"}
    if at in simple and bt in simple and at != bt and {at, bt} != {"int", "bool"}:
        raise _err(node, f"comparing {at} with {bt} using {op!r} is always {'false' if op == '==' else 'true'}")


def _assignable(t, want):
    return t == want or (want == "list" and is_list(t)) or t in ("any", "null") or (want == "bool") or (want == "int" and t == "bool")


def _suggest(name, ns, kind):
    return did_you_mean(name, [k for k, s in ns.symbols.items() if s.kind == kind])


__all__ = ["Compiler", "Namespace", "Symbol", "DSLCompileError", "DSLSyntaxError", "PLAY_FIELDS"]
