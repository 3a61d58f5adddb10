#!/usr/bin/env python3
"""Saqqara (Piatnik, 2023; designer Florin Purluca) in plain Python: an independent model.

Written from the rulebook and the readings of docs/games/saqqara.md, without trickkit: it
is the referee the engine is played against in lockstep (tests/test_saqqara_model.py), and
a speed yardstick for ``benchmarks/bench.py --baselines``.

Actions are tuples: ``("take", pile)``, ``("stop",)``, ``("place", value, row, end)`` with
``end`` ``"left"``/``"right"`` and ``("discard", value)``; piles and rows count from 1, as in
the engine's notation (`text` turns an action into it).  The order of `legal_actions` is
the documented one: takes by pile, stop, placements by value (in hand order), row, left
before right, discards by value.

Readings (docs/games/saqqara.md, "Readings chosen"), restated here as code:

* excavating takes top artifacts one at a time, at least one, and the turn ends at the hand
  limit or when the piles are empty; ``stop`` ends it earlier;
* a placement is exactly two artifacts; a first one is legal only if a second can follow;
* after the second, rows 1..3 are checked in order: a row placed into this turn whose
  distinct values reach the target is taken, else a row of two or more artifacts that can
  no longer reach it is discarded, and an emptied row restarts from the first pile showing
  the lowest value (before the next row is checked);
* an empty hand after placing takes ``refill`` artifacts (fewer if the piles run out);
* a hand at (or over) the limit that cannot place discards two;
* the game ends after the action that takes the last reward or empties the piles; with
  ``stop_at_once`` a second placement that takes the last reward ends it before the rows
  are checked.

Usage: saqqara.py --games N [--seed S] [--players P]   prints games_per_s=... actions_per_s=...
"""

from __future__ import annotations

import argparse
import random
import time

ROWS = 3
ENDS = ("left", "right")


