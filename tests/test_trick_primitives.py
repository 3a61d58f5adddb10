"""The primitives of issue 13 that Hearts uses, each on its own, on small rulesets written here:
layered follow duties, naming cards (``card.text``, ``str(card)``, ``card_named``, one text
per distinct card) and private action kinds (``private: true``).
"""

from __future__ import annotations

import copy

import pytest
import yaml

import trickkit
from trickkit import IllegalActionError, RulesetError
from trickkit.engine.privacy import privacy_table, seen_text

BASE = {
    "format": 1,
    "name": "layers",
    "title": "Layers",
    "players": {"min": 2, "max": 2, "default": 2},
    "deck": [{"suit": {"R": "red", "B": "blue", "G": "green"}, "rank": {"from": 1, "to": 5}, "text": "{suit}{rank}"}],
    "zones": {"stock": {"owner": "table", "visibility": "hidden"}, "hand": {"owner": "seat", "visibility": "owner"}},
    "round": [
        {"deal": {"count": 4}},
        {
            "tricks": {
                "count": 4,
                "must_play_if_able": ["len(trick) == 0 or card.suit == trick[0].suit", "card.rank < 3"],
                "reason": "'must follow ' + trick[0].suit + ', else play under 3'",
                "winner": "highest(p for p in trick if p.suit == trick[0].suit by p.rank)",
            }
        },
    ],
    "game_over": "true",
    "score": "0",
}


def game_of(tmp_path, doc, name="rules.yaml", **params) -> trickkit.Game:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return trickkit.load_game(str(path), **params)


def error_of(tmp_path, doc) -> RulesetError:
    with pytest.raises(RulesetError) as info:
        game_of(tmp_path, doc)
    return info.value


def with_tricks(**changes) -> dict:
    doc = copy.deepcopy(BASE)
    doc["round"][1]["tricks"].update(changes)
    return doc


def after_lead(game, lead: str, hand: list[str]) -> trickkit.State:
    """Seat 1 (the dealer's left) leads ``lead``; seat 0 holds ``hand``."""
    leader = [lead] + [c for c in ("R2", "R3", "R4") if c != lead][:3]
    state = game.new_initial_state(seed=1, deals=[[hand, leader]])
    state.apply_action(f"play {lead}")
    return state


def legal(state) -> set[str]:
    return {a.text for a in state.legal_actions()}


# ---------------------------------------------------------------- layered follow duties
def test_the_first_test_some_card_passes_decides(tmp_path):
    game = game_of(tmp_path, BASE)
    assert legal(after_lead(game, "R5", ["R1", "B1", "G2", "B4"])) == {"play R1"}  # follow suit
    assert legal(after_lead(game, "R5", ["B1", "G2", "B4", "G5"])) == {"play B1", "play G2"}  # else under 3
    assert legal(after_lead(game, "R5", ["B3", "G4", "B4", "G5"])) == {"play B3", "play G4", "play B4", "play G5"}


def test_a_refusal_names_the_cards_of_the_deciding_test(tmp_path):
    state = after_lead(game_of(tmp_path, BASE), "R5", ["B1", "G2", "B4", "G5"])
    before = state.to_json()
    with pytest.raises(IllegalActionError) as info:
        state.apply_action("play B4")
    assert "must follow red, else play under 3: you hold B1, G2" in str(info.value)
    assert state.to_json() == before


def test_the_generated_filters_and_the_per_card_path_agree(tmp_path):
    from trickkit.engine.steps import playable_cards

    game = game_of(tmp_path, BASE)
    for hand in (["R1", "B1", "G2", "B4"], ["B1", "G2", "B4", "G5"], ["B3", "G4", "B4", "G5"]):
        state = after_lead(game, "R5", hand)
        step = game.rules.steps[state.step]
        assert step.fallback_duties and step.must_play_if_able.filter is not None
        by_filter = legal(state)
        assert {f"play {game.cards[c]}" for c in playable_cards(state, step)} == by_filter


def test_always_allowed_joins_the_deciding_test(tmp_path):
    game = game_of(tmp_path, with_tricks(always_allowed="card.suit == 'green'"))
    assert legal(after_lead(game, "R5", ["B1", "B4", "G4", "G5"])) == {"play B1", "play G4", "play G5"}
    assert legal(after_lead(game, "R5", ["R1", "B4", "G4", "B5"])) == {"play R1", "play G4"}


