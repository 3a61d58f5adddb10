"""Card tests over many cards at once: the cards of a hand or zone passing a test, in their order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickkit.engine.protocols import CardId, HandFilter
from trickkit.engine.state import State

NO_FRAME = (None,)
"""The frame of a card filter: the filter binds the card itself, and card tests have no other context."""


def filter_cards(s: State, test: Any, cards: Sequence[CardId]) -> list[CardId]:
    """The cards passing a card test (a `trickkit.engine.protocols.CardTest`: a hook with context
    ``card``, its attributes set by the rules compiler), in their order, for the state ``s``.

    Uses the test's generated hand filter (see `trickkit.dsl.compiler.Compiler.card_filter`): the parts
    that do not depend on the card run once, the rest as one pass over ``cards``.
    """
    staged: HandFilter | None = test.filter
    if staged is not None:
        budget = s.budget
        try:
            return staged(s, NO_FRAME, cards)
        except Exception:  # a rule failed: the per-card loop below reports it, located
            # the filter computes every card-independent part up front, even one the test never
            # reaches: the per-card loop is charged as if it ran alone
            s.budget = budget
    fn = test.fn
    frame: list[Any] = [None] * test.size
    out = []
    try:
        for c in cards:
            frame[0] = c
            if fn(s, frame):
                out.append(c)
    except Exception as err:  # a rule failed: report it located, like any hook call
        test(s, c)  # re-run through the hook, which raises the located DSLRuntimeError
        raise err
    return out
