#!/usr/bin/env python3
"""Love Letter (16-card edition) in plain Python: an independent referee model, written without trickkit.

Written from the ``love_letter`` section of issue 29 (the rules contract) and
docs/games/love_letter.md; the engine's ruleset (rulesets/love_letter.yaml) is played against it
in lockstep (tests/test_love_letter_model.py), and tests/test_love_letter_rules.py pins the model
itself on hand-built situations.

Cards are their names: Guard 1 (x5), Priest 2 (x2), Baron 3 (x2), Handmaid 4 (x2), Prince 5 (x2),
King 6, Countess 7, Princess 8. Seats are 0..n-1 and play passes to seat + 1. Actions are the
contract's texts: ``play Guard 2 Priest``, ``play Guard`` (no seat can be targeted),
``play Priest 1``, ``play Baron 1``, ``play Handmaid``, ``play Prince 0``, ``play King 3``,
``play Countess``, ``play Princess``.

The rules, restated as code:

* each round the deck is shuffled; one card is set aside face down and, with 2 seats, three more
  face up; then every seat, seat 0 first, draws one card. Round 1 is started by seat 0, a later
  round by the previous round's winner (the lowest-numbered one on a shared win);
* a turn: the seat draws the top card of the deck (automatically, not an action), then plays one
  of its two cards; every played card lies face up in front of its player (``laid``);
* a targeted card (Guard, Priest, Baron, King) names another seat still in the round and not
  protected by a Handmaid; with no such seat it is played with no target and does nothing. The
  Prince names any seat in the round, oneself included, but not a protected other seat (so with
  no other target it names oneself);
* the Countess must be played when the other card is a King or a Prince;
* a seat that goes out lays its hand face up; the round ends when one seat is left, or after a
  turn that emptied the deck: then the highest card in hand wins, equal cards are decided by the
  higher total of the cards laid face up this round (played, or discarded to a Prince), and seats
  still equal all win. Each round winner gains a token; the game ends when a seat has ``tokens``
  tokens (0: 7 with 2 seats, 5 with 3, 4 with 4).

What each seat knows: its own hand, every laid card, the face-up set-aside cards and counts, plus
the reveals of ``revealed(seat)``: a Priest shows the target's card to the player only, a Baron shows
each of the two cards to the other of the two. A seat keeps such knowledge until a card of that
name leaves the holder's hand (played, discarded, laid, or swapped by a King): after that it
cannot tell whether the card it saw is still there, so it is forgotten.

Chance is the deck order only: ``chance.deck(model)`` returns the 16 names at each round's start,
the top of the deck LAST (``deck[-1]`` is set aside first, ``deck[-2]``... next). The engine's own
order can so be mirrored, or the model's order injected into the engine (``deals=[{"stock": deck}]``).

Usage: love_letter.py --games N [--seed S] [--players P]   prints games_per_s=... actions_per_s=...
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence

VALUES = {
    "Guard": 1,
    "Priest": 2,
    "Baron": 3,
    "Handmaid": 4,
    "Prince": 5,
    "King": 6,
    "Countess": 7,
    "Princess": 8,
}
COPIES = {"Guard": 5, "Priest": 2, "Baron": 2, "Handmaid": 2, "Prince": 2, "King": 1, "Countess": 1, "Princess": 1}
DECK = [name for name, k in COPIES.items() for _ in range(k)]
GUESSES = [name for name in VALUES if name != "Guard"]
TARGETED = ("Guard", "Priest", "Baron", "King")  # need another seat; with none, played without a target
DEFAULT_TOKENS = {2: 7, 3: 5, 4: 4}


def value(card: str) -> int:
    return VALUES[card]


def make_deck(
    hands: Sequence[str],
    draws: Sequence[str] = (),
    aside: str | None = None,
    aside_up: Sequence[str] = (),
) -> list[str]:
    """A deck order (top last) that sets ``aside`` (and ``aside_up``) aside, gives seat s the
    card ``hands[s]``, and then yields ``draws`` in order; unnamed cards fill the rest below."""
    named = ([aside] if aside else []) + list(aside_up) + list(hands) + list(draws)
    left = Counter(DECK)
    left.subtract(Counter(named))
    assert all(k >= 0 for k in left.values()), f"more copies than the deck holds: {named}"
    rest = sorted(left.elements(), key=lambda c: (value(c), c))
    if aside is None:  # the lowest card left is set aside
        aside = rest.pop(0)
    top_first = [aside, *aside_up, *hands, *draws, *rest]
    return top_first[::-1]


class RandomChance:
    """Deck orders shuffled by a generator."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def deck(self, model: LoveLetter) -> list[str]:
        cards = list(DECK)
        self.rng.shuffle(cards)
        return cards


