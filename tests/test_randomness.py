"""trickkit's own shuffle gives the permutation random.Random.shuffle gives, and leaves the
generator in the same state, so deals of a seed are what they always were."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from trickkit.randomness import shuffle


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64), size=st.integers(min_value=0, max_value=130))
def test_same_permutation_and_generator_state_as_random_shuffle(seed, size):
    ours, theirs = list(range(size)), list(range(size))
    ours_rng, theirs_rng = random.Random(seed), random.Random(seed)
    shuffle(ours_rng, ours)
    theirs_rng.shuffle(theirs)
    assert ours == theirs
    assert ours_rng.getstate() == theirs_rng.getstate()


def test_shuffle_permutes_and_draws():
    cards = list(range(60))
    rng = random.Random(3)
    before = rng.getstate()
    shuffle(rng, cards)
    assert sorted(cards) == list(range(60)) and cards != list(range(60))
    assert rng.getstate() != before
