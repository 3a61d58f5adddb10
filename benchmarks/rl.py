#!/usr/bin/env python3
"""Benchmark for learners (not a test): Hearts decisions per second with an observation tensor and a
legal-action mask at every decision, single and vectorised, and OpenSpiel's C++ Hearts from Python.

Per decision it reports, in microseconds of CPU time (``time.process_time``, less disturbed by other
processes on a shared machine than wall time), the median over ``--rounds`` rounds:

- ``step``: ``legal_actions()`` + ``apply_action`` of a random legal action (the engine alone);
- ``tensor``, ``mask``: what ``observation_tensor(current seat)`` and ``legal_action_mask()`` add to it
  (each timed in its own loop, as the difference with the step loop);
- ``single``: decisions/s of one game with tensor + mask at every decision;
- ``vector N``: decisions/s of `trickkit.envs.vector.VectorEnv` with N games (tensor + mask of
  every game at every step, random legal actions chosen from the masks);
- ``open_spiel``: decisions/s of ``pyspiel.load_game("hearts")`` with ``information_state_tensor``
  and ``legal_actions`` at every decision (chance outcomes sampled; skipped if ``open_spiel`` is
  not installed: ``pip install "trickkit[openspiel]"``).

Usage: python benchmarks/rl.py [--game hearts] [--rounds 5] [--games 10] [--envs 64]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import numpy as np

import trickkit
from trickkit.envs.vector import VectorEnv

clock = time.process_time


def engine_loop(game, mode: int, seed: int, games: int) -> tuple[float, int]:
    """CPU seconds and decisions of ``games`` random games; ``mode`` bit 1: tensor, bit 2: mask."""
    rng = random.Random(seed)
    decisions = 0
    start = clock()
    for g in range(games):
        state = game.new_initial_state(seed=seed * 1000 + g)
        while not state.is_terminal():
            legal = state.legal_actions()
            if mode & 1:
                state.observation_tensor(state.current_player())
            if mode & 2:
                state.legal_action_mask()
            state.apply_action(rng.choice(legal))
            decisions += 1
    return clock() - start, decisions


def vector_loop(game, n: int, steps: int, seed: int) -> float:
    """Decisions/s of a VectorEnv of ``n`` games over ``steps`` steps (random legal actions from the masks)."""
    envs = VectorEnv(game, n, copy=False)
    obs, _ = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    start = clock()
    for _ in range(steps):
        # a random legal action per game from the masks: the largest of random keys on legal ids
        keys = rng.random(obs["action_mask"].shape) * obs["action_mask"]
        obs, *_ = envs.step(keys.argmax(axis=1))
    return n * steps / (clock() - start)


def spiel_loop(name: str, games: int, seed: int) -> float | None:
    """Decisions/s of OpenSpiel's own game ``name`` with information_state_tensor + legal_actions."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    decisions = 0
    start = clock()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            state.information_state_tensor()
            legal = state.legal_actions()
            state.apply_action(rng.choice(legal))
            decisions += 1
    return decisions / (clock() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="hearts")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=10, help="games per round of the single loops")
    ap.add_argument("--envs", type=int, default=64, help="games of the vector environment")
    args = ap.parse_args()
    game = trickkit.load_game(args.game)
    print(f"trickkit {trickkit.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}: {args.game}")
    per: dict[int, list[float]] = {m: [] for m in (0, 1, 2, 3)}
    vec, spiel = [], []
    for r in range(args.rounds):
        for m in per:
            seconds, decisions = engine_loop(game, m, r, args.games)
            per[m].append(1e6 * seconds / decisions)
        vec.append(vector_loop(game, args.envs, 200, r))
        s = spiel_loop(args.game, args.games, r)
        if s is not None:
            spiel.append(s)
    step, tensor, mask, both = (statistics.median(per[m]) for m in (0, 1, 2, 3))
    print(f"step {step:.2f} us/decision")
    print(f"tensor +{tensor - step:.2f} us ({(tensor - step) / step:.2f}x step)")
    print(f"mask   +{mask - step:.2f} us ({(mask - step) / step:.2f}x step)")
    print(f"tensor + mask +{both - step:.2f} us ({(both - step) / step:.2f}x step)")
    print(f"single with tensor + mask: {1e6 / both:,.0f} decisions/s")
    print(f"vector x{args.envs} with tensor + mask: {statistics.median(vec):,.0f} decisions/s")
    if spiel:
        rate = statistics.median(spiel)
        print(f"open_spiel C++ {args.game} (information_state_tensor + legal_actions): {rate:,.0f} decisions/s")
    else:
        print("open_spiel: not installed (pip install 'trickkit[openspiel]')")


if __name__ == "__main__":
    main()
