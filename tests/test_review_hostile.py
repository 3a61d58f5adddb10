"""Hostile-input review (reviewer branch ``hostile``): one minimal test per finding.

Each test builds the smallest ruleset (a copy of a shipped game with one rule changed) or
call that shows a broken promise of docs/robustness.md. Tests of problems not fixed yet are
``xfail(strict=True)``: they fail today for the reason given and turn the suite red once fixed,
so the fixer removes the mark.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest
import yaml

import trickkit
from trickkit import DSLRuntimeError, RulesetError, TrickkitError

RULESETS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rulesets")


def shipped(name: str) -> dict:
    with open(os.path.join(RULESETS, f"{name}.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def write(tmp_path, doc, name="case.yaml"):
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return str(p)


def sarkophag_with(tmp_path, **rules):
    """Sarkophag with some of its rules replaced: ``score=...``, ``after_trick=...``, ``leader=...``."""
    d = shipped("sarkophag")
    tricks = d["round"][1]["tricks"]
    for key, text in rules.items():
        if key in ("score", "game_over"):
            d[key] = text
        else:
            tricks[key] = text
    return trickkit.load_game(write(tmp_path, d))


def play_randomly(state, rng, steps=10_000):
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))


# -- a rule of type int that gives a bool at play --------------------------------------------


def test_score_that_is_a_bool_at_play_is_refused(tmp_path):
    """`score: true` is refused at load ("must be a number"), but a score whose static type is
    `any` (an if whose branches are int and bool) returned True to `scores()`: the run-time
    result check of ruleset.py (`_RESULT_CHECKS["int"]`, isinstance(v, int)) let bools through."""
    game = sarkophag_with(tmp_path, score="if heads[seat] >= 0 then true else 1")
    state = game.new_initial_state(seed=1)
    with pytest.raises(DSLRuntimeError, match=r"\$\.score: expected an int, got True"):
        state.scores()


def test_leader_that_is_a_bool_at_play_is_refused(tmp_path):
    """The same for a seat: `leader: true` is refused at load, `if ... then true else 0` led
    from seat True (seat 1)."""
    game = sarkophag_with(tmp_path, leader="if dealer >= 0 then true else 0")
    with pytest.raises(DSLRuntimeError, match=r"leader: expected an int, got True"):
        game.new_initial_state(seed=1).legal_actions()


# -- a variable set at play to a value of another type ----------------------------------------


def test_variable_set_to_a_text_at_play_fails_at_the_assignment(tmp_path):
    """'Variables keep the type of their initial value': `heads` (initial 0) assigned an if
    whose branches are a text and an int loads (static type any), then holds 'x'; the
    failure is reported at `$.score` (reading `heads`), not at the assignment that broke it."""
    game = sarkophag_with(
        tmp_path, after_trick="heads[winner.seat] = if round > 0 then 'x' else 0", score="0", game_over="false"
    )
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    with pytest.raises(DSLRuntimeError, match=r"after_trick"):
        for _ in range(4):  # one trick of four seats: after_trick runs
            state.apply_action(rng.choice(state.legal_actions()))
    assert all(v.__class__ is int for v in state.seat_vars[0])  # heads


def test_variable_set_to_a_bool_at_play_is_refused(tmp_path):
    game = sarkophag_with(tmp_path, after_trick="heads[winner.seat] = if round > 0 then true else 0")
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    try:
        for _ in range(4):
            state.apply_action(rng.choice(state.legal_actions()))
    except DSLRuntimeError:
        return  # refused where it happened: fine
    assert all(v.__class__ is int for v in state.seat_vars[0]), state.seat_vars[0]  # heads


# -- built-ins whose arguments type-check but fail as Python errors at play ---------------------


def test_distinct_of_a_list_of_lists(tmp_path):
    """`distinct(l)` type-checks for any list, but a list of lists (zones, `[[1], [1]]`) failed at
    play with "TypeError: unhashable type: 'list'" (builtins.py: dict.fromkeys)."""
    game = sarkophag_with(
        tmp_path,
        must_play_if_able="len(distinct([[1], [2], [1]])) == 2 and "
        "len(distinct(list(hand[s] for s in seats))) == num_players",
    )
    state = game.new_initial_state(seed=1)
    play_randomly(state, random.Random(0))
    assert state.is_terminal()


def test_concat_of_a_list_of_numbers_is_a_load_error(tmp_path):
    """Promise: a built-in argument of the wrong type is a located RulesetError at load."""
    with pytest.raises(RulesetError, match=r"must_play_if_able: .*concat"):
        sarkophag_with(tmp_path, must_play_if_able="len(concat([1, 2])) > 0")


@pytest.mark.parametrize(
    "rule", ["abs(null) == 0", "min(card.rank, null) == 0", "-null == 0", "null + 1 == 2", "left_of(null) == 0"]
)
def test_arithmetic_on_a_literal_null_is_a_load_error(tmp_path, rule):
    with pytest.raises(RulesetError, match=r"must_play_if_able"):
        sarkophag_with(tmp_path, must_play_if_able=rule)


# -- public API calls with odd arguments ------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   "])
def test_action_seen_by_a_blank_text(text):
    """`State.action_seen_by` is public (docs/reference/api.md); during Skull King's
    simultaneous bid a blank action text escaped as a raw IndexError."""
    state = trickkit.load_game("skull_king").new_initial_state(seed=1)
    try:
        seen = state.action_seen_by(text, 0)
    except (TrickkitError, ValueError):
        return
    assert isinstance(seen, str)


# -- ruleset text reaching generated code ---------------------------------------------------

INJECTED = "s.seat_vars[0][0] = 999"
"""A statement the AST allow-list accepts: it would change a seat variable of the game."""


@pytest.mark.parametrize(
    "name", ["sarkophag", "spades", "skull_king", "hearts", "oh_hell", "six_nimmt", "trumps", "saqqara", "crazy_eights"]
)
@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n"])
def test_extends_path_never_reaches_generated_code(tmp_path, name, newline):
    """`extends: "p\\n    s.seat_vars[0][0] = 999\\n#.yaml"` names a parent file in the folder;
    its rules are located in that file, and fused.py wrote the step's location (`step_where`)
    raw into a `# ...` comment of the generated legal-plays / card-played / bid functions: the
    line after the newline was compiled and ran (Sarkophag: seat 0 had 999 heads after the first
    play). Ruleset text must never reach exec."""
    parent = f"p{newline}    {INJECTED}{newline}#.yaml"
    try:
        (tmp_path / parent).write_text(Path(RULESETS, f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    except OSError:
        pytest.skip("the file system refuses that file name")
    child = write(tmp_path, {"extends": parent, "name": "innocent"}, "child.yaml")
    try:
        game = trickkit.load_game(child)
    except RulesetError:
        return  # refusing such a path is fine too
    for line in game.rules.generated_source.splitlines():
        assert line.strip() != INJECTED, f"ruleset text compiled as code: {line!r}"
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    for _ in range(6):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        assert 999 not in [v for var in state.seat_vars for v in var]


# -- work the evaluation budget does not count -------------------------------------------------


@pytest.mark.parametrize(
    "test",
    ["-1 in big", "-1 not in big", "big == b2", "index_of(big, -1) == 0", "len(distinct(big)) == 0", "str(big) == 'x'"],
)
def test_linear_operations_on_long_lists_are_charged(tmp_path, test):
    """Promise: runaway rules hit counted limits (EVALUATION_BUDGET, 5,000,000 list items per
    engine call). This rule walks 100 x 100,000 = 10,000,000 items but is charged ~100,200, so it
    runs; 40,000 turns of the loop instead of 100 took minutes per trick (one Sarkophag game of
    `99999 in big` was stopped after ten minutes)."""
    block = (
        "let big = range(0, 100000)\nlet b2 = range(0, 100000)\n"
        f"for i in range(0, 100) {{\n  if {test} {{ heads[0] += 0 }}\n}}"
    )
    game = sarkophag_with(tmp_path, after_trick=block)
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    with pytest.raises(DSLRuntimeError, match=r"EvaluationLimit|budget"):
        for _ in range(4):  # the first trick: after_trick runs once
            state.apply_action(rng.choice(state.legal_actions()))


# -- extends merge directives ------------------------------------------------------------------


@pytest.mark.parametrize("keys", ["[[1]]", "[{a: 1}]", "[name, [round]]"])
@pytest.mark.parametrize("where", ["", "parameters:\n  "])
def test_remove_of_a_list_or_mapping_is_a_ruleset_error(tmp_path, keys, where):
    """`$remove: [[1]]` in a mapping escaped as a raw TypeError (unhashable type: 'list') from
    inherit.py `_Merger._removed_keys` (`k not in parent` on a dict)."""
    path = write(tmp_path, f"extends: sarkophag\nname: v\n{where}$remove: {keys}\n")
    with pytest.raises(RulesetError, match=r"\$remove"):
        trickkit.load_game(path)


# -- a definition that takes a built-in function's name ---------------------------------------


@pytest.mark.parametrize("head", ["len(x)", "abs(x)", "sum", "move(a, b, c)", "any(x)", "left_of(x)", "true", "str(x)"])
def test_definition_may_not_hide_a_built_in_function(tmp_path, head):
    """`definitions: {round(x): ...}` or `seats` are refused ("hides a built-in name"), but
    `len(x): '7'` loaded and silently changed every `len(...)` of the rules (the parent's too:
    `score: len(trick)` gave 7). ruleset.py checked only the state names and constants."""
    path = write(tmp_path, f"extends: sarkophag\nname: v\ndefinitions:\n  '{head}': '7'\n")
    with pytest.raises(RulesetError, match=r"hides"):
        trickkit.load_game(path)


def test_concat_is_limited_like_plus(tmp_path):
    """`l + l` is refused past MAX_VALUE_LENGTH (100,000 items), but `concat(list(big for i in
    range(0, k)))` built k x 100,000 items, charged k: 100 made 10 million in 5 s and 140 MB, and
    k = 5,000 (well inside the budget) would ask for gigabytes. builtins.py concat had no limit."""
    block = "let big = range(0, 100000)\nif len(concat(list(big for i in range(0, 3)))) == 0 { heads[0] += 0 }"
    game = sarkophag_with(tmp_path, after_trick=block)
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    with pytest.raises(DSLRuntimeError, match="EvaluationLimit: a list of 300000 items"):
        for _ in range(4):
            state.apply_action(rng.choice(state.legal_actions()))


# -- a variable set to a zone ---------------------------------------------------------------


def _saved_hand_game(tmp_path):
    d = shipped("sarkophag")
    d["table_variables"] = {"saved": {"initial": []}, "n_saved": {"initial": -1}}
    d["round"][1]["tricks"]["after_trick"] = (
        "if n_saved < 0 {\n  saved = hand[0]\n  n_saved = len(hand[0])\n}\nheads[winner.seat] += 1"
    )
    return trickkit.load_game(write(tmp_path, d))


def test_variable_set_to_a_zone_keeps_its_value_and_clones_agree(tmp_path):
    """After the first trick `saved` holds seat 0's 9 cards; moves out of hand[0] later shrank
    the variable too (no assignment ran), while `clone()` copies zones and variables apart,
    so the clone kept 9: a clone played with the same actions diverged from its original."""
    game = _saved_hand_game(tmp_path)
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    for _ in range(4):  # the first trick: saved = hand[0] (9 cards)
        state.apply_action(rng.choice(state.legal_actions()))
    clone = state.clone()
    for _ in range(8):
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        clone.apply_action(action.text)
    saved = state.observation_all()["variables"]["saved"]
    assert len(saved) == 9, saved
    assert state.observation_all() == clone.observation_all()


# -- numbers beyond the float range in observation tensors -------------------------------------


def test_observation_tensor_of_a_number_beyond_the_float_range(tmp_path):
    """Rules may compute integers of up to MAX_INT_BITS (4,096) bits; a seat variable (and the
    score) of 2**1100 made `observation_tensor` raise a raw OverflowError (tensor.py float())."""
    game = sarkophag_with(
        tmp_path,
        after_trick="heads[winner.seat] = 1\nfor i in range(0, 1100) {\n"
        "  heads[winner.seat] = heads[winner.seat] * 2\n}",
        score="0",
    )
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    for _ in range(4):
        state.apply_action(rng.choice(state.legal_actions()))
    assert max(state.seat_vars[0]) == 2**1100  # heads
    for seat in range(game.num_players):
        tensor = state.observation_tensor(seat)
        assert len(tensor) == game.observation_tensor_shape()[0]
        assert float(max(tensor)) == float(np.finfo(np.float32).max)  # clamped to the float32 range


BIG_SCORE = "heads[winner.seat] = 1\nfor i in range(0, 1100) {\n  heads[winner.seat] = heads[winner.seat] * 2\n}"


def test_a_score_too_large_for_records_is_a_located_error(tmp_path):
    """A score of 2**1100 (332 digits) made `trickkit simulate` and `compare` end in a raw
    OverflowError traceback (simulation.summarise, lab/stats.mean_interval: int / int and
    fsum), and `simulate --out` wrote records that `replay` then refused (JSON integers of at
    most 100 digits). The score rule now refuses such a value where it is computed."""
    game = sarkophag_with(tmp_path, after_trick=BIG_SCORE)
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    for _ in range(4):
        state.apply_action(rng.choice(state.legal_actions()))
    with pytest.raises(DSLRuntimeError, match=r"\$\.score: a score of 332 digits is too large"):
        state.scores()


def test_simulate_cli_with_a_huge_score_has_no_traceback(tmp_path):
    import subprocess
    import sys

    d = shipped("sarkophag")
    d["round"][1]["tricks"]["after_trick"] = BIG_SCORE
    path = write(tmp_path, d)
    for args in (
        ["simulate", path, "--games", "2", "--no-progress"],
        ["compare", path, "sarkophag", "--games", "2", "--no-progress"],
    ):
        run = subprocess.run(
            [sys.executable, "-m", "trickkit.cli.main", *args], capture_output=True, text=True, timeout=600
        )
        assert "Traceback" not in run.stderr, run.stderr[-2000:]
        assert run.returncode == 2 and "DSLRuntimeError" in run.stderr


# -- choice parameters ----------------------------------------------------------------------


def test_choice_parameter_compared_with_a_number_is_a_type_error(tmp_path):
    """A choice parameter had type `any` (ruleset.py `_symbols`), so `sequence == 3` (text choices)
    or Skull King's `round == rounds` after `rounds` became a choice of texts loaded and was
    always false: the game never ended (max_actions, or a deal error at round 17)."""
    path = write(
        tmp_path, 'extends: oh_hell\nname: v\ndefinitions:\n  hands: "if sequence == 3 then 2 * most - 1 else most"\n'
    )
    with pytest.raises(RulesetError, match="comparing str with int"):
        trickkit.load_game(path)
    path = write(
        tmp_path,
        "extends: skull_king\nname: v\nparameters:\n  rounds: {type: choice, choices: ['1', '2'], default: '1'}\n",
        "sk.yaml",
    )
    with pytest.raises(RulesetError, match=r"game_over: comparing int with str"):
        trickkit.load_game(path)


def test_choice_parameter_compared_with_a_text_it_never_takes(tmp_path):
    """`sequence == 'updown'` (the choices are up_down, up, down) is always false: the same
    mistake with a card attribute gets "did you mean"."""
    path = write(
        tmp_path,
        "extends: oh_hell\nname: v\ndefinitions:\n  hands: \"if sequence == 'updown' then 2 * most - 1 else most\"\n",
    )
    with pytest.raises(RulesetError, match=r"parameter 'sequence' is never 'updown' \(did you mean 'up_down'\?\)"):
        trickkit.load_game(path)


# -- a trick won by a play that is not in it ---------------------------------------------------


def test_winner_must_be_a_play_of_the_trick(tmp_path):
    """`winner: old[0]` (a play kept from the previous trick in a variable) has the static
    type play and loaded; every later trick went to the seat of that old play, silently. The
    design lab's lint reports such a winner; the engine should refuse it where it happens."""
    d = shipped("sarkophag")
    d["table_variables"] = {"old": {"initial": []}}
    d["round"][1]["tricks"]["after_trick"] = "old = list(p for p in trick)\nheads[winner.seat] += 1"
    d["round"][1]["tricks"]["winner"] = "if len(old) > 0 then old[0] else lowest(p for p in trick by p.rank)"
    game = trickkit.load_game(write(tmp_path, d))
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    with pytest.raises(
        DSLRuntimeError, match=r"\$\.round\[1\]\.tricks\.winner: the winner must be a play of this trick"
    ):
        for _ in range(8):  # the second trick is won by a play of the first
            state.apply_action(rng.choice(state.legal_actions()))


