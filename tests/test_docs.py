"""The documentation site: its code blocks run, its rulesets load, its tutorial passes,
its generated references are complete, and ``mkdocs build --strict`` succeeds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import trickkit
from trickkit.cli import docgen
from trickkit.dsl.parser import parse
from trickkit.lab.scenarios import run_scenario_file

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TUTORIAL = DOCS / "tutorial"
NO_TEST = "<!-- no-test -->"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^\n]*$")


def _blocks(lang: str) -> list[tuple[str, int, str, bool]]:
    """``(file, line, code, marked no-test)`` for every fenced ``lang`` block under docs/."""
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        lines = path.read_text("utf-8").splitlines()
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            fence, indent, start = m["fence"], m["indent"], i
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
                i += 1
            i += 1
            if m["lang"].lower() != lang:
                continue
            before = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
            found.append((str(path.relative_to(ROOT)), start + 1, "\n".join(body) + "\n", before == NO_TEST))
    return found


PYTHON_BLOCKS = _blocks("python")
YAML_BLOCKS = _blocks("yaml")
RULESET_BLOCKS = [b for b in YAML_BLOCKS if re.search(r"^name:", b[2], re.M) and re.search(r"^deck:", b[2], re.M)]


def _ids(blocks):
    return [f"{file}:{line}" for file, line, _, _ in blocks]


def test_docs_have_code_blocks():
    assert PYTHON_BLOCKS, "no python blocks found: the extractor is broken"
    assert RULESET_BLOCKS, "no ruleset yaml blocks found: the extractor is broken"


# (a) every python block runs
@pytest.mark.parametrize("file,line,code,skip", PYTHON_BLOCKS, ids=_ids(PYTHON_BLOCKS))
def test_python_block_runs(file, line, code, skip, monkeypatch, tmp_path):
    if skip:
        pytest.skip(f"marked {NO_TEST}")
    monkeypatch.chdir(ROOT)
    if file.endswith("tutorial.md"):  # the tutorial works on the reader's my_games/ folder
        _my_games(tmp_path)
        monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    exec(compile(code, f"{file}:{line}", "exec"), namespace)


# (b) every ruleset-looking yaml block loads
@pytest.mark.parametrize("file,line,code,skip", RULESET_BLOCKS, ids=_ids(RULESET_BLOCKS))
def test_ruleset_block_validates(file, line, code, skip, tmp_path):
    if skip:
        pytest.skip(f"marked {NO_TEST}")
    target = tmp_path / "ruleset.yaml"
    target.write_text(code, "utf-8")
    assert trickkit.validate(target) == []
    game = trickkit.load_game(target)
    state = game.new_initial_state(seed=0)
    assert state.legal_actions()


def _my_games(folder: Path) -> Path:
    """The tutorial's my_games/ folder, as a reader has it after following the steps."""
    mine = folder / "my_games"
    mine.mkdir()
    for f in TUTORIAL.glob("*.yaml"):
        (mine / f.name).write_text(f.read_text("utf-8"), "utf-8")
    return mine


# (c) the tutorial's files
def test_tutorial_ruleset_loads():
    path = TUTORIAL / "sarkophag_open_leads.yaml"
    assert trickkit.validate(path) == []
    game = trickkit.load_game(path)
    assert game.name == "sarkophag_open_leads"
    assert game.params["limit"] == 50


def test_tutorial_scenarios_pass():
    results = run_scenario_file(TUTORIAL / "sarkophag_open_leads_scenarios.yaml")
    assert len(results) >= 2
    failed = [f"{r.name}: {r.message}" for r in results if not r.passed]
    assert not failed, failed


def test_tutorial_variant_differs_from_shipped_game():
    """The shipped game refuses a 5-head lead that the variant allows (the tutorial's point)."""
    deals = [[["15", "49", "36"], ["22", "53", "35"], ["20", "39", "9"], ["14", "48", "8"]]]
    shipped = trickkit.load_game("sarkophag", players=4, hand_size=3).new_initial_state(seed=0, deals=deals)
    variant = trickkit.load_game(TUTORIAL / "sarkophag_open_leads.yaml", players=4, hand_size=3)
    state = variant.new_initial_state(seed=0, deals=deals)
    assert "play 35" not in {str(a) for a in shipped.legal_actions()}
    assert "play 35" in {str(a) for a in state.legal_actions()}


