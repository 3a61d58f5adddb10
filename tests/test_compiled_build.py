"""The opt-in compiled build (setup.py with TRICKKIT_COMPILE=1: mypyc over some engine modules).

The games of the compiled build are checked by running the golden playthroughs against it:

    TRICKKIT_EXPECT_COMPILED=1 python -P -m pytest tests/test_compiled_build.py tests/test_golden.py

in the checkout, with a Python that has the compiled build installed (not an editable install);
``-P`` (Python 3.11+) keeps the checkout's own modules off sys.path. With
TRICKKIT_EXPECT_COMPILED=1 the test below makes sure that run really imported the compiled
modules; without it, it is skipped (the default build is pure)."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import os
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "setup.py"


def compiled_modules() -> list[str]:
    """The module names of setup.py's COMPILED list (read from its source: importing it would build)."""
    for node in ast.parse(SETUP.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMPILED" for t in node.targets):
            paths = ast.literal_eval(node.value)
            return [p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED list")


def test_compiled_modules_exist() -> None:
    """Every module setup.py compiles is a module of trickkit (a rename would drop it silently)."""
    names = compiled_modules()
    assert names, "setup.py compiles nothing"
    root = SETUP.parent
    for name in names:
        assert (root / (name.replace(".", "/") + ".py")).is_file(), name


@pytest.mark.skipif(os.environ.get("TRICKKIT_EXPECT_COMPILED") != "1", reason="checks a compiled install only")
def test_compiled_modules_are_imported() -> None:
    """Under TRICKKIT_EXPECT_COMPILED=1, each module of COMPILED is loaded from a C extension."""
    for name in compiled_modules():
        module = importlib.import_module(name)
        path = str(module.__file__)
        assert path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), f"{name} is not compiled: {path}"