# -- the size of observation tensors ---------------------------------------------------------


def test_observation_tensor_size_is_limited(tmp_path):
    """Each zone (a family member, a seat zone per seat) takes a float per card text: a
    20-line ruleset with a 9,000-card deck and two families of 1,000 piles asked for 18 million
    floats per `observation_tensor` call (ten such families: most of a gigabyte per call, and
    nothing limited it). Now a located refusal, like the action space's MAX_DISTINCT_ACTIONS."""
    from trickkit.engine.tensor import MAX_TENSOR_SIZE

    d = shipped("sarkophag")
    d["deck"][0]["rank"] = {"from": 1, "to": 9000}
    d["deck"][0]["attributes"]["heads"] = {"by": "rank", "default": 1, "groups": {0: [1]}}
    d["zones"]["piles"] = {"owner": "table", "count": 1000, "visibility": "public"}
    d["zones"]["piles2"] = {"owner": "table", "count": 1000, "visibility": "public"}
    game = trickkit.load_game(write(tmp_path, d))
    state = game.new_initial_state(seed=1)
    state.apply_action(state.legal_actions()[0])  # play goes on: only the tensor is refused
    with pytest.raises(TrickkitError, match=r"observation tensor would hold 18,\d{3},\d{3} floats"):
        state.observation_tensor(0)
    with pytest.raises(ValueError, match=f"limit {MAX_TENSOR_SIZE:,}"):
        game.observation_tensor_shape()


