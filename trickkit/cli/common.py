"""What every command shares: usage errors, parameters from ``--param``, loading, output guards and the console."""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence

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


def parse_params(items: Sequence[str] | None) -> dict[str, Any]:
    """Parse ``--param k=v`` items into keyword arguments for ``load_game``.

    Each value is read with ``yaml.safe_load`` so ``3`` is an int, ``0.5`` a
    float, ``true`` a bool and anything else a string.

    Args:
        items: the ``k=v`` texts.

    Returns:
        The parameter mapping.

    Raises:
        UsageError: an item has no ``=`` or an empty key.
    """
    params: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--param expects KEY=VALUE, got {item!r}")
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


def write_guard(out: str | None, run: Any) -> Any:
    """Run ``run()``; an OSError while writing ``out`` (a full disk, a vanished folder) is a usage error."""
    try:
        return run()
    except OSError as exc:
        if out is None:
            raise
        raise UsageError(f"cannot write --out {out}: {exc.strerror or exc}") from None
