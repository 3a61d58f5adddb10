"""Writing output files safely: never a half-written file in place of a good one.

`atomic_writer` writes to a temporary file in the same folder and moves it over the target
with `os.replace` only once everything is written, so an error, a full disk or an interrupt
half-way leaves the old file (a ruleset, an earlier record) exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import IO

__all__ = ["atomic_writer"]


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], newline: str | None = None) -> Iterator[IO[str]]:
    """A text file (UTF-8) to write; it replaces ``path`` when the block ends without an error.

    A ``path`` that exists and is not a regular file (``/dev/null``, a pipe) is written directly:
    it is never replaced by a file.

    Args:
        path: the file to write (its folder must exist).
        newline: as for `open` (``""`` for the csv module).

    Raises:
        OSError: the temporary file cannot be made or moved (the target is left untouched).
    """
    target = os.fspath(path)
    if os.path.exists(target) and not os.path.isfile(target):  # a device (/dev/null) or a pipe: written in place
        with open(target, "w", encoding="utf-8", newline=newline) as out:
            yield out
        return
    folder = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".trickkit-", suffix=".tmp", dir=folder)
    try:
        os.chmod(tmp, _mode_for(target))  # mkstemp makes it private (0600): give it the mode open() would
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as f:
            yield f
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _mode_for(target: str) -> int:
    """The permissions the written file gets: the replaced file's, else what ``open(target, "w")``
    would give a new file (``0o666`` less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
