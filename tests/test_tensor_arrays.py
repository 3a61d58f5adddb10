"""Observation tensors and legal-action masks as numpy arrays: ``out=``, dtypes, and the
incremental encoder against the dict view's encoding (`ObservationEncoder.encode_reference`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import trickkit
from trickkit.engine.arrays import clamped as _clamped
from trickkit.engine.tensor_gen import zone_writers

GAMES = trickkit.list_games()


def reference(state, seat):
    return _clamped(state.game._observation_encoder.encode_reference(state, seat))


@pytest.mark.parametrize("name", GAMES)
def test_incremental_tensors_equal_the_dict_view_encoding(name):
    """Every seat's tensor, asked in a random order along random games (with clones, which start
    their own caches), equals the tensor built afresh from the observation dict."""
    game = trickkit.load_game(name)
    n = game.num_players
    for seed in range(2):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        for _ in range(300):
            for p in rng.sample(range(n), rng.randint(1, n)):
                assert np.array_equal(state.observation_tensor(p), reference(state, p)), (seed, p)
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
            if rng.random() < 0.05:
                state = state.clone()


def test_a_state_changed_behind_the_encoders_back_is_encoded_anew():
    """The cache compares sources, not versions: a zone edited in place shows at once."""
    game = trickkit.load_game("hearts")
    state = game.new_initial_state(seed=3)
    seat = state.current_player()
    before = state.observation_tensor(seat)
    hand = state.seat_zones[0][seat]
    hand.pop()
    after = state.observation_tensor(seat)
    assert not np.array_equal(before, after)
    assert np.array_equal(after, reference(state, seat))


def test_out_is_written_and_returned_and_the_result_is_the_callers_own():
    game = trickkit.load_game("skull_king", players=3, rounds=2)
    state = game.new_initial_state(seed=1)
    batch = np.full((2, game.observation_tensor_shape()[0]), 7.0, np.float32)
    got = state.observation_tensor(1, out=batch[1])
    assert got is batch[1] or np.shares_memory(got, batch)
    assert np.array_equal(batch[1], reference(state, 1)) and (batch[0] == 7.0).all()
    mine = state.observation_tensor(1)
    mine[:] = -1.0  # changing what we got changes nothing the state keeps
    assert np.array_equal(state.observation_tensor(1), reference(state, 1))


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.zeros(5, np.float32), "shape"),
        (np.zeros(837, np.float64), "dtype float32"),
        ([0.0] * 837, "numpy array"),
    ],
)
def test_a_wrong_out_is_a_clear_error(bad, message):
    state = trickkit.load_game("skull_king").new_initial_state(seed=1)
    size = state.game.observation_tensor_shape()[0]
    if isinstance(bad, np.ndarray) and bad.shape == (837,) and size != 837:
        bad = np.zeros(size, np.float64)
    with pytest.raises(ValueError, match=message):
        state.observation_tensor(0, out=bad)
    frozen = np.zeros(size, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        state.observation_tensor(0, out=frozen)


def test_the_mask_is_int8_or_written_into_a_bool_or_int8_out():
    game = trickkit.load_game("hearts")
    state = game.new_initial_state(seed=2)
    size = game.num_distinct_actions()
    mask = state.legal_action_mask()
    assert mask.dtype == np.int8 and mask.shape == (size,)
    assert np.flatnonzero(mask).tolist() == sorted(state.legal_action_ids())
    as_bool = np.ones(size, bool)
    assert state.legal_action_mask(out=as_bool) is as_bool and as_bool.tolist() == mask.astype(bool).tolist()
    with pytest.raises(ValueError, match="shape"):
        state.legal_action_mask(out=np.zeros(size + 1, np.int8))
    with pytest.raises(ValueError, match="dtype int8"):
        state.legal_action_mask(out=np.zeros(size, np.float32))


def positions(name, count, seed):
    """``count`` states of ``name`` at random decisions (some not asked their legal actions yet)."""
    game = trickkit.load_game(name)
    rng = random.Random(seed)
    found = []
    for g in range(count):
        state = game.new_initial_state(seed=seed * 100 + g)
        for _ in range(rng.randrange(60)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        found.append(state)
    return found


@pytest.mark.parametrize("name", GAMES)
def test_masks_mark_the_ids_of_the_legal_actions(name):
    """A mask marks the ids of the legal actions, as a new writable int8 array or written into an
    ``out`` (int8 or bool, whatever it held), whether or not the legal actions were asked first;
    all 0 once the game is over."""
    game = trickkit.load_game(name)
    size = game.num_distinct_actions()
    for k, state in enumerate(positions(name, 6, seed=len(name))):
        fresh = state.clone()  # its legal actions not asked yet
        mask = state.legal_action_mask()  # nor here
        want = sorted(game.action_space.ids[a.text] for a in state.legal_actions())
        assert mask.dtype == np.int8 and mask.shape == (size,) and mask.flags.writeable
        assert np.flatnonzero(mask).tolist() == want == sorted(state.legal_action_ids())
        assert set(mask.tolist()) <= {0, 1}
        out = np.full(size, True) if k % 2 else np.full(size, 7, np.int8)
        assert fresh.legal_action_mask(out=out) is out and np.flatnonzero(out).tolist() == want
        assert set(out.view(np.int8).tolist()) <= {0, 1}
        rows = np.full((size, 2), 7, np.int8 if k % 2 else bool)  # a column: out not contiguous
        assert state.legal_action_mask(out=rows[:, 0]) is not None and np.flatnonzero(rows[:, 0]).tolist() == want
        assert set(rows[:, 0].view(np.int8).tolist()) <= {0, 1} and rows[:, 1].all()
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"legal_action_mask\(out=...\): out is read-only"):
        state.legal_action_mask(out=out)
    over = game.new_initial_state(seed=0)
    while not over.is_terminal():
        over.apply_action(over.legal_actions()[0])
    assert not over.legal_action_mask().any() and over.legal_action_mask().shape == (size,)
    out = np.ones(size, np.int8)
    assert not over.legal_action_mask(out=out).any()


@pytest.mark.parametrize("name", ["hearts", "love_letter", "bridge"])
def test_a_mask_the_caller_changes_changes_no_later_mask(name):
    """The mask is the caller's own: writing into it changes neither the state nor the masks asked
    after it, of this state or another."""
    game = trickkit.load_game(name)
    first = game.new_initial_state(seed=0).legal_action_mask().copy()
    for state in positions(name, 8, seed=3):
        before = state.legal_action_mask().copy()
        for _ in range(2):
            mask = state.legal_action_mask()
            mask[:] = 1
            mask.view(bool)[0] = False
        assert np.array_equal(state.legal_action_mask(), before)
        assert np.array_equal(game.new_initial_state(seed=0).legal_action_mask(), first)


def test_a_legal_action_without_an_id_is_named_by_the_mask():
    """An action with no id in the action space raises the ActionSpaceError naming it, with or
    without ``out`` (a ruleset can offer values its space did not foresee); ``out`` is left as it was."""
    from trickkit.engine.actions import Action
    from trickkit.engine.spaces import ActionSpaceError

    game = trickkit.load_game("hearts")
    state = game.new_initial_state(seed=1)
    state._legal = [*state.legal_actions(), Action("play XX", "play")]  # as a rule could offer it
    for out in (None, np.full(game.num_distinct_actions(), 7, np.int8)):
        with pytest.raises(ActionSpaceError, match="legal action 'play XX' of hearts has no id"):
            state.legal_action_mask(out=out)
    assert set(out.tolist()) == {7}


@pytest.mark.parametrize("small_deck", [True, False])
def test_shown_zones_flip_only_the_changed_cards_for_any_deck_size(small_deck, monkeypatch):
    """A shown zone's changed cards are found as byte strings (card ids below 256) or as sets
    (larger decks): both give the dict view's encoding at every decision of every seat."""
    game = trickkit.load_game("hearts")
    encoder = game._observation_encoder
    monkeypatch.setattr(encoder, "_small_deck", small_deck)
    writers = zone_writers(encoder)  # generated again: their helper picks the way when made
    monkeypatch.setattr(encoder, "_writers", writers)
    monkeypatch.setattr(encoder, "_whole", writers)
    rng = random.Random(4)
    state = game.new_initial_state(seed=4)
    for _ in range(120):
        seat = state.current_player()
        assert np.array_equal(state.observation_tensor(seat), reference(state, seat))
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_score_rule_reading_a_seat_variable_is_read_from_the_variable():
    """``score: total[seat]`` is read from the variable (no rule call per seat), and a value the
    engine would refuse still goes through ``state.scores()``, which reports it."""
    game = trickkit.load_game("hearts")
    encoder = game._observation_encoder
    assert encoder._score_var == game.rules.seat_vars[0].index == 0
    state = game.new_initial_state(seed=2)
    state.seat_vars[0][1] = 7
    assert state.observation_tensor(0)[encoder._scores_at + 1] == 7.0
    assert trickkit.load_game("saqqara")._observation_encoder._score_var == -1  # a computed score


