"""Golden playthroughs: the engine replays every recorded game exactly.

The files in ``tests/golden/`` were recorded by ``tests/golden/regenerate.py`` (see the README
there). For each recorded step the engine must give the same current player, the same legal
actions in the same order, the same observation for every seat, the same full observation
(which pins every deal and hidden pile), and see the recorded action the same way; at the end
the same scores, winners and history.
"""

from __future__ import annotations

import copy
import difflib
import importlib.util
import json
from pathlib import Path

import pytest

import trickkit

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def _load_regenerate():
    spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN_DIR / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


R = _load_regenerate()
FILES = sorted(p.name for p in GOLDEN_DIR.glob("*.jsonl.gz"))


def first_difference(expected, actual, path: str = ""):
    """``(path, expected part, actual part)`` of the first place two JSON values differ, or None."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual or key not in expected:
                return (f"{path}.{key}", expected.get(key, "<missing>"), actual.get(key, "<missing>"))
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        if len(expected) != len(actual):
            return (f"{path} (length)", len(expected), len(actual))
        return None
    if expected != actual or type(expected) is not type(actual):  # True == 1, but not here
        return (path, expected, actual)
    return None


def mismatch_message(where: str, recorded_text: str, actual: dict, ruleset_note: str) -> str | None:
    """None when the engine's record equals the recorded line, else a message: where, the
    first differing path, and a unified diff of the top-level field that holds it."""
    actual_text = R.encode(actual)
    if actual_text == recorded_text:  # the fast path: one string comparison
        return None
    expected, actual = json.loads(recorded_text), json.loads(actual_text)
    path, want, got = first_difference(expected, actual) or ("(whole record)", expected, actual)
    field = path.lstrip(".").split(".")[0].split("[")[0].split(" ")[0]
    want_text = json.dumps(expected.get(field), indent=1, sort_keys=True).splitlines()
    got_text = json.dumps(actual.get(field), indent=1, sort_keys=True).splitlines()
    diff = list(difflib.unified_diff(want_text, got_text, "recorded", "engine now", n=3, lineterm=""))
    if len(diff) > 60:
        diff = diff[:60] + [f"... ({len(diff) - 60} more diff lines)"]
    return (
        f"{where}: {path.lstrip('.')} differs: recorded {json.dumps(want)[:300]}, "
        f"engine now {json.dumps(got)[:300]}{ruleset_note}\n" + "\n".join(diff)
    )


def check_playthrough(name: str, texts: list[str]) -> int:
    """Replay the lines (texts) of playthrough file ``name``; return the number of steps checked.

    Raises:
        pytest.fail.Exception: the first difference, or a recorded action that no longer
            applies, naming the file, game index, seed and step.
        AssertionError: the file is malformed (truncated, games out of order).
    """
    header = json.loads(texts[0])
    assert header.get("kind") == "header" and header.get("format") == R.FORMAT, f"{name}: not a playthrough file"
    game = trickkit.load_game(header["game"], **header["params"])
    note = (
        ""
        if game.content_hash == header["ruleset_sha256"]
        else f"\n(the ruleset {header['game']!r} changed since recording: was a rule changed on purpose?)"
    )
    assert game.params == header["resolved_params"], (
        f"{name}: parameters resolve to {game.params}, recorded {header['resolved_params']}{note}"
    )
    state = None
    games = steps = 0
    where = name
    for text in texts[1:]:
        line = json.loads(text)
        kind = line["kind"]
        if kind == "game":
            assert state is None, f"{where}: a game line before the previous game's end line"
            assert line["index"] == games, f"{name}: game {games} is recorded as index {line['index']}"
            state = game.new_initial_state(seed=line["seed"])
            where = f"{name}, game {line['index']} (seed {line['seed']})"
            games += 1
            continue
        assert state is not None, f"{where}: a {kind} line outside a game"
        if kind == "step":
            step_where = f"{where}, step {line['step']} (action {line['action']!r})"
            message = mismatch_message(step_where, text, R.step_record(state, line["step"], line["action"]), note)
            if message:
                pytest.fail(message, pytrace=False)
            try:
                state.apply_action(line["action"])
            except trickkit.TrickkitError as e:
                pytest.fail(f"{step_where}: the recorded action no longer applies: {e}{note}", pytrace=False)
            steps += 1
        elif kind == "end":
            message = mismatch_message(f"{where}, end of game", text, R.end_record(state), note)
            if message:
                pytest.fail(message, pytrace=False)
            state = None
        else:
            pytest.fail(f"{where}: unknown line kind {kind!r}")
    assert state is None, f"{where}: the file ends in the middle of a game"
    assert games == header["games"], f"{name}: header says {header['games']} games, the file holds {games}"
    return steps


@pytest.mark.parametrize("name", FILES)
def test_golden_playthrough_replays_exactly(name):
    lines = R.read_lines(GOLDEN_DIR / name)
    assert check_playthrough(name, lines) > 0


def test_every_parameter_set_and_every_shipped_game_is_recorded():
    expected = {R.file_name(game, label) for game, label, _, _ in R.PARAMETER_SETS}
    assert set(FILES) == expected, "run python tests/golden/regenerate.py"
    games = {game for game, *_ in R.PARAMETER_SETS}
    assert set(trickkit.list_games()) <= games
    for game in games:  # several parameter sets, with different seat counts (where the game has them)
        seat_counts = {params.get("players") for g, _, params, _ in R.PARAMETER_SETS if g == game}
        shipped = trickkit.load_game(game)
        assert len(seat_counts) >= min(3, shipped.players_max - shipped.players_min + 1), game
        assert len([g for g, *_ in R.PARAMETER_SETS if g == game]) >= 2, game


# -- the check itself can fail, and says where ------------------------------------------------
SMALL = "sarkophag__p3.jsonl.gz"


@pytest.fixture(scope="module")
def small_lines():
    return [json.loads(t) for t in R.read_lines(GOLDEN_DIR / SMALL)]


def _step(lines, game_index, step):
    game_line = next(i for i, rec in enumerate(lines) if rec["kind"] == "game" and rec["index"] == game_index)
    line = lines[game_line + 1 + step]
    assert line["kind"] == "step" and line["step"] == step
    return line


def _check(lines):
    return check_playthrough(SMALL, [R.encode(line) for line in lines])


def test_a_changed_legal_action_order_is_reported_with_file_game_and_step(small_lines):
    lines = copy.deepcopy(small_lines)
    legal = _step(lines, 1, 7)["legal"]
    assert len(legal) > 1, "pick a step with a choice"
    legal.reverse()
    with pytest.raises(pytest.fail.Exception) as failure:
        _check(lines)
    message = str(failure.value)
    assert f"{SMALL}, game 1 (seed 1), step 7" in message
    assert "legal[0] differs" in message and "--- recorded" in message and "+++ engine now" in message


def test_a_changed_card_in_a_seat_observation_is_reported(small_lines):
    lines = copy.deepcopy(small_lines)
    obs = _step(lines, 0, 3)["obs"][2]
    hand = obs["zones"]["hand"][2]["cards"]
    hand[0], hand[-1] = hand[-1], hand[0]
    with pytest.raises(
        pytest.fail.Exception, match=r"game 0 \(seed 0\), step 3 .*obs\[2\]\.zones\.hand\[2\]\.cards\[0\]"
    ):
        _check(lines)


def test_a_changed_final_score_is_reported(small_lines):
    lines = copy.deepcopy(small_lines)
    end = [rec for rec in lines if rec["kind"] == "end"][-1]
    end["scores"][0] += 1
    with pytest.raises(pytest.fail.Exception, match=r"end of game: scores\[0\] differs"):
        _check(lines)


def test_an_action_that_no_longer_applies_is_reported(small_lines):
    lines = copy.deepcopy(small_lines)
    step = _step(lines, 0, 0)
    step["action"] = "play XX"  # not a card: the legal actions still match, applying it fails
    step["seen_by"] = ["play XX"] * len(step["seen_by"])
    with pytest.raises(pytest.fail.Exception) as failure:
        _check(lines)
    assert f"{SMALL}, game 0 (seed 0), step 0 (action 'play XX'): the recorded action no longer applies" in str(
        failure.value
    )
