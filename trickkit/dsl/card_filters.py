"""Generated passes over many candidates: hand filters, combination filters, kinds passes.

A card test is generated as one loop over a hand (`card_filter`), an action kind's test as
nested loops over its choices' domains (`combo_filter`), and a turns step's action kinds as one
function (`kinds_pass`); the parts that do not depend on the candidate are staged before the
loops, computed once per call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from trickkit.dsl.body import (
    Line,
    flatten,
    location_comment,
)
from trickkit.dsl.filter_exits import early_exits
from trickkit.dsl.filter_inline import TEMP_LOCAL, TEMP_NUMBER, TEXT_LITERAL, definitions_once, inline_filter
from trickkit.dsl.filter_loops import LoopFiltersMixin, choice_ranges, value_rows
from trickkit.dsl.flat_pass import can_kept, choice_keys, flat_constant, flat_filter, flat_lines, flat_product
from trickkit.dsl.pass_tidy import tidied
from trickkit.dsl.runtime import distinct_cards, distinct_values
from trickkit.dsl.scope import Local, Scope
from trickkit.dsl.types import (
    Context,
    DSLCompileError,
    Node,
    Rule,
)

_GENERATED_FN = re.compile(r"^_[rg][0-9]+$")
"""Names of the generated rule functions and combination filters a kinds pass may call."""


_INLINE_MAX_LINES = 16
"""Longest rule (in generated lines) a generated pass inlines instead of calling."""


_FRAME_NAME = re.compile(r"\b(fr|a[0-9]+)\b|\breturn\b")
"""The frame, a context value, or a return: code that is not inlined as it stands."""


# a plain read of a zone, the code of a choice's rule like ``hand[me]``
_ZONE_READ = re.compile(r"^\(?s\.(seat_zones\[[0-9]+\]\[(s\.current|[0-9]+)\]|table_zones\[[0-9]+\])\)?$")


_UNROLL_MIN, _UNROLL_MAX = 2, 3
"""How many values of a constant last choice a combination filter unrolls (see `combo_filter`):
a loop body per value, so only a few."""


_ROW_MIN = 6
"""Fewest values of a constant last choice for a kinds pass to give whole rows: a row costs a
lookup and a comparison in the engine, worth it only in place of as many combinations' lookups."""


def _constant_domain(fn: Rule, cards: bool, repeats: bool, texts: Sequence[str] | None) -> list[Any] | None:
    """The values of a choice whose domain rule is a constant (``suit: suit_names``), made
    distinct as the pass would make them at every call (copies of a card once when ``cards``,
    equal values once when ``repeats``); None when the domain is not a constant list, or making
    it distinct fails (then the pass does it at play, and the engine reports the error)."""
    value = getattr(fn, "const_value", None)
    if value.__class__ is not list:
        return None
    try:
        if cards:
            return distinct_cards(value, cast(Sequence[str], texts))
        if repeats:
            return distinct_values(value)
    except Exception:  # e.g. a list among the values: left to fail, located, at play time
        return None
    return value


def _two_distinct(w: str, texts: str) -> list[Line]:
    """The lines making the zone's cards in ``w`` distinct (`distinct_cards`), a hand of two
    cards inline: the commonest hand of a game with copies, without the helper's call. A zone
    holds card ids, never null, and the pass only reads its domains: the zone's own list will do."""
    return [
        f"if _len({w}) != 2:",
        [f"{w} = _distinct_cards({w}, {texts})"],
        f"elif {texts}[{w}[0]] == {texts}[{w}[1]]:",
        [f"{w} = [{w}[0]]"],
    ]


