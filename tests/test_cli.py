"""Tests of the ``trickkit`` command line (fake game patched in; real engine when present)."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fakegame

import trickkit
import trickkit.engine.loader
from trickkit.cli.main import main, parse_params
from trickkit.lab.simulation import game_seed


@pytest.fixture
def fake(monkeypatch):
    """Make trickkit.load_game / list_games know only the fake "pile" game."""
    monkeypatch.setattr(trickkit, "load_game", fakegame.load_game, raising=False)
    monkeypatch.setattr(trickkit.engine.loader, "load_game", fakegame.load_game, raising=False)
    monkeypatch.setattr(trickkit, "game_info", fakegame.load_game, raising=False)  # has title and seat counts
    monkeypatch.setattr(trickkit, "list_games", fakegame.list_games, raising=False)
    monkeypatch.setattr(trickkit.engine.loader, "list_games", fakegame.list_games, raising=False)


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------ parse_params


def test_parse_params_types():
    assert parse_params(["a=3", "b=0.5", "c=true", "d=hello world", "e=", "f=[1", "g=null", "h=x=y"]) == {
        "a": 3,
        "b": 0.5,
        "c": True,
        "d": "hello world",
        "e": "",
        "f": "[1",
        "g": "null",
        "h": "x=y",
    }


def test_bad_param_is_a_usage_error(capsys, fake):
    code, _, err = run(capsys, "simulate", "pile", "--param", "rounds")
    assert code == 2
    assert "--param expects KEY=VALUE, got 'rounds'" in err


# ------------------------------------------------------------------ list / validate


def test_list(capsys, fake):
    code, out, _ = run(capsys, "list")
    assert code == 0
    row = [line for line in out.splitlines() if "pile" in line and "Pile (fake test game)" in line]
    assert len(row) == 1 and "2-4" in row[0]


def test_validate_reports_ok_and_every_problem(capsys, fake):
    code, out, _ = run(capsys, "validate", "pile", "missing.yaml")
    assert code == 1
    assert out.splitlines() == ["pile: ok", "missing.yaml: $: no game 'missing.yaml'"]
    code, out, _ = run(capsys, "validate", "pile")
    assert (code, out) == (0, "pile: ok\n")


# ------------------------------------------------------------------ simulate


def test_simulate_prints_summary_and_writes_jsonl(capsys, fake, tmp_path):
    out_file = tmp_path / "g.jsonl"
    code, out, err = run(
        capsys,
        "simulate",
        "pile",
        "--games",
        "25",
        "--players",
        "3",
        "--seed",
        "4",
        "--param",
        "pile=9",
        "--out",
        str(out_file),
    )
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
    code, _, err = run(capsys, "simulate", "pile", "--players", "9")
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
    code, out, _ = run(capsys, "check", ".")
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
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0
    assert out.splitlines() == [f"PASS {path}: ok one", "1 passed, 0 failed, 0 errors"]


def test_check_missing_path_exits_2(capsys, fake, tmp_path):
    code, _, err = run(capsys, "check", str(tmp_path / "nope"))
    assert code == 2
    assert "no such file or directory" in err


def test_check_empty_directory_fails(capsys, fake, tmp_path):
    code, out, _ = run(capsys, "check", str(tmp_path))
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
    assert lines[0] == "Pile (fake test game): you are seat 0 of 2. Scores count points; highest wins."
    # the seed fixes every hidden card: it is told only once the game is over
    assert "seed" not in out.split("--- final position ---")[0]
    assert lines[-1] == "seed 0: play this deal again with --seed 0"
    lines = lines[:-1]
    assert "--- seat 0 (you) to act ---" in out
    assert "  1. take 1  2. take 2" in lines
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
    code, out, _ = play(capsys, monkeypatch, "7\ntake 3\n\ntake 2\n", "--seat", "0")
    assert code == 0
    assert "pick 1..2 or type an action" in out
    assert "not allowed: 'take 3': you may take 1 or 2" in out
    assert "seat 0 (you): take 2" in out
    assert re.search(r"\nbye \(this was seed \d+\)$", out.rstrip())
    assert out.count("seed") == 1  # a fresh random seed, told only when leaving


def test_play_shows_only_own_observation(capsys, fake, monkeypatch):
    code, out, _ = play(capsys, monkeypatch, "", "--seat", "1", "--players", "3", "--seed", "1")
    assert code == 0
    assert "seat: 1" in out
    assert "seat: 0" not in out and "seat: 2" not in out


def test_play_bad_seat_exits_2(capsys, fake, monkeypatch):
    code, _, err = play(capsys, monkeypatch, "", "--seat", "2")
    assert code == 2
    assert "--seat must be 0..1, got 2" in err


# ------------------------------------------------------------------ real engine


def test_real_list_shows_shipped_games(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "skull_king" in out and "sarkophag" in out
    assert set(trickkit.list_games()) >= {"skull_king", "sarkophag"}


def test_real_simulate_and_validate(capsys, tmp_path):
    code, out, err = run(
        capsys,
        "simulate",
        "skull_king",
        "--games",
        "5",
        "--players",
        "4",
        "--seed",
        "2",
        "--out",
        str(tmp_path / "g.jsonl"),
    )
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


# ------------------------------------------------------------------ user text is never markup


def test_validate_prints_locations_verbatim_not_as_emoji(capsys, tmp_path, monkeypatch):
    # rich turned ":100:" into an emoji; file names and messages must print as they are
    monkeypatch.chdir(tmp_path)
    (tmp_path / "n.yaml").write_text("# c\n" * 99 + "name:         : x\n", "utf-8")
    code, out, _ = run(capsys, "validate", "n.yaml")
    assert code == 1
    assert out.startswith("n.yaml:100:15: ")
    assert "\U0001f4af" not in out


def test_list_shows_titles_with_brackets_verbatim(capsys, monkeypatch):
    game = fakegame.load_game("pile")
    monkeypatch.setattr(trickkit, "list_games", lambda: ["pile"], raising=False)
    monkeypatch.setattr(trickkit.engine.loader, "list_games", lambda: ["pile"], raising=False)
    monkeypatch.setattr(trickkit, "load_game", lambda name, **kw: game, raising=False)
    monkeypatch.setattr(trickkit.engine.loader, "load_game", lambda name, **kw: game, raising=False)
    monkeypatch.setattr(trickkit, "game_info", lambda name: game, raising=False)
    monkeypatch.setattr(trickkit.engine.loader, "game_info", lambda name: game, raising=False)
    monkeypatch.setattr(game, "title", "[bold]Pile[/bold] :100:", raising=False)
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "[bold]Pile[/bold] :100:" in out


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"trickkit {trickkit.__version__}"


# ------------------------------------------------------------------ simulate / play: one-line errors


@pytest.mark.parametrize(
    "target,expected",
    [
        ("missing/g.jsonl", "no such folder"),
        (".", "is a directory"),
        ("/dev/full", "No space left on device"),
    ],
)
def test_simulate_out_that_cannot_be_written_is_a_one_line_error(capsys, fake, tmp_path, monkeypatch, target, expected):
    if target == "/dev/full" and not Path("/dev/full").exists():
        target, expected = "missing/g.jsonl", "no such folder"  # not every system has a full device
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "simulate", "pile", "--games", "3", "--out", target)
    assert code == 2
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


def test_negative_seed_is_a_one_line_error(capsys, fake, monkeypatch):
    for argv in (["play", "pile", "--seed", "-1"], ["simulate", "pile", "--seed", "-1"]):
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        code, _, err = run(capsys, *argv)
        assert code == 2
        assert err.startswith(f"trickkit {argv[0]}: error: ") and err.count("\n") == 1
        assert "--seed" in err and "must be a non-negative int" in err and "got -1" in err


# ------------------------------------------------------------------ check / validate mix-ups


def test_check_dir_skips_rulesets_beside_scenarios(capsys, fake, tmp_path):
    (tmp_path / "a.yaml").write_text(PASSING)
    (tmp_path / "my_game.yaml").write_text("name: g\ndeck: {}\nround: []\n")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0, out
    assert out.splitlines() == [
        f"PASS {tmp_path / 'a.yaml'}: ok one",
        "1 passed, 0 failed, 0 errors (1 ruleset file skipped)",
    ]
    # named on its own, a ruleset is still an error (with a hint)
    code, out, _ = run(capsys, "check", str(tmp_path / "my_game.yaml"))
    assert code == 1 and "this is a ruleset, not a scenario file" in out


def test_check_real_tutorial_folder_layout(capsys, tmp_path):
    docs = Path(__file__).resolve().parent.parent / "docs" / "tutorial"
    for f in docs.glob("*.yaml"):
        (tmp_path / f.name).write_text(f.read_text("utf-8"), "utf-8")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0, out
    assert "ERROR" not in out and "(1 ruleset file skipped)" in out


def test_validate_on_a_scenario_file_says_use_check(capsys, fake, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(PASSING)
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1
    assert out == f"{path}: this is a scenario file, not a ruleset: run it with 'trickkit check {path}'\n"


# ------------------------------------------------------------------ show


def test_show_writes_the_shipped_ruleset_which_loads_from_a_copy(capsys, tmp_path):
    code, out, err = run(capsys, "show", "sarkophag")
    assert code == 0
    from trickkit.engine.loader import ruleset_text

    assert out == ruleset_text("sarkophag")
    copy = tmp_path / "my.yaml"
    copy.write_text(out, "utf-8")
    assert trickkit.validate(copy) == []
    code, out, err = run(capsys, "show", "nope")
    assert code == 2 and "unknown game 'nope'" in err


# ------------------------------------------------------------------ play, for a person at 80x24


def play_real(capsys, monkeypatch, game, *argv, moves=400):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * moves))
    code, out, err = run(capsys, "play", game, *argv)
    assert code == 0, err
    return out.replace("your move (number or text)> ", "")


def test_play_tells_tricks_bids_and_round_scores_within_80_columns(capsys, monkeypatch):
    out = play_real(capsys, monkeypatch, "skull_king", "--players", "3", "--param", "rounds=3", "--seed", "5")
    lines = out.splitlines()
    assert lines and max(len(line) for line in lines) <= 80
    tricks = [line for line in lines if line.startswith("trick ")]
    assert len(tricks) == 1 + 2 + 3  # every trick of rounds 1-3
    at = lines.index(tricks[0])
    first = tricks[0] + "".join(" " + x.strip() for x in lines[at + 1 : at + 3] if x.startswith("    "))
    assert re.fullmatch(
        r"trick 1: (seat \d( \(you\))? \S+, ){2}seat \d( \(you\))? \S+; seat \d( \(you\))? takes it "
        r"\(.+\)",
        first,
    ), first
    assert sum(line.startswith("bids: ") for line in lines) == 3
    assert [line.split(",")[0] for line in lines if line.startswith("end of round")] == [
        "end of round 1",
        "end of round 2",
        "end of round 3",
    ]
    assert lines[-1] == "seed 5: play this deal again with --seed 5"


def test_play_seat_defaults_to_0_and_hides_internal_variables(capsys, monkeypatch):
    out = play_real(capsys, monkeypatch, "trumps", "--seed", "2", moves=30)
    assert "you are seat 0 of" in out
    for name in ("allowance", "used", "scratch", "other", "onto", "target"):
        assert not re.search(rf"(^  |· ){name} ", out, re.M), name
    assert "choose {suit}: Choose the suit you play this game" in out  # what a terse action means
    out = play_real(capsys, monkeypatch, "saqqara", "--seed", "2", moves=30)
    assert "to_refill" not in out and "touched" not in out
    assert "take {pile}: Take the top artifact of that pile" in out
    assert "rewards_left" in out  # variables not declared internal are still shown


def test_play_seed_help_tells_the_truth(capsys):
    from trickkit.cli.main import build_parser

    play_parser = build_parser()._subparsers._group_actions[0].choices["play"]
    helps = {a.dest: a.help for a in play_parser._actions}
    assert "default 0" not in helps["seed"] and "random" in helps["seed"]
    assert "default 0" in helps["seat"]


def test_play_escapes_control_characters_and_lone_surrogates(capsys, monkeypatch, tmp_path):
    from trickkit.engine.loader import ruleset_text

    text = ruleset_text("sarkophag").replace('text: "{rank}"', 'text: "\\e[2J{rank}"')
    assert "\\e[2J" in text
    path = tmp_path / "evil.yaml"
    path.write_text(text, "utf-8")
    monkeypatch.setattr(trickkit.Game, "title", property(lambda self: "Evil\x1b]0;owned\x07\ud800"))
    out = play_real(capsys, monkeypatch, str(path), "--seed", "1", "--players", "3", moves=60)
    assert "\x1b" not in out and "\x07" not in out and "\ud800" not in out
    assert out.startswith("Evil\\x1b]0;owned\\x07\\ud800: you are seat 0")
    assert "\\x1b[2J" in out  # card texts are shown, escaped
    out.encode("utf-8")  # no lone surrogate left to crash a terminal


def test_clean_escapes_every_control_character():
    from trickkit.engine.view import clean

    assert clean("G7 The Empress é ♠") == "G7 The Empress é ♠"
    assert clean("a\x1b[31mb\rc\x9bd\u202ee\ud800") == "a\\x1b[31mb\\x0dc\\x9bd\\u202ee\\ud800"
    for code in [*range(0, 32), *range(127, 160)]:
        assert clean(chr(code)).startswith("\\x")


# ------------------------------------------------------------------ diff


def test_diff_shows_long_expressions_as_line_diffs(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "101")
    code, out, err = run(capsys, "diff", "skull_king", "skull_king_2021")
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 100
    at = lines.index("definition led_suit changed:")
    assert lines[at + 1 : at + 3] == [
        "    - first(p.suit for p in trick if p.kind == 'suit')",
        "    + first(p.suit for p in trick if p.kind not in ['escape', 'loot'])",
    ]
    at = lines.index("round[2] tricks winner changed:")
    assert "    + outcome(trick)" in lines[at + 1 : at + 3]
    assert "    - ?? first(p for p in trick if p.kind == 'pirate')" in lines[at + 1 : at + 12]
    # short changes stay on one line
    assert "round[2] tricks count changed: round -> cards_dealt" in lines


def test_readable_keeps_every_word():
    from trickkit.lab.diff import Change, diff_rulesets, readable

    sentences = diff_rulesets("skull_king", "skull_king_2021")
    changes = [c for c in sentences if isinstance(c, Change) and len(c) > 60]
    others = [c for c in sentences if not isinstance(c, Change)]
    assert changes and others
    # a wrapped sentence keeps its words in order
    assert " ".join(readable(others, 60)).split() == " ".join(others).split()
    for change in changes:
        rows = readable([change], 60)
        assert rows[0] == f"{change.head} changed:"
        old = [r[6:] for r in rows[1:] if r.startswith(("    - ", "      "))]
        new = [r[6:] for r in rows[1:] if r.startswith(("    + ", "      "))]
        before, after = change.split(" changed: ", 1)[1].split(" -> ", 1) if " -> " in change else (None, None)
        if before is not None and " -> " not in before + after:
            assert " ".join(old).split() == before.split()
            assert " ".join(new).split() == after.split()


def test_play_on_an_ascii_terminal_does_not_crash(tmp_path):
    import os
    import subprocess

    from trickkit.engine.loader import ruleset_text

    path = tmp_path / "accents.yaml"
    path.write_text(
        ruleset_text("sarkophag").replace("title: Sarkophag", 'title: "Sarkophag \\u00e9t\\u00e9 \\e[1m"'), "utf-8"
    )
    env = dict(os.environ, PYTHONIOENCODING="ascii", COLUMNS="80")
    proc = subprocess.run(
        [sys.executable, "-m", "trickkit.cli.main", "play", str(path), "--seed", "3"],
        input="1\n" * 20,
        capture_output=True,
        text=True,
        encoding="ascii",
        errors="replace",
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.startswith("Sarkophag \\xe9t\\xe9 \\x1b[1m: you are seat 0")


def test_simulation_summary_text_never_reads_markup():
    import attrs

    summary = trickkit.simulate(trickkit.load_game("sarkophag"), 2, seed=1)
    odd = attrs.evolve(summary, params={"x": "[bold]y[/bold] :100:"})
    assert "x='[bold]y[/bold] :100:'" in odd.to_text()


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_test_max_actions_below_one_is_a_usage_error(capsys, limit):
    code, _, err = run(capsys, "test", "sarkophag", "--max-actions", limit, "--examples", "1")
    assert code == 2
    assert f"--max-actions must be >= 1, got {limit}" in err


def test_team_of_a_negative_seat_is_an_index_error():
    game = trickkit.load_game("spades")
    assert [game.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    with pytest.raises(IndexError, match="no seat -1"):
        game.team_of(-1)
