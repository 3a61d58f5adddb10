"""A combination filter's lines inlined into a kinds pass, its hoisted parts shared with the
filters inlined before it.

A kinds pass (`trickkit.dsl.card_filters.FiltersMixin.kinds_pass`) runs each action kind's
combination filter; inlined, a filter costs no Python call, and a state-only part it computes
before its loops (``holds(7)`` in two kinds' tests) is computed once per pass: the pass changes
no state, so a part written alike in an earlier filter the pass always runs holds the same
value. The shared part's budget charges are still made where it stood (the budget is charged
as if it were computed again), so the pass charges exactly what it did. Likewise a state-only
definition several kinds read is called once per pass (`definitions_once`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_INLINE_FILTER_MAX_LINES = 60
"""Longest combination filter (in generated lines) a kinds pass inlines instead of calling."""

TEMP_LOCAL = re.compile(r"\b([tvhmpq])([0-9]+)\b")
"""A local the generator makes (see `trickkit.dsl.allowlist.LOCAL_NAME`), in code: its letter and number."""

TEMP_NUMBER = re.compile(r"\b[tvhmpq]([0-9]+)\b")
"""The same, its number alone (to find the highest a piece of code uses)."""

_DOMAIN = re.compile(r"\bdomains\[([0-9]+)\]")
"""A combination filter's read of one of its domains (a local of the kinds pass that inlines it)."""

_HOISTED = re.compile(r"^    h[0-9]+ = ")
"""The line that ends a hoisted part: its value's local set (at the filter's top level)."""

_CHOICE = re.compile(r"\ba[0-9]+\b|\bdomains\[")
"""A part that reads a choice or a domain: never shared (the domains differ from kind to kind)."""

TEXT_LITERAL = re.compile(r"'[^'\\\n]*'")
"""A plain text literal in generated code (``'pip'``: no quote or backslash within)."""

_RENAMED = re.compile(r"\b[tvhmpq][0-9]+\b|\bout\b|\bdomains\[")
"""What inlining renames in a filter's code (see `inline_filter`)."""


def _literals_kept(text: str) -> bool:
    """True if renaming the filter's locals leaves its text literals (``card.kind == 'pip'``)
    as they are: plain ones, none holding a name that is renamed."""
    if "'" in TEXT_LITERAL.sub("", text) or '"' in text:
        return False
    return not any(_RENAMED.search(x) for x in TEXT_LITERAL.findall(text))


_CHARGE = ("    if s.budget < 0:", "        _over_budget()")
"""The check after a top-level budget charge."""


def inline_filter(
    lines: list[str], listed: str, base: list[int], entry: str, known: dict[str, list[str]], record: bool
) -> list[str] | None:
    """The lines of a kinds pass keeping, by the statement ``entry`` (``"q0 = ({}, v1)"``), the combinations the
    filter of source ``lines`` finds in the pass's domains ``listed`` (``[v0, v1]``); its locals
    renumbered from ``base[0]`` (moved on past them). None when it cannot be inlined (long, a
    text literal, a return before its end). ``known``: the hoisted parts of the filters inlined
    before in this pass, by their code with its own locals left out -> those locals; a part
    found there is not computed again, only charged. ``record``: this filter always runs (no
    guard before it), so its parts go into ``known``."""
    if len(lines) > _INLINE_FILTER_MAX_LINES or lines[-1] != "    return out" or "    out = []" not in lines:
        return None
    body = lines[1:-1]
    text = "\n".join(body)
    if not _literals_kept(text) or "return" in text or re.search(r"\bq[0-9]+\b", text):
        return None
    top = max((int(m.group(2)) for m in TEMP_LOCAL.finditer(text)), default=-1)
    offset = base[0]
    base[0] += top + 2
    found = f"q{offset + top + 1}"  # the filter's `out`
    domains = listed[1:-1].split(", ")
    alias: dict[str, str] = {}  # a local of a shared part -> the earlier filter's

    def renumber(line: str) -> str:
        line = TEMP_LOCAL.sub(lambda m: alias.get(m.group(0)) or f"{m.group(1)}{int(m.group(2)) + offset}", line[4:])
        line = re.sub(r"\bout\b", found, line)
        return _DOMAIN.sub(lambda m: domains[int(m.group(1))], line)

    out: list[str] = []
    start = body.index("    out = []")
    part: list[str] = []
    seen: set[str] = set()  # the locals of the parts before
    for line in body[:start]:
        part.append(line)
        if _HOISTED.match(line):
            out += _part(part, alias, seen, renumber, known, record)
            part = []
    out += [renumber(line) for line in (*part, *body[start:])]
    out.append(entry.format(found))
    return out


def _part(
    part: list[str],
    alias: dict[str, str],
    seen: set[str],
    renumber: Callable[[str], str],
    known: dict[str, list[str]],
    record: bool,
) -> list[str]:
    """The lines of one hoisted part: its charges alone if an earlier filter computed it (its
    locals then aliased to that filter's), else its lines renumbered (and recorded)."""
    text = "\n".join(part)
    charges = [i for i, line in enumerate(part) if line.startswith("    s.budget -= ")]
    pure = not _CHOICE.search(text) and all(part[i + 1 : i + 3] == list(_CHARGE) for i in charges)
    pure = pure and text.count("s.budget") == 2 * len(charges)  # no charge but those at its top level
    names: list[str] = []
    for m in TEMP_LOCAL.finditer(text):
        if m.group(0) not in alias and m.group(0) not in seen and m.group(0) not in names:
            names.append(m.group(0))
    seen.update(names)

    def placeholder(m: re.Match[str]) -> str:  # its own locals by place, the others by their name in the pass
        name = m.group(0)
        return alias.get(name) or (f"#{names.index(name)}" if name in names else renumber("    " + name))

    key = TEMP_LOCAL.sub(placeholder, text)
    if pure and key in known:
        alias.update(zip(names, known[key], strict=True))
        return [renumber(line) for i in charges for line in part[i : i + 3]]
    lines = [renumber(line) for line in part]
    if pure and record:
        known[key] = [renumber("    " + n) for n in names]
    return lines


_DEFINITION_READ = re.compile(r"^( *)([th][0-9]+) = (_d[0-9]+)\(s\)$")
"""A line of a pass that reads a definition of the state alone into a local (``t1000 = _d15(s)``)."""


def definitions_once(lines: list[str], first: int) -> list[str]:
    """A kinds pass's lines with each state-only definition that several kinds read (``power(n)``
    of each power reads ``powers_ready``) called once: its value kept in a local (``p{first}`` on),
    the later reads taken from it. Such a definition is memoised while the pass runs (the engine
    holds the state still), so its later calls charge nothing and return the same value: keeping
    it changes no result and no budget, and saves a call per read."""
    reads: dict[str, int] = {}
    for line in lines:
        m = _DEFINITION_READ.match(line)
        if m:
            reads[m.group(3)] = reads.get(m.group(3), 0) + 1
    kept = {fn: f"p{first + k}" for k, fn in enumerate(fn for fn, n in reads.items() if n > 1)}
    if not kept:
        return lines
    out = [lines[0], *(f"    {p} = _MISS" for p in kept.values())]
    for line in lines[1:]:
        m = _DEFINITION_READ.match(line)
        p = kept.get(m.group(3)) if m else None
        if m is None or p is None:
            out.append(line)
            continue
        pad, local, fn = m.groups()
        out += [f"{pad}if {p} is _MISS:", f"{pad}    {p} = {fn}(s)", f"{pad}{local} = {p}"]
    return out