# -- validate checks every seat count ---------------------------------------------------------


def test_validate_finds_problems_of_other_seat_counts(tmp_path, capsys):
    """`players: {min: 2, max: 4}` over Spades (teams [[0, 2], [1, 3]]) validated "ok" (only
    the default 4 seats were loaded: loader.validate, cli validate), and
    `load_game(path, players=3)` then raised a RulesetError that validate never reported."""
    from trickkit.cli.main import main

    path = write(tmp_path, "extends: spades\nname: v\nplayers: {min: 2, max: 4, default: 4}\n")
    problems = trickkit.validate(path)
    assert any("got 3 (with 3 players)" in str(p) for p in problems), problems
    assert main(["validate", path]) == 1
    assert "(with 2 players)" in capsys.readouterr().out


def test_validate_names_the_seat_count_once(tmp_path):
    """A deal too big at another seat count said "(with these parameters and 4 players) (with 4
    players)": the seat count is added only to a message that does not name it already."""
    path = write(
        tmp_path,
        "extends: sarkophag\nname: v\nplayers: {min: 3, max: 6, default: 3}\nparameters:\n  hand_size: {default: 16}\n",
    )
    messages = [p.message for p in trickkit.validate(path)]
    assert messages and all(m.endswith(" players)") for m in messages), messages
    assert not any(m.count("players)") > 1 for m in messages), messages


