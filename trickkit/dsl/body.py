"""The generated function under construction: its lines, temporaries and hoisted parts.

A generation pass appends Python lines to a `Body`; nested lists are indented blocks,
`Hoist` and `Memo` placeholders are filled or rendered when the body is flattened to text
(`flatten`). Also here: the patterns that recognise generated code by its shape (`SIMPLE`,
`SEAT_LISTS`...) and how constants are written as literals.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any, TypeAlias

import lark

from trickkit.dsl.types import Val

Hoisted: TypeAlias = "dict[str | tuple[str, str], str | Val]"
"""Parts computed before a loop: the code of a part -> the local holding it, and
``("definition", name)`` -> the value of a state-only definition inlined there."""

Line: TypeAlias = "str | Hoist | Memo | list[Line]"
"""A generated line, an indented block of them, or a placeholder rendered when flattened."""

SIMPLE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|s\.[a-z_]+|-?[0-9]+|'[^'\\]*'|True|False|None|_T[0-9]+\[a[0-9]+\])$")
"""Generated expressions cheap and safe to evaluate twice (a name, a state field, a literal, an
attribute table read at a card of the rule's context, as ``card.rank`` in a card test)."""


SEAT_NOW = ("s.current", "(s.turn_player if s.window >= 0 else s.current)")
"""Generated code of ``current_player`` and ``turn_player``: a seat, always in 0..n-1."""


SEAT_LISTS = re.compile(r"^s\.(seat_zones|seat_vars)\[[0-9]+\]$")
"""Generated code of a seat zone or seat variable: one item per seat."""


MAX_FOLDED_INT_BITS = 4096
"""Largest int (in bits) constant folding computes at load; larger ones are left to play time."""


class Body:
    """The statements of one generated function under construction.

    Lines are strings or nested lists (an indented block); a ``Hoist`` placeholder
    collects the ``hN = _MISS`` lines of loop invariants before the outermost loop.
    """

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.counter = itertools.count()
        self.loops = 0  # aggregates (or the card loop of a filter) around the code emitted now
        self.hoist: Hoist | None = None  # where the current outermost loop's invariants start
        self.eager = False  # compute invariants before the loop, not when first needed (card filters)
        # an error only means "ask the general path" here (card and combination filters): a seat
        # list is indexed without the range check, an index out of range raising IndexError
        self.falls_back = False
        # code of an eagerly hoisted part -> its local; ("definition", name) -> the value of a
        # state-only definition inlined before a card loop (see GenBase._call_definition)
        self.hoisted: Hoisted = {}
        self.inner: set[str] = set()  # loop variables of the aggregates within the outermost one
        # a combination filter's loops but the innermost: (choices bound there, lines run there
        # before the next choice's loop, hoisted code -> its local)
        self.levels: list[tuple[frozenset[str], list[Line], dict[str, str]]] = []
        # locals known to hold a seat in 0..n-1 (a temp bound to ``turn_player``, the variable of
        # a loop over a constant list of seats): a seat list is indexed by them without a check
        self.seats: set[str] = set()
        # loop variables over a constant list of ints in 0..k-1 -> k: a zone family of k or more
        # zones is indexed by them without a check (``rows[i]`` for ``i in range(0, 4)``)
        self.bounded: dict[str, int] = {}
        # ints known to lie in lo..hi (a combination filter's choice over a constant list of ints,
        # such a choice plus a constant): ``row - 1`` for ``row`` in range(1, 4) is bounded too
        self.ranges: dict[str, tuple[int, int]] = {}
        # temps holding a list of seats in 0..n-1 for sure (``sorted(q for q in seats ...)``): a
        # loop over one binds a seat, like a loop over ``seats``
        self.seat_lists: set[str] = set()
        # code of a card taken from a zone at a fixed place (``pile[-1]``) -> (the item's code,
        # the test that it is there): its attributes are read under that test alone
        self.cards_at: dict[str, tuple[str, str]] = {}

    def temp(self, prefix: str = "t") -> str:
        """A new local name of the function."""
        return f"{prefix}{next(self.counter)}"


def flatten(lines: Sequence[Line], depth: int = 1, out: list[str] | None = None) -> list[str]:
    """The text lines of ``lines``, indented from ``depth`` (appended to ``out`` if given)."""
    out = [] if out is None else out
    for line in lines:
        if isinstance(line, str):
            out.append("    " * depth + line)
        elif isinstance(line, Hoist):
            flatten(line.lines, depth, out)
        elif isinstance(line, Memo):
            flatten(line.render(), depth, out)
        else:
            flatten(line, depth + 1, out)
    return out


class Memo:
    """A part memoised in the state's cache (`GenBase._memoised`), rendered when flattened:
    inside a larger memoised part it is plain (its lines, then its value), as the outer part's
    cache already computes it at most once per state held still."""

    __slots__ = ("code", "key", "lines", "m", "plain", "t")

    def __init__(self, m: str, key: int, t: str, lines: list[Line], code: str) -> None:
        self.m, self.key, self.t, self.lines, self.code, self.plain = m, key, t, lines, code, False

    def render(self) -> list[Line]:
        m, key, t = self.m, self.key, self.t
        if self.plain:
            return [*list(self.lines), f"{t} = {self.code}"]
        return [
            f"{m} = s.memo",
            f"if {m} is not None and {key} in {m}:",
            [f"{t} = {m}[{key}]"],
            "else:",
            [*list(self.lines), f"{t} = {self.code}", f"if {m} is not None:", [f"{m}[{key}] = {t}"]],
        ]


def plain_memos(lines: Sequence[Line]) -> None:
    """Make every memoised part in ``lines`` plain (they are about to be memoised as a whole)."""
    for line in lines:
        if isinstance(line, Memo):
            line.plain = True
            plain_memos(line.lines)
        elif isinstance(line, Hoist):
            plain_memos(line.lines)
        elif isinstance(line, list):
            plain_memos(line)


class Hoist:
    """Where a loop's invariants go: lines run once before the outermost loop."""

    def __init__(self) -> None:
        self.lines: list[Line] = []


def literal_code(value: Any) -> str | None:
    """Python source of a constant that is written literally (int, text, bool, null)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_FOLDED_INT_BITS:
        return None  # a huge number (a bad parameter, reported elsewhere) stays a namespace constant
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    return None


def location_comment(where: str) -> str:
    """A comment naming where a rule's text is (``file:line:col: $.path``)."""
    return "# " + repr(where)[1:-1][:300]


LITERAL_NODES = {"int_lit", "str_lit", "true_lit", "false_lit", "null_lit", "name"}
"""Constructs whose code is already as cheap as it gets: never folded, hoisted or memoised."""


CALLS_RULES = re.compile(r"\b_(d[0-9]+|can|cov)\(")
"""A call, in generated code, of a definition's function, ``can`` or a coverage counter."""


def tree_size(node: lark.Tree[lark.Token] | lark.Token) -> int:
    """Number of tree nodes under ``node`` (to decide whether memoising pays)."""
    n, stack = 0, [node]
    while stack:
        x = stack.pop()
        if isinstance(x, lark.Tree):
            n += 1
            stack.extend(x.children)
    return n
