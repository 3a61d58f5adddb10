#!/usr/bin/env python3
"""6 nimmt! (Amigo; designer Wolfgang Kramer) by hand: the referee of the six_nimmt ruleset.

Cards are the ints 1..104. Bullheads: 55 has 7; the other multiples of 11 have 5; the
other multiples of 10 have 3; the other multiples of 5 have 2; every other card has 1.

A hand: each seat holds ``hand_size`` cards and four cards start four rows. Each turn
every seat picks one card face down; the picks are then laid one by one in ascending
order. A card goes to the row whose last card is the highest one still below it; if that
row already holds five cards, the seat takes those five (their bullheads count against
it) and its card starts the row. A card lower than every row's last card lets its owner
choose any row (``take R``, rows numbered 1..4 in table order): the seat takes that row's
cards and its card starts the row. Hands are played until some seat has ``limit``
bullheads or more after a hand; the fewest bullheads wins.

The engine asks for the secret picks one seat at a time, starting left of the dealer
(the deal passes left after every hand); this model asks in the same order, which the
rules leave open since the picks are simultaneous.

This file shares no code with trickkit. It plays random games on its own as a script
(``six_nimmt.py --games N``) and is driven in lockstep by tests/test_six_nimmt.py.
"""

from __future__ import annotations

import argparse
import random
import time


def bullheads(card: int) -> int:
    """The bullheads of a card, from the rules."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


class SixNimmt:
    """A whole game behind ``legal_actions()``/``apply_action(text)``.

    After each hand ``needs_deal`` is True until `start_hand` gets the next hands and rows
    (the caller deals: the engine's shuffle, or `deal` for a game on its own).
    """

    def __init__(self, players: int, hand_size: int = 10, limit: int = 66):
        self.n, self.hand_size, self.limit = players, hand_size, limit
        self.score = [0] * players
        self.dealer = -1  # start_hand moves it to seat 0 for the first hand
        self.hands: list[list[int]] = []
        self.rows: list[list[int]] = []
        self.picks: dict[int, int] = {}
        self.to_place: list[int] = []  # revealed cards still to lay, ascending
        self.current = 0
        self.taking = False  # the owner of to_place[0] must choose a row
        self.needs_deal = True
        self.terminal = False

    def start_hand(self, hands: list[list[int]], rows: list[int]) -> None:
        self.dealer = (self.dealer + 1) % self.n
        self.hands = [sorted(h) for h in hands]
        self.rows = [[c] for c in rows]
        self.picks = {}
        self.needs_deal = False
        self.current = (self.dealer + 1) % self.n

    def is_terminal(self) -> bool:
        return self.terminal

    def legal_actions(self) -> list[str]:
        if self.taking:
            return [f"take {r}" for r in range(1, 5)]
        return [f"pick {c}" for c in self.hands[self.current]]

    def apply_action(self, text: str) -> None:
        verb, arg = text.split()
        if self.taking:
            assert verb == "take"
            row = self.rows[int(arg) - 1]
            card = self.to_place.pop(0)
            owner = self._owner(card)
            self.score[owner] += sum(bullheads(c) for c in row)
            self.rows[int(arg) - 1] = [card]
            del self.picks[owner]
            self.taking = False
            self._place()
            return
        assert verb == "pick"
        card = int(arg)
        self.hands[self.current].remove(card)
        self.picks[self.current] = card
        if len(self.picks) < self.n:
            self.current = (self.current + 1) % self.n
            return
        self.to_place = sorted(self.picks.values())
        self._place()

    def _owner(self, card: int) -> int:
        return next(seat for seat, c in self.picks.items() if c == card)

    def _place(self) -> None:
        """Lay the revealed cards in ascending order until one needs its owner's choice."""
        while self.to_place:
            card = self.to_place[0]
            below = [i for i, row in enumerate(self.rows) if row[-1] < card]
            if not below:  # lower than every row end: its owner chooses a row
                self.taking = True
                self.current = self._owner(card)
                return
            i = max(below, key=lambda j: self.rows[j][-1])
            owner = self._owner(card)
            if len(self.rows[i]) == 5:  # the sixth card takes the row
                self.score[owner] += sum(bullheads(c) for c in self.rows[i])
                self.rows[i] = []
            self.rows[i].append(card)
            self.to_place.pop(0)
            del self.picks[owner]
        if self.hands[0]:  # the next turn: picks start left of the dealer again
            self.current = (self.dealer + 1) % self.n
            return
        if max(self.score) >= self.limit:
            self.terminal = True
        else:
            self.needs_deal = True


def deal(rng: random.Random, players: int, hand_size: int) -> tuple[list[list[int]], list[int]]:
    """Hands and four row starters from one shuffle of the 104 cards."""
    cards = rng.sample(range(1, 105), players * hand_size + 4)
    hands = [cards[s * hand_size : (s + 1) * hand_size] for s in range(players)]
    return hands, cards[-4:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--mode", choices=["api"], default="api")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    actions = 0
    start = time.perf_counter()
    for _ in range(args.games):
        game = SixNimmt(args.players)
        while not game.is_terminal():
            if game.needs_deal:
                game.start_hand(*deal(rng, args.players, game.hand_size))
            game.apply_action(rng.choice(game.legal_actions()))
            actions += 1
    elapsed = time.perf_counter() - start
    print(f"games_per_s={args.games / elapsed:.1f} actions_per_s={actions / elapsed:.1f}")


if __name__ == "__main__":
    main()
