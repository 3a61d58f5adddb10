"""Where the web tables keep their records: one JSON file per table in a folder, written atomically.

A table's file holds what is needed to rebuild it by replaying: the game's source, seat
count, parameters, seed, seats (with their secret tokens: the folder is the server's own,
created private) and every action so far. `Store.load_all` reads them back when the server
starts again. `game_record` turns a finished table into the record ``trickkit simulate --out``
writes, so a game played in the browser can be downloaded and ``trickkit replay``ed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from typing import Any

from trickkit import jsonsafe

__all__ = ["Store", "default_data_dir", "game_record"]

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_TABLE_FILE = 20_000_000
"""Largest table file read back, in bytes (a file beyond it is reported, not read)."""


def default_data_dir() -> str:
    """The folder ``trickkit serve`` keeps its tables in without ``--data``:
    ``$XDG_DATA_HOME/trickkit/tables`` (``~/.local/share/trickkit/tables``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "trickkit", "tables")


class Store:
    """A folder of table files, ``<id>.json`` each.

    Args:
        folder: the folder; created (readable by its owner only) when missing.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = os.fspath(folder)
        os.makedirs(self.folder, mode=0o700, exist_ok=True)

    def path(self, table_id: str) -> str:
        """The file of table ``table_id``.

        Raises:
            ValueError: ``table_id`` is not a table id (letters, digits, ``-`` and ``_``).
        """
        if not _ID.match(table_id):
            raise ValueError(f"not a table id: {table_id!r}")
        return os.path.join(self.folder, f"{table_id}.json")

    def save(self, table_id: str, data: dict[str, Any]) -> None:
        """Write ``data`` as table ``table_id``'s file: to a temporary file first, then
        renamed over the old one, so a crash leaves the old record or the new one, never half."""
        target = self.path(table_id)
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{table_id}.", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def load_all(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every table file: ``(records, problems)``, a problem naming each file that could not be read."""
        records: list[dict[str, Any]] = []
        problems: list[str] = []
        for name in sorted(os.listdir(self.folder)):
            if not name.endswith(".json") or name.startswith("."):
                continue
            path = os.path.join(self.folder, name)
            try:
                if os.path.getsize(path) > MAX_TABLE_FILE:
                    problems.append(f"{path}: larger than {MAX_TABLE_FILE:,} bytes, not read")
                    continue
                with open(path, encoding="utf-8") as fh:
                    data = jsonsafe.loads(fh.read())
            except (OSError, ValueError) as e:
                problems.append(f"{path}: {e}")
                continue
            if not isinstance(data, dict) or data.get("id") != name[:-5]:
                problems.append(f"{path}: not a table record")
                continue
            records.append(data)
        return records, problems


def game_record(game: Any, state: Any, source: str, shipped: bool) -> dict[str, Any]:
    """The record of a finished game in the format ``trickkit simulate --out`` writes (one JSON
    line of a ``.jsonl`` file), which ``trickkit replay`` reads and checks.

    Args:
        game: the loaded `trickkit.Game`.
        state: its terminal state.
        source: what the game was loaded from (a shipped name or a ruleset path).
        shipped: True when ``source`` is a shipped name (then the record names no file). A ruleset
            file is named by its file name alone: the server's folders stay on the server, and
            ``trickkit replay`` reads the record beside the ruleset (or with ``--ruleset FILE``).
    """
    from trickkit._version import __version__

    players = game.num_players
    record: dict[str, Any] = {
        "game": game.name,
        "params": dict(game.params),
        "players": players,
        "seed": state.seed,
        "actions": state.history(),
        "scores": list(state.scores()),
        "winners": list(state.winners()),
        "ruleset_sha256": game.content_hash,
        "trickkit_version": __version__,
    }
    if len(game.teams) not in (0, players):  # partnerships: each team's score too
        record["team_scores"] = list(state.team_scores())
    if not shipped:
        record["ruleset"] = os.path.basename(source)
    return record
