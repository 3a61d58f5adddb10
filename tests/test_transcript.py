"""The readable game log: ``State.transcript(seat)``, ``trickkit replay --show`` and ``repr(state)``
tell a game from one seat's view and never show a card hidden from it."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trickkit
from trickkit.cli.main import main


def _played_game(name, seed, **params):
    game = trickkit.load_game(name, **params)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    held = {s: set() for s in range(game.num_players)}
    rnd = None
    while not state.is_terminal():
        if state.round != rnd:  # what each seat holds at the start of each round
            rnd = state.round
            for s in range(game.num_players):
                held[s] |= set(state.observation(s)["zones"]["hand"][s]["cards"])
        state.apply_action(rng.choice(state.legal_actions()))
    return game, state, held


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seat=st.integers(0, 2))
def test_transcript_shows_only_cards_the_seat_held_or_saw_played(seed, seat):
    game, state, held = _played_game("skull_king", seed, players=3, rounds=3)
    before = state.to_json()
    text = state.transcript(seat)
    assert state.to_json() == before  # telling the game does not change it
    faces = set(game.rules.deck.face_texts) | set(game.cards)
    played = {t.split(" ", 1)[1] for t in state.history() if t.startswith("play ")}
    played |= {p.split(":")[0] for p in played}
    seen = {tok for tok in re.findall(r"[\w:]+", text) if tok in faces}
    assert seen <= held[seat] | played, seen - held[seat] - played
    # nobody sees another seat's bid before every bid is in
    for line in text.splitlines():
        m = re.fullmatch(r"seat (\d): bid (.+)", line)
        if m:
            assert m[2] == "?", line


def test_transcript_tells_tricks_bids_and_scores():
    _, state, _ = _played_game("skull_king", 4, players=3, rounds=2)
    lines = state.transcript(1).splitlines()
    assert lines[0] == "Skull King, told from seat 1 of 3"
    assert lines[1].startswith("round 1 (dealer seat 0): you hold: hand ")
    tricks = [line for line in lines if line.startswith("trick ")]
    assert len(tricks) == 3
    assert all(re.search(r"; seat \d( \(you\))? takes it \(.+\)$", t) for t in tricks), tricks
    assert sum(line.startswith("bids: ") for line in lines) == 2
    assert sum(line.startswith("end of round ") for line in lines) == 2
    winners = ", ".join(f"seat {s}" + (" (you)" if s == 1 else "") for s in state.winners())
    assert lines[-1].startswith("game over. points: ") and lines[-1].endswith(f"won by {winners}")
    with pytest.raises(ValueError):
        state.transcript(3)


def test_sarkophag_transcript_says_why_each_trick_was_taken():
    _, state, _ = _played_game("sarkophag", 2, players=4)
    tricks = [line for line in state.transcript(0).splitlines() if line.startswith("trick ")]
    assert tricks and all(re.search(r"takes it \((lowest|highest) card: ", t) for t in tricks)


def test_repr_of_a_state_shows_no_hidden_card():
    game = trickkit.load_game("sarkophag", players=4, hand_size=3)
    state = game.new_initial_state(seed=1)
    stock = game.observe(state, None)["zones"]["stock"]["cards"]
    assert len(stock) > 40
    for text in (str(state), repr(state)):
        assert "\n" not in text and len(text) < 200
        assert not set(re.findall(r"\d+", text.split("scores")[0])) & (set(stock) - {"1", "4", "0"})
        assert text.startswith("<State sarkophag round 1, 0 actions, seat 1 to act")


def test_cli_replay_show(tmp_path, capsys):
    out_file = tmp_path / "g.jsonl"
    assert main(["simulate", "sarkophag", "--games", "2", "--seed", "3", "--out", str(out_file)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out_file), "--show", "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("Sarkophag, told from seat 2 of 4") == 2
    assert f"--- {out_file}:1 ---" in out and f"--- {out_file}:2 ---" in out
    assert "takes it (" in out and "seat 2 (you): play " in out
    assert main(["replay", str(out_file), "--show", "--seat", "7"]) == 2


def test_transcript_of_a_game_whose_generator_was_drawn_from_does_not_raise():
    game = trickkit.load_game("skull_king", players=3, rounds=3)
    state = game.new_initial_state(seed=2)
    rng = random.Random(2)
    while state.round == 1:
        state.apply_action(rng.choice(state.legal_actions()))
    for _ in range(50):
        state.rng.random()  # the caller draws: the engine's later shuffles are not the seed's any more
    while state.round == 2:
        state.apply_action(rng.choice(state.legal_actions()))
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    text = state.transcript(0)
    assert text.splitlines()[0] == "Skull King, told from seat 0 of 3"
    last = text.splitlines()[-1]
    assert last.startswith(("game over.", "(the rest cannot be told: replaying from the seed refused")), last


def test_repr_never_raises(monkeypatch):
    state = trickkit.load_game("sarkophag").new_initial_state(seed=1)

    def broken(self):
        raise trickkit.DSLRuntimeError("a score rule that fails")

    monkeypatch.setattr(trickkit.State, "scores", broken)
    assert repr(state) == "<State sarkophag round 1, 0 actions, seat 1 to act, scores ?>"
