"""Runaway rules stop with a located error, by counted limits (never by a clock): numbers and
lists that grow without end, choice products, rounds that never ask anyone, rules that leave
a seat nothing to do; and a rule failing half-way leaves the state, generator included, as it was."""

from __future__ import annotations

import random
import re
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.engine.state import MAX_STEPS_WITHOUT_DECISION
from trickkit.errors import DSLRuntimeError, RulesetError


def variant(tmp_path: Path, text: str, parent: str = "skull_king") -> Path:
    path = tmp_path / "v.yaml"
    path.write_text(f"extends: {parent}\nname: v\n" + textwrap.dedent(text).lstrip("\n"), "utf-8")
    return path


def first_trick_end(game):
    """Play the first trick of a game; return the state just before its last card."""
    state = game.new_initial_state(seed=2)
    rng = random.Random(0)
    while True:
        legal = state.legal_actions()
        if legal[0].verb == "play" and len(state.trick) == game.num_players - 1:
            return state, legal
        state.apply_action(rng.choice(legal))


@pytest.mark.parametrize(
    "block, limit",
    [
        ("x = 3\nfor s in range(0, 60) { x = x * x }", "bits"),
        # a small constant times a number is computed inline below 2**30, and bounded above it
        ("x = 3\nfor s in range(0, 5000) { x = 65535 * x }", "bits"),
        ("x = 3\nfor s in range(0, 5000) { x = x * -7 }", "bits"),
        ("l = [1]\nfor s in range(0, 60) { l = l + l }", "a list of"),
        ("t = 'ab'\nfor s in range(0, 60) { t = t + t }", "a text of"),
    ],
)
def test_values_that_grow_without_end_stop(tmp_path, block, limit):
    body = "\n".join("              " + line for line in block.splitlines())
    path = tmp_path / "v.yaml"
    path.write_text(
        "extends: skull_king\nname: v\n"
        "table_variables:\n  x: 0\n  l: {initial: [], type: list}\n  t: ''\n"
        "round:\n  $insert_before:\n    0:\n      - effect: |\n" + body + "\n",
        "utf-8",
    )
    game = trickkit.load_game(path)
    with pytest.raises(DSLRuntimeError, match=f"v.yaml:\\d+:\\d+: .*{limit}"):
        game.new_initial_state(seed=1)


def test_definitions_squared_sixty_times_load_and_fail_when_used(tmp_path):
    defs = "\n".join(["  d0: round + 1"] + [f"  d{i}: d{i - 1} * d{i - 1}" for i in range(1, 60)])
    path = variant(tmp_path, f"definitions:\n{defs}\ngame_over: d59 > 0 or round == rounds\n")
    game = trickkit.load_game(path)  # each definition is generated once: loading is linear
    assert game.rules.generated_source.count("def _d") <= 70
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    with pytest.raises(DSLRuntimeError, match="bits"):
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_product_of_choices_is_charged_before_it_is_tried(tmp_path):
    path = variant(
        tmp_path,
        """
        round:
          - turns:
              until: false
              actions:
                pick:
                  text: pick {a} {b}
                  choices: {a: 'range(0, 100000)', b: 'range(0, 100000)'}
                  effect: end_turn()
    """,
        parent="skull_king",
    )
    game = trickkit.load_game(path)
    with pytest.raises(DSLRuntimeError, match=r"\$\.round\[0\]\.turns\.actions\.pick: 10000000000 combinations"):
        game.new_initial_state(seed=1).legal_actions()


@pytest.mark.parametrize(
    "round_",
    [
        "- effect: 'x = 1'",
        "- deal: {count: 1}",
        "- tricks: {count: 0, winner: 'trick[0]'}",
        "- turns: {until: 'true', actions: {go: {effect: 'end_turn()'}}}",
    ],
)
def test_rounds_that_never_ask_anyone_stop(tmp_path, round_):
    path = variant(
        tmp_path,
        f"""
        table_variables:
          x: 0
        round:
          {round_}
        game_over: 'false'
    """,
    )
    game = trickkit.load_game(path)
    with pytest.raises(DSLRuntimeError, match=f"{MAX_STEPS_WITHOUT_DECISION} steps ran without asking any seat"):
        game.new_initial_state(seed=1)


@pytest.mark.parametrize(
    "change, where",
    [
        ("round: {$change: {1: {options: 'range(0, 0)'}}}", r"\$\.round\[1\]\.bid"),
        ("round: {$change: {0: {count: '0'}}}", r"\$\.round\[2\]\.tricks"),
    ],
)
def test_no_legal_action_is_a_located_error(tmp_path, change, where):
    game = trickkit.load_game(variant(tmp_path, change))
    with pytest.raises(DSLRuntimeError, match=f"{where}: seat \\d has no legal action"):
        state = game.new_initial_state(seed=1)
        for _ in range(10):
            state.apply_action(state.legal_actions()[0])