class FiltersMixin(LoopFiltersMixin):
    """Filters and passes over many candidates (see the module docstring)."""

    def card_filter(self, tree: Node, context: Context) -> tuple[Rule, int]:
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
        val, hoist, inner = self._loop_test(tree, scope)
        name = f"_f{next(self._ids)}"
        lines = [f"def {name}(s, fr, cards):"]
        lines += self._unpack(context[1:], scope, offset=1)
        lines += flatten(hoist.lines)
        if not inner:
            lines.append(f"    return [{card.name} for {card.name} in cards if {self._code(val)}]")
        else:
            lines += ["    out = []", f"    for {card.name} in cards:"]
            lines += flatten(inner, depth=2)
            lines += [f"        if {self._code(val)}:", f"            out.append({card.name})", "    return out"]
        return self._define(name, lines), len(context)

    def combo_filter(
        self,
        tree: Node,
        context: Context,
        first_only: bool = False,
        values: Sequence[Sequence[Any] | None] = (),
    ) -> Rule:
        """An action kind's test over every combination of its choices, as one generated pass:
        ``filter(state, frame, domains) -> [combination, ...]`` in the order of
        ``itertools.product(*domains)``; ``context`` names the choices, one per domain.

        State-only parts of the test are computed once per call, before the loops (a failure
        there makes the engine fall back to testing each combination on its own). With
        ``first_only`` it stops at the first combination that passes (a list of at most one).
        ``values``: per choice, the values of its domain when it is a constant list of distinct
        texts or numbers (else None), which the engine passes as they are. A choice over ints is
        then known to lie between its least and greatest (``rows[row - 1]`` for ``row`` in
        range(1, 4) needs no range check); a small last one is unrolled: the test is generated
        once per value, with the value a constant (``end == 'left'`` decided here), one after
        the other in the loop of the choice before.

        Raises:
            DSLCompileError: as `expression_tree`.
        """
        self._no_filter_when_counting()
        # choice values are taken as never null: where one is, the generated code raises
        # and the engine tests that kind's combinations one by one, with the null checks
        scope = Scope({n: Local(f"a{i}", t, nullable=False) for i, (n, t) in enumerate(context)})
        n = len(context)
        levels: list[tuple[frozenset[str], list[Line], dict[str, str]]] = [
            (frozenset(f"a{j}" for j in range(i + 1)), [], {}) for i in range(n - 1)
        ]
        # a part naming only a later outer choice (``rows[row - 1]``, not the artifact before it)
        # is computed once per value of it, before the loops, not again for every earlier choice
        # (not when it stops at the first combination passing: that one is usually found early)
        solo: list[tuple[frozenset[str], list[Line], dict[str, str]]] = [
            (frozenset([f"a{i}"]), [], {}) for i in range(1, n - 1 if not first_only else 1)
        ]
        self.in_filter = True
        try:
            val, hoist, inner = self._loop_test(tree, scope, [*solo, *levels], choice_ranges(values))
        finally:
            self.in_filter = False
        decided = early_exits(val.code, levels, solo)
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr, domains):"]
        lines += flatten(hoist.lines)
        loops = [f"for a{i} in domains[{i}]:" for i in range(n)]
        used = TEMP_NUMBER.findall(
            "\n".join(flatten([*hoist.lines, *inner, *(x for lv in (*solo, *levels) for x in lv[1])]))
        )
        top = max(map(int, used), default=-1)
        later = "\n".join(flatten([*inner, *(x for lv in levels for x in lv[1])])) + "\n" + val.code
        for i, (_, out, _) in enumerate(solo, start=1):
            if out:  # each value with its parts, kept when no test among them failed
                top += 1
                value_rows(i, out, later, f"v{top}", lines, loops)
        lines.append("    out = []")
        bulk = decided and not first_only and not inner
        skips = "continue" in "\n".join(flatten([x for lv in (*solo, *levels) for x in lv[1]]))
        last = values[-1] if len(values) == n else None
        if not bulk and not skips and last is not None and _UNROLL_MIN <= len(last) <= _UNROLL_MAX:
            # (kept as a loop where outer values are skipped: the unrolled tests skip none)
            return self._unrolled(tree, context, first_only, last, choice_ranges(values[:-1]))
        for i in range(n - 1 if bulk else n):
            lines.append("    " * (i + 1) + loops[i])
            if i < n - 1:  # the parts that name only the choices so far
                lines += flatten(levels[i][1], depth=i + 2)
        pad = "    " * (n + 1)
        combo = "(" + ", ".join(f"a{i}" for i in range(n)) + ("," if n == 1 else "") + ")"
        found = f"return [{combo}]" if first_only else f"out.append({combo})"
        if bulk:  # decided in the outer loops: every last choice passes, combined in one C call
            outer = "".join(f"[a{i}], " for i in range(n - 1))
            fn = self._define_filter(
                name, [*lines, "    " * n + f"out += _iproduct({outer}domains[{n - 1}])", "    return out"]
            )
            # its rows variant, for a kinds pass: the outer choices' values of each row that passes whole
            rows = f"_g{next(self._ids)}"
            head = f"def {rows}(s, fr, domains):"
            row = "(" + "".join(f"a{i}, " for i in range(n - 1)) + ")"
            rows_fn = self._define_filter(rows, [head, *lines[1:], "    " * n + f"out.append({row})", "    return out"])
            setattr(fn, "rows", rows_fn)  # noqa: B010  # an attribute of a generated function: typed as no field
            return fn
        elif decided:  # the whole test was passed in an outer loop (see early_exits)
            lines += flatten(inner, depth=n + 1)
            lines += [f"{pad}{found}", "    return out"]
            return self._define_filter(name, lines)
        else:
            lines += flatten(inner, depth=n + 1)
            lines += [f"{pad}if {self._code(val)}:", f"{pad}    {found}", "    return out"]
        return self._define_filter(name, lines)

    def kinds_pass(
        self, kinds: Sequence[Mapping[str, Any]], first_only: bool = False, texts: Sequence[str] | None = None
    ) -> Rule:
        """One generated function over a turns step's action kinds (or a reaction window's):
        for each kind in order, its guard, its choices' domains (copies of a card offered once
        when ``texts``, the deck's card texts, is given), the evaluation budget charge and its
        combination filter, as the engine's general path (`trickkit.engine.turns._combinations`)
        computes them, without a Python call per hook.

        Each of ``kinds`` names the functions already generated for that kind: ``guard``
        (or None), ``domains`` (one per choice), ``cards`` (per choice: is it a card choice),
        ``filter`` (the generated combination filter, or ``"all"``: every combination),
        ``allowed`` (for a kind without choices), ``where`` (for a comment) and ``repeats``
        (optional, per choice: may its values repeat; then only the first of equal ones is kept),
        ``rows`` (optional: may its combinations come as whole rows).

        Returns ``fn(state, frame)``: a list with each kind's combinations (a list of tuples,
        in ``itertools.product`` order), or with ``first_only`` True when some kind has one.
        Without ``first_only``, ``fn.rows`` says per kind whether its entry comes as rows
        instead: ``(outer values, last domain)``, every last value passing after each outer
        tuple (a kind with ``rows`` whose filter decides before its last choice, a constant one
        of at least ``_ROW_MIN`` values), so that the
        engine takes each row's actions whole, made once. ``fn.flat``, when every kind's
        combinations can be numbered (see `trickkit.dsl.flat_pass`): the same pass appending
        the actions themselves, ``flat(state, tables)``, its ``keys`` saying how each kind's
        table is indexed (the engine makes the tables, `trickkit.engine.turn_actions.flat_tables`).
        Any error inside means: ask the general path, which reports it, located.
        """
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr):"]
        # each kind's entry goes to a local of its own (q0, q1 ...), returned as one list: no append per kind
        texts_code = self._table(texts) if texts is not None else None
        # the flat variant's lines (see `trickkit.dsl.flat_pass`): None once a kind cannot have one
        flat: list[str] | None = None if first_only else ["", "    out = []"]

        def ref(fn: Rule) -> str:  # a function generated before, by its own name in this module
            fname = getattr(fn, "__name__", "")
            if not _GENERATED_FN.match(fname) or self.env.get(fname) is not fn:
                raise DSLCompileError(f"not a generated function: {fname!r}")
            return fname

        base = [1000]  # inlined rules' locals are renumbered from here: no clash with the pass's own

        def call(fn: Rule, target: str) -> list[Line]:
            """Lines computing ``fn(s, ())`` into the test or assignment ``target`` (``"if {}:"``,
            ``"v0 = {}"``): the rule's own statements inlined, or else a call of it."""
            inlined = self._inline(ref(fn), base)
            if inlined is None:
                return [target.format(f"{ref(fn)}(s, ())")]
            lines, code = inlined
            return [*lines, target.format(code)]

        found = "return True" if first_only else ""
        shared = self._shared_card_domains(kinds, texts)
        # made at the top when the first kind that reads it has no guard (it would make it then
        # anyway; a zone read cannot fail and charges nothing), else by the first kind that reaches it
        eager = {code for code in shared if not first_only and self._read_first_unguarded(kinds, code)}
        for code, local in shared.items():
            if code in eager:
                lines += [f"    {local} = {code}", *flatten(_two_distinct(local, str(texts_code)))]
            else:
                lines.append(f"    {local} = None")
        if flat is not None:
            flat += lines[1:]  # the shared zones' locals
        known: dict[str, list[str]] = {}  # hoisted parts of the filters inlined so far (see `_filter_into`)
        row_kinds: list[bool] = []
        kept: list[int] = []  # the kinds whose combinations are kept for `can` (see below)
        keys: list[list[Any]] = []  # per kind, how its flat table is indexed (see `choice_keys`)
        for kind in kinds:
            q = f"q{len(row_kinds)}"
            row_kinds.append(False)
            body: list[Line] = []
            flat_body: list[Line] | None = None
            if kind.get("where"):
                lines.append("    " + location_comment(kind["where"]))
                if flat is not None:
                    flat.append(lines[-1])
            domains = kind["domains"]
            charge: list[Line] = [
                "s.budget -= " + (" * ".join(f"_len(v{i})" for i in range(len(domains))) or "1"),
                "if s.budget < 0:",
                ["_over_budget()"],
            ]
            if not domains:  # one combination, (): `allowed` itself decides (after the guard, if any)
                keys.append([])
                test: list[Line] = [*call(kind["allowed"], "if {}:"), [found or f"{q} = [()]"]]
                if not first_only:
                    test += ["else:", [f"{q} = ()"]]
                if kind["guard"] is None:
                    body = charge + test
                else:
                    body = [
                        *call(kind["guard"], "t0 = {}"),
                        "if t0 is True:",
                        [found or f"{q} = [()]"],
                        "elif t0:",
                        charge + test,
                    ]
                    if not first_only:
                        body += ["else:", [f"{q} = ()"]]
            else:
                inner: list[Line] = []
                repeats = kind.get("repeats") or ()
                sizes = []  # each domain's length in the budget charge: a literal for a constant domain
                fixed_all: list[list[Any] | None] = []
                for i, (fn, card) in enumerate(zip(domains, kind["cards"], strict=False)):
                    distinct = card and texts_code is not None
                    fixed = _constant_domain(fn, distinct, bool(i < len(repeats) and repeats[i]), texts)
                    fixed_all.append(fixed)
                    if fixed is not None:  # the same values every call: made distinct now, once
                        inner.append(f"v{i} = {self._const_code(fixed)}")
                        sizes.append(repr(len(fixed)))
                        continue
                    code = self._inline_parts.get(ref(fn), ((), ""))[1]
                    w = shared.get(code) if distinct else None
                    if w is not None:  # the same zone as another kind's: its cards, distinct, once
                        if code not in eager:
                            inner += [
                                f"if {w} is None:",
                                [*call(fn, f"{w} = {{}}"), *_two_distinct(w, str(texts_code))],
                            ]
                        sizes.append(f"_len({w})")  # (charges of the pass's top block merge: see `tidied`)
                        inner.append(f"v{i} = {w}")
                        continue
                    sizes.append(f"_len(v{i})")
                    inner += call(fn, f"v{i} = {{}}")
                    if distinct:
                        inner.append(f"v{i} = _distinct_cards(v{i}, {texts_code})")
                    elif i < len(repeats) and repeats[i]:
                        inner.append(f"v{i} = _distinct_values(v{i})")
                charge[0] = "s.budget -= " + " * ".join(sizes)
                inner += charge
                listed = "[" + ", ".join(f"v{i}" for i in range(len(domains))) + "]"
                flt = kind["filter"]
                before = len(inner)
                as_rows = False
                if flt == "all":
                    if first_only:
                        inner += ["if " + " and ".join(f"v{i}" for i in range(len(domains))) + ":", [found]]
                    else:
                        inner.append(f"{q} = _product({listed})")
                elif first_only:
                    inner += [f"if {ref(flt)}(s, (), {listed}):", [found]]
                elif kind.get("rows") and getattr(flt, "rows", None) is not None and len(fixed or ()) >= _ROW_MIN:
                    # whole rows: the outer values of each, with the last domain (see `kinds_pass`)
                    inner += self._filter_into(
                        ref(flt.rows), listed, base, f"{q} = ({{}}, v{len(domains) - 1})", known, kind["guard"] is None
                    )
                    row_kinds[-1] = as_rows = True
                else:
                    inner += self._filter_into(ref(flt), listed, base, f"{q} = {{}}", known, kind["guard"] is None)
                flat_inner = None
                if flat is not None:
                    kind_keys = [choice_keys(v, c) for v, c in zip(fixed_all, kind["cards"], strict=False)]
                    if as_rows:
                        kind_keys[-1] = ("row", tuple(fixed_all[-1] or ()))
                    table = f"m{len(keys)}"
                    if flt == "all":
                        found_lines: Sequence[Line] | None = flat_product(len(domains), table)
                    else:
                        found_lines = flat_lines(inner[before:], table, len(domains) - as_rows, as_rows)
                        if found_lines is None and len(inner) == before + 1:  # a call of the filter
                            found_lines = self._flat_call(str(inner[-1]), ref(flt), table, fixed_all[-1], kind_keys)
                    if found_lines is not None and None not in kind_keys:
                        flat_inner = [*inner[:before], *found_lines]
                        keys.append(kind_keys)
                flat = flat if flat_inner is not None else None
                if kind["guard"] is None:
                    body = inner
                    flat_body = flat_inner
                else:
                    guard_test = call(kind["guard"], "if {}:")
                    body = [*guard_test, inner]
                    flat_body = [*guard_test, flat_inner] if flat_inner is not None else None
                    if not first_only:
                        body += ["else:", [f"{q} = ()"]]
            lines += flatten(body)
            if flat is not None:  # its lines appending actions (one without choices: its one action)
                done = flat_constant(flatten(body), q, f"m{len(keys) - 1}") if not domains else flatten(flat_body or [])
                if done is not None and kind.get("can") and not row_kinds[-1]:  # kept as `kept` below
                    done = can_kept(done, q, kind["name"])
                flat = None if done is None else flat + done
            if kind.get("can") and not first_only and not row_kinds[-1]:
                # a rule asks `can` about this kind: its answer, found now, kept for the decision
                kept.append(len(row_kinds) - 1)
                lines += [f"    s.memo[('can', {kind['name']!r})] = {q}"]
        lines.append(
            "    return False" if first_only else f"    return [{', '.join(f'q{k}' for k in range(len(row_kinds)))}]"
        )
        lines = tidied(definitions_once(lines, len(shared)))
        fn = self._define(name, lines)
        if not first_only:
            setattr(fn, "rows", tuple(row_kinds))  # noqa: B010  # read by `trickkit.engine.turns._plan`
            if flat is not None:  # every kind's actions looked up in tables: the engine may make them
                if len(keys) > 1:
                    flat.insert(1, "    " + ", ".join(f"m{k}" for k in range(len(keys))) + " = fr")
                else:
                    flat.insert(1, "    m0 = fr[0]")
                flat_name = f"_g{next(self._ids)}"
                flat[0] = f"def {flat_name}(s, fr):"
                flat_fn = self._define(flat_name, tidied([*flat, "    return out"]))
                setattr(flat_fn, "keys", tuple(tuple(k) for k in keys))  # noqa: B010  # read by `turns._plan`
                setattr(fn, "flat", flat_fn)  # noqa: B010
            setattr(fn, "kept", tuple(kept))  # noqa: B010  # read by `trickkit.engine.turns.legal_turns`
        return fn

    def _flat_call(
        self, call: str, name: str, table: str, last: list[Any] | None, keys: list[Any]
    ) -> list[Line] | None:
        """The flat variant of a pass's ``call`` of the filter ``name`` (see `flat_filter`), defined; its call."""
        lines, flat_name = self.__dict__.get("_filter_lines", {}).get(name), f"_g{next(self._ids)}"
        found = flat_filter(call, lines, flat_name, [self._const_code(v) for v in last or ()]) if lines else None
        if found is not None:
            self._define(flat_name, found[0])
            keys[-1] = ("at", tuple(last or ())) if found[2] else keys[-1]  # an unrolled last choice: by place
        return [found[1].format(table)] if found is not None else None

    def _read_first_unguarded(self, kinds: Sequence[Mapping[str, Any]], code: str) -> bool:
        """Whether the first kind of a pass whose card choice reads the zone ``code`` has no guard."""
        for kind in kinds:
            for fn, card in zip(kind["domains"], kind["cards"], strict=False):
                parts = self._inline_parts.get(getattr(fn, "__name__", ""))
                if card and parts is not None and not parts[0] and parts[1] == code:
                    return kind["guard"] is None
        return False

    def _shared_card_domains(self, kinds: Sequence[Mapping[str, Any]], texts: Sequence[str] | None) -> dict[str, str]:
        """The card choices' zones (``hand[me]``) that more than one kind of a pass offers, by
        the code that reads them, each with the pass local that keeps its distinct cards: a
        plain read of a zone, which charges nothing, so computing it once changes no budget."""
        if texts is None:
            return {}
        seen: dict[str, int] = {}
        for kind in kinds:
            for i, (fn, card) in enumerate(zip(kind["domains"], kind["cards"], strict=False)):
                repeats = kind.get("repeats") or ()
                if not card or _constant_domain(fn, True, bool(i < len(repeats) and repeats[i]), texts) is not None:
                    continue
                parts = self._inline_parts.get(getattr(fn, "__name__", ""))
                if parts is not None and not parts[0] and _ZONE_READ.match(parts[1]):
                    seen[parts[1]] = seen.get(parts[1], 0) + 1
        return {code: f"p{k}" for k, code in enumerate(c for c, n in seen.items() if n > 1)}  # inlined locals: 1000 on

    def _filter_into(
        self, name: str, listed: str, base: list[int], entry: str, known: dict[str, list[str]], record: bool
    ) -> list[Line]:
        """Lines of a kinds pass keeping the combinations the filter ``name`` finds in the domains
        ``listed`` (``[v0, v1]``) by the statement ``entry`` (``"q0 = {}"``: the list itself in the
        kind's local): the filter's own lines inlined (see `trickkit.dsl.filter_inline`), or else a call of it."""
        lines = self.__dict__.get("_filter_lines", {}).get(name)
        inlined = inline_filter(lines, listed, base, entry, known, record) if lines is not None else None
        if inlined is None:
            return [entry.format(f"{name}(s, (), {listed})")]
        return list(inlined)

    def _inline(self, name: str, base: list[int]) -> tuple[list[Line], str] | None:
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
        literals = TEXT_LITERAL.findall(text)  # ``can('place')``: renumbering leaves these alone
        rest = TEXT_LITERAL.sub("", text)
        if "'" in rest or '"' in rest or _FRAME_NAME.search(text) or any(TEMP_NUMBER.search(x) for x in literals):
            return None
        top = max((int(n) for n in TEMP_NUMBER.findall(text)), default=-1)
        offset = base[0]
        base[0] += top + 1

        def renumber(line: str) -> str:
            return TEMP_LOCAL.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", line)

        return [renumber(line) for line in lines], f"({renumber(code)})"
