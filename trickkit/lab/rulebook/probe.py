"""Constructed states for the rulebook: a game walked to a step, rules evaluated on chosen cards, names a rule reads."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from trickkit.dsl.compiler import EVALUATION_BUDGET
from trickkit.engine.game import Game
from trickkit.engine.state import State

SEED = 1
"""The seed of every game the rulebook plays: its tables are the same on every run."""

MAX_WALK = 5000
"""Most actions played to reach a step."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def walk_to(game: Game, kind: str, seed: int = SEED) -> State | None:
    """A state of a seeded game (random legal moves) at its first decision in a step of ``kind``
    with no card in the trick, or None if the game never gets there."""
    rng = random.Random(seed)
    s = game.new_initial_state(seed=seed)
    for _ in range(MAX_WALK):
        if s.is_terminal():
            return None
        if s.rules.steps[s.step].kind == kind and not s.trick:
            return s
        s.apply_action(rng.choice(s.legal_actions()))
    return None


def evaluate(s: State, hook: Any, *context: Any) -> Any:
    """``hook(s, *context)`` with a fresh evaluation budget."""
    s.budget = EVALUATION_BUDGET
    return hook(s, *context)


def reads(text: str, definitions: dict[str, str]) -> set[str]:
    """The names a rule text reads, through the definitions it names (transitively)."""
    seen: set[str] = set()
    todo = [text]
    while todo:
        for name in _NAME.findall(todo.pop()):
            if name not in seen:
                seen.add(name)
                if name in definitions:
                    todo.append(definitions[name])
    return seen


def definition_texts(doc: dict[str, Any]) -> dict[str, str]:
    """Definition name -> its text (parameters dropped from the name)."""
    out = {}
    for key, value in (doc.get("definitions") or {}).items():
        if isinstance(value, str):
            out[key.split("(", 1)[0].strip()] = value
    return out


def compact(values: list[Any]) -> str:
    """Integers as ranges (``0-3, 5``), anything else joined by commas."""
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        nums = sorted(set(values))
        runs: list[str] = []
        start = prev = nums[0]
        for v in [*nums[1:], None]:
            if v is not None and v == prev + 1:
                prev = v
                continue
            runs.append(str(start) if start == prev else f"{start}-{prev}")
            if v is not None:
                start = prev = v
        return ", ".join(runs)
    return ", ".join(str(v) for v in values)


def show(value: Any) -> str:
    """A rule's value as the rulebook prints it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


STATE_WORDS = frozenset({"round", "dealer", "trick", "current_player", "turn_player"})


def state_names(doc: dict[str, Any]) -> set[str]:
    """The names of a ruleset that change during play: zones, variables and the engine's state names."""
    names = set(STATE_WORDS)
    for key in ("zones", "seat_variables", "table_variables", "team_variables"):
        names.update((doc.get(key) or {}).keys())
    return names