def test_the_single_form_is_unchanged(tmp_path):
    game = game_of(tmp_path, with_tricks(must_play_if_able="len(trick) == 0 or card.suit == trick[0].suit"))
    step = game.rules.steps[1]
    assert step.fallback_duties == ()
    assert legal(after_lead(game, "R5", ["B1", "G2", "B4", "G5"])) == {"play B1", "play G2", "play B4", "play G5"}


def test_each_test_of_a_layered_duty_is_typed_and_located(tmp_path):
    err = error_of(tmp_path, with_tricks(must_play_if_able=["true", "card.rank + 1"]))
    problem = next(p for p in err.problems if p.path == "$.round[1].tricks.must_play_if_able[1]")
    assert problem.line > 0 and "must be" in problem.message and "bool" in problem.message
    err = error_of(tmp_path, with_tricks(must_play_if_able=["card.sute == 'red'"]))
    assert any(
        p.path == "$.round[1].tricks.must_play_if_able[0]" and "did you mean 'suit'" in p.message for p in err.problems
    ), err
    err = error_of(tmp_path, with_tricks(must_play_if_able=[]))  # the schema: at least one test
    assert "must_play_if_able" in str(err)


# ---------------------------------------------------------------- naming cards
def test_card_text_is_the_canonical_text(tmp_path):
    game = game_of(tmp_path, with_tricks(must_play_if_able="card.text != 'B4'"))
    assert legal(after_lead(game, "R5", ["B1", "B4", "G4", "G5"])) == {"play B1", "play G4", "play G5"}
    deck = game.rules.deck
    assert deck.attrs["text"] == deck.texts


def test_str_of_a_card_and_joining_a_card_to_a_text_give_its_text(tmp_path):
    game = game_of(
        tmp_path,
        with_tricks(
            must_play_if_able="len(trick) == 0 or card.suit == trick[0].suit",
            reason="'no ' + str(card) + ' on ' + trick[0].card + ' (' + str(trick[0]) + ', ' "
            "+ str(list(c for c in hand[1])) + ')'",
        ),
    )
    state = after_lead(game, "R5", ["R1", "B1", "G2", "B4"])
    with pytest.raises(IllegalActionError) as info:
        state.apply_action("play B4")
    assert "no B4 on R5 (R5, ['R2', 'R3', 'R4'])" in str(info.value)


def test_card_named_names_one_card_checked_at_load(tmp_path):
    game = game_of(tmp_path, with_tricks(must_play_if_able="card == card_named('G4') or card.rank == 1"))
    assert legal(after_lead(game, "R5", ["B1", "B4", "G4", "G5"])) == {"play B1", "play G4"}
    for text, hint in [("G55", "(did you mean 'G5'?)"), ("g4", "(did you mean 'G4'?)"), ("X9", "")]:
        err = error_of(tmp_path, with_tricks(must_play_if_able=f"card == card_named('{text}')"))
        problem = next(p for p in err.problems if p.path == "$.round[1].tricks.must_play_if_able")
        assert problem.line > 0 and f"no card has the text '{text}'{hint and ' ' + hint}" in problem.message
    err = error_of(tmp_path, with_tricks(must_play_if_able="card == card_named(trick[0].text)"))
    assert "card_named() takes a card's text in quotes" in str(err)


def test_card_named_refuses_a_text_of_several_copies(tmp_path):
    doc = with_tricks(must_play_if_able="card != card_named('joker')")
    doc["deck"].append({"text": "joker", "kind": "joker", "copies": 2})
    err = error_of(tmp_path, doc)
    assert "2 copies of 'joker'" in str(err) and "card.text == 'joker'" in str(err)


