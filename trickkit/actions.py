"""Actions: what a seat does on its turn, identified by canonical text such as ``play G7`` or ``bid 2``."""

from __future__ import annotations

import attrs

from .errors import IllegalActionError


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
    choices: tuple = ()
    """For an action of a turns step: the value of each choice, in the kind's order."""

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Action {self.text}>"

    def __eq__(self, other) -> bool:
        if isinstance(other, Action):
            return self.text == other.text
        if isinstance(other, str):
            return self.text == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)

    @staticmethod
    def parse(text: str) -> tuple[str, str]:
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
