"""The primitives of issue 29 built on the tricks step and beside it, each on small rulesets
written here: seats that sit out a trick (``sits_out``), a seat choosing another's card
(``actor``), ``when:`` on a step, deck ``rank_texts`` and ``copies`` per rank,
``first_dealer`` and list item assignment (``xs[i] = v``).

The tricks step keeps its generated functions (`trickkit.engine.fused`) with these keys: every
game here runs in lockstep with its general-path twin.
"""

from __future__ import annotations

import copy
import random
import re
import sys
from pathlib import Path

import pytest
import yaml

import trickkit
from trickkit import IllegalActionError, RulesetError
from trickkit.engine.game import Game
from trickkit.errors import DSLRuntimeError

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import general_twin

TRICKS = {
    "count": 3,
    "must_play_if_able": "len(trick) == 0 or card.suit == trick[0].suit",
    "winner": "highest(p for p in trick if p.suit == trick[0].suit by p.rank)",
    "after_trick": "sizes = sizes + [len(trick)]\norders = orders + [trick[-1].order]",
}

BASE = {
    "format": 1,
    "name": "seats",
    "title": "Seats",
    "players": {"min": 4, "max": 4, "default": 4},
    "parameters": {"alone": {"type": "bool", "default": True}},
    "deck": [{"suit": {"R": "red", "B": "blue", "G": "green"}, "rank": {"from": 1, "to": 8}, "text": "{suit}{rank}"}],
    "zones": {"stock": {"owner": "table", "visibility": "hidden"}, "hand": {"owner": "seat", "visibility": "owner"}},
    "table_variables": {"sizes": {"initial": []}, "orders": {"initial": []}},
    "round": [{"deal": {"count": 3}}, {"tricks": dict(TRICKS)}],
    "game_over": "round == 2",
    "score": "0",
}


def game_of(tmp_path, doc, **params) -> Game:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return trickkit.load_game(str(path), **params)


def error_of(tmp_path, doc) -> str:
    with pytest.raises(RulesetError) as info:
        game_of(tmp_path, doc)
    return str(info.value)


def with_tricks(**changes) -> dict:
    doc = copy.deepcopy(BASE)
    doc["round"][1]["tricks"].update(changes)
    return doc


def lockstep(game: Game, seeds=range(25)) -> list[trickkit.State]:
    """Random games on the fused and the general path at once: the same legal actions, players
    and outcome at every decision. Returns the fused states at their end."""
    twin = general_twin(game)
    ends = []
    for seed in seeds:
        a, b, rng = game.new_initial_state(seed), twin.new_initial_state(seed), random.Random(seed)
        while not a.is_terminal():
            legal = [x.text for x in a.legal_actions()]
            assert legal == [x.text for x in b.legal_actions()]
            assert (a.current_player(), a.playing_for()) == (b.current_player(), b.playing_for())
            action = rng.choice(legal)
            a.apply_action(action)
            b.apply_action(action)
        assert a._history == b._history and a.table_vars == b.table_vars
        ends.append(a)
    return ends


def test_the_tricks_step_keeps_its_generated_functions_with_sits_out_and_actor(tmp_path):
    game = game_of(tmp_path, with_tricks(sits_out="alone and seat == 3", actor="if seat == 2 then 0 else seat"))
    step = game.rules.steps[1]
    assert step.fused_legal is not None and step.fused_apply is not None
    assert "_start_trick(s, " in game.rules.generated_source and "_acted_for(s)" in game.rules.generated_source


def test_a_seat_that_sits_out_neither_leads_nor_plays_and_tricks_are_smaller(tmp_path):
    # the dealer (0) has seat 1 on its left; seat 1 sits out: seat 2 leads the first trick
    game = game_of(tmp_path, with_tricks(sits_out="alone and seat == 1"))
    s = game.new_initial_state(3)
    assert s.current_player() == 2
    for end in lockstep(game):
        assert end.table_vars[0] == [3] * 6  # two rounds of three tricks, each of three cards
        assert end.table_vars[1] == [2] * 6  # p.order counts the plays of the trick: 0..2
        assert 1 not in {seat for seat, _ in end._history}
    # the sitting seat's cards stay in its hand, and its observation shows them
    s = game.new_initial_state(3)
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])
    assert s.round == 2  # a new deal: seat 1 sat out round 1 and still held its three cards before it


def test_sits_out_is_evaluated_at_each_tricks_start(tmp_path):
    game = game_of(tmp_path, with_tricks(sits_out="seat == len(sizes) % 4"))
    for end in lockstep(game, range(10)):
        assert end.table_vars[0] == [3] * 6


