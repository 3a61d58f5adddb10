#!/usr/bin/env python3
"""Sarkophag (AMIGO, 2015; designer Michael Feldkötter) by hand: one deal, random play.

Cards are the ints 1..60; ``hand_size`` cards go to each seat, the rest stay out.  The seat
left of the dealer leads.  The lead may not be a 5-head card unless the hand holds only
those; the second card sets the direction (below or above the lead card); every later
card must lie on that side of the lead card when the hand allows.  The lowest card (the
highest, when the direction is up) takes the trick, and the opposite extreme once somebody
could not follow the direction.  The taker leads next; mummy heads count against.

``free_after_break`` is the ruleset's parameter of the same name: once somebody broke the
direction, later seats may play either side.  The head table is the game's data, as
documented in docs/games/sarkophag.md.

Usage: sarkophag.py --games N [--seed S] [--mode loop|api] [--players P]
"""

from __future__ import annotations

import argparse
import random
import time

CARDS = range(1, 61)
_HEADS_BY_COUNT = {
    0: (1, 2, 14, 16, 24, 26, 34, 36, 44, 46, 59, 60),
    2: (4, 12, 18, 22, 28, 32, 38, 42, 48, 56, 58),
    3: (6, 8, 10, 20, 30, 40, 50, 52, 54),
    5: (15, 25, 35, 45),
}
HEADS = [1] * 61  # index = card; every card not listed has 1 head
for _count, _cards in _HEADS_BY_COUNT.items():
    for _card in _cards:
        HEADS[_card] = _count
HEADS[0] = 0
NO_LEAD = frozenset(_HEADS_BY_COUNT[5])


def deal(rng: random.Random, players: int, hand_size: int) -> list[list[int]]:
    """Each seat's hand (sorted), from one shuffle of the 60 cards."""
    cards = rng.sample(CARDS, players * hand_size)
    return [sorted(cards[s * hand_size : (s + 1) * hand_size]) for s in range(players)]


class Sarkophag:
    """One deal behind ``legal_actions()``/``apply_action(card)``; ``heads`` per seat."""

    __slots__ = ("broken", "current", "down", "free_after_break", "hands", "heads", "n", "trick", "tricks_left")

    def __init__(self, hands: list[list[int]], dealer: int = 0, free_after_break: bool = False):
        self.n = len(hands)
        self.hands = [list(h) for h in hands]
        self.heads = [0] * self.n
        self.current = (dealer + 1) % self.n
        self.trick: list[int] = []  # cards in play order; seats follow from the leader
        self.down = False  # direction: the second card was below the lead
        self.broken = False  # somebody played on the other side
        self.tricks_left = len(hands[0])
        self.free_after_break = free_after_break

    def is_terminal(self) -> bool:
        return self.tricks_left == 0

    def legal_actions(self) -> list[int]:
        hand = self.hands[self.current]
        played = len(self.trick)
        if played == 0:
            return [c for c in hand if c not in NO_LEAD] or list(hand)
        if played == 1 or (self.broken and self.free_after_break):
            return list(hand)
        lead = self.trick[0]
        side = [c for c in hand if c < lead] if self.down else [c for c in hand if c > lead]
        return side or list(hand)

    def apply_action(self, card: int) -> None:
        seat = self.current
        self.hands[seat].remove(card)
        trick = self.trick
        if trick:
            if len(trick) == 1:
                self.down = card < trick[0]
            elif (card < trick[0]) != self.down:
                self.broken = True
        trick.append(card)
        if len(trick) < self.n:
            self.current = (seat + 1) % self.n
            return
        leader = (seat + 1) % self.n  # the last card was played right of the leader
        pick = min if self.down != self.broken else max
        taker = (leader + trick.index(pick(trick))) % self.n
        self.heads[taker] += sum(HEADS[c] for c in trick)
        self.trick = []
        self.broken = False
        self.current = taker
        self.tricks_left -= 1


def play_api(rng: random.Random, players: int = 4, hand_size: int = 10, dealer: int = 0) -> list[int]:
    """One random game through the object interface; heads per seat."""
    state = Sarkophag(deal(rng, players, hand_size), dealer)
    choice = rng.choice
    while state.tricks_left:
        state.apply_action(choice(state.legal_actions()))
    return state.heads


def play_loop(rng: random.Random, players: int = 4, hand_size: int = 10, dealer: int = 0) -> list[int]:
    """The same game as one function (no per-action calls): the practical speed limit."""
    choice = rng.choice
    hands = deal(rng, players, hand_size)
    heads = [0] * players
    leader = (dealer + 1) % players
    for _ in range(hand_size):
        hand = hands[leader]
        lead = choice([c for c in hand if c not in NO_LEAD] or hand)
        hand.remove(lead)
        seat = (leader + 1) % players
        hand = hands[seat]
        second = choice(hand)
        hand.remove(second)
        down = second < lead
        low, low_seat, high, high_seat = (second, seat, lead, leader) if down else (lead, leader, second, seat)
        total = HEADS[lead] + HEADS[second]
        broken = False
        for _ in range(players - 2):
            seat = (seat + 1) % players
            hand = hands[seat]
            side = [c for c in hand if c < lead] if down else [c for c in hand if c > lead]
            if not side:
                side, broken = hand, True
            card = choice(side)
            hand.remove(card)
            total += HEADS[card]
            if card < low:
                low, low_seat = card, seat
            elif card > high:
                high, high_seat = card, seat
        leader = low_seat if down != broken else high_seat
        heads[leader] += total
    return heads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("loop", "api"), default="loop")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    play = play_loop if args.mode == "loop" else play_api
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    for g in range(args.games):
        play(rng, args.players, 10, g % args.players)
    elapsed = time.perf_counter() - t0
    print(f"games_per_s={args.games / elapsed:.1f} actions_per_s={args.games * args.players * 10 / elapsed:.1f}")


if __name__ == "__main__":
    main()
