"""Round 3 of hostile input, files: outputs never overwrite inputs, are never left half-written,
and ``--param`` refuses the names of ``load_game``'s own arguments in every command."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
import trickkit.lab.conformance
from trickkit.cli.common import RESERVED_PARAMS, UsageError, parse_params
from trickkit.cli.main import main
from trickkit.engine.records import replay_record
from trickkit.errors import ScenarioError
from trickkit.lab.scenario_files import load_scenario_file
from trickkit.rules.confine import confined_ruleset

SARKOPHAG = Path(__file__).parent.parent / "rulesets" / "sarkophag.yaml"


@pytest.fixture
def mine(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SARKOPHAG, "mine.yaml")
    os.symlink("mine.yaml", "link.yaml")
    return tmp_path / "mine.yaml"


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "mine.yaml", "--games", "1", "--out", "mine.yaml"],
        ["simulate", "mine.yaml", "--games", "1", "--out", "link.yaml"],
        ["simulate", "link.yaml", "--games", "1", "--csv", "mine.yaml"],
        ["simulate", "mine.yaml", "--games", "1", "--report", "./mine.yaml"],
        ["simulate", "mine.yaml", "--games", "1", "--out", "x.jsonl", "--csv", "x.jsonl"],
        ["compare", "sarkophag", "mine.yaml", "--games", "1", "--report", "link.yaml"],
        ["compare", "sarkophag", "mine.yaml", "--games", "1", "--csv", "mine.yaml"],
        ["rulebook", "mine.yaml", "--out", "mine.yaml"],
    ],
)
def test_an_output_may_not_be_an_input(mine, args, capsys):
    before = mine.read_bytes()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "would be overwritten" in err or "writes that file too" in err
    assert mine.read_bytes() == before
    assert sorted(os.listdir(mine.parent)) == ["link.yaml", "mine.yaml"]  # nothing written, no temporary file


def test_a_failed_run_leaves_the_earlier_file_whole(tmp_path):
    """An agent that fails half-way through the games: the earlier records stay as they were,
    and no temporary file is left behind."""
    game = trickkit.load_game(SARKOPHAG, hand_size=3)
    out = tmp_path / "games.jsonl"
    trickkit.simulate(game, 3, seed=1, out=out)
    good = out.read_text()

    class Failing:
        def __init__(self) -> None:
            self.moves = 0

        def step(self, state):
            self.moves += 1
            if self.moves > 20:
                raise RuntimeError("agent crashed")
            return state.legal_actions()[0]

    with pytest.raises(RuntimeError, match="agent crashed"):
        trickkit.simulate(game, 5, seed=2, out=out, agents=[Failing()] * 4)
    assert out.read_text() == good
    assert os.listdir(tmp_path) == ["games.jsonl"]


@pytest.mark.parametrize("key", sorted(RESERVED_PARAMS))
def test_param_refuses_load_game_arguments(key):
    with pytest.raises(UsageError, match=f"--param {key}"):
        parse_params([f"{key}=3"])
    assert parse_params(["hand_size=3"]) == {"hand_size": 3}


@pytest.mark.parametrize("key", sorted(RESERVED_PARAMS))
@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "sarkophag", "--games", "1"],
        ["compare", "sarkophag", "sarkophag", "--games", "1"],
        ["rulebook", "sarkophag"],
        ["lint", str(SARKOPHAG)],
        ["test", "sarkophag"],
        ["play", "sarkophag"],
    ],
)
def test_every_command_gives_a_usage_error_for_reserved_params(command, key, capsys):
    assert main([*command, "--param", f"{key}=x"]) == 2
    err = capsys.readouterr().err
    assert f"--param {key}" in err and "Traceback" not in err


# ------------------------------------------------------------------ a record's ruleset, a scenario's game

_EXAMPLES = settings(
    max_examples=int(os.environ.get("TRICKKIT_HOSTILE_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_SEGMENTS = ["..", ".", "sub", "linkdir", "root", "in.yaml", "in2.yaml", "outside.yaml", "link_out.yaml", "x.yml"]


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """``top/root`` holds rulesets (``in.yaml``, ``sub/in2.yaml``), a link to a file outside it
    (``link_out.yaml``) and a link to its parent folder (``linkdir``); ``top/outside.yaml`` is
    a good ruleset that no file in ``root`` may make trickkit read."""
    top = tmp_path_factory.mktemp("confine")
    root = top / "root"
    (root / "sub").mkdir(parents=True)
    for path in (root / "in.yaml", root / "sub" / "in2.yaml", top / "outside.yaml"):
        shutil.copy(SARKOPHAG, path)
    os.symlink(top / "outside.yaml", root / "link_out.yaml")
    os.symlink(top, root / "linkdir")
    return root


def _opened_paths(monkeypatch_target):
    """Patch `trickkit.rules.source.open_regular` to record the real path of every file opened."""
    from trickkit.rules import source

    opened: list[str] = []
    real = source.open_regular

    def spy(path):
        opened.append(os.path.realpath(path))
        return real(path)

    return opened, mock.patch.object(source, "open_regular", spy)


def _record(ref: str) -> dict:
    return {
        "game": "sarkophag",
        "ruleset": ref,
        "params": {},
        "players": 3,
        "seed": 1,
        "actions": [],
        "scores": [0, 0, 0],
        "winners": [0],
        "ruleset_sha256": "0" * 64,
    }


@_EXAMPLES
@given(
    parts=st.lists(st.sampled_from(_SEGMENTS), min_size=1, max_size=5),
    absolute=st.booleans(),
    entry=st.sampled_from(["record", "scenario"]),
)
def test_a_record_or_scenario_reads_only_files_of_its_folder(layout, parts, absolute, entry):
    """Whatever path a record's ``ruleset`` or a scenario's ``game`` writes (``..``, links out,
    absolute), trickkit opens no file outside the folder of the file that wrote it; a refusal
    names the value, and a path that stays inside still loads."""
    ref = ("/" if absolute else "") + "/".join(parts)
    if absolute:
        ref = str(layout.parent) + ref
    opened, patch = _opened_paths(None)
    top = os.path.realpath(layout)
    with patch:
        if entry == "record":
            result = replay_record(_record(ref), base=str(layout))
            refused = result.status == "refused" and "record 'ruleset'" in result.message
            message = result.message
        else:
            scenario = layout / "s.scenario.yaml"
            scenario.write_text(json.dumps({"game": ref, "params": {"players": 3}, "actions": []}), "utf-8")
            try:
                load_scenario_file(scenario)
                refused, message = False, ""
            except ScenarioError as e:
                refused, message = "$.game" in str(e), str(e)
    for path in opened:
        assert os.path.commonpath([path, top]) == top, (ref, path)
    real = os.path.realpath(os.path.join(layout, ref))
    inside = not absolute and os.path.commonpath([real, top]) == top and ref.endswith((".yaml", ".yml"))
    if refused:
        assert repr(ref)[:40] in message or ref[:30] in message
        assert not inside, ref
    elif inside and os.path.isfile(real):
        assert entry == "scenario" or result.status != "refused" or "record 'ruleset'" not in result.message


@pytest.mark.parametrize(
    "ref,why",
    [
        ("/etc/passwd.yaml", "absolute path"),
        ("../outside.yaml", "outside the folder"),
        ("sub/../../outside.yaml", "outside the folder"),
        ("link_out.yaml", "outside the folder"),
        ("linkdir/outside.yaml", "outside the folder"),
        ("in.txt/x", "not a ruleset file"),
    ],
)
def test_replay_and_check_name_the_file_and_the_value_they_refuse(layout, ref, why, capsys):
    records = layout / "games.jsonl"
    records.write_text(json.dumps(_record(ref)) + "\n", "utf-8")
    assert main(["replay", str(records)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{records}:1: refused: record 'ruleset': ")
    assert why in out and repr(ref) in out and "--ruleset" in out
    scenario = layout / "s.scenario.yaml"
    scenario.write_text(f"game: {ref}\nparams: {{players: 3}}\nactions: []\n", "utf-8")
    assert main(["check", str(scenario)]) == 1
    out = capsys.readouterr().out
    assert f"{scenario}:1:7: $.game: game: " in out and repr(ref) in out and why in out


def test_shipped_names_and_paths_inside_still_work(layout, capsys):
    for ref in ("in.yaml", "sub/in2.yaml", "./sub/../in.yaml", "sarkophag"):
        game = trickkit.load_game(confined_ruleset(ref, layout) if ref != "sarkophag" else ref, players=3)
        record = dict(_record(ref), ruleset_sha256=game.content_hash)
        if ref == "sarkophag":
            record.pop("ruleset")
        assert replay_record(record, base=str(layout)).status != "refused"
        scenarios = load_scenario_file(_scenario(layout, ref))
        assert scenarios[0].game == ref


def _scenario(folder, ref):
    path = folder / "ok.scenario.yaml"
    path.write_text(f"game: {ref}\nparams: {{players: 3}}\nactions: []\n", "utf-8")
    return path


def test_simulate_writes_the_ruleset_relative_to_the_records_file(layout, tmp_path, capsys):
    out = layout / "sub" / "games.jsonl"
    assert main(["simulate", str(layout / "in.yaml"), "--games", "2", "--players", "3", "--out", str(out)]) == 0
    assert {json.loads(line)["ruleset"] for line in out.read_text().splitlines()} == {"../in.yaml"}
    capsys.readouterr()
    assert main(["replay", str(out)]) == 1  # the ruleset is outside the records' folder: refused, says how
    assert "--ruleset" in capsys.readouterr().out
    assert main(["replay", str(out), "--ruleset", str(layout / "in.yaml")]) == 0
    out2 = layout / "games.jsonl"
    assert (
        main(["simulate", str(layout / "sub" / "in2.yaml"), "--games", "2", "--players", "3", "--out", str(out2)]) == 0
    )
    assert {json.loads(line)["ruleset"] for line in out2.read_text().splitlines()} == {"sub/in2.yaml"}
    assert main(["replay", str(out2)]) == 0


# ------------------------------------------------------------------ test --replay and replay read what they should

_GOOD_CASE = {
    "format": "trickkit-test-case",
    "ruleset": "sarkophag",
    "players": 3,
    "params": {"hand_size": 3},
    "seed": 1,
    "check": "clone",
    "actions": [],
}
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
_FIELD_VALUES = {
    "check": st.sampled_from(["nope", "", "CLONE", "clone ", *trickkit.lab.conformance.CHECKS]) | _JSON,
    "params": st.dictionaries(
        st.sampled_from(["players", "name_or_path", "coverage", "hand_size", "limit", "nope"]), _JSON, max_size=3
    )
    | _JSON,
    "players": st.integers(-3, 10) | _JSON,
    "seed": st.sampled_from([-1, 10**100, 10**100 - 1, 2**64]) | _JSON,
    "actions": st.lists(st.text(max_size=10) | _JSON, max_size=3) | _JSON,
    "ruleset": _JSON,
    "format": _JSON,
}


@settings(_EXAMPLES, max_examples=max(_EXAMPLES.max_examples, 60))
@given(data=st.data(), extra=st.sampled_from(["", "deep", "key"]))
def test_test_replay_refuses_bad_cases_with_a_usage_error(data, extra, capsys):
    """Any field of a failure report set to anything: ``test --replay`` ends with 0, 1 or a usage
    error (2), never a traceback."""
    fields = data.draw(st.lists(st.sampled_from(sorted(_FIELD_VALUES)), min_size=1, max_size=2, unique=True))
    changes = {f: data.draw(_FIELD_VALUES[f], label=f) for f in fields}
    case = dict(_GOOD_CASE, **changes)
    if extra == "deep":
        case["params"] = {"hand_size": [[[[]]]]}
        text = json.dumps(case).replace("[[[[]]]]", "[" * 500 + "]" * 500)
    else:
        if extra == "key":
            case["surprise"] = 1
        try:
            text = json.dumps(case)
        except ValueError:  # nan is JSON to Python: keep it
            return
    code = main(["test", "sarkophag", "--players", "3", "--replay", text])
    err = capsys.readouterr().err
    assert code in (0, 1, 2), err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"format": "trickkit-test-case", "players": 3, "check": "nope"}', "unknown check 'nope'"),
        ('{"format": "trickkit-test-case", "players": 3, "check": "clone", "params": {"players": 4}}', "'players'"),
        ('{"format": "trickkit-test-case", "players": 3, "check": "clone", "params": {"name_or_path": 1}}', "name_or"),
        ('{"format": "trickkit-test-case", "players": 3, "check": "clone", "params": []}', "'params' is a mapping"),
        ('{"format": "trickkit-test-case", "players": true, "check": "clone"}', "'players' is an integer"),
        ('{"format": "trickkit-test-case", "players": 3, "check": "clone", "seed": -1}', "'seed' must be"),
        ('{"format": "trickkit-test-case", "players": 3, "check": "clone", "actions": [1]}', "list of action texts"),
        (
            '{"format": "trickkit-test-case", "players": 3, "check": "clone", "x": ' + "[" * 300 + "]" * 300 + "}",
            "deeper",
        ),
    ],
)
def test_test_replay_says_what_is_wrong(text, message, capsys):
    assert main(["test", "sarkophag", "--replay", text]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
@pytest.mark.parametrize("command", ["replay", "test --replay"])
def test_replay_files_must_be_regular(tmp_path, kind, command, capsys):
    """A FIFO, /dev/zero or a folder is refused at once (nothing is read; a FIFO would block)."""
    target = {"fifo": tmp_path / "p", "dev_zero": Path("/dev/zero"), "directory": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    args = ["replay", str(target)] if command == "replay" else ["test", "sarkophag", "--replay", str(target)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err


def test_replay_refuses_a_records_file_over_the_cap(tmp_path, monkeypatch, capsys):
    from trickkit.engine import records

    path = tmp_path / "games.jsonl"
    path.write_text("{}\n" * 10, "utf-8")
    monkeypatch.setattr(records, "MAX_RECORDS_FILE", 20)
    assert main(["replay", str(path)]) == 2
    assert "too large" in capsys.readouterr().err


# ------------------------------------------------------------------ the play screen

_ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)


@_EXAMPLES
@given(text=_ANY_TEXT | st.sampled_from(["\u202e\u2066x\u200b\u2028\u2029\u00ad\ufeff\U000e0001", "\ud800\x1b[2J"]))
def test_clean_escapes_every_control_format_and_separator_character(text):
    """Nothing of categories Cc, Cf, Cs, Zl, Zp reaches the terminal; everything else is kept as it is."""
    import unicodedata

    from trickkit.engine.view import ESCAPED_CATEGORIES, clean

    shown = clean(text)
    assert not [ch for ch in shown if unicodedata.category(ch) in ESCAPED_CATEGORIES], repr(shown)
    shown.encode("utf-8")  # no lone surrogate left
    if not any(unicodedata.category(ch) in ESCAPED_CATEGORIES for ch in text):
        assert shown == text
    assert clean(shown) == shown  # escapes are plain ASCII: cleaning twice changes nothing


@_EXAMPLES
@given(answer=st.text(max_size=12) | st.sampled_from(["²", "٣", "1²", "9" * 5000, "0" * 50 + "1", "-1"]))
def test_any_answer_at_the_play_prompt_is_a_number_in_range_or_a_text(answer):
    from trickkit.cli.play import pick

    got = pick(answer, 12)
    assert got == answer or (isinstance(got, int) and 0 <= got <= 12)
    if isinstance(got, int) and got:
        assert answer.isascii() and int(answer) == got


def test_play_survives_unicode_digits_and_huge_numbers(capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("²\n٣\n" + "9" * 5000 + "\n1\n" * 200))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["play", "sarkophag", "--seed", "1", "--players", "3", "--param", "hand_size=3"]) == 0
    out = capsys.readouterr().out
    assert "not allowed: " in out and "pick 1.." in out


def test_the_play_screen_escapes_invisible_and_bidi_characters(capsys, monkeypatch, tmp_path):
    import io
    import sys

    from trickkit.engine.loader import ruleset_text

    evil = "\u202eE\u2066v\u200bi\u2028l\u2029\u00ad\ufeff"
    text = ruleset_text("sarkophag").replace('text: "{rank}"', 'text: "\\u2028{rank}\\u200b"')
    path = tmp_path / "evil.yaml"
    path.write_text(text.replace("title: ", f"title: {json.dumps(evil)} #", 1), "utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 60))
    assert main(["play", str(path), "--seed", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    for ch in "\u202e\u2066\u200b\u2028\u2029\u00ad\ufeff":
        assert ch not in out, hex(ord(ch))
    assert "\\u202eE\\u2066v\\u200bi\\u2028l\\u2029\\xad\\ufeff" in out
    assert "\\u2028" in out.split("you are seat", 1)[1]  # card texts, escaped


# ------------------------------------------------------------------ plots of user text

_PLOT_TEXT = st.text(st.sampled_from("$\\^_{}%#&~ab1.é\u202e"), min_size=1, max_size=12) | st.sampled_from(
    ["a$b^c_$x.yaml", "$\\frac{$", "$x$", "costs $5 and $6", "\\", "a_b^c"]
)


@settings(_EXAMPLES, max_examples=min(_EXAMPLES.max_examples, 6))
@given(labels=st.lists(_PLOT_TEXT, min_size=1, max_size=2, unique=True), unit=_PLOT_TEXT)
def test_plots_show_any_label_as_written(labels, unit):
    """File names and game titles are no mathtext: ``$`` and ``\\`` in them draw, they do not crash."""
    pytest.importorskip("matplotlib")
    from trickkit.lab import report, stats

    plt = report._pyplot()
    scores = [[[1, 2], [3, 0]] for _ in labels]
    assert report._score_plot(plt, labels, scores, [2] * len(labels))
    ivs = [[stats.Interval(0.5, 0.2, 0.8, 10)] * 2 for _ in labels]
    assert report._seat_plot(plt, labels, ivs)
    assert report._length_plot(plt, labels, [[3, 4] for _ in labels], unit)


def test_compare_report_with_a_dollar_in_a_file_name(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    shutil.copy(SARKOPHAG, "a$b^c_$x.yaml")
    assert main(["compare", "sarkophag", "a$b^c_$x.yaml", "--games", "2", "--players", "3", "--report", "r.html"]) == 0
    assert "a$b^c_$x" in Path("r.html").read_text("utf-8")


def test_written_files_get_the_usual_permissions(tmp_path):
    """The temporary file of an atomic write is private; the file it becomes is not."""
    from trickkit.lab.files import atomic_writer

    new = tmp_path / "new.txt"
    mask = os.umask(0o022)
    try:
        with atomic_writer(new) as f:
            f.write("x")
        assert new.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.txt"
        kept.write_text("old")
        kept.chmod(0o640)
        with atomic_writer(kept) as f:
            f.write("new")
        assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text() == "new"
    finally:
        os.umask(mask)
