#!/usr/bin/env python3
"""Crazy Eights in plain Python: an independent referee model, written without trickkit.

Written from the rules of Crazy Eights in *Hoyle's Rules of Games* (Morehead and
Mott-Smith) and the readings of docs/games/crazy_eights.md; the engine's ruleset is played
against it in lockstep (tests/test_crazy_eights_model.py), and ``benchmarks/bench.py
--baselines`` can time it.

Cards are texts: suit letter C, D, H, S and rank 2-10, J, Q, K, A (``"H10"``, ``"SQ"``).
Actions are the engine's texts: ``play C7``, ``play H8 spades``, ``draw``, ``pass``.

The rules, restated as code:

* 5 cards each, 7 with two seats; the seat left of the dealer starts, the deal passes left;
* a card may be played if it is an 8, or matches the rank of the top card, or the suit to
  match (the suit named with an 8 on top, else the top card's suit); an 8 names a suit;
* ``draw`` is always legal while a card can be drawn (the stock, or the discard pile below
  its top card, which is shuffled into a new stock when the stock is empty); after a draw
  only the drawn card may be played, or kept with ``pass``; a drawn card that cannot be
  played ends the turn; with ``draw_until_playable`` the seat draws again instead, one
  ``draw`` at a time, and the turn ends by itself when nothing is left to draw;
* a seat that can neither play nor draw passes; when every seat in a row has passed so
  without having drawn, the hand is blocked: the seats with the lowest count in hand score
  the differences to every other count;
* a seat that goes out scores the cards left in the other hands: 8 = 50, K/Q/J = 10,
  A = 1, the others their rank; hands go on until a seat has ``target`` points (0: one hand).

Chance (the deal, the starter, each reshuffle) comes from a ``chance`` object, so the model
can follow the engine's own random outcomes in lockstep while checking them:
``chance.deal(model) -> (hands, stock, discard)`` and ``chance.reshuffle(cards) -> order``.
`RandomChance` makes them itself, from the rules (bury an 8 at a random place and turn again).

Usage: crazy_eights.py --games N [--seed S] [--players P]   prints games_per_s=... actions_per_s=...
"""

from __future__ import annotations

import argparse
import random
import time

SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
DECK = [s + r for s in SUITS for r in RANKS]


def suit(card: str) -> str:
    return SUITS[card[0]]


def rank(card: str) -> str:
    return card[1:]


def points(card: str) -> int:
    r = rank(card)
    if r == "8":
        return 50
    if r in ("J", "Q", "K"):
        return 10
    if r == "A":
        return 1
    return int(r)


