#!/usr/bin/env python3
"""Skull King (Schmidt Spiele, 2013 edition of 66 cards) by hand: random bids and play.

Cards are ints: 0..51 are the suit cards (suit = id // 13 in green, yellow, purple, black;
rank = id % 13 + 1), then 5 escapes, 5 pirates, 2 mermaids, the Skull King and Scary Mary
(the Tigress).  Round r deals r cards to each seat; the dealer moves one seat left each
round, and the seat left of the dealer bids first and leads.  The first suit card of a
trick sets the suit to follow; a seat holding that suit plays it or any special card.
Scary Mary is played as a pirate or as an escape (two actions).

Who wins a trick: the first mermaid when the Skull King is in it, else the Skull King,
else the first pirate, else the first mermaid, else the highest black, else the highest
card of the suit to follow, else (only escapes) the first card.  Scoring per round: a zero
bid scores +-10 x r; a hit bid 20 per trick plus bonuses (30 per pirate, Scary Mary in
either role included, in a trick the Skull King wins; 50 for a mermaid that captures the
Skull King); a missed bid -10 per trick of difference.  (The rulebook's gold-coin bonus
has no card in this edition.)

Actions: a card id to play it, `TIGRESS_ESCAPE` for Scary Mary as an escape, and
``BID + b`` to bid b; `text` gives the engine's notation (``play B7``, ``bid 2``).

Usage: skull_king.py --games N [--seed S] [--mode loop|api] [--players P]
"""

from __future__ import annotations

import argparse
import random
import time

