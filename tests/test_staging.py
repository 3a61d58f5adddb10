"""Staged card tests (trickkit.dsl.staging) decide exactly as testing each card on its own."""

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trickkit
from trickkit.dsl.compiler import card_filter

sys.path.insert(0, str(Path(__file__).parent))
from test_dsl import FakeState, compiler

CONTEXT = (("card", "card"),)
DEFINITIONS = {"lead": "trick[0]", "led": "first(p.suit for p in trick if p.kind == 'suit')", "low": "card.rank < 5"}

# every construct the stager handles, with nulls in the attributes (pirate, escape)
TESTS = [
    "true",
    "false",
    "round == 2",
    "card.kind == 'suit'",
    "card.suit != 'green'",
    "card.rank < 5",
    "card.rank >= 3",
    "3 < card.rank",
    "card.rank > round",
    "card.suit == led",
    "led == null or card.suit == led",
    "len(trick) == 0 or card.kind != 'suit'",
    "len(trick) > 0 and card.rank <= lead.rank",
    "not (card.kind == 'escape')",
    "not low",
    "if len(trick) == 0 then card.kind == 'pirate' else low",
    "if round == 2 then true else card.rank > 1",
    "card.kind in ['pirate', 'escape']",
    "card.suit in list(p.suit for p in trick)",
    "card.rank > 1 or card.kind == 'pirate'",
    "card.rank < lead.rank",
    "(card.rank ?? 0) + 1 > 4",
    "card.rank == null",
    "low and (card.suit == 'green' or card.kind == 'escape')",
]

trick_strategy = st.lists(st.sampled_from([(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (0, 3, 3, 0)]), max_size=3).map(
    lambda t: [(p[0], p[1], p[2], i) for i, p in enumerate(t)]
)


def per_card(text, state, cards):
    fn, size, _ = compiler(DEFINITIONS).expression(text, CONTEXT)
    out = []
    for c in cards:
        if fn(state, [c] + [None] * (size - 1)):
            out.append(c)
    return out


@pytest.mark.parametrize("text", TESTS)
@settings(max_examples=40, deadline=None)
@given(trick=trick_strategy, round_=st.integers(1, 3), cards=st.lists(st.integers(0, 3), max_size=6))
def test_staged_filter_matches_per_card_tests(text, trick, round_, cards):
    state = FakeState(trick)
    state.round = round_
    flt, size = card_filter(compiler(DEFINITIONS), text, CONTEXT)
    try:
        expected = per_card(text, state, cards)
    except TypeError:  # e.g. lead.rank of an empty trick: the engine then re-runs per card
        return
    assert flt(state, [None] * size, cards) == expected


def test_a_staged_filter_reads_the_state_once_per_hand():
    calls = []
    state = FakeState([(0, 0, 0, 0)])
    c = compiler(DEFINITIONS)
    c.ns.symbols["round"] = type(c.ns.symbols["round"])("state", "int", lambda s: calls.append(1) or s.round)
    flt, size = card_filter(c, "if round == 2 then card.rank < 5 else true", CONTEXT)
    assert flt(state, [None] * size, [0, 1, 2, 3]) == [1]
    assert len(calls) == 1


@pytest.mark.parametrize("name", trickkit.list_games())
def test_shipped_trick_rules_stage_to_the_same_legal_cards(name):
    game = trickkit.load_game(name)
    rng = random.Random(7)
    tricks = [st for st in game.rules.steps if st.kind == "tricks"]
    checked = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            step = game.rules.steps[state.step]
            if step.kind == "tricks":
                hand = state.seat_zones[step.hand.index][state.current]
                for test in (step.must_play_if_able, step.always_allowed):
                    if test is None:
                        continue
                    assert hasattr(test, "filter"), f"{name}: {test.text!r} has no staged filter"
                    expected = [c for c in hand if test(state, c)]
                    assert test.filter(state, [None] * test.filter_size, list(hand)) == expected
                    checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 0 or not tricks
