"""A kinds pass's flat variant: the legal actions themselves, looked up in tables, in place of
each kind's list of combinations.

The general kinds pass (`trickkit.dsl.card_filters.FiltersMixin.kinds_pass`) hands the engine
each kind's combinations, tuples it builds and the engine then hashes to find their actions.
When every choice of every kind takes values the engine can number (a card: its id; a
constant list of small non-negative ints: the int itself), the engine makes, once per Game,
a nested list per kind indexed by those values, holding the actions; the flat variant runs the
same code (same budget charges, same errors) but appends ``table[a0][a1]`` to one list of
actions. A kind that passes whole rows (see `kinds_pass`) appends its row: ``out += table[a0]``.
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
