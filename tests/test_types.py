"""The typed DSL at load time: every rule result, variable assignment, card-attribute literal and
built-in argument of the wrong type is a located RulesetError, never a Python error at play."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.errors import DSLRuntimeError, RulesetError


def variant(tmp_path: Path, text: str, parent: str = "skull_king") -> Path:
    path = tmp_path / "v.yaml"
    path.write_text(f"extends: {parent}\nname: v\n" + textwrap.dedent(text).lstrip("\n"), "utf-8")
    return path


def problems(path) -> list[str]:
    with pytest.raises(RulesetError) as info:
        trickkit.load_game(path)
    return [str(p) for p in info.value.problems]


def one_problem(path) -> str:
    found = problems(path)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    "rule, text, needs",
    [
        ("round: {$change: {1: {options: '3'}}}", "options", "a list of numbers"),
        ("round: {$change: {1: {options: 'null'}}}", "options", "a list of numbers"),
        ("round: {$change: {1: {options: '[[1], [2]]'}}}", "options", "a list of numbers"),
        ("round: {$change: {1: {options: \"'abc'\"}}}", "options", "a list of numbers"),
        ("round: {$change: {2: {must_play_if_able: \"'false'\"}}}", "must_play_if_able", "true or false"),
        ("round: {$change: {2: {always_allowed: '1'}}}", "always_allowed", "true or false"),
        ("round: {$change: {2: {leader: 'trick'}}}", "leader", "a number"),
        ("round: {$change: {2: {winner: '1'}}}", "winner", "a play"),
        ("round: {$change: {1: {first: 'true'}}}", "first", "a number"),
        ("game_over: \"'no'\"", "game_over", "true or false"),
        ("score: 'bid'", "score", "a number"),
    ],
)
def test_a_rule_of_the_wrong_type_is_a_load_error(tmp_path, rule, text, needs):
    message = one_problem(variant(tmp_path, rule))
    assert f".{text}: must be {needs}" in message, message
    assert "v.yaml:" in message


def test_bool_rules_of_a_zone_visibility_are_checked(tmp_path):
    message = one_problem(variant(tmp_path, "zones: {hand: {public_when: \"'no'\"}}"))
    assert "public_when: must be true or false" in message


def test_a_variable_keeps_the_type_of_its_initial_value(tmp_path):
    path = variant(
        tmp_path,
        """
        round:
          $append:
            - effect: |
                for s in seats { bid[s] = true }
    """,
    )
    assert "'bid' holds int values (the type of its initial value), not bool" in one_problem(path)


def test_a_declared_type_allows_null_and_checks_the_initial_value(tmp_path):
    ok = variant(
        tmp_path,
        """
        table_variables:
          top: {initial: null, type: card}
        round:
          $append:
            - effect: |
                top = first(c for c in stock)
                top = null
    """,
    )
    trickkit.load_game(ok)
    bad = variant(
        tmp_path,
        """
        table_variables:
          top: {initial: 3, type: bool}
    """,
    )
    assert "initial value 3 is not of the declared type 'bool'" in one_problem(bad)
    wrong = variant(
        tmp_path,
        """
        table_variables:
          top: {initial: null, type: card}
        round:
          $append:
            - effect: top = 5
    """,
    )
    assert "'top' holds card values" in one_problem(wrong)


def test_a_number_variable_cannot_be_set_to_null(tmp_path):
    path = variant(
        tmp_path,
        """
        round:
          $append:
            - effect: for s in seats { bid[s] = null }
    """,
    )
    assert "cannot be null" in one_problem(path)


def test_a_text_literal_no_card_has_is_an_error_with_the_suit_code_suggested(tmp_path):
    path = variant(
        tmp_path,
        """
        definitions:
          black_led: trick[0].suit == 'B'
        round:
          $append:
            - effect: if black_led { end_game() }
    """,
    )
    message = problems(path)[0]
    assert "no card has suit 'B' (did you mean 'black'?)" in message


def test_cards_of_optional_groups_may_be_named_while_they_are_out_of_the_deck():
    game = trickkit.load_game("skull_king_2021")  # kraken and loot are off by default
    assert "kraken" not in game.cards
    assert "'kraken'" in game.rules.generated_source  # its rule is still there, and it loads


def test_a_builtin_argument_of_the_wrong_type(tmp_path):
    path = variant(
        tmp_path,
        """
        round:
          $append:
            - effect: if seat_holding(hand, 'B2') == 0 { end_game() }
    """,
    )
    assert "seat_holding() expects a card, got a text (str)" in one_problem(path)


def test_options_of_unknown_type_are_checked_when_they_run(tmp_path):
    """A rule whose type is only known at play time (a null variable) fails located, not with a TypeError."""
    path = variant(
        tmp_path,
        """
        table_variables:
          choices: null
        round: {$change: {1: {options: 'choices'}}}
    """,
    )
    game = trickkit.load_game(path)
    with pytest.raises(
        DSLRuntimeError,
        match=r"v\.yaml:\d+:\d+: \$\.round\[1\]\.bid\.options: expected a list of "
        r"different numbers, got None",
    ):
        game.new_initial_state(seed=1).legal_actions()


def test_duplicate_bid_options_are_refused_when_they_run(tmp_path):
    path = variant(
        tmp_path,
        """
        table_variables:
          choices: {initial: [1, 1, 2], type: list}
        round: {$change: {1: {options: 'choices'}}}
    """,
    )
    game = trickkit.load_game(path)
    with pytest.raises(DSLRuntimeError, match="different numbers"):
        game.new_initial_state(seed=1).legal_actions()


@pytest.mark.parametrize("name", trickkit.list_games())
def test_every_shipped_rule_has_a_static_type(name):
    """The shipped games need no play-time type checks for their bool and seat rules."""
    game = trickkit.load_game(name)
    rng = random.Random(1)
    state = game.new_initial_state(seed=3)
    for _ in range(60):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    for step in game.rules.steps:
        for attr in ("leader", "first", "until", "must_play_if_able", "always_allowed", "count"):
            hook = getattr(step, attr, None)
            if hook is not None:
                assert hook.type in ("int", "bool"), (name, attr, hook.type, hook.text)
