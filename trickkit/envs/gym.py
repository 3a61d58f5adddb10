"""A Gymnasium-style single-agent environment: one seat learns, the others are played by given agents.

::

    from trickkit.envs.gym import SingleAgentEnv

    env = SingleAgentEnv("skull_king", seat=0, players=4, rounds=3)   # others play at random
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

Observations and actions are those of `trickkit.envs.pettingzoo` for the learning seat (a dict
of ``"observation"`` and ``"action_mask"``; ``Discrete(num_distinct_actions)``). After the
learner's action, the other seats act until it is the learner's turn again or the game ends.
An opponent is a callable ``f(state) -> action`` or an object with ``act(state)`` (or
``step(state)``) returning an action as text, `trickkit.Action` or id; by default every other
seat plays uniformly random legal actions drawn from a generator seeded by ``reset(seed=...)``.
"""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from trickkit.envs import action_id, check_reward_mode, env_seed, missing_extra, next_seed, resolve_game, seat_rewards
from trickkit.errors import IllegalActionError, StateError

try:
    import gymnasium
    from gymnasium import spaces
except ModuleNotFoundError as missing:  # the framework is an extra: say which
    raise missing_extra("trickkit.envs.gym", "pettingzoo", missing) from None

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(gymnasium.Env):  # type: ignore[misc]  # gymnasium is an optional extra, Any to mypy
    """One seat of a trickkit game as a Gymnasium environment (see the module docstring).

    Args:
        game: a ruleset name or path, or a `trickkit.Game` (then no ``params``).
        seat: the learning seat.
        opponents: one agent per other seat, in seat order (None: random play).
        reward: ``"win"`` or ``"score"``, as in `trickkit.envs.pettingzoo`.
        on_illegal: ``"raise"`` (an illegal action raises `trickkit.IllegalActionError`) or
            ``"end"`` (it ends the episode with reward -1, the game left as it was, for learners
            and checkers that do not read the mask).
        params: the ruleset's parameters as a dict (any name, ``seat`` or ``reward`` included).
        **kwargs: ``players`` and the ruleset's parameters.

    Raises:
        ValueError: ``seat`` is not a seat, or ``opponents`` does not have one agent per other seat.
        trickkit.TrickkitError: a ruleset parameter is named like an option here and ``params``
            does not give it.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Any,
        seat: int = 0,
        opponents: Sequence[Any] | None = None,
        reward: str = "win",
        on_illegal: str = "raise",
        render_mode: str | None = None,
        params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        own = ("seat", "opponents", "reward", "on_illegal", "render_mode", "params")
        self.game = resolve_game(game, kwargs, own, params)
        n = self.game.num_players
        if seat.__class__ is not int and not isinstance(seat, bool) and isinstance(seat, numbers.Integral):
            seat = int(seat)  # a numpy integer is a seat, as in `trickkit.State`
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise ValueError(f"seat must be an int in 0..{n - 1}, got {seat!r}")
        if opponents is not None:
            try:
                count = len(opponents)
            except TypeError:
                raise TypeError(
                    f"opponents must be a list of {n - 1} agents (one per other seat), got {type(opponents).__name__}"
                ) from None
            if count != n - 1:
                raise ValueError(f"give one opponent per other seat ({n - 1}), got {count}")
        self.seat = seat
        self.reward_mode = check_reward_mode(reward)
        if on_illegal not in ("raise", "end"):
            raise ValueError(f"on_illegal must be 'raise' or 'end', got {on_illegal!r}")
        self.on_illegal = on_illegal
        self._ended = False
        self.render_mode = render_mode
        others = [s for s in range(n) if s != seat]
        self._opponents: dict[int, Callable[..., Any]] = (
            dict(zip(others, map(_as_callable, opponents))) if opponents else {}
        )
        size = self.game.num_distinct_actions()
        self.action_space = spaces.Discrete(size)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=-np.inf, high=np.inf, shape=self.game.observation_tensor_shape(), dtype=np.float32
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
            }
        )
        self._seeds = random.Random(random.SystemRandom().randrange(2**63))
        self._rng = random.Random(0)
        self.state: Any = None  # a trickkit State once reset() ran

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Start a game (of seed ``seed``, an int or numpy integer, else the next of the seeded
        sequence); play the others until the learning seat is to act. Returns
        ``(observation, info)``.

        Raises:
            ValueError: ``seed`` is not a non-negative integer of at most 100 digits.
        """
        if seed is not None:
            seed = game_seed = env_seed(seed)
            self._seeds = random.Random(game_seed)
        else:
            game_seed = next_seed(self._seeds)
        super().reset(seed=seed)
        self.state = self.game.new_initial_state(seed=game_seed)
        self._ended = False
        self._rng = random.Random(game_seed ^ 0x5EED)  # the default opponents' random choices
        self._play_others()
        return self._observe(), self._info()

    def step(self, action: Any) -> Any:
        """Apply the learner's action id, then the others' actions until the learner acts again.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; ``truncated`` is always
            False (every ruleset ends within its ``max_actions``).

        Raises:
            trickkit.IllegalActionError: the action is not an action id (an int or numpy
                integer: ``3.9``, ``True``, ``"3"`` are refused) or not legal now (nothing changes).
        """
        state = self.state
        if state is None:
            raise StateError("call reset() before stepping the environment")
        before = state.scores()
        if self._ended:
            raise IllegalActionError("the episode ended on an illegal action: call reset()")
        try:
            state.apply_action(action_id(action))
        except IllegalActionError as e:
            if self.on_illegal == "raise":
                raise
            self._ended = True
            return self._observe(), -1.0, True, False, dict(self._info(), illegal_action=str(e))
        self._play_others()
        reward = seat_rewards(state, self.reward_mode, before)[self.seat]
        return self._observe(), reward, state.is_terminal(), False, self._info()

    def render(self) -> Any:
        """With ``render_mode="ansi"``, the learning seat's transcript of the game so far (else None)."""
        if self.render_mode == "ansi" and self.state is not None:
            return self.state.transcript(self.seat)
        return None

    # -- helpers ------------------------------------------------------------------------
    def _play_others(self) -> None:
        state = self.state
        while not state.is_terminal() and state.current_player() != self.seat:
            agent = self._opponents.get(state.current_player())
            state.apply_action(agent(state) if agent is not None else self._rng.choice(state.legal_actions()))

    def _observe(self) -> dict[str, Any]:
        state = self.state
        return {"observation": state.observation_tensor(self.seat), "action_mask": state.legal_action_mask()}

    def _info(self) -> dict[str, Any]:
        return {"scores": self.state.scores(), "legal_action_ids": self.state.legal_action_ids()}


def _as_callable(agent: Any) -> Callable[..., Any]:
    if callable(agent):
        function: Callable[..., Any] = agent
        return function
    for name in ("act", "step"):
        method: Callable[..., Any] | None = getattr(agent, name, None)
        if callable(method):
            return method
    raise TypeError(f"an opponent is a callable f(state) or has an act(state) method, got {type(agent).__name__}")
