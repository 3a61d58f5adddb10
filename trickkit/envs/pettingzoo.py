"""PettingZoo AEC environments of trickkit games (the ``pettingzoo`` extra).

::

    from trickkit.envs.pettingzoo import env

    e = env("skull_king", players=4, rounds=3)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (trickkit's seats). Like PettingZoo's classic
environments, an observation is a dict: ``"observation"``, the seat's
`trickkit.State.observation_tensor` as float32, and ``"action_mask"``, an int8 vector over the
game's fixed action ids (`trickkit.Game.num_distinct_actions`), all zero for an agent that is
not to act. Actions are ids (``Discrete(num_distinct_actions)``). Rewards come at the end of the
game (``reward="win"``: +1 for each winner, -1 for every other seat) or as score changes
(``reward="score"``). ``reset(seed=s)`` plays the trickkit game of seed ``s``; a later ``reset()``
without a seed takes the next seed of a sequence started by ``s``, so a seeded run of many
games repeats exactly.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from trickkit.envs import action_id, check_reward_mode, env_seed, next_seed, resolve_game, seat_rewards
from trickkit.errors import IllegalActionError, StateError

__all__ = ["TrickkitAECEnv", "env", "raw_env"]


def env(
    game: Any,
    *,
    reward: str = "win",
    render_mode: str | None = None,
    params: dict[str, Any] | None = None,
    **kwargs: Any,
) -> TrickkitAECEnv:
    """A PettingZoo AEC environment of a trickkit game.

    Args:
        game: a ruleset name (``"hearts"``, ``"skull_king"``), a ruleset path, or a loaded
            `trickkit.Game` (then give no parameters).
        reward: ``"win"`` or ``"score"`` (see the module docstring).
        render_mode: None, or ``"ansi"`` (``render()`` returns the acting seat's transcript)
            or ``"human"`` (prints it).
        params: the ruleset's parameters as a dict (any name, ``reward`` included).
        **kwargs: ``players`` and the ruleset's parameters, as for `trickkit.load_game`.

    Raises:
        trickkit.RulesetError: the ruleset does not load; trickkit.TrickkitError: a bad
            ``reward``, or a ruleset parameter named like an option here that ``params`` does
            not give.
    """
    return TrickkitAECEnv(
        resolve_game(game, kwargs, ("reward", "render_mode", "params"), params), reward=reward, render_mode=render_mode
    )


raw_env = env


class TrickkitAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo is an optional extra, Any to mypy
    """One trickkit game as a PettingZoo `AECEnv` (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "trickkit", "is_parallelizable": False}

    def __init__(self, game: Any, reward: str = "win", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.game = game
        self.reward_mode = check_reward_mode(reward)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"trickkit_{game.name}")
        n = game.num_players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        size = game.num_distinct_actions()
        shape = game.observation_tensor_shape()
        self._action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=-np.inf, high=np.inf, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._seeds = random.Random(random.SystemRandom().randrange(2**63))
        self.state: Any = None  # a trickkit State once reset() ran
        self.agents: list[str] = []

    # -- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent: Any) -> Any:
        """``Dict(observation=Box(float32, (tensor size,)), action_mask=Box(int8, (num_distinct_actions,)))``,
        the same object on every call."""
        return self._observation_spaces[agent]

    def action_space(self, agent: Any) -> Any:
        """``Discrete(num_distinct_actions)``: the game's action ids (the same object on every call)."""
        return self._action_spaces[agent]

    # -- the game ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game: of seed ``seed`` if given (an int or numpy integer), else the next
        seed of the sequence.

        Raises:
            ValueError: ``seed`` is not a non-negative integer of at most 100 digits.
        """
        if seed is not None:
            game_seed = env_seed(seed)
            self._seeds = random.Random(game_seed)
        else:
            game_seed = next_seed(self._seeds)
        self.state = self.game.new_initial_state(seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: Any) -> Any:
        """``agent``'s observation: its tensor and, if it is to act, the mask of its legal action ids."""
        self._started()
        seat = self.agent_name_mapping[agent]
        state = self.state
        if seat == state.current_player():  # (never once the game is over: then it is TERMINAL)
            mask = state.legal_action_mask()
        else:
            mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        return {"observation": state.observation_tensor(seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Apply the selected agent's action id (None for an agent that is done).

        Raises:
            trickkit.IllegalActionError: the action is not an action id (an int or numpy
                integer: ``3.9``, ``True``, ``"3"`` are refused) or not legal now (the game is
                unchanged).
        """
        self._started()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} must act: None is only for an agent that is done")
        state = self.state
        before = state.scores() if self.reward_mode == "score" else None
        state.apply_action(action_id(action))
        self._cumulative_rewards[agent] = 0.0
        for a, r in zip(self.possible_agents, seat_rewards(state, self.reward_mode, before)):
            self.rewards[a] = r
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _started(self) -> None:
        if self.state is None:
            raise StateError("call reset() before observing or stepping the environment")

    def render(self) -> Any:
        """The transcript of the game so far as the selected agent saw it (``"ansi"``), or print it (``"human"``)."""
        if self.render_mode is None or self.state is None:
            return None
        text = self.state.transcript(self.agent_name_mapping[self.agent_selection])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window, no files)."""

    def __str__(self) -> str:
        return f"trickkit_{self.game.name}"
