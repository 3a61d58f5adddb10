"""A kinds pass's flat variant: the legal actions themselves, looked up in tables, in place of
each kind's list of combinations.

The general kinds pass (`trickkit.dsl.card_filters.FiltersMixin.kinds_pass`) hands the engine
each kind's combinations, tuples it builds and the engine then hashes to find their actions.
When every choice of every kind takes values the engine can number (a card: its id; a
constant list of small non-negative ints: the int itself), the engine makes, once per Game,
a nested list per kind indexed by those values, holding the actions; the flat variant runs the
same code (same budget charges, same errors) but appends ``table[a0][a1]`` to one list of
actions. A kind that passes whole rows (see `kinds_pass`) appends its row: ``out += table[a0]``.
A kind without choices appends its one action (`flat_constant`), one whose every combination
passes appends them all (`flat_product`), a filter too long to inline gets a flat variant of
its own, called with the pass's ``out`` and the table (`flat_filter`; an unrolled last choice
indexed by its values' places), and a kind that a rule asks `can` about keeps whether it found
an action (`can_kept`), as the general pass keeps its combinations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from trickkit.dsl.body import Line

INDEX_MAX = 4096
"""Largest int a flat table is indexed by (see `choice_keys`)."""

_APPEND = re.compile(r"^(\s*)(q[0-9]+)\.append\(\(((?:a[0-9]+, ?)*a[0-9]+),? ?\)\)$")
"""A combination filter's line keeping one combination, ``q7.append((a0, a1))``."""

_FOUND = re.compile(r"^q[0-9]+ = \(?(q[0-9]+)\b")
"""The inlined filter's last line, handing its combinations (or rows) to the kind's local (``q0 = q1005``)."""


def flat_lines(lines: Sequence[Line], table: str, arity: int, row: bool) -> list[str] | None:
    """The lines of an inlined combination filter (see `trickkit.dsl.filter_inline`) appending
    the action ``table[a0][a1]`` (or with ``row``, extending by the row ``table[a0]``) to the
    pass's ``out`` where they kept a combination of ``arity`` choices (``(a0, a1)``); None when
    its lines are not of that shape."""
    order = [f"a{i}" for i in range(arity)]
    if not lines or not all(isinstance(x, str) for x in lines):
        return None
    m = _FOUND.match(str(lines[-1]))
    if m is None:
        return None
    found = m.group(1)
    out: list[str] = []
    for line in lines[:-1]:
        text = str(line)
        a = _APPEND.match(text)
        names = [n.strip() for n in a.group(3).split(",")] if a is not None else []
        if a is not None and a.group(2) == found and names == order:
            index = "".join(f"[{n}]" for n in names)
            out.append(f"{a.group(1)}out += {table}{index}" if row else f"{a.group(1)}out.append({table}{index})")
        elif text.strip() == f"{found} = []":
            continue  # no list of combinations: the actions go to the pass's own
        elif re.search(rf"\b{found}\b", text):
            return None  # the combinations used otherwise: not flattened
        else:
            out.append(text)
    return out


def choice_keys(values: Sequence[Any] | None, card: bool) -> Any:
    """How a flat table is indexed by one choice: ``"card"`` (by card id), or the tuple of the
    constant domain's values (ints from 0); None when it cannot be indexed."""
    if values is not None:
        if all(v.__class__ is int and 0 <= v < INDEX_MAX for v in values):
            return tuple(values)
        return None
    return "card" if card else None


def flat_constant(lines: Sequence[str], q: str, table: str) -> list[str] | None:
    """The lines of a kind without choices keeping its one combination (``q1 = [()]``),
    appending its action ``table`` instead (``q1 = ()``: nothing); None when they read ``q1``."""
    out: list[str] = []
    for line in lines:
        text = line.strip()
        pad = line[: len(line) - len(line.lstrip())]
        if text == f"{q} = [()]":
            out.append(f"{pad}out.append({table})")
        elif text == f"{q} = ()":
            out.append(f"{pad}pass")
        elif re.search(rf"\b{q}\b", text):
            return None
        else:
            out.append(line)
    return out


def flat_product(count: int, table: str) -> list[Line]:
    """Lines appending the action of every combination of the domains ``v0``, ``v1``... (in
    ``itertools.product`` order): a kind whose every combination passes."""
    body: list[Line] = [f"out.append({table}{''.join(f'[a{i}]' for i in range(count))})"]
    for i in reversed(range(count)):
        body = [f"for a{i} in v{i}:", body]
    return body


_CALL = re.compile(r"^(q[0-9]+) = (_g[0-9]+)\(s, \(\), \[((?:v[0-9]+, )*v[0-9]+)\]\)$")
"""A kinds pass's call of a combination filter it did not inline, ``q2 = _g117(s, (), [v0, v1])``."""

_KEEP = re.compile(r"^(\s*)out\.append\(\((.*?),? ?\)\)$")
"""A combination filter's line keeping one combination, ``out.append((a0, a1, 'left'))``."""


def flat_filter(
    call: str, lines: Sequence[str], name: str, literals: Sequence[str]
) -> tuple[list[str], str, bool] | None:
    """For a kinds pass's ``call`` of a combination filter (of source ``lines``) it did not
    inline: ``(source, its call, positional)``, the source of the filter's flat variant ``name``
    appending to the pass's ``out`` the actions of its table (both handed over after the
    domains), and the call of it. ``positional``: the filter tests the last choice's values one
    by one (unrolled; ``literals``: their code), kept by their place in its domain. None when
    the filter is not of that shape."""
    m = _CALL.match(call.strip())
    if m is None or not lines or lines[-1] != "    return out" or "    out = []" not in lines:
        return None
    listed = m.group(3).split(", ")
    n = len(listed)
    top = max((int(x) for x in re.findall(r"\bm([0-9]+)\b", "\n".join(lines))), default=-1)
    table = f"m{top + 1}"
    out = [f"def {name}(s, fr, domains):", f"    {table} = domains[{n + 1}]"]
    shapes = set()
    for line in lines[1:-1]:
        if line == "    out = []":
            out.append(f"    out = domains[{n}]")
            continue
        k = _KEEP.match(line)
        if k is None:
            if "return" in line or re.search(r"\bout\b", line):
                return None
            out.append(line)
            continue
        names = [x.strip() for x in k.group(2).split(",")]
        index = [f"[a{i}]" if x == f"a{i}" else None for i, x in enumerate(names)]
        if len(names) != n or None in index[:-1]:
            return None
        if index[-1] is None:
            if names[-1] not in literals:
                return None
            index[-1] = f"[{list(literals).index(names[-1])}]"
        shapes.add(index[-1] == f"[a{n - 1}]")
        out.append(f"{k.group(1)}out.append({table}{''.join(str(x) for x in index)})")
    if len(shapes) != 1:
        return None
    return out, f"{name}(s, (), [{m.group(3)}, out, {{}}])", not shapes.pop()


def can_kept(lines: list[str], q: str, name: str) -> list[str]:
    """A flat kind's ``lines`` (at the pass's top level) keeping for `can` whether they found an
    action of kind ``name``, as the general pass keeps its combinations (``q`` free: its local)."""
    return [f"    {q} = _len(out)", *lines, f"    s.memo[('can', {name!r})] = _len(out) > {q}"]
