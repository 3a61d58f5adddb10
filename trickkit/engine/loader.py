"""Loads games: a ruleset document (`trickkit.rules.catalog`) compiled into its rules and built into a Game."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import attrs

from trickkit.engine.game import Game, content_hash
from trickkit.errors import Problem, RulesetError
from trickkit.rules.catalog import GameInfo, game_info, read_document
from trickkit.rules.ruleset import RulesetCompiler
from trickkit.rules.shipped import list_games, ruleset_text, rulesets_folder

__all__ = [
    "GameInfo",
    "game_info",
    "list_games",
    "load_game",
    "other_seat_count_problems",
    "read_document",
    "ruleset_text",
    "rulesets_folder",
    "validate",
]


def load_game(
    name_or_path: str | os.PathLike[str], players: int | None = None, *, coverage: bool = False, **params: Any
) -> Game:
    """Load a shipped ruleset by name, or a ruleset file by path, and compile it.

    Args:
        name_or_path: a shipped name (see `list_games`) or a path to a ``.yaml`` file.
        players: seat count (default: the ruleset's default).
        coverage: compile rule-coverage counters into the generated code (see
            `trickkit.lab.coverage`); the game's ``coverage`` attribute then holds them
            (a `trickkit.dsl.coverage.CoverageSites`; None without). Off by default, and
            then the generated code is exactly what it is without this option.
        **params: values overriding the ruleset's parameter defaults, e.g. ``rounds=5``.

    Returns:
        The compiled, immutable `Game`.

    Raises:
        RulesetError: every problem found, each with file, line, column and YAML path.
    """
    doc, loc = read_document(name_or_path)
    if coverage:
        from trickkit.dsl.coverage import CoverageSites, counting

        with counting(CoverageSites()) as sites:
            rules = RulesetCompiler(doc, loc, players, params).compile()
        game = Game(rules, content_hash(doc), str(name_or_path))
        game.coverage = sites
        return game
    rules = RulesetCompiler(doc, loc, players, params).compile()
    return Game(rules, content_hash(doc), str(name_or_path))


def validate(name_or_path: str | os.PathLike[str]) -> list[Problem]:
    """All problems of a ruleset (empty when it loads), without raising: at its default seat
    count, then (when that loads) at every other seat count of its ``players`` range, each such
    problem saying ``(with N players)``."""
    try:
        game = load_game(name_or_path)
    except RulesetError as e:
        return e.problems
    return other_seat_count_problems(name_or_path, game)


def other_seat_count_problems(
    name_or_path: str | os.PathLike[str], game: Game, load: Callable[..., Game] | None = None
) -> list[Problem]:
    """The problems of the ruleset ``game`` was loaded from at the seat counts of its ``players``
    range other than ``game``'s (teams that name seat 3 of a 3-seat game ...), each once.
    ``load``: the loading function (default `load_game`)."""
    load = load or load_game
    problems: list[Problem] = []
    seen: set[tuple[Any, ...]] = set()
    low, high = getattr(game, "players_min", None), getattr(game, "players_max", None)
    if not isinstance(low, int) or not isinstance(high, int):
        return []
    for n in range(low, high + 1):
        if n == game.num_players:
            continue
        try:
            load(name_or_path, players=n)
        except RulesetError as e:
            for p in e.problems:
                if (p.file, p.line, p.column, p.path, p.message) not in seen:
                    seen.add((p.file, p.line, p.column, p.path, p.message))
                    said = p.message.endswith(f" {n} players)")  # a message naming the seat count already
                    problems.append(p if said else attrs.evolve(p, message=f"{p.message} (with {n} players)"))
    return problems
