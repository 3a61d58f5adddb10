"""The planned turns and choose steps (`trickkit.engine.turnplan`): State runs them, they agree
with the general path (`trickkit.engine.turns`, `trickkit.engine.choose`) action by action on
random play of every shipped game using them (state, next legal actions and, for turns, the
evaluation budget), and a rule failing inside one is still a located error that leaves the
state as it was."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.engine import turns
from trickkit.errors import DSLRuntimeError

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import step_both

PLANNED_GAMES = ["love_letter", "crazy_eights", "six_nimmt", "trumps", "saqqara", "hearts", "euchre"]


def _planned(game: trickkit.Game, kind: str) -> list[int]:
    return [i for i, st in enumerate(game.rules.steps) if st.kind == kind]


def test_state_runs_the_planned_functions_of_turns_and_choose_steps():
    game = trickkit.load_game("six_nimmt")
    for kind in ("turns", "choose"):
        assert _planned(game, kind), kind  # 6 nimmt! has both: the loop below has steps to check
        for i in _planned(game, kind):
            assert game._apply_fns[i] is not game._apply_general[i]
            assert game._legal_fns[i] is not game._legal_general[i]


def test_a_game_counting_coverage_runs_every_rule_through_its_hook():
    game = trickkit.load_game("love_letter", coverage=True)
    assert _planned(game, "turns")  # the loop below has steps to check
    for i in _planned(game, "turns"):
        assert game._apply_fns[i] is game._apply_general[i]


@pytest.mark.parametrize("name", PLANNED_GAMES)
def test_planned_steps_agree_with_the_general_path(name):
    game = trickkit.load_game(name)
    rng = random.Random(3)
    checked = 0
    for g in range(4 if name != "trumps" else 1):
        state = game.new_initial_state(seed=g)
        while not state.is_terminal():
            step = game.rules.steps[state.step]
            if step.kind in ("turns", "choose"):
                legal, general = state.clone(), state.clone()
                legal._legal = general._legal = None
                assert game._legal_fns[state.step](legal) == game._legal_general[state.step](general)
                assert legal.budget == general.budget
            if step.kind in ("turns", "choose"):
                _, slow = step_both(state, rng.choice)  # slow: the general path
                assert state.to_json() == slow.to_json()
                if step.kind == "turns":  # (a choose step finds the next legal actions within the action)
                    assert state.budget == slow.budget
                assert [a.text for a in state.legal_actions()] == [a.text for a in slow.legal_actions()]
                assert state.current_player() == slow.current_player()
                assert state.scores() == slow.scores()
                checked += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 20


TINY = """
format: 1
name: tiny
title: Tiny
players: {min: 2, max: 3, default: 2}
deck:
  - rank: {from: 1, to: 6}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  table: {owner: table, visibility: public}
table_variables:
  zero: {initial: 0}
  flag: {initial: false}
seat_variables:
  drew: {initial: 0, reset: turn}
game_over: "true"
score: "0"
round:
  - deal: {count: 3}
  - turns:
      first: "0"
      until: UNTIL
      on_turn_start: |
        START
      actions:
        play:
          text: "play {card}"
          choices: {card: "hand[current_player]"}
          allowed: "true"
          effect: |
            drew[current_player] += 1
            EFFECT
            move(card, hand[current_player], table)
            end_turn()
