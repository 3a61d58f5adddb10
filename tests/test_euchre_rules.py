"""The independent Euchre model (tests/reference/euchre.py) on hand-built situations: bowers,
following with the left bower, making in two rounds, the dealer's pick-up, going alone,
scoring, void hands and the end of the game. No trickkit here: these pin the model that
tests/test_euchre_model.py then plays in lockstep with the engine."""

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from reference import euchre
from reference.euchre import Euchre, effective_suit, playable, power, trick_winner

# A deal: every seat's five cards and the kitty (the upcard last). Seat 0 deals, seat 1 leads.
HANDS = [
    ["C9", "C10", "CQ", "D9", "D10"],  # seat 0, the dealer
    ["HJ", "DJ", "HA", "SA", "S9"],  # seat 1
    ["H9", "H10", "HQ", "HK", "CA"],  # seat 2
    ["CJ", "SJ", "CK", "DQ", "DK"],  # seat 3
]
KITTY = ["S10", "SQ", "SK", "DA"]  # DA is turned up


def game(hands=HANDS, kitty=KITTY, target=10, more=0):
    rng = random.Random(7)
    return Euchre([(hands, kitty)] + [euchre.deal(rng) for _ in range(more)], target=target)


def play(g, *actions):
    for a in actions:
        g.apply(a)
    return g


def test_the_deck_has_24_cards_nine_to_ace():
    assert len(euchre.DECK) == 24
    assert {c[1:] for c in euchre.DECK} == {"9", "10", "J", "Q", "K", "A"}
    hands, kitty = euchre.deal(random.Random(1))
    assert [len(h) for h in hands] == [5, 5, 5, 5] and len(kitty) == 4
    assert sorted([c for h in hands for c in h] + kitty) == sorted(euchre.DECK)


def test_bowers_rank_above_every_trump():
    order = ["HJ", "DJ", "HA", "HK", "HQ", "H10", "H9"]
    assert sorted(order, key=lambda c: -power(c, "H")) == order
    assert power("DJ", "H") > power("HA", "H") > power("SA", "H")  # the left bower beats the ace of trump
    assert effective_suit("DJ", "H") == "H" and effective_suit("DJ", "S") == "D"
    assert effective_suit("CJ", "S") == "S" and effective_suit("SJ", "C") == "C"
    # a plain suit ranks A K Q J 10 9 (its jack in the middle when not a bower)
    plain = ["SA", "SK", "SQ", "SJ", "S10", "S9"]
    assert sorted(plain, key=lambda c: -power(c, "H")) == plain


def test_the_left_bower_wins_as_a_trump_and_loses_to_the_right():
    assert trick_winner([(0, "HA"), (1, "DJ"), (2, "HK"), (3, "H9")], "H") == 1
    assert trick_winner([(0, "DJ"), (1, "HJ"), (2, "HA"), (3, "DA")], "H") == 1
    # the left bower led is a trump lead: the ace of its printed suit does not win
    assert trick_winner([(0, "DJ"), (1, "DA"), (2, "C9"), (3, "H9")], "H") == 0
    # no trump: the highest card of the suit led, a card of another suit never wins
    assert trick_winner([(0, "S9"), (1, "CA"), (2, "S10"), (3, "DA")], "H") == 2


def test_following_with_the_left_bower():
    hand = ["DJ", "D9", "CA"]
    # hearts trump: the jack of diamonds follows a heart lead, and must (it is the only heart)
    assert playable(hand, [(0, "HA")], "H") == ["DJ"]
    # a diamond lead: the jack of diamonds is a heart now, it cannot follow diamonds
    assert playable(hand, [(0, "DA")], "H") == ["D9"]
    # the left bower led asks for trump: a hand with no heart but the jack of hearts' twin plays anything
    assert playable(["D9", "CA"], [(0, "DJ")], "H") == ["D9", "CA"]
    assert playable(["D9", "H9"], [(0, "DJ")], "H") == ["H9"]
    # other trump suits: the jack of diamonds is a plain diamond
    assert playable(hand, [(0, "DA")], "S") == ["DJ", "D9"]


def test_round_one_order_the_dealer_picks_up_and_discards():
    g = game()
    assert g.current == 1 and g.legal_actions() == ["order", "order alone", "pass"]
    play(g, "pass", "order")  # seat 2 orders diamonds (the upcard's suit)
    assert g.trump == "D" and g.maker == 2 and not g.alone
    assert g.current == 0 and "DA" in g.hands[0] and len(g.hands[0]) == 6
    assert g.legal_actions() == sorted(f"discard {c}" for c in HANDS[0] + ["DA"])
    play(g, "discard C9")
    assert len(g.hands[0]) == 5 and "C9" in g.kitty
    assert g.current == 1 and g.phase == "play"  # the dealer's left leads


def test_round_two_cannot_name_the_turned_down_suit():
    g = play(game(), "pass", "pass", "pass", "pass")
    assert g.phase == "call" and g.current == 1 and g.upcard is None
    legal = g.legal_actions()
    assert "pass" in legal and "call H alone" in legal and "call C" in legal
    assert not any(a.startswith("call D") for a in legal)
    assert len(legal) == 7
    play(g, "pass", "call S")
    assert g.trump == "S" and g.maker == 2 and g.phase == "play"
    assert all(len(h) == 5 for h in g.hands)  # nobody picks up in round 2
    assert g.current == 1


