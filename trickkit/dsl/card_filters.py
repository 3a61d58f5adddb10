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
    Body,
    Hoist,
    Line,
    flatten,
    location_comment,
)
from trickkit.dsl.gen_effects import StatementsMixin
from trickkit.dsl.parser import parse
from trickkit.dsl.runtime import distinct_cards, distinct_values
from trickkit.dsl.scope import Local, Scope
from trickkit.dsl.types import (
    Context,
    DSLCompileError,
    Node,
    Rule,
    Val,
)

_GENERATED_FN = re.compile(r"^_[rg][0-9]+$")
"""Names of the generated rule functions and combination filters a kinds pass may call."""


_INLINE_MAX_LINES = 16
"""Longest rule (in generated lines) a generated pass inlines instead of calling."""


_TEMP_SUB = re.compile(r"\b([tvhmpq])([0-9]+)\b")
"""A local the generator makes for a rule's own values (see `allowlist.LOCAL_NAME`), in code."""


_TEMP_REF = re.compile(r"\b[tvhmpq]([0-9]+)\b")


_FRAME_NAME = re.compile(r"\b(fr|a[0-9]+)\b|\breturn\b")
"""The frame, a context value, or a return: code that is not inlined as it stands."""


# a plain read of a zone, the code of a choice's rule like ``hand[me]``
_ZONE_READ = re.compile(r"^\(?s\.(seat_zones\[[0-9]+\]\[(s\.current|[0-9]+)\]|table_zones\[[0-9]+\])\)?$")
_LEVEL_ASSIGN = re.compile(r"^(h[0-9]+) = (.+)$")
"""A part computed in a combination filter's outer loop (see `GenBase._leveled`): ``hN = code``."""

_LEVEL_NAME = re.compile(r"^h[0-9]+$")
"""The local of such a part."""


_ROW_MIN = 6
"""Fewest values of a constant last choice for a kinds pass to give whole rows: a row costs a
lookup and a comparison in the engine, worth it only in place of as many combinations' lookups."""


