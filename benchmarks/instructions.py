#!/usr/bin/env python3
"""Speed in instructions, not seconds: valgrind's cachegrind counts per game, step, clone or load.

Wall-clock figures on a shared machine drift by tens of percent within a minute; instruction
counts are the same on every run for the same interpreter, code and inputs, whatever else the
machine is doing. So this is the measure to compare two versions of the engine (run it with
each checkout's Python), or trickkit with the hand-coded simulators of tests/reference/.
Each figure is the difference of two runs (N and 2N units), so interpreter start-up and
loading cancel out. Needs valgrind. PYTHONHASHSEED is fixed at 0 and numpy's BLAS to one thread
(its idle threads spin, and move counts by about a thousand instructions per decision).

  python benchmarks/instructions.py GAME               instructions per game and per step of random play
  python benchmarks/instructions.py GAME --reference   the hand-coded tests/reference/GAME.py, --mode api
  python benchmarks/instructions.py GAME --clones      instructions per clone (a state after 20 actions)
  python benchmarks/instructions.py GAME --tensor      per step with the current seat's observation tensor
                                                       and the legal-action mask at every decision, and
                                                       what each and both add to the step (a learner's loop)
  python benchmarks/instructions.py GAME --load        instructions to load GAME once in a process

The ratio trickkit / hand-coded of bench.py is (reference instructions per game) / (trickkit
instructions per game) here. The two draw different random games, so per-game figures of a
game whose length varies (Hearts, Crazy Eights) need more --games to settle.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# Each script is run with: GAME N; it prints the units it did (steps, clones, loads).
PLAY = r"""
import random, sys
import trickkit
game = trickkit.load_game(sys.argv[1]); n = int(sys.argv[2])
rng = random.Random(0); steps = 0
for g in range(n):
    s = game.new_initial_state(seed=g)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions())); steps += 1
print("STEPS", steps)
"""

TENSOR = r"""
import random, sys
import trickkit
game = trickkit.load_game(sys.argv[1]); n = int(sys.argv[2]); mode = int(sys.argv[3])
rng = random.Random(0); steps = 0
for g in range(n):
    s = game.new_initial_state(seed=g)
    while not s.is_terminal():
        legal = s.legal_actions()
        if mode & 1:
            s.observation_tensor(s.current_player())
        if mode & 2:
            s.legal_action_mask()
        s.apply_action(rng.choice(legal)); steps += 1
print("STEPS", steps)
"""

CLONES = r"""
import random, sys
import trickkit
game = trickkit.load_game(sys.argv[1]); n = int(sys.argv[2])
rng = random.Random(0); s = game.new_initial_state(seed=0)
for _ in range(20):
    s.apply_action(rng.choice(s.legal_actions()))
for _ in range(n):
    s.clone()
print("STEPS", n)
"""

LOAD = r"""
import sys
import trickkit
n = int(sys.argv[2])
if n: trickkit.load_game(sys.argv[1])
print("STEPS", n)
"""

REFERENCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "reference")


def count(argv: list[str]) -> tuple[int, str]:
    """Run ``argv`` (a Python command) under cachegrind: (instructions executed in all, its stdout)."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "cachegrind.out")
        done = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}", *argv],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1"),  # idle BLAS threads spin: noise
        )
        if done.returncode:
            sys.exit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
        with open(out) as summary:
            return int(re.search(r"summary:\s+(\d+)", summary.read()).group(1)), done.stdout


def run_script(script: str, game: str, n: int, *extra: str) -> tuple[int, int]:
    """Run one of the scripts above for ``n`` units: (instructions, the units it reports)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "script.py")
        with open(path, "w") as f:
            f.write(script)
        total, stdout = count([sys.executable, path, game, str(n), *extra])
        return total, int(re.search(r"STEPS (\d+)", stdout).group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=0, help="games (or clones) of the smaller run")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--reference", action="store_true", help="the hand-coded simulator instead")
    what.add_argument("--clones", action="store_true", help="instructions per clone")
    what.add_argument("--load", action="store_true", help="instructions of one load")
    what.add_argument("--tensor", action="store_true", help="per step with tensor + mask, and what they add")
    args = ap.parse_args()
    if args.load:
        loaded = run_script(LOAD, args.game, 1)[0] - run_script(LOAD, args.game, 0)[0]
        print(f"{args.game} load: {loaded / 1e6:.1f} M instructions")
        return
    if args.reference:
        n = args.games or 20
        script = [sys.executable, os.path.join(REFERENCE, args.game + ".py"), "--mode", "api", "--games"]
        per_game = (count(script + [str(2 * n)])[0] - count(script + [str(n)])[0]) / n
        print(f"{args.game} hand-coded: {per_game / 1e3:.0f} k instructions/game")
        return
    n = args.games or (2000 if args.clones else 20)
    if args.tensor:  # the same games (same seeds and choices) with and without tensor, mask, both
        modes = ("0", "1", "2", "3")  # bits: 1 the tensor, 2 the mask
        runs = {(m, k): run_script(TENSOR, args.game, k, m) for m in modes for k in (n, 2 * n)}
        steps = runs[("0", 2 * n)][1] - runs[("0", n)][1]
        step, tensor, mask, both = ((runs[(m, 2 * n)][0] - runs[(m, n)][0]) / steps for m in modes)
        print(
            f"{args.game}: step {step:.0f} instructions; tensor +{tensor - step:.0f}, mask +{mask - step:.0f}; "
            f"with tensor + mask {both:.0f} (+{both - step:.0f}, {(both - step) / step:.2f}x the step)"
        )
        return
    (small, small_units), (large, large_units) = (
        run_script(CLONES if args.clones else PLAY, args.game, k) for k in (n, 2 * n)
    )
    per_unit = (large - small) / (large_units - small_units)
    if args.clones:
        print(f"{args.game}: {per_unit:.0f} instructions/clone")
    else:
        print(f"{args.game}: {(large - small) / n / 1e3:.0f} k instructions/game, {per_unit:.0f} instructions/step")


if __name__ == "__main__":
    main()
