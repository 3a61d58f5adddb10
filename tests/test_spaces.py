"""The fixed action space (trickkit.engine.spaces) and observation tensors (trickkit.engine.tensor) of a Game."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest

import trickkit
from trickkit.engine.spaces import ActionSpaceError

GAMES = trickkit.list_games()

_FINGERPRINT = """
import hashlib, json, random, sys, trickkit
out = {}
for name in trickkit.list_games():
    game = trickkit.load_game(name)
    state = game.new_initial_state(seed=3)
    rng = random.Random(5)
    for _ in range(12):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_action_ids()))
    out[name] = [list(game.action_space.texts), state.legal_action_ids(), state.observation_tensor(0).tolist(),
                 [list(s) for s in game.observation_tensor_layout()]]
sys.stdout.write(hashlib.sha256(json.dumps(out).encode()).hexdigest())
"""


def test_ids_and_tensors_are_the_same_in_every_process():
    """Two fresh interpreters with different hash seeds derive the same ids, legal ids and tensors."""
    digests = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run(
            [sys.executable, "-c", _FINGERPRINT], capture_output=True, text=True, env=env, timeout=300, check=True
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1 and len(digests.pop()) == 64


def test_skull_king_action_space_is_faces_then_bids_from_zero_to_rounds():
    game = trickkit.load_game("skull_king", players=4, rounds=6)
    texts = game.action_space.texts
    bids = [t for t in texts if t.startswith("bid ")]
    # the round's steps in order: bid (range(0, round + 1), probed to round == rounds), then the plays
    assert bids == [f"bid {v}" for v in range(0, 7)]
    plays = [t for t in texts if t.startswith("play ")]
    deck = game.rules.deck
    assert plays == [f"play {f}" for f in dict.fromkeys(deck.face_texts)]
    assert "play tigress:pirate" in plays and "play tigress:escape" in plays and "play tigress" not in plays
    assert plays.count("play escape") == 1  # five copies, one action
    assert game.num_distinct_actions() == len(texts) == len(set(texts)) == 7 + len(plays)
    assert game.string_to_action("bid 3") == texts.index("bid 3")
    assert game.string_to_action("  BID   3 ") == texts.index("bid 3")
    assert game.action_to_string(texts.index("play tigress:escape")) == "play tigress:escape"


def test_turns_choices_are_products_of_their_values():
    game = trickkit.load_game("saqqara")
    texts = game.action_space.texts
    piles = game.rules.table_zones[[z.name for z in game.rules.table_zones].index("piles")].count
    assert [t for t in texts if t.startswith("take ")] == [f"take {i}" for i in range(1, piles + 1)]
    values = sorted(set(game.cards), key=int)
    places = [t for t in texts if t.startswith("place ")]
    assert len(places) == len(values) * 3 * 2 and "place 7 3 right" in places
    assert "stop" in texts


def test_unknown_ids_and_texts_are_clear_errors():
    game = trickkit.load_game("skull_king", players=3, rounds=2)
    size = game.num_distinct_actions()
    for bad in (-1, size, 10**20):
        with pytest.raises(ActionSpaceError, match="unknown action id"):
            game.action_to_string(bad)
    for bad in ("1", 2.0, None, True):
        with pytest.raises(ActionSpaceError, match="an action id is an int"):
            game.action_to_string(bad)
    with pytest.raises(ActionSpaceError, match="no action 'bid 99'"):
        game.string_to_action("bid 99")
    with pytest.raises(ActionSpaceError, match="did you mean 'play B3'"):
        game.string_to_action("play B31")
    with pytest.raises(ActionSpaceError):
        game.string_to_action(7)
    assert isinstance(ActionSpaceError("x"), trickkit.TrickkitError)


def test_apply_action_takes_an_id_and_refuses_bad_ones_unchanged():
    game = trickkit.load_game("skull_king", players=3, rounds=2)
    state = game.new_initial_state(seed=1)
    before = state.to_json()
    illegal = next(i for i in range(game.num_distinct_actions()) if i not in state.legal_action_ids())
    for bad in (illegal, game.num_distinct_actions(), -5):
        with pytest.raises(trickkit.IllegalActionError):
            state.apply_action(bad)
        assert state.to_json() == before
    with pytest.raises(trickkit.IllegalActionError, match="action id"):
        state.apply_action(1.5)
    first = state.legal_action_ids()[0]
    state.apply_action(first)
    assert state.history() == [game.action_to_string(first)]


def test_observation_tensor_refuses_a_bad_seat():
    state = trickkit.load_game("sarkophag", players=3).new_initial_state(seed=1)
    for bad in (-1, 3, "0", True):
        with pytest.raises(ValueError, match="seat must be an int"):
            state.observation_tensor(bad)


def test_tensor_layout_tiles_the_tensor_and_names_every_zone_and_variable():
    for name in GAMES:
        game = trickkit.load_game(name)
        layout = game.observation_tensor_layout()
        assert layout[0].start == 0
        assert all(a.start + a.size == b.start for a, b in itertools.pairwise(layout))
        assert layout[-1].start + layout[-1].size == game.observation_tensor_shape()[0]
        names = {s.name for s in layout}
        n = game.num_players
        for z in game.rules.seat_zones:
            assert {f"zone {z.name} +{k}" for k in range(n)} <= names
        for v in game.rules.table_vars:
            assert f"var {v.name}" in names


def test_tensor_seats_are_relative_to_the_viewer():
    """Seat p's own hand is block +0 of its tensor, and the current player's one-hot moves with p."""
    game = trickkit.load_game("sarkophag", players=4)
    state = game.new_initial_state(seed=2)
    layout = {s.name: s for s in game.observation_tensor_layout()}
    hand, cur = layout["zone hand +0"], layout["current_player"]
    distinct = list(dict.fromkeys(game.cards))
    for p in range(4):
        t = state.observation_tensor(p).tolist()
        mine = [distinct[i] for i, x in enumerate(t[hand.start + 2 : hand.start + hand.size]) if x]
        assert sorted(mine) == sorted(state.observation(p)["zones"]["hand"][p]["cards"])
        assert t[cur.start : cur.start + cur.size].index(1.0) == (state.current_player() - p) % 4
        other = layout["zone hand +1"]
        assert t[other.start] == len(state.seat_zones[0][(p + 1) % 4]) > 0  # its count only
        assert not any(t[other.start + 1 : other.start + other.size])  # not shown, no card bits


def test_simultaneous_bids_stay_hidden_in_the_tensor():
    game = trickkit.load_game("skull_king", players=3, rounds=3)
    state = game.new_initial_state(seed=4)
    layout = {s.name: s for s in game.observation_tensor_layout()}
    first = state.current_player()
    state.apply_action("bid 1")
    watcher = (first + 1) % 3
    seg = layout[f"var bid +{(first - watcher) % 3}"]
    t = state.observation_tensor(watcher).tolist()
    assert t[seg.start : seg.start + seg.size] == [0.0, 1.0]  # value 0, is_null: not seen yet
    own = layout["var bid +0"]
    assert state.observation_tensor(first)[own.start : own.start + own.size].tolist() == [1.0, 0.0]


def test_an_action_space_too_large_is_a_clear_error(tmp_path, monkeypatch):
    import trickkit.engine.spaces as spaces

    monkeypatch.setattr(spaces, "MAX_DISTINCT_ACTIONS", 5000)  # Trumps' Lovers alone have 78 x 78 choices
    with pytest.raises(ActionSpaceError, match=r"would exceed 5000 actions.*'lovers'"):
        trickkit.load_game("trumps").num_distinct_actions()


def test_probing_stops_at_game_over_and_at_a_round_that_cannot_be_dealt(tmp_path):
    from pathlib import Path

    from trickkit.engine.spaces import _Prober

    game = trickkit.load_game("skull_king", players=6, rounds=7)
    assert {s.round for s in _Prober(game).states()} == set(range(1, 8))  # game_over: round == rounds
    assert [t for t in game.action_space.texts if t.startswith("bid ")][-1] == "bid 7"
    # a game that never ends by the round: 6 seats x 12 cards is more than the 66 cards of the deck
    text = (Path(__file__).resolve().parent.parent / "rulesets" / "skull_king.yaml").read_text("utf-8")
    assert "game_over: round == rounds" in text
    endless = tmp_path / "endless.yaml"
    endless.write_text(text.replace("game_over: round == rounds", "game_over: round > 50"), "utf-8")
    game = trickkit.load_game(str(endless), players=6)
    assert {s.round for s in _Prober(game).states()} == set(range(1, 12))
    assert [t for t in game.action_space.texts if t.startswith("bid ")][-1] == "bid 11"


def test_the_generated_reference_lists_every_game_its_ids_and_segments():
    from trickkit.cli.docgen import spaces_reference

    page = spaces_reference()
    for name in GAMES:
        game = trickkit.load_game(name)
        section = page.split(f"(`{name}`)\n", 1)[1].split("\n## ", 1)[0]
        assert f"**{game.num_distinct_actions()} action ids**" in section
        last = game.num_distinct_actions() - 1
        assert f"`{game.action_to_string(last)}` |" in section
        assert f"-{last} |" in section or f"| {last} |" in section  # the last run of ids ends at the last id
        for seg in game.observation_tensor_layout():
            assert f"| {seg.start} | {seg.size} | `{seg.name}` |" in section


def test_probed_numbers_are_completed_between_the_smallest_and_largest():
    from trickkit.engine.spaces import _Prober

    game = trickkit.load_game("sarkophag", players=3)

    class Hook:  # a value list that offers 2 and 5 at the probes, never 3 or 4
        def __call__(self, state):
            return [2, 5] if state.current == 0 else [5]

    assert _Prober(game).values(Hook()) == [2, 3, 4, 5]
    # other values are sorted by their text ('None' before 'left'), whatever order a rule offers them in
    assert _Prober(game).values(lambda s: ["right", "left", None]) == [None, "left", "right"]


def test_too_many_bids_is_a_clear_error(monkeypatch):
    import trickkit.engine.spaces as spaces

    monkeypatch.setattr(spaces, "MAX_DISTINCT_ACTIONS", 5)
    with pytest.raises(ActionSpaceError, match=r"would exceed 5 actions.*bids alone have 11 values"):
        trickkit.load_game("skull_king").num_distinct_actions()
