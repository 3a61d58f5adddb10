"""Text templates of cards (``{suit}{rank}``) and actions (``take {pile}``): only plain ``{name}`` fields.

Templates are filled in with `str.format`, which would otherwise also accept format
specifications (``{rank:>100000000}`` builds a 100 MB text), conversions (``{rank!r}``),
attribute and index access (``{suit.__class__.__mro__}`` reaches Python internals) and
positional fields (``{}``). `template_problem` refuses all of them at load time, so the
engine may then call `str.format` on a checked template safely. ``{{`` and ``}}`` stay
literal braces.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

__all__ = ["template_fields", "template_problem"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def template_fields(template: str) -> list[str]:
    """The field names of a template in order (``'place {artifact} {row}'`` -> ``['artifact', 'row']``).

    Raises:
        ValueError: the template's braces do not pair up (``'take {pile'``).
    """
    return [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]


def template_problem(template: str, allowed: Iterable[str] | None, what: str) -> str | None:
    """Why ``template`` is not a plain template over the names ``allowed``, or None if it is.

    Args:
        template: the text, e.g. ``'{suit}{rank}'``.
        allowed: the field names it may use (e.g. ``('suit', 'rank')``); None: any plain name
            (the caller checks the names itself).
        what: how to call the names in the message (``"choice"``, ``"card field"``).

    Returns:
        A message for a located `trickkit.errors.RulesetError`, or None.
    """
    names_ok = allowed is None
    allowed = [] if allowed is None else list(allowed)
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as e:  # "Single '}' encountered in format string", "expected '}' before end of string"
        return f"bad template {_short(template)}: {e} (write {{{{ and }}}} for literal braces)"
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        shown = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        if not _NAME.match(field):
            return (
                f"template field {_short(shown)} must be a plain name such as {{{allowed[0] if allowed else 'x'}}}"
                f" (no attributes, indexes or positional fields)"
            )
        if conversion or spec:
            return f"template field {_short(shown)} must be a plain {{{field}}} (no format specification or conversion)"
        if not names_ok and field not in allowed:
            names = ", ".join("{" + a + "}" for a in allowed) or "none"
            return f"unknown {what} {{{field}}} in template {_short(template)} ({what}s: {names})"
    return None


def _short(text: str, limit: int = 60) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 4] + "...'"
