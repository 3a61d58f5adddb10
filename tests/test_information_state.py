"""Perfect-recall information states (trickkit.engine.infostate) on every shipped game."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest

import trickkit
from trickkit.engine import infostate
from trickkit.lab.conformance.hidden import _hidden_slots, _rearranged

GAMES = trickkit.list_games()


def reference(state, seat, enc=None):
    """The information-state tensor built plainly from the observation tensor and history_seen_by."""
    enc = enc or state.game._information_state_encoder
    n = state.game.num_players
    obs = state.observation_tensor(seat)
    seen = state.history_seen_by(seat)
    actors = [actor for actor, _ in state._history]
    t = np.zeros(enc.size, np.float32)
    t[: obs.size] = obs
    t[obs.size] = len(seen)
    start = max(0, len(seen) - enc.window)
    for j, (actor, text) in enumerate(zip(actors[start:], seen[start:], strict=True)):
        assert text in enc.index, f"{text!r} is not in the seen vocabulary"
        base = enc.history_start + j * enc.slot
        t[base] = 1
        t[base + 1 + (actor - seat) % n] = 1
        t[base + 1 + n + enc.index[text]] = 1
    return t


def playout(game, seed, limit=400):
    """States along a random game (at most ``limit`` decisions)."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    for _ in range(limit):
        if state.is_terminal():
            break
        yield state, rng
        state.apply_action(rng.choice(state.legal_actions()))
    yield state, rng


@pytest.mark.parametrize("name", GAMES)
def test_layout_starts_with_the_observation_tensor(name):
    game = trickkit.load_game(name)
    layout = game.information_state_tensor_layout()
    obs = game.observation_tensor_layout()
    assert layout[: len(obs)] == obs
    assert [s.name for s in layout[len(obs) :]] == ["history length", "history"]
    assert sum(s.size for s in layout) == game.information_state_tensor_shape()[0]
    for a, b in itertools.pairwise(layout):
        assert b.start == a.start + a.size
    window = game.information_state_window
    assert 1 <= window <= game.rules.max_actions
    slot = 1 + game.num_players + len(game.information_state_vocabulary())
    assert layout[-1].size == window * slot
    assert window == game.rules.max_actions or window * slot <= infostate.HISTORY_FLOATS


@pytest.mark.parametrize("name", GAMES)
def test_tensor_is_the_observation_and_the_history_as_seen(name):
    """The incremental tensor equals the plain reference at every checked decision, for every seat,
    with or without ``out``, and a clone (no cache) gives the same."""
    game = trickkit.load_game(name)
    n = game.num_players
    outs = [np.full(game.information_state_tensor_shape(), 7.0, np.float32) for _ in range(n)]
    checked = 0
    for state, rng in playout(game, 3):
        if rng.random() > 0.3 and not state.is_terminal():
            continue
        for seat in range(n):
            want = reference(state, seat)
            got = state.information_state_tensor(seat, out=outs[seat])
            assert got is outs[seat]
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(state.clone().information_state_tensor(seat), want)
        checked += 1
    assert checked > 3


def test_the_history_window_slides():
    """A game longer than its window keeps the last ``window`` actions, oldest first."""
    game = trickkit.load_game("hearts")
    saved = infostate.HISTORY_FLOATS
    infostate.HISTORY_FLOATS = 20 * (1 + 4 + 107)
    try:
        enc = infostate.InformationStateEncoder(game)
    finally:
        infostate.HISTORY_FLOATS = saved
    assert enc.window == 20
    out = np.zeros(enc.size, np.float32)
    for state, _ in playout(game, 5, limit=90):
        for seat in (0, 2):
            np.testing.assert_array_equal(enc.encode(state, seat, out), reference(state, seat, enc))
    assert len(state.history()) > 80
    assert out[enc.history_start - 1] == len(state.history())


