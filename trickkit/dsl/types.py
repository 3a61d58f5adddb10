"""The type language of the DSL compiler and the values it passes around.

Types are plain strings: ``int``, ``str``, ``bool``, ``card``, ``play``, ``zone``, ``null``,
``any`` and ``list[T]``. Here are the names a ruleset gives DSL text (`Symbol`, `Namespace`),
a compiled expression (`Val`: its Python code, type, constness, nullability, what it reads), the
compile error located in the DSL text, and the type rules every generation pass applies
(`unify`, `assignable`, `need_number`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import attrs
import lark

if TYPE_CHECKING:
    from trickkit.dsl.builtins import Aggregate

Tree: TypeAlias = "lark.Tree[lark.Token]"
"""A node of the parse tree for a construct (its ``data`` names it: ``binop``, ``if_stmt``...)."""

Node: TypeAlias = "lark.Tree[lark.Token] | lark.Token"
"""Any node of the parse tree: a construct, or a token (a name, a literal, an operator)."""

Context: TypeAlias = "Sequence[tuple[str, str]]"
"""A rule's context: the names and types of its frame's values, in order."""

Defs: TypeAlias = "tuple[str, ...]"
"""The definitions being compiled around a part, outermost first (a definition may not use itself)."""

Rule: TypeAlias = "Callable[..., Any]"
"""A generated function (``f(state, frame)`` for a rule, with more arguments for a filter)."""

CompiledDefinition: TypeAlias = "tuple[str, list[str], str, bool, AttrValues | None]"
"""A definition generated as a function: its name, the context names it reads (its first
arguments after the state), its type, whether it may be null, and its attribute values."""

AttrValues: TypeAlias = "tuple[Any, frozenset[Any]]"
"""``(attribute, its text values)`` of a value read from a card attribute, or
``(("parameter", name), its choices)`` for a parameter of type choice: literals compared
with the value are checked against them."""


class DSLCompileError(Exception):
    """A DSL text that parses but cannot be compiled (unknown name, wrong arity, type error)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.within: tuple[str, int, int] | None = None
        """For an error inside a definition, raised where the definition is used: ``(name, line,
        column)`` of the mistake in that definition's own text (where it is written)."""


def in_definition(node: object, name: str, error: DSLCompileError) -> DSLCompileError:
    """``error``, raised inside definition ``name``, as an error at ``node`` (where it is used),
    remembering where in the definition's own text the mistake is."""
    out = error_at(node, f"in definition {name!r}: {error}")
    out.within = (name, error.line, error.column)
    return out


@attrs.frozen
class Symbol:
    """A name visible to DSL text, provided by the game compiler.

    ``kind`` is one of: ``const`` (``value`` is the constant), ``state`` (``value`` is a
    getter ``f(state)``; ``code``, when given, is the Python expression over ``s`` that
    reads it), ``seat_var`` / ``table_var`` / ``seat_zone`` / ``table_zone`` (``value`` is
    the index into the state's tables), ``zone_family`` (``value`` is ``(start, count)``).
    """

    kind: str
    type: str
    value: Any
    doc: str = ""
    code: str | None = None
    choices: tuple[Any, ...] | None = None
    """For a parameter of type ``choice``: the values it may take (a text compared with it
    must be one of them)."""


@attrs.frozen
class Namespace:
    """Everything DSL text of one ruleset can name."""

    symbols: Mapping[str, Symbol]
    """Global names: parameters, variables, zones, state values."""
    card_attrs: Mapping[str, tuple[Any, ...]]
    """Card attribute -> tuple of values indexed by card id."""
    face_attrs: Mapping[str, tuple[Any, ...]]
    """Card attribute -> tuple of values indexed by face id (a card played in a mode)."""
    face_mode: tuple[str | None, ...]
    """Mode name (or null) of each face."""
    definitions: Mapping[str, Tree] = attrs.field(factory=dict)
    """Definition name -> parse tree, compiled once per context it is used in."""
    definition_params: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    """Definition name -> its parameter names, for definitions written ``name(a, b)``."""
    num_players: int = 2
    """Seat count, for seat arithmetic."""
    action_kinds: frozenset[str] = frozenset()
    """Names of the ruleset's action kinds, for ``can('kind')``."""
    attr_aliases: Mapping[str, Mapping[str, str]] = attrs.field(factory=dict)
    """Attribute -> {short code: value}, e.g. ``{"suit": {"H": "hearts"}}``, for suggestions."""
    attr_values: Mapping[str, frozenset[Any]] | None = None
    """Attribute -> every text value it takes in any deck the parameters allow (optional card
    groups included); None: take them from the tables."""
    variable_nullable: frozenset[str] = frozenset()
    """Variables that may be set to null (their initial value is null)."""
    team_of: tuple[int, ...] | None = None
    """The team number of each seat (``teams:``); None: every seat is a team of its own."""


def elem_type(t: str) -> str:
    """The type of an item of a list of type ``t`` (a zone holds cards; ``any`` when unknown)."""
    if t == "zone":
        return "card"
    return t[5:-1] if t.startswith("list[") else "any"


def is_list(t: str) -> bool:
    """True for list types, zones (lists of cards) and unknown types."""
    return t.startswith("list[") or t in ("zone", "any")


FLAT_ITEMS = frozenset({"int", "str", "bool", "card", "play", "null"})
"""Item types that hold no list: a list of these is as large as its length."""


