"""Hearts (issue 13): the ruleset plays in lockstep with an independent referee.

The referee (tests/reference/hearts.py, plain Python written from the rules text, no
trickkit code) deals every hand; the engine gets the same deals. Both take the same random
choices; at every step they must agree on the seat to act and on the legal actions,
after every hand on the scores, and on when the game ends and who wins. The rules are
pinned one by one in tests/scenarios/hearts.yaml.
"""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

import pytest

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference import hearts as ref_hearts

MAX_HANDS = 40
"""Deals prepared per game: more than any game can use (each hand adds at least 26 points)."""


@functools.cache
def load(**params) -> trickkit.Game:
    return trickkit.load_game("hearts", **params)


def lockstep(seed: int, limit: int = 100, choose=None) -> tuple[int, int]:
    """Play one game in both; returns (actions, moon shots seen)."""
    rng = random.Random(seed)
    deals = [ref_hearts.deal(rng) for _ in range(MAX_HANDS)]
    ref = ref_hearts.Hearts(deals, limit=limit)
    texts = [[[ref_hearts.card_text(c) for c in hand] for hand in deal] for deal in deals]
    state = load(limit=limit).new_initial_state(seed=seed, deals=texts)
    steps = moons = 0
    hand, last = 0, [0] * 4
    while not ref.is_terminal():
        assert not state.is_terminal(), f"the engine ended the game early, after {steps} actions"
        assert state.current_player() == ref.current, f"seat to act after {steps} actions"
        by_text = {ref_hearts.text(a): a for a in ref.legal_actions()}
        ours = [a.text for a in state.legal_actions()]
        assert ours == list(by_text), f"legal actions after {steps} actions (in deck order)"
        choice = (choose or rng.choice)(sorted(ours))
        ref.apply_action(by_text[choice])
        state.apply_action(choice)
        steps += 1
        if ref.hand_no != hand or ref.is_terminal():  # a hand was scored
            assert state.scores() == ref.scores, f"scores after hand {hand + 1}"
            moons += sum(ref.scores) - sum(last) == 26 * 3
            hand, last = ref.hand_no, list(ref.scores)
    assert state.is_terminal() and state.legal_actions() == []
    assert state.scores() == ref.scores
    assert state.winners() == ref.winners()
    assert any(s >= limit for s in state.scores())
    return steps, moons


@pytest.mark.parametrize("seed", range(10))
def test_hearts_matches_the_referee(seed):
    steps, _ = lockstep(seed)
    assert steps > 13 * 4  # at least a whole hand was played


@pytest.mark.parametrize("limit", [1, 26, 60])
def test_hearts_matches_the_referee_with_other_limits(limit):
    lockstep(100 + limit, limit=limit)


def test_hearts_matches_the_referee_when_seats_duck():
    """Seats that always play their lowest card (of the cards allowed) make other positions:
    long suits, hearts held to the end, leaders holding only hearts."""
    for seed in range(3):
        lockstep(200 + seed, choose=lambda texts: min(texts, key=lambda t: (t.split()[0], _rank(t))))


def _rank(text: str) -> int:
    rank = text.split()[1][1:]
    return {"J": 11, "Q": 12, "K": 13, "A": 14}.get(rank) or int(rank)


@pytest.mark.fuzz
@pytest.mark.parametrize("block", range(10))
def test_hearts_matches_the_referee_long(block):
    for seed in range(1000 + 50 * block, 1050 + 50 * block):
        lockstep(seed)


def test_the_referee_scores_a_moon_shot_and_the_queen():
    """The referee's own rules, on hands built to show them (it is the reference, so it is checked too)."""
    ref = ref_hearts.Hearts([ref_hearts.deal(random.Random(0))] * MAX_HANDS)
    ref.taken = [list(range(26, 39)) + [ref_hearts.QUEEN_OF_SPADES], [], [], []]  # every heart and SQ
    ref._score_hand()
    assert ref.scores == [0, 26, 26, 26]
    ref.taken = [[ref_hearts.QUEEN_OF_SPADES], [26], [27, 28], []]
    ref._score_hand()
    assert ref.scores == [13, 27, 28, 26]
    assert [ref_hearts.card_text(c) for c in (0, 8, 9, 12, 26, 49, 51)] == ["C2", "C10", "CJ", "CA", "H2", "SQ", "SA"]


def test_passed_cards_stay_private():
    """Only the passer sees a passed card: `pass C5` is `pass ?` to the other seats, in the
    action view, the history and the transcript."""
    state = load().new_initial_state(seed=5)
    passer = state.current_player()
    action = state.legal_actions()[0]
    card = action.text.split()[1]
    for other in range(4):
        seen = state.action_seen_by(action, other)
        assert seen == (action.text if other == passer else "pass ?")
    state.apply_action(action)
    for other in range(4):
        assert state.history_seen_by(other) == [action.text if other == passer else "pass ?"]
    told = state.transcript((passer + 1) % 4)
    assert "pass ?" in told and f"pass {card}" not in told
    assert f"pass {card}" in state.transcript(passer)


def test_the_play_screen_shows_other_seats_passes_as_pass_query():
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "trickkit.cli.main", "play", "hearts", "--seat", "2", "--seed", "1"],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert out.count("seat 1: pass ?") == 3  # seat 1 passes first; seat 2 sees none of its cards
    assert not any(line.startswith("seat 1: pass ") and not line.endswith("?") for line in out.splitlines())


def test_a_variant_card_with_negative_points_is_no_penalty_card(tmp_path):
    # issue 30: "no penalty card on the first trick" read `points == 0`, so a variant giving the
    # jack of diamonds -10 points (the Omnibus jack) made it a penalty card: Hearts names them
    variant = tmp_path / "omnibus.yaml"
    variant.write_text("extends: hearts\nname: omnibus\ndeck:\n  $change:\n    6: {attributes: {points: -10}}\n")
    game = trickkit.load_game(variant)
    assert game.cards[game.rules.deck.by_text["DJ"][0]] == "DJ"
    clubs = [f"C{r}" for r in [*range(2, 11), "J", "Q", "K", "A"]]
    hearts = [f"H{r}" for r in [*range(2, 11), "J", "Q", "K", "A"]]
    rest = [c for c in game.cards if c not in clubs + hearts + ["DJ", "SQ"]]
    # after the pass (left): seat 1 holds DJ, SQ and hearts, no club, when seat 0 leads C2
    seat1 = ["DJ", "SQ", *hearts[3:11], "C3", "C4", "C5"]  # passes C3 C4 C5, gets H2 H3 H4
    seat0 = ["C2", *hearts[:3], *clubs[4:13]]  # passes H2 H3 H4, gets three cards of seat 3
    others = [c for c in clubs + hearts + rest if c not in seat0 + seat1 and c not in ("DJ", "SQ")]
    seat2, seat3 = others[:13], others[13:26]
    state = game.new_initial_state(
        seed=1, deals=[[sorted(h, key=game.cards.index) for h in (seat0, seat1, seat2, seat3)]]
    )
    passes = {0: hearts[:3], 1: ["C3", "C4", "C5"], 2: seat2[:3], 3: seat3[:3]}
    while state.legal_actions()[0].text.startswith("pass"):
        state.apply_action(f"pass {passes[state.current_player()].pop()}")
    state.apply_action("play C2")
    assert state.current_player() == 1
    assert [a.text for a in state.legal_actions()] == ["play DJ"]
