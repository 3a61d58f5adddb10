"""A kinds pass's lines tidied once it is assembled: budget charges merged, unread values dropped.

A kinds pass (`trickkit.dsl.card_filters.FiltersMixin.kinds_pass`) strings together each
kind's domains, charges and inlined filter; each charge is two statements (the charge and its
check). The pass changes no state and any error inside it sends the decision back to the
general path, which reports it located. So two charges of one block may become one, charged
at either place, when the pass charges the same total on every way through it: an exceeded
budget still raises (the budget only goes down), and the general path then raises the located
error. Inlined early exits also leave values computed for a test no line reads any more
(``h4 = (h0 and h3)``): dropped when made of locals alone (they cannot raise). The tests that
each end a candidate's loop turn (``continue``) become one ``if`` (`exits_joined`), and a
block's charges, merged, add up their like terms (a ``len`` call per zone).
"""

from __future__ import annotations

import re

_CHARGE = re.compile(r"^( *)s\.budget -= (.+)$")
"""A budget charge, followed by its check (``if s.budget < 0:`` / ``_over_budget()``)."""

_NAME = re.compile(r"\b[a-z][0-9]+\b")
"""A local of generated code (``v0``, ``t1019``)."""

_STRAIGHT = re.compile(r"^ *[a-z][0-9]+ = [^:]*$")
"""A line assigning a local, no block: the code a charge may be moved down past."""

_LOCALS_ONLY = re.compile(r"^( *)(h[0-9]+) = ([()a-z0-9 ]+)$")
"""A value made of locals with ``and``/``or``/``not`` alone (no call, no subscript: it cannot raise)."""


def _check(lines: list[str], i: int, pad: str) -> bool:
    """Whether a charge's check follows line ``i``."""
    return lines[i + 1 : i + 3] == [f"{pad}if s.budget < 0:", f"{pad}    _over_budget()"]


def _leaves(between: list[str], k: int) -> bool:
    """Whether line ``k`` of ``between`` returns, or breaks or continues a loop it is not
    inside of: the code after ``between`` would not run (nor a charge there be made)."""
    text = between[k].strip()
    if re.search(r"\breturn\b", text):
        return True
    if not re.match(r"^(?:break|continue)\b", text):
        return False
    indent = len(between[k]) - len(between[k].lstrip())
    for line in reversed(between[:k]):
        depth = len(line) - len(line.lstrip())
        if depth < indent:
            if re.match(r"^(?:for|while) ", line.strip()):
                return False  # a loop of its own, inside `between`
            indent = depth
    return True


def _assigns(line: str, names: set[str]) -> bool:
    """Whether ``line`` sets one of ``names``."""
    text = line.strip()
    m = re.match(r"^(?:for )?([a-z][0-9]+(?:, *[a-z][0-9]+)*) (?:=|in) ", text)
    return m is not None and any(n.strip() in names for n in m.group(1).split(","))


def _previous_charge(lines: list[str], i: int, pad: str) -> int | None:
    """The line of the charge before line ``i`` in its block (indented by ``pad``), if any."""
    for j in range(i - 1, -1, -1):
        line = lines[j]
        if line.startswith(pad + " "):
            continue  # inside a block of this one (a loop's body)
        if not line.startswith(pad):
            return None  # the block's start
        if _CHARGE.match(line) and _check(lines, j, pad):
            return j
    return None


_TERM = re.compile(r"^(?:_len\([a-z][0-9]+\)|[0-9]+)(?: \* (?:_len\([a-z][0-9]+\)|[0-9]+))*$")
"""A term of a charge: a product of lengths of locals and numbers (``_len(v0) * 4``)."""


def _summed(amount: str) -> str:
    """A merged charge's ``amount`` with like terms added up (``_len(h0) + 4 + _len(h0)`` is
    ``_len(h0) * 2 + 4``): the same number, a ``len`` call per local's length. Left as it is
    unless every term is a product of lengths of locals and numbers."""
    terms = amount.split(" + ")
    if len(terms) < 2 or not all(_TERM.match(term) for term in terms):
        return amount
    counts: dict[tuple[str, ...], int] = {}
    for term in terms:
        factors = term.split(" * ")
        number = 1
        for f in factors:
            number *= int(f) if f.isdigit() else 1
        key = tuple(sorted(f for f in factors if not f.isdigit()))
        counts[key] = counts.get(key, 0) + number
    parts = [" * ".join(key) + (f" * {n}" if n != 1 else "") if key else str(n) for key, n in counts.items()]
    return " + ".join(parts)


