"""trickkit: a rules engine for card games written as YAML rulesets.

The public API::

    import trickkit
    game = trickkit.load_game("skull_king", players=4, rounds=10)
    state = game.new_initial_state(seed=7)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    state.scores()
"""

from typing import Any

from trickkit._version import __version__
from trickkit.engine.actions import Action
from trickkit.engine.game import Game
from trickkit.engine.loader import GameInfo, game_info, list_games, load_game, validate
from trickkit.engine.spaces import ActionSpaceError
from trickkit.engine.state import TERMINAL, State
from trickkit.errors import (
    DealError,
    DSLRuntimeError,
    IllegalActionError,
    Problem,
    RulesetError,
    ScenarioError,
    StateError,
    TrickkitError,
)

__all__ = [
    "TERMINAL",
    "Action",
    "ActionSpaceError",
    "DSLRuntimeError",
    "DealError",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "Problem",
    "RulesetError",
    "ScenarioError",
    "SimulationSummary",
    "State",
    "StateError",
    "TrickkitError",
    "__version__",
    "game_info",
    "list_games",
    "load_game",
    "rulebook",
    "simulate",
    "validate",
]


def __getattr__(name: str) -> Any:
    """`simulate` and `SimulationSummary`, imported on first use: the simulation module (and the
    agents and process pools it brings) is not needed to load and play a game."""
    if name in ("simulate", "SimulationSummary"):
        from trickkit.lab import simulation

        return getattr(simulation, name)
    if name == "rulebook":  # the rulebook builder (trickkit.lab.rulebook), imported on first use
        from trickkit.lab.rulebook import rulebook

        return rulebook
    raise AttributeError(f"module 'trickkit' has no attribute {name!r}")
