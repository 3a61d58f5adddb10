"""Hostile input, round three (issue 34): work that the evaluation budget did not see.

One property or table test per class: the size and depth of stored values, calls of
definitions, action-space probing, the sampler's constraint trials, and the commands that
multiplied work outside the budget (lint, test, diff, check, simulate). Every guard is a
counted limit, and the tests count (calls, clones, actions, workers), never time; the alarm
of `no_hang` only turns a hang into a failure.
"""

from __future__ import annotations

import os
import random
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit import DSLRuntimeError, RulesetError
from trickkit.dsl.runtime import EVALUATION_BUDGET, MAX_STORED_DEPTH, MAX_STORED_SIZE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backstop  # (the hang backstop shared with the other fuzz suites)

HANG_SECONDS = 300  # a backstop against a real hang, never a speed assertion (the limits are counted)
PROPERTY = settings(
    max_examples=int(os.environ.get("TRICKKIT_HOSTILE_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

NEVER = """
name: never
title: Never
players: {min: 2, max: 4, default: 2}
deck:
  - suit: {R: red, B: blue}
    rank: {from: 1, to: 5}
    text: "{suit}{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
round:
  - deal: {count: 2}
  - tricks: {count: 2, winner: "highest(p for p in trick by p.card.rank)"}
game_over: "false"
score: "0"
"""
"""A game whose rounds never end it (every command must still answer within seconds)."""


def no_hang(what: str):
    return backstop.no_hang(what, HANG_SECONDS)


def measure(v, cap: int = 10 * MAX_STORED_SIZE) -> tuple[int, int]:
    """(items counted through nested lists, depth) of ``v``, an independent walk stopped at ``cap``."""
    if v.__class__ is not list:
        return 0, 0
    total, deepest, stack = 0, 1, [(v, 1)]
    while stack and total <= cap:
        x, d = stack.pop()
        total += len(x)
        deepest = max(deepest, d)
        stack.extend((y, d + 1) for y in x if isinstance(y, list))
    return total, deepest


def effect_game(tmp_path: Path, block: str, variables: str = "l: {initial: [], type: list}") -> Path:
    body = textwrap.indent(textwrap.dedent(block).strip("\n"), " " * 10)
    path = tmp_path / "v.yaml"
    path.write_text(
        "extends: skull_king\nname: v\n"
        f"table_variables:\n  {variables}\n"
        "round:\n  $insert_before:\n    0:\n      - effect: |\n" + body + "\n",
        "utf-8",
    )
    return path


# ====================================================================== stored values

GROWTH = [
    "l = [l, l]",
    "l = [l]",
    "l = [l, 1, l, 2]",
    "l = l + l",
    "l = [l] + [l]",
    "l = list(l for x in range(0, 3))",
    "l = list([l, x] for x in range(0, 2))",
    "l = [[l]]",
]
"""Statements that make the value of ``l`` larger or deeper each time they run."""


@PROPERTY
@given(st.lists(st.sampled_from(GROWTH), min_size=1, max_size=3), st.integers(1, 60))
def test_stored_values_stay_within_their_size_and_depth(tmp_path_factory, steps, times):
    """However a rule grows a variable's value, either it fails at the rule (located) or what
    is stored is within `MAX_STORED_SIZE` items and `MAX_STORED_DEPTH` levels, and a clone, an
    observation, a transcript and a save of the state all finish."""
    tmp = tmp_path_factory.mktemp("grow")
    block = f"l = [1]\nfor i in range(0, {times}) {{\n" + "\n".join("  " + s for s in steps) + "\n}"
    game = trickkit.load_game(effect_game(tmp, block))
    with no_hang(f"growing {steps} x{times}"):
        try:
            state = game.new_initial_state(seed=1)
        except DSLRuntimeError as e:
            assert "v.yaml:" in str(e)
            assert "cannot be stored" in str(e) or "budget" in str(e) or "limit" in str(e), e
            return
        stored = state.table_vars[game.rules.table_vars[0].index]
        size, depth = measure(stored)
        assert size <= MAX_STORED_SIZE and depth <= MAX_STORED_DEPTH + 1, (size, depth)
        state.clone()
        state.observation(0)
        state.transcript(0)
        state.observation_tensor(0)
        trickkit.load_game(effect_game(tmp, block)).state_from_json(state.to_json())


@pytest.mark.parametrize(
    "block, words",
    [
        ("for i in range(0, 40) { l = [l, l] }", f"more than {MAX_STORED_SIZE} items"),
        ("for i in range(0, 50000) { l = [l] }", f"more than {MAX_STORED_DEPTH} lists deep"),
        ("l = list(range(0, 100000) for i in range(0, 60))", f"more than {MAX_STORED_SIZE} items"),
    ],
)
def test_the_red_team_values_fail_at_the_rule(tmp_path, block, words):
    game = trickkit.load_game(effect_game(tmp_path, block))
    with no_hang(block), pytest.raises(DSLRuntimeError, match=r"v.yaml:\d+:\d+: \$\.round\[0\]\.effect: .*" + words):
        game.new_initial_state(seed=1)


def test_seat_variables_are_measured_too(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(
        "extends: skull_king\nname: v\nseat_variables:\n  m: {initial: [], type: list}\n"
        "round:\n  $insert_before:\n    0:\n      - effect: |\n"
        "          for i in range(0, 40) { m[0] = [m[0], m[0]] }\n",
        "utf-8",
    )
    game = trickkit.load_game(path)
    with pytest.raises(DSLRuntimeError, match="cannot be stored"):
        game.new_initial_state(seed=1)


@pytest.mark.parametrize("depth, ok", [(MAX_STORED_DEPTH, True), (MAX_STORED_DEPTH + 1, False)])
def test_initial_values_keep_the_same_limits(tmp_path, depth, ok):
    value = "[" * depth + "]" * depth
    path = tmp_path / "v.yaml"
    path.write_text(f"extends: skull_king\nname: v\ntable_variables:\n  l: {{initial: {value}, type: list}}\n", "utf-8")
    if ok:
        trickkit.load_game(path)
        return
    with pytest.raises(RulesetError, match=r"\$\.table_variables\.l\.initial: initial value too large"):
        trickkit.load_game(path)


def test_measuring_a_huge_shared_value_stops_early():
    """The store check walks at most about MAX_STORED_SIZE items whatever the value."""
    from trickkit.dsl.runtime import Budget, EvaluationLimit, stored

    v: list = [1]
    for _ in range(60):  # 2^60 items counted through sharing
        v = [v, v]
    b = Budget()
    with pytest.raises(EvaluationLimit, match="cannot be stored"):
        stored(b, v)
    assert b.budget == EVALUATION_BUDGET  # refused before anything was charged


# ====================================================================== calls


def call_chain(fanout: int, depth: int, state_only: bool) -> str:
    if state_only:
        lines = ["  d0: round + 1"]
        lines += [f"  d{i}: ({' + '.join([f'd{i - 1}'] * fanout)}) % 1000" for i in range(1, depth + 1)]
    else:
        lines = ["  d0(x): x + 1"]
        parts = [f"d{{p}}(x + {k})" for k in range(fanout)]
        lines += [f"  d{i}(x): ({' + '.join(p.format(p=i - 1) for p in parts)}) % 1000" for i in range(1, depth + 1)]
    call = f"d{depth}" if state_only else f"d{depth}(round)"
    return (
        "definitions:\n"
        + "\n".join(lines)
        + f"\ntable_variables:\n  y: 0\nround:\n  $insert_before:\n    0:\n      - effect: 'y = {call}'\n"
    )


@PROPERTY
@given(st.integers(2, 4), st.integers(1, 40), st.booleans())
def test_every_definition_call_is_charged(tmp_path_factory, fanout, depth, state_only):
    """A chain of definitions each calling the one below ``fanout`` times runs fanout^depth calls
    (an effect sees no memo). Each call of a definition generated as a function costs one item;
    a small one is inlined instead, and an inlined body (at most _INLINE_MAX_NODES tree nodes)
    holds at most that many calls: so past the budget times that factor it fails at the rule,
    located; well under the budget, it runs."""
    from trickkit.dsl.gen_names import _INLINE_MAX_NODES

    path = tmp_path_factory.mktemp("calls") / "v.yaml"
    path.write_text("extends: skull_king\nname: v\n" + call_chain(fanout, depth, state_only), "utf-8")
    game = trickkit.load_game(path)
    calls = fanout**depth
    with no_hang(f"calls {fanout}^{depth}"):
        if calls > EVALUATION_BUDGET * _INLINE_MAX_NODES:
            with pytest.raises(DSLRuntimeError, match=r"v.yaml:\d+:\d+: .*evaluation budget"):
                game.new_initial_state(seed=1)
        elif calls < EVALUATION_BUDGET // 50:
            game.new_initial_state(seed=1)


# ====================================================================== action-space probing


@pytest.mark.parametrize("cost, ok", [(1000, True), (100_000, False)])
def test_probing_shares_one_budget(tmp_path, cost, ok):
    """Probing for the bid values runs the options rule for every round and seat (400 times
    here, as the game never ends): with one budget shared by all of them, a costly rule stops
    the build with an ActionSpaceError saying so instead of running 400 budgets."""
    from trickkit.engine.spaces import PROBE_BUDGET, ActionSpaceError

    path = tmp_path / "v.yaml"
    options = f"range(0, 2 + len(list(x for x in range(0, {cost}) if x % 7 == round + 9)))"
    bid = f"  - bid: {{variable: b, options: '{options}'}}\n"
    text = NEVER.replace("  - tricks:", bid + "  - tricks:") + "seat_variables:\n  b: 0\n"
    path.write_text(text, "utf-8")
    game = trickkit.load_game(path)
    with no_hang("probing"):
        if ok:
            assert "bid 1" in game.action_space.texts
        else:
            assert cost * 100 * game.num_players > PROBE_BUDGET
            with pytest.raises(ActionSpaceError, match="ran over its evaluation budget"):
                game.action_space  # noqa: B018


# ====================================================================== the sampler's work


def test_the_sampler_does_bounded_work_per_observed_action(tmp_path, monkeypatch):
    """On a deck of thousands of cards, learning from one observed action used to clone the
    state once per hidden card; now it tries at most MAX_CONSTRAINT_TRIALS positions."""
    from trickkit.agents.determinize import MAX_CONSTRAINT_TRIALS, InformationSetSampler
    from trickkit.engine.state import State

    path = tmp_path / "big.yaml"
    path.write_text("extends: crazy_eights\nname: big\ndeck:\n  $change:\n    0:\n      copies: 60\n", "utf-8")
    game = trickkit.load_game(path)
    assert len(game.cards) > 2 * MAX_CONSTRAINT_TRIALS
    state = game.new_initial_state(seed=1)
    rng = random.Random(0)
    for _ in range(8):
        state.apply_action(rng.choice(state.legal_actions()))
    clones = legal = 0
    real_clone, real_legal = State.clone, State.legal_actions

    def counting_clone(self, *a, **k):
        nonlocal clones
        clones += 1
        return real_clone(self, *a, **k)

    def counting_legal(self):
        nonlocal legal
        legal += 1
        return real_legal(self)

    monkeypatch.setattr(State, "clone", counting_clone)
    monkeypatch.setattr(State, "legal_actions", counting_legal)
    sampler = InformationSetSampler(0, random.Random(0))
    with no_hang("sampler sync"):
        sampler.sync(state)
    actions = len(state.history())
    assert clones <= actions * (MAX_CONSTRAINT_TRIALS + 3), clones
    assert legal <= actions * (MAX_CONSTRAINT_TRIALS + 3), legal


# ====================================================================== commands


def test_lint_reports_a_game_that_never_ends(tmp_path, monkeypatch):
    from trickkit.engine.state import State
    from trickkit.lab.lint import GAME_ACTIONS, PLAY_ACTIONS, lint

    path = tmp_path / "never.yaml"
    path.write_text(NEVER, "utf-8")
    applied = 0
    real = State.apply_action

    def counting(self, action):
        nonlocal applied
        applied += 1
        return real(self, action)

    monkeypatch.setattr(State, "apply_action", counting)
    with no_hang("lint"):
        findings = lint(path)
    assert applied <= min(GAME_ACTIONS, PLAY_ACTIONS)
    assert [f.path for f in findings] == ["$.game_over"]
    assert "did not end within" in findings[0].message


def test_lint_plays_a_counted_number_of_actions(monkeypatch):
    """However many games are asked for, lint plays at most PLAY_ACTIONS actions."""
    from trickkit.engine.state import State
    from trickkit.lab import lint as lint_module

    monkeypatch.setattr(lint_module, "PLAY_ACTIONS", 300)
    applied = 0
    real = State.apply_action

    def counting(self, action):
        nonlocal applied
        applied += 1
        return real(self, action)

    monkeypatch.setattr(State, "apply_action", counting)
    lint_module.lint("hearts", games=1000)
    assert 0 < applied <= 300


def test_test_termination_stops_a_never_ending_game(tmp_path, monkeypatch, capsys):
    from trickkit.cli.checks import TEST_MAX_ACTIONS
    from trickkit.cli.main import main
    from trickkit.engine.state import State
    from trickkit.lab.conformance.replay import SHRINK_ACTIONS

    path = tmp_path / "never.yaml"
    path.write_text(NEVER, "utf-8")
    applied = 0
    real = State.apply_action

    def counting(self, action):
        nonlocal applied
        applied += 1
        return real(self, action)

    monkeypatch.setattr(State, "apply_action", counting)
    with no_hang("test --check termination"):
        code = main(["test", str(path), "--check", "termination", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"did not end within max_actions={TEST_MAX_ACTIONS}" in out
    assert f"stopped at {TEST_MAX_ACTIONS} actions unless --max-actions" in out
    # the failing game, then the shrinking replays: each at most TEST_MAX_ACTIONS long
    assert applied <= TEST_MAX_ACTIONS + SHRINK_ACTIONS + TEST_MAX_ACTIONS, applied


@PROPERTY
@given(st.integers(1, 400), st.integers(1, 400), st.integers(0, 3))
def test_diff_of_long_rules_is_bounded(old_lines, new_lines, changed):
    """Two rule texts of hundreds of lines: aligned (ndiff) only when the product of their line
    counts is at most DIFF_CELLS, else shown whole; every old and new line is in the output."""
    import difflib

    from trickkit.lab import diff as diff_module

    old = "\n".join(f"x{i} = {i}" for i in range(old_lines))
    new = "\n".join(f"x{i} = {i + (i % 4 < changed)}" for i in range(new_lines))
    calls = 0
    real = difflib.ndiff

    def counting(a, b, *args, **kwargs):
        nonlocal calls
        calls += 1
        return real(a, b, *args, **kwargs)

    change = diff_module._changed("definition d", old, new)
    saved, diff_module.difflib.ndiff = diff_module.difflib.ndiff, counting
    try:
        rows = diff_module.readable([change], width=60)
    finally:
        diff_module.difflib.ndiff = saved
    if len(change) <= 60:  # a short change is one sentence, not a line diff
        assert calls == 0 and rows == [change]
        return
    assert calls == (0 if old_lines * new_lines > diff_module.DIFF_CELLS else 1)
    shown = {r[6:] for r in rows[1:]}
    assert set(old.splitlines()) <= shown and set(new.splitlines()) <= shown


def test_diff_of_many_steps_is_bounded():
    from trickkit.lab import diff as diff_module

    ra = [{"effect": f"x = {i}"} for i in range(400)]
    rb = [{"effect": f"x = {i}"} for i in range(401)]
    out = diff_module._diff_steps(ra, rb)
    assert out == ["step added: round[400] effect: x = 400"]


def test_check_never_parses_a_large_refused_file(tmp_path, monkeypatch, capsys):
    """A scenario file over the 5 MB cap is refused; telling whether it is a ruleset must not
    parse it either (it was re-parsed with no limit)."""
    import yaml

    from trickkit.cli.main import main

    path = tmp_path / "big.yaml"
    path.write_text("deck: 1\nx: [" + "1, " * 1_700_000 + "1]\n", "utf-8")
    assert path.stat().st_size > 5_000_000
    loads = 0
    real = yaml.load

    def counting(*a, **k):
        nonlocal loads
        loads += 1
        return real(*a, **k)

    monkeypatch.setattr(yaml, "load", counting)
    monkeypatch.setattr(yaml, "safe_load", counting)
    with no_hang("check"):
        code = main(["check", str(path)])
    assert code == 1
    assert loads == 0
    assert "ERROR" in capsys.readouterr().out


@pytest.mark.parametrize("jobs, games, want", [(400, 2, 2), (400, 10_000, 64), (1, 5, 1), (3, 0, 1), (8, 100, 8)])
def test_worker_count_is_capped(jobs, games, want):
    from trickkit.lab.workers import MAX_JOBS, worker_count

    assert MAX_JOBS == 64
    assert worker_count(jobs, games) == want


def test_simulate_starts_no_more_workers_than_games(monkeypatch):
    from trickkit.lab import workers
    from trickkit.lab.simulation import simulate

    made = []
    real = workers.ProcessPoolExecutor

    def counting(max_workers=None, **kwargs):
        made.append(max_workers)
        return real(max_workers=max_workers, **kwargs)

    monkeypatch.setattr(workers, "ProcessPoolExecutor", counting)
    with no_hang("simulate --jobs 400"):
        simulate(trickkit.load_game("hearts"), 2, seed=1, jobs=400)
    assert made == [2]
