"""Parses DSL text into lark trees; syntax errors come back with the text and a caret."""

from __future__ import annotations

import functools
from importlib import resources

import lark


class DSLSyntaxError(Exception):
    """DSL text that does not parse. ``str()`` shows the text with a caret under the fault."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


@functools.lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    grammar = resources.files("trickkit.dsl").joinpath("grammar.lark").read_text("utf-8")
    return lark.Lark(grammar, start=["expr", "block"], parser="lalr", propagate_positions=True)


MAX_TEXT = 20_000
"""Longest DSL text accepted, in characters (keeps compile time and closure depth bounded)."""


def parse(text: str, start: str = "expr") -> lark.Tree:
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
def _parse_cached(text: str, start: str) -> lark.Tree:
    """Parse once per text: a ruleset names the same text in several places, and every game
    loaded in a process shares the cache. Trees are never changed after parsing."""
    try:
        return _parser().parse(text, start=start)
    except lark.exceptions.UnexpectedInput as err:
        context = err.get_context(text, span=60).rstrip("\n")
        what = _describe(err)
        raise DSLSyntaxError(f"{what} at line {err.line} column {err.column}:\n{context}",
                             err.line, err.column) from None
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
