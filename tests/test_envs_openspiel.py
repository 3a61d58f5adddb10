"""The OpenSpiel adapter (trickkit.envs.openspiel) on every shipped game.

Runs where the ``openspiel`` extra is installed (.ci/run installs it and runs this file)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")
import numpy as np  # noqa: E402
from open_spiel.python import observation as spiel_observation  # noqa: E402
from open_spiel.python.algorithms import (  # noqa: E402
    cfr,
    evaluate_bots,
    exploitability,
    mcts,
    outcome_sampling_mccfr,
)
from open_spiel.python.bots import uniform_random  # noqa: E402

import trickkit  # noqa: E402
from trickkit.envs.openspiel import load_game  # noqa: E402

GAMES = trickkit.list_games()


@pytest.mark.parametrize("name", GAMES)
def test_random_simulation_checks_pass(name):
    """OpenSpiel's own C++ checks of a game played at random (legal actions and masks, clones,
    observations of every player, returns), on whole games."""
    game = load_game(name)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_registered_through_openspiel_and_loadable_by_name():
    game = load_game("skull_king", players=3, rounds=2)
    assert isinstance(game, pyspiel.Game)
    assert "python_trickkit_skull_king" in pyspiel.registered_names()
    again = pyspiel.load_game("python_trickkit_skull_king", {"players": 3, "rounds": 2})
    tk = trickkit.load_game("skull_king", players=3, rounds=2)
    for g in (game, again):
        assert g.num_players() == 3
        assert g.num_distinct_actions() == tk.num_distinct_actions()
        assert g.observation_tensor_shape() == list(tk.observation_tensor_shape())
        t = g.get_type()
        assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert t.provides_observation_tensor and t.provides_information_state_tensor
        assert g.information_state_tensor_shape() == list(tk.information_state_tensor_shape())
    assert game.get_parameters()["rounds"] == 2


def test_state_mirrors_the_trickkit_state():
    game = load_game("skull_king", players=3, rounds=2, rng_seed=4)
    state = game.new_initial_state()
    tk = state.trickkit_state
    while not state.is_terminal():
        seat = state.current_player()
        assert seat == tk.current_player()
        assert state.legal_actions() == sorted(tk.legal_action_ids())
        assert state.legal_actions_mask(seat) == tk.legal_action_mask().tolist()
        for p in range(3):
            assert np.allclose(state.observation_tensor(p), tk.observation_tensor(p))
            assert json.loads(state.observation_string(p)) == tk.observation(p)  # never more than the seat sees
            assert np.array_equal(state.information_state_tensor(p), tk.information_state_tensor(p))
            assert state.information_state_string(p) == tk.information_state_string(p)
        action = state.legal_actions()[-1]
        assert state.action_to_string(seat, action) == tk.game.action_to_string(action)
        clone = state.clone()
        state.apply_action(action)
        assert clone.trickkit_state.history() == tk.history()[:-1]  # clones are independent
    winners = set(tk.winners())
    assert state.returns() == [1.0 if s in winners else -1.0 for s in range(3)]


def test_rng_seed_fixes_the_sequence_of_games():
    def firsts(seed):
        game = load_game("skull_king", players=4, rng_seed=seed)
        return [game.new_initial_state().trickkit_state.observation_all() for _ in range(3)]

    a = firsts(9)
    assert a == firsts(9)
    assert a != firsts(10)
    assert a[0] != a[1]  # each new game is dealt anew


def test_openspiel_mcts_plays_a_trickkit_game():
    """The example of docs/agents.md: OpenSpiel's own MCTS bot plays Skull King against random bots."""
    game = load_game("skull_king", players=3, rounds=2)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=20,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
    )
    bots = [bot] + [uniform_random.UniformRandomBot(p, rng) for p in (1, 2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert len(returns) == 3 and set(returns) <= {1.0, -1.0} and 1.0 in returns


def test_a_loaded_trickkit_game_can_be_given():
    tk = trickkit.load_game("sarkophag", players=3, hand_size=4)
    game = load_game(tk)
    assert game.num_players() == 3 and game.num_distinct_actions() == tk.num_distinct_actions()
    with pytest.raises(TypeError):
        load_game(tk, players=4)


def test_the_docs_example_runs():
    """The OpenSpiel example of docs/agents.md (the plain docs test skips it)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import docblocks

    assert docblocks.run_blocks("agents.md", "OpenSpiel") == 2


def test_outcome_sampling_mccfr_learns_from_information_states():
    """OpenSpiel's outcome-sampling MCCFR (a deal sampled per episode) on a tiny ruleset: its tables
    are keyed by trickkit's information-state strings, and its average policy is a distribution over
    the legal actions at every information state it met."""
    game = load_game("skull_king", players=2, rounds=1, rng_seed=3)
    np.random.seed(0)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(20):
        solver.iteration()
    assert len(solver._infostates) > 10
    assert all(key.startswith("seat ") for key in solver._infostates)
    policy = solver.average_policy()
    state = game.new_initial_state()
    while not state.is_terminal():
        probs = policy.action_probabilities(state)
        assert set(probs) == set(state.legal_actions()) and abs(sum(probs.values()) - 1) < 1e-9
        state.apply_action(max(probs, key=probs.get))


def test_cfr_solves_one_deal_with_same_deal():
    """Full-tree CFR and NashConv need every new_initial_state() to be the same game: same_deal=True."""
    game = load_game("skull_king", players=2, rounds=1, rng_seed=5, same_deal=True)
    a, b = game.new_initial_state(), game.new_initial_state()
    assert a.trickkit_state.observation_all() == b.trickkit_state.observation_all()
    solver = cfr.CFRSolver(game)
    convs = []
    for _ in range(8):
        solver.evaluate_and_update_policy()
        convs.append(exploitability.nash_conv(game, solver.average_policy()))
    assert all(c >= -1e-9 for c in convs) and convs[-1] <= convs[0]
    other = load_game("skull_king", players=2, rounds=1, rng_seed=5)
    assert other.new_initial_state().trickkit_state.seed != other.new_initial_state().trickkit_state.seed
    with pytest.raises(TypeError, match="same_deal"):
        load_game("skull_king", players=2, same_deal=1)


def test_information_state_observer():
    """The observer OpenSpiel makes for its information-state type gives trickkit's information state;
    other perfect-recall types are refused."""
    game = load_game("hearts", rng_seed=2)
    observer = spiel_observation.make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    state = game.new_initial_state()
    for action in state.legal_actions()[:1]:
        state.apply_action(action)
    tk = state.trickkit_state
    for p in range(4):
        observer.set_from(state, p)
        assert np.array_equal(observer.tensor, tk.information_state_tensor(p))
        assert observer.string_from(state, p) == tk.information_state_string(p)
    public_only = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match="perfect-recall"):
        game.make_py_observer(public_only)
