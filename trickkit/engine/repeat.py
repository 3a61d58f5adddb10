"""Runs ``repeat:`` blocks: a list of steps played again and again inside one round.

The compiled round is flat (`trickkit.rules.ruleset.RulesetCompiler._flat_steps`): a block is a
`trickkit.rules.ruleset.RepeatStep` marker, its steps, and a `trickkit.rules.ruleset.RepeatEnd` marker.
Both markers decide at once whether another pass runs; neither asks a seat anything. The
pass counter of each block lives in ``State.passes`` (a copy of a state copies it), so a
block nested in another starts afresh on every pass of the outer one.

Every marker is a step the engine runs without a decision, so a block that never asks a
seat and never stops (``until`` never true) is caught by the engine's counted limit,
``MAX_STEPS_WITHOUT_DECISION``, like a round that never asks anything.
"""

from __future__ import annotations

from collections.abc import Callable

from trickkit.engine.protocols import GameTables, located
from trickkit.engine.state import State
from trickkit.errors import DSLRuntimeError
from trickkit.rules.ruleset import RepeatEnd, RepeatStep, WhenStep

UNCOUNTED = -1
"""The pass counter of a block with no ``count``: only ``until`` stops it."""


def _another_pass(s: State, step: RepeatStep | RepeatEnd) -> bool:
    """True if another pass of the block runs now (and count it), else False."""
    left = s.passes[step.slot]
    if left == 0:
        return False
    if step.until is not None and step.until(s):
        return False
    if left > 0:
        s.passes[step.slot] = left - 1
    return True


def enter_repeat(game: GameTables, s: State, step: RepeatStep) -> bool:
    """The block starts: evaluate ``count`` once, then run the first pass or skip the block."""
    if step.count is None:
        s.passes[step.slot] = UNCOUNTED
    else:
        count = step.count(s)
        if count < 0:
            raise DSLRuntimeError(f"{located(step.count)}: a repeat count must be 0 or more, got {count}")
        s.passes[step.slot] = count
    if not _another_pass(s, step):
        s.step = step.end  # the engine moves on to the step after the end marker
    return False


def enter_repeat_end(game: GameTables, s: State, step: RepeatEnd) -> bool:
    """A pass is over: start the next one at the block's first step, or let the round go on."""
    if _another_pass(s, step):
        s.step = step.start  # the engine moves on to the step after the start marker
    return False


def planned_repeat_end(step: RepeatEnd) -> Callable[[State], bool]:
    """`enter_repeat_end` as a function of the state alone, for the planned steps that enter the
    next ones themselves (`trickkit.engine.turnplan`): the same test, no dispatch."""
    slot, until, start = step.slot, step.until, step.start

    def enter(s: State) -> bool:
        left = s.passes[slot]
        if left != 0 and (until is None or not until(s)):  # `_another_pass`
            if left > 0:
                s.passes[slot] = left - 1
            s.step = start  # the round goes on after the start marker
        return False

    return enter


def enter_when(game: GameTables, s: State, step: WhenStep) -> bool:
    """A step with ``when:``: unless its condition holds now, the round goes on after the step
    (after a whole ``repeat:`` block); otherwise the step runs next as usual."""
    if not step.condition(s):
        s.step = step.end  # the engine moves on to the step after the guarded one
    return False
