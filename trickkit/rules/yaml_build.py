"""Turns a composed YAML node tree into plain data and node positions, enforcing the dialect and size limits.

The dialect (see `trickkit.rules.source`): its implicit scalar types, mapping keys that are
texts or integers, no duplicate or merge keys, no tags but the standard ones; a document
expanded through its aliases is capped in nodes and depth.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, Protocol

import yaml

from trickkit.errors import Problem

Path = tuple[Any, ...]  # a tuple of str/int keys and int indices
Position = tuple[int, int]

MAX_NODES = 1_000_000
"""Largest accepted document, in nodes after expanding aliases."""
MAX_DEPTH = 100
"""Deepest accepted nesting of collections (after expanding aliases)."""
MAX_SOURCE_NODES = 100_000
"""Largest accepted document, in nodes as written (before expanding aliases); counted while
composing, so a huge flat list is refused after this many nodes, not after all of them.
The shipped rulesets have under 1,000."""
MAX_INT_DIGITS = 4300
"""Largest accepted integer literal, in decimal digits (the same for ``0x``/``0o`` literals,
by magnitude): Python cannot print a larger int without raising."""
_MAX_INT_BITS = int(MAX_INT_DIGITS * 3.32192809)  # log2(10): bits of a MAX_INT_DIGITS-digit number
_SURROGATE_RE = re.compile("[\ud800-\udfff]")

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_TAG + t for t in ("str", "int", "float", "bool", "null"))
_SEQ, _MAP = _TAG + "seq", _TAG + "map"

_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT_RE = re.compile(r"^(?:[-+]?[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_IMPLICIT = ((_NULL, _NULL_RE), (_BOOL, _BOOL_RE), (_INT, _INT_RE), (_FLOAT, _FLOAT_RE))
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def format_path(path: Path) -> str:
    """Render a node path for messages.

    Args:
        path: tuple of mapping keys (str or int) and list indices (int).

    Returns:
        ``$`` for the root, e.g. ``$.phases[2].winner``; integer keys are
        written ``[2]`` and keys that are not identifiers ``["odd key"]``.
    """
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif isinstance(part, str) and _IDENT_RE.match(part):
            out.append(f".{part}")
        else:
            out.append(f"[{json.dumps(str(part), ensure_ascii=False)}]")
    return "".join(out)


class Mark(Protocol):
    """Where a node or event starts (PyYAML's or libyaml's mark), 0-based."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...


class _Fail(Exception):
    """Internal: one fatal located problem."""

    def __init__(self, mark: Mark | None, path: Path, message: str):
        super().__init__(message)
        self.mark, self.path, self.message = mark, path, message


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _pos(mark: Mark | None) -> Position:
    return (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)


