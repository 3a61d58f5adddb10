"""Where in the file a position inside a YAML block scalar's text is.

A rule written as a block scalar (``|`` keeps line breaks, ``>``/``>-`` folds them into
spaces) starts on the line after its key, and folding changes the lines the DSL sees. A
DSL error at (line, column) of the rule's text should still point at the line of the
mistake in the file, not at the key: `block_position` maps it back.
"""

from __future__ import annotations

import os

__all__ = ["block_position"]

_MAX_FILE = 5 * 1024 * 1024


def block_position(
    file: str, line: int, column: int, text: str, text_line: int, text_column: int
) -> tuple[int, int] | None:
    """The 1-based ``(line, column)`` in ``file`` of ``(text_line, text_column)`` of ``text``.

    Args:
        file: the ruleset file (read again here; only a regular file under 5 MB).
        line, column: where the value starts in the file (its ``|`` or ``>`` indicator).
        text: the value as loaded (to check the mapping against).
        text_line, text_column: the 1-based position inside ``text``.

    Returns:
        The position, or None when the value is no block scalar or the mapping cannot be
        trusted (an explicit indentation indicator, a file changed since loading ...).
    """
    try:
        if not os.path.isfile(file) or os.path.getsize(file) > _MAX_FILE:
            return None
        with open(file, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not 1 <= line <= len(lines) or column < 1:
        return None
    header = lines[line - 1][column - 1 :].split("#", 1)[0].strip()
    if not header or header[0] not in "|>" or any(ch.isdigit() for ch in header):
        return None
    folded = header[0] == ">"
    parent = len(lines[line - 1]) - len(lines[line - 1].lstrip(" "))
    body: list[tuple[int, str]] = []  # (file line, raw line) of the block's content
    indent = None
    for number in range(line + 1, len(lines) + 1):
        raw = lines[number - 1]
        if raw.strip():
            lead = len(raw) - len(raw.lstrip(" "))
            if indent is None:
                indent = lead
            if lead < indent or lead <= parent:
                break
        body.append((number, raw))
    if indent is None:
        return None
    rebuilt, starts = _layout(body, indent, folded)
    if rebuilt.rstrip("\n") != text.rstrip("\n"):
        return None  # not the text we were given: do not guess
    best = None
    for t_line, t_col, f_line, f_col, length in starts:
        if t_line == text_line and t_col <= text_column <= t_col + max(length, 1):
            best = (f_line, f_col + text_column - t_col)
    return best


def _layout(body: list[tuple[int, str]], indent: int, folded: bool) -> tuple[str, list[tuple[int, int, int, int, int]]]:
    """The text YAML makes of the block, and where each content line starts in it and in the file."""
    out: list[str] = []
    starts: list[tuple[int, int, int, int, int]] = []
    t_line, t_col = 1, 1
    blanks, previous_more, first = 0, False, True
    for number, raw in body:
        if not raw.strip():
            blanks += 1
            continue
        content = raw[indent:]
        more = content[:1] in (" ", "\t")
        if not first:
            if not folded:
                breaks = blanks + 1
            elif more or previous_more:
                breaks = blanks + 1  # a more-indented line keeps its line break
            else:
                breaks = blanks  # a single break folds into a space
            if breaks:
                out.append("\n" * breaks)
                t_line, t_col = t_line + breaks, 1
            else:
                out.append(" ")
                t_col += 1
        starts.append((t_line, t_col, number, indent + 1, len(content)))
        out.append(content)
        t_col += len(content)
        blanks, previous_more, first = 0, more, False
    return "".join(out), starts
