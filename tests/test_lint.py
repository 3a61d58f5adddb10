"""``trickkit lint``: each kind of finding on a ruleset flawed on purpose, none on the shipped games."""

from __future__ import annotations

from pathlib import Path

import pytest

import trickkit
from trickkit.cli.main import main
from trickkit.lab.lint import lint

HERE = Path(__file__).resolve().parent / "lint_rulesets"


@pytest.fixture(scope="module")
def flawed():
    return [str(p) for p in lint(HERE / "flawed.yaml", games=10)]


@pytest.mark.parametrize(
    "where,message",
    [
        ("flawed.yaml:23:3: $.definitions.unused_rule", "definition 'unused_rule' is never used"),
        ("flawed.yaml:21:3: $.seat_variables.forgotten", "variable 'forgotten' is never used"),
        ("flawed.yaml:18:3: $.zones.spare", "zone 'spare' is never used"),
        ("flawed.yaml:24:14: $.definitions.favourite", "may give 'green', compared with the cards' suit"),
        ("flawed.yaml:7:16: $.parameters.lead_colour", "may be 'purple', compared with the cards' suit"),
        ("flawed.yaml:30:15: $.round[1].tricks.winner", "no winner for the trick"),
    ],
)
def test_each_finding_is_one_located_line(flawed, where, message):
    hits = [f for f in flawed if where in f and message in f]
    assert len(hits) == 1, flawed


def test_nothing_else_is_reported_on_the_flawed_ruleset(flawed):
    assert len(flawed) == 6, flawed
    # used names are not reported: the first table zone (every card starts there), hand, taken
    assert not any("'stock'" in f or "'hand'" in f or "'taken'" in f or "'tricks'" in f for f in flawed)


def test_an_action_kind_never_legal_in_random_games():
    (finding,) = lint(HERE / "dead_kind.yaml", games=10)
    assert finding.path == "$.round[1].turns.actions.boast" and finding.line == 27
    assert "'boast' was never legal in 10 random games" in finding.message
    assert lint(HERE / "dead_kind.yaml", games=0) == []  # no games: nothing to say about legality


def test_a_winner_that_is_not_in_the_trick():
    (finding,) = lint(HERE / "stray_winner.yaml", games=5)
    assert finding.path == "$.round[1].tricks.winner"
    assert "names a play that is not in the trick" in finding.message


def test_tricks_tried_are_a_counted_limit():
    (finding,) = [f for f in lint(HERE / "flawed.yaml", games=3, trick_limit=7) if "winner" in f.path]
    assert "(7 tricks tried)" in finding.message or "tricks tried)" in finding.message
    assert int(finding.message.rsplit("(", 1)[1].split()[0]) <= 7


def test_a_ruleset_that_does_not_load_gives_its_problems(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((HERE / "flawed.yaml").read_text().replace("count: 2, to: hand", "count: 2, to: hnd"))
    findings = lint(bad)
    assert findings and all(f.file == str(bad) for f in findings)
    assert any("hnd" in f.message for f in findings)


@pytest.mark.parametrize("name", trickkit.list_games())
def test_shipped_games_have_no_findings(name):
    # 8 games keep this fast; a rare action kind (Saqqara's discard) may need more to be legal
    # once: the fuzz run below plays lint's default number of games
    found = [str(f) for f in lint(name, games=8)]
    assert [f for f in found if "was never legal in 8 random games" not in f] == []


@pytest.mark.fuzz
@pytest.mark.parametrize("name", trickkit.list_games())
def test_shipped_games_have_no_findings_with_the_default_games(name):
    assert [str(f) for f in lint(name)] == []


def test_cli_exit_codes(capsys):
    assert main(["lint", str(HERE / "dead_kind.yaml"), "--games", "5"]) == 1
    out = capsys.readouterr().out
    assert "dead_kind.yaml:27:9: $.round[1].turns.actions.boast: action kind 'boast'" in out
    assert "1 finding" in out
    assert main(["lint", "sarkophag", "--games", "3"]) == 0
    assert "0 findings" in capsys.readouterr().out
    assert main(["lint", "sarkophag", "--games", "-1"]) == 2


def test_a_variant_finding_is_located_in_the_file_that_wrote_it(tmp_path):
    child = tmp_path / "variant.yaml"
    child.write_text("extends: sarkophag\nname: variant\ndefinitions:\n  spare_rule: len(trick) == 2\n")
    (finding,) = lint(child, games=2)
    assert (finding.file, finding.line, finding.path) == (str(child), 4, "$.definitions.spare_rule")
    assert "never used" in finding.message


def test_duplicate_card_texts_are_reported_even_if_loading_refuses_them():
    findings = [str(f) for f in lint(HERE / "duplicate_texts.yaml", games=2)]
    # lint's own finding, or (where the loader refuses such a deck) the load error: never a crash
    assert len(findings) >= 1 and all("joker" in f for f in findings), findings
    assert any("duplicate_texts.yaml:" in f and "$.deck" in f for f in findings)
