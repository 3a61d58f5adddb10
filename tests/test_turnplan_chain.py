"""Planned steps enter the steps after them (`trickkit.engine.turnplan._advance`): a round that
cycles through choose and turns steps inside a ``repeat:`` block never goes back through the
step-kind dispatch, plays exactly as the general path, counts the steps it enters without a
decision, and a rule failing in a step so entered is still a located error that leaves the
state as it was."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.engine.state import MAX_STEPS_WITHOUT_DECISION
from trickkit.errors import DSLRuntimeError

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import dispatched, step_both

CYCLE = """
format: 1
name: cycle
title: Cycle
players: {min: 2, max: 3, default: 2}
deck:
  - rank: {from: 1, to: 12}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  picked: {owner: seat, visibility: public}
  table: {owner: table, visibility: public}
table_variables:
  zero: {initial: 0}
game_over: "true"
score: "0"
round:
  - deal: {count: 3}
  - repeat:
      REPEAT
      steps:
        - choose: {verb: pick, to: picked, count: "COUNT"}
        - turns:
            first: "0"
            until: all(len(p) == 0 for p in picked)
            on_turn_start: |
              START
            actions:
              lay:
                text: "lay {card}"
                choices: {card: "picked[current_player]"}
                effect: |
                  move(card, picked[current_player], table)
                  end_turn()
"""


def _cycle(tmp_path: Path, repeat: str = "count: 3", count: str = "1", start: str = "zero = zero") -> trickkit.Game:
    text = textwrap.dedent(CYCLE).lstrip()
    text = text.replace("REPEAT", repeat).replace("COUNT", count).replace("START", start)
    path = tmp_path / "cycle.yaml"
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


def test_the_pick_and_place_cycle_enters_its_steps_without_the_dispatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _cycle(tmp_path)
    seen = dispatched(game, monkeypatch)
    state = game.new_initial_state(seed=1)
    assert seen == ["deal", "repeat", "choose"]  # the game's start: the general path
    seen.clear()
    decisions = 0
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
        decisions += 1
    assert decisions == 3 * 4  # 3 passes of 2 picks and 2 lays
    assert seen == []  # every later step (turns, repeat end, choose) entered by the planned functions
    assert state.round == 1


def test_the_cycle_plays_as_the_general_path_in_six_nimmt() -> None:
    game = trickkit.load_game("six_nimmt", players=3)
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    verbs = set()
    while not state.is_terminal() and state.round == 1:
        action, slow = step_both(state, rng.choice)  # slow: the general path, entering by the dispatch
        verbs.add(action.verb)
        assert state.to_json() == slow.to_json()
        assert state.budget == slow.budget  # the steps entered charge the budget alike
        assert [a.text for a in state.legal_actions()] == [a.text for a in slow.legal_actions()]
        assert state.current_player() == slow.current_player()
    assert state.round == 2 and verbs == {"pick", "take"}  # a whole hand, rows taken too


@pytest.mark.parametrize(
    "rule, failing, message",
    [
        # the turns step entered by the last pick of the second pass (table: 2 cards)
        ({"start": "if len(table) == 2 { zero = 1 // zero }"}, 6, r"\.turns\.on_turn_start: ZeroDivisionError"),
        # the choose step of the second pass, entered by the last lay of the first
        ({"count": "1 - len(table)"}, 4, r"\.choose\.count: a seat cannot choose -1 cards"),
        # the end of the repeat block, entered by the last lay of the first pass
        ({"repeat": "until: 1 // (2 - len(table)) > 9"}, 4, r"\.until: ZeroDivisionError"),
    ],
)
def test_a_rule_failing_in_a_step_entered_by_a_planned_step_is_located(
    tmp_path: Path, rule: dict[str, str], failing: int, message: str
) -> None:
    game = _cycle(tmp_path, **rule)
    state = game.new_initial_state(seed=1)
    for _ in range(failing - 1):
        state.apply_action(state.legal_actions()[0])
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"cycle\.yaml:\d+:\d+: \$\.round\[1\]\.repeat(\.steps\[\d\])?" + message):
        state.apply_action(state.legal_actions()[0])
    assert state.to_json() == before
    assert len(state.history()) == failing - 1


def test_a_cycle_that_never_asks_again_stops_by_the_same_counted_limit(tmp_path: Path) -> None:
    game = _cycle(tmp_path, repeat="until: 'false'")
    state = game.new_initial_state(seed=1)
    for _ in range(2 * 3 + 2 * 3 - 1):  # 3 passes: every card picked and laid but the last
        state.apply_action(state.legal_actions()[0])
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=f"{MAX_STEPS_WITHOUT_DECISION} steps ran without asking"):
        state.apply_action(state.legal_actions()[0])  # then passes of nobody to pick, nothing to lay
    assert state.to_json() == before


ROUNDS = """
format: 1
name: rounds
title: Rounds
players: {min: 2, max: 2, default: 2}
deck:
  - rank: {from: 1, to: 6}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  table: {owner: table, visibility: public}
