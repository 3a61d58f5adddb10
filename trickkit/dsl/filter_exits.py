"""Early exits of a generated combination filter: the outer-loop parts whose failure fails the
whole test, found in the generated code, so that no deeper choice is tried for a value that
already fails (see `trickkit.dsl.card_filters.FiltersMixin.combo_filter`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from trickkit.dsl.body import Line

LEVEL_ASSIGN = re.compile(r"^(h[0-9]+) = (.+)$")
"""A part computed in a combination filter's outer loop (see `GenBase._leveled`): ``hN = code``."""

_LEVEL_NAME = re.compile(r"^h[0-9]+$")
"""The local of such a part."""


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


def early_exits(
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
            m = LEVEL_ASSIGN.match(line) if isinstance(line, str) else None
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


_COPY = re.compile(r"^([th][0-9]+) = ([th][0-9]+)$")
"""A local set to another's value, the first operand of an ``and`` chain (``t39 = h6``)."""


def kept_if(inner: Sequence[Line], code: str, found: str, others: str) -> list[Line]:
    """The lines computing a combination filter's test ``code`` (``inner``, then ``if code:``
    keeping the combination by ``found``), with the test of an ``and`` chain whose first operand
    is a local (``t39 = h6`` / ``if t39:`` / its rest) made on that local itself, and the
    combination kept inside it: a copy and a second test less for a combination it fails. Only
    when ``code`` is read nowhere else (``others``: the code of the filter's other tests)."""
    m = _COPY.match(inner[0]) if len(inner) == 3 and isinstance(inner[0], str) else None
    if (
        m is None
        or m.group(1) != code
        or inner[1] != f"if {code}:"
        or not isinstance(inner[2], list)
        or re.search(rf"\b{code}\b", others)
    ):
        return [*inner, f"if {code}:", [found]]
    return [f"if {m.group(2)}:", [*inner[2], f"if {code}:", [found]]]