def test_a_zone_edited_like_a_move_but_not_one_is_encoded_as_it_is():
    """A shown zone that lost one card, or grew, is found by cheap checks (the sums' difference,
    the old cards still on the bottom); edits that only look like that still give the dict view's
    encoding: a card swapped for another while one left, cards come under the old ones."""
    game = trickkit.load_game("hearts")
    state = game.new_initial_state(seed=5)
    seat = state.current_player()
    hand = state.seat_zones[0][seat]
    other = state.seat_zones[0][(seat + 1) % 4]  # where the extra cards come from
    edits = [
        lambda: hand.pop(3),  # one card left: the quick way
        lambda: _swap_two_for_one(hand, other),  # one fewer, the sums' difference a card held, but not a card left
        lambda: hand.extend([other.pop(), other.pop()]),  # cards on top: the quick way
        lambda: hand.insert(0, other.pop()),  # one more, but under the others
        lambda: hand.append(hand.pop(0)),  # the same cards in another order
        lambda: hand.clear(),
    ]
    for edit in edits:
        state.observation_tensor(seat)
        edit()
        assert np.array_equal(state.observation_tensor(seat), reference(state, seat)), edit


def _swap_two_for_one(hand, other):
    """Take two cards p, q out of ``hand`` and put in one r of ``other`` such that p + q - r is
    another card of ``hand`` (the sums then name a card that did not leave)."""
    for p in hand:
        for q in hand:
            for r in other:
                if p != q and p + q - r in hand and p + q - r not in (p, q):
                    hand.remove(p), hand.remove(q), other.remove(r)
                    hand.append(r)
                    return
    raise AssertionError("no such cards")