class _Builder:
    """Turns a composed node tree into plain data, recording positions."""

    def __init__(self, filename: str):
        self.filename = filename
        self.values: dict[Path, Position] = {}
        self.keys: dict[Path, Position] = {}
        self.problems: list[Problem] = []

    # -- limits ---------------------------------------------------------

    def check_size(self, root: yaml.Node) -> None:
        """Reject alias bombs, recursive aliases and too-deep expanded nesting."""
        memo: dict[int, tuple[int, int]] = {}  # id(node) -> (size, height)
        active: set[int] = set()

        def visit(node: yaml.Node, depth: int, path: Path) -> tuple[int, int]:
            key = id(node)
            if key in memo:
                size, height = memo[key]
            else:
                if key in active:
                    raise _Fail(node.start_mark, path, "recursive alias (a node contains itself)")
                if depth > MAX_DEPTH:
                    raise _Fail(node.start_mark, path, f"nesting deeper than {MAX_DEPTH} levels")
                active.add(key)
                size, height = 1, 0
                for child_path, child in self._children(node, path):
                    child_size, child_height = visit(child, depth + 1, child_path)
                    size += child_size
                    height = max(height, child_height + 1)
                    if size > MAX_NODES:
                        raise _Fail(
                            node.start_mark,
                            path,
                            f"document expands to more than {MAX_NODES:,} nodes (alias bomb?)",
                        )
                active.discard(key)
                memo[key] = (size, height)
            if depth + height > MAX_DEPTH:
                raise _Fail(node.start_mark, path, f"nesting deeper than {MAX_DEPTH} levels")
            return size, height

        visit(root, 0, ())

    @staticmethod
    def _children(node: yaml.Node, path: Path) -> Iterator[tuple[Path, Any]]:
        if isinstance(node, yaml.SequenceNode):
            for index, child in enumerate(node.value):
                yield path + (index,), child
        elif isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                label = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                yield path + (label,), key_node
                yield path + (label,), value_node

    # -- construction ---------------------------------------------------

    def build(self, node: yaml.Node, path: Path) -> Any:
        self.values[path] = _pos(node.start_mark)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                raise _Fail(node.start_mark, path, f"unsupported tag {_short_tag(node.tag)!r}")
            return [self.build(child, path + (i,)) for i, child in enumerate(node.value)]
        if node.tag != _MAP:
            raise _Fail(node.start_mark, path, f"unsupported tag {_short_tag(node.tag)!r}")
        result: dict[str | int, Any] = {}
        first_line: dict[str | int, int] = {}
        for key_node, value_node in node.value:
            key = self.key(key_node, path)
            child = path + (key,)
            if key in result:
                self.problems.append(
                    Problem(
                        self.filename,
                        *_pos(key_node.start_mark),
                        format_path(child),
                        f"duplicate key {key!r} (first at line {first_line[key]})",
                    )
                )
                continue
            first_line[key] = key_node.start_mark.line + 1
            self.keys[child] = _pos(key_node.start_mark)
            result[key] = self.build(value_node, child)
        return result

    def key(self, node: yaml.Node, path: Path) -> str | int:
        if not isinstance(node, yaml.ScalarNode):
            raise _Fail(node.start_mark, path, "mapping keys must be strings or integers, not collections")
        if node.tag == _TAG + "merge" or (node.value == "<<" and node.style is None):
            raise _Fail(node.start_mark, path, "merge keys ('<<') are not supported")
        key = self.scalar(node, path)
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise _Fail(
                node.start_mark,
                path,
                f"mapping key {node.value!r} must be a string or an integer (quote it)",
            )
        return key

    @staticmethod
    def scalar(node: yaml.ScalarNode, path: Path) -> Any:
        value, tag = node.value, node.tag
        surrogate = None if value.isascii() else _SURROGATE_RE.search(value)
        if surrogate:
            # a lone surrogate (written "\ud800") is no character: it cannot be printed or encoded
            where = surrogate.start()
            raise _Fail(
                node.start_mark,
                path,
                f"text holds a lone surrogate (\\u{ord(value[where]):04x}) at "
                f"character {where + 1}, which is not a character",
            )
        if tag == _STR:
            return value
        regexp = dict(_IMPLICIT).get(tag)
        if regexp is None:
            raise _Fail(node.start_mark, path, f"unsupported tag {_short_tag(tag)!r}")
        if not regexp.match(value):
            raise _Fail(node.start_mark, path, f"cannot read {value!r} as {tag[len(_TAG) :]}")
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return value.lower() == "true"
        if tag == _INT:
            digits = len(value.lstrip("+-")) - (2 if value.startswith(("0x", "0o")) else 0)
            too_large = _Fail(
                node.start_mark,
                path,
                f"integer with {digits} digits is too large (at most {MAX_INT_DIGITS} decimal digits)",
            )
            if value.startswith(("0x", "0o")):
                # int() converts any number of hex/octal digits, but the result could not be printed
                if digits > _MAX_INT_BITS:  # cheap bound before converting: >= 1 bit per digit
                    raise too_large
                number = int(value[2:], 16 if value[1] == "x" else 8)
                if number.bit_length() > _MAX_INT_BITS:
                    raise too_large
                return number
            if digits > MAX_INT_DIGITS:
                raise too_large
            try:
                return int(value, 10)
            except ValueError:  # a lower limit set with sys.set_int_max_str_digits
                raise too_large from None
        lowered = value.lower()
        if lowered.endswith(".inf"):
            return -math.inf if lowered.startswith("-") else math.inf
        if lowered == ".nan":
            return math.nan
        return float(value)
