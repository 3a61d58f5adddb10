"""The 52-card deck of the classic trick games, written out independently of trickkit:
a card is its suit letter and rank text (``C2``, ``H10``, ``SQ``, ``DA``)."""

import random

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")
DECK = tuple(s + r for s in SUITS for r in RANKS)


def suit(card: str) -> str:
    return card[0]


def rank(card: str) -> int:
    """2 for a two ... 14 for an ace."""
    return RANKS.index(card[1:]) + 2


def shuffled(rng: random.Random) -> list[str]:
    cards = list(DECK)
    rng.shuffle(cards)
    return cards


def deal(rng: random.Random, players: int, size: int) -> tuple[list[list[str]], list[str]]:
    """Every seat's hand of ``size`` cards and the undealt stock (its last card on top)."""
    cards = shuffled(rng)
    hands = [cards[k * size : (k + 1) * size] for k in range(players)]
    return hands, cards[players * size :]


def follow(hand: list[str], trick: list[tuple[int, str]]) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick``: the suit led if held, else any."""
    if trick:
        led = suit(trick[0][1])
        same = [c for c in hand if suit(c) == led]
        if same:
            return same
    return list(hand)


def trick_winner(trick: list[tuple[int, str]], trump: str | None) -> int:
    """The seat that takes a full trick: the highest trump, else the highest card of the suit led."""
    trumps = [(rank(c), seat) for seat, c in trick if trump is not None and suit(c) == trump]
    if trumps:
        return max(trumps)[1]
    led = suit(trick[0][1])
    return max((rank(c), seat) for seat, c in trick if suit(c) == led)[1]
