"""What every command shares: usage errors, parameters from ``--param``, loading, output guards and the console."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import yaml

from trickkit import randomness

#: ``simulate`` shows a progress bar (on stderr, if it is a terminal) from this many games on.
PROGRESS_MIN_GAMES = 200


class UsageError(Exception):
    """Bad command-line usage detected after argparse (exit code 2)."""


def api() -> Any:
    """The trickkit package, imported late (so tests can patch ``trickkit.load_game``)."""
    import trickkit

    return trickkit


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    # No user text (file names, card texts, titles) may go through rich markup or emoji
    # codes: ``n.yaml:100:15:`` must not become ``n.yaml💯15:``.
    return Console(
        file=sys.stderr if stderr else sys.stdout, highlight=False, soft_wrap=True, markup=False, emoji=False
    )


RESERVED_PARAMS = {
    "players": "the seat count is not a ruleset parameter: use --players",
    "name_or_path": "not a ruleset parameter: name the game as the command's GAME argument",
    "coverage": "not a ruleset parameter (simulate has --coverage)",
}
"""Keyword names of `trickkit.load_game` itself: never ruleset parameters, so ``--param`` refuses them."""


def parse_params(items: Sequence[str] | None) -> dict[str, Any]:
    """Parse ``--param k=v`` items into keyword arguments for ``load_game``.

    Each value is read with ``yaml.safe_load`` so ``3`` is an int, ``0.5`` a
    float, ``true`` a bool and anything else a string.

    Args:
        items: the ``k=v`` texts.

    Returns:
        The parameter mapping.

    Raises:
        UsageError: an item has no ``=`` or an empty key, or its key is one of `RESERVED_PARAMS`.
    """
    params: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--param expects KEY=VALUE, got {item!r}")
        if key in RESERVED_PARAMS:
            raise UsageError(f"--param {key[:40]}: {RESERVED_PARAMS[key]}")
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            parsed = value
        except ValueError:  # an integer past Python's limit on digits converted
            raise UsageError(f"--param {key}: the number has too many digits ({len(value)} characters)") from None
        if isinstance(parsed, bool) or not isinstance(parsed, (int, float, str)):
            parsed = parsed if isinstance(parsed, bool) else value
        params[key] = parsed
    return params


def check_seed(seed: int | None) -> None:
    """Refuse a ``--seed`` that is negative or longer than saved games keep (100 digits)."""
    if seed is None:
        return
    try:
        randomness.check_seed(seed, "--seed")
    except ValueError as e:
        raise UsageError(str(e)) from None


def load_ruleset(game: str, players: int | None, params: dict[str, Any]) -> Any:
    kwargs = dict(params)
    if players is not None:
        kwargs["players"] = players
    return api().load_game(game, **kwargs)


def check_out(out: str) -> None:
    """Refuse an ``--out`` path that cannot be written, before any game is played."""
    if os.path.isdir(out):
        raise UsageError(f"--out {out}: is a directory (give a file name such as games.jsonl)")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise UsageError(f"--out {out}: no such folder {folder}")


def check_outputs(inputs: Sequence[str | None], outputs: dict[str, str | None]) -> None:
    """Refuse an output file that is one of the command's inputs, or another of its outputs.

    Paths are compared after resolving symbolic links (``os.path.realpath``), so
    ``simulate mine.yaml --out mine.yaml`` and a link to ``mine.yaml`` are both refused
    before anything is written.

    Args:
        inputs: the files the command reads (a shipped game's name is no file and is skipped).
        outputs: option name (``--out``) -> the path given, or None.

    Raises:
        UsageError: an output resolves to an input or to another output.
    """
    read = {}
    for path in inputs:
        if path and os.path.exists(path):
            read[os.path.realpath(path)] = path
    written: dict[str, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        real = os.path.realpath(path)
        if real in read:
            raise UsageError(f"{option} {path}: that is the input {read[real]}; it would be overwritten")
        if real in written:
            raise UsageError(f"{option} {path}: {written[real]} writes that file too")
        written[real] = option


def write_guard(out: str | None, run: Any) -> Any:
    """Run ``run()``; an OSError while writing ``out`` (a full disk, a vanished folder) is a usage error."""
    try:
        return run()
    except OSError as exc:
        if out is None:
            raise
        raise UsageError(f"cannot write --out {out}: {exc.strerror or exc}") from None
