"""The layers of trickkit: the architecture page's diagram is fresh, every package says its job and
what it may import, modules stay small, and no module imports an upper layer (also checked by
import-linter in CI; this test needs no extra tool)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from trickkit.cli import layers

CHECKOUT = Path(__file__).resolve().parents[1]
PACKAGE = CHECKOUT / "trickkit"
MAX_MODULE_LINES = 600
GENERATED_MODULES = {"trickkit/dsl/parser_tables.py"}


def _order() -> list[str]:
    return [
        entry.split(".")[1] if "|" not in entry else layers.ROOT
        for entry in layers.layer_order(CHECKOUT / "pyproject.toml")
    ]


def test_architecture_page_diagram_is_fresh():
    page = (CHECKOUT / "docs" / "architecture.md").read_text("utf-8")
    block = layers.layers_markdown(layers.layer_order(CHECKOUT / "pyproject.toml"))
    assert layers.render_page(page, block) == page, (
        "docs/architecture.md's layers diagram is stale: run python -m trickkit.cli.layers --write"
    )


def test_a_stale_diagram_is_caught():
    page = (CHECKOUT / "docs" / "architecture.md").read_text("utf-8")
    stale = page.replace("| `engine` |", "| `engine2` |", 1)
    block = layers.layers_markdown(layers.layer_order(CHECKOUT / "pyproject.toml"))
    assert stale != page
    assert layers.render_page(stale, block) != stale


def test_every_package_is_a_layer_of_the_contract():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(_order()) - {layers.ROOT}


def test_imports_point_down_the_layers():
    order = _order()
    rank = {name: len(order) - i for i, name in enumerate(order)}
    graph = layers.package_graph()
    wrong = [(a, b) for a, targets in graph.items() for b in targets if rank[b] >= rank[a]]
    assert wrong == [], f"imports from a layer to one at or above it: {wrong}"


@pytest.mark.parametrize("package", sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()))
def test_package_docstring_says_its_job_and_what_it_may_import(package):
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text("utf-8"))) or ""
    assert doc.strip(), f"trickkit.{package} has no docstring"
    assert "import" in doc.lower(), f"trickkit.{package}'s docstring does not say what it may import"


def test_every_module_has_a_docstring():
    missing = [
        str(p.relative_to(CHECKOUT))
        for p in sorted(PACKAGE.rglob("*.py"))
        if not (ast.get_docstring(ast.parse(p.read_text("utf-8"))) or "").strip()
    ]
    assert missing == []


def test_no_module_is_too_big_to_hold_in_one_head():
    big = {
        str(p.relative_to(CHECKOUT)): n
        for p in sorted(PACKAGE.rglob("*.py"))
        if (n := len(p.read_text("utf-8").splitlines())) > MAX_MODULE_LINES
        and str(p.relative_to(CHECKOUT)) not in GENERATED_MODULES
    }
    assert big == {}


def test_the_wheel_lists_every_package():
    """pyproject.toml names the packages explicitly: a subpackage missing there would be missing from
    every installed copy (and only a fresh install would show it)."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib

    listed = set(tomllib.loads((CHECKOUT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(CHECKOUT).parts) for p in PACKAGE.rglob("__init__.py")}
    assert on_disk <= listed, f"packages missing from pyproject.toml: {sorted(on_disk - listed)}"