def test_two_different_cards_may_not_share_a_text(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["deck"].append({"text": "R3", "kind": "odd"})
    err = error_of(tmp_path, doc)
    problem = next(p for p in err.problems if p.path == "$.deck[1].text")
    assert "two different cards have the text 'R3'" in problem.message and "kind" in problem.message
    assert "ambiguous" in problem.message


def test_identical_copies_may_share_a_text(tmp_path):
    """Copies (one group's `copies`, or identical cards in two groups) are interchangeable:
    an action naming them plays any copy, as Skull King's five escapes."""
    doc = copy.deepcopy(BASE)
    doc["deck"] += [{"text": "joker", "kind": "joker", "copies": 2}, {"text": "joker", "kind": "joker"}]
    game = game_of(tmp_path, doc)
    assert list(game.cards).count("joker") == 3
    for name in trickkit.list_games():
        trickkit.load_game(name)  # every shipped deck follows the rule


def test_text_and_copy_are_the_engines_attributes(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["deck"][0]["attributes"] = {"text": "x"}
    assert "'text' is set by the engine" in str(error_of(tmp_path, doc))


# ---------------------------------------------------------------- private action kinds
PRIVATE = {
    "format": 1,
    "name": "private",
    "title": "Private",
    "players": {"min": 3, "max": 3, "default": 3},
    "deck": [{"suit": {"R": "red"}, "rank": {"from": 1, "to": 9}, "text": "{suit}{rank}"}],
    "zones": {
        "stock": {"owner": "table", "visibility": "hidden"},
        "hand": {"owner": "seat", "visibility": "owner"},
        "given": {"owner": "seat", "visibility": "owner"},
    },
    "round": [
        {"deal": {"count": 3}},
        {
            "turns": {
                "until": "all(len(hand[s]) == 2 for s in seats)",
                "actions": {
                    "give": {
                        "text": "give {card} to {seat}",
                        "choices": {
                            "card": "hand[current_player]",
                            "seat": "list(s for s in seats if s != current_player)",
                        },
                        "private": True,
                        "effect": "move(card, hand[current_player], given[seat])\nend_turn()",
                    }
                },
            }
        },
    ],
    "game_over": "true",
    "score": "0",
}


def test_a_private_action_kind_shows_only_its_verb(tmp_path):
    game = game_of(tmp_path, PRIVATE, name="private.yaml")
    state = game.new_initial_state(seed=3)
    actor = state.current_player()
    action = state.legal_actions()[0]
    assert action.text.startswith("give R")
    for seat in range(3):
        assert state.action_seen_by(action, seat) == (action.text if seat == actor else "give ?")
    state.apply_action(action)
    assert state.history_seen_by((actor + 1) % 3) == ["give ?"]
    assert state.history_seen_by(actor) == [action.text]
    table = privacy_table(game.rules)
    assert (
        seen_text(table, "give R1 to 2", 0, 1) == "give ?"
        and seen_text(table, "give R1 to 2", 0, None) == "give R1 to 2"
    )
    assert seen_text(table, "give", 0, 1) == "give"  # a bare verb (as a responder's `pass`) hides nothing


def test_a_private_kind_needs_something_to_hide(tmp_path):
    doc = copy.deepcopy(PRIVATE)
    doc["round"][1]["turns"]["actions"]["give"].update(text="give", choices={})
    err = error_of(tmp_path, doc)
    assert "nothing to hide" in str(err)


def test_card_named_is_null_for_a_card_other_parameters_put_in_the_deck(tmp_path):
    doc = with_tricks(must_play_if_able="card_named('J0') == null or card == card_named('J0') or card.rank == 1")
    doc["parameters"] = {"joker": {"type": "bool", "default": False}}
    doc["deck"].append({"text": "J0", "kind": "joker", "when": "joker"})
    without = game_of(tmp_path, doc)  # loads: J0 is a card of the game with joker=true
    assert legal(after_lead(without, "R5", ["B1", "B4", "G4", "G5"])) == {"play B1", "play B4", "play G4", "play G5"}
    with_joker = game_of(tmp_path, doc, joker=True)
    assert legal(after_lead(with_joker, "R5", ["B1", "B4", "J0", "G5"])) == {"play B1", "play J0"}


# ---------------------------------------------------------------- sort
@pytest.mark.parametrize("sorted_after", [False, True])
def test_sort_puts_a_zone_in_deck_order(tmp_path, sorted_after):
    doc = copy.deepcopy(BASE)
    block = "move_front(hand[0][-1], hand[0], hand[0])" + ("\nsort(hand[0])" if sorted_after else "")
    doc["round"].insert(1, {"effect": block})
    game = game_of(tmp_path, doc)
    state = game.new_initial_state(seed=1, deals=[[["R1", "B2", "G4", "G5"], ["R5", "R2", "R3", "R4"]]])
    hand = state.observation(0)["zones"]["hand"][0]["cards"]
    assert hand == (["R1", "B2", "G4", "G5"] if sorted_after else ["G5", "R1", "B2", "G4"])


def test_sort_needs_a_zone(tmp_path):
    doc = copy.deepcopy(BASE)
    doc["round"].insert(1, {"effect": "sort(hand)"})
    assert "sort() needs a zone" in str(error_of(tmp_path, doc))
