"""An independent model of partnership Spades, written from the standard rules (as in
Hoyle's Rules of Games and Pagat.com's description) and the readings of
docs/games/spades.md. It shares no code with trickkit; tests play it in lockstep with the
engine's ``spades`` ruleset. Seats 0 and 2 are partners against 1 and 3.

Actions are texts: ``bid N`` (0 is nil) and ``play CARD``.
"""

from .cards52 import follow, suit, trick_winner

TEAMS = ((0, 2), (1, 3))


class Spades:
    """A game in progress; ``deals[h]`` is every seat's 13 cards for hand h."""

    def __init__(self, deals, target: int = 500, floor: int = -500):
        self.deals, self.target, self.floor = deals, target, floor
        self.points = [0, 0]
        self.bags = [0, 0]
        self.hand_no = 0
        self.dealer = 0
        self.over = False
        self._start_hand()

    def _start_hand(self):
        self.hands = [list(h) for h in self.deals[self.hand_no]]
        self.bids = [None] * 4
        self.taken = [0] * 4
        self.trick = []
        self.broken = False
        self.bidding = True
        self.current = (self.dealer + 1) % 4

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        if self.bidding:
            return [f"bid {b}" for b in range(14)]
        hand = self.hands[self.current]
        if not self.trick and not self.broken:
            others = [c for c in hand if suit(c) != "S"]
            if others:  # spades may not be led until broken, unless only spades are held
                return [f"play {c}" for c in others]
        return [f"play {c}" for c in follow(hand, self.trick)]

    def apply(self, action: str) -> None:
        assert action in self.legal_actions(), action
        verb, arg = action.split()
        seat = self.current
        if verb == "bid":
            self.bids[seat] = int(arg)
            self.current = (seat + 1) % 4
            self.bidding = self.current != (self.dealer + 1) % 4
            return
        self.hands[seat].remove(arg)
        self.trick.append((seat, arg))
        if len(self.trick) < 4:
            self.current = (seat + 1) % 4
            return
        winner = trick_winner(self.trick, "S")
        if any(suit(c) == "S" for _, c in self.trick):
            self.broken = True
        self.taken[winner] += 1
        self.trick = []
        self.current = winner
        if any(self.hands):
            return
        self._score_hand()

    def _score_hand(self):
        for t, members in enumerate(TEAMS):
            bidders = [s for s in members if self.bids[s] > 0]
            contract = sum(self.bids[s] for s in bidders)
            made = sum(self.taken[s] for s in bidders)  # a nil bidder's tricks never count
            if made >= contract:
                self.points[t] += 10 * contract + (made - contract)
                self.bags[t] += made - contract
            else:
                self.points[t] -= 10 * contract
            for s in members:
                if self.bids[s] == 0:
                    self.points[t] += 100 if self.taken[s] == 0 else -100
            while self.bags[t] >= 10:
                self.points[t] -= 100
                self.bags[t] -= 10
        if any(p >= self.target or p <= self.floor for p in self.points):
            self.over = True
            return
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % 4
        self._start_hand()

    def scores(self) -> list[int]:
        return [self.points[s % 2] for s in range(4)]

    def winners(self) -> list[int]:
        if self.points[0] == self.points[1]:
            return [0, 1, 2, 3]
        t = 0 if self.points[0] > self.points[1] else 1
        return list(TEAMS[t])
