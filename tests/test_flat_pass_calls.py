"""Flat passes over kinds without choices, kinds whose every combination passes, kinds asked
`can` about and filters called (not inlined), an unrolled last choice indexed by place
(`trickkit.dsl.flat_pass`): the same actions, in the same order, with the same charges."""

import random
import sys
from pathlib import Path

import trickkit
from trickkit.dsl.flat_pass import can_kept, flat_constant, flat_filter, flat_product
from trickkit.engine.turns import _plan

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import flat_and_general, states_at, turn_steps

UNROLLED = [
    "def _g7(s, fr, domains):",
    "    out = []",
    "    for a0 in domains[0]:",
    "        if a0 > 1:",
    "            out.append((a0, 'left'))",
    "        if a0 > 2:",
    "            out.append((a0, 'right'))",
    "    return out",
]


def test_a_kind_without_choices_appends_its_one_action() -> None:
    lines = ["    t0 = (s.table_vars[1] > 0)", "    if t0:", "        q1 = [()]", "    else:", "        q1 = ()"]
    assert flat_constant(lines, "q1", "m1") == [
        "    t0 = (s.table_vars[1] > 0)",
        "    if t0:",
        "        out.append(m1)",
        "    else:",
        "        pass",
    ]
    assert flat_constant(["    t0 = q1"], "q1", "m1") is None  # its combinations read otherwise


def test_every_combination_in_product_order() -> None:
    assert flat_product(2, "m3") == ["for a0 in v0:", ["for a1 in v1:", ["out.append(m3[a0][a1])"]]]


def test_a_called_unrolled_filter_appends_by_the_place_of_the_last_value() -> None:
    found = flat_filter("q2 = _g7(s, (), [v0, v1])", UNROLLED, "_g9", ["'left'", "'right'"])
    assert found is not None
    lines, call, by_place = found
    assert lines[0] == "def _g9(s, fr, domains):" and "    out = domains[2]" in lines
    assert "            out.append(m0[a0][0])" in lines and "            out.append(m0[a0][1])" in lines
    assert call.format("m2") == "_g9(s, (), [v0, v1, out, m2])"
    assert by_place
    assert flat_filter("q2 = _g7(s, (), [v0, v1])", UNROLLED, "_g9", ["'up'"]) is None  # a value not in the domain
    assert (
        flat_filter("q2 = _g7(s, (), [v0, v1])", [*UNROLLED[:2], "    return [(1, 2)]", *UNROLLED[2:]], "_g9", [])
        is None
    )


def test_a_kind_asked_can_about_keeps_whether_it_found_one() -> None:
    assert can_kept(["    out.append(m2)"], "q2", "place") == [
        "    q2 = _len(out)",
        "    out.append(m2)",
        "    s.memo[('can', 'place')] = _len(out) > q2",
    ]


def test_saqqara_places_with_a_flat_pass_giving_the_general_passes_actions_charges_and_can() -> None:
    game = trickkit.load_game("saqqara")
    steps = turn_steps(game)
    compared = 0
    for step in steps:
        _, legal, rows, flat = _plan(game, step, -1)
        assert flat is not None and flat[0] is legal.flat  # every turns step of Saqqara: flat
    step = steps[-1]
    _, legal, rows, flat = _plan(game, step, -1)
    rng = random.Random(4)
    kinds: set[str] = set()
    for s in states_at(game, step, range(20), rng):
        (flat_actions, flat_charge, flat_memo), (actions, charge, memo) = flat_and_general(game, s, rows, legal, flat)
        assert [a.text for a in flat_actions] == [a.text for a in actions]
        assert all(a is b for a, b in zip(flat_actions, actions, strict=True))  # the very objects
        assert flat_charge == charge > 0
        assert bool(flat_memo.get(("can", "place"))) == bool(memo.get(("can", "place")))
        kinds.update(a.verb for a in actions)
        compared += 1
    assert compared > 500 and kinds == {"take", "stop", "place", "discard"}
