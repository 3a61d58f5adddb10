"""The PettingZoo adapter (trickkit.envs.pettingzoo) on every shipped game.

Runs where the ``pettingzoo`` extra is installed (.ci/run installs it and runs this file)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
import numpy as np
from pettingzoo.test import api_test
from pettingzoo.test.seed_test import check_environment_deterministic

import trickkit
from trickkit.envs.pettingzoo import env as make_env

GAMES = trickkit.list_games()


@pytest.mark.parametrize("name", GAMES)
def test_api_test_passes(name):
    e = make_env(name, render_mode="ansi")
    with warnings.catch_warnings():
        # PettingZoo warns that a dict observation (observation + action_mask) is not a numpy array,
        # for its own classic environments too
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        api_test(e, num_cycles=2000)  # enough cycles to play every game to its end


def play_whole_game(e, seed, sample_seed):
    """Every (agent, observation, mask, reward, done, action) of one game to its very end."""
    e.reset(seed=seed)
    for i, agent in enumerate(e.possible_agents):
        e.action_space(agent).seed(sample_seed + i)
    trace = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        action = None if terminated or truncated else int(e.action_space(agent).sample(obs["action_mask"]))
        trace.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated, truncated, action)
        )
        e.step(action)
    assert not e.agents  # every agent saw the end
    return trace, e.state.history()


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_whole_game(name):
    """Same seeds give the same game from the first action to the last reward of every agent
    (not one step: PettingZoo's own seed test once checked only that, bug #1437)."""
    one, other = make_env(name), make_env(name)
    trace_a, history_a = play_whole_game(one, seed=11, sample_seed=3)
    trace_b, history_b = play_whole_game(other, seed=11, sample_seed=3)
    assert trace_a == trace_b and history_a == history_b
    assert len(history_a) > len(one.possible_agents)  # a whole game, many actions
    assert sum(1 for t in trace_a if t[4]) == len(one.possible_agents)  # each agent is told once
    # the same env replays it after other games, and another seed gives another game
    play_whole_game(one, seed=12, sample_seed=3)
    assert play_whole_game(one, seed=11, sample_seed=3)[0] == trace_a
    random_deal = (
        one.game.new_initial_state(seed=11).observation_all() != one.game.new_initial_state(seed=12).observation_all()
    )
    if random_deal:  # (Saqqara lays out its piles without shuffling: its seed changes nothing)
        assert play_whole_game(other, seed=12, sample_seed=3)[0] != trace_a
    # the engine itself replays the env's game from the seed
    assert one.game.replay(11, None, history_a).history() == history_a


def test_unseeded_resets_follow_the_seeded_sequence():
    a, b = make_env("sarkophag"), make_env("sarkophag")
    a.reset(seed=5)
    b.reset(seed=5)
    seeds_a, seeds_b = [], []
    for e, out in ((a, seeds_a), (b, seeds_b)):
        for _ in range(3):
            e.reset()
            out.append(e.state.seed)
    assert seeds_a == seeds_b and len(set(seeds_a)) == 3


def test_pettingzoo_own_seed_test():
    check_environment_deterministic(make_env("skull_king", rounds=2), make_env("skull_king", rounds=2), 500)


def test_observation_is_the_tensor_and_mask_only_for_the_agent_to_act():
    e = make_env("skull_king", players=3, rounds=2)
    e.reset(seed=2)
    state = e.state
    seat = state.current_player()
    for s, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert obs["observation"].tolist() == state.observation_tensor(s).tolist()
        want = state.legal_action_mask().tolist() if s == seat else [0] * e.game.num_distinct_actions()
        assert obs["action_mask"].tolist() == want
    assert e.agent_selection == f"player_{seat}"


def test_an_illegal_action_is_refused_and_changes_nothing():
    e = make_env("skull_king", players=3, rounds=2)
    e.reset(seed=2)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = e.state.to_json()
    with pytest.raises(trickkit.IllegalActionError):
        e.step(illegal)
    with pytest.raises(trickkit.IllegalActionError):
        e.step(None)
    assert e.state.to_json() == before


def test_score_rewards_add_up_to_the_final_scores():
    for name in ("skull_king", "sarkophag"):  # highest and lowest score wins
        e = make_env(name, reward="score")
        e.reset(seed=4)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _ = e.last()
            total[agent] += reward
            e.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
        sign = 1 if e.game.rules.winners_highest else -1
        assert [total[a] for a in e.possible_agents] == [sign * s for s in e.state.scores()]
    with pytest.raises(trickkit.TrickkitError, match="reward must be one of"):
        make_env("sarkophag", reward="gold")


def test_the_docs_examples_run():
    """The PettingZoo and Gymnasium examples of docs/agents.md (the plain docs test skips them)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import docblocks

    assert docblocks.run_blocks("agents.md", "PettingZoo") == 3


def test_stepping_before_reset_is_a_clear_error():
    e = make_env("sarkophag")
    with pytest.raises(trickkit.StateError, match="call reset"):
        e.step(0)
    with pytest.raises(trickkit.StateError, match="call reset"):
        e.observe("player_0")


# -- the Parallel environment ----------------------------------------------------------------------
from pettingzoo.test import parallel_api_test  # noqa: E402

from trickkit.envs.pettingzoo import parallel_env  # noqa: E402
from trickkit.errors import IllegalActionError  # noqa: E402


@pytest.mark.parametrize("name", GAMES)
def test_parallel_api_test_passes(name):
    parallel_api_test(parallel_env(name), num_cycles=5000)


def _acting(obs):
    return sorted(a for a, o in obs.items() if o["action_mask"].any())


def test_simultaneous_picks_are_one_call_and_play_the_game_the_engine_plays():
    """6 nimmt!: every seat picks in one call; the game is the one the engine plays with those picks
    taken in seat order. Taking a row is a sequential step: one agent per call."""
    e = parallel_env("six_nimmt", players=4)
    obs, infos = e.reset(seed=4)
    twin = trickkit.load_game("six_nimmt", players=4).new_initial_state(seed=4)
    rng = np.random.default_rng(0)
    sizes = []
    while e.agents:
        acting = _acting(obs)
        assert acting == sorted(a for a in e.agents if infos[a]["acting"])
        sizes.append(len(acting))
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in acting}
        before = len(e.state.history())
        obs, rewards, terms, _, infos = e.step(actions)
        applied = e.state.history()[before:]
        assert sorted(applied) == sorted(e.game.action_to_string(a) for a in actions.values())
        for text in applied:
            twin.apply_action(text)
    assert twin.is_terminal() and twin.scores() == e.state.scores()
    assert 4 in sizes and 1 in sizes  # picks together; a row taken alone
    assert set(rewards.values()) <= {1.0, -1.0} and all(terms.values())


def test_a_turns_step_is_sequential_even_with_private_choices():
    """Hearts' passes are a turns step (private, not simultaneous): one agent per call, in turn."""
    e = parallel_env("hearts")
    obs, _ = e.reset(seed=1)
    for _ in range(12):
        acting = _acting(obs)
        assert acting == [f"player_{e.state.current_player()}"]
        obs, *_ = e.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in acting})
    assert len(e.state.history()) == 12


def test_a_bad_or_missing_action_leaves_the_game_unchanged():
    e = parallel_env("skull_king", players=3)
    obs, _ = e.reset(seed=2)
    acting = _acting(obs)
    good = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in acting}
    illegal = int(np.flatnonzero(obs[acting[0]]["action_mask"] == 0)[0])
    for bad in (
        {**good, acting[-1]: illegal},
        {a: v for a, v in good.items() if a != acting[-1]},
        {**good, acting[0]: 2.5},
    ):
        with pytest.raises(IllegalActionError):
            e.step(bad)
        assert e.state.history() == [] and all(not p for p in e._pending)
    e.step(good)
    assert len(e.state.history()) == len(acting)