# -- shipped games at the edges of their declared parameters -----------------------------------


@pytest.mark.parametrize("players, hand_size", [(4, 16), (5, 13), (6, 11), (6, 20)])
def test_sarkophag_declared_hand_sizes_can_be_played(players, hand_size):
    """Every value the parameters declare valid either loads into a playable game or is refused
    at load with a RulesetError; `load_game('sarkophag', players=6, hand_size=20)` loads, then
    `new_initial_state` raises "cannot deal 20 cards to 6 seats from 60 cards" (oh_hell caps
    its max_cards at what the deck allows instead)."""
    try:
        game = trickkit.load_game("sarkophag", players=players, hand_size=hand_size)
    except RulesetError:
        return
    state = game.new_initial_state(seed=1)
    play_randomly(state, random.Random(0))
    assert state.is_terminal()


# -- names with a final newline ----------------------------------------------------------------


@pytest.mark.parametrize("where", ["action kind", "zone", "name"])
def test_a_name_may_not_end_with_a_newline(tmp_path, where):
    """The schema's name pattern `^[A-Za-z_][A-Za-z0-9_]*$` was run with Python's `re.search`,
    whose `$` also matches before a final newline: an action kind `"draw\\n"` loaded, and its
    action text `draw\\n` could not be typed (`apply_action("draw")` is refused)."""
    if where == "action kind":
        d = shipped("crazy_eights")
        acts = next(s["turns"]["actions"] for s in d["round"] if "turns" in s)
        acts["draw\n"] = acts.pop("draw")
    elif where == "zone":
        d = shipped("sarkophag")
        d["zones"]["stock\n"] = d["zones"].pop("stock")
        d["round"][0]["deal"]["rest"] = "stock\n"
    else:
        d = shipped("sarkophag")
        d["name"] = "sarkophag\n"
    with pytest.raises(RulesetError, match=r"does not match"):
        trickkit.load_game(write(tmp_path, d))


