"""Saqqara (rulesets/saqqara.yaml): property tests over random legal play.

Saqqara has no shuffle, so the randomness is in the seat count, the parameters and the
choice among the legal actions.  Every invariant is read from ``observation_all()``:
piles and rows are lists of ``{count, cards}`` (cards bottom first / left to right),
``box``/``discard`` are single ``{count, cards}``, hands and points one per seat.
Scripted rulebook cases live in tests/scenarios/saqqara_rulebook.yaml.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit

# Saqqara runs ~1000 actions/s and a game is ~80-300 actions: the file takes ~8 s.
SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
FAST = settings(max_examples=15, **SETTINGS)
MORE = settings(max_examples=50, **SETTINGS)
SEEDS = st.integers(0, 2**32 - 1)
TARGET = 15
ALL_ARTIFACTS = Counter({str(v): 6 for v in range(10)})  # 6 sets of 0-9


@functools.cache
def load(players: int, **params) -> trickkit.Game:
    return trickkit.load_game("saqqara", players=players, **params)


@st.composite
def games(draw, max_players: int = 4):
    players = draw(st.integers(2, max_players), label="players")
    params = {
        "supply_aware_blocking": draw(st.booleans(), label="supply_aware_blocking"),
        "stop_at_once": draw(st.booleans(), label="stop_at_once"),
        # small pools make the reward end reachable; 24 is the rulebook's
        "reward_cards": draw(st.sampled_from([1, 2, 3, 5, 24]), label="reward_cards"),
        # the rulebook's 5 and 5, and limits and refills around them (a refill above the
        # limit must not leave a seat without a move)
        "hand_limit": draw(st.sampled_from([5, 3, 4, 6]), label="hand_limit"),
        "refill": draw(st.sampled_from([5, 1, 3, 7]), label="refill"),
    }
    return load(players, **params), params


def zones(state) -> dict:
    return state.observation_all()["zones"]


def ranks(zone: dict) -> list[int]:
    return [int(c) for c in zone["cards"]]


def every_card(z: dict) -> Counter:
    cards: Counter = Counter()
    for name in ("piles", "rows", "hand", "points"):
        for zone in z[name]:
            assert zone["count"] == len(zone["cards"])
            cards.update(zone["cards"])
    for name in ("box", "discard"):
        assert z[name]["count"] == len(z[name]["cards"])
        cards.update(z[name]["cards"])
    return cards


def reachable(row: list[int]) -> int:
    """Values-only reading of the blocking rule: the most the row can still reach."""
    lo, hi = min(row), max(row)
    return sum(set(row)) + sum(v for v in range(10) if v < lo) + sum(v for v in range(10) if v > hi)


def action_pattern(game: trickkit.Game) -> re.Pattern:
    piles = "|".join(str(p) for p in range(1, game.num_players + 3))
    return re.compile(rf"take ({piles})|stop|place [0-9] [1-3] (left|right)|discard [0-9]")


def expected_score(points: int, rewards: int) -> int:
    return points + rewards * (2 if rewards > points else 1)


# ---------------------------------------------------------------- the invariants of one game
@MORE
@given(game_params=games(), choice_seed=SEEDS)
def test_random_play_invariants(game_params, choice_seed):
    game, params = game_params
    n = game.num_players
    rng = random.Random(choice_seed)
    state = game.new_initial_state(seed=0)
    pattern = action_pattern(game)
    steps = 0
    while True:
        obs = state.observation_all()
        z, var = obs["zones"], obs["variables"]
        # 60 artifacts, 6 of each value, all somewhere
        assert every_card(z) == ALL_ARTIFACTS
        assert len(z["piles"]) == n + 2 and len(z["rows"]) == 3
        assert len(z["hand"]) == len(z["points"]) == n
        # rewards: taken + left == the pool, never negative
        assert len(var["rewards"]) == n and all(r >= 0 for r in var["rewards"])
        assert var["rewards_left"] >= 0
        assert sum(var["rewards"]) + var["rewards_left"] == params["reward_cards"]
        # rows ascending (non-decreasing left to right); piles descending to the top (0 on top)
        for row in z["rows"]:
            r = ranks(row)
            assert r == sorted(r), f"row not ascending: {r} after {state.history()}"
        for pile in z["piles"]:
            p = ranks(pile)
            assert p == sorted(p, reverse=True), f"pile out of order: {p}"
        # the hand limit holds (a refill above the limit may exceed it, never more)
        most = max(params["hand_limit"], params["refill"])
        assert all(h["count"] <= most for h in z["hand"])
        if state.is_terminal():
            break
        assert steps < game.rules.max_actions, "game exceeds its max_actions"
        # between placements: every row is alive and under the target (taken or discarded
        # rows were replaced; the values-only reading is the weaker one, so it holds for
        # the supply-aware variant too)
        if var["placed"] == 0:
            for row in z["rows"]:
                r = ranks(row)
                assert r, f"empty row in a live game after {state.history()}"
                assert sum(set(r)) < TARGET, f"row {r} should have been taken"
                assert reachable(r) >= TARGET, f"blocked row {r} still on the table"
        legal = [a.text for a in state.legal_actions()]
        assert legal, f"no legal action after {state.history()}"
        assert len(legal) == len(set(legal)), f"duplicate legal actions {legal}"
        # at most (distinct values held) x 3 rows x 2 ends: 30 with the rulebook's limit of 5
        assert len(legal) <= 6 * most, f"{len(legal)} legal actions: {legal}"
        me = state.current_player()
        hand = ranks(z["hand"][me])
        for text in legal:
            assert pattern.fullmatch(text), f"undocumented action text {text!r}"
            words = text.split()
            if words[0] == "take":
                assert z["piles"][int(words[1]) - 1]["count"] > 0
            elif words[0] in ("place", "discard"):
                assert int(words[1]) in hand
        kinds = {t.split()[0] for t in legal}
        if "discard" in kinds:  # the special case is the whole turn
            assert kinds == {"discard"}
            assert var["discarded"] == 1 or len(hand) >= params["hand_limit"]
        # apply by text: every legal text parses back
        state.apply_action(rng.choice(legal))
        steps += 1

    assert len(state.history()) == steps <= game.rules.max_actions
    assert state.legal_actions() == []
    # the end: rewards ran out or the piles are empty
    piles_left = sum(p["count"] for p in z["piles"])
    assert var["rewards_left"] == 0 or piles_left == 0
    # scores from the zones: 1 per artifact and reward, rewards x2 while rewards > artifacts
    want = [expected_score(z["points"][s]["count"], var["rewards"][s]) for s in range(n)]
    assert state.scores() == want
    best = max(want)
    assert sorted(state.winners()) == [s for s in range(n) if want[s] == best]


# ---------------------------------------------------------------- every legal text applies
@FAST
@given(game_params=games(max_players=3), choice_seed=SEEDS)
def test_every_legal_text_parses_back_and_applies(game_params, choice_seed):
    game, _ = game_params
    rng = random.Random(choice_seed)
    state = game.new_initial_state(seed=0)
    pattern = action_pattern(game)
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if step % 7 == 0:  # every action of every 7th decision, on a copy
            for action in legal:
                assert pattern.fullmatch(action.text)
                copy = state.clone()
                copy.apply_action(action.text)
                assert copy.history()[-1] == action.text
        state.apply_action(rng.choice(legal).text)
        step += 1


# ---------------------------------------------------------------- private hands
def test_hands_are_private_but_counted():
    state = load(3).new_initial_state(seed=0)
    for text in ("take 4", "take 1", "take 5"):
        state.apply_action(text)
    hands = state.observation(1)["zones"]["hand"]
    assert hands[1] == {"count": 1, "cards": ["1"]}
    assert hands[0] == {"count": 1} and hands[2] == {"count": 1}
    z = state.observation(1)["zones"]
    assert [ranks(r) for r in z["rows"]] == [[0], [0], [0]]
    assert [p["count"] for p in z["piles"]] == [8, 9, 9, 9, 9]


# ---------------------------------------------------------------- zone-level checks of rulebook cases
DRAFT_15 = [
    "take 4",
    "take 1",
    "take 4",
    "take 1",
    "take 4",
    "take 1",
    "place 2 1 right",
    "place 1 2 right",
    "place 3 1 right",
    "place 1 3 right",
    "take 1",
    "take 1",
    "take 1",
    "stop",
    "take 2",
    "stop",
]


def test_row_of_15_goes_to_points_and_restarts_from_the_lowest_pile():
    state = load(2).new_initial_state(seed=0)
    for text in DRAFT_15 + ["place 4 1 right", "place 6 1 right"]:
        state.apply_action(text)
    z = zones(state)
    assert ranks(z["points"][0]) == [0, 2, 3, 4, 6]
    # tops were 7, 2, 1, 3: the new row takes the 1 of pile 3
    assert [ranks(r) for r in z["rows"]] == [[1], [0, 1], [0, 1]]
    assert [ranks(p)[-1] for p in z["piles"]] == [7, 2, 2, 3]
    assert state.scores() == [5, 0]


BLOCKING = [
    "take 1",
    "take 2",
    "take 1",
    "take 2",
    "take 1",
    "take 2",
    "place 1 2 right",
    "place 2 2 right",
    "take 3",
    "stop",
    "take 1",
    "stop",
    "place 2 2 right",
    "place 3 2 right",
    "place 3 2 right",
    "place 4 2 right",
    "take 1",
    "take 1",
    "take 1",
    "take 1",
    "take 1",
    "take 3",
    "stop",
]


def test_blocked_row_goes_to_discard():
    state = load(2).new_initial_state(seed=0)
    for text in BLOCKING + ["place 9 1 right", "place 8 3 right"]:
        state.apply_action(text)
    z = zones(state)
    assert ranks(z["discard"]) == [0, 9]
    assert [ranks(r) for r in z["rows"]] == [[0], [0, 1, 2, 2, 3, 3, 4], [0, 8]]
    assert state.observation_all()["variables"]["rewards"] == [1, 1]


# ---------------------------------------------------------------- end of the game
def test_last_reward_on_first_placement_ends_the_game_at_once():
    """ "The game ends immediately" when the last reward is taken: a first placement that
    takes it is the last action (issue 15, A), in both readings of stop_at_once."""
    for stop_at_once in (False, True):
        state = load(2, reward_cards=1, hand_limit=9, stop_at_once=stop_at_once).new_initial_state(seed=0)
        for text in [
            "take 1",
            "take 2",
            "take 1",
            "take 2",
            "take 1",
            "take 2",
            "take 1",
            "take 1",
            "take 1",
            "take 1",
            "stop",  # seat 0: 1-7
            "take 2",
            "take 2",
            "take 2",
            "take 2",
            "take 2",
            "stop",  # seat 1: 1-8
            "place 1 2 right",
            "place 7 1 right",  # row 1 [0, 7]
            "place 7 1 right",
        ]:  # seat 1: the last reward, row [0, 7, 7]
            state.apply_action(text)
        assert state.is_terminal(), "a second placement was offered after the last reward"
        assert state.legal_actions() == []
        assert [ranks(r) for r in zones(state)["rows"]] == [[0, 7, 7], [0, 1], [0]]
        assert state.scores() == [0, 2]  # one reward, no artifacts: it counts 2
