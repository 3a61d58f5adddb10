"""An independent model of four-handed partnership Euchre, written from the rules as issue 29
states them (the standard game, as in Hoyle's Rules of Games) and docs/games/euchre.md. It
shares no code with trickkit; tests play it in lockstep with the engine's ``euchre`` ruleset.
Seats 0 and 2 are partners against 1 and 3; seat 0 deals first and the deal passes left.

Actions are texts: ``order``, ``order alone``, ``pass`` (making, round 1), ``discard CARD``
(the dealer, after taking the upcard), ``call SUIT``, ``call SUIT alone`` (round 2, SUIT one
of C D H S) and ``play CARD``.
"""

import random

from .cards52 import RANKS, SUITS, rank, suit

DECK = tuple(s + r for s in SUITS for r in RANKS if rank(s + r) >= 9)  # 9 10 J Q K A of each suit
TEAMS = ((0, 2), (1, 3))
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}


def deal(rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """Five cards to each seat and the kitty of four (its last card on top: the upcard)."""
    cards = list(DECK)
    rng.shuffle(cards)
    return [sorted(cards[5 * k : 5 * k + 5], key=DECK.index) for k in range(4)], cards[20:]


def is_right(card: str, trump: str) -> bool:
    return suit(card) == trump and card[1:] == "J"


def is_left(card: str, trump: str) -> bool:
    return suit(card) == SAME_COLOUR[trump] and card[1:] == "J"


def effective_suit(card: str, trump: str) -> str:
    """The suit a card belongs to in play: the left bower is a trump."""
    return trump if is_left(card, trump) else suit(card)


def power(card: str, trump: str) -> int:
    """How high a card ranks in its effective suit: right bower 30, left bower 29, then the
    trumps A K Q 10 9 above every plain card; plain suits A K Q J 10 9 (the rank)."""
    if is_right(card, trump):
        return 30
    if is_left(card, trump):
        return 29
    return rank(card) + (10 if suit(card) == trump else 0)


def playable(hand: list[str], trick: list[tuple[int, str]], trump: str) -> list[str]:
    """The cards of ``hand`` that may be played: the effective suit led if held, else any."""
    if trick:
        led = effective_suit(trick[0][1], trump)
        same = [c for c in hand if effective_suit(c, trump) == led]
        if same:
            return same
    return list(hand)


def trick_winner(trick: list[tuple[int, str]], trump: str) -> int:
    """The seat that takes the trick: the highest trump, else the highest card of the suit led."""
    trumps = [(power(c, trump), seat) for seat, c in trick if effective_suit(c, trump) == trump]
    if trumps:
        return max(trumps)[1]
    led = effective_suit(trick[0][1], trump)
    return max((power(c, trump), seat) for seat, c in trick if effective_suit(c, trump) == led)[1]


def hand_points(tricks: int, alone: bool) -> tuple[int, int]:
    """(points to the makers, points to the defenders) for the makers' tricks."""
    if tricks == 5:
        return (4 if alone else 2), 0
    if tricks >= 3:
        return 1, 0
    return 0, 2


class Euchre:
    """A game in progress. ``deals[h]`` is (hands per seat, kitty with the upcard last)."""

    def __init__(self, deals, target: int = 10, dealer: int = 0):
        self.deals, self.target = deals, target
        self.points = [0, 0]
        self.hand_no = 0
        self.dealer = dealer
        self.over = False
        self._start_hand()

    def _start_hand(self):
        hands, kitty = self.deals[self.hand_no]
        self.hands = [list(h) for h in hands]
        self.kitty = list(kitty)
        self.upcard = self.kitty.pop()  # turned up, seen by all
        self.turned = suit(self.upcard)
        self.phase = "order"  # order, call, discard, play
        self.passes = 0
        self.trump = None
        self.maker = None
        self.alone = False
        self.out = None  # the seat sitting out (the lone maker's partner)
        self.trick = []
        self.tricks = [0, 0]  # per team
        self.current = (self.dealer + 1) % 4

    def _next_playing(self, seat: int) -> int:
        seat = (seat + 1) % 4
        return (seat + 1) % 4 if seat == self.out else seat

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        if self.phase == "order":
            return ["order", "order alone", "pass"]
        if self.phase == "call":
            calls = [f"call {s}{a}" for s in SUITS if s != self.turned for a in ("", " alone")]
            return sorted([*calls, "pass"])
        if self.phase == "discard":
            return sorted(f"discard {c}" for c in self.hands[self.dealer])
        return sorted(f"play {c}" for c in playable(self.hands[self.current], self.trick, self.trump))

    def apply(self, action: str) -> None:
        assert action in self.legal_actions(), action
        words = action.split()
        seat = self.current
        if words[0] == "pass":
            self.passes += 1
            self.current = (seat + 1) % 4
            if self.passes < 4:
                return
            self.passes = 0
            if self.phase == "order":  # the upcard is turned down; round 2 from the dealer's left
                self.kitty.append(self.upcard)
                self.upcard = None
                self.phase = "call"
                return
            self._next_hand()  # all passed twice: a void hand, no score
            return
        if words[0] in ("order", "call"):
            self._make(seat, self.turned if words[0] == "order" else words[1], words[-1] == "alone")
            return
        if words[0] == "discard":
            self.hands[seat].remove(words[1])
            self.kitty.append(words[1])
            self._start_play()
            return
        self._play(seat, words[1])

    def _make(self, seat: int, trump: str, alone: bool) -> None:
        self.trump, self.maker, self.alone = trump, seat, alone
        self.out = (seat + 2) % 4 if alone else None
        if self.phase == "order" and self.dealer != self.out:  # the dealer takes the upcard
            self.hands[self.dealer].append(self.upcard)
            self.upcard = None
            self.phase = "discard"
            self.current = self.dealer
            return
        if self.upcard is not None:  # the dealer sits out: the upcard is not taken
            self.kitty.append(self.upcard)
            self.upcard = None
        self._start_play()

    def _start_play(self):
        self.phase = "play"
        self.current = self._next_playing(self.dealer)

    def _play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < (3 if self.alone else 4):
            self.current = self._next_playing(seat)
            return
        winner = trick_winner(self.trick, self.trump)
        self.tricks[winner % 2] += 1
        self.trick = []
        self.current = winner
        if sum(self.tricks) < 5:
            return
        makers = self.maker % 2
        won, lost = hand_points(self.tricks[makers], self.alone)
        self.points[makers] += won
        self.points[1 - makers] += lost
        if max(self.points) >= self.target:
            self.over = True
            return
        self._next_hand()

    def _next_hand(self):
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % 4
        self._start_hand()

    def scores(self) -> list[int]:
        return [self.points[s % 2] for s in range(4)]

    def winners(self) -> list[int]:
        if self.points[0] == self.points[1]:  # (cannot happen at the end: one side scores per hand)
            return [0, 1, 2, 3]
        return list(TEAMS[0 if self.points[0] > self.points[1] else 1])