# (d) every DSL example parses
@pytest.mark.parametrize("text,start", docgen.dsl_examples())
def test_dsl_example_parses(text, start):
    parse(text, start=start)


def test_dsl_reference_shows_every_example_and_builtin():
    from trickkit.dsl.builtins import AGGREGATES, EFFECTS, ENGINE_FUNCTIONS, FUNCTIONS, SEAT_FUNCTIONS, STATE_NAMES

    page = docgen.dsl_reference()
    for text, _ in docgen.dsl_examples():
        assert text in page, text
    for name in [*FUNCTIONS, *SEAT_FUNCTIONS, *AGGREGATES, *STATE_NAMES, *EFFECTS, *ENGINE_FUNCTIONS]:
        assert f"`{name}`" in page, name
    for construct in (
        "??",
        "if c then a else b",
        "for x in C",
        "+=",
        "-=",
        "elif",
        "piles[i]",
        "xs[i] = E",
        "row[0]",
        "row[-1]",
        "name(a, b)",
        "count:",
        "## Effects",
        "## Engine functions",
    ):
        assert construct in page, construct


def test_dsl_examples_cover_every_registry():
    """Each registry entry's example is in dsl_examples, with the right start rule (effects are blocks)."""
    from trickkit.dsl.builtins import AGGREGATES, EFFECTS, ENGINE_FUNCTIONS, FUNCTIONS, SEAT_FUNCTIONS, STATE_NAMES

    examples = set(docgen.dsl_examples())
    expected = [(e.example, "block") for e in EFFECTS.values()]
    expected += [(ex, "expr") for _, _, ex in [*SEAT_FUNCTIONS.values(), *ENGINE_FUNCTIONS.values()]]
    expected += [(x.example, "expr") for x in [*FUNCTIONS.values(), *AGGREGATES.values(), *STATE_NAMES.values()]]
    missing = [e for e in expected if e not in examples]
    assert not missing, missing


# (e) the schema reference covers every described property
def _described_properties(schema):
    """``(name, description)`` of every property (under any ``properties``) that has a description."""
    out = []

    def visit(node):
        if isinstance(node, dict):
            for name, sub in (node.get("properties") or {}).items():
                resolved = docgen._resolve(schema, sub) if isinstance(sub, dict) else {}
                if resolved.get("description"):
                    out.append((name, resolved["description"]))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema)
    return out


def test_schema_reference_mentions_every_described_property():
    schema = docgen.load_schema()
    page = docgen.schema_reference()
    described = _described_properties(schema)
    assert len(described) > 50
    for name, description in described:
        assert re.search(rf"`[^`\n]*\b{re.escape(name)}`", page), name
        assert description in page, (name, description)


def test_cli_reference_lists_every_subcommand():
    page = docgen.cli_reference()
    for command in ("list", "show", "validate", "simulate", "check", "play", "diff", "replay"):
        assert f"## `trickkit {command}`" in page
    assert "--games" in page and "--seat" in page and "--version" in page and "--show" in page


# (f) the site builds without warnings
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    for page in ("reference/ruleset", "reference/dsl", "reference/cli", "reference/api", "tutorial"):
        assert (site / page / "index.html").exists(), page


# (g) what a new user tripped over
def test_home_page_lists_every_shipped_game():
    home = (DOCS / "index.md").read_text("utf-8")
    for name in trickkit.list_games():
        assert f"| `{name}` |" in home, name


def test_schema_reference_names_the_required_keys():
    page = docgen.schema_reference()
    line = next(line for line in page.splitlines() if line.startswith("Required top-level keys"))
    assert "`name`" in line and "`deck`" in line and "`round`" in line and "keys: ." not in line


def test_scenario_reference_lists_every_key():
    from trickkit.lab.scenario_files import EXPECT_KEYS, SCENARIO_KEYS

    page = (DOCS / "reference" / "scenarios.md").read_text("utf-8")
    for key in (*SCENARIO_KEYS, *EXPECT_KEYS):
        assert f"| `{key}` |" in page, key


