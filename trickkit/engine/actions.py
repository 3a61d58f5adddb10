"""Actions: what a seat does on its turn, identified by canonical text such as ``play G7`` or ``bid 2``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from trickkit.errors import IllegalActionError, did_you_mean
from trickkit.rules.cards import Deck


@attrs.frozen(eq=False, repr=False)
class Action:
    """One decision of the current seat.

    Two actions are equal when their texts are equal; the other fields are the engine's
    decoded payload.
    """

    text: str
    """Canonical text, e.g. ``'play tigress:pirate'``; ``str(action)`` returns it."""
    verb: str
    """The first word: ``'play'``, ``'bid'`` ...; for an action of a ``turns`` step, the name of
    its action kind (the same word unless the kind declares a ``verb:`` it shares with others)."""
    face: int = -1
    """For ``play``: the face id of the card played (its mode included)."""
    value: int = 0
    """For ``bid``: the number bid."""
    choices: tuple[Any, ...] = ()
    """For an action of a turns step: the value of each choice, in the kind's order."""

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Action {self.text}>"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Action):
            return self.text == other.text
        if isinstance(other, str):
            return self.text == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)

    @staticmethod
    def parse(text: str | Action) -> tuple[str, str]:
        """Split action text into ``(verb, argument)``, normalising spaces.

        Raises:
            IllegalActionError: the text is empty or not a string.
        """
        if isinstance(text, Action):
            return text.verb, text.text.partition(" ")[2]
        if not isinstance(text, str):
            raise IllegalActionError(f"an action must be text or an Action, got {type(text).__name__}")
        words = text.split()
        if not words:
            raise IllegalActionError("empty action text")
        return words[0].lower(), " ".join(words[1:])


@attrs.frozen(eq=False, repr=False)
class PlayTables:
    """The play and bid actions of one deck, made once per ruleset and shared by everything
    that offers them (`trickkit.Game`, the generated step functions of `trickkit.engine.fused`), so
    the same action is the same object wherever it comes from."""

    play_actions: tuple[tuple[Action, ...], ...]
    """For each card id, the tuple of its play actions (one per mode); every copy of a card
    has the actions of its first copy (copies are one action)."""
    first_copy: tuple[int, ...]
    """For each card id, the id of the first card with the same text (itself if unique)."""
    single_play_action: tuple[Action, ...] | None
    """For each card id, its one play action, when no card is played in modes (else None)."""
    face_play: tuple[tuple[int, int], ...]
    """For each face id: (its card id, the face's index among that card's faces)."""
    has_copies: bool
    """True when some cards share a text (copies), which legal actions must offer once."""
    bids: dict[int, Action] = attrs.field(factory=dict)
    """Bid actions made so far, by the number bid."""
    ranges: dict[tuple[int, int], tuple[Action, ...]] = attrs.field(factory=dict)
    """The bid actions of ``range(a, b)`` options met so far, by ``(a, b)`` (see `bid_range`)."""

    def bid(self, value: int) -> Action:
        """The action ``bid VALUE`` (made on first use, then reused)."""
        a = self.bids.get(value)
        if a is None:
            a = self.bids[value] = Action(f"bid {value}", "bid", value=value)
        return a

    def bid_actions(self, values: Any) -> list[Action]:
        """The bid actions of a bid step's options, which must be a list of different ints
        (anything else raises, for the engine to report it, located, on its general path)."""
        if values.__class__ is not list or len(set(values)) != len(values) or not set(map(type, values)) <= _INT_ONLY:
            raise TypeError("bid options must be a list of different numbers")
        bids = self.bids
        try:
            return [bids[v] for v in values]
        except KeyError:
            return [self.bid(v) for v in values]

    def bid_range(self, a: int, b: int) -> list[Action]:
        """``bid_actions(range(a, b))`` (options ``range(a, b)``, the usual bid rule), made once
        per ``(a, b)``; a new list each call. Raises as the DSL's ``range`` and `bid_actions` do."""
        got = self.ranges.get((a, b))
        if got is None:
            from trickkit.dsl.runtime import dsl_range

            if len(self.ranges) >= 4096:  # bounded: a rule may give any numbers
                self.ranges.clear()
            got = self.ranges[(a, b)] = tuple(self.bid_actions(dsl_range(a, b)))
        return [*got]


_INT_ONLY = frozenset({int})


def play_tables(deck: Deck) -> PlayTables:
    """The `PlayTables` of a `trickkit.rules.cards.Deck`."""
    actions = tuple(
        tuple(Action(f"play {deck.face_texts[f]}", "play", face=f) for f in faces) for faces in deck.card_faces
    )
    first: dict[str, int] = {}
    for cid, t in enumerate(deck.texts):
        first.setdefault(t, cid)
    actions = tuple(actions[first[t]] for t in deck.texts)
    single = tuple(a for (a,) in actions) if all(len(a) == 1 for a in actions) else None
    face_play = tuple((face_card, deck.card_faces[face_card].index(f)) for f, face_card in enumerate(deck.face_card))
    return PlayTables(
        actions, tuple(first[t] for t in deck.texts), single, face_play, len(set(deck.texts)) < len(deck.texts)
    )


QUOTE_LIMIT = 120
"""The longest action text an error message quotes in full; longer ones are cut (`quote_action`)."""


def quote_action(text: str) -> str:
    """``repr(text)``, cut to `QUOTE_LIMIT` characters with the full length said, so a refusal
    of a megabyte of text is one short line: ``'play xxxx…' (1048576 characters)``."""
    if len(text) <= QUOTE_LIMIT:
        return repr(text)
    return f"{text[:QUOTE_LIMIT]!r}… ({len(text)} characters)"


def describe_unknown(word: str, known: Iterable[str]) -> str:
    """``"unknown card 'X' (did you mean 'Y'?)"``-style text for error messages."""
    return f"{word!r}{did_you_mean(word, known)}"
