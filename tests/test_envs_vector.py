"""trickkit.envs.vector: N games per step, batched arrays, auto-reset, the same games as N single ones."""

from __future__ import annotations

import random

import numpy as np
import pytest

import trickkit
from trickkit.envs import next_seed
from trickkit.envs.vector import VectorEnv
from trickkit.errors import IllegalActionError, StateError


def pick(rng, masks):
    return [int(rng.choice(np.flatnonzero(m))) for m in masks]


@pytest.mark.parametrize(
    "name, params, steps", [("hearts", {}, 1400), ("skull_king", {"players": 3, "rounds": 2}, 200)]
)
def test_the_same_games_as_single_games_of_the_same_seeds(name, params, steps):
    n_envs, seed = 3, 11
    envs = VectorEnv(name, n_envs, reward="score", **params)
    game = envs.game
    obs, infos = envs.reset(seed=seed)
    # the single games: slot i plays seed + i, then the next seeds of random.Random(seed + i)
    seeders = [random.Random(seed + i) for i in range(n_envs)]
    singles = [game.new_initial_state(seed=seed + i) for i in range(n_envs)]
    rng = random.Random(0)
    ended = 0
    for _ in range(steps):
        for i, s in enumerate(singles):
            seat = s.current_player()
            assert infos["seat"][i] == seat
            assert np.array_equal(obs["observation"][i], s.observation_tensor(seat))
            assert np.array_equal(obs["action_mask"][i], s.legal_action_mask())
        actions = pick(rng, obs["action_mask"])
        before = [s.scores() for s in singles]
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert obs["observation"].shape == (n_envs, *game.observation_tensor_shape())
        assert rewards.shape == (n_envs, game.num_players) and not truncated.any()
        for i, s in enumerate(singles):
            s.apply_action(actions[i])
            sign = 1 if game.rules.winners_highest else -1
            assert rewards[i].tolist() == [sign * (a - b) for a, b in zip(s.scores(), before[i], strict=True)]
            assert terminated[i] == s.is_terminal()
            if s.is_terminal():
                assert infos["final_scores"][i] == s.scores()
                singles[i] = game.new_initial_state(seed=next_seed(seeders[i]))
                ended += 1
    assert ended > 0  # auto-reset was exercised


def test_the_same_games_as_pettingzoo_environments():
    pz = pytest.importorskip("trickkit.envs.pettingzoo")
    envs = VectorEnv("skull_king", 2, players=3, rounds=1)
    obs, infos = envs.reset(seed=5)
    singles = [pz.env("skull_king", players=3, rounds=1) for _ in range(2)]
    for i, e in enumerate(singles):
        e.reset(seed=5 + i)
    rng = random.Random(1)
    for _ in range(60):
        actions = pick(rng, obs["action_mask"])
        for i, e in enumerate(singles):
            agent = e.agent_selection
            assert agent == f"player_{infos['seat'][i]}"
            assert np.array_equal(e.observe(agent)["observation"], obs["observation"][i])
        obs, _, terminated, _, infos = envs.step(actions)
        for i, e in enumerate(singles):
            e.step(actions[i])
            if terminated[i]:
                assert e.terminations[e.agent_selection]
                e.reset()  # the next seed of the sequence: the vector slot did the same


def test_an_illegal_action_moves_no_game():
    envs = VectorEnv("hearts", 2)
    obs, _ = envs.reset(seed=1)
    legal = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
    illegal = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    before = [s.to_json() for s in envs.states]
    with pytest.raises(IllegalActionError, match="game 1"):
        envs.step([legal[0], illegal])
    assert [s.to_json() for s in envs.states] == before
    with pytest.raises(ValueError, match="one action per game"):
        envs.step([legal[0]])


def test_reset_first_and_a_positive_count():
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv("hearts", 0)
    with pytest.raises(StateError, match="reset"):
        VectorEnv("hearts", 1).step([0])


def test_copy_false_returns_the_buffers():
    envs = VectorEnv(trickkit.load_game("sarkophag"), 2, copy=False)
    obs1, _ = envs.reset(seed=2)
    obs2, *_ = envs.step(pick(random.Random(0), obs1["action_mask"]))
    assert obs1["observation"] is obs2["observation"]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.uint64])
def test_actions_of_any_integer_dtype_are_checked_at_once(dtype):
    """Actions as a numpy array of any integer type step every game; an illegal one is refused
    naming its game, and no game moved."""
    envs = VectorEnv("hearts", 3)
    obs, _ = envs.reset(seed=1)
    legal = np.array([int(np.flatnonzero(m)[0]) for m in obs["action_mask"]], dtype)
    obs, *_ = envs.step(legal)
    histories = [len(s.history()) for s in envs.states]
    bad = np.array([int(np.flatnonzero(m)[0]) for m in obs["action_mask"]], dtype)
    bad[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 2"):
        envs.step(bad)
    assert [len(s.history()) for s in envs.states] == histories


@pytest.mark.parametrize("wrong", [0.9, True, "0", np.float32(1.0)])
def test_an_action_that_is_not_an_integer_is_refused_not_rounded(wrong):
    """A float, a bool or a text is no action id (as for every adapter, `trickkit.envs.action_id`):
    `step([legal + 0.9, ...])` played the legal id rounded down."""
    envs = VectorEnv("hearts", 2)
    obs, _ = envs.reset(seed=1)
    legal = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
    before = [s.to_json() for s in envs.states]
    with pytest.raises(IllegalActionError, match="game 0: an action is an action id"):
        envs.step([wrong, legal[1]])
    assert [s.to_json() for s in envs.states] == before
