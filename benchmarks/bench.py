#!/usr/bin/env python3
"""Benchmark: random legal play of every shipped game, single process (not a test).

For each game: games/s, actions/s, microseconds per legal_actions()+apply_action() step,
clones/s, peak memory of one game (tracemalloc) and load ms: loading the game (parse, check,
compile) in a fresh process once trickkit is imported, the best of three. With --baselines it also runs the
project's hand-coded reference simulators (tests/reference/, plain Python for one game
each) in api mode, the same legal_actions()/apply_action() shape, and prints the ratio
trickkit/hand-coded in games/s. On a shared machine the speed of both drifts by tens of
percent within a minute, so with --baselines the two are timed in alternating rounds
(--rounds, default 5) and the ratio shown is the median of the per-round ratios.

Usage: python benchmarks/bench.py [--seconds 5] [--baselines] [--rounds 5] [--games NAME ...]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import trickkit

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "reference"
# game -> (reference script, games to time); each runs with the game's default seat count
BASELINES = {
    "sarkophag": ("sarkophag.py", 5000),
    "skull_king": ("skull_king.py", 600),
    "saqqara": ("saqqara.py", 400),
    "crazy_eights": ("crazy_eights.py", 100),
    "six_nimmt": ("six_nimmt.py", 300),
    "hearts": ("hearts.py", 100),
}


def time_play(game, seconds: float, first_seed: int = 0) -> tuple[int, int, float, object]:
    """Random legal play for about ``seconds``: (games, actions, elapsed s, state after 20 actions)."""
    rng = random.Random(first_seed)
    games = actions = 0
    clone_source = None
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=first_seed + games)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
            if actions == 20:
                clone_source = state.clone()
        games += 1
    return games, actions, time.perf_counter() - start, clone_source


def bench_game(name: str, seconds: float) -> dict:
    """Random legal play of ``name`` for about ``seconds``; speed, clone rate and peak memory."""
    game = trickkit.load_game(name)
    rng = random.Random(0)
    games, actions, elapsed, clone_source = time_play(game, seconds)
    clones, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < min(1.0, seconds / 5):
        clone_source.clone()
        clones += 1
    clones_per_s = clones / (time.perf_counter() - t0)
    tracemalloc.start()
    state = game.new_initial_state(seed=1)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "games_per_s": games / elapsed,
        "actions_per_s": actions / elapsed,
        "us_per_step": 1e6 * elapsed / max(actions, 1),
        "clones_per_s": clones_per_s,
        "peak_kib": peak / 1024,
        "games": games,
        "players": game.num_players,
    }


LOAD_SCRIPT = (
    "import sys, time, trickkit\n"
    "t = time.perf_counter(); trickkit.load_game(sys.argv[1]); print(time.perf_counter() - t)"
)


def bench_load(name: str, runs: int = 3) -> float:
    """Milliseconds to load ``name`` in a fresh process (its first load there), best of ``runs``."""
    return 1e3 * min(
        float(
            subprocess.run([sys.executable, "-c", LOAD_SCRIPT, name], capture_output=True, text=True, check=True).stdout
        )
        for _ in range(runs)
    )


def bench_baseline(script: str, games: int, players: int) -> dict:
    """Time a hand-coded reference simulator in api mode (its own process, like a fresh run)."""
    out = subprocess.run(
        [sys.executable, str(REFERENCE / script), "--games", str(games), "--mode", "api", "--players", str(players)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", out)}


def paired_ratio(name: str, seconds: float, rounds: int, players: int) -> tuple[float, float]:
    """Alternate ``rounds`` timings of trickkit and of the hand-coded simulator of ``name``.

    Returns (median hand-coded games/s, median of the per-round ratios trickkit/hand-coded); each
    round times trickkit for ``seconds / rounds`` and then the reference for its fixed game count,
    so both sides of a ratio see the machine in about the same state.
    """
    game = trickkit.load_game(name)
    ratios, references = [], []
    for r in range(rounds):
        games, _, elapsed, _ = time_play(game, seconds / rounds, first_seed=1000 * r)
        reference = bench_baseline(*BASELINES[name], players=players)["games_per_s"]
        references.append(reference)
        ratios.append(games / elapsed / reference)
    return statistics.median(references), statistics.median(ratios)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per game (default 5)")
    ap.add_argument("--baselines", action="store_true", help="also time the hand-coded reference simulators")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds for the ratio (default 5)")
    ap.add_argument("--games", nargs="*", help="only these games (default: every shipped game)")
    args = ap.parse_args()
    print(f"trickkit {trickkit.__version__}, Python {sys.version.split()[0]}")
    print(
        f"{'game':<16}{'games/s':>10}{'actions/s':>11}{'us/step':>9}{'clones/s':>10}{'peak KiB':>10}"
        f"{'load ms':>9}  {'hand-coded g/s':>14}{'ratio':>7}"
    )
    for name in args.games or trickkit.list_games():
        r = bench_game(name, args.seconds)
        line = (
            f"{name:<16}{r['games_per_s']:>10.1f}{r['actions_per_s']:>11.0f}{r['us_per_step']:>9.1f}"
            f"{r['clones_per_s']:>10.0f}{r['peak_kib']:>10.0f}{bench_load(name):>9.0f}"
        )
        if args.baselines and name in BASELINES:
            reference, ratio = paired_ratio(name, args.seconds, max(args.rounds, 1), r["players"])
            line += f"  {reference:>14.1f}{ratio:>7.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
