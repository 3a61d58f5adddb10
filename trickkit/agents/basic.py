"""The simplest agents: uniformly random and first-legal. Both work on any ruleset."""

from __future__ import annotations

import random
from typing import Any

from trickkit.errors import TrickkitError

__all__ = ["FirstLegalAgent", "RandomAgent"]


def _legal_or_raise(state: Any) -> list[Any]:
    """The state's legal actions; a non-terminal state without any is a ruleset bug, said clearly."""
    actions: list[Any] = state.legal_actions()
    if not actions:
        from trickkit.rules.ruleset import step_where

        rules = getattr(state, "rules", None)  # name the step and its file when the engine can
        where = f"{step_where(rules.steps[state.step])}: " if rules is not None else ""
        raise TrickkitError(
            f"{where}seat {state.current_player()} has no legal action in a non-terminal "
            f"state: the ruleset leaves the seat stuck"
        )
    return actions


class RandomAgent:
    """An agent that picks uniformly among the legal actions.

    Args:
        rng: the random source to draw from: a ``random.Random`` (or compatible), or an int
            seed for a new ``random.Random``. None: a generator seeded from the system.
        seed: the same as giving an int ``rng`` (keyword form: ``RandomAgent(seed=3)``).

    The same seed and the same states give the same choices.
    """

    def __init__(self, rng: random.Random | int | None = None, *, seed: int | None = None) -> None:
        if seed is not None:
            rng = seed
        if isinstance(rng, int) and not isinstance(rng, bool):
            rng = random.Random(rng)
        self.rng: Any = rng if rng is not None else random.Random()  # a random.Random or compatible

    def step(self, state: Any) -> Any:
        """Return one legal action of ``state``, chosen with ``rng.choice``.

        Raises:
            TrickkitError: the state is not terminal but has no legal action.
        """
        return self.rng.choice(_legal_or_raise(state))


class FirstLegalAgent:
    """An agent that always plays the first legal action (deck order for cards, option order
    for bids): deterministic, useful as a fixed baseline and in tests.

    Args:
        rng: ignored (accepted so the class is a factory for `trickkit.simulate`).
    """

    def __init__(self, rng: Any = None) -> None:
        pass

    def step(self, state: Any) -> Any:
        """Return ``state.legal_actions()[0]``.

        Raises:
            TrickkitError: the state is not terminal but has no legal action.
        """
        return _legal_or_raise(state)[0]