def _operands(code: str, op: str) -> list[str]:
    """The operands of a generated ``(A op B op ...)``, ``op`` being ``and`` or ``or``
    (``[code]`` if it is not one: no enclosing parentheses, no such operator at the top, or an
    operator of lower precedence there, as in ``(a or b and c)``)."""
    if not (code.startswith("(") and code.endswith(")")):
        return [code]
    lower = (" or ", " if ", " else ", "lambda") if op == "and" else (" if ", " else ", "lambda")
    word = f" {op} "
    parts, depth, start, quote, i = [], 0, 1, "", 1
    body_end = len(code) - 1
    while i < body_end:
        ch = code[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:  # the first parenthesis closes before the end: (a) and (b)
                return [code]
        elif depth == 0:
            if code.startswith(word, i):
                parts.append(code[start:i])
                start = i = i + len(word)
                continue
            if any(code.startswith(w, i) for w in lower):
                return [code]
        i += 1
    if depth != 0 or quote or not parts:
        return [code]
    return [*parts, code[start:body_end]]


def _early_exits(
    code: str,
    levels: Sequence[tuple[frozenset[str], list[Line], dict[str, str]]],
    solo: Sequence[tuple[frozenset[str], list[Line], dict[str, str]]] = (),
) -> bool:
    """Let a combination filter skip the choices that cannot pass. For every conjunct of the
    test ``code`` (through ``hN = (A and B)`` definitions) computed in an outer loop, put
    ``if not hN: continue`` right after it in that loop's lines (``levels``), so that no deeper
    choice is tried for a value that already fails (a Guard's guesses for a card that is no
    Guard); for a conjunct ``(X and ... or Y and ...)`` whose every alternative has such
    parts, ``if not (X or Y): continue`` once they are all computed. Skipping only avoids work:
    a failed conjunct fails the whole test, and a part whose computation might have failed is
    not computed, as the general path would not compute it either.
    The parts of ``solo`` (each naming one later choice alone) are computed before the loops,
    once per value of that choice: a failed one drops the value (no combination with it can
    pass); an alternative among them is left to the innermost test.
    Returns True when the whole test is so decided in an outer loop (the innermost loop then
    tests nothing)."""
    order: list[str] = []  # the parts computed in outer loops, in the order they are computed
    rhs: dict[str, str] = {}
    early: set[str] = set()  # the parts of `solo`
    for k, (_, out, _) in enumerate((*solo, *levels)):
        for line in out:
            m = _LEVEL_ASSIGN.match(line) if isinstance(line, str) else None
            if m is not None and m.group(1) not in rhs:
                order.append(m.group(1))
                rhs[m.group(1)] = m.group(2)
                if k < len(solo):
                    early.add(m.group(1))
    needed: set[str] = set()
    either: list[list[list[str]]] = []  # alternatives, each with its outer parts

    def walk(part: str) -> None:
        for c in _operands(part, "and"):
            if _LEVEL_NAME.match(c) and c in rhs:
                if c not in needed:
                    needed.add(c)
                    walk(rhs[c])
                continue
            alternatives = [[x for x in _operands(d, "and") if x in rhs] for d in _operands(c, "or")]
            if len(alternatives) > 1 and all(alternatives) and not early.intersection(*alternatives):
                either.append(alternatives)

    walk(code)
    holds: set[str] = set()  # needed parts true wherever the loops go on past them
    after: dict[str, list[str]] = {}  # a part -> the tests to put right after its computation
    for name in order:
        if name in needed:
            if not all(c in holds for c in _operands(rhs[name], "and")):  # (else implied by its operands)
                after.setdefault(name, []).append(f"if not {name}:")
            holds.add(name)
    for alternatives in either:
        last = max((x for a in alternatives for x in a), key=order.index)
        test = " or ".join("(" + " and ".join(a) + ")" for a in alternatives)
        after.setdefault(last, []).append(f"if not ({test}):")
    for _, out, _ in (*solo, *levels):
        at = [i for i, line in enumerate(out) if isinstance(line, str) and line.split(" = ", 1)[0] in after]
        for i in reversed(at):
            tests = after[cast(str, out[i]).split(" = ", 1)[0]]
            block: list[Line] = []
            for t in tests:
                block += [t, ["continue"]]
            out[i + 1 : i + 1] = block
    return code in rhs


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


class FiltersMixin(StatementsMixin):
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

    def combo_filter(self, tree: Node, context: Context, first_only: bool = False) -> Rule:
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
            val, hoist, inner = self._loop_test(tree, scope, [*solo, *levels])
        finally:
            self.in_filter = False
        decided = _early_exits(val.code, levels, solo)
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr, domains):"]
        lines += flatten(hoist.lines)
        loops = [f"for a{i} in domains[{i}]:" for i in range(n)]
        used = _TEMP_REF.findall(
            "\n".join(flatten([*hoist.lines, *inner, *(x for lv in (*solo, *levels) for x in lv[1])]))
        )
        top = max(map(int, used), default=-1)
        later = "\n".join(flatten([*inner, *(x for lv in levels for x in lv[1])])) + "\n" + val.code
        for i, (_, out, _) in enumerate(solo, start=1):
            if out:  # each value with its parts, kept when no test among them failed
                top += 1
                kept, names = f"v{top}", [f"a{i}"]
                names += [  # the parts the loops after read
                    m.group(1)
                    for m in (_LEVEL_ASSIGN.match(x) for x in out if isinstance(x, str))
                    if m and re.search(rf"\b{m.group(1)}\b", later)
                ]
                row = "(" + ", ".join(names) + ")"
                lines += [f"    {kept} = []", f"    for a{i} in domains[{i}]:"]
                lines += flatten([*out, f"{kept}.append({row})"], depth=2)
                loops[i] = f"for {', '.join(names)} in {kept}:"
        lines.append("    out = []")
        bulk = decided and not first_only and not inner
        for i in range(n - 1 if bulk else n):
            lines.append("    " * (i + 1) + loops[i])
            if i < n - 1:  # the parts that name only the choices so far
                lines += flatten(levels[i][1], depth=i + 2)
        pad = "    " * (n + 1)
        combo = "(" + ", ".join(f"a{i}" for i in range(n)) + ("," if n == 1 else "") + ")"
        found = f"return [{combo}]" if first_only else f"out.append({combo})"
        if bulk:  # decided in the outer loops: every last choice passes, combined in one C call
            outer = "".join(f"[a{i}], " for i in range(n - 1))
            fn = self._define(
                name, [*lines, "    " * n + f"out += _iproduct({outer}domains[{n - 1}])", "    return out"]
            )
            # its rows variant, for a kinds pass: the outer choices' values of each row that passes whole
            rows = f"_g{next(self._ids)}"
            head = f"def {rows}(s, fr, domains):"
            row = "(" + "".join(f"a{i}, " for i in range(n - 1)) + ")"
            rows_fn = self._define(rows, [head, *lines[1:], "    " * n + f"out.append({row})", "    return out"])
            setattr(fn, "rows", rows_fn)  # noqa: B010  # an attribute of a generated function: typed as no field
            return fn
        elif decided:  # the whole test was passed in an outer loop (see _early_exits)
            lines += flatten(inner, depth=n + 1)
            lines += [f"{pad}{found}", "    return out"]
        else:
            lines += flatten(inner, depth=n + 1)
            lines += [f"{pad}if {self._code(val)}:", f"{pad}    {found}", "    return out"]
        return self._define(name, lines)

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
        engine takes each row's actions whole, made once.
        Any error inside means: ask the general path, which reports it, located.
        """
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr):"]
        if not first_only:
            lines.append("    out = []")
        texts_code = self._table(texts) if texts is not None else None

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
        if shared:  # made distinct at most once in the pass, by the first kind that reaches it
            lines += [f"    {w} = None" for w in shared.values()]
        row_kinds: list[bool] = []
        kept: list[int] = []  # the kinds whose combinations are kept for `can` (see below)
        for kind in kinds:
            row_kinds.append(False)
            body: list[Line] = []
            if kind.get("where"):
                lines.append("    " + location_comment(kind["where"]))
            domains = kind["domains"]
            charge: list[Line] = [
                "s.budget -= " + (" * ".join(f"_len(v{i})" for i in range(len(domains))) or "1"),
                "if s.budget < 0:",
                ["_over_budget()"],
            ]
            if not domains:  # one combination, (): `allowed` itself decides (after the guard, if any)
                test: list[Line] = [*call(kind["allowed"], "if {}:"), [found or "out.append([()])"]]
                if not first_only:
                    test += ["else:", ["out.append(())"]]
                if kind["guard"] is None:
                    body = charge + test
                else:
                    body = [
                        *call(kind["guard"], "t0 = {}"),
                        "if t0 is True:",
                        [found or "out.append([()])"],
                        "elif t0:",
                        charge + test,
                    ]
                    if not first_only:
                        body += ["else:", ["out.append(())"]]
            else:
                inner: list[Line] = []
                repeats = kind.get("repeats") or ()
                sizes = []  # each domain's length in the budget charge: a literal for a constant domain
                for i, (fn, card) in enumerate(zip(domains, kind["cards"], strict=False)):
                    distinct = card and texts_code is not None
                    fixed = _constant_domain(fn, distinct, bool(i < len(repeats) and repeats[i]), texts)
                    if fixed is not None:  # the same values every call: made distinct now, once
                        inner.append(f"v{i} = {self._const_code(fixed)}")
                        sizes.append(repr(len(fixed)))
                        continue
                    sizes.append(f"_len(v{i})")
                    w = shared.get(self._inline_parts.get(ref(fn), ((), ""))[1]) if distinct else None
                    if w is not None:  # the same zone as another kind's: its cards, distinct, once
                        inner += [
                            f"if {w} is None:",
                            [*call(fn, f"{w} = {{}}"), f"{w} = _distinct_cards({w}, {texts_code})"],
                        ]
                        inner.append(f"v{i} = {w}")
                        continue
                    inner += call(fn, f"v{i} = {{}}")
                    if distinct:
                        inner.append(f"v{i} = _distinct_cards(v{i}, {texts_code})")
                    elif i < len(repeats) and repeats[i]:
                        inner.append(f"v{i} = _distinct_values(v{i})")
                charge[0] = "s.budget -= " + " * ".join(sizes)
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
                elif kind.get("rows") and getattr(flt, "rows", None) is not None and len(fixed or ()) >= _ROW_MIN:
                    # whole rows: the outer values of each, with the last domain (see `kinds_pass`)
                    inner.append(f"out.append(({ref(flt.rows)}(s, (), {listed}), v{len(domains) - 1}))")
                    row_kinds[-1] = True
                else:
                    inner.append(f"out.append({ref(flt)}(s, (), {listed}))")
                if kind["guard"] is None:
                    body = inner
                else:
                    body = [*call(kind["guard"], "if {}:"), inner]
                    if not first_only:
                        body += ["else:", ["out.append(())"]]
            lines += flatten(body)
            if kind.get("can") and not first_only and not row_kinds[-1]:
                # a rule asks `can` about this kind: its answer, found now, kept for the decision
                kept.append(len(row_kinds) - 1)
                lines += [f"    s.memo[('can', {kind['name']!r})] = out[-1]"]
        lines.append("    return False" if first_only else "    return out")
        fn = self._define(name, lines)
        if not first_only:
            setattr(fn, "rows", tuple(row_kinds))  # noqa: B010  # read by `trickkit.engine.turns._plan`
            setattr(fn, "kept", tuple(kept))  # noqa: B010  # read by `trickkit.engine.turns.legal_turns`
        return fn

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
        if "'" in text or '"' in text or _FRAME_NAME.search(text):
            return None
        top = max((int(n) for n in _TEMP_REF.findall(text)), default=-1)
        offset = base[0]
        base[0] += top + 1

        def renumber(line: str) -> str:
            return _TEMP_SUB.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", line)

        return [renumber(line) for line in lines], f"({renumber(code)})"

    def _loop_test(
        self, tree: Node | str, scope: Scope, levels: Sequence[tuple[frozenset[str], list[Line], dict[str, str]]] = ()
    ) -> tuple[Val, Hoist, list[Line]]:
        """Compile a test that a generated loop runs per candidate: ``(value, hoist, lines)``,
        with the state-only parts in ``hoist``, computed before the loop (and ``levels``:
        see `Body.levels`)."""
        if isinstance(tree, str):
            tree = parse(tree, "expr")
        saved, self.body = self.body, Body()
        try:
            body = self.body
            body.levels = list(levels)
            body.loops = 1
            hoist = body.hoist = Hoist()
            body.eager = True
            body.falls_back = True
            inner: list[Line] = []
            body.lines = inner
            return self._expr_guarded(tree, scope), hoist, inner
        finally:
            self.body = saved
