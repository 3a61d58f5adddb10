"""A kinds pass's flat variant (`trickkit.dsl.flat_pass`, `trickkit.engine.turn_actions.flat_tables`):
the legal actions looked up in tables made once per Game, the same actions, in the same order,
with the same budget charged as the general pass and the engine's mapping of its combinations."""

import random
import sys
from pathlib import Path

import trickkit
from trickkit.dsl.filter_inline import inline_filter
from trickkit.dsl.flat_pass import choice_keys, flat_lines
from trickkit.engine.turns import _plan, actions_of, legal_turns

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import flat_and_general, states_at, turn_steps

FILTER = [
    "def _g1(s, fr, domains):",
    "    out = []",
    "    for a0 in domains[0]:",
    "        for a1 in domains[1]:",
    "            if a0 != a1:",
    "                out.append((a0, a1))",
    "    return out",
]


def test_an_inlined_filter_appends_actions_from_its_table() -> None:
    inlined = inline_filter(FILTER, "[v0, v1]", [1000], "q0 = {}", {}, True)
    assert inlined is not None
    lines = flat_lines(inlined, "m2", 2, False)
    assert lines is not None
    assert "            out.append(m2[a0][a1])" in lines
    assert not any("q100" in line for line in lines)  # no list of combinations left
    rows = flat_lines(["q1001 = []", "for a0 in v0:", "    q1001.append((a0, ))", "q3 = (q1001, v1)"], "m0", 1, True)
    assert rows == ["for a0 in v0:", "    out += m0[a0]"]


def test_a_filter_using_its_combinations_otherwise_has_no_flat_form() -> None:
    inlined = inline_filter(FILTER, "[v0, v1]", [1000], "q0 = {}", {}, True)
    assert inlined is not None
    assert flat_lines([*inlined[:-1], "t5 = len(q1000)", inlined[-1]], "m0", 2, False) is None
    assert flat_lines(inlined, "m0", 3, False) is None  # not the kind's choices in order
    assert flat_lines(["q0 = _g4(s, (), [v0])"], "m0", 1, False) is None  # called, not inlined


def test_choice_keys() -> None:
    assert choice_keys(None, True) == "card"
    assert choice_keys([0, 1, 2, 3], False) == (0, 1, 2, 3)
    assert choice_keys(None, False) is None  # an int choice of no constant domain
    assert choice_keys(["left", "right"], False) is None
    assert choice_keys([-1, 2], False) is None
    assert choice_keys([True, False], False) is None


def test_love_letter_has_a_flat_pass_giving_the_general_passes_actions_and_charges() -> None:
    game = trickkit.load_game("love_letter")
    step = turn_steps(game)[0]
    _, legal, rows, flat = _plan(game, step, -1)
    assert flat is not None and flat[0] is legal.flat
    rng = random.Random(3)
    compared = 0
    for s in states_at(game, step, range(30), rng):
        (flat_actions, flat_charge, _), (actions, charge, _) = flat_and_general(game, s, rows, legal, flat)
        assert [a.text for a in flat_actions] == [a.text for a in actions]
        assert all(a is b for a, b in zip(flat_actions, actions, strict=True))  # the very objects
        assert flat_charge == charge > 0
        compared += 1
    assert compared > 500


def test_a_flat_pass_that_fails_leaves_it_to_the_general_pass() -> None:
    game = trickkit.load_game("love_letter")
    step = turn_steps(game)[0]
    kinds, legal, rows, flat = _plan(game, step, -1)
    s = game.new_initial_state(seed=5)
    expected = s.legal_actions()
    s.memo, s.budget = {}, 1000
    actions_of(game, s, rows, legal(s, ()))
    charge = 1000 - s.budget
    bad: tuple[list[object], ...] = ([], [], [])  # tables that cannot be indexed: the flat pass fails
    game._turn_kind_actions[id(step)][1][0] = (kinds, legal, rows, (flat[0], bad, lambda s, _: flat[0](s, bad)))
    s.memo, s.budget = None, 1000
    assert [a.text for a in legal_turns(game, step, s)] == [a.text for a in expected]
    assert 1000 - s.budget == charge  # the failed flat pass's charges undone
