"""The record of one finished game: what ``simulate --out`` and ``play --out`` write, one JSON line
per game, and ``trickkit replay`` reads (`game_record`, `record_line`)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from typing import Any

__all__ = ["game_record", "record_line"]


def game_record(game: Any, seed: int, actions: Sequence[str], state: Any) -> dict[str, Any]:
    """The record of one finished game, as `play_game` returns it and ``simulate --out`` writes it.

    ``trickkit play --out`` writes the same record, so a game played by a person replays with
    ``trickkit replay`` as a simulated one does.

    Args:
        game: the loaded Game.
        seed: the state seed the game was played with (``game.new_initial_state(seed=seed)``).
        actions: the action texts applied, in order.
        state: the state at the end of the game.

    Returns:
        ``{"game", "params", "players", "seed", "actions", "scores", "winners",
        "ruleset_sha256", "trickkit_version"}``, with ``"team_scores"`` in a game with
        partnerships and ``"ruleset"`` for a game loaded from a file (see `play_game`).
    """
    from trickkit._version import __version__

    players = game.num_players
    record = {
        "game": game.name,
        "params": dict(game.params),
        "players": players,
        "seed": seed,
        "actions": list(actions),
        "scores": list(state.scores()),
        "winners": list(state.winners()),
        # which rules and which engine made this record, so a replay can refuse a changed ruleset
        "ruleset_sha256": getattr(game, "content_hash", None),
        "trickkit_version": __version__,
    }
    if len(getattr(game, "teams", ())) not in (0, players):  # partnerships: each team's score too
        record["team_scores"] = list(state.team_scores())
    source = _ruleset_file(game)
    if source is not None:  # loaded from a file, not by shipped name: say which, so a replay finds it
        record["ruleset"] = os.path.abspath(source)  # written relative to the records file (`record_line`)
    return record


def _ruleset_file(game: Any) -> str | None:
    """The ruleset file a game was loaded from (as given), or None for a shipped name."""
    path = getattr(game, "path", None)
    if isinstance(path, (str, os.PathLike)):
        path = os.fspath(path)
        if path.endswith((".yaml", ".yml")) or os.sep in path or "/" in path:
            return path
    return None


def record_line(record: dict[str, Any], folder: str | None = None) -> str:
    """One record as the JSON line an ``--out`` file holds (its keys in their fixed order, then a
    newline); its ``ruleset`` path made relative to ``folder``, the records file's folder, which is
    where `trickkit.engine.records` looks for it (and the only folder it may name: a ruleset
    elsewhere is replayed with ``--ruleset``)."""
    source = record.get("ruleset")
    if folder is not None and isinstance(source, str) and os.path.isabs(source):
        with contextlib.suppress(ValueError):  # another drive (Windows): the path is kept as it is
            record = dict(record, ruleset=os.path.relpath(os.path.realpath(source), os.path.realpath(folder)))
    keys = (
        "game",
        "params",
        "players",
        "seed",
        "actions",
        "scores",
        "winners",
        "ruleset_sha256",
        "trickkit_version",
        "ruleset",
        "team_scores",
    )
    return json.dumps({k: record[k] for k in keys if k in record}) + "\n"
