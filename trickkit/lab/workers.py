"""Hands chunks of games out to worker processes (or Ray tasks) and gives their results back in
game order; workers end with the process that started them. Used by simulation, compare and coverage."""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from types import FrameType
from typing import Any

#: Games per work unit sent to a worker process when ``jobs > 1``.
CHUNK_SIZE = 64

MAX_JOBS = 64
"""Most worker processes (or Ray CPUs) one run starts, whatever ``jobs`` asks: ``simulate --jobs
400`` starts at most this many, and never more than there are games (`worker_count`). The
results are the same for any number of workers."""


def worker_count(jobs: int, games: int) -> int:
    """The workers to start for ``games`` games when ``jobs`` are asked for: at most one per
    game and at most `MAX_JOBS` (at least 1)."""
    return max(1, min(jobs, games, MAX_JOBS))


def _game_spec(game: Any) -> tuple[Any, ...]:
    """How a worker process gets the game: pickled if possible, else reloaded."""
    try:
        return ("pickle", pickle.dumps(game))
    except Exception:
        kwargs = dict(game.params)
        kwargs["players"] = game.num_players
        source = game.name
        for attr in ("path", "source_path", "source"):
            value = getattr(game, attr, None)
            if isinstance(value, (str, os.PathLike)) and os.path.isfile(value):
                source = os.fspath(value)
                break
        return ("load", source, kwargs)


#: How often (seconds) a worker checks that the process that started it is still alive.
PARENT_CHECK_SECONDS = 0.2


def _exit_with_parent(parent: int) -> None:
    """Worker side: end this process as soon as ``parent`` is gone (killed, even with SIGKILL).

    A worker blocks reading its task queue, whose other end it shares with its siblings, so
    it would otherwise wait forever once the parent is gone, holding stdout open.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)  # no cleanup to do: the results have nowhere to go

    threading.Thread(target=watch, name="trickkit-parent-watch", daemon=True).start()


@contextlib.contextmanager
def _workers_end_with_us(pool: ProcessPoolExecutor) -> Iterator[None]:
    """Parent side: while the pool runs, SIGTERM first terminates the workers, then does what it did before.

    Only in the main thread (where signal handlers live); a SIGTERM that was ignored stays ignored.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN:
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        processes = getattr(pool, "_processes", None) or {}  # pid -> Process (no public API before 3.14)
        for process in list(processes.values()):
            with contextlib.suppress(Exception):  # already gone
                process.terminate()
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
        else:  # the default action: die of SIGTERM, as without us
            os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is on_term:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def chunks_in_order(
    count: int,
    jobs: int,
    submit: Callable[[int, int], Any],
    collect: Callable[[Any], Any],
    cancel: Callable[[Any], Any] | None = None,
) -> Iterator[Any]:
    """Split games ``0..count-1`` into chunks, hand them out, and yield each chunk's result in order.

    ``submit(start, stop)`` starts the work of games ``start..stop-1`` and returns a handle (a
    future, a Ray reference); ``collect(handle)`` waits for its result. At most ``4 * jobs``
    chunks are in flight, so memory stays bounded however many games there are. Handles not
    collected when the caller stops early are given to ``cancel``.
    """
    chunk = max(1, min(CHUNK_SIZE, count // (jobs * 4) or 1))
    starts = iter(range(0, count, chunk))
    pending: collections.deque[Any] = collections.deque()

    def submit_one() -> bool:
        start = next(starts, None)
        if start is None:
            return False
        pending.append(submit(start, min(count, start + chunk)))
        return True

    try:
        for _ in range(4 * jobs):
            if not submit_one():
                break
        while pending:
            result = collect(pending.popleft())
            submit_one()
            yield result
    finally:
        if cancel is not None:
            for handle in pending:
                cancel(handle)


def pooled_chunks(
    count: int,
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    work: Callable[[int, int], tuple[Any, ...]],
) -> Iterator[Any]:
    """`chunks_in_order` in ``jobs`` worker processes of this machine.

    Each worker runs ``initializer(*initargs)`` once (it should call `_exit_with_parent`, so no
    worker outlives us); ``work(start, stop)`` gives ``(function, *args)``, the picklable call
    that plays a chunk in a worker. A SIGTERM to this process ends the workers first.
    """
    jobs = worker_count(jobs, count)
    with (
        ProcessPoolExecutor(max_workers=jobs, initializer=initializer, initargs=initargs) as pool,
        _workers_end_with_us(pool),
    ):
        yield from chunks_in_order(
            count,
            jobs,
            lambda start, stop: pool.submit(*work(start, stop)),
            lambda future: future.result(),
            lambda future: future.cancel(),
        )
