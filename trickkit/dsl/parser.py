"""Parses DSL text into lark trees; syntax errors come back with the text and a caret.

Building the LALR tables from ``grammar.lark`` takes lark about 60 ms, a third of loading a
small game. So the tables lark builds are kept in ``parser_tables.py`` (lark's own
serialisation, as one JSON text: Python compiles a text constant at once, where 170 kB of
dict and list literals took it 50-60 ms whenever no ``.pyc`` was cached) and loaded in a few
milliseconds, when they were made from
this very grammar by this very lark version; otherwise the parser is built from the grammar as
before. After changing the grammar or lark, regenerate them with
``python -m trickkit.dsl.write_tables`` (a test fails until you do).
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

import lark

if TYPE_CHECKING:
    from trickkit.dsl import lalr

_START = ["expr", "block"]


class DSLSyntaxError(Exception):
    """DSL text that does not parse. ``str()`` shows the text with a caret under the fault."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


def _grammar() -> str:
    return resources.files("trickkit.dsl").joinpath("grammar.lark").read_text("utf-8")


def grammar_digest() -> str:
    """SHA-256 (hex) of ``grammar.lark``: the key that ties stored tables to the grammar."""
    return hashlib.sha256(_grammar().encode("utf-8")).hexdigest()


def build_parser() -> lark.Lark:
    """A parser built from ``grammar.lark`` by lark's LALR analysis (slow: about 60 ms)."""
    return lark.Lark(_grammar(), start=_START, parser="lalr", propagate_positions=True)


def stored_parser() -> lark.Lark | None:
    """The parser from the stored tables, or None when they are missing or were made from
    another grammar or by another lark version (then the tables cannot be trusted to match)."""
    try:
        from trickkit.dsl import parser_tables
    except ImportError:
        return None
    if lark.__version__ != parser_tables.LARK_VERSION or grammar_digest() != parser_tables.GRAMMAR_SHA256:
        return None
    data, memo = json.loads(parser_tables.TABLES, object_hook=_decoded)
    return lark.Lark.load({"data": data, "memo": memo})


def _encoded(value: Any) -> Any:
    """lark's serialisation as JSON data: tuples and mappings with non-text keys tagged."""
    if isinstance(value, tuple):
        return {"__tuple__": [_encoded(v) for v in value]}
    if isinstance(value, list):
        return [_encoded(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and k not in ("__tuple__", "__items__") for k in value):
            return {k: _encoded(v) for k, v in value.items()}
        return {"__items__": [[_encoded(k), _encoded(v)] for k, v in value.items()]}
    return value


def _decoded(d: dict[str, Any]) -> Any:
    """`_encoded`'s inverse, for one JSON object (``json.loads``' object hook)."""
    if len(d) == 1:
        if "__tuple__" in d:
            return tuple(d["__tuple__"])
        if "__items__" in d:
            return {tuple(k) if isinstance(k, list) else k: v for k, v in d["__items__"]}
    return d


@functools.lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    return stored_parser() or build_parser()


LALR_DRIVER = True
"""Parse with `trickkit.dsl.lalr` (a lean driver over the stored tables, several times faster
than lark's parser, same trees); lark's parser then only parses texts the driver refuses, so
every syntax error is still lark's. False: always lark's parser."""


@functools.lru_cache(maxsize=1)
def _driver() -> lalr.Driver | None:
    """The lean driver over the stored tables, or None when they were made from another grammar
    or by another lark version (the same conditions as `stored_parser`)."""
    try:
        from trickkit.dsl import parser_tables
    except ImportError:
        return None
    if lark.__version__ != parser_tables.LARK_VERSION or grammar_digest() != parser_tables.GRAMMAR_SHA256:
        return None
    from trickkit.dsl import lalr

    return lalr.driver(parser_tables.TABLES, _decoded)


def table_source(parser: lark.Lark) -> str:
    """Python source of ``parser_tables.py``: lark's serialisation of ``parser`` as a JSON text
    (tuples and non-text keys tagged, see `_encoded`), cut into lines of 100 characters."""
    return _table_text(*parser.memo_serialize([lark.lexer.TerminalDef, lark.grammar.Rule]))


def _table_text(data: Any, memo: Any) -> str:
    blob = json.dumps([_encoded(data), _encoded(memo)], separators=(",", ":"))
    lines = "".join(f"    {blob[i : i + 96]!r}\n" for i in range(0, len(blob), 96))
    return (
        '"""LALR tables of grammar.lark, as lark serialises them. Generated: do not edit.\n\n'
        'Regenerate with ``python -m trickkit.dsl.write_tables``."""\n\n'
        f"LARK_VERSION = {lark.__version__!r}\n"
        f"GRAMMAR_SHA256 = {grammar_digest()!r}\n"
        f"TABLES = (\n{lines})\n"
    )


MAX_TEXT = 20_000
"""Longest DSL text accepted, in characters (keeps compile time and the nesting of generated code bounded)."""


def parse(text: str, start: str = "expr") -> lark.Tree[lark.Token]:
    """Parse DSL ``text`` as an expression (``start="expr"``) or a statement block (``"block"``).

    Raises:
        DSLSyntaxError: the text does not parse; the message quotes the line with a caret.
    """
    if not isinstance(text, str):
        raise DSLSyntaxError(f"expected DSL text, got {type(text).__name__} {text!r}", 0, 0)
    if len(text) > MAX_TEXT:
        raise DSLSyntaxError(f"DSL text too long ({len(text)} characters, limit {MAX_TEXT})", 0, 0)
    return _parse_cached(text, start)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str, start: str) -> lark.Tree[lark.Token]:
    """Parse once per text: a ruleset names the same text in several places, and every game
    loaded in a process shares the cache. Trees are never changed after parsing."""
    lean = _driver() if LALR_DRIVER else None
    if lean is not None:
        tree = lean.parse(text, start)
        if tree is not None:
            return tree
    try:
        return _parser().parse(text, start=start)  # lark's own parser: a tree of tokens
    except lark.exceptions.UnexpectedInput as err:
        context = err.get_context(text, span=60).rstrip("\n")
        what = _describe(err)
        raise DSLSyntaxError(
            f"{what} at line {err.line} column {err.column}:\n{context}", err.line, err.column
        ) from None
    except RecursionError:
        raise DSLSyntaxError("expression nested too deeply", 0, 0) from None


def _describe(err: lark.exceptions.UnexpectedInput) -> str:
    if isinstance(err, lark.exceptions.UnexpectedCharacters):
        return f"unexpected character {err.char!r}"
    if isinstance(err, lark.exceptions.UnexpectedToken):
        if err.token.type == "$END":
            return "unexpected end of text"
        return f"unexpected {err.token.value!r}"
    if isinstance(err, lark.exceptions.UnexpectedEOF):
        return "unexpected end of text"
    return "syntax error"
