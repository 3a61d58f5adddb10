"""``trickkit play --out`` (a replayable record) and ``play --agents`` (who plays the other seats)."""

from __future__ import annotations

import io
import json
import sys

import trickkit
from trickkit.cli.main import main
from trickkit.lab.simulation import play_game


def run(capsys, monkeypatch, stdin, *argv):
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


GAME = ("skull_king", "--players", "3", "--param", "rounds=2")


def test_play_out_writes_the_simulate_record_and_replay_confirms_it(capsys, monkeypatch, tmp_path):
    out = tmp_path / "mine.jsonl"
    code, text, err = run(capsys, monkeypatch, "1\n" * 200, "play", *GAME, "--seed", "4", "--out", str(out))
    assert code == 0, err
    assert f"wrote the game to {out}" in text
    lines = out.read_text("utf-8").splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    # the same keys, in the same order, as a simulate --out record of the same game
    simulated = play_game(trickkit.load_game("skull_king", players=3, rounds=2), 0, 0)
    assert list(record) == [k for k in simulated if k != "length"]
    assert record["seed"] == 4 and record["players"] == 3 and record["params"]["rounds"] == 2
    state = trickkit.load_game("skull_king", players=3, rounds=2).new_initial_state(seed=4)
    for action in record["actions"]:
        state.apply_action(action)
    assert state.is_terminal() and record["scores"] == state.scores() and record["winners"] == state.winners()
    code, text, err = run(capsys, monkeypatch, "", "replay", str(out))
    assert code == 0, text + err
    assert "1 confirmed, 0 diverged, 0 refused" in text


def test_play_out_is_refused_when_it_is_the_input_and_left_alone_when_the_game_is_left(capsys, monkeypatch, tmp_path):
    from trickkit.engine.loader import ruleset_text

    rules = tmp_path / "mine.yaml"
    rules.write_text(ruleset_text("sarkophag"), "utf-8")
    before = rules.read_text("utf-8")
    code, text, err = run(capsys, monkeypatch, "1\n" * 50, "play", str(rules), "--out", str(rules))
    assert code == 2
    assert f"--out {rules}: that is the input" in err
    assert rules.read_text("utf-8") == before
    # leaving before the end writes nothing (an unfinished game is no record to replay)
    out = tmp_path / "old.jsonl"
    out.write_text("earlier\n", "utf-8")
    code, text, err = run(capsys, monkeypatch, "1\n", "play", *GAME, "--seed", "1", "--out", str(out))
    assert code == 0, err
    assert f"the game did not end: nothing written to {out}" in text
    assert out.read_text("utf-8") == "earlier\n"


def _other_seats_moves(record, me):
    """(legal actions, chosen) of every move not made by seat ``me``, replayed from a record."""
    game = trickkit.load_game(record["game"], players=record["players"], **record["params"])
    state = game.new_initial_state(seed=record["seed"])
    moves = []
    for action in record["actions"]:
        seat = state.current_player()
        if seat != me:
            moves.append(([a.text for a in state.legal_actions()], action))
        state.apply_action(action)
    return moves


def test_play_agents_play_the_other_seats(capsys, monkeypatch, tmp_path):
    out = tmp_path / "g.jsonl"
    code, _text, err = run(
        capsys, monkeypatch, "1\n" * 200, "play", *GAME, "--seat", "1", "--seed", "3", "--agents", "first",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    moves = _other_seats_moves(json.loads(out.read_text("utf-8")), 1)
    assert moves and all(chosen == legal[0] for legal, chosen in moves)  # 'first' played seats 0 and 2
    # a per-seat list, with 'human' at your seat: seat 0 plays first-legal, seat 2 random
    code, _text, err = run(
        capsys, monkeypatch, "1\n" * 200, "play", *GAME, "--seat", "1", "--seed", "3", "--agents",
        "first,human,random", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    record = json.loads(out.read_text("utf-8"))
    game = trickkit.load_game("skull_king", players=3, rounds=2)
    state = game.new_initial_state(seed=3)
    by_seat: dict[int, list[bool]] = {0: [], 2: []}
    for action in record["actions"]:
        seat = state.current_player()
        if seat != 1:
            by_seat[seat].append(action == state.legal_actions()[0].text)
        state.apply_action(action)
    assert all(by_seat[0]) and not all(by_seat[2])


def test_play_agents_ismcts_faces_the_human(capsys, monkeypatch):
    code, text, err = run(
        capsys, monkeypatch, "1\n" * 200, "play", *GAME, "--param", "rounds=1", "--seed", "2", "--agents",
        "ismcts", "--agent-option", "iterations=3",
    )  # fmt: skip
    assert code == 0, err
    assert "final scores:" in text


def test_play_agents_bad_lists_are_usage_errors(capsys, monkeypatch):
    cases = [
        ("first,first,first", "write 'human' for your seat 0"),
        ("first,human", "'human' stands only for your own seat 0"),
        ("first,first,first,first", "give one agent for every other seat, 2 (one per other seat) or 3"),
        ("nobody", "unknown agent 'nobody'"),
    ]
    for spec, message in cases:
        code, _text, err = run(capsys, monkeypatch, "", "play", *GAME, "--agents", spec)
        assert code == 2 and message in err, (spec, err)
    code, _text, err = run(capsys, monkeypatch, "", "play", *GAME, "--agent-option", "iterations=3")
    assert code == 2 and "--agent-option needs --agents" in err
    code, _text, err = run(capsys, monkeypatch, "", "play", *GAME, "--agents", "random", "--agent-option", "x=3")
    assert code == 2 and "--agent-option 'x' fits none of the agents" in err
