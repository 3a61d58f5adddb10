"""Loops of generated filters: the test compiled per candidate, and combination filters with
their last choice unrolled.

`trickkit.dsl.card_filters.FiltersMixin` builds hand filters, combination filters and kinds
passes on these: `LoopFiltersMixin._loop_test` compiles a test with its state-only parts staged
before the loops, `LoopFiltersMixin._unrolled` writes one test per value of a constant last
choice, and `LoopFiltersMixin._define_filter` keeps a filter's lines for a pass to inline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from trickkit.dsl.body import Body, Hoist, Line, flatten
from trickkit.dsl.filter_exits import LEVEL_ASSIGN, kept_if
from trickkit.dsl.filter_inline import TEMP_NUMBER
from trickkit.dsl.gen_effects import StatementsMixin
from trickkit.dsl.parser import parse
from trickkit.dsl.scope import Local, Scope
from trickkit.dsl.types import Context, Node, Rule, Val


def choice_ranges(values: Sequence[Sequence[Any] | None]) -> dict[str, tuple[int, int]]:
    """The choices (``aN``) whose constant domain holds ints only -> (least, greatest)."""
    out = {}
    for i, vs in enumerate(values):
        if vs and all(v.__class__ is int for v in vs):
            out[f"a{i}"] = (min(vs), max(vs))
    return out


def _known(body: Body, ranges: dict[str, tuple[int, int]]) -> None:
    """Tell ``body`` what ``ranges`` (see `choice_ranges`) say of the choices."""
    for name, (lo, hi) in ranges.items():
        body.ranges[name] = (lo, hi)
        if lo >= 0:
            body.bounded[name] = hi + 1


class LoopFiltersMixin(StatementsMixin):
    """Compiled per-candidate tests and unrolled combination filters (see the module docstring)."""

    def _define_filter(self, name: str, lines: list[str]) -> Rule:
        """`_define` for a combination filter, its lines kept for a kinds pass to inline (`_filter_into`)."""
        fn = self._define(name, lines)
        kept: dict[str, list[str]] = self.__dict__.setdefault("_filter_lines", {})
        kept[name] = lines
        return fn

    def _unrolled(
        self, tree: Node, context: Context, first_only: bool, last: Sequence[Any], ranges: dict[str, tuple[int, int]]
    ) -> Rule:
        """`combo_filter` with the last choice unrolled: one test per value of it (``last``)."""
        n = len(context)
        outer = {name: Local(f"a{i}", t, nullable=False) for i, (name, t) in enumerate(context[:-1])}
        name_last, type_last = context[-1]
        levels: list[tuple[frozenset[str], list[Line], dict[str, str]]] = [
            (frozenset(f"a{j}" for j in range(i + 1)), [], {}) for i in range(n - 1)
        ]
        solo: list[tuple[frozenset[str], list[Line], dict[str, str]]] = [
            (frozenset([f"a{i}"]), [], {}) for i in range(1, n - 1 if not first_only else 1)
        ]
        tests: list[tuple[Val, list[Line], str]] = []
        saved, self.body = self.body, Body()
        self.in_filter = True
        try:
            body = self.body
            body.levels = [*solo, *levels]
            body.loops = 1
            hoist = body.hoist = Hoist()
            body.eager = True
            body.falls_back = True
            _known(body, ranges)
            for value in last:  # one body, so parts the values share are computed once
                inner: list[Line] = []
                body.lines = inner
                local = Local(f"a{n - 1}", type_last, nullable=value is None, const=(value,))
                scope = Scope({**outer, name_last: local})
                tests.append((self._expr_guarded(tree, scope), inner, self._const_code(value)))
        finally:
            self.in_filter = False
            self.body = saved
        name = f"_g{next(self._ids)}"
        lines = [f"def {name}(s, fr, domains):"]
        lines += flatten(hoist.lines)
        loops = [f"for a{i} in domains[{i}]:" for i in range(n - 1)]
        inners = [x for _, inner, _ in tests for x in inner]
        used = TEMP_NUMBER.findall(
            "\n".join(flatten([*hoist.lines, *inners, *(x for lv in (*solo, *levels) for x in lv[1])]))
        )
        top = max(map(int, used), default=-1)
        later = "\n".join(flatten([*inners, *(x for lv in levels for x in lv[1])]))
        later += "\n" + "\n".join(val.code for val, _, _ in tests)
        for i, (_, out, _) in enumerate(solo, start=1):
            if out:  # each value with its parts (as in combo_filter)
                top += 1
                value_rows(i, out, later, f"v{top}", lines, loops)
        lines.append("    out = []")
        for i in range(n - 1):
            lines.append("    " * (i + 1) + loops[i])
            lines += flatten(levels[i][1], depth=i + 2)
        for k, (val, inner, code) in enumerate(tests):
            combo = "(" + "".join(f"a{i}, " for i in range(n - 1)) + code + ("," if n == 1 else "") + ")"
            found = f"return [{combo}]" if first_only else f"out.append({combo})"
            others = "\n".join(flatten([x for j, (_, o, _) in enumerate(tests) if j != k for x in o]))
            lines += flatten(kept_if(inner, self._code(val), found, others), depth=n)
        lines.append("    return out")
        return self._define_filter(name, lines)

    def _loop_test(
        self,
        tree: Node | str,
        scope: Scope,
        levels: Sequence[tuple[frozenset[str], list[Line], dict[str, str]]] = (),
        ranges: dict[str, tuple[int, int]] | None = None,
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
            _known(body, ranges or {})
            inner: list[Line] = []
            body.lines = inner
            return self._expr_guarded(tree, scope), hoist, inner
        finally:
            self.body = saved


def value_rows(i: int, out: list[Any], later: str, kept: str, lines: list[str], loops: list[str]) -> None:
    """Lines computing, once per value of choice ``i``, its parts ``out`` (those the loops after
    read, as named in ``later``) into the list ``kept`` of rows; loop ``i`` then walks the rows."""
    names = [f"a{i}"]
    names += [  # the parts the loops after read
        m.group(1)
        for m in (LEVEL_ASSIGN.match(x) for x in out if isinstance(x, str))
        if m and re.search(rf"\b{m.group(1)}\b", later)
    ]
    row = "(" + ", ".join(names) + ")"
    lines += [f"    {kept} = []", f"    for a{i} in domains[{i}]:"]
    lines += flatten([*out, f"{kept}.append({row})"], depth=2)
    loops[i] = f"for {', '.join(names)} in {kept}:"