def charges_merged(lines: list[str]) -> list[str]:
    """``lines`` with each budget charge merged into the charge before it in the same block
    (`charged there, if the values it charges are not set in between; else charged at its own
    place, the earlier one moved down to it, if only locals are set in between, not those the
    earlier one charges). Nothing between may return, or leave the block (see the module's docstring)."""
    out = list(lines)
    i = 0
    while i < len(out):
        m = _CHARGE.match(out[i])
        if m is None or not _check(out, i, m.group(1)):
            i += 1
            continue
        pad, amount = m.groups()
        j = _previous_charge(out, i, pad)
        if j is None:
            i += 1
            continue
        between = out[j + 3 : i]
        if any(_leaves(between, k) for k in range(len(between))):
            i += 1
            continue
        earlier = _CHARGE.match(out[j])
        assert earlier is not None
        first = earlier.group(2)
        if not any(_assigns(line, set(_NAME.findall(amount))) for line in between):
            out[j] = f"{pad}s.budget -= {_summed(f'{first} + {amount}')}"  # charged earlier: the same values
            del out[i : i + 3]
            continue
        straight = all(
            _STRAIGHT.match(line) and line.startswith(pad) and not line.startswith(pad + " ") for line in between
        )
        if straight and not any(_assigns(line, set(_NAME.findall(first))) for line in between):
            out[i] = f"{pad}s.budget -= {_summed(f'{first} + {amount}')}"  # charged later: nothing in between can loop
            del out[j : j + 3]
            i -= 3
            continue
        i += 1
    return out


def _alone(lines: list[str], k: int) -> bool:
    """Whether line ``k`` is the only line of its block (which cannot be left empty)."""
    pad = len(lines[k]) - len(lines[k].lstrip())
    after = len(lines[k + 1]) - len(lines[k + 1].lstrip()) if k + 1 < len(lines) else -1
    return lines[k - 1].endswith(":") and after != pad


def _sets(lines: list[str], name: str) -> list[int]:
    """The lines that set the local ``name``."""
    lhs = re.compile(rf"^\s*(?:for )?[a-z0-9, ]*\b{name}\b[a-z0-9, ]*(?: [-+*]?= | in )")
    return [k for k, line in enumerate(lines) if lhs.match(line)]


_COPY = re.compile(r"^ +([th][0-9]+) = \(?([a-z][0-9]+)\)?$")
"""A local copied into another (``t1019 = h1018``)."""


def copies_dropped(lines: list[str]) -> list[str]:
    """``lines`` with a local set once to a copy of another local, set once at the top level
    before it (so holding one value from there on), replaced by that local."""
    k = 0
    while k < len(lines):
        m = _COPY.match(lines[k])
        if m is not None and not _alone(lines, k):
            copy, source = m.groups()
            made = _sets(lines, source)
            if _sets(lines, copy) == [k] and len(made) == 1 and made[0] < k and not lines[made[0]].startswith(" " * 5):
                word = re.compile(rf"\b{copy}\b")
                lines = [word.sub(source, line) for line in lines[:k] + lines[k + 1 :]]
                continue
        k += 1
    return lines


def unread_dropped(lines: list[str]) -> list[str]:
    """``lines`` without the values made of locals alone that no other line reads (again
    after each drop: a dropped value's parts may be read no more)."""
    while True:
        text = "\n".join(lines)
        for k, line in enumerate(lines):
            m = _LOCALS_ONLY.match(line)
            if m and len(re.findall(rf"\b{m.group(2)}\b", text)) == 1:
                words = re.sub(r"[()]|\b(?:and|or|not)\b", " ", m.group(3)).split()
                if not _alone(lines, k) and all(_NAME.fullmatch(w) for w in words):
                    lines = lines[:k] + lines[k + 1 :]
                    break
        else:
            return lines


