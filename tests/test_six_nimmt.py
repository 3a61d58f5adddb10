"""six_nimmt played in lockstep with an independent referee (tests/reference/six_nimmt.py).

The referee takes each hand's deal from the engine (the hands and the four row starters:
the deal is the engine's shuffle, not a rule), then both make the same random choices; at
every decision they must agree on the seat to act, the legal actions, the rows and the
bullheads, and at the end on the game's end, the scores and the winners.
"""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

import pytest

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference import six_nimmt as ref_model


@functools.cache
def load(players: int, **params) -> trickkit.Game:
    return trickkit.load_game("six_nimmt", players=players, **params)


def rows_of(state) -> list[list[int]]:
    return [[int(c) for c in row["cards"]] for row in state.observation(0)["zones"]["rows"]]


def play_in_lockstep(seed: int, players: int, **params) -> int:
    """One random game of engine and referee side by side; returns the number of decisions."""
    game = load(players, **params)
    state = game.new_initial_state(seed=seed)
    ref = ref_model.SixNimmt(players, game.params["hand_size"], game.params["limit"])
    rng = random.Random(seed)
    steps = 0
    while not ref.is_terminal():
        assert not state.is_terminal(), f"the engine ended the game after {steps} decisions"
        if ref.needs_deal:
            full = state.observation_all()["zones"]
            rows = [[int(c) for c in row["cards"]] for row in full["rows"]]
            assert [len(r) for r in rows] == [1, 1, 1, 1], "four cards start four rows"
            hands = [[int(c) for c in h["cards"]] for h in full["hand"]]
            assert all(len(h) == game.params["hand_size"] for h in hands)
            ref.start_hand(hands, [r[0] for r in rows])
        where = f"after {steps} decisions of seed {seed}"
        assert state.current_player() == ref.current, where
        ours = sorted(a.text for a in state.legal_actions())
        assert ours == sorted(ref.legal_actions()), where
        if not ref.taking:
            assert rows_of(state) == ref.rows, where
        assert state.scores() == ref.score, where
        choice = rng.choice(ours)
        ref.apply_action(choice)
        state.apply_action(choice)
        steps += 1
    assert state.is_terminal()
    assert state.scores() == ref.score
    best = min(ref.score)
    assert state.winners() == [s for s, v in enumerate(ref.score) if v == best]
    assert max(ref.score) >= game.params["limit"]
    return steps


@pytest.mark.parametrize("players", range(2, 11))
def test_six_nimmt_matches_the_referee(players):
    for seed in range(2 if players > 6 else 3):
        play_in_lockstep(10 * players + seed, players)


@pytest.mark.parametrize(
    "players, params",
    [
        (3, {"hand_size": 1, "limit": 5}),
        (5, {"hand_size": 4, "limit": 20}),
        (2, {"limit": 0}),
        (10, {"hand_size": 3, "limit": 30}),
    ],
)
def test_six_nimmt_matches_the_referee_with_other_parameters(players, params):
    for seed in range(3):
        play_in_lockstep(500 + seed, players, **params)


@pytest.mark.fuzz
@pytest.mark.parametrize("players", range(2, 11))
def test_six_nimmt_matches_the_referee_long(players):
    for seed in range(40):
        play_in_lockstep(10_000 + 100 * players + seed, players)


def test_the_referee_follows_the_rules():
    """The referee itself, on hand-made positions."""
    assert [ref_model.bullheads(c) for c in (55, 11, 99, 10, 100, 5, 95, 1, 104)] == [7, 5, 5, 3, 3, 2, 2, 1, 1]
    assert sum(ref_model.bullheads(c) for c in range(1, 105)) == 171
    game = ref_model.SixNimmt(2, hand_size=2, limit=66)
    game.start_hand([[20, 3], [26, 40]], [10, 24, 30, 50])
    assert game.current == 1  # seat 0 deals the first hand; picks start at its left
    game.apply_action("pick 26")
    game.apply_action("pick 20")
    # 20 goes after 10 (the highest end below it), 26 after 24
    assert game.rows == [[10, 20], [24, 26], [30], [50]] and game.current == 1
    game.apply_action("pick 40")
    game.apply_action("pick 3")
    # 3 is lower than every end: seat 0 chooses; then 40 goes after 30
    assert game.taking and game.current == 0 and game.legal_actions() == ["take 1", "take 2", "take 3", "take 4"]
    game.apply_action("take 2")
    assert game.rows == [[10, 20], [3], [30, 40], [50]] and game.score == [1 + 1, 0]
