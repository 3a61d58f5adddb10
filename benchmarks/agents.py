"""ISMCTS against three random seats: win rate with a 95% confidence interval, and decisions per second.

Usage::

    python benchmarks/agents.py                       # Sarkophag and Skull King, 100 games each
    python benchmarks/agents.py --games 40 --iterations 50 --game skull_king:rounds=5

Seat 0 is `trickkit.agents.ISMCTSAgent`, the other seats `RandomAgent`; game ``i`` uses the seeds
of `trickkit.simulate` game ``i`` (master seed ``--seed``), so a run is reproducible. The same
games are also played with a random seat 0, the baseline. A win shared by k seats counts as a
win (as in `trickkit.simulate`). The interval is Wilson's score interval. Decisions per second
count only the ISMCTS seat's decisions with more than one legal action (a forced move is free)
and include sampling, search and playouts; the machine may be shared, so compare figures from
one run.
"""

from __future__ import annotations

import argparse
import math
import time

import trickkit
from trickkit.agents import ISMCTSAgent
from trickkit.lab.simulation import play_game


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


class Timed:
    """Wraps an agent, timing its non-forced decisions."""

    seconds = 0.0
    decisions = 0

    def __init__(self, agent):
        self.agent = agent

    def step(self, state):
        if len(state.legal_actions()) == 1:
            return self.agent.step(state)
        t = time.perf_counter()
        action = self.agent.step(state)
        Timed.seconds += time.perf_counter() - t
        Timed.decisions += 1
        return action


def run(spec: str, games: int, iterations: int, seed: int, rollout_limit: int | None) -> dict:
    name, *parts = spec.split(":")
    params = {}
    for p in parts:
        k, _, v = p.partition("=")
        params[k] = int(v) if v.lstrip("-").isdigit() else v
    game = trickkit.load_game(name, **params)
    players = game.num_players
    Timed.seconds, Timed.decisions = 0.0, 0
    wins = base = 0
    fallbacks = tries = rejected = 0
    for i in range(games):
        holder = {}

        def factory(rng):
            holder["a"] = ISMCTSAgent(iterations=iterations, seed=rng.getrandbits(63), rollout_limit=rollout_limit)
            return Timed(holder["a"])

        record = play_game(game, seed, i, [factory] + [None] * (players - 1))
        wins += 0 in record["winners"]
        stats = holder["a"].stats
        fallbacks += stats["fallbacks"]
        tries += stats["tries"]
        rejected += stats["rejected"]
        base += 0 in play_game(game, seed, i, None)["winners"]
    low, high = wilson(wins, games)
    blow, bhigh = wilson(base, games)
    return {
        "game": spec,
        "players": players,
        "games": games,
        "iterations": iterations,
        "win_rate": wins / games,
        "ci": (low, high),
        "random_win_rate": base / games,
        "random_ci": (blow, bhigh),
        "decisions": Timed.decisions,
        "decisions_per_s": Timed.decisions / Timed.seconds if Timed.seconds else 0.0,
        "tries": tries,
        "rejected": rejected,
        "fallbacks": fallbacks,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--game",
        action="append",
        default=None,
        metavar="NAME[:PARAM=VALUE...]",
        help="game to measure (repeatable; default sarkophag and skull_king:rounds=5)",
    )
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--rollout-limit", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for spec in args.game or ["sarkophag", "skull_king:rounds=5"]:
        r = run(spec, args.games, args.iterations, args.seed, args.rollout_limit)
        lo, hi = r["ci"]
        blo, bhi = r["random_ci"]
        print(
            f"{r['game']} ({r['players']} seats), {r['games']} games, ISMCTS {r['iterations']} iterations at seat 0: "
            f"win rate {r['win_rate']:.1%} (95% CI {lo:.1%}-{hi:.1%}, width {hi - lo:.1%}); "
            f"random seat 0 on the same deals {r['random_win_rate']:.1%} ({blo:.1%}-{bhi:.1%}); "
            f"{r['decisions_per_s']:.1f} decisions/s over {r['decisions']} decisions; "
            f"sampler: {r['tries']} tries, {r['rejected']} rejected, {r['fallbacks']} fallbacks",
            flush=True,
        )


if __name__ == "__main__":
    main()
