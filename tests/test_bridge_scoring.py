"""The bridge referee model (tests/reference/bridge.py) on its own, without trickkit.

Its duplicate scoring is checked against worked examples of the standard duplicate scoring
table (The Laws of Duplicate Bridge, World Bridge Federation, Law 77), and its auction,
declarer, dummy and vulnerability against small hand-made boards. These tests do not load
the engine: they pin the referee that tests/test_bridge_model.py plays the ruleset against.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reference import bridge
from reference.cards52 import DECK

NV, V = False, True


@pytest.mark.parametrize(
    ("contract", "vul", "tricks", "expected"),
    [
        # undoubled, made: part scores (trick points + 50)
        ("1C", NV, 7, 70),
        ("1C", NV, 8, 90),
        ("1D", V, 7, 70),
        ("1N", NV, 7, 90),
        ("1N", NV, 9, 150),
        ("2H", NV, 8, 110),
        ("2S", V, 9, 140),
        ("3D", NV, 9, 110),
        ("4C", V, 10, 130),
        ("2N", NV, 8, 120),
        # games: 300 not vulnerable, 500 vulnerable
        ("3N", NV, 9, 400),
        ("3N", NV, 10, 430),
        ("3N", V, 9, 600),
        ("3N", V, 10, 630),
        ("4S", NV, 10, 420),
        ("4H", NV, 11, 450),
        ("4S", V, 10, 620),
        ("5C", NV, 11, 400),
        ("5D", NV, 12, 420),
        ("5D", V, 11, 600),
        # slams
        ("6S", NV, 12, 980),
        ("6N", NV, 12, 990),
        ("6H", V, 12, 1430),
        ("6N", V, 13, 1470),
        ("7C", NV, 13, 1440),
        ("7N", NV, 13, 1520),
        ("7S", V, 13, 2210),
        ("7N", V, 13, 2220),
        # doubled, made: trick points x2, 50 for the insult, overtricks 100 / 200
        ("1C X", NV, 7, 140),
        ("1N X", NV, 7, 180),
        ("1N X", V, 7, 180),
        ("1N X", NV, 8, 280),
        ("1N X", V, 8, 380),
        ("2D X", NV, 8, 180),
        ("2H X", NV, 8, 470),
        ("2H X", V, 8, 670),
        ("3N X", NV, 9, 550),
        ("3N X", V, 9, 750),
        ("4S X", NV, 10, 590),
        ("4S X", V, 10, 790),
        ("4H X", V, 11, 990),
        ("6S X", V, 12, 1660),
        ("7N X", V, 13, 2490),
        # redoubled, made: trick points x4, 100 for the insult, overtricks 200 / 400
        ("1C XX", NV, 7, 230),
        ("2C XX", NV, 8, 560),
        ("1N XX", NV, 7, 560),
        ("1N XX", V, 7, 760),
        ("1N XX", NV, 8, 760),
        ("1N XX", V, 8, 1160),
        ("7N XX", NV, 13, 2280),
        ("7N XX", V, 13, 2980),
        # undoubled, down: 50 / 100 a trick to the defenders
        ("3N", NV, 8, -50),
        ("4S", NV, 7, -150),
        ("4H", V, 9, -100),
        ("6C", V, 8, -400),
        # doubled, down: not vulnerable 100, 200, 200, then 300 each; vulnerable 200, then 300
        ("2S X", NV, 7, -100),
        ("1N X", NV, 5, -300),
        ("3N X", NV, 6, -500),
        ("4S X", NV, 6, -800),
        ("5C X", NV, 6, -1100),
        ("7N X", NV, 0, -3500),
        ("2S X", V, 7, -200),
        ("3H X", V, 7, -500),
        ("4S X", V, 7, -800),
        ("4S X", V, 6, -1100),
        ("7N X", V, 0, -3800),
        # redoubled, down: twice the doubled figures
        ("2S XX", NV, 7, -200),
        ("2S XX", NV, 6, -600),
        ("2S XX", NV, 5, -1000),
        ("4S XX", NV, 6, -1600),
        ("2S XX", V, 7, -400),
        ("2S XX", V, 6, -1000),
        ("2S XX", V, 5, -1600),
        ("7N XX", V, 0, -7600),
    ],
)
def test_duplicate_score_worked_examples(contract, vul, tricks, expected):
    call, _, dbl = contract.partition(" ")
    doubled = {"": 0, "X": 1, "XX": 2}[dbl]
    assert bridge.board_score(int(call[0]), call[1], doubled, vul, tricks) == expected


@pytest.mark.parametrize("doubled", [0, 1, 2])
@pytest.mark.parametrize("vul", [NV, V])
@pytest.mark.parametrize("call", bridge.CALLS)
def test_more_tricks_never_score_less(call, vul, doubled):
    level, strain = int(call[0]), call[1]
    scores = [bridge.board_score(level, strain, doubled, vul, t) for t in range(14)]
    assert scores == sorted(scores)
    assert scores[level + 5] < 0 < scores[level + 6]  # one short fails, exactly made scores
    assert all(s % 10 == 0 for s in scores)


def test_trick_points_and_game_threshold():
    assert [bridge.trick_points(level, "N") for level in (1, 2, 3)] == [40, 70, 100]
    assert bridge.trick_points(4, "H") == bridge.trick_points(4, "S") == 120
    assert bridge.trick_points(5, "C") == bridge.trick_points(5, "D") == 100
    assert bridge.trick_points(4, "C") == 80  # 4C is a part score ...
    assert bridge.trick_points(4, "C", 1) == 160  # ... unless doubled


def test_vulnerability_cycle_and_dealers():
    cycle = [bridge.vulnerability(k) for k in range(1, 17)]
    assert cycle == ["None", "NS", "EW", "Both", "NS", "EW", "Both", "None",
                     "EW", "Both", "None", "NS", "Both", "None", "NS", "EW"]  # fmt: skip
    assert [bridge.vulnerability(k) for k in (17, 18, 32)] == ["None", "NS", "EW"]
    assert [bridge.dealer_of(k) for k in range(1, 10)] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert bridge.vulnerable(2, 0) and not bridge.vulnerable(2, 1)
    assert bridge.vulnerable(4, 0) and bridge.vulnerable(4, 1)
    assert not bridge.vulnerable(1, 0) and not bridge.vulnerable(1, 1)


# --- the game model on hand-made boards ---------------------------------------------------

# North all clubs, East all diamonds, South all hearts, West all spades: no seat ever
# follows suit, so a trump (if any) or else the card led takes every trick.
BY_SUIT = [list(DECK[13 * s : 13 * (s + 1)]) for s in range(4)]


def _game(calls, boards=1):
    game = bridge.Bridge([BY_SUIT] * boards, boards=boards)
    for call in calls:
        game.apply(call)
    return game


def test_opening_calls():
    game = _game([])
    assert game.current == 0  # board 1: North deals and calls first
    acts = game.legal_actions()
    assert len(acts) == 36 and "pass" in acts and "bid 1C" in acts and "bid 7N" in acts
    assert "double" not in acts and "redouble" not in acts


def test_bids_must_outrank_and_doubles_follow_the_sides():
    game = _game(["bid 1S"])  # North
    acts = game.legal_actions()  # East, an opponent
    assert "bid 1S" not in acts and "bid 1H" not in acts and "bid 1N" in acts and "bid 2C" in acts
    assert "double" in acts and "redouble" not in acts
    game.apply("pass")  # East
    assert "double" not in game.legal_actions()  # South: partner's bid may not be doubled
    game.apply("pass")
    game.apply("double")  # West doubles North's 1S two calls after it
    acts = game.legal_actions()  # North: own side's doubled bid
    assert "redouble" in acts and "double" not in acts
    game.apply("pass")
    acts = game.legal_actions()  # East: the opponents' bid, already doubled
    assert "redouble" not in acts and "double" not in acts
    game.apply("pass")
    game.apply("redouble")  # South may still redouble
    acts = game.legal_actions()  # West
    assert "redouble" not in acts and "double" not in acts
    game.apply("bid 2C")  # a new bid cancels the doubles
    assert game.doubled == 0 and "double" in game.legal_actions() and game.phase == "auction"


def test_three_passes_after_a_double_end_the_auction():
    game = _game(["bid 1H", "double", "pass", "pass"])
    assert game.phase == "auction"
    game.apply("pass")
    assert game.phase == "play" and game.contract == "1H" and game.doubled == 1
    assert game.declarer == 0 and game.dummy == 2 and game.current == 1


def test_declarer_is_the_first_of_the_side_to_name_the_strain():
    # N 1C, E pass, S 1H, W pass, N 2H, all pass: South named hearts first
    game = _game(["bid 1C", "pass", "bid 1H", "pass", "bid 2H", "pass", "pass", "pass"])
    assert (game.contract, game.declarer, game.dummy) == ("2H", 2, 0)
    assert game.current == 3  # West, left of declarer, leads
    # the opponents' earlier hearts bid does not count
    game = _game(["pass", "bid 1H", "bid 2H", "pass", "pass", "pass"])
    assert (game.contract, game.declarer) == ("2H", 2)


def test_four_passes_pass_the_board_out():
    game = _game(["pass", "pass", "pass"], boards=2)
    assert game.board == 1 and game.legal_actions()[0] == "bid 1C"
    game.apply("pass")
    assert game.board == 2 and game.current == 1 and game.phase == "auction"  # East deals board 2
    assert game.scores() == [0, 0, 0, 0] and game.results[0]["contract"] is None
    for _ in range(4):
        game.apply("pass")
    assert game.over and game.winners() == [0, 1, 2, 3] and game.legal_actions() == []


def test_declarer_plays_dummys_cards_and_dummy_shows_after_the_lead():
    game = _game(["pass", "pass", "bid 7H", "pass", "pass", "pass"])  # South declares 7H
    assert (game.declarer, game.dummy, game.current) == (2, 0, 3)
    for viewer in range(4):  # before the opening lead, only North sees North's hand
        assert (0 in game.visible_hands(viewer)) == (viewer == 0)
    game.apply("play SA")  # West leads
    assert game.to_play == 0 and game.current == 2  # dummy's card, chosen by declarer
    assert game.legal_actions() == sorted(f"play {c}" for c in BY_SUIT[0])
    for viewer in range(4):
        assert game.visible_hands(viewer)[0] == sorted(game.hands[0])
        assert set(game.visible_hands(viewer)) == {viewer, 0}
    game.apply("play C2")
    assert game.current == 1
    game.apply("play D2")
    game.apply("play H2")  # South ruffs and wins
    assert game.won == [1, 0] and game.current == 2 and game.to_play == 2
    while not game.over:
        game.apply(game.legal_actions()[0])
    assert game.results[0] == {"board": 1, "contract": "7H", "declarer": 2, "tricks": 13, "score": 1510}
    assert game.scores() == [1510, 0, 1510, 0] and game.winners() == [0, 2]


def test_no_trump_the_card_led_wins_and_defenders_score_the_undertricks():
    # board 2 (NS vulnerable, East deals): South declares 1N doubled; West leads and keeps the lead
    game = bridge.Bridge([BY_SUIT, BY_SUIT], boards=2)
    for _ in range(4):
        game.apply("pass")
    for call in ["pass", "bid 1N", "double", "pass", "pass", "pass"]:
        game.apply(call)
    assert (game.board, game.declarer, game.dummy, game.current, game.doubled) == (2, 2, 0, 3, 1)
    while not game.over:
        game.apply(game.legal_actions()[0])
    assert game.results[1]["tricks"] == 0 and game.results[1]["score"] == -(200 + 300 * 6)
    assert game.points == [0, 2000]  # 1NT doubled vulnerable, down 7, to the defenders
    assert game.scores() == [0, 2000, 0, 2000] and game.winners() == [1, 3]
