"""Tests of trickkit.lab.scenarios (fake game via a patched loader; real engine when present)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fakegame

import trickkit
import trickkit.engine.loader
from trickkit.errors import IllegalActionError, ScenarioError
from trickkit.lab import scenarios
from trickkit.lab.scenarios import ScenarioResult, load_scenario_file, run_scenario_file


@pytest.fixture
def fake(monkeypatch):
    """Route every scenario game load to the fake "pile" game; record the calls."""
    calls = []

    def load(game, base_dir, params):
        calls.append((game, base_dir, dict(params)))
        return fakegame.load_game(game, **params)

    monkeypatch.setattr(scenarios, "load_game_for_scenario", load)
    return calls


def write(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


# Seed 1 with two players: seat 1 starts.
GOOD = """\
- name: seat 1 starts and loses
  game: pile
  seed: 1
  actions:
    - expect: {current_player: 1, legal: [take 2, take 1], terminal: false}
    - take 2
    - expect: {current_player: 0, illegal: [take 3, nonsense]}
    - take 2
    - take 2
    - expect: {legal: [take 1], illegal: take 2, scores: [0, 0], winners: []}
    - take 1
    - expect: {terminal: true, current_player: -4, legal: [], scores: [1, 0], winners: [0]}
"""


def test_passing_scenario(tmp_path, fake):
    results = run_scenario_file(write(tmp_path, GOOD))
    assert results == [ScenarioResult(str(tmp_path / "s.yaml"), "seat 1 starts and loses", True, "", 0)]
    assert fake == [("pile", str(tmp_path), {})]


def fail_message(tmp_path, actions, **extra):
    lines = ["game: pile", "seed: 1"] + [f"{k}: {v}" for k, v in extra.items()] + ["actions:"]
    lines += [f"  - {a}" for a in actions]
    [result] = run_scenario_file(write(tmp_path, "\n".join(lines) + "\n"))
    assert not result.passed
    return result.message, result.line


@pytest.mark.parametrize(
    "actions,message,line",
    [
        (
            ["take 2", "'expect': {scores: [0, 0], current_player: 1}"],
            "step 2 (after 'take 2'): current_player expected 1 got 0",
            5,
        ),
        (
            ["'expect': {legal: [take 1, take 3]}"],
            "step 1 (at start): legal actions differ: missing ['take 3'], unexpected ['take 2']"
            " (legal now: ['take 1', 'take 2'])",
            4,
        ),
        (["'expect': {illegal: [take 1]}"], "step 1 (at start): illegal action 'take 1' was accepted", 4),
        (
            ["take 2", "take 2", "take 2", "take 1", "'expect': {scores: [0, 1]}"],
            "step 5 (after 'take 1'): scores expected [0, 1] got [1, 0]",
            8,
        ),
        (
            ["take 2", "take 2", "take 2", "take 1", "'expect': {winners: [1]}"],
            "step 5 (after 'take 1'): winners expected [1] got [0]",
            8,
        ),
        (["take 2", "'expect': {terminal: true}"], "step 2 (after 'take 2'): terminal expected true got false", 5),
        (
            ["take 2", "take 3"],
            "step 2 (after 'take 2'): action 'take 3' was rejected: 'take 3': you may take 1 or 2",
            5,
        ),
    ],
)
def test_first_difference_is_reported(tmp_path, fake, actions, message, line):
    assert fail_message(tmp_path, actions) == (message, line)


def test_only_the_first_difference_is_reported(tmp_path, fake):
    message, _ = fail_message(tmp_path, ["'expect': {scores: [9, 9]}", "'expect': {terminal: true}"])
    assert message == "step 1 (at start): scores expected [9, 9] got [0, 0]"


def test_winners_are_compared_sorted(tmp_path, fake, monkeypatch):
    monkeypatch.setattr(fakegame.PileState, "winners", lambda self: [1, 0])
    text = "game: pile\nactions:\n  - expect: {winners: [0, 1]}\n"
    assert run_scenario_file(write(tmp_path, text))[0].passed


def test_rejected_illegal_action_must_leave_state_untouched(tmp_path, fake, monkeypatch):
    original = fakegame.PileState.apply_action

    def sloppy(self, action):
        if str(action) == "take 9":
            self.pile -= 1
            raise IllegalActionError("no")
        return original(self, action)

    monkeypatch.setattr(fakegame.PileState, "apply_action", sloppy)
    message, _ = fail_message(tmp_path, ["'expect': {illegal: [take 3, take 9]}"])
    assert message == "step 1 (at start): illegal action 'take 9' was rejected but changed the state"


def test_params_players_deals_and_seed_are_used(tmp_path, fake):
    text = """\
    game: pile
    params: {pile: 3}
    players: 3
    seed: 5
    actions:
      - expect: {current_player: 2}
      - take 2
      - take 1
      - expect: {scores: [1, 0, 0]}
    """
    path = write(tmp_path, text)
    assert [r.passed for r in run_scenario_file(path)] == [True]
    assert fake[-1] == ("pile", str(tmp_path), {"pile": 3, "players": 3})
    deals = "game: pile\ndeals: [[2]]\nactions:\n  - take 2\n  - expect: {terminal: true, winners: [0]}\n"
    assert run_scenario_file(write(tmp_path, deals, "d.yaml"))[0].passed


def test_all_three_file_shapes_and_default_names(tmp_path, fake):
    one = write(tmp_path, "game: pile\nactions: [take 1]\n", "one.yaml")
    many = write(tmp_path, "- {game: pile, actions: [take 1]}\n- {name: b, game: pile, actions: []}\n", "many.yaml")
    wrapped = write(tmp_path, "scenarios:\n  - {game: pile, actions: [take 2]}\n", "wrapped.yaml")
    assert [(r.name, r.passed) for r in run_scenario_file(one)] == [("one", True)]
    assert [(r.name, r.passed) for r in run_scenario_file(many)] == [("many[0]", True), ("b", True)]
    assert [(r.name, r.passed) for r in run_scenario_file(wrapped)] == [("wrapped[0]", True)]


def test_game_that_cannot_load_is_a_failure(tmp_path, fake):
    [result] = run_scenario_file(write(tmp_path, "game: nosuch\nactions: [take 1]\n"))
    assert not result.passed
    assert result.message == "cannot load game 'nosuch': nosuch: $: no game 'nosuch'"


def test_relative_game_paths_resolve_against_the_scenario_file(tmp_path, monkeypatch):
    seen = []

    def load_game(ref, **kwargs):
        seen.append((ref, kwargs))
        return fakegame.PileGame(**kwargs)

    monkeypatch.setattr(trickkit, "load_game", load_game, raising=False)

    monkeypatch.setattr(trickkit.engine.loader, "load_game", load_game, raising=False)
    sub = tmp_path / "sub"
    sub.mkdir()
    path = write(
        sub,
        "- {game: games/../games/pile.yaml, params: {players: 3}, actions: [take 1]}\n"
        "- {game: skull_king, actions: [take 1]}\n",
    )
    results = run_scenario_file(path)
    assert [r.passed for r in results] == [True, True]
    assert seen == [(str(sub / "games/../games/pile.yaml"), {"players": 3}), ("skull_king", {})]


# ---------------------------------------------------------------- malformed files


def malformed(tmp_path, text, name="bad.yaml"):
    path = write(tmp_path, text, name)
    with pytest.raises(ScenarioError) as info:
        load_scenario_file(path)
    return str(info.value).replace(str(tmp_path), "DIR")


def test_unknown_keys_are_located_with_suggestions(tmp_path):
    text = """\
    - game: pile
      seeed: 3
      actions:
        - take 1
        - expect: {scroes: [1, 0]}
        - {expct: {terminal: true}}
    """
    assert malformed(tmp_path, text).splitlines() == [
        "DIR/bad.yaml:2:3: $[0].seeed: unknown scenario key 'seeed' (did you mean 'seed'?)",
        "DIR/bad.yaml:5:16: $[0].actions[1].expect.scroes: unknown expect key 'scroes' (did you mean 'scores'?)",
        "DIR/bad.yaml:6:8: $[0].actions[2].expct: unknown action item key 'expct' (did you mean 'expect'?)",
    ]


def test_wrong_types_and_missing_keys(tmp_path):
    text = """\
    scenarios:
      - actions: take 1
      - game: pile
        seed: one
        actions:
          - 3
          - expect: {legal: take 1, current_player: true, terminal: 1, scores: x}
    """
    assert malformed(tmp_path, text).splitlines() == [
        "DIR/bad.yaml:2:5: $.scenarios[0]: missing key 'game' (a shipped game name or a ruleset path)",
        "DIR/bad.yaml:2:14: $.scenarios[0].actions: actions must be a list, got 'take 1'",
        "DIR/bad.yaml:4:11: $.scenarios[1].seed: seed must be an integer, got 'one'",
        "DIR/bad.yaml:6:9: $.scenarios[1].actions[0]: an action item must be an action text or {expect: ...}, got 3",
        "DIR/bad.yaml:7:25: $.scenarios[1].actions[1].expect.legal: legal must be a list of action texts, got 'take 1'",
        "DIR/bad.yaml:7:49: $.scenarios[1].actions[1].expect.current_player: "
        "current_player must be an integer seat, got True",
        "DIR/bad.yaml:7:65: $.scenarios[1].actions[1].expect.terminal: terminal must be true or false, got 1",
        "DIR/bad.yaml:7:76: $.scenarios[1].actions[1].expect.scores: scores must be a list of numbers, got 'x'",
    ]


def test_top_level_unknown_key_next_to_scenarios(tmp_path):
    assert malformed(tmp_path, "scenarios: []\nextra: 1\n").splitlines() == [
        "DIR/bad.yaml:1:12: $.scenarios: no scenarios in file",
        "DIR/bad.yaml:2:1: $.extra: unknown top-level key 'extra'",
    ]


def test_yaml_errors_are_scenario_errors_with_lines(tmp_path):
    assert malformed(tmp_path, "game: pile\nactions: [take 1\n").startswith("DIR/bad.yaml:3:1: $: YAML syntax error")
    # in a top-level list the positions are those of the original file
    assert malformed(tmp_path, "- game: pile\n  actions: [a]\n- game: [x\n", "list.yaml").startswith(
        "DIR/list.yaml:4:1: $: YAML syntax error"
    )
    assert malformed(tmp_path, "- game: pile\n  game: pile\n  actions: []\n", "dup.yaml") == (
        "DIR/dup.yaml:2:3: $[0].game: duplicate key 'game' (first at line 1)"
    )


def test_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario_file(tmp_path / "absent.yaml")


# ---------------------------------------------------------------- real engine


def _scripted_scenario(name, players, seed):
    """A scenario written from a random playthrough: legal sets at every step, final result."""
    from trickkit.lab.simulation import play_game

    kwargs = {"players": players} if players else {}
    game = trickkit.load_game(name, **kwargs)
    record = play_game(game, seed, 0)
    state = game.new_initial_state(seed=record["seed"])
    actions = []
    for text in record["actions"][:40]:
        actions.append(
            {
                "expect": {
                    "current_player": state.current_player(),
                    "legal": sorted(str(a) for a in state.legal_actions()),
                    "illegal": ["play NO_SUCH_CARD"],
                    "terminal": False,
                }
            }
        )
        actions.append(text)
        state.apply_action(text)
    actions.append(
        {"expect": {"terminal": state.is_terminal(), "scores": list(state.scores()), "winners": list(state.winners())}}
    )
    scenario = {"name": f"{name} replay", "game": name, "seed": record["seed"], "actions": actions}
    if players:
        scenario["params"] = {"players": players}
    return scenario, list(state.scores())


@pytest.mark.parametrize("name,players", [("skull_king", 4), ("sarkophag", None)])
def test_real_game_scripted_scenario(tmp_path, name, players):
    import yaml

    scenario, scores = _scripted_scenario(name, players, seed=11)
    path = tmp_path / "real.yaml"
    path.write_text(yaml.safe_dump([scenario], sort_keys=False))
    [result] = run_scenario_file(path)
    assert result.passed, result.message
    scenario["actions"][-1]["expect"]["scores"] = [s + 1 for s in scores]
    path.write_text(yaml.safe_dump([scenario], sort_keys=False))
    [result] = run_scenario_file(path)
    assert not result.passed
    last = scenario["actions"][-2]
    assert result.message == (
        f"step {len(scenario['actions'])} (after {last!r}): scores expected {[s + 1 for s in scores]} got {scores}"
    )