@pytest.mark.parametrize("actions", [None, 5])
def test_game_replay_with_actions_that_are_not_a_list(actions):
    game = trickkit.load_game("sarkophag")
    with pytest.raises(TypeError, match="actions must be a list"):
        game.replay(1, None, actions)


@pytest.mark.parametrize("value", [None, "x", 5])
def test_setting_rng_to_a_non_generator(value):
    state = trickkit.load_game("crazy_eights").new_initial_state(seed=1)
    try:
        state.rng = value
    except (TrickkitError, TypeError, ValueError):
        return  # refused at once: fine
    rng = random.Random(0)
    with pytest.raises((TrickkitError, TypeError, ValueError)):
        for _ in range(300):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        state.clone()


# -- lookahead trials spend the budget again ---------------------------------------------------

LOOKAHEAD_GAME = """\
format: 1
name: look
title: Look
players: {min: 2, max: 2, default: 2}
parameters:
  n: {type: int, default: 3000}
deck:
  - {text: x}
zones:
  box: {owner: table, visibility: public}
table_variables:
  count: {initial: 0}
round:
  - turns:
      first: "0"
      until: count >= 6
      actions:
        pick:
          text: "pick {k}"
          choices: {k: "range(0, n)"}
          allowed: "count == 0 or sum(j for j in range(0, 3)) > 0 and k == n - 1"
          lookahead: true
          effect: count += 1
game_over: "true"
score: count
"""


