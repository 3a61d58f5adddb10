"""A backstop against a real hang in the fuzz suites: never a speed assertion.

What the engine's guards promise (node caps, the evaluation budget, step counts) is checked by
counted limits in deterministic tests; this alarm only turns a hang into a failure instead of
a stalled run, so its limit is generous enough that no slow machine reaches it.
"""

from __future__ import annotations

import contextlib
import signal


class Hang(BaseException):
    """An example ran longer than the backstop (a BaseException, so no ``except Exception``
    inside the engine swallows it)."""


@contextlib.contextmanager
def no_hang(what: str, seconds: float):
    """Raise `Hang` if the block is still running after ``seconds``."""

    def ring(signum, frame):
        raise Hang(f"{what} did not finish within {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
