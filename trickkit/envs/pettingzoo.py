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

from trickkit.envs import action_id, check_reward_mode, env_seed, missing_extra, next_seed, resolve_game, seat_rewards
from trickkit.errors import IllegalActionError, StateError

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ModuleNotFoundError as missing:  # the framework is an extra: say which
    raise missing_extra("trickkit.envs.pettingzoo", "pettingzoo", missing) from None

__all__ = ["TrickkitAECEnv", "TrickkitParallelEnv", "env", "parallel_env", "raw_env"]


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

    # PettingZoo's API: a class-level dict that each environment replaces with its own (named) copy
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["ansi", "human"],
        "name": "trickkit",
        "is_parallelizable": False,
    }

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
        the same object on every call.

        Raises:
            ValueError: ``agent`` is not an agent of the game.
        """
        try:
            return self._observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None

    def action_space(self, agent: Any) -> Any:
        """``Discrete(num_distinct_actions)``: the game's action ids (the same object on every call).

        Raises:
            ValueError: ``agent`` is not an agent of the game.
        """
        try:
            return self._action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None

    def _unknown(self, agent: Any) -> ValueError:
        return ValueError(f"no such agent: {agent!r} (agents: {', '.join(self.possible_agents)})")

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
        """``agent``'s observation: its tensor and, if it is to act, the mask of its legal action ids.

        Raises:
            ValueError: ``agent`` is not an agent of the game.
            trickkit.StateError: ``reset()`` was not called.
        """
        self._started()
        try:
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None
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
            trickkit.StateError: ``reset()`` was not called, or every agent is done.
        """
        self._started()
        if not self.agents:  # every agent is done: its entries are gone
            raise StateError("the game is over and every agent is done: call reset()")
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

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As PettingZoo's ``AECEnv.last``: the selected agent's observation, cumulative reward,
        termination, truncation and info.

        Raises:
            trickkit.StateError: ``reset()`` was not called.
        """
        self._started()
        return super().last(observe)  # type: ignore[no-any-return]

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


def parallel_env(
    game: Any,
    *,
    reward: str = "win",
    params: dict[str, Any] | None = None,
    **kwargs: Any,
) -> TrickkitParallelEnv:
    """A PettingZoo Parallel environment of a trickkit game (see `TrickkitParallelEnv`).

    Args:
        game: a ruleset name, a ruleset path, or a loaded `trickkit.Game` (then give no parameters).
        reward: ``"win"`` or ``"score"`` (as for `env`).
        params: the ruleset's parameters as a dict (any name).
        **kwargs: ``players`` and the ruleset's parameters, as for `trickkit.load_game`.

    Raises:
        trickkit.RulesetError: the ruleset does not load; trickkit.TrickkitError: a bad ``reward``.
    """
    return TrickkitParallelEnv(resolve_game(game, kwargs, ("reward", "params"), params), reward=reward)


class TrickkitParallelEnv(ParallelEnv):  # type: ignore[misc]  # pettingzoo is an optional extra, Any to mypy
    """One trickkit game as a PettingZoo `ParallelEnv`: the seats of a simultaneous step choose together.

    **Who acts in a ``step``.** In a simultaneous step (a ``bid`` or ``choose`` step with
    ``simultaneous: true``: 6 nimmt!'s picks, Skull King's bids) every seat with a
    choice left acts in the same ``step({agent: action})`` call, one decision each (a seat choosing
    two cards acts in two calls). In any other step only the seat to act acts: one
    decision per call, as in the AEC environment. The agents acting now are those whose
    ``action_mask`` has a 1 (and ``infos[agent]["acting"]`` is True); the actions given for the other
    agents are ignored (PettingZoo's ``parallel_api_test`` sends one for every agent); one for a
    name that is no agent of the game (a typo) is refused.

    **Observations.** A dict per live agent, as in `env`: ``"observation"`` (the seat's observation
    tensor) and ``"action_mask"``. An agent acting in a simultaneous step observes the game as it
    will be when its choice is taken (the engine takes the choices in seat order, and nobody sees
    another's choice until all have chosen, so what it sees does not depend on the others' choices
    of this call); every other agent observes the game now.

    Rewards are those of `env` (``"win"`` at the end, or ``"score"`` changes per call). The game's
    end terminates every agent; ``agents`` is then empty. ``reset(seed=s)`` plays the game of seed
    ``s`` (a later ``reset()`` takes the next seed of that sequence).
    """

    metadata: dict[str, Any] = {"render_modes": [], "name": "trickkit_parallel", "is_parallelizable": True}  # noqa: RUF012

    def __init__(self, game: Any, reward: str = "win") -> None:
        self._aec = TrickkitAECEnv(game, reward=reward)
        self.game = game
        self.reward_mode = self._aec.reward_mode
        self.render_mode = None
        self.metadata = dict(self.metadata, name=f"trickkit_parallel_{game.name}")
        self.possible_agents = self._aec.possible_agents
        self.agent_name_mapping = self._aec.agent_name_mapping
        self._seeds = random.Random(random.SystemRandom().randrange(2**63))
        self.state: Any = None
        self.agents: list[str] = []
        self._pending: list[list[int]] = []  # per seat, its choices of this step the engine has not taken yet
        self._acting: dict[int, tuple[Any, Any, frozenset[int]]] = {}  # seat -> (tensor, mask, legal ids)

    def observation_space(self, agent: Any) -> Any:
        """As `TrickkitAECEnv.observation_space` (the same object on every call)."""
        return self._aec.observation_space(agent)

    def action_space(self, agent: Any) -> Any:
        """``Discrete(num_distinct_actions)`` (the same object on every call)."""
        return self._aec.action_space(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], ...]:
        """Start a new game (of seed ``seed`` if given); return ``(observations, infos)``.

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
        self._pending = [[] for _ in self.possible_agents]
        self._plan()
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        """Apply the acting agents' actions (ids); return ``(observations, rewards, terminations,
        truncations, infos)``.

        Raises:
            trickkit.IllegalActionError: an acting agent gave no action, or one that is not an
                action id legal for it now, or an action names no agent of the game; the game is
                unchanged.
            TypeError: ``actions`` is not a dict.
            trickkit.StateError: ``reset()`` was not called, or the game is over.
        """
        if self.state is None or not self.agents:
            raise StateError("call reset() before stepping the environment (and again once the game is over)")
        try:
            unknown = actions.keys() - self.agent_name_mapping.keys()
        except (AttributeError, TypeError):
            raise TypeError(f"actions must be a dict {{agent: action id}}, got {type(actions).__name__}") from None
        if unknown:  # a typo, never silently dropped
            raise IllegalActionError(
                f"no such agent: {sorted(map(repr, unknown))} (agents: {', '.join(self.possible_agents)})"
            )
        chosen = {}
        for seat, (_, _, legal) in self._acting.items():
            agent = self.possible_agents[seat]
            if actions.get(agent) is None:
                raise IllegalActionError(f"{agent} is to act: give its action")
            a = action_id(actions[agent])
            if a not in legal:
                raise IllegalActionError(
                    f"{agent} may not take action {a} ({self.game.action_to_string(a)!r} is not legal for it now)"
                    if 0 <= a < self.game.num_distinct_actions()
                    else f"{agent}: {a} is not an action id of this game"
                )
            chosen[seat] = a
        state = self.state
        before = state.scores() if self.reward_mode == "score" else None
        for seat, a in chosen.items():
            self._pending[seat].append(a)
        while not state.is_terminal() and self._pending[state.current_player()]:  # the engine takes them in turn
            state.apply_action(self._pending[state.current_player()].pop(0))
        rewards = dict(zip(self.possible_agents, seat_rewards(state, self.reward_mode, before)))
        over = state.is_terminal()
        self._plan()  # (nobody acts once the game is over)
        observations = self._observations()
        infos = self._infos()
        live = self.agents
        terminations = dict.fromkeys(live, over)
        truncations = dict.fromkeys(live, False)
        rewards = {a: rewards[a] for a in live}
        if over:
            self.agents = []
            self._acting = {}
        return observations, rewards, terminations, truncations, infos

    def _plan(self) -> None:
        """Who acts now, with the tensor and mask each sees at its decision (see the class docstring)."""
        state = self.state
        acting: dict[int, tuple[Any, Any, frozenset[int]]] = {}
        if state.is_terminal():
            self._acting = acting
            return
        step = state.rules.steps[state.step]
        if not getattr(step, "simultaneous", False):
            seat = state.current_player()
            mask = state.legal_action_mask()
            acting[seat] = (state.observation_tensor(seat), mask, frozenset(np.flatnonzero(mask).tolist()))
            self._acting = acting
            return
        # a walk through the rest of the step on a copy: each seat's pending choices, then a stand-in
        # (its first legal action) for every decision still to make; each seat is asked at its first one
        walk = state.clone()
        taken = [0] * len(self.possible_agents)
        where = (state.round, state.step)
        for _ in range(state.rules.max_actions):
            if walk.is_terminal() or (walk.round, walk.step) != where:
                break
            seat = walk.current_player()
            if taken[seat] < len(self._pending[seat]):
                walk.apply_action(self._pending[seat][taken[seat]])
                taken[seat] += 1
                continue
            if seat not in acting:
                mask = walk.legal_action_mask()
                acting[seat] = (walk.observation_tensor(seat), mask, frozenset(np.flatnonzero(mask).tolist()))
            walk.apply_action(walk.legal_actions()[0])
        self._acting = acting

    def _observations(self) -> dict[str, Any]:
        zeros = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        out = {}
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            if seat in self._acting:
                tensor, mask, _ = self._acting[seat]
                out[agent] = {"observation": tensor.copy(), "action_mask": mask.copy()}
            else:
                out[agent] = {"observation": self.state.observation_tensor(seat), "action_mask": zeros.copy()}
        return out

    def _infos(self) -> dict[str, dict[str, Any]]:
        return {a: {"acting": self.agent_name_mapping[a] in self._acting} for a in self.agents}

    def render(self) -> Any:
        """Nothing to render (use the AEC environment's ``ansi`` mode for transcripts)."""
        return None

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return f"trickkit_parallel_{self.game.name}"