def test_the_seating_of_each_sitting_pattern_is_remembered_and_bounded(tmp_path, monkeypatch):
    from trickkit.engine import steps

    monkeypatch.setattr(steps, "_SEATINGS", {})
    monkeypatch.setattr(steps, "MAX_SEATINGS", 2)
    patterns = {  # who sits -> (the next playing seat on each seat's left, how many play)
        (False, True, False, False): ((2, 2, 3, 0), 3),
        (True, False, False, True): ((1, 2, 1, 1), 2),
        (False, False, False, False): ((1, 2, 3, 0), 4),
    }
    for sitting, want in patterns.items():
        assert steps._seating(sitting, None) == want
        assert steps._SEATINGS[sitting] == want and len(steps._SEATINGS) <= 2
    # a game meeting a new pattern at each trick plays as before with the small cache
    game = game_of(tmp_path, with_tricks(sits_out="seat == len(sizes) % 4"))
    for end in lockstep(game, range(4)):
        assert end.table_vars[0] == [3] * 6
    assert 0 < len(steps._SEATINGS) <= 2


def test_without_sits_out_a_parameter_false_plays_full_tricks(tmp_path):
    game = game_of(tmp_path, with_tricks(sits_out="alone and seat == 1"), alone=False)
    for end in lockstep(game, range(5)):
        assert end.table_vars[0] == [4] * 6


def test_every_seat_sitting_out_is_a_located_error(tmp_path):
    game = game_of(tmp_path, with_tricks(sits_out="true"))
    with pytest.raises(DSLRuntimeError, match=r"rules\.yaml:\d+:\d+: .*sits_out.*every seat sits out"):
        game.new_initial_state(1)


def test_an_actor_chooses_another_seats_card(tmp_path):
    game = game_of(tmp_path, with_tricks(actor="if seat == 2 then 0 else seat"))
    s = game.new_initial_state(5)
    while s.current != 2:
        s.apply_action(s.legal_actions()[0])
    assert s.current_player() == 0 and s.playing_for() == 2
    for seat in range(4):  # public: every seat sees who plays whose card
        assert s.observation(seat)["playing_for"] == 2
        assert s.observation(seat)["current_player"] == 0
    hand = s.observation(2)["zones"]["hand"][2]["cards"]
    assert all(a.text.split()[1] in hand for a in s.legal_actions())  # cards of seat 2's hand
    s.apply_action(s.legal_actions()[0])
    assert s._history[-1][0] == 0  # the history names the seat that chose
    assert "playing_for" not in s.observation(0)
    ends = lockstep(game)
    assert all(2 not in {seat for seat, _ in end._history} for end in ends)


def test_in_the_steps_rules_current_player_is_the_due_seat_and_acting_player_the_chooser(tmp_path):
    doc = with_tricks(
        actor="if seat == 2 then 0 else seat",
        must_play_if_able="card.suit == 'nothing'",
        reason="'hand ' + str(current_player) + ' chosen by ' + str(acting_player)",
    )
    doc["round"][1]["tricks"]["must_play_if_able"] = "len(trick) == 0 or card.suit == trick[0].suit"
    game = game_of(tmp_path, doc)
    s = game.new_initial_state(5)
    while s.current != 2 or len({a.text[5] for a in s.legal_actions()}) == len(
        s.observation(2)["zones"]["hand"][2]["cards"]
    ):
        s.apply_action(s.legal_actions()[0])
        if s.is_terminal() or s.round > 1:
            pytest.skip("no refusal in this deal")
    refused = next(
        c
        for c in s.observation(2)["zones"]["hand"][2]["cards"]
        if f"play {c}" not in [a.text for a in s.legal_actions()]
    )
    with pytest.raises(IllegalActionError) as info:
        s.apply_action(f"play {refused}")
    assert "hand 2 chosen by 0" in str(info.value)
    assert "for seat 0 (playing seat 2's cards)" in str(info.value)


def test_an_illegal_card_is_explained_in_the_due_hands_terms(tmp_path):
    game = game_of(tmp_path, with_tricks(actor="if seat == 2 then 0 else seat"))
    s = game.new_initial_state(5)
    while s.current != 2:
        s.apply_action(s.legal_actions()[0])
    own = s.observation(0)["zones"]["hand"][0]["cards"][0]  # the chooser's own card is not due
    with pytest.raises(IllegalActionError, match="seat 2 does not hold"):
        s.apply_action(f"play {own}")