class SaqqaraModel:
    """One game of Saqqara from the start of the setup draft."""

    def __init__(
        self,
        players: int = 3,
        hand_limit: int = 5,
        refill: int = 5,
        target: int = 15,
        reward_cards: int = 24,
        supply_aware_blocking: bool = False,
        stop_at_once: bool = False,
    ):
        self.n = players
        self.hand_limit, self.refill, self.target = hand_limit, refill, target
        self.supply_aware, self.stop_at_once = supply_aware_blocking, stop_at_once
        # One complete set per pile, 9 at the bottom and 0 on top (the end of the list).
        self.piles = [list(range(9, -1, -1)) for _ in range(players + 2)]
        self.rows = [[self.piles[r].pop()] for r in range(ROWS)]
        self.hands = [[] for _ in range(players)]
        self.points = [[] for _ in range(players)]
        self.discard: list[int] = []
        self.rewards = [0] * players
        self.rewards_left = reward_cards
        self.drafting = True
        self.current = 0
        self.over = False
        self._new_turn()

    # -- the turn in play ------------------------------------------------------------
    def _new_turn(self):
        self.taken = 0  # artifacts excavated this turn
        self.placed = 0  # artifacts placed this turn
        self.discarded = 0
        self.to_refill = 0
        self.touched: set[int] = set()  # rows placed into (0-based)

    def _next_seat(self):
        self.current = (self.current + 1) % self.n
        self._new_turn()

    def is_terminal(self) -> bool:
        return self.over

    # -- rules -----------------------------------------------------------------------
    def _piles_empty(self) -> bool:
        return not any(self.piles)

    @staticmethod
    def _fits(row: list[int], value: int, end: str) -> bool:
        return value <= row[0] if end == "left" else value >= row[-1]

    def _can_place_any(self, hand: list[int], rows: list[list[int]]) -> bool:
        return any(self._fits(row, v, end) for v in set(hand) for row in rows for end in ENDS)

    def _second_follows(self, value: int, r: int, end: str) -> bool:
        """Could a second artifact be placed after placing ``value`` at ``end`` of row ``r``?"""
        hand = list(self.hands[self.current])
        hand.remove(value)
        rows = [list(row) for row in self.rows]
        if end == "left":
            rows[r].insert(0, value)
        else:
            rows[r].append(value)
        return self._can_place_any(hand, rows)

    def _placements(self, first: bool) -> list[tuple]:
        out, seen = [], set()
        for v in self.hands[self.current]:
            if v in seen:
                continue
            seen.add(v)
            for r in range(ROWS):
                for end in ENDS:
                    if self._fits(self.rows[r], v, end) and (not first or self._second_follows(v, r, end)):
                        out.append(("place", v, r + 1, end))
        return out

    def _distinct_values(self, hand: list[int]) -> list[int]:
        return list(dict.fromkeys(hand))

    def _takes(self) -> list[tuple]:
        return [("take", p + 1) for p, pile in enumerate(self.piles) if pile]

    def legal_actions(self) -> list[tuple]:
        if self.over:
            return []
        hand = self.hands[self.current]
        if self.drafting:
            return self._takes()
        if self.to_refill:
            return self._takes()
        if self.discarded:
            return [("discard", v) for v in self._distinct_values(hand)]
        if self.placed:
            return self._placements(first=False)
        if self.taken:
            return self._takes() + [("stop",)]
        places = self._placements(first=True)
        takes = self._takes() if len(hand) < self.hand_limit else []
        if not places and len(hand) >= self.hand_limit:
            return [("discard", v) for v in self._distinct_values(hand)]
        return takes + places

    def _available(self, value: int) -> bool:
        if not self.supply_aware:
            return True
        return any(value in pile for pile in self.piles) or any(value in hand for hand in self.hands)

    def _blocked(self, row: list[int]) -> bool:
        best = sum(set(row))
        best += sum(v for v in range(10) if v < row[0] and self._available(v))
        best += sum(v for v in range(10) if v > row[-1] and self._available(v))
        return best < self.target

    def _lowest_pile(self) -> list[int]:
        return min((pile for pile in self.piles if pile), key=lambda pile: pile[-1])  # first on a tie

    def _check_rows(self):
        me = self.current
        for r in range(ROWS):
            row = self.rows[r]
            if r in self.touched and sum(set(row)) >= self.target:
                self.points[me] += row
                self.rows[r] = []
            elif len(row) > 1 and self._blocked(row):
                self.discard += row
                self.rows[r] = []
            if not self.rows[r] and not self._piles_empty():
                self.rows[r] = [self._lowest_pile().pop()]

    def apply_action(self, action: tuple) -> None:
        """Perform a legal action (not checked: the caller takes it from `legal_actions`)."""
        me, hand = self.current, self.hands[self.current]
        kind = action[0]
        if kind == "take":
            hand.append(self.piles[action[1] - 1].pop())
            if self.drafting:
                self._next_seat()
                if all(len(h) == 3 for h in self.hands):
                    self.drafting = False
                    self.current = 0
                return
            self.taken += 1
            if self.to_refill:
                self.to_refill -= 1
                if not self.to_refill or self._piles_empty():
                    self._next_seat()
            elif len(hand) >= self.hand_limit or self._piles_empty():
                self._next_seat()
        elif kind == "stop":
            self._next_seat()
        elif kind == "discard":
            hand.remove(action[1])
            self.discard.append(action[1])
            self.discarded += 1
            if self.discarded == 2:
                self._next_seat()
        else:
            _, value, r, end = action
            row = self.rows[r - 1]
            hand.remove(value)
            if end == "left":
                row.insert(0, value)
                neighbour = row[1]
            else:
                row.append(value)
                neighbour = row[-2]
            self.placed += 1
            self.touched.add(r - 1)
            if neighbour == value and self.rewards_left:
                self.rewards_left -= 1
                self.rewards[me] += 1
                if self.stop_at_once and not self.rewards_left and self.placed == 2:
                    self.over = True
                    return
            if self.placed == 2:
                self._check_rows()
                if not hand and not self._piles_empty():
                    self.to_refill = self.refill
                else:
                    self._next_seat()
        if not self.rewards_left or self._piles_empty():
            self.over = True

    # -- the result ------------------------------------------------------------------
    def scores(self) -> list[int]:
        """1 per artifact and reward; rewards count 2 for a seat with more rewards than artifacts."""
        return [len(pts) + rw * (2 if rw > len(pts) else 1) for pts, rw in zip(self.points, self.rewards)]

    def winners(self) -> list[int]:
        scores = self.scores()
        return [s for s, v in enumerate(scores) if v == max(scores)]


def text(action: tuple) -> str:
    """The engine's text of an action: ``take 3``, ``stop``, ``place 4 2 right``, ``discard 9``."""
    return " ".join(str(part) for part in action)


def play(rng: random.Random, **params) -> tuple[list[int], int]:
    """One game of uniformly random legal play; (scores, actions)."""
    state = SaqqaraModel(**params)
    actions = 0
    while not state.over:
        state.apply_action(rng.choice(state.legal_actions()))
        actions += 1
    return state.scores(), actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--mode", choices=("api",), default="api", help="only api (the engine's shape)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(args.games):
        actions += play(rng, players=args.players)[1]
    elapsed = time.perf_counter() - t0
    print(f"games_per_s={args.games / elapsed:.1f} actions_per_s={actions / elapsed:.1f}")


if __name__ == "__main__":
    main()
