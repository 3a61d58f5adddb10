"""Adapters of trickkit games to reinforcement-learning frameworks, each an optional extra.

- `trickkit.envs.pettingzoo`: ``env(name, **params)``, a PettingZoo AEC environment with action
  masks (``pip install "trickkit[pettingzoo]"``);
- `trickkit.envs.openspiel`: ``load_game(name, **params)``, a pyspiel game registered through
  OpenSpiel's Python-game mechanism (``pip install "trickkit[openspiel]"``);
- `trickkit.envs.gym`: ``SingleAgentEnv``, a Gymnasium-style environment in which one seat learns
  and the other seats are played by given agents (``pip install "trickkit[pettingzoo]"``, which
  brings Gymnasium);
- `trickkit.envs.vector`: ``VectorEnv(name, num_envs)``, many games of one ruleset stepped per
  call with batched numpy arrays (no extra: numpy is a core requirement).

Each builds on the engine's fixed action space (`trickkit.Game.num_distinct_actions`,
`trickkit.State.legal_action_ids`) and observation tensors (`trickkit.State.observation_tensor`).

May import: ``trickkit.agents``, ``trickkit.engine`` and the layers below; never the lab or the
command line. The adapters are independent of each other (an import-linter contract).
"""

from __future__ import annotations

import random
from typing import Any, cast

from trickkit.errors import TrickkitError


def resolve_game(game: Any, params: dict[str, Any]) -> Any:
    """A `trickkit.Game` from a ruleset name or path (loaded with ``params``) or a Game (``params`` empty).

    Raises:
        TypeError: a Game was given together with parameters.
    """
    from trickkit.engine.game import Game
    from trickkit.engine.loader import load_game

    if isinstance(game, Game):
        if params:
            raise TypeError("parameters go with a ruleset name, not with a loaded Game")
        return game
    return load_game(game, **params)


def seat_rewards(state: Any, mode: str, before: list[Any] | None = None) -> list[float]:
    """Each seat's reward for the step just taken.

    ``mode`` ``"win"``: +1 to every winner and -1 to every other seat once the game is over,
    0 before. ``"score"``: each seat's change of score since ``before`` (the scores before the
    step), negated for a game whose lowest score wins, so a higher reward is always better.
    """
    n = state.game.num_players
    if mode == "win":
        if not state.is_terminal():
            return [0.0] * n
        winners = set(state.winners())
        return [1.0 if s in winners else -1.0 for s in range(n)]
    sign = 1.0 if state.rules.winners_highest else -1.0
    after = state.scores()
    return [sign * (a - b) for a, b in zip(after, cast("list[Any]", before))]  # "score" mode passes before


REWARD_MODES = ("win", "score")


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise TrickkitError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}, got {mode!r}")
    return mode


def next_seed(rng: random.Random) -> int:
    """A game seed from an environment's seed sequence."""
    return rng.randrange(2**63)
