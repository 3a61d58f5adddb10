"""An independent model of Oh Hell, written from the standard rules (as in Hoyle's Rules of
Games and Pagat.com's description) and the readings of docs/games/oh_hell.md. It shares
no code with trickkit; tests play it in lockstep with the engine's ``oh_hell`` ruleset.

Actions are texts: ``bid N`` and ``play CARD``.
"""

from .cards52 import follow, suit, trick_winner


def hand_sizes(players: int, max_cards: int = 0, sequence: str = "up_down") -> list[int]:
    """Cards per seat in each hand of a game."""
    most = 52 // players if max_cards == 0 else min(max_cards, 52 // players)
    up = list(range(1, most + 1))
    if sequence == "up":
        return up
    if sequence == "down":
        return up[::-1]
    return up + up[-2::-1]


class OhHell:
    """A game in progress. ``deals[h]`` is (hands per seat, stock with its top card last)."""

    def __init__(self, players: int, deals, max_cards: int = 0, sequence: str = "up_down"):
        self.n = players
        self.sizes = hand_sizes(players, max_cards, sequence)
        self.deals = deals
        self.scores = [0] * players
        self.hand_no = 0
        self.dealer = 0
        self.over = False
        self._start_hand()

    def _start_hand(self):
        hands, stock = self.deals[self.hand_no]
        self.size = self.sizes[self.hand_no]
        self.hands = [list(h) for h in hands]
        self.trump = suit(stock[-1]) if stock else None  # the turned-up card; none from an empty stock
        self.bids = [None] * self.n
        self.taken = [0] * self.n
        self.trick = []
        self.bidding = True
        self.current = (self.dealer + 1) % self.n

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        if self.bidding:
            bids = range(self.size + 1)
            if self.current == self.dealer:  # the hook: the total may not equal the tricks
                made = sum(b for b in self.bids if b is not None)
                bids = [b for b in bids if made + b != self.size]
            return [f"bid {b}" for b in bids]
        return [f"play {c}" for c in follow(self.hands[self.current], self.trick)]

    def apply(self, action: str) -> None:
        assert action in self.legal_actions(), action
        verb, arg = action.split()
        seat = self.current
        if verb == "bid":
            self.bids[seat] = int(arg)
            self.current = (seat + 1) % self.n
            if self.current == (self.dealer + 1) % self.n:
                self.bidding = False  # the dealer's left leads
            return
        self.hands[seat].remove(arg)
        self.trick.append((seat, arg))
        if len(self.trick) < self.n:
            self.current = (seat + 1) % self.n
            return
        winner = trick_winner(self.trick, self.trump)
        self.taken[winner] += 1
        self.trick = []
        self.current = winner
        if any(self.hands):
            return
        for s in range(self.n):
            if self.taken[s] == self.bids[s]:
                self.scores[s] += 10 + self.bids[s]
        self.hand_no += 1
        if self.hand_no == len(self.sizes):
            self.over = True
            return
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand()

    def winners(self) -> list[int]:
        best = max(self.scores)
        return [s for s in range(self.n) if self.scores[s] == best]