"""


def _tiny(tmp_path, until="all(len(h) == 0 for h in hand)", start="zero = zero", effect="zero = zero"):
    text = textwrap.dedent(TINY).lstrip()
    text = text.replace("UNTIL", until).replace("START", start).replace("EFFECT", effect)
    path = tmp_path / "tiny.yaml"
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


def test_per_turn_variables_start_afresh_on_the_planned_path(tmp_path):
    game = _tiny(tmp_path)
    state = game.new_initial_state(seed=1)
    state.apply_action(state.legal_actions()[0])
    assert state.seat_vars[0] == [0, 0]  # seat 0 played (drew 1), then seat 1's turn reset it


def test_a_per_turn_list_variable_starts_each_turn_as_a_list_of_its_own(tmp_path):
    text = textwrap.dedent(TINY).lstrip().replace("drew: {initial: 0, reset: turn}", "drew: {initial: 0}")
    text = text.replace(
        "  flag: {initial: false}\n", "  flag: {initial: false}\n  marks: {initial: [0, 0], reset: turn}\n"
    )
    text = text.replace("UNTIL", "all(len(h) == 0 for h in hand)").replace("START", "zero = zero")
    path = tmp_path / "tiny.yaml"
    path.write_text(text.replace("EFFECT", "marks[0] = marks[0] + 1"), "utf-8")
    game = trickkit.load_game(path)
    assert not any(v.per_turn for v in game.rules.seat_vars)  # the planned path resets it inline
    state = game.new_initial_state(seed=1)
    for _ in range(3):  # each turn changes its own list in place; the next starts from [0, 0]
        state.apply_action(state.legal_actions()[0])
        assert state.table_vars[2] == [0, 0]
    assert [v.initial for v in game.rules.table_vars if v.name == "marks"] == [[0, 0]]


def test_a_per_turn_list_of_single_values_is_reset_by_a_plain_copy(monkeypatch):
    # Trumps' `used: []`: a copy, no deep copy (`fresh`) at each turn of the planned path
    from trickkit.engine import layout, turnplan

    calls = []
    monkeypatch.setattr(turnplan, "fresh", lambda v: calls.append(v) or layout.fresh(v))
    game = trickkit.load_game("trumps")
    rng = random.Random(3)
    state = game.new_initial_state(seed=3)
    turns = 0
    while not state.is_terminal() and turns < 200:
        state.apply_action(rng.choice(state.legal_actions()))
        turns += 1
    assert state.turn_no > 10 and calls == []


@pytest.mark.parametrize(
    "rule, message",
    [
        ({"effect": "if len(table) == 0 { zero = 1 // zero }"}, r"play\.effect: ZeroDivisionError"),
        ({"start": "if len(table) > 0 { zero = 1 // zero }"}, r"on_turn_start: ZeroDivisionError"),
        ({"until": "if len(table) > 0 then null else false"}, r"until: expected true or false, got None"),
    ],
)
def test_a_rule_failing_on_the_planned_path_is_located_and_leaves_the_state_as_it_was(tmp_path, rule, message):
    game = _tiny(tmp_path, **rule)
    state = game.new_initial_state(seed=1)
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: \$\.round\[1\]\.turns\..*" + message):
        state.apply_action(state.legal_actions()[0])
    assert state.to_json() == before
    assert not state.is_terminal()


def test_turns_that_end_as_they_begin_forever_fail_located_on_the_planned_path(tmp_path):
    game = _tiny(tmp_path, start="if len(table) > 0 { end_turn() }")
    state = game.new_initial_state(seed=1)
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: .*turns in a row were ended by on_turn_start"):
        state.apply_action(state.legal_actions()[0])
    assert state.history() == []


def test_an_action_never_made_is_made_by_the_general_mapping_on_the_planned_path(monkeypatch):
    # Trumps' turns have many kinds: their actions are looked up by combination; with the
    # combinations' caches emptied, the next legal actions are made anew, the same
    from trickkit.engine import turnplan

    game = trickkit.load_game("trumps")
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    for _ in range(60):
        state.apply_action(rng.choice(state.legal_actions()))
    while "draw" not in [a.text for a in state.legal_actions()]:  # the draw: the same seat plays next
        state.apply_action(rng.choice(state.legal_actions()))
    twin = state.clone()
    action = next(a for a in state.legal_actions() if a.text == "draw")
    made = []
    monkeypatch.setattr(turnplan, "actions_of", lambda *args: made.append(1) or turns.actions_of(*args))
    twin.apply_action(action.text)
    want = [a.text for a in twin.legal_actions()]
    emptied = 0
    for plans in game._turn_kind_actions.values():
        for plan in plans[1]:
            for _, _, cache in plan[2] if plan is not None else ():
                emptied += len(cache)
                cache.clear()
    assert emptied > 0
    state.apply_action(action)
    assert [a.text for a in state.legal_actions()] == want and made  # made anew