@pytest.mark.parametrize("name", GAMES)
def test_every_seat_at_every_decision_equals_the_dict_view_encoding(name):
    """Every seat asked at every decision (each tensor one action behind: a trick that grew by one
    play is written by that play alone), across illegal actions refused (the state unchanged) and
    clones: always the dict view's encoding."""
    game = trickkit.load_game(name)
    n = game.num_players
    rng = random.Random(7)
    state = game.new_initial_state(seed=7)
    for _ in range(250):
        for p in range(n):
            assert np.array_equal(state.observation_tensor(p), reference(state, p)), p
        if state.is_terminal():
            break
        with pytest.raises(trickkit.IllegalActionError):
            state.apply_action("no such action")
        state.apply_action(rng.choice(state.legal_actions()))
        if rng.random() < 0.03:
            state = state.clone()


def test_a_trick_written_play_by_play_is_cleared_when_it_changes_otherwise():
    """The trick is written play by play while it grows; a trick that changed otherwise (a play
    taken back, another trick) is cleared and written anew."""
    game = trickkit.load_game("hearts")
    rng = random.Random(1)
    state = game.new_initial_state(seed=1)
    while not state.trick:
        state.apply_action(rng.choice(state.legal_actions()))
    state.apply_action(rng.choice(state.legal_actions()))  # two plays
    seat = state.current_player()
    first, second = state.trick
    trick = state.trick
    for edit in (
        lambda: None,
        trick.pop,  # a play taken back
        lambda: trick.append(second),  # grown: that play written alone
        lambda: trick.insert(0, second),  # grown, but not on top of the plays written
        trick.clear,
    ):
        edit()
        assert np.array_equal(state.observation_tensor(seat), reference(state, seat)), edit
    assert first != second
