"""The round primitives of issue 14, each on its own in a tiny ruleset: ``repeat:`` blocks,
``choose`` steps (simultaneous card choice) and ``end_turn(next=seat)`` (handing the next
decision to a named seat, also from ``on_turn_start``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.engine.state import MAX_STEPS_WITHOUT_DECISION
from trickkit.errors import DSLRuntimeError, IllegalActionError, RulesetError

HEAD = """
format: 1
name: tiny
title: Tiny
players: {min: 2, max: 4, default: 3}
deck:
  - rank: {from: 1, to: 12}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  picked: {owner: seat, visibility: public}
  secret: {owner: seat, visibility: owner}
  table: {owner: table, visibility: public}
seat_variables:
  got: {initial: 0}
table_variables:
  passes: {initial: 0}
  inner: {initial: 0}
game_over: "true"
score: got[seat]
"""


def tiny(tmp_path: Path, body: str, players: int = 3, **params) -> trickkit.Game:
    """A game from HEAD plus ``body`` (its ``round:`` and any other keys)."""
    path = tmp_path / "tiny.yaml"
    path.write_text(textwrap.dedent(HEAD).lstrip() + textwrap.dedent(body).lstrip("\n"), "utf-8")
    return trickkit.load_game(path, players=players, **params)


def bids(state, n):
    for _ in range(n):
        state.apply_action("bid 1")


# ------------------------------------------------------------------------------- repeat
BID_REPEAT = """
round:
  - repeat:
      {key}
      steps:
        - effect: "passes += 1"
        - bid: {{variable: got, options: "range(0, 3)"}}
"""


def test_repeat_count_runs_the_steps_that_many_times(tmp_path):
    game = tiny(tmp_path, BID_REPEAT.format(key="count: 4"), players=2)
    state = game.new_initial_state(seed=1)
    for k in range(4):
        assert not state.is_terminal() and state.table_vars[0] == k + 1  # pass k+1 has begun
        bids(state, 2)
    assert state.is_terminal() and len(state.history()) == 8


def test_repeat_count_zero_skips_the_block(tmp_path):
    game = tiny(tmp_path, BID_REPEAT.format(key="count: 0") + "  - bid: {variable: got, options: '[2]'}\n", players=2)
    state = game.new_initial_state(seed=1)
    assert state.table_vars[0] == 0 and [a.text for a in state.legal_actions()] == ["bid 2"]


def test_repeat_until_is_checked_before_every_pass(tmp_path):
    game = tiny(tmp_path, BID_REPEAT.format(key="until: passes == 3"), players=2)
    state = game.new_initial_state(seed=1)
    bids(state, 4)  # passes 1 and 2; pass 3 begins (passes becomes 3), the block ends after it
    assert not state.is_terminal() and state.table_vars[0] == 3
    bids(state, 2)
    assert state.is_terminal()
    # true from the start: no pass at all
    game = tiny(
        tmp_path, BID_REPEAT.format(key="until: 'true'") + "  - bid: {variable: got, options: '[2]'}\n", players=2
    )
    assert game.new_initial_state(seed=1).table_vars[0] == 0


def test_repeat_count_and_until_together_stop_at_the_first(tmp_path):
    for key, passes in [("count: 5\n      until: passes == 2", 2), ("count: 2\n      until: passes == 9", 2)]:
        game = tiny(tmp_path, BID_REPEAT.format(key=key), players=2)
        state = game.new_initial_state(seed=1)
        n = 0
        while not state.is_terminal():
            state.apply_action("bid 0")
            n += 1
        assert n == 2 * passes and state.table_vars[0] == passes


def test_repeat_blocks_nest_and_the_inner_one_restarts(tmp_path):
    game = tiny(
        tmp_path,
        """
        round:
          - repeat:
              count: 3
              steps:
                - effect: "passes += 1"
                - repeat:
                    count: passes
                    steps:
                      - effect: "inner += 1"
                      - bid: {variable: got, options: "[0]"}
        """,
        players=2,
    )
    state = game.new_initial_state(seed=1)
    n = 0
    while not state.is_terminal():
        state.apply_action("bid 0")
        n += 1
    assert state.table_vars == [3, 1 + 2 + 3] and n == 2 * 6  # the inner count is read as each inner block starts


@pytest.mark.parametrize("key", ["until: 'false'", "count: 1000000000"])
def test_a_repeat_that_never_asks_anyone_stops_by_a_counted_limit(tmp_path, key):
    game = tiny(
        tmp_path,
        f"""
        round:
          - repeat:
              {key}
              steps:
                - effect: "passes += 1"
          - bid: {{variable: got, options: "[0]"}}
        """,
    )
    with pytest.raises(DSLRuntimeError, match=f"{MAX_STEPS_WITHOUT_DECISION} steps ran without asking"):
        game.new_initial_state(seed=1)


def test_a_negative_repeat_count_is_a_located_runtime_error(tmp_path):
    game = tiny(tmp_path, BID_REPEAT.format(key="count: passes - 1"))
    with pytest.raises(DSLRuntimeError, match=r"tiny.yaml:\d+:\d+: \$\.round\[0\]\.repeat\.count: .*0 or more"):
        game.new_initial_state(seed=1)


@pytest.mark.parametrize(
    "key, message",
    [
        ("description: no way to stop", "needs 'count'"),
        ("count: \"'three'\"", "int"),
        ('until: "3"', "bool"),
    ],
)
def test_repeat_mistakes_are_located_load_errors(tmp_path, key, message):
    with pytest.raises(RulesetError, match=message) as err:
        tiny(tmp_path, BID_REPEAT.format(key=key))
    assert "$.round[0].repeat" in str(err.value)


def test_repeat_nesting_is_bounded(tmp_path):
    body = '{"bid": {"variable": "got", "options": "[0]"}}'
    for _ in range(12):
        body = '{"repeat": {"count": 1, "steps": [' + body + "]}}"
    with pytest.raises(RulesetError, match="nest at most"):
        tiny(tmp_path, f"round: [{body}]\n")


# ------------------------------------------------------------------------------- choose
PICK = """
round:
  - deal: {{count: 4}}
  - choose: {{verb: pick, to: {to}, {extra}}}
  - bid: {{variable: got, options: "[0]"}}
