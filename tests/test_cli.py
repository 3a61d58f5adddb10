"""Tests of the ``trickkit`` command line (fake game patched in; real engine when present)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fakegame  # noqa: E402

import trickkit  # noqa: E402
from trickkit.cli import main, parse_params  # noqa: E402
from trickkit.simulation import game_seed  # noqa: E402

@pytest.fixture
def fake(monkeypatch):
    """Make trickkit.load_game / list_games know only the fake "pile" game."""
    monkeypatch.setattr(trickkit, "load_game", fakegame.load_game, raising=False)
    monkeypatch.setattr(trickkit, "list_games", fakegame.list_games, raising=False)


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------ parse_params


def test_parse_params_types():
    assert parse_params(["a=3", "b=0.5", "c=true", "d=hello world", "e=", "f=[1", "g=null", "h=x=y"]) == {
        "a": 3, "b": 0.5, "c": True, "d": "hello world", "e": "", "f": "[1", "g": "null", "h": "x=y",
    }


def test_bad_param_is_a_usage_error(capsys, fake):
    code, out, err = run(capsys, "simulate", "pile", "--param", "rounds")
    assert code == 2
    assert "--param expects KEY=VALUE, got 'rounds'" in err


# ------------------------------------------------------------------ list / validate


def test_list(capsys, fake):
    code, out, err = run(capsys, "list")
    assert code == 0
    row = [line for line in out.splitlines() if "pile" in line and "Pile (fake test game)" in line]
    assert len(row) == 1 and "2-4" in row[0]


def test_validate_reports_ok_and_every_problem(capsys, fake):
    code, out, err = run(capsys, "validate", "pile", "missing.yaml")
    assert code == 1
    assert out.splitlines() == ["pile: ok", "missing.yaml: $: no game 'missing.yaml'"]
    code, out, err = run(capsys, "validate", "pile")
    assert (code, out) == (0, "pile: ok\n")


# ------------------------------------------------------------------ simulate


def test_simulate_prints_summary_and_writes_jsonl(capsys, fake, tmp_path):
    out_file = tmp_path / "g.jsonl"
    code, out, err = run(capsys, "simulate", "pile", "--games", "25", "--players", "3", "--seed", "4",
                         "--param", "pile=9", "--out", str(out_file))
    assert code == 0, err
    assert "pile (players=3, pile=9)" in out
    assert "25 games in" in out and "games/s" in out and "mean game length" in out
    assert sum(1 for line in out.splitlines() if "%" in line) == 3
    assert f"wrote 25 games to {out_file}" in out
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(records) == 25
    assert records[0]["params"] == {"players": 3, "pile": 9}
    assert [r["seed"] for r in records] == [game_seed(4, i) for i in range(25)]


def test_simulate_jobs_gives_same_file(capsys, fake, tmp_path):
    assert run(capsys, "simulate", "pile", "--games", "30", "--out", str(tmp_path / "a.jsonl"))[0] == 0
    assert run(capsys, "simulate", "pile", "--games", "30", "--jobs", "2", "--out", str(tmp_path / "b.jsonl"))[0] == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_simulate_unknown_game_exits_2_without_traceback(capsys, fake):
    code, out, err = run(capsys, "simulate", "nope", "--games", "3")
    assert code == 2
    assert err == "trickkit simulate: RulesetError: nope: $: no game 'nope'\n"
    assert "Traceback" not in err + out


def test_simulate_bad_players_exits_2(capsys, fake):
    code, out, err = run(capsys, "simulate", "pile", "--players", "9")
    assert code == 2
    assert "players must be 2..4, got 9" in err


def test_usage_errors_exit_2(capsys):
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["simulate"]) == 2
    assert main(["simulate", "pile", "--games", "many"]) == 2
    assert main(["--help"]) == 0
    capsys.readouterr()


# ------------------------------------------------------------------ check


PASSING = "- name: ok one\n  game: pile\n  seed: 1\n  actions:\n    - take 2\n    - expect: {current_player: 0}\n"
FAILING = "- name: bad one\n  game: pile\n  actions:\n    - take 2\n    - expect: {terminal: true}\n"
BROKEN = "- game: pile\n  actons: []\n"


def test_check_reports_pass_fail_error(capsys, fake, tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a_pass.yaml").write_text(PASSING)
    (tmp_path / "sub" / "b_fail.yaml").write_text(FAILING)
    (tmp_path / "c_broken.yaml").write_text(BROKEN)
    (tmp_path / "notes.txt").write_text("not a scenario")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", ".")
    assert code == 1
    assert out.splitlines() == [
        "PASS ./a_pass.yaml: ok one",
        "ERROR ./c_broken.yaml",
        "  ./c_broken.yaml:1:3: $[0]: missing key 'actions' (a list of action texts and {expect: ...} checks)",
        "  ./c_broken.yaml:2:3: $[0].actons: unknown scenario key 'actons' (did you mean 'actions'?)",
        "FAIL ./sub/b_fail.yaml:5: bad one: step 2 (after 'take 2'): terminal expected true got false",
        "1 passed, 1 failed, 1 errors",
    ]


def test_check_all_passing_exits_0(capsys, fake, tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(PASSING)
    code, out, err = run(capsys, "check", str(path))
    assert code == 0
    assert out.splitlines() == [f"PASS {path}: ok one", "1 passed, 0 failed, 0 errors"]


def test_check_missing_path_exits_2(capsys, fake, tmp_path):
    code, out, err = run(capsys, "check", str(tmp_path / "nope"))
    assert code == 2
    assert "no such file or directory" in err


def test_check_empty_directory_fails(capsys, fake, tmp_path):
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1
    assert "no scenario files found" in out


# ------------------------------------------------------------------ play


def play(capsys, monkeypatch, stdin, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return run(capsys, "play", "pile", *argv)


def test_play_full_game_from_piped_input(capsys, fake, monkeypatch):
    # seed 0, two players: seat 0 (us) starts; we always take one token.
    code, out, err = play(capsys, monkeypatch, "1\n" * 10, "--seat", "0", "--seed", "0")
    assert code == 0, err
    assert out.count("your move (number or text)> ") >= 3
    lines = out.replace("your move (number or text)> ", "").splitlines()
    assert lines[0] == ("Pile (fake test game): you are seat 0 of 2 (seed 0; replay this game with --seed 0). "
                        "Scores count points; highest wins.")
    assert "--- seat 0 (you) to act ---" in out
    assert "    1. take 1" in lines and "    2. take 2" in lines
    ours = [line for line in lines if line.startswith("seat 0 (you): ")]
    theirs = [line for line in lines if line.startswith("seat 1: take ")]
    assert ours and set(ours) == {"seat 0 (you): take 1"}
    assert len(ours) - len(theirs) in (0, 1)
    # the last two lines are the final scores; the one winner scored 1
    assert "--- final position ---" in out
    assert lines[-3] == "final scores:"
    assert lines[-2:] in (
        ["  seat 0 (you): 0 points", "  seat 1: 1 points  winner"],
        ["  seat 0 (you): 1 points  winner", "  seat 1: 0 points"],
    )
    winner_took_last = (lines[-2] if lines[-2].endswith("winner") else lines[-1]).split(":")[0].strip()
    last_move = [line for line in lines if line.startswith(("seat 0 (you): take", "seat 1: take"))][-1]
    assert last_move.split(":")[0] == winner_took_last


def test_play_reprompts_on_illegal_and_bad_numbers_then_eof(capsys, fake, monkeypatch):
    code, out, err = play(capsys, monkeypatch, "7\ntake 3\n\ntake 2\n", "--seat", "0")
    assert code == 0
    assert "pick 1..2 or type an action" in out
    assert "not allowed: 'take 3': you may take 1 or 2" in out
    assert "seat 0 (you): take 2" in out
    assert out.rstrip().endswith("bye")


def test_play_shows_only_own_observation(capsys, fake, monkeypatch):
    code, out, err = play(capsys, monkeypatch, "", "--seat", "1", "--players", "3", "--seed", "1")
    assert code == 0
    assert "seat: 1" in out
    assert "seat: 0" not in out and "seat: 2" not in out


def test_play_bad_seat_exits_2(capsys, fake, monkeypatch):
    code, out, err = play(capsys, monkeypatch, "", "--seat", "2")
    assert code == 2
    assert "--seat must be 0..1, got 2" in err


# ------------------------------------------------------------------ real engine


def test_real_list_shows_shipped_games(capsys):
    code, out, err = run(capsys, "list")
    assert code == 0
    assert "skull_king" in out and "sarkophag" in out
    assert set(trickkit.list_games()) >= {"skull_king", "sarkophag"}


def test_real_simulate_and_validate(capsys, tmp_path):
    code, out, err = run(capsys, "simulate", "skull_king", "--games", "5", "--players", "4", "--seed", "2",
                         "--out", str(tmp_path / "g.jsonl"))
    assert code == 0, err
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 5
    assert sum(1 for line in out.splitlines() if "%" in line) == 4
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: broken\n")
    code, out, err = run(capsys, "validate", str(bad))
    assert code == 1
    assert str(bad) in out and "ok" not in out.split(str(bad), 1)[1].splitlines()[0]


def test_real_play_ends_cleanly_on_eof(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3))
    code, out, err = run(capsys, "play", "skull_king", "--seat", "0", "--players", "3")
    assert code == 0, err
    assert "--- seat 0 (you) to act ---" in out and "seat 0 (you): hand " in out
