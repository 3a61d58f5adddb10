"""Counters compiled into a game's generated code when its rule coverage is asked for.

`trickkit.load_game` with ``coverage=True`` compiles the rules with a `CoverageSites`
attached to the code generator (`counting`). The generator then registers a **site** for
each branch of each ``if`` (statement: then / elif / else; expression: then / else), each
effect statement (``move(...)``, ``score[seat] += 3``) and each rule block, and emits a call
of the generator-owned helper ``_cov(s, site, value)`` there: it counts the site and
returns ``value`` unchanged, so it fits inside an expression. The helper is the only
name added to the module's namespace, and the code still passes the AST allow-list.

Without ``coverage=True`` nothing of this is emitted: the generated source is exactly what
it was (the tests compare it).

Sites are keyed by where their rule is written and the position inside it, so the same
rule compiled twice (a test and its look-ahead copy) or a definition inlined in ten rules
counts into one site. Counts made while the game is loaded (a constant folded at load) and
in the engine's look-ahead trials (a hypothetical move tried and thrown away) are kept
apart from the counts of the game as played.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

__all__ = ["CoverageSites", "Site", "counting", "requested"]


@attrs.frozen
class Site:
    """One counted place of the rules.

    Attributes:
        where: ``file:line:column: $.path`` of the rule (or definition) it is in.
        line, column: 1-based position inside the rule's text (0 if unknown).
        kind: ``"if"`` (statement), ``"if-expression"``, ``"effect"`` or ``"rule"`` (a block ran).
        label: the branch (``then``, ``elif 1``, ``else``), the effect (``move``, ``score +=``) or ``runs``.
        text: the condition or statement as written, when known (else "").
        decided: for a branch a parameter fixes when the game is loaded: ``"always"`` or
            ``"never"``; else "".
    """

    where: str
    line: int
    column: int
    kind: str
    label: str
    text: str = ""
    decided: str = ""


class CoverageSites:
    """The sites of one compiled game and their counters.

    Attributes:
        sites: every `Site`, indexed by site number.
        counts: per site, times it ran in games as played.
        trial_counts: per site, times it ran in look-ahead trials only.
        load_counts: per site, times it ran while the game was loaded (constant folding).
    """

    def __init__(self) -> None:
        self.sites: list[Site] = []
        self._index: dict[tuple[Any, ...], int] = {}  # a site's key -> its number
        self.counts: list[int] = []
        self.trial_counts: list[int] = []
        self.load_counts: list[int] = []
        self.loading = True
        self.rule_texts: dict[str, str] = {}
        """``where`` -> the rule's full text, where known (to place a site in its file)."""

    def site(
        self,
        where: str,
        line: int,
        column: int,
        kind: str,
        label: str,
        text: str = "",
        decided: str = "",
        rule_text: str = "",
    ) -> int:
        """The number of the site at this place (registered on first sight)."""
        if rule_text:
            self.rule_texts.setdefault(where, rule_text)
        key = (where, line, column, kind, label)
        k = self._index.get(key)
        if k is None:
            k = self._index[key] = len(self.sites)
            self.sites.append(Site(where, line, column, kind, label, text, decided))
            self.counts.append(0)
            self.trial_counts.append(0)
            self.load_counts.append(0)
        else:
            known = self.sites[k]
            if (decided and not known.decided) or (text and not known.text):
                self.sites[k] = attrs.evolve(known, decided=known.decided or decided, text=known.text or text)
        return k

    def hit(self, s: object, k: int, value: Any = None) -> Any:
        """Count site ``k`` for state ``s`` and return ``value`` (the generated ``_cov``)."""
        if self.loading:
            self.load_counts[k] += 1
        elif getattr(s, "_depth", 0):
            self.trial_counts[k] += 1
        else:
            self.counts[k] += 1
        return value

    def reset(self) -> None:
        """Set every play-time counter back to zero (load-time counts stay)."""
        self.counts = [0] * len(self.sites)
        self.trial_counts = [0] * len(self.sites)

    def snapshot(self) -> tuple[list[int], list[int]]:
        """Copies of ``(counts, trial_counts)``."""
        return list(self.counts), list(self.trial_counts)

    def add(self, counts: Sequence[int], trial_counts: Sequence[int]) -> None:
        """Add counts made elsewhere (a worker process with the same sites)."""
        for i, v in enumerate(counts):
            self.counts[i] += v
        for i, v in enumerate(trial_counts):
            self.trial_counts[i] += v


_REQUEST: contextvars.ContextVar[CoverageSites | None] = contextvars.ContextVar("trickkit_coverage", default=None)


@contextlib.contextmanager
def counting(sites: CoverageSites) -> Iterator[CoverageSites]:
    """While active, every code generator created registers its sites in ``sites``; at the
    end the sites are ready to count games (``loading`` is off)."""
    token = _REQUEST.set(sites)
    try:
        yield sites
    finally:
        _REQUEST.reset(token)
        sites.loading = False


def requested() -> CoverageSites | None:
    """The sites a code generator created now should count into (None: no coverage)."""
    return _REQUEST.get()
