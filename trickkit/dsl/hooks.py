"""Wraps generated rule functions as rule hooks: fixed context arguments, frame allocation, located runtime errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from trickkit.dsl.runtime import EvaluationLimit
from trickkit.errors import DSLRuntimeError

Hook = Callable[..., Any]
"""A generated rule called as ``hook(state, *context)``; has ``.where``, ``.text``, ``.fn`` and
``.size`` attributes."""

_RUNTIME = (
    TypeError,
    ValueError,
    ZeroDivisionError,
    AttributeError,
    IndexError,
    KeyError,
    RecursionError,
    EvaluationLimit,
    OverflowError,
    MemoryError,
)


def make_hook(fn: Callable[..., Any], size: int, nctx: int, where: str, text: str) -> Hook:
    """Wrap a generated function ``fn(state, frame)`` as ``hook(state, *context)``.

    Args:
        fn: the generated function from `trickkit.dsl.compiler.Compiler`.
        size: frame size it needs (context values first).
        nctx: number of context values the caller passes.
        where: ``file:line:col: $.path`` of the rule, for error messages.
        text: the DSL text, for error messages.

    A Python error inside the rule becomes `trickkit.errors.DSLRuntimeError`
    naming ``where``.
    """
    pad = (None,) * (size - nctx)  # generated code only reads its frame: one shared padding

    def fail(err: Exception) -> NoReturn:
        raise DSLRuntimeError(f"{where}: {type(err).__name__}: {err} in {' '.join(text.split())!r}") from err

    hook: Any  # a function given attributes below
    if nctx == 0:
        hook = _no_context(fn, pad, fail)
    elif nctx == 1 and not pad:
        hook = _one_value(fn, fail)
    else:
        hook = _values(fn, pad, fail)
    hook.where = where
    hook.text = text
    hook.fn = fn  # the bare function and its frame size, for engine loops that reuse one frame
    hook.size = size
    wrapped: Hook = hook
    return wrapped


def _no_context(fn: Callable[..., Any], pad: tuple[None, ...], fail: Callable[[Exception], NoReturn]) -> Any:
    def hook(state: Any) -> Any:
        try:
            return fn(state, pad)
        except _RUNTIME as e:
            fail(e)

    return hook


def _one_value(fn: Callable[..., Any], fail: Callable[[Exception], NoReturn]) -> Any:
    def hook(state: Any, a: Any) -> Any:
        try:
            return fn(state, (a,))
        except _RUNTIME as e:
            fail(e)

    return hook


def _values(fn: Callable[..., Any], pad: tuple[None, ...], fail: Callable[[Exception], NoReturn]) -> Any:
    def hook(state: Any, *ctx: Any) -> Any:
        try:
            return fn(state, ctx + pad)
        except _RUNTIME as e:
            fail(e)

    return hook