"""
DEAL = [[["1", "2", "3", "4"], ["5", "6", "7", "8"], ["9", "10", "11", "12"]]]


def test_choose_asks_every_seat_in_turn_and_moves_the_card(tmp_path):
    game = tiny(tmp_path, PICK.format(to="picked", extra="first: '2'"))
    state = game.new_initial_state(seed=1, deals=DEAL)
    assert state.current_player() == 2
    assert [a.text for a in state.legal_actions()] == ["pick 9", "pick 10", "pick 11", "pick 12"]
    for text, seat in [("pick 11", 0), ("pick 2", 1), ("pick 8", None)]:
        state.apply_action(text)
        if seat is not None:
            assert state.current_player() == seat
    obs = state.observation(0)
    assert obs["phase"] == "bid"  # every seat has chosen: the step is over, the picks revealed
    assert [v["cards"] for v in obs["zones"]["picked"]] == [["2"], ["8"], ["11"]]
    assert obs["zones"]["hand"][0]["cards"] == ["1", "3", "4"]


def test_simultaneous_choices_stay_hidden_until_all_have_chosen(tmp_path):
    game = tiny(tmp_path, PICK.format(to="picked", extra="first: '0'"))
    state = game.new_initial_state(seed=1, deals=DEAL)
    state.apply_action("pick 3")
    assert state.action_seen_by("pick 6", 0) == "pick ?" and state.action_seen_by("pick 6", 1) == "pick 6"
    state.apply_action("pick 6")
    for viewer in range(3):
        picked = state.observation(viewer)["zones"]["picked"]
        for seat in (0, 1):
            assert picked[seat] == (
                {"count": 1, "cards": [["3"], ["6"]][seat][0:1]} if seat == viewer else {"count": 1}
            ), (viewer, seat, picked)
        assert state.history_seen_by(viewer) == [
            t if actor == viewer else "pick ?" for actor, t in [(0, "pick 3"), (1, "pick 6")]
        ]
    assert state.history() == ["pick 3", "pick 6"]
    assert state.observation_all()["zones"]["picked"][1]["cards"] == ["6"]
    state.apply_action("pick 12")
    # revealed together: a public zone shows every pick, and the history names them
    for viewer in range(3):
        assert [v["cards"] for v in state.observation(viewer)["zones"]["picked"]] == [["3"], ["6"], ["12"]]
        assert state.history_seen_by(viewer) == ["pick 3", "pick 6", "pick 12"]


def test_cards_chosen_into_a_private_zone_stay_hidden_after_the_reveal(tmp_path):
    game = tiny(tmp_path, PICK.format(to="secret", extra="first: '0'"))
    state = game.new_initial_state(seed=1, deals=DEAL)
    for text in ("pick 3", "pick 6", "pick 12"):
        state.apply_action(text)
    assert state.observation(0)["zones"]["secret"][1] == {"count": 1}
    assert state.history_seen_by(0) == ["pick 3", "pick ?", "pick ?"]
    assert state.history_seen_by(2) == ["pick ?", "pick ?", "pick 12"]
    assert "pick 6" not in state.transcript(0) and "pick 3" in state.transcript(0)


def test_a_choice_that_is_not_simultaneous_is_seen_at_once(tmp_path):
    game = tiny(tmp_path, PICK.format(to="picked", extra="first: '0', simultaneous: false"))
    state = game.new_initial_state(seed=1, deals=DEAL)
    state.apply_action("pick 3")
    assert state.action_seen_by("pick 6", 0) == "pick 6"
    assert state.observation(1)["zones"]["picked"][0]["cards"] == ["3"]
    assert state.history_seen_by(2) == ["pick 3"]


def test_choose_count_and_allowed(tmp_path):
    # two cards each, only even ones: seat 1's hand 5 6 7 8 gives 6 and 8; a seat with one
    # even card chooses one; a seat with none is skipped
    game = tiny(tmp_path, PICK.format(to="picked", extra="first: '0', count: 2, allowed: card.rank % 2 == 0"))
    deal = [[["1", "2", "3", "5"], ["6", "7", "8", "9"], ["10", "11", "12", "4"]]]
    state = game.new_initial_state(seed=1, deals=deal)
    assert state.current_player() == 0 and [a.text for a in state.legal_actions()] == ["pick 2"]
    state.apply_action("pick 2")
    assert state.current_player() == 1  # no even card left: seat 0's second choice is skipped
    state.apply_action("pick 8")
    assert state.current_player() == 1 and [a.text for a in state.legal_actions()] == ["pick 6"]
    state.apply_action("pick 6")
    assert state.current_player() == 2 and [a.text for a in state.legal_actions()] == ["pick 4", "pick 10", "pick 12"]
    state.apply_action("pick 12")
    state.apply_action("pick 4")
    assert [v["cards"] for v in state.observation(0)["zones"]["picked"]] == [["2"], ["8", "6"], ["12", "4"]]
    # nobody may choose anything: the step asks nobody
    game = tiny(tmp_path, PICK.format(to="picked", extra="allowed: card.rank > 99"))
    assert game.new_initial_state(seed=1, deals=DEAL).observation(0)["phase"] == "bid"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("pick 7", "seat 0 has no 7 in its hand"),
        ("pick 77", "unknown card '77'"),
        ("play 3", "say 'pick CARD'"),
        ("pick 1", "may not choose 1"),
    ],
)
def test_an_illegal_choice_says_why_and_changes_nothing(tmp_path, text, reason):
    game = tiny(tmp_path, PICK.format(to="picked", extra="first: '0', allowed: card.rank > 1"))
    state = game.new_initial_state(seed=1, deals=DEAL)
    before = state.to_json(), state.observation_all()
    with pytest.raises(IllegalActionError, match=reason):
        state.apply_action(text)
    assert (state.to_json(), state.observation_all()) == before


@pytest.mark.parametrize(
    "extra, message",
    [
        ("verb: play", "taken by the engine"),
        ("from: table", "owned by each seat"),
        ("allowed: card.rank", "bool"),
        ("from: picked", "another seat zone"),
    ],
)
def test_choose_mistakes_are_located_load_errors(tmp_path, extra, message):
    with pytest.raises(RulesetError, match=message) as err:
        tiny(tmp_path, PICK.format(to="picked", extra=extra).replace("verb: pick, ", ""))
    assert "$.round[1].choose" in str(err.value)


def test_simultaneous_bids_are_hidden_in_the_history_until_all_have_bid():
    game = trickkit.load_game("skull_king", players=3, rounds=1)
    state = game.new_initial_state(seed=3)
    first = state.current_player()
    state.apply_action("bid 1")
    other = (first + 1) % 3
    assert state.history_seen_by(other) == ["bid ?"] and state.history_seen_by(first) == ["bid 1"]
    state.apply_action("bid 0")
    state.apply_action("bid 1")
    assert state.history_seen_by(other) == ["bid 1", "bid 0", "bid 1"]


# ------------------------------------------------------------------------------- hand-offs
GIVE = """
round:
  - deal: {{count: 2}}
  - turns:
      first: "0"
      until: all(len(h) == 0 for h in hand)
      {on_start}
      actions:
        give:
          text: "give {{card}} {{to}}"
          choices: {{card: "hand[current_player]", to: seats}}
          effect: |
            move(card, hand[current_player], table)
            end_turn(next=to)
