"""The shipped rulesets: where they are, their names and their text."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from trickkit.errors import Problem, RulesetError, did_you_mean

if TYPE_CHECKING:
    from importlib.abc import Traversable


def rulesets_folder() -> Traversable:
    """Where the shipped rulesets are: inside the installed package (``trickkit.rulesets``).

    When trickkit is imported from a source checkout that was never installed editable (the
    ``rulesets/`` folder is mapped into the package only at install time), the checkout's
    ``rulesets/`` folder is used instead.
    """
    try:
        return resources.files("trickkit.rulesets")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent.parent / "rulesets"


def list_games() -> list[str]:
    """Names of the shipped rulesets, sorted (e.g. ``['saqqara', 'sarkophag', 'skull_king', ...]``)."""
    folder = rulesets_folder()
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def ruleset_text(name: str) -> str:
    """The YAML text of a shipped ruleset.

    Raises:
        RulesetError: no shipped ruleset has that name.
    """
    if name not in list_games():
        raise RulesetError(
            [
                Problem(
                    str(name),
                    0,
                    0,
                    "$",
                    f"unknown game {name!r}{did_you_mean(name, list_games())}"
                    f" (shipped games: {', '.join(list_games())}; or give a path to a .yaml file)",
                )
            ]
        )
    return rulesets_folder().joinpath(f"{name}.yaml").read_text("utf-8")
