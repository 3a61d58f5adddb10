"""`trickkit replay`: records written by `simulate --out` replay to the same result, or say where they diverge."""

from __future__ import annotations

import json
from pathlib import Path

import trickkit
from trickkit.cli.main import main
from trickkit.engine.loader import ruleset_text
from trickkit.engine.records import replay_record, replay_records
from trickkit.lab.simulation import simulate


def lines(path: Path) -> list[dict]:
    return [json.loads(t) for t in path.read_text().splitlines()]


def write_lines(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_round_trip_from_simulate_out(tmp_path, capsys):
    out = tmp_path / "sk.jsonl"
    assert main(["simulate", "skull_king", "--games", "4", "--param", "rounds=3", "--out", str(out)]) == 0
    capsys.readouterr()
    results = replay_records(out)
    assert [(r.line, r.status) for r in results] == [
        (1, "confirmed"),
        (2, "confirmed"),
        (3, "confirmed"),
        (4, "confirmed"),
    ]
    assert "ruleset" not in lines(out)[0]  # a shipped game is named, not a file
    assert main(["replay", str(out)]) == 0
    assert capsys.readouterr().out == "4 confirmed, 0 diverged, 0 refused\n"


def test_record_of_a_ruleset_file_names_the_file_and_replays(tmp_path):
    path = tmp_path / "short.yaml"
    path.write_text("extends: skull_king\nname: sk_short\nparameters: {rounds: {default: 2}}\n")
    out = tmp_path / "short.jsonl"
    simulate(trickkit.load_game(str(path)), 3, seed=5, out=out)
    assert {r["ruleset"] for r in lines(out)} == {"short.yaml"}  # relative to the records file's folder
    assert all(r.ok for r in replay_records(out))


def test_tampered_action_diverges_with_the_exact_place(tmp_path, capsys):
    out = tmp_path / "sk.jsonl"
    simulate(trickkit.load_game("skull_king", rounds=2), 2, seed=1, out=out)
    records = lines(out)
    records[1]["actions"][0] = "bid 7"
    write_lines(out, records)
    results = replay_records(out)
    assert results[0].ok
    assert results[1].status == "diverged" and results[1].action == 0
    state = trickkit.load_game("skull_king", rounds=2).new_initial_state(seed=records[1]["seed"])
    seat = state.current_player()
    assert str(results[1]) == (
        f"line 2: diverged: action 0 'bid 7' by seat {seat} was refused: illegal action 'bid 7' for seat {seat}: "
        "a bid must be one of 0..1"
    )
    assert main(["replay", str(out)]) == 1
    assert capsys.readouterr().out == (
        f"{out}:2: diverged: action 0 'bid 7' by seat {seat} was refused: illegal action 'bid 7' for seat {seat}: "
        "a bid must be one of 0..1\n"
        "1 confirmed, 1 diverged, 0 refused\n"
    )


def test_tampered_scores_and_truncated_actions_diverge(tmp_path):
    game = trickkit.load_game("skull_king", rounds=2)
    out = tmp_path / "sk.jsonl"
    simulate(game, 1, seed=3, out=out)
    record = lines(out)[0]
    wrong = dict(record, scores=[s + 1 for s in record["scores"]])
    result = replay_record(wrong, 7)
    assert str(result) == f"line 7: diverged: final scores expected {wrong['scores']}, got {record['scores']}"
    short = dict(record, actions=record["actions"][:-1])
    seat = game.replay(record["seed"], None, short["actions"]).current_player()
    assert str(replay_record(short, 1)) == (
        f"line 1: diverged: the game is not over after the record's "
        f"{len(short['actions'])} actions (seat {seat} to act)"
    )
    longer = dict(record, actions=record["actions"] + ["bid 0"])
    n = len(record["actions"])
    assert str(replay_record(longer, 1)) == (
        f"line 1: diverged: the game ended after {n} actions, but the record "
        f"has {n + 1} (action {n} 'bid 0' is one too many)"
    )


def test_changed_ruleset_is_refused_unless_forced(tmp_path, capsys):
    path = tmp_path / "sk.yaml"
    path.write_text(ruleset_text("skull_king"))
    out = tmp_path / "sk.jsonl"
    simulate(trickkit.load_game(str(path), rounds=2), 2, seed=9, out=out)
    old_hash = lines(out)[0]["ruleset_sha256"]
    path.write_text(ruleset_text("skull_king").replace("Tricks bid this round.", "Tricks bid."))
    new_hash = trickkit.load_game(str(path)).content_hash
    assert new_hash != old_hash
    results = replay_records(out)
    assert [str(r) for r in results] == [
        f"line {i}: refused: ruleset 'skull_king' has changed since the record was made (recorded content hash "
        f"{old_hash[:12]}, now {new_hash[:12]}); use --force to replay anyway"
        for i in (1, 2)
    ]
    assert main(["replay", str(out)]) == 1
    capsys.readouterr()
    forced = replay_records(out, force=True)
    assert all(r.ok for r in forced)
    assert forced[0].message.endswith("(content hash differs; replayed with --force)")
    assert main(["replay", "--force", str(out)]) == 0


def test_unreadable_lines_are_refused(tmp_path):
    out = tmp_path / "bad.jsonl"
    out.write_text('{"game": "skull_king"}\nnot json\n')
    assert [str(r) for r in replay_records(out)] == [
        "line 1: refused: record lacks 'params', 'players', 'seed', 'actions', 'scores', 'winners', 'ruleset_sha256'",
        "line 2: refused: not JSON: Expecting value (column 1)",
    ]
