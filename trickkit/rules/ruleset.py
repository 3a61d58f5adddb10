"""The compiled ruleset's public names in one place: the typed model and its compiler.

A facade: the model lives in `trickkit.rules.model`, the compiler in `trickkit.rules.compiler`
(with its parts `trickkit.rules.declarations`, `trickkit.rules.steps`, `trickkit.rules.actions`,
`trickkit.rules.checks` and `trickkit.rules.compile_base`).
"""

from __future__ import annotations

from trickkit.rules.compiler import ANY_CONTEXT, RulesetCompiler
from trickkit.rules.declarations import VARIABLE_TYPES
from trickkit.rules.model import (
    ALL_COMBINATIONS,
    MAX_REPEAT_NESTING,
    MAX_ZONE_FAMILY,
    ActionKind,
    AuctionStep,
    BidStep,
    ChooseStep,
    DealStep,
    EffectStep,
    KindsPasses,
    ReactionWindow,
    RepeatEnd,
    RepeatStep,
    RuleHook,
    Rules,
    Step,
    TrickStep,
    TurnStep,
    VariableSpec,
    WhenStep,
    ZoneSpec,
    step_parts,
    step_where,
)

__all__ = [
    "ALL_COMBINATIONS",
    "ANY_CONTEXT",
    "MAX_REPEAT_NESTING",
    "MAX_ZONE_FAMILY",
    "VARIABLE_TYPES",
    "ActionKind",
    "AuctionStep",
    "BidStep",
    "ChooseStep",
    "DealStep",
    "EffectStep",
    "KindsPasses",
    "ReactionWindow",
    "RepeatEnd",
    "RepeatStep",
    "RuleHook",
    "Rules",
    "RulesetCompiler",
    "Step",
    "TrickStep",
    "TurnStep",
    "VariableSpec",
    "WhenStep",
    "ZoneSpec",
    "step_parts",
    "step_where",
]
