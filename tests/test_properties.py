"""Property tests of the engine, run on EVERY shipped game (random seeds, seat counts, legal play).

Each test draws a seat count in the game's range, a shuffle seed and a seed for the random
choices of legal actions, plays a game and checks an invariant at every step.
"""

from __future__ import annotations

import functools
import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit.lab import conformance as testing

GAMES = trickkit.list_games()
SEEDS = st.integers(0, 2**32)
# modest by default (the file runs in seconds); TRICKKIT_PROPERTY_EXAMPLES=500 for a long hunt
EXAMPLES = int(os.environ.get("TRICKKIT_PROPERTY_EXAMPLES", "20"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def load(name: str, players: int, **params) -> trickkit.Game:
    return trickkit.load_game(name, players=players, **params)


@functools.cache
def player_range(name: str) -> tuple[int, int]:
    g = trickkit.load_game(name)
    return g.players_min, g.players_max


SHORTER = {
    "oh_hell": {"max_cards": 4},
    "spades": {"target": 200, "floor": -200},
    "crazy_eights": {"target": 0},
    "six_nimmt": {"limit": 20},
    "hearts": {"limit": 50},
}
"""Parameters that shorten a game whose default is long (Oh Hell's full game is up to 33 hands,
random Spades about four, Crazy Eights several hands of long random play, 6 nimmt! several hands
of up to 10 seats, Hearts to 50 points three to seven hands, so every passing direction: one
hand reaches every rule), so that every property runs over many whole games
in seconds. Their full-length games are played by the lockstep tests against the independent
models and by the golden playthroughs."""


def draw_game(data, name: str, **params) -> trickkit.Game:
    lo, hi = player_range(name)
    players = data.draw(st.integers(lo, hi), label="players")
    return load(name, players, **{**SHORTER.get(name, {}), **params})


def random_playout(state: trickkit.State, rng: random.Random):
    """Play random legal actions until the game ends; yield ``(state, action)`` before each is applied."""
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        yield state, action
        state.apply_action(action)


def setup(data, name: str, **params):
    game = draw_game(data, name, **params)
    seed = data.draw(SEEDS, label="seed")
    rng = random.Random(data.draw(SEEDS, label="choice seed"))
    return game, seed, rng


# ---------------------------------------------------------------- 1-8: the engine's invariants
# One implementation for every ruleset: trickkit.lab.conformance (also `trickkit test FILE` and authors' tests).
@pytest.mark.parametrize("check", testing.CHECKS)
@pytest.mark.parametrize("name", GAMES)
def test_engine_invariant(name, check):
    """termination, conservation, illegal actions, determinism, clone, JSON, hidden information."""
    testing.check_one(name, check, params=SHORTER.get(name), examples=EXAMPLES)


# ---------------------------------------------------------------- 8c: simultaneous choices stay secret
def _has_simultaneous_step(name) -> bool:
    return any(getattr(step, "simultaneous", False) for step in trickkit.load_game(name).rules.steps)


@pytest.mark.parametrize("name", [g for g in GAMES if _has_simultaneous_step(g)])
@FAST
@given(data=st.data())
def test_simultaneous_choices_stay_secret_until_all_have_chosen(name, data):
    """A bid or a card chosen in a simultaneous step: until the step is over, every other
    seat sees its text as ``verb ?`` (as it is made, and in the history), and a chosen card's
    zone only as a count; once every seat has chosen, the history shows the texts, except
    cards chosen into a zone that is not public."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    n = game.num_players
    log: list[tuple[int, str]] = []  # (actor, text), kept by this test
    running = None  # ((round, step index, repeat passes), history index where that step began, the step)

    def check_revealed(start, step):
        if rng.random() > 0.3 and start > 0:  # the first step always, then some
            return
        for viewer in range(n):
            seen = state.history_seen_by(viewer)
            for i in range(start, len(log)):
                actor, text = log[i]
                hidden = step.kind == "choose" and step.to.visibility != "public" and actor != viewer
                assert seen[i] == (f"{text.split()[0]} ?" if hidden else text), (viewer, i, seen[i])

    for s, action in random_playout(state, rng):
        step = game.rules.steps[s.step]
        key = (s.round, s.step, tuple(s.passes))  # a step played again by a repeat block is a new instance
        if running is not None and running[0] != key:  # the step is over: revealed
            check_revealed(running[1], running[2])
            running = None
        if getattr(step, "simultaneous", False):
            if running is None:
                running = (key, len(log), step)
            actor = s.current_player()
            deep = len(log) - running[1] < 2 or rng.random() < 0.2  # the history costs its length: not always
            for viewer in range(n):
                if viewer != actor:
                    assert s.action_seen_by(action, viewer) == f"{action.verb} ?"
                if not deep:
                    continue
                seen = s.history_seen_by(viewer)
                for i in range(running[1], len(log)):
                    who, text = log[i]
                    assert seen[i] == (text if who == viewer else f"{text.split()[0]} ?"), (viewer, i, seen)
                if step.kind == "choose":
                    views = s.observation(viewer)["zones"][step.to.name]
                    assert all(set(views[q]) == {"count"} for q in range(n) if q != viewer)
        log.append((s.current_player(), action.text))
    if running is not None:
        check_revealed(running[1], running[2])


# ---------------------------------------------------------------- 9: Sarkophag
@pytest.mark.parametrize("name", [g for g in GAMES if g == "sarkophag"])
@FAST
@given(data=st.data())
def test_sarkophag_heads_and_leader_never_takes(name, data):
    # default limit=0: a single deal, so 'taken' is never cleared by a later deal and the
    # trick's taker is the one seat whose 'taken' zone grew
    free = data.draw(st.booleans(), label="free_after_break")
    game, seed, rng = setup(data, name, free_after_break=free)
    n = game.num_players
    heads = game.rules.deck.attrs["heads"]
    taken = next(z for z in game.rules.seat_zones if z.name == "taken")
    stock = next(z for z in game.rules.table_zones if z.name == "stock")
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        # each seat's score is the heads of the cards it took so far
        assert state.scores() == [sum(heads[c] for c in state.seat_zones[taken.index][q]) for q in range(n)]
        action = rng.choice(state.legal_actions())
        completes = len(state.trick) == n - 1
        leader = state.trick[0][0] if state.trick else None
        sizes = [len(h) for h in state.seat_zones[taken.index]]
        state.apply_action(action)
        if completes:
            grew = [q for q in range(n) if len(state.seat_zones[taken.index][q]) != sizes[q]]
            assert len(grew) == 1 and len(state.seat_zones[taken.index][grew[0]]) == sizes[grew[0]] + n
            assert grew[0] != leader, f"leader {leader} took the trick: {state.history()}"
    assert state.is_terminal()
    dealt = [c for c in range(len(game.cards)) if c not in state.table_zones[stock.index]]
    assert len(dealt) == n * game.params["hand_size"]
    in_taken = [c for h in state.seat_zones[taken.index] for c in h]
    assert sorted(in_taken) == sorted(dealt)
    assert sum(state.scores()) == sum(heads[c] for c in in_taken) == sum(heads[c] for c in dealt)


# ---------------------------------------------------------------- 10: Skull King
@pytest.mark.parametrize("name", [g for g in GAMES if g == "skull_king"])
@FAST
@given(data=st.data())
def test_skull_king_bids_are_secret_until_all_have_bid(name, data):
    game, seed, rng = setup(data, name)
    n = game.num_players
    bid_var = next(v for v in game.rules.seat_vars if v.name == "bid")
    state = game.new_initial_state(seed=seed)
    bid_phases = 0
    was_bidding = False
    for s, action in random_playout(state, rng):
        phase = s.observation(0)["phase"]
        true_bids = s.seat_vars[bid_var.index]
        if phase == "bid":
            bid_phases += not was_bidding
            done = {(s.current_player() - k - 1) % n for k in range(s.acted)}
            for p in range(n):
                bids = s.observation(p)["variables"]["bid"]
                assert len(bids) == n
                for q in range(n):
                    if q != p:
                        assert bids[q] is None, f"seat {p} sees seat {q}'s bid during bidding: {bids}"
                assert bids[p] == (true_bids[p] if p in done else None)
            assert len(done) == s.acted < n
            assert action.text.startswith("bid ")
        else:
            # once all have bid, every bid is public and true
            for p in range(n):
                assert s.observation(p)["variables"]["bid"] == list(true_bids)
        was_bidding = phase == "bid"
    assert bid_phases == game.params["rounds"]


# ---------------------------------------------------------------- 12: action ids and observation tensors
# every action of a game is checked, so fewer games suffice (TRICKKIT_PROPERTY_EXAMPLES scales them too)
LIGHT = settings(FAST, max_examples=max(2, EXAMPLES // 4))


@pytest.mark.parametrize("name", GAMES)
@LIGHT
@given(data=st.data())
def test_every_legal_action_has_an_id_that_maps_back(name, data):
    """Each legal action has one id in the game's fixed space, its text maps back to it, the
    mask marks exactly those ids, and applying the id does what applying the text does."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    size = game.num_distinct_actions()
    while not state.is_terminal():
        legal = state.legal_actions()
        ids = state.legal_action_ids()
        assert len(ids) == len(set(ids)) == len(legal)
        assert all(0 <= i < size for i in ids)
        assert [game.action_to_string(i) for i in ids] == [a.text for a in legal]
        assert [game.string_to_action(a.text) for a in legal] == ids
        mask = state.legal_action_mask()
        assert mask.dtype == np.int8 and mask.shape == (size,) and np.flatnonzero(mask).tolist() == sorted(ids)
        k = rng.randrange(len(ids))
        by_text = state.clone()
        by_text.apply_action(legal[k].text)
        state.apply_action(ids[k])
        assert state.history() == by_text.history()
        if rng.random() < 0.05:
            assert state.observation_all() == by_text.observation_all()
    assert state.legal_action_ids() == [] and not any(state.legal_action_mask())


@pytest.mark.parametrize("name", GAMES)
@LIGHT
@given(data=st.data())
def test_observation_tensor_shows_what_the_seat_sees(name, data):
    """The tensor has the game's shape; each zone block counts the cards of the zone, shows the
    cards exactly when the dict view shows them (all zero otherwise), for every seat."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    n = game.num_players
    layout = {seg.name: seg for seg in game.observation_tensor_layout()}
    distinct = list(dict.fromkeys(game.cards))

    def check(s):
        for p in range(n):
            array = s.observation_tensor(p)
            assert array.shape == game.observation_tensor_shape() and array.dtype == np.float32
            tensor = array.tolist()
            reference = game._observation_encoder.encode_reference(s, p)  # the dict view's encoding
            assert tensor == np.asarray(reference, dtype=np.float32).tolist()
            obs = s.observation(p)
            views = []
            for z in game.rules.seat_zones:
                views += [(f"zone {z.name} +{k}", obs["zones"][z.name][(p + k) % n]) for k in range(n)]
            for z in game.rules.table_zones:
                v = obs["zones"][z.name]
                views += [(f"zone {z.name}[{i}]", m) for i, m in enumerate(v)] if z.count else [(f"zone {z.name}", v)]
            for seg_name, view in views:
                seg = layout[seg_name]
                block = tensor[seg.start : seg.start + seg.size]
                assert block[0] == view["count"]
                shown = view.get("cards", [view["top"]] if view.get("top") is not None else [])
                assert block[2:] == [float(shown.count(t)) for t in distinct], seg_name
            assert tensor[layout["scores"].start] == s.scores()[p]

    check(state)
    for s, _ in random_playout(state, rng):
        if rng.random() < 0.1:
            check(s)
    check(state)