def test_a_void_hand_passes_the_deal_without_score():
    g = game(more=1)
    play(g, *["pass"] * 8)
    assert g.points == [0, 0] and not g.over
    assert g.dealer == 1 and g.hand_no == 1 and g.current == 2 and g.phase == "order"


def test_the_dealer_sitting_out_does_not_pick_up():
    g = play(game(), "pass", "order alone")  # seat 2 alone: its partner, the dealer, sits out
    assert g.alone and g.out == 0
    assert g.phase == "play" and g.current == 1
    assert "DA" not in g.hands[0] and len(g.hands[0]) == 5
    assert not any(a.startswith("discard") for a in g.legal_actions())


def test_alone_tricks_of_three_skip_the_partner_and_the_lead_passes_on():
    g = play(game(), "order alone")  # seat 1 orders alone: seat 3 sits out; dealer 0 picks up
    assert g.out == 3 and g.current == 0
    play(g, "discard C9")
    assert g.current == 1
    play(g, "play HJ")  # a trump lead (the left bower, hearts' jack, with diamonds trump)
    assert g.current == 2
    play(g, "play H9")
    assert g.current == 0  # seat 3 is skipped
    play(g, "play D9")
    assert g.trick == [] and g.tricks == [0, 1] and g.current == 1  # three cards made the trick
    assert len(g.hands[3]) == 5


def test_the_lead_passes_over_a_sitting_leader():
    g = play(game(), "pass", "pass", "pass", "pass", "pass", "call H alone")  # seat 2 alone, seat 0 sits
    assert g.out == 0 and g.current == 1  # the dealer's left leads anyway
    g = play(game(), "pass", "pass", "pass", "pass", "pass", "pass", "call C alone")  # seat 3 alone
    assert g.out == 1 and g.current == 2  # the dealer's left sits out: the next seat leads


def test_scoring_a_hand():
    assert euchre.hand_points(3, False) == (1, 0)
    assert euchre.hand_points(4, True) == (1, 0)
    assert euchre.hand_points(5, False) == (2, 0)
    assert euchre.hand_points(5, True) == (4, 0)
    assert euchre.hand_points(2, False) == (0, 2)
    assert euchre.hand_points(0, True) == (0, 2)


def _play_out(g, choose):
    while g.phase == "play" and not g.over and g.hand_no == 0:
        g.apply(choose(g))


def test_alone_march_scores_4():
    # seat 1 goes alone in hearts with both bowers, the ace, king and queen: all five tricks
    hands = [
        ["C9", "C10", "CQ", "D9", "D10"],
        ["HJ", "DJ", "HA", "HK", "HQ"],
        ["H9", "S10", "SQ", "SK", "CA"],
        ["CJ", "SJ", "CK", "DQ", "DK"],
    ]
    kitty = ["H10", "S9", "SA", "DA"]
    g = play(game(hands, kitty, more=1), "pass", "pass", "pass", "pass", "call H alone")
    assert g.out == 3
    _play_out(g, lambda g: g.legal_actions()[0])
    assert g.points == [0, 4] and g.scores() == [0, 4, 0, 4]


def test_euchred_makers_give_the_defenders_2():
    # the dealer holds the five highest spades: whoever orders spades, seats 0 and 2 take every trick
    hands = [
        ["SJ", "CJ", "SA", "SK", "SQ"],  # the dealer holds the top five trumps
        ["HJ", "DJ", "HA", "HK", "HQ"],
        ["H9", "H10", "D9", "D10", "CA"],
        ["C9", "C10", "CQ", "DQ", "DK"],
    ]
    kitty = ["CK", "DA", "S10", "S9"]
    g = play(game(hands, kitty, more=1), "pass", "order")
    assert g.trump == "S" and g.maker == 2
    play(g, "discard S9")
    _play_out(g, lambda g: g.legal_actions()[0])
    assert g.hand_no == 1 and g.points == [2, 0]  # the dealer's trumps: a march, 2 to the makers (0 and 2)

    g = play(game(hands, kitty, more=1), "order")  # seat 1 orders spades against the dealer's trumps
    play(g, "discard S9")
    _play_out(g, lambda g: g.legal_actions()[0])
    assert g.hand_no == 1 and g.points == [2, 0]  # euchred: 2 to the defenders (0 and 2)


def test_the_game_ends_at_target_and_both_partners_win():
    rng = random.Random(3)
    deals = [euchre.deal(rng) for _ in range(80)]
    for seed in range(30):
        g = Euchre(deals, target=5)
        pick = random.Random(seed)
        while not g.over:
            g.apply(pick.choice(g.legal_actions()))
        assert max(g.points) >= 5 and min(g.points) < 5
        assert g.winners() in ([0, 2], [1, 3])
        assert g.scores()[g.winners()[0]] == max(g.points)
        assert g.legal_actions() == []


@pytest.mark.parametrize("seed", range(20))
def test_random_hands_keep_five_cards_and_the_sitting_partner_never_plays(seed):
    rng = random.Random(seed)
    g = Euchre([euchre.deal(rng) for _ in range(60)], target=3)
    pick = random.Random(seed)
    while not g.over:
        if g.phase == "play":
            assert g.current != g.out
            assert len(g.trick) < (3 if g.alone else 4)
            if g.out is not None:
                assert len(g.hands[g.out]) == 5  # its cards never move
            if not g.trick and sum(g.tricks) == 0:
                assert all(len(h) == 5 for h in g.hands)  # the dealer's discard restored five
        g.apply(pick.choice(g.legal_actions()))