def test_actor_ids_and_a_bad_actor(tmp_path):
    game = game_of(tmp_path, with_tricks(actor="if seat == 2 then 0 else seat"))
    s = game.new_initial_state(2)
    assert [game.action_to_string(i) for i in s.legal_action_ids()] == [a.text for a in s.legal_actions()]
    bad = game_of(tmp_path, with_tricks(actor="seat + 10"))
    with pytest.raises(DSLRuntimeError, match=r"actor must be a seat 0\.\.3, got 1[0-3]"):
        bad.new_initial_state(2)


@pytest.mark.parametrize("rule", ["if seat == 2 then 12 else seat", "if seat == 2 then null else seat"])
def test_a_bad_actor_met_within_a_trick_is_located_and_changes_nothing(tmp_path, rule):
    """The fused path computes the actor inline after each card: a value that is no seat
    (or null) sends the action to the general path, which refuses it, located."""
    game = game_of(tmp_path, with_tricks(actor=rule, leader="0"))
    source = game.rules.generated_source
    # the rule's own function, and inline: after a card, as the next trick starts in the card
    # played, and as the step's first trick starts (the general path as fallback)
    assert source.count("tricks.actor") == 4 and "_actor_of(s)" in source
    s = game.new_initial_state(2)
    s.apply_action(s.legal_actions()[0])  # seat 0 leads; seat 1 is due
    before = s.to_json()
    action = s.legal_actions()[0]
    with pytest.raises(DSLRuntimeError, match=r"rules\.yaml:\d+:\d+: .*actor"):
        s.apply_action(action)  # after it seat 2 would be due: its actor is no seat
    assert s.to_json() == before


@pytest.mark.parametrize(
    "rule",
    [
        "if len(sizes) == 1 and len(trick) == 0 then 12 else seat",  # as the second trick starts
        "if round == 2 then null else seat",  # as the next round's first trick starts
    ],
)
def test_a_bad_actor_met_as_a_trick_starts_is_located_and_changes_nothing(tmp_path, rule):
    """The fused apply starts the next trick (and the step's generated start its first one) with
    the actor rule inline: a value that is no seat sends the card that led there to the general
    path, which refuses it, located."""
    game = game_of(tmp_path, with_tricks(actor=rule))
    s = game.new_initial_state(2)
    while True:
        before = s.to_json()
        action = s.legal_actions()[0]
        try:
            s.apply_action(action)
        except DSLRuntimeError as e:
            assert re.search(r"rules\.yaml:\d+:\d+: .*actor", str(e)), str(e)
            break
        assert not s.is_terminal()
    assert s.to_json() == before


def test_sits_out_and_actor_together_like_a_partner_going_alone_and_dummy(tmp_path):
    game = game_of(tmp_path, with_tricks(sits_out="seat == 3", actor="if seat == 1 then 0 else seat"))
    for end in lockstep(game):
        assert {seat for seat, _ in end._history} == {0, 2}
        assert end.table_vars[0] == [3] * 6


def test_games_without_the_keys_generate_no_trace_of_them():
    game = trickkit.load_game("hearts")
    source = game.rules.generated_source
    assert "_start_trick" not in source and "_acted_for" not in source and "seating" not in source


def test_the_new_keys_are_typed_rules(tmp_path):
    assert "sits_out" in error_of(tmp_path, with_tricks(sits_out="seat + 1"))
    assert "actor" in error_of(tmp_path, with_tricks(actor="seat == 1"))


