#!/usr/bin/env python3
"""Benchmark: random legal play of every shipped game, single process (not a test).

Prints, per game: games/s, actions/s and microseconds per legal_actions()+apply_action()
step. With --baselines it also runs the hand-coded reference simulators from
shared/bench (beside the repository) in api mode and prints the ratio trickkit/hand-coded.

Usage: python benchmarks/bench.py [--seconds 5] [--baselines]
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import trickkit

BASELINES = {"sarkophag": ("handcoded_sarkophag.py", 5000), "skull_king": ("handcoded_skullking.py", 600)}


def bench_game(name: str, seconds: float) -> dict:
    game = trickkit.load_game(name)
    rng = random.Random(0)
    games = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=games)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"games_per_s": games / elapsed, "actions_per_s": actions / elapsed,
            "us_per_step": 1e6 * elapsed / max(actions, 1), "games": games}


def bench_baseline(script: str, games: int) -> dict | None:
    path = Path(__file__).resolve().parents[2] / "shared" / "bench" / script
    if not path.exists():
        return None
    out = subprocess.run([sys.executable, str(path), "--games", str(games), "--mode", "api"],
                         capture_output=True, text=True, check=True).stdout
    values = dict(re.findall(r"(\w+)=([0-9.]+)", out))
    return {k: float(v) for k, v in values.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per game (default 5)")
    ap.add_argument("--baselines", action="store_true", help="also run shared/bench hand-coded simulators")
    args = ap.parse_args()
    print(f"trickkit {trickkit.__version__}, Python {sys.version.split()[0]}")
    print(f"{'game':<14}{'games/s':>10}{'actions/s':>12}{'us/step':>9}  {'hand-coded g/s':>14}{'ratio':>7}")
    for name in trickkit.list_games():
        r = bench_game(name, args.seconds)
        line = f"{name:<14}{r['games_per_s']:>10.1f}{r['actions_per_s']:>12.0f}{r['us_per_step']:>9.1f}"
        if args.baselines and name in BASELINES:
            b = bench_baseline(*BASELINES[name])
            if b:
                line += f"  {b['games_per_s']:>14.1f}{r['games_per_s'] / b['games_per_s']:>7.2f}"
        print(line)


if __name__ == "__main__":
    main()