table_variables:
  laid: {initial: 0, reset: round}
  lays: {initial: 0, reset: turn}
  seen: {initial: [], reset: turn}
seat_variables:
  won: {initial: 0}
game_over: won[0] + won[1] >= 3
score: won[seat]
round:
  - deal: {count: 2}
  - effect: |
      SETUP
  - turns:
      first: "0"
      until: len(table) == 4
      actions:
        lay:
          text: "lay {card}"
          choices: {card: "hand[current_player]"}
          effect: |
            move(card, hand[current_player], table)
            laid += 1
            lays += 1
            seen = [card.rank]
            end_turn()
  - effect: |
      won[table[-1].rank % 2] += 1
"""


def _rounds(tmp_path: Path, setup: str = "laid = laid") -> trickkit.Game:
    path = tmp_path / "rounds.yaml"
    path.write_text(textwrap.dedent(ROUNDS).lstrip().replace("SETUP", setup), "utf-8")
    return trickkit.load_game(path)


def test_a_round_and_the_next_deal_and_effects_are_entered_without_the_dispatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _rounds(tmp_path)
    seen = dispatched(game, monkeypatch)
    state = game.new_initial_state(seed=3)
    assert seen == ["deal", "effect", "turns"]  # the game's start: the general path
    seen.clear()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert seen == []  # the round's end effect, the game_over test, the next deal, effect and turns: planned
    assert state.round == 3 and sum(state.scores()) == 3
    assert state.step == len(game.rules.steps)  # where the general path leaves a finished game


def test_the_first_turn_of_the_next_round_puts_back_the_per_turn_variables(tmp_path: Path) -> None:
    game = _rounds(tmp_path)
    state = game.new_initial_state(seed=3)
    while not state.is_terminal():
        _, slow = step_both(state, lambda legal: legal[0])  # slow: the general path, entering by the dispatch
        assert state.table_vars == slow.table_vars  # a list among them: put back at every turn's start
        assert state.to_json() == slow.to_json()
    assert state.round == 3


@pytest.mark.parametrize(
    "name, players",
    # Love Letter: a deal, effects and turns; Trumps: per-turn variables, a list among them, put
    # back at the first turn of a round too
    [("love_letter", 2), ("love_letter", 3), ("love_letter", 4), ("trumps", None)],
)
def test_rounds_play_as_the_general_path(name: str, players: int | None) -> None:
    game = trickkit.load_game(name, players=players) if players else trickkit.load_game(name)
    rng = random.Random(players)
    state = game.new_initial_state(seed=players or 7)
    while not state.is_terminal() and len(state.history()) < 600:
        _, slow = step_both(state, rng.choice)  # slow: the general path, entering by the dispatch
        assert state.to_json() == slow.to_json()
        assert (state.round, state.step, state.dealer, state.current_player()) == (
            slow.round,
            slow.step,
            slow.dealer,
            slow.current_player(),
        )
        assert state.budget == slow.budget  # the steps entered charge the budget alike
        assert state.seat_vars == slow.seat_vars and state.table_vars == slow.table_vars
        assert state.seat_zones == slow.seat_zones and state.table_zones == slow.table_zones
        assert state.known == slow.known
        assert [a.text for a in state.legal_actions()] == [a.text for a in slow.legal_actions()]
    assert state.round > 1


def test_a_rule_failing_in_the_next_rounds_setup_is_located(tmp_path: Path) -> None:
    game = _rounds(tmp_path, setup="if won[0] + won[1] == 1 { laid = 1 // laid }")  # round 2: laid is 0 again
    state = game.new_initial_state(seed=3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"rounds\.yaml:\d+:\d+: \$\.round\[1\]\.effect: ZeroDivisionError"):
        state.apply_action(state.legal_actions()[0])  # the round's last lay: its end, then the next round's setup
    assert state.to_json() == before
    assert state.round == 1 and len(state.history()) == 3


def test_a_first_seat_that_is_no_number_in_the_next_round_is_located(tmp_path: Path) -> None:
    # the planned enter calls the ``first`` rule bare, without its hook: it checks the result
    # itself (``true % 2`` would be a seat; the hook refuses a bool)
    path = tmp_path / "rounds.yaml"
    text = textwrap.dedent(ROUNDS).lstrip().replace("SETUP", "laid = laid")
    path.write_text(text.replace('first: "0"', "first: if won[0] + won[1] == 1 then true else 0"), "utf-8")
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"rounds\.yaml:\d+:\d+: \$\.round\[2\]\.turns\.first: expected an int"):
        state.apply_action(state.legal_actions()[0])  # the round's last lay: its end, then the next round's turns
    assert state.to_json() == before
    assert state.round == 1 and len(state.history()) == 3
