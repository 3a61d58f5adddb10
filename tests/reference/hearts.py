"""Hearts for four players, by hand: an independent referee for the ``hearts`` ruleset.

Written from the standard rules (Hoyle's Rules of Games; Pagat.com, "Hearts") and the
readings of issue 13, sharing no code with trickkit. Cards are ints 0..51: suit = id // 13
in clubs, diamonds, hearts, spades; rank = id % 13 + 2 (11..14 are J, Q, K, A).

A hand: 13 cards each. Then passing: hand 1 passes left (to seat + 1), hand 2 right, hand
3 across, hand 4 keeps, and again. Each seat chooses three cards, one ``pass`` at a time,
seat by seat from the dealer's left; the cards arrive once all have chosen. The seat
holding the two of clubs leads it. Follow suit if you can. On the first trick a seat that
cannot follow plays no heart and not the queen of spades unless it holds nothing else.
Hearts may not be led until a heart has been played in an earlier trick (the queen of
spades does not break hearts), unless the leader holds only hearts. The highest card of
the suit led takes the trick, and its taker leads next. Each heart taken costs 1 and the
queen of spades 13; a seat taking all 26 points shoots the moon: it scores 0 and every
other seat 26. The dealer moves one seat left each hand. The game ends after the hand in
which some seat's total reaches the limit; the lowest total wins (ties share).

As a script it times random games through ``legal_actions()``/``apply_action()`` (the
shape ``benchmarks/bench.py --baselines`` compares the engine with):

    hearts.py --games N [--seed S] [--mode api] [--players 4]
"""

from __future__ import annotations

import argparse
import random
import time

SEATS = 4
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
TWO_OF_CLUBS = 0
QUEEN_OF_SPADES = SPADES * 13 + 10
PASS_OFFSET = [1, SEATS - 1, 2, 0]  # left, right, across, keep


def suit(card: int) -> int:
    return card // 13


def card_text(card: int) -> str:
    """``C2``, ``H10``, ``SQ``, ``DA``."""
    rank = card % 13 + 2
    return "CDHS"[suit(card)] + {11: "J", 12: "Q", 13: "K", 14: "A"}.get(rank, str(rank))


def points(card: int) -> int:
    return 13 if card == QUEEN_OF_SPADES else 1 if suit(card) == HEARTS else 0


def deal(rng: random.Random) -> list[list[int]]:
    cards = list(range(52))
    rng.shuffle(cards)
    return [sorted(cards[13 * s : 13 * (s + 1)]) for s in range(SEATS)]


class Hearts:
    """One game. ``deals`` gives the hands of each hand in turn (seat 0 deals the first).

    Actions are ``("pass", card)`` and ``("play", card)``; `text` gives the engine's notation.
    """

    def __init__(self, deals: list[list[list[int]]], limit: int = 100):
        self.deals, self.limit = deals, limit
        self.scores = [0] * SEATS
        self.hand_no = 0  # from 0
        self.dealer = 0
        self.over = False
        self._start_hand()

    # -- a hand -------------------------------------------------------------------------
    def _start_hand(self) -> None:
        self.hands = [list(h) for h in self.deals[self.hand_no]]
        self.taken = [[] for _ in range(SEATS)]
        self.offset = PASS_OFFSET[self.hand_no % 4]
        self.chosen = [[] for _ in range(SEATS)]
        self.broken = False
        self.tricks_done = 0
        self.trick: list[tuple[int, int]] = []  # (seat, card)
        if self.offset:
            self.phase = "pass"
            self.current = (self.dealer + 1) % SEATS
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = "play"
        self.current = next(s for s in range(SEATS) if TWO_OF_CLUBS in self.hands[s])

    def legal_actions(self) -> list[tuple[str, int]]:
        if self.over:
            return []
        hand = self.hands[self.current]
        if self.phase == "pass":
            return [("pass", c) for c in hand]
        return [("play", c) for c in self._playable(hand)]

    def _playable(self, hand: list[int]) -> list[int]:
        first = self.tricks_done == 0
        if not self.trick:
            if first:
                return [TWO_OF_CLUBS]
            if self.broken:
                return list(hand)
            not_hearts = [c for c in hand if suit(c) != HEARTS]
            return not_hearts or list(hand)
        led = suit(self.trick[0][1])
        follow = [c for c in hand if suit(c) == led]
        if follow:
            return follow
        if first:
            safe = [c for c in hand if points(c) == 0]
            return safe or list(hand)
        return list(hand)

    def apply_action(self, action: tuple[str, int]) -> None:
        """Apply one of `legal_actions` (not checked here: the lockstep test compares them first)."""
        kind, card = action
        seat = self.current
        self.hands[seat].remove(card)
        if kind == "pass":
            self.chosen[seat].append(card)
            if len(self.chosen[seat]) == 3:
                self.current = (seat + 1) % SEATS
                if all(len(c) == 3 for c in self.chosen):
                    for s in range(SEATS):
                        self.hands[(s + self.offset) % SEATS] += self.chosen[s]
                    for hand in self.hands:  # sorted again, so legal actions come in deck order
                        hand.sort()
                    self._start_play()
            return
        self.trick.append((seat, card))
        if len(self.trick) < SEATS:
            self.current = (seat + 1) % SEATS
            return
        led = suit(self.trick[0][1])
        winner = max((p for p in self.trick if suit(p[1]) == led), key=lambda p: p[1])[0]
        self.taken[winner] += [c for _, c in self.trick]
        if any(suit(c) == HEARTS for _, c in self.trick):
            self.broken = True
        self.trick = []
        self.tricks_done += 1
        self.current = winner
        if self.tricks_done == 13:
            self._score_hand()

    def _score_hand(self) -> None:
        got = [sum(points(c) for c in t) for t in self.taken]
        if 26 in got:
            moon = got.index(26)
            got = [0 if s == moon else 26 for s in range(SEATS)]
        self.scores = [a + b for a, b in zip(self.scores, got)]
        if max(self.scores) >= self.limit:
            self.over = True
            return
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % SEATS
        self._start_hand()

    def is_terminal(self) -> bool:
        return self.over

    def winners(self) -> list[int]:
        best = min(self.scores)
        return [s for s in range(SEATS) if self.scores[s] == best]


def text(action: tuple[str, int]) -> str:
    """The engine's text of an action: ``pass C5``, ``play SQ``."""
    return f"{action[0]} {card_text(action[1])}"


def play_api(rng: random.Random, limit: int = 100) -> tuple[list[int], int]:
    """One random game: (scores, actions taken). At most 16 hands fit under the limit of 100."""
    game = Hearts([deal(rng) for _ in range(20)], limit=limit)
    actions = 0
    while not game.is_terminal():
        game.apply_action(rng.choice(game.legal_actions()))
        actions += 1
    return game.scores, actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("api",), default="api")
    ap.add_argument("--players", type=int, default=SEATS, help="ignored: Hearts is for four")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(args.games):
        actions += play_api(rng)[1]
    elapsed = time.perf_counter() - t0
    print(f"games_per_s={args.games / elapsed:.1f} actions_per_s={actions / elapsed:.1f}")


if __name__ == "__main__":
    main()