class FixedChance:
    """Given deck orders, one per round, then random ones."""

    def __init__(self, decks: Iterable[Sequence[str]], rng: random.Random | None = None):
        self.decks = [list(d) for d in decks]
        self.random = RandomChance(rng or random.Random(0))

    def deck(self, model: LoveLetter) -> list[str]:
        return self.decks.pop(0) if self.decks else self.random.deck(model)


class LoveLetter:
    """A game of Love Letter from the first round (seat 0 starts)."""

    def __init__(self, players: int, chance=None, tokens: int = 0, seed: int = 0):
        assert 2 <= players <= 4
        self.n = players
        self.chance = chance if chance is not None else RandomChance(random.Random(seed))
        self.goal = tokens or DEFAULT_TOKENS[players]
        self.scores = [0] * players  # tokens
        self.rounds = 0  # rounds finished
        self.round_winners: list[int] = []  # of the last round finished
        self.starter = 0
        self.over = False
        self._start_round()

    # -- a position built by hand (for tests) --------------------------------------------
    @classmethod
    def at(
        cls,
        hands: Sequence[Sequence[str]],
        stock: Sequence[str],
        aside: Sequence[str],
        aside_up: Sequence[str] = (),
        laid: Sequence[Sequence[str]] | None = None,
        out: Iterable[int] = (),
        protected: Iterable[int] = (),
        current: int = 0,
        scores: Sequence[int] | None = None,
        tokens: int = 0,
        chance=None,
    ) -> LoveLetter:
        """The position in a round where ``current`` has drawn (holds two cards) and must play.
        ``stock`` is the deck, top last. Cards must not exceed the deck's copies."""
        game = cls.__new__(cls)
        n = len(hands)
        game.n = n
        game.chance = chance if chance is not None else RandomChance(random.Random(0))
        game.goal = tokens or DEFAULT_TOKENS[n]
        game.scores = list(scores or [0] * n)
        game.rounds = 0
        game.round_winners = []
        game.starter = 0
        game.over = False
        game.hands = [list(h) for h in hands]
        game.stock = list(stock)
        game.aside = list(aside)
        game.aside_up = list(aside_up)
        game.laid = [list(x) for x in laid] if laid is not None else [[] for _ in range(n)]
        outs = set(out)
        game.alive = [s not in outs for s in range(n)]
        guarded = set(protected)
        game.protected = [s in guarded for s in range(n)]
        game.known = [{} for _ in range(n)]
        game.current = current
        used = Counter(c for zone in [*game.hands, game.stock, game.aside, game.aside_up, *game.laid] for c in zone)
        assert all(used[c] <= COPIES[c] for c in used), "more copies than the deck holds"
        assert len(game.hands[current]) == 2 and game.alive[current]
        return game

    # -- rounds and turns ----------------------------------------------------------------
    def _start_round(self) -> None:
        deck = list(self.chance.deck(self))
        assert sorted(deck) == sorted(DECK), "a round is played with the whole deck"
        n = self.n
        self.aside = [deck.pop()]  # face down
        self.aside_up = [deck.pop() for _ in range(3)] if n == 2 else []  # face up
        self.hands = [[deck.pop()] for _ in range(n)]  # seat 0 draws first
        self.stock = deck
        self.laid: list[list[str]] = [[] for _ in range(n)]
        self.alive = [True] * n
        self.protected = [False] * n
        self.known: list[dict[int, str]] = [{} for _ in range(n)]  # viewer -> {holder: card seen}
        self.current = self.starter
        self._begin_turn()

    def _begin_turn(self) -> None:
        me = self.current
        self.protected[me] = False  # a Handmaid protects until the player's next turn
        self.hands[me].append(self.stock.pop())

    def _end_turn(self) -> None:
        left = [s for s in range(self.n) if self.alive[s]]
        if len(left) <= 1 or not self.stock:
            self._end_round()
            return
        seat = self.current
        while True:
            seat = (seat + 1) % self.n
            if self.alive[seat]:
                break
        self.current = seat
        self._begin_turn()

    def _end_round(self) -> None:
        left = [s for s in range(self.n) if self.alive[s]]
        if len(left) > 1:  # the deck ran out: highest card, then highest laid total, then all
            best = max(value(self.hands[s][0]) for s in left)
            left = [s for s in left if value(self.hands[s][0]) == best]
            if len(left) > 1:
                most = max(self.laid_total(s) for s in left)
                left = [s for s in left if self.laid_total(s) == most]
        for s in left:
            self.scores[s] += 1
        self.round_winners = left
        self.rounds += 1
        if max(self.scores) >= self.goal:
            self.over = True
            return
        self.starter = min(left)
        self._start_round()

    def laid_total(self, seat: int) -> int:
        return sum(value(c) for c in self.laid[seat])

    # -- knowledge -----------------------------------------------------------------------
    def _leaves(self, holder: int, card: str) -> None:
        """A card named ``card`` leaves ``holder``'s hand: whoever had seen that name there forgets it."""
        for seen in self.known:
            if seen.get(holder) == card:
                del seen[holder]

    def revealed(self, seat: int) -> list[tuple[int, str]]:
        """The cards in other hands ``seat`` has been shown and still knows: sorted (holder, card)."""
        return sorted(self.known[seat].items())

    def view(self, seat: int) -> dict:
        """What ``seat`` may know: its hand, the public cards and counts, and its reveals."""
        return {
            "hand": sorted(self.hands[seat]),
            "hand_counts": [len(h) for h in self.hands],
            "laid": [list(x) for x in self.laid],
            "aside_up": list(self.aside_up),
            "stock": len(self.stock),
            "out": [s for s in range(self.n) if not self.alive[s]],
            "protected": [s for s in range(self.n) if self.protected[s]],
            "tokens": list(self.scores),
            "revealed": self.revealed(seat),
        }

    # -- rules -----------------------------------------------------------------------------
    def targets(self) -> list[int]:
        """The other seats the current seat may target: in the round, not protected."""
        me = self.current
        return [t for t in range(self.n) if t != me and self.alive[t] and not self.protected[t]]

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        me = self.current
        hand = self.hands[me]
        forced = "Countess" in hand and ("King" in hand or "Prince" in hand)
        others = self.targets()
        out: set[str] = set()
        for card in set(hand):
            if forced and card != "Countess":
                continue
            if card == "Guard":
                if others:
                    out.update(f"play Guard {t} {g}" for t in others for g in GUESSES)
                else:
                    out.add("play Guard")
            elif card in TARGETED:
                if others:
                    out.update(f"play {card} {t}" for t in others)
                else:
                    out.add(f"play {card}")
            elif card == "Prince":
                out.update(f"play Prince {t}" for t in [*others, me])
            else:
                out.add(f"play {card}")
        return sorted(out)

    def _out(self, seat: int) -> None:
        """``seat`` leaves the round, laying its hand face up."""
        for card in self.hands[seat]:
            self._leaves(seat, card)
        self.laid[seat].extend(self.hands[seat])
        self.hands[seat] = []
        self.alive[seat] = False

    def apply(self, action: str) -> None:
        assert action in self.legal_actions(), action
        me = self.current
        words = action.split()
        card = words[1]
        target = int(words[2]) if len(words) > 2 else None
        self.hands[me].remove(card)
        self._leaves(me, card)
        self.laid[me].append(card)
        if target is not None:
            if card == "Guard":
                if words[3] in self.hands[target]:
                    self._out(target)
            elif card == "Priest":
                self.known[me][target] = self.hands[target][0]
            elif card == "Baron":
                mine, theirs = self.hands[me][0], self.hands[target][0]
                self.known[me][target] = theirs
                self.known[target][me] = mine
                if value(mine) < value(theirs):
                    self._out(me)
                elif value(theirs) < value(mine):
                    self._out(target)
            elif card == "Prince":
                dropped = self.hands[target].pop()
                self._leaves(target, dropped)
                self.laid[target].append(dropped)
                if dropped == "Princess":
                    self.alive[target] = False
                else:
                    self.hands[target].append(self.stock.pop() if self.stock else self.aside.pop())
            elif card == "King":
                for holder in (me, target):
                    for seen in self.known:
                        seen.pop(holder, None)
                self.hands[me], self.hands[target] = self.hands[target], self.hands[me]
        elif card == "Handmaid":
            self.protected[me] = True
        elif card == "Princess":
            self._out(me)
        self._end_turn()

    apply_action = apply

    def is_terminal(self) -> bool:
        return self.over

    def winners(self) -> list[int]:
        if not self.over:
            return []
        return [s for s in range(self.n) if self.scores[s] >= self.goal]


def play(rng: random.Random, players: int, **params) -> tuple[list[int], int]:
    """One game of uniformly random legal play; (tokens, actions)."""
    game = LoveLetter(players, RandomChance(rng), **params)
    actions = 0
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
        actions += 1
    return game.scores, actions


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
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
