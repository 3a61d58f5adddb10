#!/usr/bin/env python3
"""Benchmark: the pure-Python build against the compiled one (setup.py, TRICKKIT_COMPILE=1), same run.

Runs benchmarks/bench.py with two interpreters, one with each build of trickkit installed, in
alternating rounds (the order swapped every round, so both see the machine in about the same
state) and prints the median microseconds per legal_actions()+apply_action() step of each and
the median of the per-round ratios compiled / pure (below 1: the compiled build is faster).
Also prints where each interpreter's trickkit.engine.turns comes from, to show which build it is.

Usage: python benchmarks/builds.py --pure PYTHON --compiled PYTHON [--seconds 3] [--rounds 3] [--games NAME ...]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().with_name("bench.py")
GAMES = ["hearts", "skull_king", "sarkophag", "saqqara", "love_letter", "trumps"]


def us_per_step(python: str, game: str, seconds: float) -> float:
    """bench.py's microseconds per step of ``game`` under ``python``."""
    out = subprocess.run(
        [python, str(BENCH), "--seconds", str(seconds), "--games", game], capture_output=True, text=True, check=True
    ).stdout
    row = re.search(rf"^{re.escape(game)}\s+(\S+)\s+(\S+)\s+(\S+)", out, re.MULTILINE)
    if row is None:
        sys.exit(f"no figures for {game} in:\n{out}")
    return float(row.group(3))


def origin(python: str) -> str:
    """The file ``python`` imports trickkit.engine.turns from (a .so: the compiled build)."""
    script = "import trickkit.engine.turns as t; print(t.__file__)"
    return subprocess.run([python, "-c", script], capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pure", required=True, help="a Python with the pure-Python build installed")
    ap.add_argument("--compiled", required=True, help="a Python with the compiled build installed")
    ap.add_argument("--seconds", type=float, default=3.0, help="bench.py --seconds, per run (default 3)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per game (default 3)")
    ap.add_argument("--games", nargs="*", default=GAMES, help=f"games (default: {' '.join(GAMES)})")
    args = ap.parse_args()
    builds = {"pure": args.pure, "compiled": args.compiled}
    for label, python in builds.items():
        print(f"{label}: {python} (trickkit.engine.turns from {origin(python)})")
    print(f"{'game':<14}{'pure us/step':>14}{'compiled us/step':>18}{'compiled/pure':>15}")
    for game in args.games:
        times: dict[str, list[float]] = {"pure": [], "compiled": []}
        for r in range(max(args.rounds, 1)):
            for label in ("pure", "compiled") if r % 2 == 0 else ("compiled", "pure"):
                times[label].append(us_per_step(builds[label], game, args.seconds))
        ratio = statistics.median(c / p for p, c in zip(times["pure"], times["compiled"]))
        print(
            f"{game:<14}{statistics.median(times['pure']):>14.1f}{statistics.median(times['compiled']):>18.1f}"
            f"{ratio:>15.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
