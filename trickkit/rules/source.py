"""Parses YAML safely and remembers where every node came from.

Rulesets are read with a restricted YAML dialect close to YAML 1.2 "core":

* booleans are only ``true``/``false`` (also ``True``/``TRUE``/``False``/``FALSE``);
  ``yes``, ``no``, ``on``, ``off``, ``y``, ``n`` stay strings;
* integers are decimal (``10``, ``-3``), ``0x1F`` or ``0o17``; sexagesimal
  ``1:20`` and ``1_000`` stay strings;
* floats need a dot (``1.5``, ``.5``, ``2.``, ``1.5e3``) or are ``.inf``/``.nan``;
  ``1e3`` stays a string;
* null is ``null``/``Null``/``NULL``/``~`` or empty; timestamps stay strings;
* merge keys (``<<``) and tags other than the standard scalar/collection ones
  are rejected; aliases are allowed but the expanded document is capped.

Every node's position is recorded in a `Locator`, keyed by its path
(a tuple of mapping keys and list indices).

This module composes the node tree (from libyaml's events when the text is plain, else with
PyYAML's pure-Python parser) and reads files safely; `trickkit.rules.yaml_build` turns the
tree into data and positions.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

import attrs
import yaml

from trickkit.errors import Problem, RulesetError
from trickkit.rules.yaml_build import (
    _IMPLICIT,
    _MAP,
    _NULL,
    _SEQ,
    _STR,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_NODES,
    MAX_SOURCE_NODES,
    Path,
    Position,
    _Builder,
    _Fail,
    _pos,
    format_path,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_NODES",
    "MAX_SOURCE_NODES",
    "MAX_TEXT_SIZE",
    "Locator",
    "format_path",
    "load_yaml",
    "load_yaml_file",
    "open_regular",
    "read_header",
    "read_limited",
]

MAX_TEXT_SIZE = 5_000_000
"""Largest accepted ruleset text, in characters (bytes for files)."""

Fail = Callable[[int, int, Path, str], RulesetError]
"""``fail(line, column, path, message)``: the located error to raise for the text being read."""


@attrs.frozen
class Locator:
    """Where each node of a loaded document came from.

    Attributes:
        filename: file name as given (``<string>`` for text from memory).
    """

    filename: str
    _values: dict[Path, Position] = attrs.field(factory=dict, alias="values")
    _keys: dict[Path, Position] = attrs.field(factory=dict, alias="keys")

    format_path = staticmethod(format_path)

    def position(self, path: Path) -> Position:
        """Return the 1-based ``(line, column)`` where the node at ``path`` starts.

        Falls back to the nearest ancestor with a known position, then ``(0, 0)``.
        """
        path = tuple(path)
        while True:
            if path in self._values:
                return self._values[path]
            if not path:
                return (0, 0)
            path = path[:-1]

    def key_position(self, path: Path) -> Position:
        """Return the ``(line, column)`` of the mapping key naming the node at ``path``.

        Falls back to `position` when ``path`` is no mapping entry.
        """
        path = tuple(path)
        if path in self._keys:
            return self._keys[path]
        return self.position(path)

    def problem(self, path: Path, message: str, at_key: bool = False) -> Problem:
        """Build a `Problem` located at the node (or its key) at ``path``."""
        line, column = self.key_position(path) if at_key else self.position(path)
        return Problem(self.filename, line, column, format_path(tuple(path)), message)


class _EventSource(Protocol):
    """What the composing code here uses of a loader (PyYAML's parser and composer, typed)."""

    anchors: dict[Any, yaml.Node]

    def check_event(self, *choices: type) -> bool: ...
    def peek_event(self) -> Any: ...
    def get_event(self) -> Any: ...
    def compose_document(self) -> yaml.Node | None: ...
    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None: ...
    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str: ...
    def dispose(self) -> None: ...


if TYPE_CHECKING:

    class _ComposerBase(yaml.composer.Composer):
        def peek_event(self) -> Any: ...

else:
    _ComposerBase = object  # a mixin: the loader it is mixed into composes


class _Limits(_ComposerBase):
    """The restricted implicit typing and the nesting and node caps, for either event source."""

    _depth = 0
    _nodes = 0  # nodes composed so far (aliases not expanded)

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, regexp in _IMPLICIT:
                    if regexp.match(value):
                        return tag
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _Fail(mark, (), f"nesting deeper than {MAX_DEPTH} levels")
            self._nodes += 1
            if self._nodes > MAX_SOURCE_NODES:
                raise _Fail(self.peek_event().start_mark, (), _too_many_nodes())
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Loader(_Limits, yaml.SafeLoader):
    """SafeLoader (PyYAML's pure-Python reader, scanner and parser) with `_Limits`."""


class _EventLoader(_Limits, yaml.composer.Composer):
    """PyYAML's (pure-Python) composer with `_Limits`, fed a list of events made by libyaml."""

    def __init__(self, events: list[Any]):
        super().__init__()
        self._events = events
        self._next = 0

    def check_event(self, *choices: type) -> bool:
        event = self._events[self._next]
        return not choices or isinstance(event, choices)

    def peek_event(self) -> Any:
        return self._events[self._next]

    def get_event(self) -> Any:
        event = self._events[self._next]
        self._next += 1
        return event

    def dispose(self) -> None:
        self._events = []

    def descend_resolver(self, parent: Any, index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


def _too_many_nodes() -> str:
    return f"document has more than {MAX_SOURCE_NODES:,} nodes as written"


def _precount_nodes(text: str) -> None:
    """Refuse a document with too many nodes before the (slow, pure-Python) composer sees it.

    Uses libyaml's event parser when PyYAML has it (about a hundred times faster); the
    composer counts again either way, so this only makes the refusal fast.
    """
    loader_class = getattr(yaml, "CBaseLoader", None)
    if loader_class is None:  # pragma: no cover - PyYAML built without libyaml
        return
    if len(text) < MAX_SOURCE_NODES:  # a node takes a character or more: it cannot have too many
        return
    starts = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
    nodes = 0
    try:
        for event in yaml.parse(text, Loader=loader_class):
            if isinstance(event, starts):
                nodes += 1
                if nodes > MAX_SOURCE_NODES:
                    raise _Fail(event.start_mark, (), _too_many_nodes())
    except yaml.YAMLError:
        return  # the real parse reports it, located


FAST_YAML = True
"""Read YAML with libyaml's event parser (C) when PyYAML has it and the text is plain (see
`_fast_parser_ok`); the events feed the same composer and builder as the pure-Python parser's,
and anything unusual, any error included, is read again by the pure-Python parser, whose
result and messages stay the reference. False: always the pure-Python parser."""

_CParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)  # None: PyYAML without libyaml

# Where libyaml and PyYAML may not agree (line breaks other than LF, tabs, a BOM, control,
# surrogate, astral or non-characters, backslash escapes other than \" and \\, directives, a
# '#' glued to a block scalar header such as ``|#`` or ``>-2#``, which libyaml takes for a
# comment and PyYAML refuses), only PyYAML reads the text.
_FAST_UNSAFE_RE = re.compile(
    r"[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]|\\[^\"\\]|^%|[|>][-+0-9]*#", re.MULTILINE
)
# plain scalars inside flow collections that the two parsers have treated differently
_FLOW_PLAIN_UNSAFE_RE = re.compile(r"[:#?\[\]{},]|^-(?![0-9])")


class _Unusual(Exception):
    """Internal: the libyaml events hold something only the pure-Python parser should read."""


def _fast_parser_ok(text: str) -> bool:
    """Whether libyaml's events may be used for ``text`` (they are then checked one by one)."""
    return _CParser is not None and _FAST_UNSAFE_RE.search(text) is None


def _compose_fast(text: str) -> yaml.Node | None:
    """The document's root node, composed from libyaml's events (see `FAST_YAML`).

    Raises _Unusual (or anything else) where the pure-Python parser must read the text: an
    explicit tag, an empty plain scalar, an unusual plain scalar in a flow collection, too
    many nodes, any error."""
    parser = _CParser(text)
    events: list[Any] = []
    flow: list[bool] = [False]  # per open collection: inside a flow collection?
    nodes = 0
    scalar, ends = yaml.ScalarEvent, (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    starts = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    while True:
        event = parser.get_event()
        kind = event.__class__
        if kind is scalar:
            if event.tag is not None:
                raise _Unusual()
            if event.style == "":  # libyaml's plain style; PyYAML's is None
                event.style = None
                if not event.value or (flow[-1] and _FLOW_PLAIN_UNSAFE_RE.search(event.value)):
                    raise _Unusual()
            nodes += 1
        elif kind in starts:
            if event.tag is not None:
                raise _Unusual()
            flow.append(flow[-1] or bool(event.flow_style))
            nodes += 1
        elif kind in ends:
            flow.pop()
        elif kind is yaml.StreamEndEvent:
            events.append(event)
            break
        if nodes > MAX_SOURCE_NODES:
            raise _Unusual()
        events.append(event)
    return _compose_single(_EventLoader(events))


def load_yaml(text: str, filename: str = "<string>") -> tuple[Any, Locator]:
    """Parse one YAML document whose top level is a mapping.

    Args:
        text: the YAML text.
        filename: name used in problems (as given, not resolved).

    Returns:
        ``(data, locator)``: plain data (dict/list/str/int/float/bool/None;
        mapping keys are str or int) and the positions of its nodes.

    Raises:
        RulesetError: on YAML syntax errors, duplicate keys, merge keys,
            unsupported tags, an empty document, a non-mapping top level,
            several documents, or when a limit is exceeded (text larger than
            ``MAX_TEXT_SIZE``, more than ``MAX_NODES`` nodes after expanding
            aliases, nesting deeper than ``MAX_DEPTH``, recursive aliases).
    """

    def fail(line: int, column: int, path: Path, message: str) -> RulesetError:
        return RulesetError([Problem(filename, line, column, format_path(path), message)])

    if len(text) > MAX_TEXT_SIZE:
        raise fail(0, 0, (), f"ruleset too large ({len(text):,} characters, limit {MAX_TEXT_SIZE:,})")
    if FAST_YAML and _fast_parser_ok(text):
        try:
            result = _build(_compose_fast(text), filename, fail)
        except Exception:
            result = None
        if result is not None:
            return result
    return _build(_compose_slow(text, fail), filename, fail)


def _compose_slow(text: str, fail: Fail) -> yaml.Node | None:
    """The document's root node, composed from PyYAML's pure-Python parser's events."""
    loader: _EventSource | None = None
    try:
        try:
            _precount_nodes(text)
            loader = _Loader(text)
            node = _compose_single(loader)
        except _Fail as exc:
            raise fail(*_pos(exc.mark), exc.path, exc.message) from None
        except yaml.MarkedYAMLError as exc:
            message = f"YAML syntax error: {exc.problem}"
            if exc.context:
                message += f" ({exc.context})"
            mark = exc.problem_mark or exc.context_mark
            raise fail(*_pos(mark), (), message) from None
        except yaml.reader.ReaderError as exc:
            line = text.count("\n", 0, exc.position) + 1
            column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
            message = (
                f"unacceptable character #x{exc.character:04x} ({exc.reason})"
                if isinstance(exc.character, int)
                else f"unacceptable character ({exc.reason})"
            )
            raise fail(line, column, (), message) from None
        except yaml.YAMLError as exc:  # pragma: no cover - defensive
            raise fail(0, 0, (), f"YAML error: {exc}") from None
        except RecursionError:  # pragma: no cover - guarded by MAX_DEPTH
            raise fail(0, 0, (), f"nesting deeper than {MAX_DEPTH} levels") from None
    finally:
        if loader is not None:
            loader.dispose()

    return node


def _build(node: yaml.Node | None, filename: str, fail: Fail) -> tuple[Any, Locator]:
    """Plain data and positions from the composed root node (see `load_yaml`)."""
    if node is None or (isinstance(node, yaml.ScalarNode) and node.tag == _NULL):
        raise fail(0, 0, (), "empty ruleset")
    if not isinstance(node, yaml.MappingNode):
        kind = "list" if isinstance(node, yaml.SequenceNode) else "scalar"
        raise fail(*_pos(node.start_mark), (), f"top level must be a mapping, got a {kind}")

    builder = _Builder(filename)
    try:
        builder.check_size(node)
        data = builder.build(node, ())
    except _Fail as exc:
        raise fail(*_pos(exc.mark), exc.path, exc.message) from None
    if builder.problems:
        raise RulesetError(sorted(builder.problems, key=lambda p: (p.line, p.column)))
    return data, Locator(filename, values=builder.values, keys=builder.keys)


def read_header(text: str, keys: frozenset[str]) -> dict[str, Any] | None:
    """The top-level entries ``keys`` of a YAML document, read by the same parser as
    `load_yaml` but only as far as the last of them: a ruleset's name and seat counts sit in
    its first lines, and composing the whole of it costs about thirty times more.

    Returns None (read the whole document instead) when the text is anything but a plain
    mapping whose keys up to there are plain texts, holds an anchor, alias or ``extends``
    before all of ``keys`` were seen, or when anything goes wrong while reading.
    """
    if len(text) > MAX_TEXT_SIZE:
        return None
    loader: _EventSource | None = None
    try:
        loader = cast(_EventSource, _Loader(text))  # typed as the composing code uses it
        for kind in (yaml.StreamStartEvent, yaml.DocumentStartEvent, yaml.MappingStartEvent):
            event = loader.get_event()
            if event.__class__ is not kind or getattr(event, "anchor", None) is not None:
                return None
        found: dict[str, Any] = {}
        builder = _Builder("<header>")
        while len(found) < len(keys):
            event = loader.peek_event()
            if (
                event.__class__ is not yaml.ScalarEvent
                or event.anchor
                or not event.implicit[0]
                or loader.resolve(yaml.ScalarNode, event.value, event.implicit) != _STR
            ):
                return None
            key = event.value
            if key == "extends" or key in found:
                return None
            loader.get_event()
            value: Any = loader.compose_node(None, None)  # a node: composing the value of a key
            if loader.anchors:  # an anchor here may be used further down: read it all
                return None
            if key in keys:
                builder.check_size(value)
                found[key] = builder.build(value, (key,))
        return None if builder.problems else found
    except Exception:
        return None
    finally:
        if loader is not None:
            loader.dispose()


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> int:
    """Open a regular file for reading, without ever blocking: its file descriptor.

    A FIFO, a device such as ``/dev/zero``, a socket or a directory is refused before it is
    opened (and the file is opened non-blocking and checked again once open, so a file swapped
    for a FIFO in between cannot block either). `read_limited` and the game records reader
    (`trickkit.engine.records.read_records`) open files through here.

    Raises:
        OSError: the file cannot be opened, or is not a regular file; ``strerror`` says why
            (``"not a regular file (a named pipe)"``).
    """
    try:
        mode = os.stat(path).st_mode
    except ValueError as exc:  # a NUL byte in the name
        raise OSError(0, f"invalid file name ({exc})") from None
    kind = _not_regular(mode)
    if kind is not None:
        raise OSError(0, f"not a regular file ({kind})")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    kind = _not_regular(os.fstat(fd).st_mode)
    if kind is not None:  # replaced between stat and open
        os.close(fd)
        raise OSError(0, f"not a regular file ({kind})")
    return fd


def read_limited(path: str | os.PathLike[str], limit: int = MAX_TEXT_SIZE) -> bytes:
    """Read a regular file's bytes, at most ``limit + 1`` of them, without ever blocking.

    Every file trickkit reads on a user's word (rulesets, ``extends`` parents, scenario files,
    a record's ruleset) goes through here: a FIFO, a device such as ``/dev/zero`` or a
    directory is refused before it is opened for reading (and opened non-blocking, so a file
    swapped for a FIFO in between cannot block either).

    Args:
        path: the file.
        limit: the caller's size cap; a result longer than ``limit`` means "too large".

    Returns:
        The bytes read (``len(result) > limit`` when the file is larger than ``limit``).

    Raises:
        OSError: the file cannot be read, or is not a regular file; ``strerror`` says why
            (``"not a regular file (a named pipe)"``).
    """
    fd = open_regular(path)
    try:
        info = os.fstat(fd)
        if info.st_size > limit:  # too large: not worth reading; the caller only looks at the length
            return bytes(limit + 1)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def load_yaml_file(path: str | os.PathLike[str]) -> tuple[Any, Locator]:
    """Read a UTF-8 YAML file and parse it with `load_yaml`.

    Args:
        path: the file; problems name it as given (``str(path)``).

    Returns:
        ``(data, locator)`` as for `load_yaml`.

    Raises:
        RulesetError: when the file is larger than ``MAX_TEXT_SIZE`` bytes,
            is not valid UTF-8 (reported at line 0), or for anything
            `load_yaml` rejects.
        OSError: when the file cannot be read or is not a regular file (see `read_limited`).
    """
    filename = os.fspath(path)
    raw = read_limited(path)
    if len(raw) > MAX_TEXT_SIZE:
        raise RulesetError([Problem(filename, 0, 0, "$", f"ruleset too large (over {MAX_TEXT_SIZE:,} bytes)")])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        message = f"not valid UTF-8 text (bad byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        raise RulesetError([Problem(filename, 0, 0, "$", message)]) from None
    return load_yaml(text, filename)


def _compose_single(loader: _EventSource) -> yaml.Node | None:
    """Compose the only document of the stream (None when there is none)."""
    loader.get_event()  # StreamStart
    node = None
    if not loader.check_event(yaml.StreamEndEvent):
        node = loader.compose_document()
    if not loader.check_event(yaml.StreamEndEvent):
        event = loader.get_event()
        raise _Fail(event.start_mark, (), "more than one YAML document (only one is allowed)")
    loader.get_event()
    return node