"""


def test_end_turn_next_gives_the_next_turn_to_that_seat(tmp_path):
    game = tiny(tmp_path, GIVE.format(on_start=""))
    state = game.new_initial_state(seed=1, deals=[[["1", "2"], ["3", "4"], ["5", "6"]]])
    assert state.current_player() == 0
    state.apply_action("give 1 2")
    assert state.current_player() == 2
    state.apply_action("give 5 2")  # to itself
    assert state.current_player() == 2
    state.apply_action("give 6 0")
    assert state.current_player() == 0


def test_on_turn_start_can_pass_the_turn_on_before_anyone_decides(tmp_path):
    # a seat with an empty hand is skipped: its turn ends as it begins
    game = tiny(tmp_path, GIVE.format(on_start='on_turn_start: "if len(hand[turn_player]) == 0 { end_turn() }"'))
    state = game.new_initial_state(seed=1, deals=[[["1", "2"], ["3", "4"], ["5", "6"]]])
    state.apply_action("give 1 0")
    state.apply_action("give 2 0")  # seat 0 is empty: its turn passes to seat 1 at once
    assert state.current_player() == 1
    # and to a named seat: seat 0 always hands the turn to seat 2
    game = tiny(tmp_path, GIVE.format(on_start='on_turn_start: "if turn_player == 0 { end_turn(next=2) }"'))
    state = game.new_initial_state(seed=1, deals=[[["1", "2"], ["3", "4"], ["5", "6"]]])
    assert state.current_player() == 2
    state.apply_action("give 5 0")
    assert state.current_player() == 2


def test_turns_that_always_pass_on_stop_by_a_counted_limit(tmp_path):
    game = tiny(tmp_path, GIVE.format(on_start='on_turn_start: "end_turn(next=turn_player)"'))
    with pytest.raises(DSLRuntimeError, match=f"{MAX_STEPS_WITHOUT_DECISION} turns in a row"):
        game.new_initial_state(seed=1)


def test_end_turn_to_no_seat_fails_located_and_changes_nothing(tmp_path):
    game = tiny(tmp_path, GIVE.format(on_start="").replace("end_turn(next=to)", "end_turn(next=to + 5)"))
    state = game.new_initial_state(seed=1, deals=[[["1", "2"], ["3", "4"], ["5", "6"]]])
    before = state.to_json(), state.observation_all()
    with pytest.raises(DSLRuntimeError, match=r"effect.*not a seat"):
        state.apply_action("give 1 2")
    assert (state.to_json(), state.observation_all()) == before


@pytest.mark.parametrize(
    "call, message",
    [
        ("end_turn(nxt=to)", "no named argument 'nxt'"),
        ("end_turn(next='left')", "needs a seat"),
        ("end_turn(next=to, next=to)", "once"),
        ("end_turn(next += to)", "once"),
        ("move(card, table, hand[to], next=to)", "it takes none"),
    ],
)
def test_named_argument_mistakes_are_located_load_errors(tmp_path, call, message):
    with pytest.raises(RulesetError, match=message):
        tiny(tmp_path, GIVE.format(on_start="").replace("end_turn(next=to)", call))


def test_the_transcript_shows_picks_as_hidden_then_revealed_together(tmp_path):
    game = tiny(tmp_path, PICK.format(to="picked", extra="first: '0'"))
    state = game.new_initial_state(seed=1, deals=DEAL)
    for text in ("pick 3", "pick 6", "pick 12"):
        state.apply_action(text)
    lines = state.transcript(1).splitlines()
    assert lines[2:6] == [
        "seat 0: pick ?",
        "seat 1 (you): pick 6",
        "seat 2: pick ?",
        "revealed: seat 0 pick 3, seat 1 (you) pick 6, seat 2 pick 12",
    ]
