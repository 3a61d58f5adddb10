"""A clone is independent of its original, for every shipped game (no timing here).

`trickkit.lab.conformance`'s ``clone`` check compares clones through what they show (JSON, the full
observation); these tests look at the state itself: every slot equal, no list shared with the
original, and list-valued variables (copied by the game's generated copier) included.
"""

from __future__ import annotations

import random

import pytest

import trickkit
from trickkit.engine.state import State

GAMES = trickkit.list_games()

SHARED = {
    "game",
    "rules",
    "_rng",
    "_rng_state",
    "_rng_lent",
    "_legal",
    "memo",
    "last_trick",
    "deals",
    "budget",
    "auction",
}
"""Slots a clone may share or set afresh: immutable tables, the generator (shared as a
snapshot), the cached legal actions (never changed in place), the finished trick's record,
the auction's moment (an interned, immutable node)."""


def _lists(value, out):
    """Every list reachable from ``value`` (through lists and tuples)."""
    if isinstance(value, list):
        out.append(value)
        for v in value:
            _lists(v, out)
    elif isinstance(value, tuple):
        for v in value:
            _lists(v, out)
    return out


def _picture(state: State) -> dict:
    """The state's slots, as plain nested data (lists copied), for equality checks."""
    import copy

    return {name: copy.deepcopy(getattr(state, name)) for name in State.__slots__ if name not in SHARED}


def _states(name: str, seeds=(0, 1, 2)):
    """States of ``name`` at several points of a few random games."""
    game = trickkit.load_game(name)
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        n = 0
        while not state.is_terminal():
            if n in (0, 1, 5, 20, 60) or n % 97 == 0:
                yield state
            state.apply_action(rng.choice(state.legal_actions()))
            n += 1
        yield state


@pytest.mark.parametrize("name", GAMES)
def test_a_clone_equals_its_original_and_shares_no_list_with_it(name):
    for state in _states(name):
        clone = state.clone()
        assert _picture(clone) == _picture(state)
        assert clone.auction is state.auction  # immutable: shared, never copied
        theirs = {id(x) for slot in State.__slots__ if slot not in SHARED for x in _lists(getattr(state, slot), [])}
        mine = [x for slot in State.__slots__ if slot not in SHARED for x in _lists(getattr(clone, slot), [])]
        assert not [x for x in mine if id(x) in theirs], "a clone shares a list with its original"


@pytest.mark.parametrize("name", GAMES)
def test_playing_a_clone_or_changing_its_lists_leaves_the_original_as_it_was(name):
    for state in _states(name, seeds=(3,)):
        before = _picture(state)
        clone = state.clone()
        for x in _lists([clone.seat_zones, clone.table_zones, clone.seat_vars, clone.table_vars], []):
            x.append(-1)  # every list of the clone, variables' list values included, changed in place
        assert _picture(state) == before
        clone = state.clone()
        rng = random.Random(7)
        for _ in range(30):
            if clone.is_terminal():
                break
            clone.apply_action(rng.choice(clone.legal_actions()))
        assert _picture(state) == before
        # and the other way round: the original plays on, a clone made before keeps its picture
        twin = state.clone()
        frozen = _picture(twin)
        if not state.is_terminal():
            other = state.clone()
            other.apply_action(rng.choice(other.legal_actions()))
            assert _picture(twin) == frozen


def test_list_valued_variables_are_copied_deeply():
    # Skull King 2021 keeps a list per seat (loot_with), Spades and Saqqara list-valued table
    # variables: a clone's lists are its own, nested lists too
    game = trickkit.load_game("skull_king_2021")
    state = game.new_initial_state(seed=1)
    index = next(v.index for v in game.rules.seat_vars if v.name == "loot_with")
    state.seat_vars[index][0] = [1, [2, 3]]
    clone = state.clone()
    assert clone.seat_vars[index][0] == [1, [2, 3]]
    clone.seat_vars[index][0][1].append(4)
    clone.seat_vars[index][0].append(5)
    assert state.seat_vars[index][0] == [1, [2, 3]]


@pytest.mark.parametrize("name", GAMES)
def test_the_state_copier_is_generated_code_that_passes_the_allow_list(name):
    from trickkit.dsl import allowlist

    source = trickkit.load_game(name)._copy_layout.source
    allowlist.check(source, {"_fresh"})  # raises UnsafeCode otherwise
    assert "_fresh" in source or all(
        not v.type.startswith("list") and v.type != "any"
        for v in trickkit.load_game(name).rules.seat_vars + trickkit.load_game(name).rules.table_vars
    )


def test_new_states_start_from_copies_of_the_games_initial_layout():
    game = trickkit.load_game("sarkophag")
    a, b = game.new_initial_state(seed=1), game.new_initial_state(seed=1)
    layout = game._initial_layout
    assert all(not hand for zone in layout.seat_zones for hand in zone)  # never dealt into
    assert layout.table_zones[game.pool_zone] == list(range(len(game.rules.deck)))
    a.seat_vars[0][0] += 5
    a.seat_zones[0][0].append(99)
    assert b.seat_vars[0][0] == 0 and 99 not in b.seat_zones[0][0] and layout.seat_vars[0][0] == 0
