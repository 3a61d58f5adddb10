"""Runs every scenario file under tests/scenarios (recursively), one test per scenario.

Adding a case means adding a ``*.yaml`` file (or a scenario to an existing one); nothing
here needs to change.  Files are run with :func:`trickkit.lab.scenarios.run_scenario_file`
once each (cached); each scenario's result is reported as its own test, with the
runner's message (first difference, file and line) on failure.  A malformed file shows up
as a single failing test carrying the located ScenarioError.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from trickkit.errors import ScenarioError
from trickkit.lab.scenarios import ScenarioResult, load_scenario_file, run_scenario_file

SCENARIO_DIR = Path(__file__).parent / "scenarios"
SCENARIO_FILES = sorted(
    p
    for pattern in ("*.yaml", "*.yml")
    for p in SCENARIO_DIR.rglob(pattern)
    if p.is_file() and "rulesets" not in p.relative_to(SCENARIO_DIR).parts  # rulesets/: games the scenarios name
)


def _rel(path: Path) -> str:
    return path.relative_to(SCENARIO_DIR).as_posix()


def _cases():
    for path in SCENARIO_FILES:
        try:
            scenarios = load_scenario_file(path)
        except ScenarioError:
            # Reported (with located problems) when the test runs the file.
            yield pytest.param(str(path), None, id=f"{_rel(path)}::<malformed file>")
            continue
        for index, scenario in enumerate(scenarios):
            yield pytest.param(str(path), index, id=f"{_rel(path)}::{scenario.name}")


@functools.cache
def _run_file(path: str) -> tuple[ScenarioResult, ...]:
    return tuple(run_scenario_file(path))


def test_scenario_files_present():
    assert SCENARIO_FILES, f"no scenario files under {SCENARIO_DIR}"


@pytest.mark.parametrize(("path", "index"), list(_cases()))
def test_scenario(path: str, index: int | None):
    results = _run_file(path)  # raises ScenarioError for a malformed file
    assert index is not None, f"{path}: loaded when run but not when collected"
    assert index < len(results), f"{path}: scenario {index} was not run ({len(results)} results)"
    result = results[index]
    where = f"{path}:{result.line}" if result.line else path
    assert result.passed, f"{where}: scenario {result.name!r} failed: {result.message}"
