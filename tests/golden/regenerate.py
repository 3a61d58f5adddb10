"""Record golden playthroughs of every shipped game with the current engine.

Run ``python tests/golden/regenerate.py`` from the repository root (or anywhere: paths are
relative to this file). It rewrites one ``<game>__<label>.jsonl.gz`` file per parameter set
in `PARAMETER_SETS`; ``tests/test_golden.py`` replays them and demands exact equality.
Regenerate only for a deliberate rule change, never to make an engine difference go away
(see README.md next to this file).

A playthrough file, in the spirit of OpenSpiel's playthrough files, is gzipped JSON lines:

- line 1, the header: ``format``, ``game``, ``players``, ``params`` (the values given to
  `trickkit.load_game`), ``resolved_params`` (every parameter's value), ``ruleset_sha256``
  (informational: the content hash of the ruleset when recorded) and ``games``;
- per game, a ``{"kind": "game", "index", "seed", "agent_seed"}`` line, then one
  ``"step"`` line per action (see `step_record`), then one ``"end"`` line (see `end_record`).

Moves come from a seeded random agent, ``random.Random(agent_seed).choice(legal_actions)``,
so the recorded games are reproducible; the replay test does not need the agent, since every
chosen action is in the file.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import sys
from pathlib import Path

import trickkit

GOLDEN_DIR = Path(__file__).resolve().parent
FORMAT = "trickkit-playthrough/1"

# (game, label, load_game keywords, number of games). Labels name the file; each game is
# seeded with its index (0, 1, ...) and its agent with 1000 + index. Counts are chosen so the
# replay test stays quick: long games (Trumps matches, 10-round Skull King) get fewer.
PARAMETER_SETS: list[tuple[str, str, dict, int]] = [
    ("sarkophag", "p3", {"players": 3}, 4),
    ("sarkophag", "p4", {"players": 4}, 4),
    ("sarkophag", "p5_limit30_reached_ends", {"players": 5, "limit": 30, "limit_reached_ends": True}, 2),
    (
        "sarkophag",
        "p6_hand6_free_after_break_limit20",
        {"players": 6, "hand_size": 6, "free_after_break": True, "limit": 20},
        2,
    ),
    ("saqqara", "p2", {"players": 2}, 3),
    ("saqqara", "p3", {"players": 3}, 3),
    ("saqqara", "p4_target12_stop_at_once", {"players": 4, "target": 12, "stop_at_once": True}, 3),
    (
        "saqqara",
        "p3_supply_aware_hand4_refill3_rewards12",
        {"players": 3, "supply_aware_blocking": True, "hand_limit": 4, "refill": 3, "reward_cards": 12},
        3,
    ),
    ("skull_king", "p2", {"players": 2}, 2),
    ("skull_king", "p4", {"players": 4}, 2),
    (
        "skull_king",
        "p6_rounds5_bonus20_capture40",
        {"players": 6, "rounds": 5, "pirate_bonus": 20, "skull_king_capture_bonus": 40},
        2,
    ),
    ("skull_king", "p3_rounds3", {"players": 3, "rounds": 3}, 3),
    ("skull_king_2021", "p4", {"players": 4}, 2),
    ("skull_king_2021", "p2_kraken", {"players": 2, "kraken": True}, 2),
    (
        "skull_king_2021",
        "p5_kraken_left_white_whale",
        {"players": 5, "kraken": True, "kraken_next_leader": "left_of_kraken", "white_whale": True},
        2,
    ),
    ("skull_king_2021", "p6_loot_rascal", {"players": 6, "loot": True, "scoring": "rascal"}, 2),
    (
        "skull_king_2021",
        "p8_all_options_rounds4",
        {"players": 8, "rounds": 4, "kraken": True, "white_whale": True, "loot": True, "mermaid_capture_bonus": 30},
        2,
    ),
    ("trumps", "p2", {"players": 2}, 2),
    ("trumps", "p4", {"players": 4}, 1),
    ("trumps", "p3_hand7", {"players": 3, "hand_size": 7}, 1),
    ("trumps", "p6_single_game_death_any_time", {"players": 6, "single_game": True, "death_any_time": True}, 3),
    ("trumps", "p8_single_game_hand3", {"players": 8, "single_game": True, "hand_size": 3}, 3),
    ("oh_hell", "p4", {"players": 4}, 1),
    ("oh_hell", "p3_max3", {"players": 3, "max_cards": 3}, 2),
    ("oh_hell", "p7_max4_down", {"players": 7, "max_cards": 4, "sequence": "down"}, 2),
    ("oh_hell", "p5_max3_up", {"players": 5, "max_cards": 3, "sequence": "up"}, 2),
    ("spades", "p4", {"players": 4}, 2),
    ("spades", "p4_target200_floor-200", {"players": 4, "target": 200, "floor": -200}, 2),
    ("crazy_eights", "p2_target0", {"players": 2, "target": 0}, 2),
    ("crazy_eights", "p5_target0_draw_until_playable", {"players": 5, "target": 0, "draw_until_playable": True}, 1),
    ("crazy_eights", "p7_target40", {"players": 7, "target": 40}, 1),
    ("six_nimmt", "p2_limit30", {"players": 2, "limit": 30}, 2),
    ("six_nimmt", "p5_hand4_limit20", {"players": 5, "hand_size": 4, "limit": 20}, 2),
    ("six_nimmt", "p10_single_hand", {"players": 10, "limit": 0}, 1),
    ("hearts", "p4_limit40", {"players": 4, "limit": 40}, 2),
    ("hearts", "p4_limit1", {"players": 4, "limit": 1}, 2),
    ("euchre", "p4", {"players": 4}, 2),
    ("euchre", "p4_target3", {"players": 4, "target": 3}, 3),
    ("bridge", "p4", {"players": 4}, 2),
    ("bridge", "p4_boards17", {"players": 4, "boards": 17}, 1),
    ("love_letter", "p2", {"players": 2}, 2),
    ("love_letter", "p3", {"players": 3}, 2),
    ("love_letter", "p4_tokens2", {"players": 4, "tokens": 2}, 3),
]


def file_name(game: str, label: str) -> str:
    """The playthrough file of one parameter set, e.g. ``skull_king__p4.jsonl.gz``."""
    return f"{game}__{label}.jsonl.gz"


def observe(state: trickkit.State) -> dict:
    """What the public API says about ``state`` before or after any action: whose turn it
    is, the legal actions in order, each seat's observation and the full (hidden-card)
    observation, which pins the deal and the order of every hidden pile."""
    n = state.game.num_players
    return {
        "player": state.current_player(),
        "terminal": state.is_terminal(),
        "legal": [a.text for a in state.legal_actions()],
        "obs": [state.observation(seat) for seat in range(n)],
        "all": state.observation_all(),
    }


def step_record(state: trickkit.State, index: int, action: str) -> dict:
    """One ``step`` line: the state before ``action`` (see `observe`), the action and how
    each seat sees it (`State.action_seen_by`)."""
    record = {"kind": "step", "step": index, **observe(state), "action": action}
    record["seen_by"] = [state.action_seen_by(action, seat) for seat in range(state.game.num_players)]
    return record


def end_record(state: trickkit.State) -> dict:
    """The ``end`` line: the finished state, its scores, winners and action history."""
    return {
        "kind": "end",
        **observe(state),
        "scores": state.scores(),
        "winners": state.winners(),
        "history": state.history(),
    }


def encode(record: dict) -> str:
    """A record as one line of canonical JSON (sorted keys, no spaces): two records are equal
    exactly when their encodings are (unlike ``==``, this tells ``true`` from ``1``)."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def play(game: trickkit.Game, index: int) -> list[dict]:
    """Every line of game ``index`` (seed ``index``, agent seed ``1000 + index``) played by
    the seeded random agent: ``game``, steps, ``end``."""
    seed, agent_seed = index, 1000 + index
    state = game.new_initial_state(seed=seed)
    agent = random.Random(agent_seed)
    lines = [{"kind": "game", "index": index, "seed": seed, "agent_seed": agent_seed}]
    while not state.is_terminal():
        action = agent.choice(state.legal_actions()).text
        lines.append(step_record(state, len(lines) - 1, action))
        state.apply_action(action)
    lines.append(end_record(state))
    return lines