def test_lookahead_trials_share_the_evaluation_budget(tmp_path):
    """Each of the n `pick` actions is checked by a trial whose own legal check tries all n
    combinations: 3,000 choices cost 9 million items, over the 5 million budget of one engine
    call. Before the trials were charged to the call that asked for them, this ran (6,000
    choices: 10 s; 60,000, inside the action space limit: about 15 minutes for one
    legal_actions())."""
    game = trickkit.load_game(write(tmp_path, LOOKAHEAD_GAME))
    state = game.new_initial_state(seed=1)
    with pytest.raises(DSLRuntimeError, match="budget"):
        state.legal_actions()


# -- a ruleset's own action limit --------------------------------------------------------------


def test_max_actions_is_bounded(tmp_path):
    """`max_actions` is the counted limit that stops a game that never ends, but the ruleset
    set it without bound: `max_actions: 1000000000000` with `game_over: "false"` made
    `trickkit simulate` run for days (and keep every action in the history)."""
    path = write(tmp_path, 'extends: sarkophag\nname: v\nmax_actions: 1000000000000\ngame_over: "false"\n')
    with pytest.raises(RulesetError, match=r"max_actions: 1000000000000 is greater than the maximum"):
        trickkit.load_game(path)


# -- a reason rule that gives null ---------------------------------------------------------------


def test_a_null_reason_gives_the_default_refusal(tmp_path):
    """`reason` gives a text for a refused card; where it gives null the refusal said 'None: you
    hold ...'. Now the engine's own words stand instead."""
    d = shipped("sarkophag")
    d["round"][1]["tricks"]["reason"] = "if len(trick) == 0 then 'a card with 5 heads may not lead' else null"
    game = trickkit.load_game(write(tmp_path, d))
    for seed in range(50):
        state = game.new_initial_state(seed=seed)
        state.apply_action(state.legal_actions()[0])
        state.apply_action(state.legal_actions()[0])  # from the third card on, the direction decides
        legal = {a.text for a in state.legal_actions()}
        seat = state.current_player()
        hand = state.observation(seat)["zones"]["hand"][seat]["cards"]
        refused = [f"play {c}" for c in hand if f"play {c}" not in legal]
        if refused:
            with pytest.raises(trickkit.IllegalActionError, match="the follow rules forbid it: you hold") as info:
                state.apply_action(refused[0])
            assert "None" not in str(info.value)
            return
    pytest.fail("no refused card in 50 deals")
