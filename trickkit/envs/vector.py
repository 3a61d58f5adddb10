"""N games of one ruleset stepped together, with batched numpy arrays (core install: numpy only).

::

    import numpy as np
    from trickkit.envs.vector import VectorEnv

    envs = VectorEnv("hearts", num_envs=64)
    obs, infos = envs.reset(seed=0)                  # obs["observation"]: [64, obs_dim] float32
    rng = np.random.default_rng(0)
    for _ in range(1000):
        mask = obs["action_mask"]                    # [64, num_actions] int8
        actions = [rng.choice(np.flatnonzero(m)) for m in mask]
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        # rewards: [64, num_players]; infos["seat"]: [64], the seat each observation is for

It follows Gymnasium's vector API (``gymnasium.vector.VectorEnv``: ``num_envs``, ``reset(seed=,
options=)``, ``step(actions)`` returning ``(observations, rewards, terminations, truncations,
infos)``, ``close()``) where a card game of several seats allows, and differs where it cannot:

- **One decision per game per step.** Each game waits for one seat, the one to act
  (``infos["seat"][i]``); its observation is that seat's `trickkit.State.observation_tensor` and
  ``action_mask`` its `trickkit.State.legal_action_mask`, as in `trickkit.envs.pettingzoo`.
- **Rewards of every seat**: ``rewards`` is ``[num_envs, num_players]`` (Gymnasium: ``[num_envs]``):
  what each seat earned by the step (``reward="win"``: +1 to the winners and -1 to the others when
  a game ends, 0 before; ``reward="score"``: each seat's change of score, negated when the lowest
  score wins). A self-play learner credits each seat's reward to that seat's last decision.
- **Auto-reset in the same step** (Gymnasium's ``AutoresetMode.SAME_STEP``): when game ``i`` ends,
  ``terminations[i]`` is True, ``rewards[i]`` holds its final rewards, and the observation is
  already the first decision of the next game (``infos["final_scores"][i]`` holds the ended
  game's scores). No step is spent on a reset. ``truncations`` is always False: every ruleset ends
  within its ``max_actions``.
- **No spaces object**: numpy is the only requirement; ``observation_shape``, ``num_actions`` and
  ``num_players`` say the sizes (wrap it for Gymnasium's spaces if needed).

**Seeds.** ``reset(seed=s)`` deals game ``i`` with seed ``s + i`` (Gymnasium's convention); each
later game of slot ``i`` takes the next seed of a sequence started by ``s + i``, exactly as
`trickkit.envs.pettingzoo` does after ``reset(seed=s + i)``: the same seeds and actions give the
same games as ``num_envs`` single environments.

**Cost.** A step checks the actions against the masks with numpy, applies them, then updates
each game's tensor where its state keeps it (`trickkit.engine.tensor.ObservationEncoder.cached`,
no copy) and concatenates them into the batch with one numpy call; the masks are cleared at once
and each legal id set byte by byte. No array is allocated per game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence, Set
from typing import Any

import numpy as np

from trickkit.envs import action_id, check_reward_mode, env_seed, next_seed, resolve_game, seat_rewards
from trickkit.errors import IllegalActionError, StateError

__all__ = ["VectorEnv"]


class VectorEnv:
    """``num_envs`` games of one trickkit ruleset, stepped together (see the module docstring).

    Args:
        game: a ruleset name or path, or a `trickkit.Game` (then no ``params``).
        num_envs: how many games run side by side.
        reward: ``"win"`` or ``"score"``.
        copy: return new arrays from ``reset``/``step`` (True), or the environment's own buffers,
            overwritten by the next call (False: no copy, for a learner that copies what it keeps;
            writing into them changes nothing the environment checks actions against).
        **params: ``players`` and the ruleset's parameters.

    Raises:
        ValueError: ``num_envs`` is not a positive int, or so large its batch cannot be allocated.
    """

    def __init__(self, game: Any, num_envs: int, *, reward: str = "win", copy: bool = True, **params: Any) -> None:
        if num_envs.__class__ is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.game = resolve_game(game, params)
        self.num_envs = num_envs
        self.reward_mode = check_reward_mode(reward)
        self.copy = copy
        self.num_players: int = self.game.num_players
        self.num_actions: int = self.game.num_distinct_actions()
        self.observation_shape: tuple[int] = self.game.observation_tensor_shape()
        try:
            self._obs = np.zeros((num_envs, *self.observation_shape), np.float32)
        except (ValueError, MemoryError) as e:  # numpy's "Maximum allowed dimension exceeded", or no memory
            raise ValueError(f"num_envs={num_envs}: a batch of that many observations does not fit ({e})") from None
        self._masks = np.zeros((num_envs, self.num_actions), np.int8)  # what step() checks actions against
        # copy=False hands out a copy of the masks made once per step, so a learner writing into
        # the array it holds cannot make step() accept an illegal action
        self._shown_masks = self._masks if copy else np.zeros_like(self._masks)
        self._seats = np.zeros(num_envs, np.int64)
        self._rewards = np.zeros((num_envs, self.num_players), np.float32)
        self._obs_flat = self._obs.reshape(-1)  # the batch as one row: the games' tensors concatenated into it
        self._mask_cells = memoryview(self._masks.reshape(-1))  # type: ignore[arg-type]  # legal ids set byte by byte (quicker than numpy)
        self._encoder = self.game._observation_encoder
        self._ids = self.game.action_space.ids
        self._arange = np.arange(num_envs) * self.num_actions
        self._seeds = [random.Random(random.SystemRandom().randrange(2**63)) for _ in range(num_envs)]
        self.states: list[Any] = []  # the trickkit State of each slot once reset() ran

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start a game in every slot: of seed ``seed + i`` in slot ``i`` if ``seed`` is given, else
        the next seed of each slot's sequence. Returns ``(observations, infos)``.

        Raises:
            ValueError: ``seed`` is not a non-negative integer of at most 100 digits (nothing changes).
        """
        if seed is not None:
            seed = env_seed(seed)
            seeds = [seed + i for i in range(self.num_envs)]
            states = [self.game.new_initial_state(seed=s) for s in seeds]  # before anything changes
            self._seeds = [random.Random(s) for s in seeds]
        else:
            states = [self.game.new_initial_state(seed=next_seed(r)) for r in self._seeds]
        self.states = states
        self._observe()
        return self._observations(), self._infos(None)

    def step(self, actions: Sequence[Any] | np.ndarray[Any, Any]) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Apply ``actions[i]`` (an action id) in game ``i`` for every ``i``; start a new game in each
        slot whose game ended.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` (see the module docstring).

        Raises:
            trickkit.IllegalActionError: an action is not legal in its game (naming the slot);
                checked for every slot first, so no game has moved.
            trickkit.StateError: ``reset()`` was not called.
            TypeError: ``actions`` is not a sequence in slot order (a scalar, a generator, a set, a dict).
            ValueError: ``actions`` does not hold one action per game.
        """
        states = self.states
        if not states:
            raise StateError("call reset() before stepping the environment")
        ids = self._checked(actions)
        rewards = self._rewards
        rewards[:] = 0.0
        terminated = np.zeros(self.num_envs, bool)
        final: list[Any] = [None] * self.num_envs
        mode = self.reward_mode
        for i, state in enumerate(states):
            before = state.scores() if mode == "score" else None
            state.apply_action(ids[i])
            if before is not None or state._terminal:  # "win" rewards are all 0 until the end
                rewards[i] = seat_rewards(state, mode, before)
            if state._terminal:
                terminated[i] = True
                final[i] = state.scores()
                states[i] = self.game.new_initial_state(seed=next_seed(self._seeds[i]))
        self._observe()
        truncated = np.zeros(self.num_envs, bool)
        copied = rewards.copy() if self.copy else rewards
        return self._observations(), copied, terminated, truncated, self._infos(final)

    def _checked(self, actions: Sequence[Any] | np.ndarray[Any, Any]) -> list[int]:
        """``actions`` as a list of ints, each legal in its game (checked all at once, with numpy;
        anything else is looked at one by one, to say which is wrong and why)."""
        try:
            count = len(actions)
        except TypeError:  # a scalar, a 0-d array, a generator
            raise TypeError(
                f"actions must be a sequence of {self.num_envs} action ids (one per game), got {type(actions).__name__}"
            ) from None
        if count != self.num_envs:
            raise ValueError(f"give one action per game ({self.num_envs}), got {count}")
        try:
            given = np.asarray(actions)
        except ValueError:  # ragged: looked at one by one below
            given = None
        if (
            given is not None
            and given.shape == (self.num_envs,)
            and given.dtype.kind in "iu"
            and ((given >= 0) & (given < self.num_actions)).all()
            and self._masks.reshape(-1)[self._arange + given.astype(np.intp)].all()
        ):
            ids: list[int] = given.tolist()
            return ids
        if isinstance(actions, (Set, Mapping)):  # no slot order (a dict would give its keys)
            raise TypeError(f"actions must be a sequence in slot order (a list or array), got {type(actions).__name__}")
        masks = self._masks
        ids = []
        for i, action in enumerate(actions):
            try:
                a = action_id(action)  # never rounds a float or parses a text, as every adapter
            except IllegalActionError as e:
                raise IllegalActionError(f"game {i}: {e}") from None
            if not 0 <= a < self.num_actions or not masks[i, a]:
                raise IllegalActionError(f"game {i}: action id {a} is not legal now (see the action mask)")
            ids.append(a)
        return ids

    def _observe(self) -> None:
        """Each game's seat to act, its observation tensor and legal-action mask, into the batch:
        the tensors (each state's own, updated in place by the encoder) are concatenated into it
        with one numpy call; the masks are cleared at once and the legal ids set byte by byte."""
        cached = self._encoder.cached
        ids, cells, width = self._ids, self._mask_cells, self.num_actions
        self._masks.fill(0)
        seats, tensors = [], []
        base = 0
        for state in self.states:
            seat = state.current_player()
            seats.append(seat)
            if seat < 0:  # never: each game is reset as it ends; kept for a state set from outside
                tensors.append(np.zeros(self.observation_shape, np.float32))
            else:
                tensors.append(cached(state, seat))
            legal = state._legal
            try:
                for action in state.legal_actions() if legal is None else legal:
                    cells[base + ids[action.text]] = 1
            except KeyError:
                state.legal_action_mask()  # raises the ActionSpaceError naming the action
                raise
            base += width
        np.concatenate(tensors, out=self._obs_flat)
        self._seats[:] = seats

    def close(self) -> None:
        """Nothing to release (no processes, no files)."""

    def _observations(self) -> dict[str, np.ndarray[Any, Any]]:
        if self.copy:
            return {"observation": self._obs.copy(), "action_mask": self._masks.copy()}
        np.copyto(self._shown_masks, self._masks)
        return {"observation": self._obs, "action_mask": self._shown_masks}

    def _infos(self, final: list[Any] | None) -> dict[str, Any]:
        infos: dict[str, Any] = {"seat": self._seats.copy() if self.copy else self._seats}
        if final is not None and any(f is not None for f in final):
            infos["final_scores"] = final
        return infos

    def __repr__(self) -> str:
        return f"<VectorEnv {self.game.name} x{self.num_envs}>"
