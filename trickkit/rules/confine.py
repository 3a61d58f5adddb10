"""Where a ruleset may be read from when another file names it: a shipped game, or a ``.yaml`` file
confined to the naming file's folder (``extends``, a record's ``ruleset``, a scenario's ``game``)."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["confined_ruleset"]


def _short(value: Any) -> str:
    text = _repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except ValueError:  # an int too large to print (cannot come from YAML, but from Python callers)
        return f"<an integer of {value.bit_length()} bits>" if isinstance(value, int) else "<unprintable>"


def _is_path(text: str) -> bool:
    return text.endswith((".yaml", ".yml")) or os.sep in text or "/" in text


def _outside(full: str, root: str | os.PathLike[str] | None) -> bool:
    """True if ``full`` (symbolic links resolved) is not inside the folder ``root``."""
    if root is None:
        return False
    real, top = os.path.realpath(full), os.path.realpath(os.fspath(root))
    return os.path.commonpath([real, top]) != top


def _identity_of_file(path: Any) -> str:
    try:
        return "file:" + str(os.path.realpath(os.fspath(path)))
    except TypeError:
        return "traversable:" + str(path)


def confined_ruleset(ref: str, folder: str | os.PathLike[str]) -> str:
    """What a ruleset reference written in a file of ``folder`` may load, confined as ``extends`` is.

    A record's ``ruleset`` and a scenario's ``game`` name a shipped game, or a ``.yaml``/
    ``.yml`` file by a path relative to ``folder`` (the folder of the file that says it) that
    stays in that folder or below it once symbolic links are resolved. Absolute paths are
    refused, and so is ``..`` out of the folder: a file downloaded into a folder can make
    trickkit read only that folder's rulesets and the shipped games (docs/robustness.md).
    The check comes before any file is opened.

    Args:
        ref: the reference as written.
        folder: the folder of the file that wrote it.

    Returns:
        ``ref`` itself when it names a shipped game (no path), else the path to load.

    Raises:
        ValueError: the reference may not be loaded; the message says why and quotes it.
    """
    if not _is_path(ref):
        return ref
    if os.path.isabs(ref):
        raise ValueError(
            f"the absolute path {_short(ref)} is refused: name a shipped game or a ruleset file by a "
            f"path relative to this file's folder"
        )
    if not ref.endswith((".yaml", ".yml")):
        raise ValueError(f"{_short(ref)} is not a ruleset file (a path must end in .yaml or .yml)")
    full = os.path.join(os.fspath(folder), ref)
    try:
        outside = _outside(full, folder)
    except ValueError as e:  # a NUL byte in the name
        raise ValueError(f"{_short(ref)} is not a file name ({e})") from None
    if outside:
        raise ValueError(
            f"{_short(ref)} is outside the folder of this file; only rulesets in that folder (and "
            f"below it) and shipped games may be named"
        )
    return full
