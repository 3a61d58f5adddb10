"""Shuffling with a state's seeded generator, fast and fixed across Python versions.

Dealing shuffles the whole deck once per deal, and `random.Random.shuffle` spends most of its
time in a Python-level call per card (``_randbelow``). `shuffle` below is the same
Fisher-Yates walk with the same draws (rejection sampling on ``getrandbits``), written out,
so it gives exactly the permutation, and leaves the generator in exactly the state,
that ``rng.shuffle(cards)`` does on CPython 3.10-3.13 (tests/test_randomness.py checks it),
in about half the time
(the positions and their bit counts come from a table per deck size). Owning the walk also keeps
every seed's deals the same should a later Python change how its own shuffle draws.
"""

from __future__ import annotations

import random
from typing import Any

_WALKS: dict[int, tuple[tuple[int, int], ...]] = {}
"""Deck size -> the walk's positions as ``(i, k)``: i from the last down to 1, and the number of
bits ``k`` of a draw for a uniform index in ``[0, i]`` (decks come in a few sizes per process)."""


def _walk(size: int) -> tuple[tuple[int, int], ...]:
    walk = _WALKS.get(size)
    if walk is None:
        if len(_WALKS) >= 256:  # never grows without end (a rule may shuffle zones of any size)
            _WALKS.clear()
        walk = _WALKS[size] = tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
    return walk


def shuffle(rng: random.Random, cards: list[Any]) -> None:
    """Shuffle ``cards`` in place with ``rng``, as ``rng.shuffle(cards)`` does.

    Args:
        rng: the state's generator (a `random.Random`; only ``getrandbits`` is drawn).
        cards: the list to permute.
    """
    getrandbits = rng.getrandbits
    for i, k in _walk(len(cards)):  # a uniform j in [0, i]: k random bits, redrawn while j > i
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


MAX_SEED_DIGITS = 100
"""The most decimal digits of a game seed: saved states and game records keep a seed as a JSON
integer, and `trickkit.jsonsafe` reads integers of at most 100 digits back."""


def check_seed(seed: Any, what: str = "seed") -> int:
    """``seed`` as a game seed: an int (or a numpy integer) from 0 to ``10**MAX_SEED_DIGITS - 1``.

    A seed the save format cannot hold is refused here, before any game is played, rather than
    when the state is saved or reloaded.

    Raises:
        ValueError: ``seed`` is not an integer (a bool, a float or a text included), is negative
            or has more than `MAX_SEED_DIGITS` digits.
    """
    import operator

    value: int | None = None
    if not isinstance(seed, bool) and not (hasattr(seed, "dtype") and getattr(seed.dtype, "kind", "") == "b"):
        try:
            value = operator.index(seed)
        except TypeError:
            value = None
    if value is None:
        raise ValueError(f"{what} must be a non-negative int, got {type(seed).__name__} {_short(seed)}")
    if value < 0:
        raise ValueError(f"{what} must be a non-negative int, got {value}")
    if value >= 10**MAX_SEED_DIGITS:
        raise ValueError(
            f"{what} has {value.bit_length()} bits: at most {MAX_SEED_DIGITS} decimal digits, as saved games keep it"
        )
    return int(value)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a repr must never stop the message
        text = "?"
    return text if len(text) <= 40 else text[:40] + "..."
