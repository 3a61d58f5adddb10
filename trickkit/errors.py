"""The exception tree: every error trickkit raises on purpose derives from TrickkitError."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

import attrs


class TrickkitError(Exception):
    """Base class of every error trickkit raises on purpose."""


@attrs.frozen
class Problem:
    """One located problem in a ruleset or scenario file."""

    file: str
    """File name as given (or ``<string>`` for text loaded from memory)."""
    line: int
    """1-based line of the offending node (0 when unknown)."""
    column: int
    """1-based column of the offending node (0 when unknown)."""
    path: str
    """YAML path of the offending node, e.g. ``$.phases[2].winner``."""
    message: str
    """What is wrong, quoting the bad value with ``!r``."""

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}:{self.column}"
        return f"{where}: {self.path}: {self.message}"


class RulesetError(TrickkitError):
    """A ruleset (or scenario) could not be loaded.

    Attributes:
        problems: every located problem found, in file order.
    """

    def __init__(self, problems: Sequence[Problem]):
        self.problems = _once(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def _once(problems: Sequence[Problem]) -> list[Problem]:
    """Each problem once: a node reused through YAML aliases (``*step``) is checked at every
    place it is used, but its mistake is written once, so it is reported once, naming the
    other places."""
    first: dict[Any, Problem] = {}
    also: dict[Any, list[str]] = {}
    for p in problems:
        key = (p.file, p.line, p.column, p.message) if p.line else id(p)
        if key in first:
            if p.path != first[key].path:
                also.setdefault(key, []).append(p.path)
        else:
            first[key] = p
    out = []
    for key, p in first.items():
        if key in also:
            head, sep, rest = p.message.partition("\n")
            p = attrs.evolve(
                p,
                message=f"{head} (also used at {', '.join(dict.fromkeys(also[key]))}, through a YAML alias){sep}{rest}",
            )
        out.append(p)
    return out


class IllegalActionError(TrickkitError, ValueError):
    """An action that the rules do not allow now, or text that is no action.

    The state it was applied to is left exactly as it was.
    """


class ScenarioError(TrickkitError):
    """A scenario file is malformed (as opposed to a scenario that fails)."""


class StateError(TrickkitError, ValueError):
    """A saved state or game record cannot be loaded (tampered, wrong game, wrong version)."""


class DSLRuntimeError(TrickkitError):
    """A DSL expression failed while a game was being played (e.g. a type error)."""


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for messages that quote user input.

    Never raises: an int too large for Python to print (``ValueError``, the 4300-digit
    limit) is described by its size, and a lone surrogate is escaped as repr does.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 14_000:
        return f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # a huge int inside a list, or a very deep list
        return f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest candidate, or ``""``. A candidate that
    differs from ``name`` only in case wins over any closer spelling (``'bid 1d'`` -> ``'bid 1D'``,
    not ``'bid 1S'``, which difflib rates as close)."""
    name, known = str(name), list(candidates)
    folded = name.casefold()
    same = [c for c in known if c.casefold() == folded]
    close = difflib.get_close_matches(name, same or known, n=1, cutoff=0.0 if same else 0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class DealError(TrickkitError, ValueError):
    """A deal given to ``new_initial_state(deals=...)`` does not fit the game."""
