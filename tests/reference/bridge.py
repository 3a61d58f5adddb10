"""An independent model of duplicate bridge, written from The Laws of Duplicate Bridge (World
Bridge Federation) and the contract of issue 29 (its ``bridge`` section). It shares no code
with trickkit; tests play it in lockstep with the engine's ``bridge`` ruleset, and
tests/test_bridge_scoring.py checks its scoring against worked examples.

Seats: 0 North, 1 East, 2 South, 3 West; 0 and 2 (side 0, NS) against 1 and 3 (side 1, EW).
Board k (from 1) is dealt by seat (k - 1) % 4, with the vulnerability of the 16-board cycle.

Actions are texts: ``bid LS`` (level 1-7, strain C D H S N: ``bid 1C``, ``bid 3N``),
``pass``, ``double``, ``redouble`` in the auction, then ``play CARD``. On dummy's turns
the declarer acts: ``current`` is the declarer and the card is one of dummy's.

Readings where the contract's words need one:
- the auction ends when a bid has been made and the last three calls are passes (three
  consecutive passes after any call that follows a bid: ``1H X P P P`` ends it);
- ``double`` is legal when the last bid was made by an opponent and stands undoubled,
  ``redouble`` when the last bid was made by one's own side and stands doubled (not
  redoubled); a new bid cancels both;
- no seat but dummy sees dummy's hand before the opening lead (declarer included, as in
  Law 41); from the opening lead on, every seat sees it.
"""

from __future__ import annotations

from .cards52 import follow, trick_winner

STRAINS = ("C", "D", "H", "S", "N")
CALLS = tuple(f"{level}{strain}" for level in range(1, 8) for strain in STRAINS)
SIDES = ((0, 2), (1, 3))
SEAT_NAMES = ("North", "East", "South", "West")

# The standard 16-board cycle: which sides are vulnerable on board k is VULNERABLE[(k-1) % 16].
_CYCLE = ("None", "NS", "EW", "Both", "NS", "EW", "Both", "None",
          "EW", "Both", "None", "NS", "Both", "None", "NS", "EW")  # fmt: skip


def side_of(seat: int) -> int:
    return seat % 2


def dealer_of(board: int) -> int:
    return (board - 1) % 4


def vulnerability(board: int) -> str:
    """``None``, ``NS``, ``EW`` or ``Both`` for board ``board`` (from 1)."""
    return _CYCLE[(board - 1) % 16]


def vulnerable(board: int, side: int) -> bool:
    v = vulnerability(board)
    return v == "Both" or v == ("NS", "EW")[side]


# --- scoring -------------------------------------------------------------------------------


def trick_points(level: int, strain: str, doubled: int = 0) -> int:
    """Points for the contracted tricks (above the book of six), with the double applied."""
    if strain in ("C", "D"):
        base = 20 * level
    elif strain in ("H", "S"):
        base = 30 * level
    else:
        base = 40 + 30 * (level - 1)
    return base * (1, 2, 4)[doubled]


def undertrick_penalty(down: int, doubled: int, vul: bool) -> int:
    """What the defenders score when the contract fails by ``down`` tricks."""
    if doubled == 0:
        return down * (100 if vul else 50)
    total = 0
    for k in range(1, down + 1):
        if vul:
            total += 200 if k == 1 else 300
        else:
            total += 100 if k == 1 else 200 if k <= 3 else 300
    return total * doubled  # redoubled: twice the doubled figure


def board_score(level: int, strain: str, doubled: int, vul: bool, tricks: int) -> int:
    """The duplicate score of one played board, from the declaring side's point of view.

    ``tricks`` is the number of tricks the declaring side took (0-13); ``doubled`` 0, 1 or 2
    (redoubled). A negative result is what the defenders score.
    """
    assert 1 <= level <= 7 and strain in STRAINS and doubled in (0, 1, 2) and 0 <= tricks <= 13
    need = level + 6
    if tricks < need:
        return -undertrick_penalty(need - tricks, doubled, vul)
    points = trick_points(level, strain, doubled)
    score = points
    score += (500 if vul else 300) if points >= 100 else 50  # game or part score
    if level == 6:
        score += 750 if vul else 500
    elif level == 7:
        score += 1500 if vul else 1000
    score += (0, 50, 100)[doubled]  # for making a doubled / redoubled contract
    over = tricks - need
    if doubled == 0:
        score += over * (20 if strain in ("C", "D") else 30)
    else:
        score += over * (200 if vul else 100) * doubled
    return score


# --- the game ------------------------------------------------------------------------------