def _unordered(value):
    """``value`` with every list of card texts under a ``cards`` key sorted."""
    if isinstance(value, dict):
        return {k: sorted(v) if k == "cards" and isinstance(v, list) else _unordered(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unordered(v) for v in value]
    return value


@pytest.mark.parametrize("name", GAMES)
def test_information_state_is_a_function_of_what_the_seat_saw(name):
    """No leak and perfect recall: across states that differ only in what a seat cannot see (hidden
    cards shuffled; another seat's choices it is shown alike) and states along different games,
    the seat's information state is the same exactly when its observation and its history as seen
    are the same."""
    game = trickkit.load_game(name)
    n = game.num_players
    window = game.information_state_window
    by_key: dict = {}
    by_text: dict = {}
    by_tensor: dict = {}

    by_loose: dict = {}

    def record(state, seat):
        observation, seen = state.observation(seat), tuple(state.history_seen_by(seat))
        key = (seat, json.dumps(observation, sort_keys=True), seen)
        # the tensor counts each zone's card texts (its documented layout), so the order of a zone's
        # cards (a hand in draw order) is not part of what it must tell apart; the string shows it
        loose = (seat, json.dumps(_unordered(observation), sort_keys=True), seen)
        text = state.information_state_string(seat)
        tensor = state.information_state_tensor(seat).tobytes()
        assert by_key.setdefault(key, text) == text, "the information string shows more"
        assert by_loose.setdefault(loose, tensor) == tensor, "the information state tensor shows more"
        assert by_text.setdefault(text, key) == key, "two different things seen give one information string"
        if len(state.history()) <= window:
            assert by_tensor.setdefault(tensor, loose) == loose, "two different things seen give one tensor"

    for seed in (1, 2):
        for state, rng in playout(game, seed, limit=150):
            if rng.random() > 0.25 or state.is_terminal():
                record(state, rng.randrange(n))
                continue
            actor = state.current_player()
            for p in range(n):
                record(state, p)
                slots = _hidden_slots(state, p)
                pool = [cards[i] for cards, i in slots]
                rng.shuffle(pool)
                record(_rearranged(state, slots, pool), p)
                if p == actor:
                    continue
                legal = state.legal_actions()
                alike = [a for a in legal if state.action_seen_by(a, p) == state.action_seen_by(legal[0], p)]
                for a in alike[:2]:
                    branch = state.clone()
                    branch.apply_action(a)
                    record(branch, p)
                    record(branch, actor)  # the actor knows what it did
    assert len(by_key) > 20


@pytest.mark.parametrize(("name", "params"), [("hearts", {}), ("six_nimmt", {}), ("skull_king", {})])
def test_a_secret_choice_of_another_seat_does_not_show(name, params):
    """Hearts' passes, 6 nimmt!'s picks, Skull King's bids: two different choices of seat 1 give seat 0
    the same information state until they are revealed, and seat 1 two different ones."""
    game = trickkit.load_game(name, **params)
    state = game.new_initial_state(seed=11)
    while state.current_player() != 1 or len({state.action_seen_by(a, 0) for a in state.legal_actions()}) != 1:
        state.apply_action(state.legal_actions()[0])
    a, b = state.legal_actions()[:2]
    one, two = state.clone(), state.clone()
    one.apply_action(a)
    two.apply_action(b)
    assert one.information_state_string(0) == two.information_state_string(0)
    np.testing.assert_array_equal(one.information_state_tensor(0), two.information_state_tensor(0))
    assert one.information_state_string(1) != two.information_state_string(1)
    assert not np.array_equal(one.information_state_tensor(1), two.information_state_tensor(1))
    assert one.information_state_string(0).splitlines()[-1].endswith(" ?")


def test_string_names_the_seat_observation_and_history():
    game = trickkit.load_game("skull_king", players=3, rounds=1)
    state = game.new_initial_state(seed=2)
    state.apply_action(state.legal_actions()[0])
    lines = state.information_state_string(1).splitlines()
    assert lines[0] == "seat 1"
    assert json.loads(lines[1]) == state.observation(1)
    assert lines[2:] == [f"{actor}: {text}" for (actor, _), text in zip(state._history, state.history_seen_by(1))]


def test_bad_seat_and_bad_out_are_refused():
    game = trickkit.load_game("hearts")
    state = game.new_initial_state(seed=1)
    for bad in (4, -1, None, True, "0"):
        with pytest.raises(ValueError, match="seat"):
            state.information_state_tensor(bad)
        with pytest.raises(ValueError, match="seat"):
            state.information_state_string(bad)
    with pytest.raises(ValueError, match="shape"):
        state.information_state_tensor(0, out=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="dtype"):
        state.information_state_tensor(0, out=np.zeros(game.information_state_tensor_shape(), np.float64))
