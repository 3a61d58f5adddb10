"""Bridge's speed (issue 29): ``index_of`` over a constant list is one hashed look-up, and a
tricks step with an ``actor`` (declarer playing dummy's cards) starts each trick and names the
seat that chose a card inside its generated apply. Each gives what the code it replaces gives,
and charges the evaluation budget alike."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import trickkit
from trickkit.dsl.runtime import EvaluationLimit

sys.path.insert(0, str(Path(__file__).parent))
from test_codegen_tight import _compiler
from test_dsl import FakeState as _FakeState
from test_fused import general_twin

FakeState: Any = _FakeState  # (an untyped test helper)


def _both(expr: str, xs: list[object], score: object, budget: int = 1000) -> list[tuple[object, int]]:
    """``expr`` (naming LIST) over the constant list ``xs`` and over the same list held in a
    variable (the general helper): (value, budget left) of each."""
    out = []
    for code in (expr.replace("LIST", repr(xs)), expr.replace("LIST", "used")):
        fn, _, _ = _compiler().expression(code)
        state = FakeState(seat_vars=[[score, 0, 0]])
        state.table_vars = [[*xs]]
        state.budget = budget
        out.append((fn(state, []), state.budget))
    return out


def test_index_of_a_constant_list_is_a_hashed_look_up() -> None:
    c = _compiler()
    c.expression("index_of([3, 5, 3, 7], score[0])")
    source = c.source()
    assert "_charged(" not in source and "s.budget -= 4" in source, source
    found = re.search(r"\((_k[0-9]+)\[", source)
    assert found is not None, source
    name = found.group(1)
    assert c.env[name] == {3: 0, 5: 1, 7: 3}, source  # the first position of each value


@pytest.mark.parametrize("score", [3, 5, 7, 9, None])
def test_index_of_a_constant_list_gives_and_charges_what_the_general_helper_does(score: int | None) -> None:
    fast, general = _both("index_of(LIST, score[0])", [3, 5, 3, 7], score)
    assert fast == general
    assert fast[0] == {3: 0, 5: 1, 7: 3, 9: None, None: None}[score]
    assert fast[1] == 1000 - 4


def test_index_of_a_constant_list_by_a_truth_value_finds_the_number_it_equals() -> None:
    fast, general = _both("index_of(LIST, score[0] == 0)", [0, 1], 0)
    assert fast == general == (1, 998)  # true == 1


def test_index_of_a_constant_list_runs_out_of_budget_as_the_general_helper_does() -> None:
    for expr in ("index_of([3, 5, 3, 7], score[0])", "index_of(used, score[0])"):
        fn, _, _ = _compiler().expression(expr)
        state = FakeState(seat_vars=[[7, 0, 0]])
        state.table_vars = [[3, 5, 3, 7]]
        state.budget = 3
        with pytest.raises(EvaluationLimit):
            fn(state, [])


def test_index_of_a_constant_list_of_lists_keeps_the_general_helper() -> None:
    c = _compiler()
    c.expression("index_of([[1], [2]], used)")
    assert "_charged(s, _fn_index_of" in c.source()


def test_bridges_play_starts_tricks_and_names_the_chooser_in_its_generated_functions() -> None:
    game = trickkit.load_game("bridge")
    step = next(st for st in game.rules.steps if st.kind == "tricks")
    assert step.fused_apply is not None and step.fused_start is not None
    source = game.rules.generated_source
    apply = source.split(f"def {step.fused_apply.__name__}(")[1].split("\ndef ")[0]
    assert "_start_trick(" not in apply and "_end_tricks(" not in apply, apply
    assert "_charged(" not in source, source  # index_of(all_calls, ...): looked up
    # the card of dummy is declarer's choice: the history names him
    rng = random.Random(3)
    s = game.new_initial_state(seed=5)
    while s.current_player() == s.current or s.step != game.rules.steps.index(step):
        s.apply_action(rng.choice(s.legal_actions()))
    chooser = s.current_player()
    assert chooser == s.table_vars[2] and s.current == (chooser + 2) % 4  # declarer for dummy
    s.apply_action(s.legal_actions()[0])
    assert s._history[-1][0] == chooser


def test_bridge_on_its_generated_functions_and_on_the_general_path_agree_on_whole_games() -> None:
    """Lockstep over whole games: same legal actions, the same seat named in the history
    for each card, the same state and budget left at every decision."""
    game = trickkit.load_game("bridge", boards=2)
    twin = general_twin(game)
    rng = random.Random(7)
    for seed in range(4):
        a, b = game.new_initial_state(seed=seed), twin.new_initial_state(seed=seed)
        while not a.is_terminal():
            legal = a.legal_actions()
            assert [x.text for x in legal] == [x.text for x in b.legal_actions()]
            choice = rng.choice(legal)
            a.apply_action(choice)
            b.apply_action(choice.text)
            assert (a.current_player(), a.playing_for(), a.budget, a._history) == (
                b.current_player(),
                b.playing_for(),
                b.budget,
                b._history,
            ), (seed, a.history())
        assert b.is_terminal() and a.scores() == b.scores()
