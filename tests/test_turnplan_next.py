"""The end of a turn and the next one's start as one generated call (`trickkit.engine.fused`'s
``fused_next``, run by the planned apply of `trickkit.engine.turnplan`): made for a turns step
with an ``until_after_turn`` and an ``on_turn_start`` (Love Letter's turns), it plays as the
general path action by action, and a rule failing inside it is still a located error that
leaves the state as it was."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.errors import DSLRuntimeError

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import step_both

TINY = """
format: 1
name: tiny
title: Tiny
players: {min: 2, max: 3, default: 3}
deck:
  - rank: {from: 1, to: 9}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  table: {owner: table, visibility: public}
table_variables:
  zero: {initial: 0}
seat_variables:
  skip: {initial: false}
  PERTURN
definitions:
  me: current_player
game_over: "true"
score: "len(table)"
round:
  - deal: {count: 1, rest: stock}
  - turns:
      first: "0"
      until_after_turn: ENDED
      on_turn_start: |
        START
      actions:
        play:
          text: "play {card}"
          choices: {card: "hand[me]"}
          allowed: "true"
          effect: |
            move(card, hand[me], table)
            skip[(me + 1) % num_players] = len(table) % 4 == 1
            end_turn()
"""


def _tiny(
    tmp_path: Path,
    ended: str = "len(stock) == 0",
    start: str = "if skip[me] { skip[me] = false\n  end_turn() } else { move(stock[-1], stock, hand[me]) }",
    per_turn: str = "",
) -> trickkit.Game:
    text = textwrap.dedent(TINY).lstrip().replace("ENDED", ended).replace("PERTURN", per_turn)
    text = text.replace("START", start.replace("\n", "\n        "))
    path = tmp_path / "tiny.yaml"
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


def _fused(game: trickkit.Game) -> list[object]:
    return [st.fused_next for st in game._steps if st.kind == "turns"]


def test_the_next_turn_is_generated_and_plays_as_the_general_path(tmp_path: Path) -> None:
    game = _tiny(tmp_path)
    assert all(_fused(game))
    rng = random.Random(1)
    skipped = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            before = state.turn_no
            _, slow = step_both(state, rng.choice)  # slow: the general path
            skipped += state.turn_no - before > 1  # a turn ended as it began (the next seat skipped)
            assert state.to_json() == slow.to_json()
            assert state.budget == slow.budget
            assert [a.text for a in state.legal_actions()] == [a.text for a in slow.legal_actions()]
    assert skipped > 3


def test_love_letters_turns_have_it_and_a_game_counting_coverage_has_not() -> None:
    assert all(_fused(trickkit.load_game("love_letter")))
    assert not any(_fused(trickkit.load_game("love_letter", coverage=True)))


@pytest.mark.parametrize(
    "rule",
    [
        {"ended": "if len(stock) > 0 then false else null"},  # a result that may be null: the hook checks it
        {"per_turn": "drawn: {initial: 0, reset: turn}"},  # per-turn variables: the planned apply resets them
    ],
)
def test_a_step_it_does_not_fit_is_planned_as_before(tmp_path: Path, rule: dict[str, str]) -> None:
    game = _tiny(tmp_path, **rule)
    state = game.new_initial_state(seed=2)
    twin = state.clone()
    state.apply_action(state.legal_actions()[0])
    twin._perform(twin.legal_actions()[0], game._apply_general[twin.step])
    assert state.to_json() == twin.to_json()
    if "per_turn" not in rule:
        assert not any(_fused(game))


@pytest.mark.parametrize(
    "rule, message",
    [
        ({"ended": "len(stock) == 0 or 1 // zero == 1"}, r"until_after_turn: ZeroDivisionError"),
        ({"start": "if len(table) > 0 { zero = 1 // zero }"}, r"on_turn_start: ZeroDivisionError"),
        (
            {"start": "if len(table) > 0 { move(stock[0], table, hand[me]) }"},
            r"on_turn_start: ValueError: move\(\): the card is not in the zone",
        ),
    ],
)
def test_a_rule_failing_inside_it_is_located_and_leaves_the_state_as_it_was(
    tmp_path: Path, rule: dict[str, str], message: str
) -> None:
    game = _tiny(tmp_path, **rule)
    assert all(_fused(game))
    state = game.new_initial_state(seed=1)
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: \$\.round\[1\]\.turns\." + message):
        state.apply_action(state.legal_actions()[0])
    assert state.to_json() == before


def test_turns_that_end_as_they_begin_forever_fail_located(tmp_path: Path) -> None:
    game = _tiny(tmp_path, ended="false", start="if len(table) > 0 { end_turn() }")
    assert all(_fused(game))
    state = game.new_initial_state(seed=1)
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: .*turns in a row were ended by on_turn_start"):
        state.apply_action(state.legal_actions()[0])
    assert state.history() == []
