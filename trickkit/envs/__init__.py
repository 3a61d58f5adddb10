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


def missing_extra(adapter: str, extra: str, error: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error an adapter raises when its framework is not installed: a `ModuleNotFoundError` of
    the same missing module (so ``pytest.importorskip`` and ``except ImportError`` work as before)
    whose message says which extra to install, e.g. ``pip install "trickkit[pettingzoo]"``."""
    return ModuleNotFoundError(
        f'{adapter} needs the "{extra}" extra: pip install "trickkit[{extra}]" (no module named {error.name!r})',
        name=error.name,
    )


def resolve_game(
    game: Any, params: dict[str, Any], own: tuple[str, ...] = (), explicit: dict[str, Any] | None = None
) -> Any:
    """A `trickkit.Game` from a ruleset name or path (loaded with ``params``) or a Game (``params`` empty).

    Args:
        game: a ruleset name or path, or a loaded `trickkit.Game`.
        params: the ruleset's parameters given as keywords of the adapter.
        own: the adapter's own keyword options (``reward``, ``seat``...): a ruleset parameter of
            that name could not be given as a keyword, since the adapter takes it.
        explicit: ruleset parameters given apart (the adapter's ``params=`` dict), which may use
            any name; they win over ``params``.

    Raises:
        TypeError: a Game was given together with parameters.
        trickkit.TrickkitError: the ruleset declares a parameter named like one of ``own`` and
            no ``explicit`` dict says its value (it would silently keep its default).
    """
    from trickkit.engine.game import Game
    from trickkit.engine.loader import load_game

    if explicit is not None and not isinstance(explicit, dict):
        raise TypeError(f"params must be a dict of ruleset parameters, got {type(explicit).__name__}")
    given = {**params, **(explicit or {})}
    if isinstance(game, Game):
        if given:
            raise TypeError("parameters go with a ruleset name, not with a loaded Game")
        loaded = game
    else:
        loaded = load_game(game, **given)
    clash = sorted(set(own) & set(loaded.params) - set(explicit or {}))
    if clash and not isinstance(game, Game):
        raise TrickkitError(
            f"{loaded.name} has a parameter named {clash[0]!r}, like an option of this adapter: "
            f"give the ruleset's value in params={{{clash[0]!r}: ...}} (the keyword sets the adapter's option)"
        )
    return loaded


def action_id(action: Any) -> int:
    """An adapter's action as an action id: an int or a numpy integer (a 0-d integer array too).

    Nothing else is turned into an id: ``3.9``, ``True``, ``"3"``, ``b"3"``, arrays, nan and
    inf are refused, never rounded or parsed.

    Raises:
        trickkit.IllegalActionError: ``action`` is not an integer (the game is unchanged).
    """
    import operator

    from trickkit.engine.actions import quote_action
    from trickkit.errors import IllegalActionError

    kind = getattr(getattr(action, "dtype", None), "kind", None)
    if not isinstance(action, bool) and kind in (None, "i", "u"):
        try:
            return operator.index(action)
        except TypeError:
            pass
    try:
        shown = quote_action(repr(action))
    except Exception:  # a repr must never stop the refusal
        shown = type(action).__name__
    raise IllegalActionError(f"an action is an action id (an int), got {type(action).__name__} {shown}")


def env_seed(seed: Any) -> int:
    """A ``reset(seed=...)`` value as a game seed (an int or numpy integer, 0 to 100 digits).

    Raises:
        ValueError: anything else (a bool, a float, a text, a negative or huge number).
    """
    from trickkit.randomness import check_seed

    return check_seed(seed, "reset(seed)")


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