_STATE_READS = (re.compile(r"s\.seat_zones\[[0-9]+\]\[s\.current\]"), re.compile(r"s\.seat_vars\[[0-9]+\]"))
"""Reads of the state a pass may make once: a zone of the seat to act, a seat variable's list."""

_FIRST_READ = 900
"""The first local holding a state read (the pass's inlined rules number theirs from 1000)."""


def state_read_once(lines: list[str]) -> list[str]:
    """A pass's ``lines`` (``def`` first) reading ``s.current`` (and a zone of that seat, a seat
    variable's list) into a local once, at its top, where it reads it more than once: the pass
    changes no state, so each read gives the same value (and cannot fail: the seat to act and
    the ruleset's zones and variables exist; a failure would only send the decision to the
    general path)."""
    text = "\n".join(lines[1:])
    if "'" in text or '"' in text or re.search(r"\bs\.(?:current|seat_zones|seat_vars)\b[^\n]*[^=!<>]=[^=]", text):
        return lines  # a text literal, or an assignment that may set them: left as it is
    if f"h{_FIRST_READ} = " in text:
        return lines  # made once already
    head: list[str] = []
    for read in (*_STATE_READS, re.compile(r"\bs\.current\b")):
        for code in dict.fromkeys(read.findall(text)):
            if text.count(code) > 1:
                local = f"h{_FIRST_READ + len(head)}"
                head.append(f"    {local} = {code}")
                text = text.replace(code, local)
    if not head:
        return lines
    if head[-1].endswith(" = s.current"):  # read first: the others' lines name s.current itself
        head.insert(0, head.pop())
    return [lines[0], *head, *text.split("\n")]


_ASSIGN = re.compile(r"^( *)(h[0-9]+) = (.+)$")
"""A local of an inlined filter set to a value (``h1000 = (a0 != h903)``)."""


def exits_joined(lines: list[str]) -> list[str]:
    """``lines`` with the tests of a candidate that each end its loop turn joined into one
    ``if``: a value read only by the next line put in its place (``h2 = h9[a0]`` then
    ``h3 = (not h2)``), a value read only by the next test in that test, then tests in a row
    that each ``continue`` joined by ``or``. The same values in the same order, each test
    made only if the ones before it pass, with no locals stored and loaded in between."""
    out = list(lines)
    text = "\n".join(out)
    k = 0
    while k + 1 < len(out):
        m = _ASSIGN.match(out[k])
        if m is None or ":" in m.group(3) or len(re.findall(rf"\b{m.group(2)}\b", text)) != 2:
            k += 1
            continue
        pad, name, value = m.groups()
        after = out[k + 1]
        if after.startswith(pad + "h") and re.fullmatch(rf"{pad}h[0-9]+ = \(not {name}\)", after):
            out[k : k + 2] = [after.replace(f"(not {name})", f"(not ({value}))")]
        elif after == f"{pad}if not {name}:" and out[k + 2 : k + 3] == [f"{pad}    continue"]:
            out[k : k + 2] = [f"{pad}if not ({value}):"]
        else:
            k += 1
            continue
        text = "\n".join(out)
        k = max(k - 1, 0)
    k = 0
    while k + 3 < len(out):  # `if a: continue` then `if b: continue`: `if (a) or (b): continue`
        first, second = out[k], out[k + 2]
        pad = first[: len(first) - len(first.lstrip())]
        ends = out[k + 1] == out[k + 3] == f"{pad}    continue"
        if ends and first.startswith(pad + "if ") and second.startswith(pad + "if ") and first.endswith(":"):
            out[k : k + 4] = [f"{pad}if ({first[len(pad) + 3 : -1]}) or ({second[len(pad) + 3 : -1]}):", out[k + 1]]
        else:
            k += 1
    return out


def tidied(lines: list[str]) -> list[str]:
    """A kinds pass's ``lines`` with its charges merged, its unread values dropped, its
    reads of the state made once and its copies of locals dropped; its charges merged again
    once those reads and copies name the same locals (``_len(h900)``, read as ``_len(t0)`` before)."""
    return exits_joined(charges_merged(copies_dropped(state_read_once(unread_dropped(charges_merged(lines))))))
