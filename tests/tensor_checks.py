"""Helpers shared by the tests of the incremental observation-tensor writers (generated, compiled):
the dict view's encoding they must equal, and the tensors after edits of a state by hand.

Import it as the other shared test modules are imported (the tests run with
``--import-mode=importlib``, so tests/ is put on ``sys.path`` first)::

    sys.path.insert(0, str(Path(__file__).parent))
    from tensor_checks import reference, tensors_after_edits

The helpers only compute; every assertion stays in the test that uses them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from trickkit.engine.arrays import clamped


def reference(state: Any, seat: int) -> np.ndarray[Any, Any]:
    """``seat``'s tensor of ``state`` as the dict view's (reference) encoding gives it."""
    return clamped(state.game._observation_encoder.encode_reference(state, seat))


def tensors_after_edits(state: Any, edits: list[Callable[[], Any]]) -> Iterator[tuple[Any, int, bool]]:
    """For each edit: every seat's tensor asked (so the writers hold it), the edit made, then per
    seat ``(edit, seat, whether its tensor equals the reference encoding)``."""
    seats = range(state.game.num_players)
    for edit in edits:
        for seat in seats:
            state.observation_tensor(seat)
        edit()
        for seat in seats:
            yield edit, seat, bool(np.array_equal(state.observation_tensor(seat), reference(state, seat)))
