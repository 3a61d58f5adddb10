"""The step kinds: for each kind of step (``deal``, ``bid``, ``auction``, ``tricks``, ``turns``, ``choose``, ...)
the functions that enter it, list its legal actions, apply an action and explain a refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.engine import auction as _auction
from trickkit.engine import choose as _choose
from trickkit.engine import repeat as _repeat
from trickkit.engine import steps as _steps
from trickkit.engine import turns as _turns
from trickkit.engine.actions import Action
from trickkit.engine.protocols import GameTables
from trickkit.engine.state import State

EnterFn = Callable[[GameTables, State, Any], bool]
"""Entering a step: ``fn(game, state, step) -> bool``, True when the step waits for a decision."""
StepLegalFn = Callable[[GameTables, Any, State], "list[Action]"]
"""Legal actions of a deciding step: ``fn(game, step, state) -> list[Action]``."""
StepApplyFn = Callable[[GameTables, Any, State, Action], bool]
"""Applying a legal action: ``fn(game, step, state, action) -> bool``, True when the step is over."""
ExplainFn = Callable[[GameTables, State, Any, str], str]
"""Why an action text is refused: ``fn(game, state, step, text) -> str``."""

ENTER: dict[str, EnterFn] = {
    "deal": _steps.enter_deal,
    "bid": _steps.enter_bid,
    "auction": _auction.enter_auction,
    "tricks": _steps.enter_tricks,
    "effect": _steps.enter_effect,
    "turns": _turns.enter_turns,
    "repeat": _repeat.enter_repeat,
    "repeat_end": _repeat.enter_repeat_end,
    "when": _repeat.enter_when,
    "choose": _choose.enter_choose,
}
"""Entering a step: ``fn(game, state, step) -> bool``, True when the step waits for a decision."""
LEGAL: dict[str, StepLegalFn] = {
    "bid": _steps.legal_bid,
    "auction": _auction.legal_auction,
    "tricks": _steps.legal_tricks,
    "turns": _turns.legal_turns,
    "choose": _choose.legal_choose,
}
"""Legal actions of a deciding step: ``fn(game, step, state) -> list[Action]``."""
APPLY: dict[str, StepApplyFn] = {
    "bid": _steps.apply_bid,
    "auction": _auction.apply_auction,
    "tricks": _steps.apply_tricks,
    "turns": _turns.apply_turns,
    "choose": _choose.apply_choose,
}
"""Applying a legal action: ``fn(game, step, state, action) -> bool``, True when the step is over."""
EXPLAIN: dict[str, ExplainFn] = {
    "bid": _steps.explain_bid,
    "auction": _auction.explain_auction,
    "tricks": _steps.explain_tricks,
    "turns": _turns.explain_turns,
    "choose": _choose.explain_choose,
}
"""Why an action text is refused: ``fn(game, state, step, text) -> str``."""