def test_scenario_reference_example_passes(tmp_path):
    page = (DOCS / "reference" / "scenarios.md").read_text("utf-8")
    example = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.yaml"
    path.write_text(example, "utf-8")
    results = run_scenario_file(path)
    assert results and all(r.passed for r in results), [r.message for r in results]


def test_observation_reference_has_an_example_per_game():
    import json

    page = docgen.observation_reference()
    for name in trickkit.list_games():
        assert f"## `{name}`" in page, name
        block = page.split(f"## `{name}`", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
        assert json.loads(block) == trickkit.load_game(name).new_initial_state(seed=1).observation(0)
    for key in trickkit.load_game("sarkophag").new_initial_state(seed=1).observation(0):
        assert f"| `{key}` |" in page, key


def test_license_and_readme():
    assert "MIT License" in (ROOT / "LICENSE").read_text("utf-8")
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "mkdocs build" in readme and ".[docs]" in readme


def test_tutorial_needs_no_checkout():
    """A reader with only `pip install trickkit` has no docs/ and no rulesets/ folder."""
    page = (DOCS / "tutorial.md").read_text("utf-8")
    assert "trickkit show sarkophag > my_games/sarkophag_open_leads.yaml" in page
    commands = [code for file, _, code, _ in _blocks("sh") if file.endswith("tutorial.md")]
    commands += [code for file, _, code, _ in PYTHON_BLOCKS if file.endswith("tutorial.md")]
    assert commands
    for code in commands:
        assert "docs/" not in code and "rulesets/" not in code, code


def test_tutorial_prints_the_whole_scenario_file():
    page = (DOCS / "tutorial.md").read_text("utf-8")
    shipped = (TUTORIAL / "sarkophag_open_leads_scenarios.yaml").read_text("utf-8")
    body = shipped[shipped.index("- name:") :]
    assert f"```yaml\n{body}```" in page


def test_tutorial_from_an_install(tmp_path, capsys, monkeypatch):
    """Follow the tutorial's first step with the command line, then check the finished folder."""
    from trickkit.cli.main import main

    assert main(["show", "sarkophag"]) == 0
    copied = capsys.readouterr().out
    assert (
        trickkit.load_game("sarkophag").content_hash
        == trickkit.load_game(_write(tmp_path / "copy.yaml", copied)).content_hash
    )
    mine = _my_games(tmp_path)
    assert main(["check", str(mine)]) == 0
    out = capsys.readouterr().out
    assert "2 passed, 0 failed, 0 errors (1 ruleset file skipped)" in out


def _write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


def test_nested_lists_are_indented_four_spaces():
    """Python-Markdown nests a list item only at 4 spaces: at 2 it flattens it into its parent."""
    bad = []
    for path in sorted(DOCS.rglob("*.md")):
        fence = None
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            m = FENCE.match(line)
            if m and fence is None:
                fence = m["fence"]
                continue
            if fence is not None:
                if line.strip().startswith(fence):
                    fence = None
                continue
            if re.match(r"^ {1,3}([-*+]|\d+\.) ", line):
                bad.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:40]}")
    assert not bad, bad


def test_observation_type_matches_real_observations():
    import typing

    from trickkit.engine.observation import Observation

    keys = set(typing.get_type_hints(Observation))
    required = set(Observation.__required_keys__)  # `auction`, `playing_for`, `revealed`: only in some games / moments
    assert keys - required == set(Observation.__optional_keys__) == {"auction", "playing_for", "revealed"}
    for name in trickkit.list_games():
        got = set(trickkit.load_game(name).new_initial_state(seed=0).observation(0))
        assert required <= got <= keys, name
    assert typing.get_type_hints(trickkit.State.observation)["return"] is Observation


def test_api_reference_hides_engine_internals():
    page = (DOCS / "reference" / "api.md").read_text("utf-8")
    for internal in ("face_play", "first_copy", "observe", "kind_available"):
        assert f'"!^{internal}$"' in page, internal
    assert "::: trickkit.engine.observation.Observation" in page
