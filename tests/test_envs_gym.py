"""The Gymnasium-style single-agent wrapper (trickkit.envs.gym).

Runs where Gymnasium is installed (the ``pettingzoo`` extra brings it; .ci/run installs it)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("gymnasium")
import numpy as np
from gymnasium.utils.env_checker import check_env

import trickkit
from trickkit.envs.gym import SingleAgentEnv


def test_gymnasium_env_checker_passes():
    env = SingleAgentEnv("skull_king", seat=1, players=3, rounds=2, on_illegal="end")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity")  # scores and counts are unbounded
        check_env(env, skip_render_check=True)


def play(env, seed):
    obs, _ = env.reset(seed=seed)
    rewards, steps, done = [], 0, False
    while not done:
        assert env.state.current_player() == env.seat  # the learner is asked only on its turns
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        obs, reward, terminated, truncated, _ = env.step(action)
        rewards.append(reward)
        steps += 1
        done = terminated or truncated
    return rewards, steps, env.state.history()


def test_one_seat_learns_the_others_follow_their_agents():
    calls = []

    def first_legal(state):
        calls.append(state.current_player())
        return state.legal_actions()[0]

    class ByLastId:
        def act(self, state):
            return state.legal_action_ids()[-1]

    env = SingleAgentEnv("skull_king", seat=2, opponents=[first_legal, ByLastId()], players=3, rounds=2)
    rewards, steps, _ = play(env, seed=3)
    assert env.state.is_terminal() and steps > 0
    by_seat = [seat for seat, _ in env.state._history]
    assert set(calls) == {0} and len(calls) == by_seat.count(0) > 0  # seat 0's agent made each of its moves
    assert by_seat.count(2) == steps  # and the learner made its own
    assert rewards[-1] == (1.0 if 2 in env.state.winners() else -1.0) and not any(rewards[:-1])


def test_default_opponents_repeat_with_the_seed():
    a, b = SingleAgentEnv("sarkophag", players=4), SingleAgentEnv("sarkophag", players=4)
    assert play(a, 8) == play(b, 8)
    assert play(a, 8)[2] != play(a, 9)[2]


def test_bad_arguments_and_illegal_actions():
    with pytest.raises(ValueError, match="seat must be"):
        SingleAgentEnv("sarkophag", seat=5, players=3)
    with pytest.raises(ValueError, match="one opponent per other seat"):
        SingleAgentEnv("sarkophag", opponents=[None], players=3)
    env = SingleAgentEnv("sarkophag", players=3)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(trickkit.IllegalActionError):
        env.step(illegal)
    ending = SingleAgentEnv("sarkophag", players=3, on_illegal="end")
    obs, _ = ending.reset(seed=1)
    before = ending.state.to_json()
    obs, reward, terminated, truncated, info = ending.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False) and "illegal_action" in info
    assert ending.state.to_json() == before


def test_stepping_before_reset_is_a_clear_error():
    with pytest.raises(trickkit.StateError, match="call reset"):
        SingleAgentEnv("sarkophag", players=3).step(0)
