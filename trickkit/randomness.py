"""Shuffling with a state's seeded generator, fast and fixed across Python versions.

Dealing shuffles the whole deck once per deal, and `random.Random.shuffle` spends most of its
time in a Python-level call per card (``_randbelow``). `shuffle` below is the same
Fisher-Yates walk with the same draws (rejection sampling on ``getrandbits``), written out,
so it gives exactly the permutation, and leaves the generator in exactly the state,
that ``rng.shuffle(cards)`` does on CPython 3.10-3.13 (tests/test_randomness.py checks it),
in about half the time. Owning the walk also keeps every seed's deals the same should a
later Python change how its own shuffle draws.
"""

from __future__ import annotations

import random


def shuffle(rng: random.Random, cards: list) -> None:
    """Shuffle ``cards`` in place with ``rng``, as ``rng.shuffle(cards)`` does.

    Args:
        rng: the state's generator (a `random.Random`; only ``getrandbits`` is drawn).
        cards: the list to permute.
    """
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1  # a uniform j in [0, i]: k random bits, redrawn while j > i
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
