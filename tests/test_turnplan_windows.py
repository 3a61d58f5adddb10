"""Planned turns open a reaction window with its ``responders`` and ``resolve`` rules bare
(Trumps' speed, issue 32): nobody to respond resolves the action at once, responders are asked
in order, and a ``responders`` result that is no list of different seats still fails located."""

from __future__ import annotations

import textwrap

import pytest

import trickkit
from trickkit.errors import DSLRuntimeError

GAME = """
format: 1
name: windows
title: Windows
players: {min: 3, max: 3, default: 3}
deck:
  - rank: {from: 1, to: 6}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  pending: {owner: table, visibility: public}
  table: {owner: table, visibility: public}
  out: {owner: table, visibility: public}
table_variables:
  nobody: null
game_over: "true"
score: "0"
round:
  - deal: {count: 2}
  - turns:
      first: "0"
      until: all(len(h) == 0 for h in hand)
      actions:
        play:
          text: "play {card}"
          choices: {card: "hand[current_player]"}
          opens: veto
          effect: |
            move(card, hand[current_player], pending)
      reactions:
        veto:
          responders: RESPONDERS
          actions:
            veto:
              text: veto
              effect: |
                move_all(pending, out)
                end_turn()
          resolve: |
            move_all(pending, table)
            end_turn()
"""


def _game(tmp_path, responders):
    path = tmp_path / "windows.yaml"
    path.write_text(textwrap.dedent(GAME).lstrip().replace("RESPONDERS", repr(responders)), "utf-8")
    return trickkit.load_game(path)


DEAL = [[["1", "2"], ["3", "4"], ["5", "6"]]]


def test_nobody_to_respond_resolves_the_action_at_once(tmp_path):
    game = _game(tmp_path, "if len(pending) > 1 then [1] else []")
    state = game.new_initial_state(seed=1, deals=DEAL)
    state.apply_action("play 1")
    texts = game.rules.deck.texts
    assert [texts[c] for c in state.table_zones[2]] == ["1"]  # on the table: resolved
    assert state.current_player() == 1 and [a.text for a in state.legal_actions()] == ["play 3", "play 4"]


def test_responders_are_asked_in_order_and_a_response_closes_the_window(tmp_path):
    game = _game(tmp_path, "[2, 1]")
    state = game.new_initial_state(seed=1, deals=DEAL)
    state.apply_action("play 2")
    assert state.current_player() == 2 and [a.text for a in state.legal_actions()] == ["veto", "pass"]
    state.apply_action("pass")
    assert state.current_player() == 1
    state.apply_action("veto")
    texts = game.rules.deck.texts
    assert [texts[c] for c in state.table_zones[3]] == ["2"]  # out: vetoed
    assert state.current_player() == 1 and [a.text for a in state.legal_actions()] == ["play 3", "play 4"]


@pytest.mark.parametrize("responders", ["[1, 1]", "nobody"])
def test_responders_that_are_no_list_of_different_seats_fail_located(tmp_path, responders):
    game = _game(tmp_path, responders)
    state = game.new_initial_state(seed=1, deals=DEAL)
    with pytest.raises(DSLRuntimeError, match=r"windows\.yaml:\d+:\d+: .*responders.*different numbers"):
        state.apply_action("play 1")
    assert state.history() == [] and [a.text for a in state.legal_actions()] == ["play 1", "play 2"]
