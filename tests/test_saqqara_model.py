"""Saqqara played in lockstep with an independent model of its rules (tests/reference/saqqara.py).

The model is plain Python written from the rulebook and the readings of
docs/games/saqqara.md, sharing no code with the engine.  Hypothesis draws the seat count
and every parameter (including values far from the rulebook's, where the edge cases of
the end and of blocking are common) and a seed for the random choices; the engine and the
model then play the same game, and after every action they must agree on the rows, piles,
hands, points piles, discard pile, rewards, whose turn it is, the legal actions (texts and
order) and the end; at the end, on scores and winners.
"""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference.saqqara import SaqqaraModel, text


@functools.cache
def load(players: int, **params) -> trickkit.Game:
    return trickkit.load_game("saqqara", players=players, **params)


@st.composite
def parameters(draw) -> dict:
    return {
        "players": draw(st.integers(2, 4)),
        # small pools end the game by rewards, often on a first placement
        "reward_cards": draw(st.one_of(st.integers(1, 3), st.integers(1, 24), st.just(24))),
        # low targets take rows at once; from 46 on, even the values-only test blocks
        # every row of two or more artifacts (0 + 1 + ... + 9 = 45)
        "target": draw(st.one_of(st.sampled_from([15, 25, 46]), st.integers(1, 50))),
        "stop_at_once": draw(st.booleans()),
        "supply_aware_blocking": draw(st.booleans()),
        "hand_limit": draw(st.integers(3, 7)),
        "refill": draw(st.integers(1, 8)),
    }


def _values(zone: dict) -> list[int]:
    assert zone["count"] == len(zone["cards"])
    return [int(c) for c in zone["cards"]]


def assert_same(state, model: SaqqaraModel, where: str) -> None:
    obs = state.observation_all()
    z, var = obs["zones"], obs["variables"]
    assert [_values(r) for r in z["rows"]] == model.rows, f"rows {where}"
    # engine piles are listed bottom first, like the model's
    assert [_values(p) for p in z["piles"]] == model.piles, f"piles {where}"
    assert [_values(h) for h in z["hand"]] == model.hands, f"hands {where}"
    assert [sorted(_values(p)) for p in z["points"]] == [sorted(p) for p in model.points], f"points {where}"
    assert sorted(_values(z["discard"])) == sorted(model.discard), f"discard {where}"
    assert var["rewards"] == model.rewards, f"rewards {where}"
    assert var["rewards_left"] == model.rewards_left, f"rewards left {where}"
    assert state.is_terminal() == model.is_terminal(), f"end of the game {where}"
    legal = [a.text for a in state.legal_actions()]
    assert legal == [text(a) for a in model.legal_actions()], f"legal actions {where}"
    if not model.is_terminal():
        assert state.current_player() == model.current, f"seat to act {where}"


def choose(rng: random.Random, model: SaqqaraModel, eagerness: float, shy: bool) -> tuple:
    """A random legal action, steered to where the end and blocking have their edge cases.

    With probability ``eagerness`` the player places if it can: eager placers keep small
    hands and fill rows (uniform choice mostly excavates).  A ``shy`` player avoids the
    placements that earn a reward while it has others, so the last reward stays on the
    table through many turns and many hands.
    """
    legal = model.legal_actions()
    places = [a for a in legal if a[0] == "place"]
    if shy:

        def earns(action):
            _, value, row, end = action
            return value == model.rows[row - 1][0 if end == "left" else -1]

        places = [a for a in places if not earns(a)] or places
        legal = [a for a in legal if a[0] != "place" or a in places]
    if places and rng.random() < eagerness:
        return rng.choice(places)
    return rng.choice(legal)


def play_in_lockstep(params: dict, eagerness: float, shy: bool, choice_seed: int) -> None:
    rng = random.Random(choice_seed)
    game = load(**params)
    state = game.new_initial_state(seed=0)
    model = SaqqaraModel(**params)
    history = []
    assert_same(state, model, "at the start")
    while not model.is_terminal():
        action = choose(rng, model, eagerness, shy)
        history.append(text(action))
        model.apply_action(action)
        state.apply_action(history[-1])
        assert_same(state, model, f"after {history}")
        assert len(history) <= game.rules.max_actions
    assert state.scores() == model.scores()
    assert sorted(state.winners()) == model.winners()


SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
EAGERNESS = st.sampled_from([0.0, 0.6, 0.9])
SEEDS = st.integers(0, 2**32 - 1)


@settings(max_examples=25, **SETTINGS)
@given(params=parameters(), eagerness=EAGERNESS, shy=st.booleans(), choice_seed=SEEDS)
def test_engine_plays_like_the_independent_model(params, eagerness, shy, choice_seed):
    play_in_lockstep(params, eagerness, shy, choice_seed)


@st.composite
def last_reward_parameters(draw) -> dict:
    """Few parameters, and few values of each: every new combination costs a ruleset load."""
    return {
        "players": draw(st.integers(2, 4)),
        "reward_cards": draw(st.integers(1, 3)),
        "stop_at_once": draw(st.booleans()),
        "hand_limit": draw(st.sampled_from([5, 3])),
    }


# Games of 1-3 rewards are short (about 15-30 actions), so many of them are cheap: they
# aim at the last reward, taken by a first or a second placement, with or without
# stop_at_once, by a seat whose hand may not allow two placements (shy players leave the
# last reward on the table through many turns).
@settings(max_examples=40, **SETTINGS)
@given(params=last_reward_parameters(), eagerness=EAGERNESS, choice_seed=SEEDS)
def test_the_last_reward_in_lockstep_with_the_model(params, eagerness, choice_seed):
    play_in_lockstep(params, eagerness, True, choice_seed)


def _play_to_end(seed: int, **params) -> SaqqaraModel:
    rng = random.Random(seed)
    model = SaqqaraModel(**params)
    while not model.is_terminal():
        model.apply_action(rng.choice(model.legal_actions()))
    return model


def test_the_model_itself_follows_the_rulebook_cases():
    """The model reproduces issue 15's three cases (so the lockstep test can see them)."""
    draft = [("take", 4)] * 6
    # A: the last reward on a first placement ends the game
    model = SaqqaraModel(players=2, reward_cards=1)
    for action in draft + [("place", 0, 1, "right")]:
        model.apply_action(action)
    assert model.is_terminal() and model.scores() == [2, 0]
    # B: a single artifact cannot start a placement, even to take the last reward
    model = SaqqaraModel(players=2, reward_cards=1, stop_at_once=True)
    for p in (1, 2, 3, 3, 3, 1):
        model.apply_action(("take", p))
    for action in [
        ("place", 1, 3, "right"),
        ("place", 3, 1, "right"),
        ("place", 1, 2, "right"),
        ("place", 2, 3, "right"),
    ]:
        model.apply_action(action)
    assert model.hands[0] == [1]
    assert [text(a) for a in model.legal_actions()] == ["take 1", "take 2", "take 3", "take 4"]
    # C: a row of one artifact is never blocked
    model = SaqqaraModel(players=2, target=46)
    for action in draft + [("place", 0, 1, "right"), ("place", 2, 1, "right")]:
        model.apply_action(action)
    assert model.rows == [[1], [0], [0]] and model.discard == [0, 0, 2]
    # random games end, with every artifact accounted for
    for seed in range(5):
        end = _play_to_end(seed, players=3)
        cards = sum(map(len, end.piles + end.rows + end.hands + end.points)) + len(end.discard)
        assert cards == 50 and (end.rewards_left == 0 or not any(end.piles))