class Bridge:
    """A game of ``boards`` boards; ``deals[k]`` is every seat's 13 cards for board k + 1."""

    def __init__(self, deals, boards: int = 4):
        assert len(deals) >= boards
        self.deals, self.boards = deals, boards
        self.points = [0, 0]  # NS, EW
        self.results: list[dict] = []  # one per board: contract, declarer, tricks, score
        self.board = 1
        self.over = False
        self._start_board()

    # board set-up
    def _start_board(self):
        self.hands = [list(h) for h in self.deals[self.board - 1]]
        assert len({c for h in self.hands for c in h}) == 52
        assert all(len(h) == 13 for h in self.hands)
        self.dealer = dealer_of(self.board)
        self.phase = "auction"
        self.calls: list[tuple[int, str]] = []
        self.last_bid: int | None = None  # index in CALLS
        self.last_bidder: int | None = None
        self.doubled = 0
        self.passes = 0  # consecutive passes
        self.contract: str | None = None
        self.declarer: int | None = None
        self.dummy: int | None = None
        self.trick: list[tuple[int, str]] = []
        self.won = [0, 0]  # tricks per side this board
        self.lead_made = False
        self.to_play = self.dealer  # whose call or card is due
        self.current = self.dealer  # who chooses it

    # auction
    def _auction_actions(self) -> list[str]:
        seat = self.current
        start = 0 if self.last_bid is None else self.last_bid + 1
        acts = ["pass"] + [f"bid {c}" for c in CALLS[start:]]
        if self.last_bid is not None:
            opponents = side_of(self.last_bidder) != side_of(seat)
            if opponents and self.doubled == 0:
                acts.append("double")
            if not opponents and self.doubled == 1:
                acts.append("redouble")
        return acts

    def _call(self, action: str) -> None:
        seat = self.current
        self.calls.append((seat, action))
        if action == "pass":
            self.passes += 1
        else:
            self.passes = 0
            if action == "double":
                self.doubled = 1
            elif action == "redouble":
                self.doubled = 2
            else:
                self.last_bid = CALLS.index(action.split()[1])
                self.last_bidder = seat
                self.doubled = 0
        if self.last_bid is None and self.passes == 4:
            self.results.append({"board": self.board, "contract": None, "score": 0})
            self._next_board()
            return
        if self.last_bid is not None and self.passes == 3:
            self._end_auction()
            return
        self.to_play = self.current = (seat + 1) % 4

    def _end_auction(self) -> None:
        self.contract = CALLS[self.last_bid]
        strain = self.contract[-1]
        side = side_of(self.last_bidder)
        self.declarer = next(
            s for s, a in self.calls if side_of(s) == side and a.startswith("bid ") and a[-1] == strain
        )
        self.dummy = (self.declarer + 2) % 4
        self.phase = "play"
        self._due((self.declarer + 1) % 4)

    # play
    def _due(self, seat: int) -> None:
        self.to_play = seat
        self.current = self.declarer if seat == self.dummy else seat

    @property
    def trump(self) -> str | None:
        strain = self.contract[-1]
        return None if strain == "N" else strain

    def legal_actions(self) -> list[str]:
        if self.over:
            return []
        if self.phase == "auction":
            return sorted(self._auction_actions())
        return sorted(f"play {c}" for c in follow(self.hands[self.to_play], self.trick))

    def apply(self, action: str) -> None:
        assert action in self.legal_actions(), (action, self.legal_actions())
        if self.phase == "auction":
            self._call(action)
            return
        seat = self.to_play
        card = action.split()[1]
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self.lead_made = True
        if len(self.trick) < 4:
            self._due((seat + 1) % 4)
            return
        winner = trick_winner(self.trick, self.trump)
        self.won[side_of(winner)] += 1
        self.trick = []
        if any(self.hands):
            self._due(winner)
            return
        self._score_board()

    def _score_board(self) -> None:
        side = side_of(self.declarer)
        level, strain = int(self.contract[0]), self.contract[1]
        score = board_score(level, strain, self.doubled, vulnerable(self.board, side), self.won[side])
        if score > 0:
            self.points[side] += score
        else:
            self.points[1 - side] -= score
        self.results.append(
            {
                "board": self.board,
                "contract": self.contract + ("", "X", "XX")[self.doubled],
                "declarer": self.declarer,
                "tricks": self.won[side],
                "score": score,
            }
        )
        self._next_board()

    def _next_board(self) -> None:
        if self.board == self.boards:
            self.over = True
            self.current = self.to_play = -1
            self.phase = "over"
            return
        self.board += 1
        self._start_board()

    # what a seat may see
    def dummy_shown(self) -> bool:
        return self.phase == "play" and self.lead_made

    def visible_hands(self, viewer: int) -> dict[int, list[str]]:
        """The hands ``viewer`` may see now, by seat: its own, and dummy's from the opening lead."""
        seen = {viewer: sorted(self.hands[viewer])}
        if self.dummy is not None and self.dummy_shown():
            seen[self.dummy] = sorted(self.hands[self.dummy])
        return seen

    # results
    def scores(self) -> list[int]:
        return [self.points[side_of(s)] for s in range(4)]

    def winners(self) -> list[int]:
        if self.points[0] == self.points[1]:
            return [0, 1, 2, 3]
        return list(SIDES[0 if self.points[0] > self.points[1] else 1])