def may_nest(t: str) -> bool:
    """Could a value of type ``t`` hold lists within lists (so that its size is more than its
    length)? True for ``any`` and lists of ``any`` or of lists; zones hold cards only."""
    return t == "any" or (t.startswith("list[") and elem_type(t) not in FLAT_ITEMS)


def node_pos(node: object) -> tuple[int, int]:
    """``(line, column)`` of a parse tree node in its DSL text (``(0, 0)`` when unknown)."""
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    if isinstance(node, lark.Token):
        return node.line or 0, node.column or 0
    return 0, 0


def error_at(node: object, message: str) -> DSLCompileError:
    """A compile error located at ``node``."""
    return DSLCompileError(message, *node_pos(node))


_ESCAPES = {"'": "'", '"': '"', "\\": "\\"}
"""The escapes of DSL texts: ``\\'``, ``\\"`` and ``\\\\``."""


def text_value(token: object) -> str:
    """The value of a STRING token (a ``str_lit``'s child): without its quotes, escapes decoded.

    Raises:
        DSLCompileError: an escape other than ``\\'``, ``\\"`` and ``\\\\`` (located at the token).
    """
    raw = str(token)[1:-1]
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            nxt = raw[i + 1 : i + 2]
            if nxt not in _ESCAPES:
                raise error_at(
                    token, f"unknown escape '\\{nxt}' in a text: write \\' \\\" or \\\\ (a quote or a backslash)"
                )
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


PLAY_FIELDS = {"seat": "int", "card": "card", "order": "int", "mode": "str"}
"""Attributes of a play (a card in a trick) besides the card's own attributes."""


PLAY_INDEX = {"seat": 0, "card": 1, "order": 3}
"""Where a play's field is in the play's tuple ``(seat, card, face, order)``."""


NOT_CONST = object()
"""`Val.const` of a value known only at play time."""


@attrs.define
class Val:
    """A compiled expression: Python ``code`` valid after the statements emitted for it."""

    code: str
    type: str
    const: Any = NOT_CONST
    nullable: bool = True
    state: bool = False  # reads the game state
    free: frozenset[str] = frozenset()  # locals it reads that it does not bind itself
    values: AttrValues | None = None  # (attribute, its text values) when it reads a card attribute, or
    # (("parameter", name), its choices) for a parameter of type choice
    length: int | None = None  # a list written out (``[a, b]``): its number of items, known now
    items_there: bool = False  # a list written out of values never null: its items are there

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST


WANTED = {
    "bool": "true or false (a bool)",
    "int": "a number (an int)",
    "play": "a play (a card in the trick)",
    "list": "a list",
    "list[int]": "a list of numbers",
}
"""How a rule's required type is named in errors."""


def describe_type(t: str) -> str:
    """How type ``t`` is named in errors."""
    return {
        "null": "null",
        "str": "a text (str)",
        "int": "a number (int)",
        "bool": "a bool",
        "card": "a card",
        "play": "a play",
        "zone": "a zone",
    }.get(t, t)


def assignable(t: str, want: str) -> bool:
    """Can a rule whose static type is ``t`` stand where a ``want`` is needed? ``any`` is
    checked when the rule runs; everything else must match here, at load."""
    if t == "any":
        return True
    if want == "list":
        return is_list(t)
    if want == "list[int]":
        return t in ("list[int]", "list[any]")
    return t == want


def unify(a: str, b: str) -> str:
    """The type of a value that is either an ``a`` or a ``b`` (if/else branches, ``??``)."""
    if a == b or b == "null":
        return a
    if a == "null":
        return b
    if {a, b} == {"zone", "list[card]"}:
        return "list[card]"
    return "any"


def attr_type(table: Sequence[Any]) -> str:
    """The type of the values of an attribute table."""
    types = {type(v) for v in table if v is not None}
    if types <= {int}:
        return "int"
    if types <= {str}:
        return "str"
    if types <= {bool}:
        return "bool"
    return "any"


def aggregate_type(agg: Aggregate, et: str) -> str:
    """The type of an aggregate's result over items of type ``et``."""
    if et == "zone" and agg.result == "list":
        return "list[zone]"
    if agg.result == "elem":
        return et
    if agg.result == "list":
        return f"list[{et}]"
    return agg.result


def need_number(node: Node, t: str, op: str) -> None:
    """Check that a value of type ``t`` may be an operand of the arithmetic ``op``."""
    if t == "null":  # a null that is always null (a literal): the arithmetic could never run
        raise error_at(node, f"{op!r} needs numbers, got null")
    if t not in ("int", "any", "bool"):
        raise error_at(node, f"{op!r} needs numbers, got {t}")


def check_comparable(node: Node, at: str, bt: str, op: str) -> None:
    """Reject ``==``/``!=`` between types whose values are never equal."""
    simple = {"int", "str", "bool", "card", "play"}
    if at in simple and bt in simple and at != bt and {at, bt} != {"int", "bool"}:
        raise error_at(node, f"comparing {at} with {bt} using {op!r} is always {'false' if op == '==' else 'true'}")


def is_bool(v: Val) -> bool:
    """Is ``v`` surely ``True`` or ``False`` (never null)?"""
    return v.type == "bool" and not v.nullable


def union_values(a: Val, b: Val) -> AttrValues | None:
    """The attribute values either branch may take, when both read the same attribute."""
    if a.values and b.values and a.values[0] == b.values[0]:
        return a.values[0], a.values[1] | b.values[1]
    if a.values and (b.is_const and b.const is None):
        return a.values
    if b.values and (a.is_const and a.const is None):
        return b.values
    return None
