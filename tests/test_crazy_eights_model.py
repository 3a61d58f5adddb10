"""Lockstep: the crazy_eights ruleset plays exactly like the independent model in
tests/reference/crazy_eights.py, over many random games.

At every decision both must agree on the seat to act and the legal actions; after every
action on the cards in each hand, the stock and the discard pile, and on the scores; at the
end on the game's end and the winners. Chance comes from the engine (its seeded deals,
starters and reshuffles), and the model checks each outcome against the rules: the deal
holds the deck once, the starter is not an 8, a new stock is exactly the discard pile below
its top card.
"""

import functools
import random
import sys
from pathlib import Path

import pytest

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference import crazy_eights as ref


@functools.cache
def load(players: int, **params) -> trickkit.Game:
    return trickkit.load_game("crazy_eights", players=players, **params)


class EngineChance:
    """The engine's own chance outcomes, read from its state, for the model to check and follow."""

    def __init__(self, state):
        self.state = state

    def layout(self):
        zones = self.state.observation_all()["zones"]
        return [h["cards"] for h in zones["hand"]], zones["stock"]["cards"], zones["discard"]["cards"]

    def deal(self, model):
        return self.layout()

    def reshuffle(self, cards):
        # the engine has drawn already: its stock is the new stock without its top card
        stock = self.layout()[1]
        drawn = [c for c in cards if c not in stock]
        assert len(drawn) == 1, "one card of the new stock was drawn"
        return stock + drawn


def lockstep(seed: int, players: int, **params) -> int:
    """Play one random game in lockstep; returns the number of actions."""
    rng = random.Random(seed)
    state = load(players, **params).new_initial_state(seed=seed)
    chance = EngineChance(state)
    model = ref.CrazyEights(players, chance, **params)
    steps = 0
    while not model.is_terminal():
        assert not state.is_terminal(), f"the engine ended the game early, after {steps} actions"
        assert state.current_player() == model.current, f"seat to act after {steps} actions"
        ours = sorted(a.text for a in state.legal_actions())
        assert ours == sorted(model.legal_actions()), f"legal actions after {steps} actions"
        action = rng.choice(ours)
        state.apply_action(action)
        model.apply_action(action)
        steps += 1
        hands, stock, discard = chance.layout()
        if not model.is_terminal():
            assert [sorted(h) for h in hands] == [sorted(h) for h in model.hands], f"hands after {steps} actions"
            assert (stock, discard) == (model.stock, model.discard), f"stock and discard after {steps} actions"
        assert state.scores() == model.scores, f"scores after {steps} actions"
    assert state.is_terminal()
    best = max(model.scores)
    assert state.winners() == [s for s, v in enumerate(model.scores) if v == best]
    return steps


@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("seed", range(2))
def test_crazy_eights_matches_the_model(seed, players):
    lockstep(1000 * players + seed, players)


@pytest.mark.parametrize("players", [3, 5, 7])
def test_crazy_eights_draw_until_playable_matches_the_model(players):
    lockstep(77 + players, players, draw_until_playable=True)


@pytest.mark.parametrize("seed", range(6))
def test_single_hands_match_the_model(seed):
    lockstep(500 + seed, 2 + seed, target=0, draw_until_playable=seed % 2 == 1)


@pytest.mark.fuzz
@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("until", [False, True])
def test_crazy_eights_matches_the_model_long(players, until):
    for seed in range(25):
        lockstep(10_000 + 100 * players + seed, players, draw_until_playable=until)


def test_the_model_follows_the_rules_text():
    """The model itself: matching, eights, drawing and scoring as the rules say."""

    class Fixed(ref.RandomChance):
        def deal(self, model):
            hands = [["C5", "H8", "D9", "S2", "CK", "HA", "D3"], ["C9", "D10", "SJ", "H4", "S6", "C2", "D7"]]
            used = {c for h in hands for c in h}
            stock = [c for c in ref.DECK if c not in used and c != "C7"]
            return hands, stock, ["C7"]

    game = ref.CrazyEights(2, Fixed(random.Random(0)), target=0)
    assert game.current == 1  # left of the dealer (seat 0)
    assert sorted(game.legal_actions()) == ["draw", "play C2", "play C9", "play D7"]
    game.apply_action("play C9")
    assert sorted(game.legal_actions()) == sorted(
        ["draw", "play C5", "play CK", "play D9"] + [f"play H8 {s}" for s in ("clubs", "diamonds", "hearts", "spades")]
    )
    game.apply_action("play H8 spades")
    assert sorted(game.legal_actions()) == ["draw", "play S6", "play SJ"]
    assert ref.points("H8") == 50 and ref.points("SK") == 10 and ref.points("DA") == 1 and ref.points("C10") == 10 - 0


def test_draw_until_playable_ends_the_turn_when_the_last_card_drawn_does_not_fit():
    # issue 30: when nothing is left to draw and the card drawn does not fit, the turn ends by
    # itself (the parameter's contract), instead of asking the seat for a forced `pass`
    import random

    game = trickkit.load_game("crazy_eights", players=5, target=0, draw_until_playable=True)
    seen = 0
    for seed in range(40):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        while not state.is_terminal():
            seat, action = state.current_player(), rng.choice(state.legal_actions())
            state.apply_action(action)
            if action.text == "draw" and not state.is_terminal() and state.current_player() == seat:
                seen += 1
                assert [a.text for a in state.legal_actions()] != ["pass"], (seed, state.history())
    assert seen > 100  # the situation around it is exercised
