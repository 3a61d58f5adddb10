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


class _Sub(random.Random):
    """A generator of a subclass (as `State.rng` may be given): the same draws."""


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), size=st.integers(min_value=0, max_value=80))
def test_subclass_generators_shuffle_alike(seed, size):
    ours, theirs = list(range(size)), list(range(size))
    ours_rng, theirs_rng = _Sub(seed), random.Random(seed)
    shuffle(ours_rng, ours)
    theirs_rng.shuffle(theirs)
    assert ours == theirs
    assert ours_rng.getstate() == theirs_rng.getstate()


def test_sizes_just_above_a_power_of_two():
    # the most rejected draws (k bits for an index in [0, 2^(k-1)])
    for size in (2, 3, 5, 9, 17, 33, 65, 129, 257):
        for seed in range(20):
            ours, theirs = list(range(size)), list(range(size))
            a, b = random.Random(seed), random.Random(seed)
            shuffle(a, ours)
            b.shuffle(theirs)
            assert ours == theirs and a.random() == b.random()


def test_sizes_past_the_table_cache_shuffle_alike():
    # more sizes than the per-size table keeps: the cache is cleared and rebuilt, draws unchanged
    for size in range(300):
        ours, theirs = list(range(size)), list(range(size))
        a, b = random.Random(size), random.Random(size)
        shuffle(a, ours)
        b.shuffle(theirs)
        assert ours == theirs and a.getstate() == b.getstate()