class RandomChance:
    """Deals, starters and reshuffles made with a generator, as the rules describe them."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def deal(self, model: CrazyEights):
        cards = list(DECK)
        self.rng.shuffle(cards)
        count = model.hand_size
        hands = [cards[k * count : (k + 1) * count] for k in range(model.n)]
        stock = cards[model.n * count :]
        discard = [stock.pop()]
        for _ in range(len(DECK)):  # an 8 turned up is buried at a random place, another turned
            if rank(discard[-1]) != "8":
                break
            stock.insert(self.rng.randrange(len(stock) + 1), discard.pop())
            discard.append(stock.pop())
        return hands, stock, discard

    def reshuffle(self, cards: list[str]) -> list[str]:
        cards = list(cards)
        self.rng.shuffle(cards)
        return cards


class CrazyEights:
    """A game of Crazy Eights from the first deal (seat 0 deals)."""

    def __init__(self, players: int, chance, target: int = 100, draw_until_playable: bool = False):
        assert 2 <= players <= 7
        self.n = players
        self.chance = chance
        self.target = target
        self.until_playable = draw_until_playable
        self.hand_size = 7 if players == 2 else 5
        self.scores = [0] * players
        self.dealer = 0
        self.hands_played = 0
        self.over = False
        self._new_hand()

    # -- hands and turns -------------------------------------------------------------------
    def _new_hand(self):
        hands, stock, discard = self.chance.deal(self)
        assert all(len(h) == self.hand_size for h in hands), "every seat is dealt its cards"
        assert sorted([c for h in hands for c in h] + stock + discard) == sorted(DECK), "the deal holds the deck once"
        assert len(discard) == 1, "one starter is turned up"
        assert rank(discard[0]) != "8" or not any(rank(c) != "8" for c in stock), "an 8 starter is buried"
        self.hands = [list(h) for h in hands]
        self.stock, self.discard = list(stock), list(discard)
        self.called = None
        self.stuck = 0
        self.current = (self.dealer + 1) % self.n
        self.drawn = None

    def _next_turn(self):
        self.current = (self.current + 1) % self.n
        self.drawn = None

    def _end_hand(self):
        self.hands_played += 1
        if self.target == 0 or max(self.scores) >= self.target:
            self.over = True
            return
        self.dealer = (self.dealer + 1) % self.n
        self._new_hand()

    # -- rules -------------------------------------------------------------------------------
    def fits(self, card: str) -> bool:
        top = self.discard[-1]
        wanted = self.called or suit(top)
        return rank(card) == "8" or suit(card) == wanted or rank(card) == rank(top)

    def can_draw(self) -> bool:
        return bool(self.stock) or len(self.discard) > 1

    @staticmethod
    def _plays(card: str) -> list[str]:
        if rank(card) == "8":
            return [f"play {card} {name}" for name in SUITS.values()]
        return [f"play {card}"]

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        if self.drawn is not None:
            if self.fits(self.drawn):
                return self._plays(self.drawn) + ["pass"]
            # only with draw_until_playable does a turn go on after a card that does not fit
            return ["draw"] if self.can_draw() else ["pass"]
        out = [a for c in self.hands[self.current] if self.fits(c) for a in self._plays(c)]
        if self.can_draw():
            out.append("draw")
        elif not out:
            out.append("pass")
        return out

    def count(self, seat: int) -> int:
        return sum(points(c) for c in self.hands[seat])

    def apply_action(self, action: str) -> None:
        assert action in self.legal_actions(), action
        me = self.current
        words = action.split()
        if words[0] == "play":
            card = words[1]
            self.hands[me].remove(card)
            self.discard.append(card)
            self.called = words[2] if len(words) == 3 else None
            self.stuck = 0
            if not self.hands[me]:
                self.scores[me] += sum(self.count(s) for s in range(self.n))
                self._end_hand()
                return
            self._next_turn()
        elif words[0] == "draw":
            if not self.stock:
                below = self.discard[:-1]
                order = self.chance.reshuffle(below)
                assert sorted(order) == sorted(below), "the new stock is the discard pile below its top card"
                self.stock, self.discard = list(order), self.discard[-1:]
            card = self.stock.pop()
            self.hands[me].append(card)
            self.drawn = card
            self.stuck = 0
            if not self.fits(card) and (not self.until_playable or not self.can_draw()):
                self._next_turn()
        else:  # pass
            self.stuck = 0 if self.drawn is not None else self.stuck + 1
            if self.stuck == self.n:  # blocked: nobody can play or draw
                low = min(self.count(s) for s in range(self.n))
                for s in range(self.n):
                    if self.count(s) == low:
                        self.scores[s] += sum(self.count(o) - low for o in range(self.n))
                self._end_hand()
                return
            self._next_turn()

    def is_terminal(self) -> bool:
        return self.over


def play(rng: random.Random, players: int, **params) -> tuple[list[int], int]:
    """One game of uniformly random legal play; (scores, actions)."""
    game = CrazyEights(players, RandomChance(rng), **params)
    actions = 0
    while not game.over:
        game.apply_action(rng.choice(game.legal_actions()))
        actions += 1
    return game.scores, actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--mode", choices=("api",), default="api", help="only api (the engine's shape)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(args.games):
        actions += play(rng, args.players)[1]
    elapsed = time.perf_counter() - t0
    print(f"games_per_s={args.games / elapsed:.1f} actions_per_s={actions / elapsed:.1f}")


if __name__ == "__main__":
    main()
