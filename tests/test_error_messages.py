"""Error messages a new user met: each says what is wrong, where, and nothing false."""

from __future__ import annotations

import textwrap

import pytest

import trickkit
from trickkit.lab.simulation import RandomAgent

STUCK = """\
format: 1
name: stuck
title: Stuck
players: {min: 2, max: 2}
deck:
  - rank: {from: 1, to: 4}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
round:
  - deal: {count: 2}
  - turns:
      until: "false"
      actions:
        go:
          text: "go"
          allowed: ALLOWED
          effect: move(hand[current_player][0], hand[current_player], stock)
game_over: true
score: "0"
"""


def _write(tmp_path, text, name="g.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), "utf-8")
    return path


def test_definition_hiding_the_rulesets_own_name_says_so(tmp_path):
    path = _write(tmp_path, "extends: sarkophag\nname: h\ndefinitions:\n  hand: 3\n  round: 2\n  limit: 4\n")
    messages = [p.message for p in trickkit.validate(path)]
    assert "definition 'hand' hides the zone 'hand' of this ruleset; choose another name" in messages
    assert "definition 'limit' hides the parameter 'limit' of this ruleset; choose another name" in messages
    assert "definition 'round' hides a built-in name; choose another name" in messages
    assert not any("'hand' hides a built-in" in m for m in messages)


def test_seat_stuck_after_an_action_names_the_step_and_file(tmp_path):
    path = _write(tmp_path, STUCK.replace("ALLOWED", "len(hand[current_player]) == 2"))
    state = trickkit.load_game(path).new_initial_state(seed=0)
    with pytest.raises(trickkit.DSLRuntimeError) as info:
        state.apply_action("go")
    assert str(info.value).startswith(f"{path}:14:14: $.round[1].turns: seat 1 has no legal action")


def test_seat_stuck_from_the_start_names_the_step_and_file(tmp_path):
    path = _write(tmp_path, STUCK.replace("ALLOWED", "len(hand[current_player]) > 5"))
    state = trickkit.load_game(path).new_initial_state(seed=0)
    try:
        actions = state.legal_actions()
    except trickkit.TrickkitError as exc:  # the engine may refuse already
        assert "$.round[1].turns" in str(exc)
        return
    assert actions == []
    with pytest.raises(trickkit.TrickkitError) as info:
        RandomAgent().step(state)
    assert str(info.value).startswith(f"{path}:14:14: $.round[1].turns: seat 1 has no legal action")


@pytest.mark.parametrize(
    "game,before,text,expected",
    [
        (
            "trumps",
            [],
            "choose clubs",
            "'clubs' is not a suit you can choose now (legal now: choose swords, choose cups, choose wands, "
            "choose pentacles)",
        ),
        ("saqqara", [], "take 9", "'9' is not a pile you can choose now (legal now: take 1, take 2, take 3"),
        (
            "trumps",
            ["choose swords", "choose cups", "choose wands", "choose pentacles", "draw"],
            "play T21",
            "'T21' is not a card you can choose now (legal now: play ",
        ),
    ],
)
def test_turns_refusal_of_a_right_form_names_the_wrong_choice(game, before, text, expected):
    state = trickkit.load_game(game).new_initial_state(seed=1)
    for action in before:
        state.apply_action(action)
    with pytest.raises(trickkit.IllegalActionError) as info:
        state.apply_action(text)
    message = str(info.value)
    assert expected in message
    assert "the form is" not in message


def test_turns_refusal_of_a_choice_in_the_wrong_case_names_the_legal_action():
    """'pass c4' in Hearts, where 'pass C4' is legal: the refusal says which one was meant."""
    state = trickkit.load_game("hearts").new_initial_state(seed=1)
    assert "pass C4" in [a.text for a in state.legal_actions()]
    with pytest.raises(trickkit.IllegalActionError) as info:
        state.apply_action("pass c4")
    assert str(info.value).endswith(" (did you mean 'pass C4'?)")


def test_turns_refusal_of_a_wrong_form_gives_the_form():
    state = trickkit.load_game("trumps").new_initial_state(seed=1)
    with pytest.raises(trickkit.IllegalActionError) as info:
        state.apply_action("choose swords now")
    assert "no such 'choose' action now (the form is 'choose {suit}')" in str(info.value)


FOLDED = """\
extends: sarkophag
name: fold
definitions:
  lead: trick[0]
  a: >-
    first(p for p in trick if p.rank > 2)
    ?? first(p for p in trick
    if p.rank >> 2)
  b: |
    1 +

    (2 *
      3 +) # comment
  c: >
    first(p for p in trick
          if p.rank >> 2)
  d: "1 +)"
round:
  $change:
    tricks:
      winner: >-
        if lower != broken
        then lowest(p for p in trick by p.rank)
        else highest(p for p in trick by p.rank +)
"""


def test_errors_inside_block_scalars_point_at_the_line_of_the_mistake(tmp_path):
    path = _write(tmp_path, FOLDED)
    found = {p.path: (p.line, p.column) for p in trickkit.validate(path)}
    lines = FOLDED.splitlines()

    def at(line, text, offset=0):  # 1-based column of ``text`` (plus offset) on that line
        return line, lines[line - 1].index(text) + 1 + offset

    assert found["$.definitions.a"] == at(8, ">>", 1)  # the second '>' is the unexpected one
    assert found["$.definitions.b"] == at(13, ")")
    assert found["$.definitions.c"] == at(16, ">>", 1)  # a more-indented line in a folded block
    assert found["$.definitions.d"] == at(17, '"')  # a quoted value: its start, as before
    assert found["$.round[1].tricks.winner"] == at(24, "+)", 1)


def test_block_position_refuses_to_guess(tmp_path):
    from trickkit.rules.textpos import block_position

    path = _write(tmp_path, "a: |\n  x +\n  y\nb: |2\n   z\n")
    assert block_position(str(path), 1, 4, "x +\ny\n", 2, 1) == (3, 3)
    assert block_position(str(path), 1, 4, "something else", 2, 1) is None  # not this text
    assert block_position(str(path), 4, 4, " z\n", 1, 1) is None  # explicit indentation
    assert block_position(str(tmp_path / "gone.yaml"), 1, 4, "x +\ny\n", 2, 1) is None


ALIASED = """\
extends: sarkophag
name: al
round:
  - deal: {count: hand_size, to: hand, rest: stock}
  - &t
    tricks:
      count: 1
      KEY
      leader: left_of(dealer)
      winner: highest(p for p in trick by p.rnk)
      taken_to: taken
  - *t
  - *t
"""


@pytest.mark.parametrize(
    "key,path,message",
    [
        ("", "$.round[1].tricks.winner", "plays have no attribute 'rnk'"),
        ("cuont: 2", "$.round[1].tricks.cuont", "unknown key 'cuont'"),
    ],
)
def test_a_step_reused_through_aliases_reports_its_error_once(tmp_path, key, path, message):
    problems = trickkit.validate(_write(tmp_path, ALIASED.replace("KEY", key)))
    mine = [p for p in problems if message in p.message]
    assert len(mine) == 1, problems
    assert mine[0].path == path
    others = path.replace("round[1]", "round[2]") + ", " + path.replace("round[1]", "round[3]")
    assert f"(also used at {others}, through a YAML alias)" in mine[0].message


def test_distinct_problems_are_all_kept():
    from trickkit.errors import Problem, RulesetError

    problems = [
        Problem("f.yaml", 3, 4, "$.a", "bad"),
        Problem("f.yaml", 3, 4, "$.a", "worse"),
        Problem("f.yaml", 5, 4, "$.b", "bad"),
        Problem("f.yaml", 0, 0, "$.c", "bad"),
        Problem("f.yaml", 0, 0, "$.d", "bad"),
    ]
    assert RulesetError(problems).problems == problems


@pytest.mark.parametrize("seat", ["current_player - 2", "current_player + 2", "0 - 1"])
def test_assigning_a_seat_variable_of_no_seat_is_an_error_not_another_seats(tmp_path, seat):
    # Python would write score[-1] into the last seat's variable; the rules must say no such seat
    text = (
        STUCK.replace("ALLOWED", "true")
        .replace("effect: move(hand[current_player][0], hand[current_player], stock)", f"effect: got[{seat}] = 1")
        .replace("round:\n", "seat_variables:\n  got: {initial: 0}\nround:\n")
    )
    state = trickkit.load_game(_write(tmp_path, text)).new_initial_state(seed=0)
    before = state.to_json()
    with pytest.raises(
        trickkit.DSLRuntimeError,
        match=r"g\.yaml:\d+:\d+: .*actions\.go\.effect: ValueError: "
        r"got\[-?\d+\] = \.\.\.: -?\d+ is not a seat \(seats are 0\.\.1\)",
    ):
        state.apply_action("go")
    assert state.to_json() == before
    assert state.seat_vars[0] == [0, 0]


SHADOW = """\
format: 1
name: shadow
title: Shadow
players: {min: 2, max: 2}
deck:
  - rank: {from: 1, to: 4}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
definitions:
  limit: 3
  small: rank_of_top < limit
  rank_of_top: stock[-1].rank
round:
  - deal: {count: 2}
  - turns:
      until: "true"
      actions:
        go:
          text: "go {limit}"
          choices: {limit: "[1, 2]"}
          allowed: small
          effect: "for rank_of_top in [1] { end_turn() }"
game_over: true
score: "0"
"""


def test_a_choice_or_loop_variable_named_like_a_definition_is_a_load_error_naming_both(tmp_path):
    # issue 30: the choice `limit` silently hid the definition `limit`, also inside `small`
    path = _write(tmp_path, SHADOW)
    problems = trickkit.validate(path)
    choice = [p for p in problems if p.path == "$.round[1].turns.actions.go.choices.limit"]
    assert len(choice) == 1, problems
    assert (choice[0].line, choice[0].column) == (22, 28)
    message = choice[0].message
    assert "choice 'limit' has the name of the definition 'limit'" in message
    assert f"{path}:12:10: $.definitions.limit" in message  # where the definition is
    loop = [p for p in problems if "loop variable" in p.message]
    assert len(loop) == 1 and "'rank_of_top' is a definition" in loop[0].message
    assert f"{path}:14:16: $.definitions.rank_of_top" in loop[0].message
    with pytest.raises(trickkit.RulesetError):
        trickkit.load_game(path)


def test_a_card_attribute_has_one_type_across_the_deck(tmp_path):
    # issue 30: `points: "-10"` on one card passed validate and lint and failed in play
    text = STUCK.replace(
        '  - rank: {from: 1, to: 4}\n    text: "{rank}"\n',
        '  - rank: {from: 1, to: 3}\n    text: "{rank}"\n    attributes: {points: 1}\n'
        '  - {rank: 4, text: "J", attributes: {points: "-10"}}\n',
    ).replace("ALLOWED", "true")
    path = _write(tmp_path, text)
    problems = trickkit.validate(path)
    assert len(problems) == 1, problems
    p = problems[0]
    assert p.path == "$.deck[1].attributes.points"
    assert "attribute 'points' of card 'J' is a text ('-10')" in p.message
    assert "card '1' (deck[0]) has a number" in p.message
    ok = text.replace('points: "-10"', "points: -10")
    assert trickkit.validate(_write(tmp_path, ok, "ok.yaml")) == []


def test_a_dsl_error_inside_a_definition_points_its_caret_at_the_bad_name(tmp_path):
    # issue 30: the caret pointed at the start of the expression, not at `c.point`
    path = _write(tmp_path, "extends: sarkophag\nname: caret\ndefinitions:\n  bad: sum(c.point for c in trick)\n")
    (problem,) = trickkit.validate(path)
    assert problem.path == "$.definitions.bad"
    assert (problem.line, problem.column) == (4, 8)  # the value (a plain scalar); the caret shows the name
    assert problem.message.endswith("    sum(c.point for c in trick)\n          ^")


def test_a_definition_parameter_named_like_another_definition_is_a_load_error_naming_both(tmp_path):
    # issue 30: `under(limit)` read its parameter where the definition `limit` was meant, silently
    text = (
        SHADOW.replace(
            "  small: rank_of_top < limit\n", "  small: rank_of_top < limit\n  under(limit): rank_of_top < limit\n"
        )
        .replace('          choices: {limit: "[1, 2]"}\n', '          choices: {level: "[1, 2]"}\n')
        .replace('text: "go {limit}"', 'text: "go {level}"')
        .replace("for rank_of_top in [1]", "for k in [1]")
    )
    path = _write(tmp_path, text)
    problems = trickkit.validate(path)
    assert len(problems) == 1, problems
    problem = problems[0]
    assert (problem.path, problem.line, problem.column) == ('$.definitions["under(limit)"]', 14, 3), problem
    assert problem.message.startswith(
        "parameter 'limit' of definition 'under' has the name of the definition 'limit' ("
    )
    assert f"{path}:12:10: $.definitions.limit" in problem.message  # where the other definition is
    with pytest.raises(trickkit.RulesetError):
        trickkit.load_game(path)
