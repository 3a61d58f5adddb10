"""The Love Letter referee model (tests/reference/love_letter.py) on hand-built situations.

Each test restates one rule of the contract in issue 29 (and docs/games/love_letter.md) and
checks the model obeys it. These tests use no trickkit code: they pin the model that the
engine's ruleset is then played against (tests/test_love_letter_model.py).
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from reference import love_letter as ref
from reference.love_letter import FixedChance, LoveLetter, make_deck

GUESSES = ["Baron", "Countess", "Handmaid", "King", "Priest", "Prince", "Princess"]


def three(hands, stock=("Guard", "Guard", "Priest"), **kw) -> LoveLetter:
    """A 3-seat round in progress: seat 0 (or ``current``) has drawn."""
    kw.setdefault("aside", [])
    return LoveLetter.at(hands=hands, stock=list(stock), **kw)


# -- the round's set-up -----------------------------------------------------------------------
def test_two_seats_set_aside_one_face_down_and_three_face_up():
    deck = make_deck(
        hands=["Guard", "Priest"], draws=["Baron"], aside="Princess", aside_up=["King", "Countess", "Handmaid"]
    )
    game = LoveLetter(2, FixedChance([deck]))
    assert game.aside == ["Princess"] and game.aside_up == ["King", "Countess", "Handmaid"]
    assert game.current == 0 and game.hands == [["Guard", "Baron"], ["Priest"]]
    assert len(game.stock) == 16 - 1 - 3 - 2 - 1
    # the face-up cards are public; the face-down one is in nobody's view
    assert game.view(1)["aside_up"] == ["King", "Countess", "Handmaid"]
    assert "Princess" not in str(game.view(0)) and "Princess" not in str(game.view(1))


def test_more_seats_set_aside_one_card_only():
    deck = make_deck(hands=["Guard", "Priest", "Baron", "King"], draws=["Prince"], aside="Princess")
    game = LoveLetter(4, FixedChance([deck]))
    assert game.aside == ["Princess"] and game.aside_up == []
    assert game.hands == [["Guard", "Prince"], ["Priest"], ["Baron"], ["King"]]
    assert len(game.stock) == 16 - 1 - 4 - 1


def test_default_token_goal_by_seats():
    assert [LoveLetter(n).goal for n in (2, 3, 4)] == [7, 5, 4]
    assert LoveLetter(3, tokens=2).goal == 2


# -- Guard ---------------------------------------------------------------------------------
def test_guard_guess_that_hits_puts_the_target_out():
    game = three([["Guard", "Handmaid"], ["Priest"], ["Baron"]])
    legal = game.legal_actions()
    assert legal == sorted([f"play Guard {t} {g}" for t in (1, 2) for g in GUESSES] + ["play Handmaid"])
    assert "play Guard 1 Guard" not in legal and "play Guard 0 Priest" not in legal  # no Guard guess, no self
    game.apply("play Guard 1 Priest")
    assert not game.alive[1] and game.laid[1] == ["Priest"] and game.hands[1] == []  # laid face up
    assert game.current == 2  # seat 1 is skipped from now on
    assert game.hands[2] == ["Baron", "Priest"]  # seat 2 drew the top card ("Priest" is last)


def test_guard_guess_that_misses_does_nothing():
    game = three([["Guard", "Handmaid"], ["Priest"], ["Baron"]])
    game.apply("play Guard 1 Baron")
    assert all(game.alive) and game.hands[1][0] == "Priest" and game.laid[0] == ["Guard"]
    assert game.current == 1


# -- Priest ----------------------------------------------------------------------------------
def test_priest_shows_the_target_hand_to_the_player_only():
    game = three([["Priest", "Guard"], ["King"], ["Baron"]])
    game.apply("play Priest 1")
    assert game.revealed(0) == [(1, "King")]
    assert game.revealed(1) == [] and game.revealed(2) == []
    assert "King" not in str(game.view(2)) and "King" not in str(game.view(1)["revealed"])
    # the knowledge lasts while the card stays: seat 1 draws, plays its other card ...
    assert game.current == 1 and sorted(game.hands[1]) == ["King", "Priest"]
    game.apply("play Priest 2")
    assert game.revealed(0) == [(1, "King")] and game.revealed(1) == [(2, "Baron")]


def test_a_seen_card_is_forgotten_when_it_leaves_the_hand():
    game = three([["Priest", "Guard"], ["King"], ["Baron"]], stock=["Guard", "Guard", "Priest"])
    game.apply("play Priest 1")
    game.apply("play King 2")  # seat 1 swaps its King away: seat 0 forgets it
    assert game.revealed(0) == []


# -- Baron -----------------------------------------------------------------------------------
def test_baron_the_lower_card_goes_out_and_only_the_two_see():
    game = three([["Baron", "Guard"], ["King"], ["Priest"]])
    game.apply("play Baron 1")  # Guard (1) against King (6): the player is out
    assert not game.alive[0] and game.laid[0] == ["Baron", "Guard"]
    assert game.revealed(0) == [(1, "King")] and game.revealed(1) == []  # seat 1 saw the Guard, now laid
    assert game.revealed(2) == []


def test_baron_the_target_goes_out_when_lower():
    game = three([["Baron", "Princess"], ["King"], ["Priest"]])
    game.apply("play Baron 2")
    assert game.alive == [True, True, False] and game.laid[2] == ["Priest"]
    assert game.revealed(0) == [] and game.revealed(1) == []  # the Priest is laid face up, nothing private left
    assert game.revealed(2) == [(0, "Princess")]  # seat 2 saw the Princess; nobody else did
    assert "Princess" not in str(game.view(1))


def test_baron_equal_cards_nothing_happens_but_both_have_seen():
    game = three([["Baron", "Handmaid"], ["Handmaid"], ["Priest"]])
    game.apply("play Baron 1")
    assert all(game.alive)
    assert game.revealed(0) == [(1, "Handmaid")] and game.revealed(1) == [(0, "Handmaid")]
    assert game.revealed(2) == []


# -- Handmaid --------------------------------------------------------------------------------
def test_handmaid_protects_until_the_next_turn():
    game = three([["Handmaid", "Guard"], ["Priest"], ["Baron"]], stock=["Guard", "Prince", "King", "Guard"])
    game.apply("play Handmaid")
    assert game.protected == [True, False, False]
    assert game.current == 1 and game.hands[1] == ["Priest", "Guard"]
    assert all(" 0" not in a for a in game.legal_actions())  # seat 0 cannot be targeted
    game.apply("play Guard 2 Prince")
    assert game.hands[2] == ["Baron", "King"]
    assert "play King 0" not in game.legal_actions() and "play King 1" in game.legal_actions()
    game.apply("play Baron 1")  # seat 2 keeps the King (6) against seat 1's Priest (2)
    assert game.alive == [True, False, True]
    assert game.current == 0 and game.protected == [False, False, False]  # its own turn: protection ends


# -- Prince ----------------------------------------------------------------------------------
def test_prince_on_oneself_with_the_princess_puts_oneself_out():
    game = three([["Prince", "Princess"], ["Priest"], ["Baron"]])
    assert game.legal_actions() == ["play Prince 0", "play Prince 1", "play Prince 2", "play Princess"]
    game.apply("play Prince 0")
    assert not game.alive[0] and game.laid[0] == ["Prince", "Princess"] and game.hands[0] == []
    assert len(game.stock) == 2  # seat 0 drew nothing; seat 1 drew one
    assert game.current == 1


def test_prince_on_another_discards_and_draws():
    game = three([["Prince", "Guard"], ["Countess"], ["Baron"]], stock=["Guard", "Guard", "King"])
    game.apply("play Prince 1")
    assert game.laid[1] == ["Countess"] and sorted(game.hands[1]) == ["Guard", "King"]  # drew the King, then a Guard
    assert game.laid_total(1) == 7


def test_prince_when_the_deck_is_empty_takes_the_set_aside_card():
    # seat 0 has drawn the last card; its Prince makes seat 1 discard and take the set-aside card
    game = LoveLetter.at(hands=[["Prince", "Guard"], ["Baron"]], stock=[], aside=["Princess"], aside_up=["Guard"] * 3)
    game.apply("play Prince 1")
    # the round ends after this turn (the deck is empty): seat 1 wins, so it holds the Princess,
    # which only the set-aside card was; seat 0 holds a Guard
    assert game.round_winners == [1] and game.scores == [0, 1] and game.rounds == 1


# -- King ------------------------------------------------------------------------------------
def test_king_swaps_hands():
    game = three([["King", "Guard"], ["Princess"], ["Baron"]])
    game.apply("play King 1")
    assert game.hands[0] == ["Princess"] and game.hands[1][0] == "Guard"


# -- Countess --------------------------------------------------------------------------------
def test_countess_is_forced_with_a_king_or_a_prince():
    assert three([["Countess", "King"], ["Priest"], ["Baron"]]).legal_actions() == ["play Countess"]
    assert three([["Prince", "Countess"], ["Priest"], ["Baron"]]).legal_actions() == ["play Countess"]
    free = three([["Countess", "Handmaid"], ["Priest"], ["Baron"]]).legal_actions()
    assert free == ["play Countess", "play Handmaid"]
    game = three([["Countess", "Princess"], ["Priest"], ["Baron"]])
    assert game.legal_actions() == ["play Countess", "play Princess"]
    game.apply("play Princess")  # playing the Princess puts the player out
    assert not game.alive[0] and game.laid[0] == ["Princess", "Countess"]


# -- no valid target -------------------------------------------------------------------------
def test_no_valid_target_plays_with_no_target_and_the_prince_takes_oneself():
    kw = {"out": [2], "protected": [1], "laid": [[], ["Handmaid"], ["Guard"]]}
    for card in ("Guard", "Priest", "Baron", "King"):
        game = three([[card, "Prince"], ["Countess"], []], **kw)
        assert game.legal_actions() == [f"play {card}", "play Prince 0"]
    game = three([["Guard", "Baron"], ["Priest"], []], **kw)
    game.apply("play Guard")  # nothing happens
    assert all(game.hands[s] for s in (0, 1)) and game.alive == [True, True, False]
    game = three([["Baron", "Guard"], ["Princess"], []], **kw)
    game.apply("play Baron")  # no comparison: the Guard is safe
    assert game.alive[0] and game.revealed(0) == [] and game.revealed(1) == []


# -- round end ----------------------------------------------------------------------------------
def test_one_seat_left_wins_the_round_and_starts_the_next():
    deck = make_deck(hands=["Guard", "Guard", "Guard"], draws=["Handmaid"], aside="Princess")
    game = three([["Guard", "Handmaid"], ["Priest"], []], out=[2], laid=[[], [], ["Guard"]], chance=FixedChance([deck]))
    game.apply("play Guard 1 Priest")
    assert game.round_winners == [0] and game.scores == [1, 0, 0] and game.rounds == 1
    # a new round: all three back in, the winner starts (and has drawn)
    assert all(game.alive) and game.current == 0 and game.hands == [["Guard", "Handmaid"], ["Guard"], ["Guard"]]
    assert game.laid == [[], [], []]


def test_empty_deck_highest_card_wins():
    game = three([["Guard", "Handmaid"], ["Priest"], ["Baron"]], stock=[])
    game.apply("play Guard 1 Baron")
    assert game.round_winners == [0] and game.scores == [1, 0, 0]  # Handmaid 4 > Baron 3 > Priest 2


def test_empty_deck_equal_cards_higher_laid_total_wins():
    laid = [["Priest"], ["Guard"], ["Baron", "Guard"]]
    game = three([["Guard", "Prince"], ["Priest"], ["Prince"]], stock=[], laid=laid)
    game.apply("play Guard 1 Baron")  # seat 0: Prince, laid 2 + 1 = 3; seat 2: Prince, laid 3 + 1 = 4
    assert game.round_winners == [2] and game.scores == [0, 0, 1]
    assert game.starter == 2 and game.current == 2


def test_empty_deck_still_equal_all_tied_seats_win_and_the_lowest_starts():
    laid = [["Baron"], ["Guard"], ["Baron", "Guard"]]
    game = three([["Guard", "Prince"], ["Priest"], ["Prince"]], stock=[], laid=laid, scores=[1, 1, 1])
    game.apply("play Guard 1 Baron")  # seat 0: 3 + 1 = 4; seat 2: 3 + 1 = 4
    assert game.round_winners == [0, 2] and game.scores == [2, 1, 2]
    assert game.current == 0


def test_the_next_round_is_started_by_the_previous_winner():
    game = LoveLetter.at(hands=[["Princess"], ["Guard", "Handmaid"], ["Baron"]], stock=[], aside=["Guard"], current=1)
    game.apply("play Guard 2 Baron")  # seat 2 out; seat 0 (Princess) beats seat 1 (Handmaid)
    assert game.round_winners == [0] and game.current == 0
    game = three([["Guard", "Handmaid"], ["Priest"], ["Princess"]], stock=[])
    game.apply("play Guard 1 Priest")  # seat 2 wins with the Princess
    assert game.round_winners == [2] and game.current == 2 and len(game.hands[2]) == 2


# -- game end ------------------------------------------------------------------------------------
def test_the_game_ends_at_the_token_goal():
    game = LoveLetter.at(hands=[["Guard", "Priest"], ["Baron"]], stock=[], aside=["Guard"], scores=[6, 6])
    assert game.goal == 7
    game.apply("play Guard 1 King")  # a miss; then seat 0's Priest loses to the Baron
    assert game.over and game.scores == [6, 7] and game.winners() == [1] and game.legal_actions() == []
    laid = [["Baron"], [], ["Baron", "Guard"]]
    game = three([["Guard", "Prince"], ["Priest"], ["Prince"]], stock=[], laid=laid, scores=[4, 0, 4])
    game.apply("play Guard 1 Baron")  # seats 0 and 2 tie and both reach 5
    assert game.over and game.winners() == [0, 2]


def test_random_games_end_with_every_card_accounted_for():
    for seed in range(60):
        rng = random.Random(seed)
        game = LoveLetter(2 + seed % 3, ref.RandomChance(rng))
        while not game.over:
            zones = [*game.hands, game.stock, game.aside, game.aside_up, *game.laid]
            assert sorted(c for z in zones for c in z) == sorted(ref.DECK)
            assert all(len(game.hands[s]) == (2 if s == game.current else int(game.alive[s])) for s in range(game.n))
            game.apply(rng.choice(game.legal_actions()))
        assert max(game.scores) == game.goal and game.winners()
