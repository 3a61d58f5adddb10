"""Result checks wrapped around compiled rule hooks: result types the engine relies on, scores records keep."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from trickkit.errors import DSLRuntimeError
from trickkit.jsonsafe import MAX_JSON_INT_DIGITS
from trickkit.rules.model import RuleHook


def _distinct_ints(v: Any) -> bool:
    # set(map(type, ...)) runs in C: this check runs at every bid decision
    return v.__class__ is list and len(set(v)) == len(v) and set(map(type, v)) <= _INT_ONLY


_INT_ONLY = frozenset({int})


RESULT_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list[int]": (_distinct_ints, "a list of different numbers"),
    "int": (lambda v: v.__class__ is int, "an int"),  # a bool is no number here: `score: true` is refused at load too
    "list": (lambda v: isinstance(v, list), "a list"),
    "play": (lambda v: v is None or isinstance(v, tuple), "a play or null"),
}
"""Rule result types the engine relies on: the test of a value and what it should have been, in words."""


def bounded_score(hook: RuleHook | None) -> RuleHook | None:
    """Wrap the score rule so a score beyond what game records keep (`trickkit.jsonsafe`: at
    most MAX_JSON_INT_DIGITS digits; rules may compute 4,096-bit numbers) fails as a located
    DSLRuntimeError, instead of a record that replay refuses and statistics that overflow floats."""
    if hook is None:
        return None
    limit = 10**MAX_JSON_INT_DIGITS

    def bounded(state: Any, *ctx: Any) -> Any:
        v = hook(state, *ctx)
        if v.__class__ is int and not -limit < v < limit:
            raise DSLRuntimeError(
                f"{hook.where}: a score of {len(str(abs(v)))} digits is too large (at most "
                f"{MAX_JSON_INT_DIGITS}, as game records keep it) in {' '.join(hook.text.split())!r}"
            )
        return v

    bounded.__dict__.update(hook.__dict__)  # where, text, type, checks ...
    return cast(RuleHook, bounded)


def checked_result(hook: RuleHook, want: str) -> RuleHook:
    """Wrap a hook so a result of the wrong type (possible when the static type is ``any``,
    or ``null`` from an aggregate over nothing) fails as a located DSLRuntimeError."""
    test, what = RESULT_CHECKS[want]
    fn = hook.fn if getattr(hook, "size", None) == 0 else None  # a rule of the state alone (`until`)
    is_bool = want == "bool"

    def checked(state: Any, *ctx: Any) -> Any:
        if fn is not None and not ctx:  # its generated function itself: one call less per step
            try:
                v = fn(state, ())
            except Exception:  # the hook runs it again and reports the error, located
                v = hook(state)
        else:
            v = hook(state, *ctx)
        if not (v.__class__ is bool if is_bool else test(v)):
            raise DSLRuntimeError(f"{hook.where}: expected {what}, got {v!r} in {' '.join(hook.text.split())!r}")
        return v

    checked.__dict__.update(hook.__dict__)  # where, text, elem_type, fn, size
    out = cast(RuleHook, checked)
    out.checks = want  # generated passes that call ``fn`` itself must leave this hook to the engine
    return out


def no_effect(state: Any, *choices: Any) -> None:
    """The effect of an action kind without ``effect:``."""
    return None


def always_true(state: Any, *choices: Any) -> bool:
    """The combination test of an action kind whose ``allowed`` names no choice."""
    return True


def seat_result(hook: RuleHook, n: int, what: str) -> RuleHook:
    """``hook`` checked to give a seat 0..n-1 (``what`` names it in the error, located)."""

    def checked(state: Any, *ctx: Any) -> Any:
        seat = hook(state, *ctx)
        if seat.__class__ is not int or not 0 <= seat < n:
            raise DSLRuntimeError(f"{hook.where}: {what} must be a seat 0..{n - 1}, got {seat!r}")
        return seat

    checked.__dict__.update(hook.__dict__)  # where, text, type, fn ...
    return cast(RuleHook, checked)
