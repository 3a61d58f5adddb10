"""Oh Hell and Spades played in lockstep with independent models of their rules.

The models (tests/reference/oh_hell.py, spades.py; plain Python from the rules, sharing no
code with trickkit) deal the cards; the engine gets the same deals (for Oh Hell the whole
stock order too, so the same card is turned up for trump), both sides make the same random
choices, and at every decision they must agree on the seat to act, the legal actions and
the scores, and at the end on the game end, the winners and (Spades) the team scores.
"""

import functools
import random
import sys
from pathlib import Path

import pytest

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference import cards52, oh_hell, spades


@functools.cache
def load(name: str, **params) -> trickkit.Game:
    return trickkit.load_game(name, **params)


def _lockstep(ref, state, rng) -> int:
    steps = 0
    while not ref.over:
        assert not state.is_terminal(), f"the engine ended after {steps} actions, the model did not"
        assert state.current_player() == ref.current, f"seat to act after {steps} actions"
        ours = sorted(a.text for a in state.legal_actions())
        assert ours == sorted(ref.legal_actions()), f"legal actions after {steps} actions"
        if ours[0].startswith("bid") and rng.random() < 0.6:  # low bids often: bags and nils happen
            choice = rng.choice(sorted(ours, key=lambda a: int(a.split()[1]))[:3])
        else:
            choice = rng.choice(ours)
        ref.apply(choice)
        state.apply_action(choice)
        steps += 1
        if not ours[0].startswith("bid") and not state.trick and not ref.trick:  # after each trick
            assert state.scores() == (ref.scores() if callable(ref.scores) else ref.scores), f"after {steps}"
    assert state.is_terminal(), f"the model ended after {steps} actions, the engine did not"
    return steps


def _oh_hell_game(seed: int, players: int, max_cards: int, sequence: str) -> None:
    rng = random.Random(seed)
    sizes = oh_hell.hand_sizes(players, max_cards, sequence)
    deals = [cards52.deal(rng, players, size) for size in sizes]
    ref = oh_hell.OhHell(players, deals, max_cards, sequence)
    game = load("oh_hell", players=players, max_cards=max_cards, sequence=sequence)
    state = game.new_initial_state(seed=seed, deals=[{"hands": h, "stock": s} for h, s in deals])
    _lockstep(ref, state, rng)
    assert state.scores() == ref.scores
    assert state.winners() == ref.winners()


@pytest.mark.parametrize(
    ("players", "max_cards", "sequence"),
    [
        (3, 0, "up_down"),
        (4, 0, "up_down"),
        (5, 6, "up"),
        (6, 0, "down"),
        (7, 0, "up_down"),
        (4, 13, "down"),
        (3, 5, "up_down"),
        (4, 10, "up"),
    ],
)
@pytest.mark.parametrize("seed", range(2))
def test_oh_hell_matches_the_model(seed, players, max_cards, sequence):
    _oh_hell_game(seed, players, max_cards, sequence)


def _spades_game(seed: int, target: int = 500, floor: int = -500) -> None:
    rng = random.Random(seed)
    deals = [cards52.deal(rng, 4, 13)[0] for _ in range(60)]
    ref = spades.Spades(deals, target, floor)
    game = load("spades", target=target, floor=floor)
    state = game.new_initial_state(seed=seed, deals=deals)
    _lockstep(ref, state, rng)
    assert state.scores() == ref.scores()
    assert state.team_scores() == ref.points
    assert state.winners() == ref.winners()


@pytest.mark.parametrize("seed", range(12))
def test_spades_matches_the_model(seed):
    _spades_game(seed)


@pytest.mark.parametrize("seed", range(6))
def test_spades_matches_the_model_short_games(seed):
    _spades_game(1000 + seed, target=100, floor=-100)


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(200))
def test_many_games_match_the_models(seed):
    rng = random.Random(seed)
    players = rng.randint(3, 7)
    _oh_hell_game(seed, players, rng.choice([0, 1, 3, 8]), rng.choice(["up_down", "up", "down"]))
    _spades_game(seed, target=rng.choice([100, 300, 500]), floor=rng.choice([-100, -500]))