# -- when: -------------------------------------------------------------------------------
def test_when_skips_a_step_and_a_repeat_block(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["table_variables"]["x"] = {"initial": 0}
    doc["game_over"] = "round == 3"
    doc["round"][:0] = [
        {"when": "round == 1", "repeat": {"count": 2, "steps": [{"effect": "x += 10"}]}},
        {"when": "round % 2 == 0", "effect": "x += 1"},
        {"repeat": {"count": 1, "steps": [{"when": "round == 3", "effect": "x += 100"}]}},
    ]
    game = game_of(tmp_path, doc)
    s = game.new_initial_state(1)
    assert s.table_vars[2] == 20
    seen = []
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
        seen.append(s.table_vars[2])
    assert s.table_vars[2] == 121


def test_a_step_item_has_exactly_one_kind_beside_when(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["round"].append({"when": "true"})
    assert "round[2]" in error_of(tmp_path, doc)
    doc["round"][2] = {"when": "true", "effect": "sizes = []", "deal": {"count": 1}}
    assert "round[2]" in error_of(tmp_path, doc)
    doc["round"][2] = {"when": "1 + 1", "effect": "sizes = []"}
    assert "round[2].when" in error_of(tmp_path, doc)


# -- deck groups ----------------------------------------------------------------------------
def test_rank_texts_and_copies_per_rank(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["players"] = {"min": 2, "max": 2, "default": 2}
    doc["deck"] = [
        {
            "suit": {"R": "red", "B": "blue"},
            "rank": {"from": 7, "to": 10},
            "text": "{suit}{rank}",
            "rank_texts": {9: "J", 10: "A"},  # keys as YAML integers ...
            "copies": {"7": 2, "8": 1, "9": 1, "10": 3},  # ... or as texts
        }
    ]
    doc["round"][1]["tricks"]["count"] = 1
    game = game_of(tmp_path, doc)
    assert game.cards == ("R7", "R7", "R8", "RJ", "RA", "RA", "RA", "B7", "B7", "B8", "BJ", "BA", "BA", "BA")
    assert game.rules.deck.attrs["rank"][3] == 9  # the rank stays the number


@pytest.mark.parametrize(
    "change, message",
    [
        ({"copies": {7: 2, 8: 1, 9: 1}}, "missing rank 10"),
        ({"copies": {7: 2, 8: 1, 9: 1, 10: 1, 11: 1}}, "11 is not a rank of this group"),
        ({"rank_texts": {6: "x"}}, "6 is not a rank of this group"),
        ({"rank_texts": {"ten": "x"}}, "'ten' is not a rank of this group"),
    ],
)
def test_deck_mappings_by_rank_are_checked_where_written(tmp_path, change, message):
    doc = copy.deepcopy(BASE)
    doc["deck"] = [{"suit": {"R": "red"}, "rank": {"from": 7, "to": 10}, "text": "{suit}{rank}", **change}]
    text = error_of(tmp_path, doc)
    assert message in text and "$.deck[0]." in text


# -- first_dealer ----------------------------------------------------------------------------
def test_first_dealer_from_a_parameter_and_the_deal_passes_left(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["parameters"]["board"] = {"type": "int", "default": 3}
    doc["first_dealer"] = "(board - 1) % num_players"
    game = game_of(tmp_path, doc)
    s = game.new_initial_state(1)
    assert s.dealer == 2 and s.observation(0)["dealer"] == 2
    while s.round == 1:
        s.apply_action(s.legal_actions()[0])
    assert s.dealer == 3
    assert "first dealer must be a seat 0..3, got 7" in error_of(tmp_path, dict(doc, first_dealer="7"))


# -- list item assignment -----------------------------------------------------------------------
def test_list_items_are_assigned_and_bounds_checked(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["table_variables"]["ys"] = {"initial": [0, 0, 0]}
    doc["seat_variables"] = {"zs": {"initial": [1, 2]}}
    doc["round"].insert(0, {"effect": "ys[1] = 5\nys[2] += round\nzs[3][0] += 10\nzs[left_of(2)][1] = 7"})
    s = game_of(tmp_path, doc).new_initial_state(1)
    assert s.table_vars[2] == [0, 5, 1] and s.seat_vars[0][3] == [11, 7]
    for bad, message in [
        ("ys[3] = 1", "no item 3 in a list of 3"),
        ("ys[-1] = 1", "no item -1"),
        ("zs[4][0] = 1", "4 is not a seat"),
    ]:
        doc["round"][0]["effect"] = bad
        with pytest.raises(DSLRuntimeError, match=rf"rules\.yaml:\d+:\d+: \$\.round\[0\]\.effect: .*{message}"):
            game_of(tmp_path, doc).new_initial_state(1)
    doc["round"][0]["effect"] = "ys[0][1] = 1"
    assert "'ys' is not a seat or team variable holding lists" in error_of(tmp_path, doc)
    doc["round"][0]["effect"] = "ys[true] = 1"
    assert "a list item is chosen by an int, not bool" in error_of(tmp_path, doc)


def test_lint_tries_tricks_of_the_seats_that_play(tmp_path):
    from trickkit.lab.lint import lint

    doc = with_tricks(sits_out="seat == 3", actor="if seat == 1 then 0 else seat")
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert not [str(p) for p in lint(path, games=5) if "winner" in str(p)]
    # a winner rule that needs four plays finds none in tricks of three: lint says so, on the winner
    doc["round"][1]["tricks"]["winner"] = "trick[3]"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    (finding,) = [str(p) for p in lint(path, games=5) if "tricks.winner" in str(p)]
    shown = re.search(r"no winner for the trick ((?:\S+ )+)\(seat (\d) leads\)", finding)
    assert shown and len(shown.group(1).split()) == 3 and shown.group(2) != "3"