def record_set(game_name: str, params: dict, games: int) -> list[dict]:
    """The lines of one playthrough file: the header, then ``games`` whole games."""
    game = trickkit.load_game(game_name, **params)
    lines: list[dict] = [
        {
            "kind": "header",
            "format": FORMAT,
            "game": game_name,
            "players": game.num_players,
            "params": params,
            "resolved_params": game.params,
            "ruleset_sha256": game.content_hash,
            "games": games,
        }
    ]
    for index in range(games):
        lines += play(game, index)
    return lines


def write_lines(path: Path, lines: list[dict]) -> None:
    """Write JSON lines, gzipped reproducibly (no time stamp, no file name inside)."""
    text = "".join(encode(line) + "\n" for line in lines)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(text.encode("utf-8"))
    path.write_bytes(buffer.getvalue())


def read_lines(path: Path) -> list[str]:
    """The lines of a playthrough file, as text (each one a record's `encode`)."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def main() -> int:
    shipped = set(trickkit.list_games())
    covered = {game for game, *_ in PARAMETER_SETS}
    if shipped - covered:
        print(f"no parameter set for shipped game(s): {', '.join(sorted(shipped - covered))}", file=sys.stderr)
        return 1
    wanted = set()
    total_steps = total_bytes = 0
    for game_name, label, params, games in PARAMETER_SETS:
        path = GOLDEN_DIR / file_name(game_name, label)
        lines = record_set(game_name, params, games)
        write_lines(path, lines)
        wanted.add(path.name)
        steps = sum(line["kind"] == "step" for line in lines)
        total_steps += steps
        total_bytes += path.stat().st_size
        print(f"{path.name}: {games} games, {steps} steps, {path.stat().st_size // 1024} KB")
    for stale in GOLDEN_DIR.glob("*.jsonl.gz"):  # a parameter set that was dropped
        if stale.name not in wanted:
            stale.unlink()
            print(f"removed {stale.name}")
    print(
        f"{len(wanted)} files, {sum(n for *_, n in PARAMETER_SETS)} games, {total_steps} steps, "
        f"{total_bytes // 1024} KB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
