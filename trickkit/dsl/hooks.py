"""Wraps compiled DSL closures as rule hooks: fixed context arguments, frame allocation, located runtime errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.dsl.runtime import EvaluationLimit
from trickkit.errors import DSLRuntimeError

Hook = Callable[..., Any]
"""A compiled rule called as ``hook(state, *context)``; has ``.where`` and ``.text`` attributes."""

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


def make_hook(fn: Callable, size: int, nctx: int, where: str, text: str) -> Hook:
    """Wrap a compiled closure ``fn(state, frame)`` as ``hook(state, *context)``.

    Args:
        fn: the closure from `trickkit.dsl.compiler.Compiler`.
        size: frame size it needs (context values first).
        nctx: number of context values the caller passes.
        where: ``file:line:col: $.path`` of the rule, for error messages.
        text: the DSL text, for error messages.

    A Python error inside the rule becomes `trickkit.errors.DSLRuntimeError`
    naming ``where``.
    """
    pad = (None,) * (size - nctx)  # generated code only reads its frame: one shared padding

    def fail(err: Exception):
        raise DSLRuntimeError(f"{where}: {type(err).__name__}: {err} in {' '.join(text.split())!r}") from err

    if nctx == 0:

        def hook(state):
            try:
                return fn(state, pad)
            except _RUNTIME as e:
                fail(e)
    elif nctx == 1 and not pad:

        def hook(state, a):
            try:
                return fn(state, (a,))
            except _RUNTIME as e:
                fail(e)
    else:

        def hook(state, *ctx):
            try:
                return fn(state, ctx + pad)
            except _RUNTIME as e:
                fail(e)

    hook.where = where
    hook.text = text
    hook.fn = fn  # the bare closure and its frame size, for engine loops that reuse one frame
    hook.size = size
    return hook
