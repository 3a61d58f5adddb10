"""The steps after a finished step are entered by their planned enters (`trickkit.engine.enterplan`,
`trickkit.engine.turnplan`): ``when:`` markers, tricks steps and auctions too, so a Euchre hand
never goes through the step-kind dispatch. Every shipped game plays exactly as on the general
path (the same states, legal actions and budget), and a rule failing in a step so entered is a
located error that leaves the state as it was."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.errors import DSLRuntimeError

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import dispatched, step_both

ENTERS = """
format: 1
name: enters
title: Enters
players: {min: 4, max: 4, default: 4}
deck:
  - {suit: {R: red, B: blue}, rank: {from: 1, to: 6}, text: "{suit}{rank}"}
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
table_variables:
  bid: {initial: null, type: str, reset: round}
  bidder: {initial: null, type: seat, reset: round}
round:
  - deal: {count: 3, to: hand, rest: stock}
  - auction:
      first: left_of(dealer)
      calls: "['go']"
      text: "{call}"
      pass: pass
      ends_after_passes: "ENDS"
      passed_out_after: "OUT"
      contract: bid
      caller: bidder
  - when: "WHEN"
    tricks:
      count: "COUNT"
      leader: "LEADER"
      must_play_if_able: len(trick) == 0 or card.suit == trick[0].suit
      winner: highest(p for p in trick if p.suit == trick[0].suit by p.rank)
game_over: round == 2
score: "0"
"""

DEFAULTS = {"ENDS": "0", "OUT": "4", "WHEN": "true", "COUNT": "3", "LEADER": "left_of(dealer)"}


def _enters(tmp_path: Path, **rules: str) -> trickkit.Game:
    text = textwrap.dedent(ENTERS).lstrip()
    for key, default in DEFAULTS.items():
        text = text.replace(key, rules.get(key, default))
    path = tmp_path / "enters.yaml"
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


def test_a_euchre_game_enters_every_step_after_its_start_without_the_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    game = trickkit.load_game("euchre")
    seen = dispatched(game, monkeypatch)
    state = game.new_initial_state(seed=3)
    assert seen == ["deal", "effect", "auction"]  # the game's start: the general path
    seen.clear()
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.round > 3
    assert seen == []  # auctions, when: markers, the discard, the tricks and the round's end: all planned


@pytest.mark.parametrize("name", trickkit.list_games())
def test_every_shipped_game_plays_as_the_general_path(name: str) -> None:
    game = trickkit.load_game(name)
    rng = random.Random(7)
    state = game.new_initial_state(seed=7)
    kinds = set()
    for _ in range(400):
        if state.is_terminal():
            break
        kinds.add(game.rules.steps[state.step].kind)
        _, slow = step_both(state, rng.choice)  # slow: the general path, entering by the dispatch
        assert state.to_json() == slow.to_json()
        assert state.budget == slow.budget  # the steps entered charge the budget alike
        assert state.step == slow.step and state.round == slow.round
        assert state.is_terminal() == slow.is_terminal()
        if not state.is_terminal():
            assert [a.text for a in state.legal_actions()] == [a.text for a in slow.legal_actions()]
            assert state.current_player() == slow.current_player()
    assert kinds


def _failing(game: trickkit.Game) -> tuple[trickkit.State, trickkit.Action]:
    """The state before the first action that raises (each case fails as round 2 starts or
    as its auction ends), and that action."""
    state = game.new_initial_state(seed=1)
    for _ in range(100):
        action = state.legal_actions()[0]
        probe = state.clone()
        try:
            probe.apply_action(action)
        except DSLRuntimeError:
            break
        assert not probe.is_terminal()  # (every case fails before the game ends)
        state.apply_action(action)
    return state, action


@pytest.mark.parametrize(
    "rule, message",
    [
        ({"ENDS": "1 // (2 - round)"}, r"\[1\]\.auction\.ends_after_passes: ZeroDivisionError"),
        ({"OUT": "2 - round"}, r"\[1\]\.auction\.passed_out_after: passed_out_after must be at least 1, got 0"),
        ({"WHEN": "1 // (2 - round) == 1"}, r"\[2\]\.when: ZeroDivisionError"),
        ({"COUNT": "3 // (2 - round)"}, r"\[2\]\.tricks\.count: ZeroDivisionError"),
        ({"LEADER": "1 // (2 - round)"}, r"\[2\]\.tricks\.leader: ZeroDivisionError"),
    ],
)
def test_a_rule_failing_in_a_planned_enter_is_located_and_changes_nothing(
    tmp_path: Path, rule: dict[str, str], message: str
) -> None:
    game = _enters(tmp_path, **rule)
    state, action = _failing(game)
    before, history = state.to_json(), len(state.history())
    with pytest.raises(DSLRuntimeError, match=r"enters\.yaml:\d+:\d+: \$\.round" + message):
        state.apply_action(action)
    assert state.to_json() == before
    assert len(state.history()) == history


@pytest.mark.parametrize("rule", [{"WHEN": "round == 1"}, {"COUNT": "if round == 1 then 3 else 0"}])
def test_a_step_skipped_or_empty_in_a_later_round_moves_on(tmp_path: Path, rule: dict[str, str]) -> None:
    game = _enters(tmp_path, **rule)
    state = game.new_initial_state(seed=2)
    plays = 0
    while not state.is_terminal():
        action = state.legal_actions()[0]
        plays += action.verb == "play"
        state.apply_action(action)
    assert plays == 12  # round 2 plays no trick: its auction ends the game (game_over after round 2)
    assert state.round == 2