def test_a_choice_missing_from_the_action_text_is_refused_at_load(tmp_path):
    path = variant(
        tmp_path,
        """
        round:
          - turns:
              actions:
                pick:
                  text: pick {a}
                  choices: {a: 'range(0, 2)', b: 'range(0, 2)'}
                  effect: end_turn()
    """,
    )
    with pytest.raises(RulesetError, match=re.escape("choice 'b' does not appear in the action text 'pick {a}'")):
        trickkit.load_game(path)


def test_a_failed_action_leaves_the_generator_as_the_caller_left_it(tmp_path):
    path = variant(
        tmp_path,
        """
        round:
          $change:
            2:
              after_trick: 'tricks[winner.seat] += 1 // (len(trick) - len(trick))'
    """,
    )
    game = trickkit.load_game(path)
    state, legal = first_trick_end(game)
    state.rng.random()  # the caller draws: the generator is the caller's too now
    before_rng = state.rng.getstate()
    before = state.to_json(), state.observation_all()
    with pytest.raises(DSLRuntimeError, match="ZeroDivisionError"):
        state.apply_action(legal[0])
    assert state.rng.getstate() == before_rng
    assert (state.to_json(), state.observation_all()) == before


def effect_variant(tmp_path: Path, block: str) -> Path:
    """Skull King with ``block`` run as an effect before the first round, and table variables
    ``x`` (0), ``l`` (a list) and ``t`` (a text) to work with."""
    body = "\n".join("              " + line for line in block.splitlines())
    path = tmp_path / "v.yaml"
    path.write_text(
        "extends: skull_king\nname: v\n"
        "table_variables:\n  x: 0\n  l: {initial: [], type: list}\n  t: ''\n"
        "round:\n  $insert_before:\n    0:\n      - effect: |\n" + body + "\n",
        "utf-8",
    )
    return path


@pytest.mark.parametrize(
    "test",
    [
        "-1 in l",
        "-1 not in l",
        "l == [x]",
        "index_of(l, -1) == 0",
        "len(distinct(l)) == 0",
        "str(l) == 'x'",
        "len(concat([l, l])) == 0",
        "len(l + l) == 0",
        "t + t == 'x'",
    ],
)
def test_operations_that_walk_a_long_list_are_charged(tmp_path, test):
    """One `in` (or ==, index_of, str, ...) over a list of 50,000 numbers costs 50,000 items of
    the budget, as a loop over it does: 200 of them exceed it (not charged, 40,000 of them took
    minutes). Joining two texts costs their length."""
    block = f"l = range(0, 50000)\nt = str(range(0, 8000))\nfor i in range(0, 200) {{\n  if {test} {{ x = 1 }}\n}}"
    game = trickkit.load_game(effect_variant(tmp_path, block))
    with pytest.raises(DSLRuntimeError, match=r"v.yaml:\d+:\d+: .*budget"):
        game.new_initial_state(seed=1)


def test_a_list_of_one_long_list_many_times_is_charged_by_all_its_items(tmp_path):
    """A list holding the same long list 60 times costs 60 items to build but 6,000,000 to
    write as text: str() charges the items of the lists inside too. (A local list: a variable
    could not hold it, see tests/test_hostile_limits.py.)"""
    block = "let l2 = list(range(0, 100000) for i in range(0, 60))\nt = str(l2)"
    game = trickkit.load_game(effect_variant(tmp_path, block))
    with pytest.raises(DSLRuntimeError, match=r"v.yaml:\d+:\d+: .*budget"):
        game.new_initial_state(seed=1)


def test_the_same_walks_over_short_lists_run(tmp_path):
    """The charge is a count, not a refusal: the operations above over a short list run."""
    block = (
        "l = range(0, 10)\nfor i in range(0, 100) {\n"
        "  if -1 in l or l == [x] or index_of(l, 3) == 0 or str(l) == 'x' or len(concat([l, l])) == 0 "
        "{ x = 1 }\n}\nx = index_of(l, 3)"
    )
    game = trickkit.load_game(effect_variant(tmp_path, block))
    x = [v.name for v in game.rules.table_vars].index("x")
    assert game.new_initial_state(seed=1).table_vars[x] == 3


@pytest.mark.parametrize("value, shown", [("'x'", "'x' (str)"), ("true", "true (bool)"), ("[1]", "[1] (list)")])
def test_a_variable_keeps_its_type_when_the_value_is_known_only_at_play(tmp_path, value, shown):
    """`x` holds numbers; an if whose branches differ in type has no static type, so the value
    is checked as it is stored, and the error names the assignment, not a later reader."""
    game = trickkit.load_game(effect_variant(tmp_path, f"x = if round > 0 then {value} else 0"))
    with pytest.raises(DSLRuntimeError, match=r"v.yaml:\d+:\d+: .*int values cannot be set to " + re.escape(shown)):
        game.new_initial_state(seed=1)
