"""The kit's ``agent_samples`` check: for two states with the same information set for a seat, the
agent's determinizations (same seed) are the same, each looks like the real state to the seat,
and none fails. The kit catches a sampler that peeks, one that fails and one that samples
something the seat would notice; the shipped sampler passes on every shipped game."""

from __future__ import annotations

import random

import pytest

import trickkit
import trickkit.agents
from trickkit.lab.conformance import CHECKS, IndexChooser, InvariantError, run_check

GAMES = ("sarkophag", "hearts", "skull_king")


def _run(name: str, seed: int, **params):
    game = trickkit.load_game(name, **params)
    run_check("agent_samples", game, seed, IndexChooser(rng=random.Random(seed)), ruleset=name, params=params)


def _fails(monkeypatch, sampler_class, name: str = "sarkophag") -> str:
    monkeypatch.setattr(trickkit.agents, "InformationSetSampler", sampler_class)
    for seed in range(12):
        try:
            _run(name, seed)
        except InvariantError as e:
            assert e.case.check == "agent_samples"
            return str(e)
    raise AssertionError("the check did not catch it in 12 games")


class Counting(trickkit.agents.InformationSetSampler):
    """The real sampler, counting its samples (to show the check compares some)."""

    drawn = 0

    def sample(self, state):
        Counting.drawn += 1
        return super().sample(state)


class Peeking:
    """A leaky 'sampler': its determinization is the real state (it knows every hidden card)."""

    def __init__(self, seat, rng, max_tries=50):
        self.seat = seat

    def sample(self, state):
        return state.clone()


class Failing(Peeking):
    def sample(self, state):
        raise trickkit.TrickkitError("cannot place the hidden cards")


class Careless(Peeking):
    """Swaps two cards of the seat's own hand with another seat's: the seat would notice."""

    def sample(self, state):
        world = state.clone()
        hands = world.seat_zones[0]
        other = (self.seat + 1) % len(hands)
        hands[self.seat][0], hands[other][0] = hands[other][0], hands[self.seat][0]
        return world


def test_agent_samples_is_a_check_of_the_kit():
    assert "agent_samples" in CHECKS


def test_a_sampler_that_peeks_at_hidden_cards_is_caught(monkeypatch):
    message = _fails(monkeypatch, Peeking)
    assert "sampler (same seed) draws sample 1 differently from two states with the same information set" in message
    assert "cards it never saw" in message and "--replay" in message


def test_a_sampler_that_fails_is_caught(monkeypatch):
    message = _fails(monkeypatch, Failing)
    assert "sampler drawing a determinization" in message and "cannot place the hidden cards" in message


def test_a_sample_the_seat_could_tell_from_the_real_state_is_caught(monkeypatch):
    message = _fails(monkeypatch, Careless)
    assert "does not look like it to seat" in message


@pytest.mark.parametrize("name", GAMES)
def test_the_shipped_sampler_passes_on_shipped_games(monkeypatch, name):
    monkeypatch.setattr(trickkit.agents, "InformationSetSampler", Counting)
    Counting.drawn = 0
    params = {"rounds": 3} if name == "skull_king" else {"limit": 1} if name == "hearts" else {}
    for seed in range(6):
        _run(name, seed, **params)
    assert Counting.drawn >= 2 * 2  # some decisions were compared (two samples from each of two states)
