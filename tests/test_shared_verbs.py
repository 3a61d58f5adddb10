"""Action kinds that share a verb (``verb:``), on their own: a small turns game where
``mark {n}`` and ``mark {n} {colour}`` are two kinds, plus the load errors of misuse."""

import pytest

import trickkit

GAME = """
format: 1
name: marks
title: Marks
players: {min: 2, max: 2}
winners: highest
deck:
  - rank: {from: 1, to: 4}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: public}
seat_variables:
  total: {initial: 0}
table_variables:
  colour: {initial: null, type: str}
  turns_done: {initial: 0}
round:
  - turns:
      first: "0"
      until: turns_done == 4
      actions:
        mark:
          text: "mark {n}"
          choices: {n: "[1, 2]"}
          effect: |
            total[current_player] += n
            turns_done += 1
            end_turn()
        mark_in_colour:
          verb: mark
          text: "mark {n} {c}"
          choices: {n: "[1, 2]", c: "['red', 'blue']"}
          allowed: n == 2
          reason: "'only a 2 is marked in a colour'"
          effect: |
            total[current_player] += 10 * n
            colour = c
            turns_done += 1
            end_turn()
game_over: "true"
score: total[seat]
"""


def load(tmp_path, text=GAME):
    path = tmp_path / "marks.yaml"
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


def test_two_kinds_share_a_verb_and_each_runs_its_own_effect(tmp_path):
    state = load(tmp_path).new_initial_state(seed=0)
    assert [a.text for a in state.legal_actions()] == ["mark 1", "mark 2", "mark 2 red", "mark 2 blue"]
    state.apply_action("mark 2 blue")
    state.apply_action("mark 1")
    assert state.scores() == [20, 1]
    assert state.observation(0)["variables"]["colour"] == "blue"


def test_a_refusal_is_explained_by_the_kind_of_the_texts_length(tmp_path):
    state = load(tmp_path).new_initial_state(seed=0)
    with pytest.raises(trickkit.IllegalActionError, match="only a 2 is marked in a colour"):
        state.apply_action("mark 1 red")
    with pytest.raises(trickkit.IllegalActionError, match="'3' is not a n you can choose now"):
        state.apply_action("mark 3")
    with pytest.raises(trickkit.IllegalActionError, match=r"actions here: mark\)"):
        state.apply_action("stamp 1")


def test_the_text_must_start_with_the_declared_verb(tmp_path):
    with pytest.raises(
        trickkit.RulesetError,
        match=r"mark_in_colour\.text: the text of action 'mark_in_colour' "
        r"must start with its verb 'mark', got 'paint \{n\} \{c\}'",
    ):
        load(tmp_path, GAME.replace('text: "mark {n} {c}"', 'text: "paint {n} {c}"'))


def test_kinds_sharing_a_verb_need_texts_of_different_lengths(tmp_path):
    with pytest.raises(
        trickkit.RulesetError,
        match=r"actions 'mark' and 'mark_in_colour' both have texts of 2 words "
        r"starting with 'mark'",
    ):
        load(
            tmp_path,
            GAME.replace('text: "mark {n} {c}"', 'text: "mark {c}"')
            .replace("choices: {n: \"[1, 2]\", c: \"['red', 'blue']\"}", "choices: {c: \"['red', 'blue']\"}")
            .replace("allowed: n == 2", "allowed: true")
            .replace("10 * n", "10"),
        )


def test_a_seats_own_zone_is_indexed_directly_in_generated_code():
    source = trickkit.load_game("crazy_eights").rules.generated_source
    assert "s.seat_zones[0][s.current]" in source  # hand[current_player]: no range test, never null


def test_a_text_of_no_kinds_length_names_every_form(tmp_path):
    state = load(tmp_path).new_initial_state(seed=0)
    with pytest.raises(trickkit.IllegalActionError, match=r"the form is 'mark \{n\}' or 'mark \{n\} \{c\}'"):
        state.apply_action("mark 2 red now")


def test_a_private_kind_masks_only_its_own_texts_not_every_kind_of_its_verb(tmp_path):
    # issue 30: `private: [c]` on `mark {n} {c}` hid `mark 1` (the other kind of the verb) too
    text = GAME.replace("          allowed: n == 2\n", "          allowed: n == 2\n          private: [c]\n")
    state = load(tmp_path, text).new_initial_state(seed=0)
    by_text = {a.text: a for a in state.legal_actions()}
    assert state.action_seen_by(by_text["mark 2 red"], 1) == "mark 2 ?"
    assert state.action_seen_by(by_text["mark 1"], 1) == "mark 1"
    assert state.action_seen_by(by_text["mark 2"], 1) == "mark 2"
    # and the whole kind private: the other kind still shows
    text = GAME.replace("          allowed: n == 2\n", "          allowed: n == 2\n          private: true\n")
    state = load(tmp_path, text).new_initial_state(seed=0)
    by_text = {a.text: a for a in state.legal_actions()}
    assert state.action_seen_by(by_text["mark 2 blue"], 1) == "mark ?"
    assert state.action_seen_by(by_text["mark 1"], 1) == "mark 1"
    assert state.action_seen_by(by_text["mark 1"], 0) == "mark 1"


def test_a_refused_multi_word_action_is_named_whole_with_the_legal_ones(tmp_path):
    # issue 30: `order alone` refused as "'order' is not allowed now"
    state = load(
        tmp_path, GAME.replace("          reason: \"'only a 2 is marked in a colour'\"\n", "")
    ).new_initial_state(seed=0)
    with pytest.raises(trickkit.IllegalActionError) as info:
        state.apply_action("mark 1 red")
    message = str(info.value)
    assert "'mark 1 red' is not allowed now (legal now: mark 1, mark 2, mark 2 red, mark 2 blue)" in message
    assert "'mark' is not allowed" not in message
