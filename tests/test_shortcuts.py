"""The engine's shortcuts decide as the plain rules do: split ``allowed`` tests, shared random snapshots."""

import itertools
import random
from pathlib import Path

import pytest

import trickkit
from trickkit.engine import turns

SAQQARA_LOOKAHEAD = Path(__file__).parent / "data" / "saqqara_lookahead.yaml"
"""Saqqara written with `lookahead: placed == 0` (tests/test_saqqara_lookahead.py)."""

TURN_GAMES = [n for n in trickkit.list_games() if any(st.kind == "turns" for st in trickkit.load_game(n).rules.steps)]


@pytest.mark.parametrize("name", TURN_GAMES)
def test_guard_and_choice_test_together_decide_as_allowed(name):
    game = trickkit.load_game(name)
    rng = random.Random(5)
    checked = split = 0
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal() and checked < 3000:
            step = game.rules.steps[state.step]
            if step.kind == "turns":
                for kind in turns._kinds_now(state, step):
                    guard = kind.guard is None or bool(kind.guard(state))
                    for combo in itertools.product(*turns._domains(state, kind)):
                        expected = bool(kind.allowed(state, *combo))
                        test = kind.choice_test if kind.choice_test is not None else kind.allowed
                        assert (guard and bool(test(state, *combo))) == expected, (kind.name, combo)
                        checked += 1
                        split += kind.choice_test is not None
            state.apply_action(rng.choice(state.legal_actions()))
    # every kind whose `allowed` splits into a guard and a choice test was exercised (some
    # games, e.g. crazy_eights, have only tests that each name a choice)
    splits = any(k.choice_test is not None for st in game.rules.steps for k in getattr(st, "kinds", ()))
    assert checked > 0 and (split > 0 or not splits)


def test_a_clone_draws_what_its_original_would_have_drawn():
    game = trickkit.load_game("trumps")
    state = game.new_initial_state(seed=3)
    copy = state.clone()
    assert [copy.rng.random() for _ in range(3)] == [state.rng.random() for _ in range(3)]
    later = state.clone()  # after the original drew: the copy continues from there
    fourth = state.rng.random()
    assert later.rng.random() == fourth == copy.rng.random()


def test_a_clone_that_never_draws_still_replays_the_game():
    game = trickkit.load_game("trumps")
    state = game.new_initial_state(seed=8)
    rng = random.Random(8)
    for _ in range(60):
        if state.is_terminal():
            break
        copy = state.clone()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        copy.apply_action(action)
        assert copy.to_json() == state.to_json()
        assert copy.observation_all() == state.observation_all()


def _saqqara_with_lookahead(tmp_path, value):
    text = SAQQARA_LOOKAHEAD.read_text("utf-8")
    assert "lookahead: placed == 0" in text
    path = tmp_path / f"saqqara_{abs(hash(value))}.yaml"
    path.write_text(text.replace("lookahead: placed == 0", f"lookahead: {value}"))
    return trickkit.load_game(str(path), players=2)


def test_a_lookahead_expression_checks_only_where_it_holds(tmp_path):
    """Saqqara checks only first placements: the same legal actions as checking every one,
    and fewer than checking none (some first placements are dead ends)."""
    shipped = trickkit.load_game(str(SAQQARA_LOOKAHEAD), players=2)
    always, never = _saqqara_with_lookahead(tmp_path, "true"), _saqqara_with_lookahead(tmp_path, "false")
    dead_ends = 0
    for seed in range(12):
        rng = random.Random(seed)
        state, every, unchecked = (g.new_initial_state(seed=seed) for g in (shipped, always, never))
        while not state.is_terminal():
            legal = [str(a) for a in state.legal_actions()]
            assert legal == [str(a) for a in every.legal_actions()]
            if unchecked is not None:  # in step until an action differs (a discard)
                other = [str(a) for a in unchecked.legal_actions()]
                places = [{a for a in actions if a.startswith("place")} for actions in (legal, other)]
                assert places[0] <= places[1]
                dead_ends += len(places[1] - places[0])
            action = rng.choice(legal)
            state.apply_action(action)
            every.apply_action(action)
            if unchecked is not None and action in {str(a) for a in unchecked.legal_actions()}:
                unchecked.apply_action(action)
            else:
                unchecked = None
    assert dead_ends > 0


def test_a_choice_named_like_a_parameter_is_still_tested_per_combination(tmp_path):
    """`pile` is both a choice of `take` and (here) a parameter: `allowed` means the choice."""
    path = tmp_path / "shadow.yaml"
    path.write_text(
        "extends: saqqara\nname: saqqara_shadow\n"
        "parameters:\n  pile: {type: int, default: 1, min: 1, description: hides nothing}\n"
    )
    game = trickkit.load_game(str(path), players=2)
    state = game.new_initial_state(seed=1)
    for action in ["take 1", "take 2", "take 3", "take 4", "take 1", "take 2"]:
        state.apply_action(action)
    take = next(k for k in game.rules.steps[state.step].kinds if k.name == "take")
    assert take.choice_test is not None and take.choice_test is not take.allowed
    rng = random.Random(3)
    for _ in range(40):  # the split tests agree with `allowed` along a game of this variant
        step = game.rules.steps[state.step]
        for kind in turns._kinds_now(state, step):
            guard = kind.guard is None or bool(kind.guard(state))
            test = kind.choice_test if kind.choice_test is not None else kind.allowed
            for combo in itertools.product(*turns._domains(state, kind)):
                assert (guard and bool(test(state, *combo))) == bool(kind.allowed(state, *combo)), (kind.name, combo)
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_generator_held_by_the_caller_keeps_clones_exact():
    state = trickkit.load_game("trumps").new_initial_state(seed=4)
    held = state.rng
    state.clone()  # shares a snapshot ...
    held.random()  # ... and then the original draws through the held reference
    assert state.clone().rng.getstate() == state.rng.getstate()


def test_an_action_subclass_is_an_action():
    class Tagged(trickkit.Action):
        pass

    state = trickkit.load_game("skull_king").new_initial_state(seed=1)
    action = state.legal_actions()[0]
    state.apply_action(Tagged(action.text, action.verb, value=action.value))
    assert state.history() == [action.text]


@pytest.mark.parametrize(
    "value, message",
    [
        ("2", "lookahead: expected boolean or string, got 2"),
        ("placed", "lookahead: must be true or false (a bool), got a number (int)"),
        ("\"'no'\"", "lookahead: must be true or false (a bool), got a text (str)"),
        ("plased == 0", "lookahead: unknown name 'plased' (did you mean 'placed'?)"),
    ],
)
def test_a_lookahead_that_is_not_a_bool_is_a_located_load_error(tmp_path, value, message):
    text = SAQQARA_LOOKAHEAD.read_text("utf-8").replace("lookahead: placed == 0", f"lookahead: {value}")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    line = text[: text.index(f"lookahead: {value}")].count("\n") + 1
    with pytest.raises(trickkit.RulesetError) as err:
        trickkit.load_game(str(path))
    assert f"bad.yaml:{line}:" in str(err.value) and message in str(err.value)
