"""When a turns step ends: ``until`` (checked as the step starts, after each action and after the
start-of-turn block) and ``until_after_turn`` (checked only once a turn has ended)."""

from __future__ import annotations

import textwrap

import pytest

import trickkit

GAME = """\
format: 1
name: drawing
title: Drawing
players: {min: 2, max: 2}
deck:
  - rank: {from: 1, to: 4}
    text: "c{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  pile: {owner: table, visibility: public}
table_variables:
  discards: {initial: 0}
  starts: {initial: 0}
round:
  - deal: {count: 1, to: hand, rest: stock}
  - turns:
      first: "1"
      UNTIL
      on_turn_start: move(stock[-1], stock, hand[current_player])
      actions:
        discard:
          text: "discard {card}"
          choices: {card: "hand[current_player]"}
          effect: |
            move(card, hand[current_player], pile)
            discards += 1
            end_turn()
  - turns:
      until: "true"
      on_turn_start: starts += 1
      actions:
        never:
          effect: end_turn()
game_over: "true"
score: discards
"""


def play(tmp_path, until: str):
    path = tmp_path / "drawing.yaml"
    path.write_text(GAME.replace("UNTIL", until), "utf-8")
    state = trickkit.load_game(path).new_initial_state(seed=0)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


def test_until_is_checked_after_the_start_of_turn_block(tmp_path):
    # the second turn's draw empties the stock: `until` ends the step before seat 0 plays it
    state = play(tmp_path, "until: len(stock) == 0")
    assert [seat for seat, _ in state._history] == [1]
    assert state.observation(0)["variables"]["discards"] == 1


def test_until_after_turn_is_checked_only_once_a_turn_has_ended(tmp_path):
    # "the round ends after the turn that empties the deck": seat 0 plays the turn that drew the last card
    state = play(tmp_path, "until_after_turn: len(stock) == 0")
    assert [seat for seat, _ in state._history] == [1, 0]
    assert state.observation(0)["variables"]["discards"] == 2


def test_a_step_whose_until_holds_as_it_starts_runs_no_turn(tmp_path):
    # the second step's `until` is true from the start: its on_turn_start never runs
    state = play(tmp_path, "until_after_turn: len(stock) == 0")
    assert state.observation(0)["variables"]["starts"] == 0


def test_until_after_turn_is_a_bool_rule_located_when_wrong(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(GAME.replace("UNTIL", "until_after_turn: len(stock)"), "utf-8")
    with pytest.raises(trickkit.RulesetError, match=r"until_after_turn"):
        trickkit.load_game(path)


def test_the_schema_documents_until_after_turn():
    from trickkit.rules.schema_check import load_schema

    turns = load_schema()["$defs"]["turnsStep"]["properties"]
    assert "once a turn has ended" in turns["until_after_turn"]["description"]
    assert "start-of-turn" in turns["until"]["description"]
    assert textwrap.dedent(turns["until_after_turn"]["examples"][0])


def test_until_a_plain_table_variable_is_read_by_the_planned_step_and_checked_after_each_action(tmp_path):
    # `until: done`: the planned turns read the variable itself (no call); it is set by the
    # second discard, which empties the stock, so the step ends after that action
    text = GAME.replace("UNTIL", "until: done").replace(
        "  starts: {initial: 0}", "  starts: {initial: 0}\n  done: {initial: false}"
    )
    text = text.replace("discards += 1\n", "discards += 1\n            if len(stock) == 0 { done = true }\n", 1)
    path = tmp_path / "done.yaml"
    path.write_text(text, "utf-8")
    game = trickkit.load_game(path)
    until = game.rules.steps[1].until
    assert until.fn.table_var == [v.name for v in game.rules.table_vars].index("done")
    state = game.new_initial_state(seed=0)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert [seat for seat, _ in state._history] == [1, 0]
    # a rule that computes something is no plain read
    assert not hasattr(trickkit.load_game("trumps").rules.steps[0].until.fn, "table_var")
