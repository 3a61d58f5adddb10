"""numpy helpers of observation tensors and legal-action masks (`trickkit.engine.tensor`, `trickkit.State`):
checking a caller's ``out`` array, building a mask, clamping numbers to ``float32``, and the
per-seat cache of the incremental tensor encoder."""

from __future__ import annotations

from typing import Any

import numpy as np

from trickkit.jsonsafe import MAX_JSON_INT_DIGITS


def mask_tables(game: Any) -> tuple[int, dict[str, int], Any, tuple[int], Any, Any]:
    """What `trickkit.State.legal_action_mask` needs of ``game``, made once per Game (nothing is
    imported or looked up per call): the mask's width, the action space's text -> id table, the
    ``ndarray`` constructor, the mask's shape and dtype, and the function that checks a caller's
    ``out``."""
    space = game.action_space
    width = len(space.texts)
    shape = (width,)

    def check_mask_out(out: Any) -> None:
        if not (out.__class__ is np.ndarray and out.shape == shape and out.dtype is _INT8 and out.flags.writeable):
            # the usual out passes above, quicker; check_out says what is wrong with another
            check_out(
                out, shape, out.dtype if getattr(out, "dtype", None) == np.bool_ else np.int8, "legal_action_mask"
            )

    return width, space.ids, np.ndarray, shape, _INT8, check_mask_out


def check_out(out: Any, shape: tuple[int, ...], dtype: Any, what: str) -> None:
    """Check that ``out``, given to ``what`` (`State.observation_tensor`, `State.legal_action_mask`),
    is a writable numpy array of ``shape`` and ``dtype``.

    Raises:
        ValueError: it is not, saying what was expected.
    """
    if not isinstance(out, np.ndarray):
        raise ValueError(f"{what}(out=...): out must be a numpy array, got {type(out).__name__}")
    if out.shape != shape or out.dtype != dtype:
        got = out.dtype.name
        if got == np.dtype(dtype).name:  # the same type in the other byte order: say so
            got = f"{out.dtype.str} (non-native byte order)"
        raise ValueError(
            f"{what}(out=...): out must have shape {shape} and dtype {np.dtype(dtype).name} (native byte order), "
            f"got shape {out.shape} and dtype {got}"
        )
    if not out.flags.writeable:
        raise ValueError(f"{what}(out=...): out is read-only")


class _View:
    """One seat's last tensor of one state and the source of each of its parts (see `encode`)."""

    __slots__ = ("array", "cells", "keys")

    def __init__(self, array: np.ndarray[Any, Any], keys: list[Any]):
        self.array = array
        self.cells = memoryview(array)  # type: ignore[arg-type]  # numpy arrays are buffers  # single floats are written through it (quicker than numpy's indexing)
        self.keys = keys


class _Unset:
    """A key no source equals: the part has not been written yet."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


_UNSET = _Unset()
_SCORE_LIMIT = 10**MAX_JSON_INT_DIGITS
_NUMBERS = (int, bool, float)
_F32_MAX = float(np.finfo(np.float32).max)
_F32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)


def f32(value: Any) -> float:
    """``value`` as a float within the ``float32`` range (clamped; never an OverflowError)."""
    try:
        f = float(value)
    except OverflowError:
        return _F32_MAX if value > 0 else -_F32_MAX
    if -_F32_MAX <= f <= _F32_MAX:
        return f
    return f if f != f else (_F32_MAX if f > 0 else -_F32_MAX)


def clamped(values: list[float]) -> np.ndarray[Any, Any]:
    """A list of floats as a float32 array, each clamped to the float32 range."""
    return np.clip(np.asarray(values, dtype=np.float64), -_F32_MAX, _F32_MAX).astype(np.float32)


def write_number(a: Any, start: int, value: Any) -> None:
    """Write a number variable's segment at ``start`` of ``a`` (a tensor's memoryview): ``[value, 0]``
    (clamped to float32; a value that is not a number reads 0), or ``[0, 1]`` when it is unset."""
    if value is None:
        a[start] = 0.0
        a[start + 1] = 1.0
    else:
        a[start] = f32(value) if value.__class__ in _NUMBERS else 0.0
        a[start + 1] = 0.0


_ALL, _TOP, _COUNT = "all", "top", "count"


def visible(visibility: str, own: bool) -> str:
    """How a zone of ``visibility`` shows to a seat (``own``: the seat owns it): all, top or count."""
    if visibility == "public" or (visibility == "owner" and own):
        return _ALL
    return _TOP if visibility == "top" else _COUNT


def flip_changed(a: Any, cells: int, cards: list[int], before: list[int], small: bool) -> None:
    """Set ``a[cells + c]`` to 1.0 for each card id ``c`` in ``cards`` and not in ``before``, and to
    0.0 for each in ``before`` and not in ``cards`` (a shown zone's one-hot block, rewritten by its
    difference). ``small``: every card id is below 256, so the differences are taken as byte strings
    (quicker than sets)."""
    if small:
        after, earlier = bytes(cards), bytes(before)
        for c in after.translate(None, earlier):
            a[cells + c] = 1.0
        for c in earlier.translate(None, after):
            a[cells + c] = 0.0
    else:
        for c in set(cards).difference(before):
            a[cells + c] = 1.0
        for c in set(before).difference(cards):
            a[cells + c] = 0.0
