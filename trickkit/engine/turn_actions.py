"""The actions of a turns step's kinds, made once per Game and looked up afterwards: by
combination (`_action`), by whole rows (`Rows`, `row_actions`), or in the tables a flat
generated pass indexes (`flat_tables`, see `trickkit.dsl.flat_pass`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trickkit.dsl.runtime import dsl_str
from trickkit.engine.actions import Action
from trickkit.engine.protocols import GameTables
from trickkit.engine.state import State
from trickkit.rules.ruleset import ActionKind

Combo = tuple[Any, ...]
"""The values of an action kind's choices, in the kind's order (card choices as card ids)."""

MAX_CACHED_ACTIONS = 100_000
"""Most actions of turns steps a Game keeps for reuse (an action's text and object cost more
to build than to look up); beyond that, new ones are built each time."""

TABLE_MAX = 4096
"""Most actions one kind's flat table holds (see `flat_tables`): past that, no flat pass."""


def _text(s: State | GameTables, kind: ActionKind, combo: Combo) -> str:
    texts = s.rules.deck.texts
    shown = {
        name: texts[v] if typ == "card" and v is not None else dsl_str(v)  # null, true: as the DSL writes them
        for name, typ, v in zip(kind.choice_names, kind.choice_types, combo)
    }
    return kind.template.format(**shown)


class Rows(dict[Combo, tuple[Any, list[Action]]]):
    """A kind's whole rows of actions (see `row_actions`), by outer values, with the last domain
    they were made for. Always true: it stands in the plan where a kind's lookahead flag is, so
    that the kinds without rows pay nothing for it (their combinations are looked up first)."""

    def __bool__(self) -> bool:
        return True


def row_actions(
    game: GameTables, s: State, kind: ActionKind, cache: dict[Combo, Action], rows: Rows, outer: Combo, last: Any
) -> list[Action]:
    """The actions of ``outer`` followed by each value of ``last`` (a row the generated pass
    passed whole), in order: made once, kept in ``rows`` while the last domain holds the same values."""
    made = [cache.get(outer + (x,)) or _action(game, s, kind, outer + (x,), cache) for x in last]
    if len(rows) < MAX_CACHED_ACTIONS:
        rows[outer] = (last if last.__class__ is tuple else [*last], made)  # a copy the pass cannot change
    return made


def _action(
    game: GameTables, s: State | GameTables, kind: ActionKind, combo: Combo, cache: dict[Combo, Action]
) -> Action:
    """The action of ``combo``, made (or found in the Game's cache) and kept in ``cache``."""
    made = game._turn_actions
    key = (kind.template, kind.name, combo)
    action = made.get(key)
    if action is None:
        action = Action(_text(s, kind, combo), kind.name, choices=combo)
        if len(made) >= MAX_CACHED_ACTIONS:
            return action
        made[key] = action
    cache[combo] = action
    return action


def flat_tables(
    game: GameTables, kinds: Sequence[ActionKind], flat: Any, caches: Sequence[dict[Combo, Action]]
) -> tuple[Any, tuple[Any, ...], Any] | None:
    """``(flat pass, its tables, the pass run with them as a bare rule fn(s, ()))`` for the kinds
    of a generated pass with a flat variant (``flat``, see `trickkit.dsl.flat_pass`): per kind,
    a nested list indexed by its choices' values (a card by its id, an int choice by itself)
    holding the actions, or at the last level of a kind passing whole rows the row's actions.
    None when there is no flat pass, a kind has a lookahead (its combinations are checked one
    by one) or a table would be large."""
    if flat is None or len(flat.keys) != len(kinds) or any(k.lookahead for k in kinds):
        return None
    cards = range(len(game.rules.deck.texts))
    tables = []
    for kind, keys, cache in zip(kinds, flat.keys, caches, strict=True):
        row = keys[-1][1] if keys and len(keys[-1]) == 2 and keys[-1][0] == "row" else None
        index = [cards if k == "card" else k for k in (keys[:-1] if row is not None else keys)]
        size = len(row) if row is not None else 1
        values: Any
        for values in index:
            size *= len(values[1]) if _by_place(values) else max(values, default=0) + 1
        if size > TABLE_MAX:
            return None

        def build(
            level: int,
            combo: Combo,
            kind: ActionKind = kind,
            index: list[Any] = index,
            row: Any = row,
            cache: Any = cache,
        ) -> Any:
            if level == len(index):
                if row is not None:
                    return [_action(game, game, kind, combo + (x,), cache) for x in row]
                return _action(game, game, kind, combo, cache)
            if _by_place(index[level]):  # an unrolled choice: its values' actions by their place
                return [build(level + 1, combo + (v,)) for v in index[level][1]]
            table: list[Any] = [None] * (max(index[level], default=-1) + 1)
            for v in index[level]:
                table[v] = build(level + 1, combo + (v,))
            return table

        tables.append(build(0, ()))
    tables_of = tuple(tables)
    return flat, tables_of, lambda s, _: flat(s, tables_of)


def _by_place(key: Any) -> bool:
    """Is ``key`` (how a flat table is indexed by one choice) ``("at", values)``: by the values' places?"""
    return key.__class__ is tuple and key[:1] == ("at",)
