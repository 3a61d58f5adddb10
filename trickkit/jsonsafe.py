"""Parses JSON from outside (saved states, game records) with limits: no RecursionError, no huge ints.

`json.loads` raises `RecursionError` on deeply nested input (``[[[[...]]]]``) and a bare
`ValueError` on an integer of more than 4,300 digits; an integer just under that limit
would then make every message that quotes it fail. `loads` turns all of these into one
`JSONLimitError` (a `ValueError`, so callers that report bad JSON already catch it) with
a message that says what is wrong.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "MAX_JSON_INT_DIGITS", "JSONLimitError", "loads"]

MAX_JSON_DEPTH = 100
"""Deepest accepted nesting of arrays and objects (saved states and records need 4)."""
MAX_JSON_INT_DIGITS = 100
"""Longest accepted integer, in digits (seeds are below 2**64: 20 digits)."""


class JSONLimitError(ValueError):
    """JSON text that is valid but exceeds a limit (nesting, integer size)."""


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise JSONLimitError(
            f"an integer of {len(digits.lstrip('-')):,} digits is too large (at most {MAX_JSON_INT_DIGITS})"
        )
    return int(digits)


def loads(text: str | bytes) -> Any:
    """`json.loads` with limits.

    Raises:
        JSONLimitError: nested deeper than `MAX_JSON_DEPTH`, or an integer longer than
            `MAX_JSON_INT_DIGITS` digits.
        json.JSONDecodeError: not JSON (a `ValueError` too).
        TypeError: ``text`` is not text.
    """
    try:
        data = json.loads(text, parse_int=_parse_int)
    except RecursionError:
        raise JSONLimitError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    _check_depth(data)
    return data


def _check_depth(data: Any) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            if depth > MAX_JSON_DEPTH:
                raise JSONLimitError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
