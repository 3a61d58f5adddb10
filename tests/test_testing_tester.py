"""trickkit.lab.conformance catches broken rulesets (test the tester), and passes a sound one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import trickkit
from trickkit.cli.main import main
from trickkit.dsl import runtime
from trickkit.lab import conformance as testing

HERE = Path(__file__).resolve().parent / "testing_rulesets"


def failure(name: str, check: str, **kw) -> testing.InvariantError:
    with pytest.raises(testing.InvariantError) as info:
        testing.check_one(HERE / name, check, examples=kw.pop("examples", 8), seed=1, **kw)
    return info.value


def test_a_sound_ruleset_passes_every_check():
    testing.check_ruleset(HERE / "sound.yaml", examples=4, seed=3)


def test_a_hand_leaked_through_a_variable_is_caught():
    e = failure("leaks_a_hand.yaml", "hidden_information")
    assert e.check == "hidden_information"
    assert "observes something of cards it cannot see" in e.message and "variables.peek" in e.message


def test_an_action_text_naming_a_hidden_card_is_caught():
    e = failure("names_a_hidden_card.yaml", "hidden_information")
    assert "hide c" in e.message and "private" in e.message
    assert e.case.actions and e.case.actions[-1].startswith("hide ")  # the failing action ends the case


def test_a_game_that_draws_before_the_first_decision_gets_a_verdict():
    # issue 30: the deal-swap replay dealt the hands as they were at the first decision (after a
    # start-of-turn draw) and crashed with a DealError; the sound game passes, its leaky twin fails
    testing.check_one(HERE / "draws_first.yaml", "hidden_information", examples=8, seed=1)
    e = failure("draws_first_leaks.yaml", "hidden_information")
    assert "observes something of cards it cannot see" in e.message and "variables.peek" in e.message


def test_a_text_choice_that_equals_a_card_text_is_no_card():
    # issue 30: a guess naming a card text ("guess c8 c1", Love Letter's Guard) was reported as
    # a leak, and a private guess was relabelled in the exchanged deal; the sound game passes
    testing.check_ruleset(HERE / "guesses_a_card.yaml", examples=8, seed=1)
    # its twin whose `hint` names a card of the next seat's hand in public is caught
    e = failure("guesses_a_card_leaks.yaml", "hidden_information")
    assert "hint " in e.message and "private" in e.message


def test_a_game_that_never_ends_is_caught_in_a_counted_limit():
    e = failure("never_ends.yaml", "termination")
    assert "did not end within max_actions=60" in e.message
    assert len(e.case.actions) == 60
    # a lower limit than the ruleset's is honoured
    e = failure("never_ends.yaml", "termination", max_actions=10)
    assert "max_actions=10" in e.message and len(e.case.actions) == 10


def test_a_duplicated_card_is_caught(monkeypatch):
    # The engine's primitives conserve cards by construction, so no YAML can duplicate one:
    # break move_all (copy instead of move) to stand for a ruleset that does.
    monkeypatch.setitem(runtime.HELPERS, "_move_all", lambda frm, to: to.extend(frm))
    e = failure("duplicates_a_card.yaml", "conservation")
    assert "cards are not conserved: in two places or more" in e.message
    assert e.case.actions == ("show",)  # shrunk to the first action


def test_failures_shrink_and_replay():
    e = failure("leaks_a_hand.yaml", "hidden_information", examples=10)
    case = e.case
    assert case.players == 3  # the smallest seat count that shows it (two other hands to exchange)
    again = testing.GameCase.from_json(case.to_json())
    assert again == case
    with pytest.raises(testing.InvariantError) as info:
        testing.replay_case(case.to_json())
    assert info.value.message == e.message
    # the same JSON through the command line
    assert main(["test", str(HERE / "leaks_a_hand.yaml"), "--replay", case.to_json()]) == 1
    assert "replay:" in str(e) and "--replay '" in str(e) and f"seed {case.seed}" in str(e)


def test_replay_of_a_sound_game_passes(tmp_path):
    case = testing.GameCase(str(HERE / "sound.yaml"), 2, {}, 5, ("play R1",), "conservation")
    game = trickkit.load_game(HERE / "sound.yaml", players=2)
    legal = [a.text for a in game.new_initial_state(seed=5).legal_actions()]
    case = testing.GameCase(case.ruleset, 2, {}, 5, (legal[0],), "conservation")
    testing.replay_case(case)
    file = tmp_path / "case.json"
    file.write_text(case.to_json())
    assert main(["test", str(HERE / "sound.yaml"), "--replay", str(file)]) == 0


def test_cli_test_reports_and_exit_codes(capsys):
    assert main(["test", str(HERE / "never_ends.yaml"), "--examples", "2", "--seed", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAIL termination failed" in out and "other checks need games that end" in out
    assert (
        main(
            [
                "test",
                str(HERE / "sound.yaml"),
                "--examples",
                "2",
                "--check",
                "conservation",
                "--check",
                "clone",
                "--seed",
                "0",
            ]
        )
        == 0
    )
    assert "2 passed, 0 failed" in capsys.readouterr().out
    assert main(["test", str(HERE / "sound.yaml"), "--check", "nope"]) == 2
    assert main(["test", str(HERE / "sound.yaml"), "--replay", "{not json"]) == 2


def test_ruleset_tests_makes_one_pytest_function_per_check():
    tests = testing.ruleset_tests(HERE / "sound.yaml", examples=2, checks=["conservation", "determinism"])
    assert sorted(tests) == ["test_conservation", "test_determinism"]
    for fn in tests.values():
        fn()
    broken = testing.ruleset_tests(HERE / "never_ends.yaml", examples=2, checks=["termination"])
    with pytest.raises(testing.InvariantError):
        broken["test_termination"]()


def test_a_relative_path_is_found_beside_the_calling_test_file(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    testing.check_ruleset("testing_rulesets/sound.yaml", players=2, checks=["determinism"], examples=2)


def test_unknown_check_and_missing_hypothesis(monkeypatch):
    with pytest.raises(ValueError, match="unknown check"):
        testing.check_ruleset(HERE / "sound.yaml", checks=["speed"])
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    with pytest.raises(testing.MissingHypothesis, match=r"pip install hypothesis"):
        testing.check_ruleset(HERE / "sound.yaml", checks=["conservation"])
    assert main(["test", str(HERE / "sound.yaml")]) == 2


def test_hypothesis_is_a_core_dependency():
    # `pip install trickkit && trickkit test GAME` works without extras (issue 30)
    import re

    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    core = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert re.search(r'"hypothesis>=', core), core


def test_game_case_refuses_malformed_json():
    for text in ["[]", '{"format": "x"}', json.dumps({"format": "trickkit-test-case", "players": 2, "actions": [1]})]:
        with pytest.raises(ValueError):
            testing.GameCase.from_json(text)


def test_an_observation_tensor_that_leaks_is_caught(monkeypatch):
    # another module may give states an observation_tensor(seat): it is checked when present
    def tensor(self, seat):
        return [c for hand in self.seat_zones[0] for c in hand]  # every hand: a leak

    monkeypatch.setattr(trickkit.State, "observation_tensor", tensor, raising=False)
    e = failure("sound.yaml", "hidden_information")
    assert "observation tensor" in e.message or "observes something" in e.message

    def fair(self, seat):
        return [len(hand) for hand in self.seat_zones[0]] + sorted(self.seat_zones[0][seat])

    monkeypatch.setattr(trickkit.State, "observation_tensor", fair, raising=False)
    testing.check_one(HERE / "sound.yaml", "hidden_information", examples=5, seed=2)


def test_every_broken_case_replays_to_the_same_failure():
    for name, check in [("names_a_hidden_card.yaml", "hidden_information"), ("never_ends.yaml", "termination")]:
        e = failure(name, check)
        with pytest.raises(testing.InvariantError) as again:
            testing.replay_case(e.case)
        assert again.value.message == e.message and again.value.case.actions == e.case.actions


def test_a_replayed_action_that_is_not_legal_is_reported():
    case = testing.GameCase(str(HERE / "sound.yaml"), 2, {}, 0, ("fly away",), "hidden_information")
    with pytest.raises(testing.InvariantError, match="applying 'fly away': IllegalActionError"):
        testing.replay_case(case)


@pytest.mark.parametrize(
    "sabotage,message",
    [
        ("accept", "was accepted"),
        ("change", "changed the state"),
        ("raw", "raised ZeroDivisionError"),
    ],
)
def test_an_engine_that_mishandles_illegal_actions_is_caught(monkeypatch, sabotage, message):
    # the engine refuses illegal actions correctly, so the faults are put in by hand
    apply = trickkit.State.apply_action

    def broken(self, action):
        if action != "fly away":
            return apply(self, action)
        if sabotage == "change":
            self.seat_vars[0][0] += 1
            raise trickkit.IllegalActionError("no")
        if sabotage == "raw":
            raise ZeroDivisionError("oops")

    monkeypatch.setattr(trickkit.State, "apply_action", broken)
    e = failure("sound.yaml", "illegal_actions", examples=2)
    assert "'fly away'" in e.message and message in e.message