SUITS = "GYPB"
BLACK = 3
SUIT_CARDS = 52
ESCAPE, PIRATE, MERMAID, SKULL_KING, TIGRESS = "escape", "pirate", "mermaid", "skull_king", "tigress"
SPECIALS = [ESCAPE] * 5 + [PIRATE] * 5 + [MERMAID] * 2 + [SKULL_KING, TIGRESS]
DECK_SIZE = SUIT_CARDS + len(SPECIALS)  # 66
TIGRESS_CARD = DECK_SIZE - 1
TIGRESS_ESCAPE = DECK_SIZE  # an action, not a card
BID = 100
# What each action counts as in a trick (Scary Mary as a pirate keeps its card id).
ROLE = ["suit"] * SUIT_CARDS + SPECIALS[:-1] + [PIRATE, ESCAPE]
SUIT_OF = [c // 13 for c in range(SUIT_CARDS)] + [-1] * (DECK_SIZE + 1 - SUIT_CARDS)
PIRATE_BONUS, CAPTURE_BONUS = 30, 50


def text(action: int) -> str:
    """The engine's text of an action: ``bid 2``, ``play G13``, ``play tigress:escape``."""
    if action >= BID:
        return f"bid {action - BID}"
    return "play " + card_text(action, as_action=True)


def card_text(card: int, as_action: bool = False) -> str:
    if card < SUIT_CARDS:
        return f"{SUITS[card // 13]}{card % 13 + 1}"
    if card == TIGRESS_CARD:
        return "tigress:pirate" if as_action else TIGRESS
    if card == TIGRESS_ESCAPE:
        return "tigress:escape"
    return SPECIALS[card - SUIT_CARDS]


def deal_round(rng: random.Random, players: int, r: int) -> list[list[int]]:
    cards = rng.sample(range(DECK_SIZE), players * r)
    return [cards[s * r : (s + 1) * r] for s in range(players)]


def playable(hand: list[int], suit: int) -> list[int]:
    """The actions of a hand when ``suit`` (-1: none yet) is to be followed."""
    if suit >= 0 and any(SUIT_OF[c] == suit for c in hand):
        out = [c for c in hand if c >= SUIT_CARDS or SUIT_OF[c] == suit]
    else:
        out = list(hand)
    if TIGRESS_CARD in out:
        out.append(TIGRESS_ESCAPE)
    return out


def trick_result(actions: list[int]) -> tuple[int, int]:
    """(index of the winning action, bonus) of a complete trick, in play order."""
    king = first_pirate = first_mermaid = top_black = top_led = -1
    led = -1
    pirates = 0  # Scary Mary counts in either role
    for i, a in enumerate(actions):
        role = ROLE[a]
        if role == "suit":
            suit = SUIT_OF[a]
            if led < 0:
                led = suit
            if suit == BLACK:
                if top_black < 0 or a > actions[top_black]:
                    top_black = i
            elif suit == led and (top_led < 0 or a > actions[top_led]):
                top_led = i
        elif role == PIRATE:
            pirates += 1
            if first_pirate < 0:
                first_pirate = i
        elif role == MERMAID:
            if first_mermaid < 0:
                first_mermaid = i
        elif role == SKULL_KING:
            king = i
        elif a == TIGRESS_ESCAPE:
            pirates += 1
    if king >= 0:
        if first_mermaid >= 0:
            return first_mermaid, CAPTURE_BONUS
        return king, PIRATE_BONUS * pirates
    for i in (first_pirate, first_mermaid, top_black, top_led):
        if i >= 0:
            return i, 0
    return 0, 0


def round_score(r: int, bid: int, won: int, bonus: int) -> int:
    if bid == 0:
        return 10 * r if won == 0 else -10 * r
    if won == bid:
        return 20 * bid + bonus
    return -10 * abs(won - bid)


class SkullKing:
    """A whole game behind ``legal_actions()``/``apply_action(a)``; ``scores`` per seat.

    ``deals[r - 1]`` holds each seat's hand for round r (from `deal_round`), so a test can
    give the engine the same cards.
    """

    def __init__(self, deals: list[list[list[int]]]):
        self.deals = deals
        self.n = len(deals[0])
        self.rounds = len(deals)
        self.scores = [0] * self.n
        self.round = 0
        self._start_round()

    def _start_round(self):
        self.round += 1
        r = self.round
        self.hands = [list(h) for h in self.deals[r - 1]]
        self.current = r % self.n  # left of the dealer, seat (r - 1) % n
        self.bids: list[int] = []
        self.won = [0] * self.n
        self.bonus = [0] * self.n
        self.trick: list[int] = []
        self.leader = self.current
        self.suit = -1
        self.tricks_left = r

    def is_terminal(self) -> bool:
        return self.round > self.rounds

    def legal_actions(self) -> list[int]:
        if len(self.bids) < self.n:
            return [BID + b for b in range(self.round + 1)]
        return playable(self.hands[self.current], self.suit)

    def apply_action(self, action: int) -> None:
        n, seat = self.n, self.current
        self.current = (seat + 1) % n
        if action >= BID:
            self.bids.append(action - BID)  # in order from the first bidder
            return
        self.hands[seat].remove(TIGRESS_CARD if action == TIGRESS_ESCAPE else action)
        if self.suit < 0 and action < SUIT_CARDS:
            self.suit = SUIT_OF[action]
        self.trick.append(action)
        if len(self.trick) < n:
            return
        index, bonus = trick_result(self.trick)
        winner = (self.leader + index) % n
        self.won[winner] += 1
        self.bonus[winner] += bonus
        self.trick, self.suit = [], -1
        self.current = self.leader = winner
        self.tricks_left -= 1
        if self.tricks_left:
            return
        first = self.round % n
        for k, bid in enumerate(self.bids):
            s = (first + k) % n
            self.scores[s] += round_score(self.round, bid, self.won[s], self.bonus[s])
        if self.round < self.rounds:
            self._start_round()
        else:
            self.round += 1


def play_api(rng: random.Random, players: int = 4, rounds: int = 10) -> tuple[list[int], int]:
    """One random game through the object interface: (scores, actions)."""
    state = SkullKing([deal_round(rng, players, r) for r in range(1, rounds + 1)])
    choice = rng.choice
    actions = 0
    while state.round <= rounds:
        state.apply_action(choice(state.legal_actions()))
        actions += 1
    return state.scores, actions


def play_loop(rng: random.Random, players: int = 4, rounds: int = 10) -> tuple[list[int], int]:
    """The same game as nested loops (no per-action calls): the practical speed limit."""
    choice = rng.choice
    scores = [0] * players
    actions = 0
    for r in range(1, rounds + 1):
        hands = deal_round(rng, players, r)
        first = r % players
        bids = [0] * players
        for k in range(players):
            bids[(first + k) % players] = choice(range(r + 1))
        won, bonus = [0] * players, [0] * players
        leader = first
        for _ in range(r):
            trick, suit = [], -1
            for k in range(players):
                hand = hands[(leader + k) % players]
                a = choice(playable(hand, suit))
                hand.remove(TIGRESS_CARD if a == TIGRESS_ESCAPE else a)
                if suit < 0 and a < SUIT_CARDS:
                    suit = SUIT_OF[a]
                trick.append(a)
            index, b = trick_result(trick)
            leader = (leader + index) % players
            won[leader] += 1
            bonus[leader] += b
        for s in range(players):
            scores[s] += round_score(r, bids[s], won[s], bonus[s])
        actions += players * (r + 1)
    return scores, actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("loop", "api"), default="loop")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    play = play_loop if args.mode == "loop" else play_api
    rng = random.Random(args.seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(args.games):
        actions += play(rng, args.players)[1]
    elapsed = time.perf_counter() - t0
    print(f"games_per_s={args.games / elapsed:.1f} actions_per_s={actions / elapsed:.1f}")


if __name__ == "__main__":
    main()
