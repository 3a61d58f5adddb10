"""Differential tests: the YAML rulesets play exactly like the hand-coded reference simulators.

The references (tests/reference/, plain Python written from the rulebooks, sharing no code
with trickkit) deal the cards; the engine gets the same deals, both make the same random
choices, and at every step they must agree on whose turn it is and on the legal actions,
and at the end on the scores.  (Saqqara has its own lockstep test against an independent
model: tests/test_saqqara_model.py.)
"""

import functools
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference import sarkophag, skull_king


@functools.cache
def load(name: str, **params) -> trickkit.Game:
    return trickkit.load_game(name, **params)


def _sarkophag_game(seed: int, players: int, free_after_break: bool) -> None:
    rng = random.Random(seed)
    hands = sarkophag.deal(rng, players, 10)
    ref = sarkophag.Sarkophag(hands, dealer=0, free_after_break=free_after_break)
    game = load("sarkophag", players=players, free_after_break=free_after_break)
    state = game.new_initial_state(seed=seed, deals=[[[str(c) for c in h] for h in hands]])
    plays = 0
    while not ref.is_terminal():
        assert not state.is_terminal()
        assert state.current_player() == ref.current, f"seat to play after {plays} cards"
        ours = sorted(int(a.text.split()[1]) for a in state.legal_actions())
        assert ours == sorted(ref.legal_actions()), f"legal cards after {plays} cards"
        card = rng.choice(ours)
        ref.apply_action(card)
        state.apply_action(f"play {card}")
        plays += 1
    assert state.is_terminal()
    assert state.scores() == ref.heads


@pytest.mark.parametrize("seed", range(30))
def test_sarkophag_matches_reference(seed):
    _sarkophag_game(seed, players=4, free_after_break=False)


@pytest.mark.parametrize(("players", "free_after_break"), [(3, False), (5, True), (6, False), (4, True)])
@pytest.mark.parametrize("seed", range(3))
def test_sarkophag_matches_reference_other_tables(seed, players, free_after_break):
    _sarkophag_game(100 + seed, players, free_after_break)


def _skull_king_game(seed: int, players: int, rounds: int) -> None:
    rng = random.Random(seed)
    deals = [skull_king.deal_round(rng, players, r) for r in range(1, rounds + 1)]
    ref = skull_king.SkullKing(deals)
    game = load("skull_king", players=players, rounds=rounds)
    texts = [[[skull_king.card_text(c) for c in hand] for hand in deal] for deal in deals]
    state = game.new_initial_state(seed=seed, deals=texts)
    steps = 0
    while not ref.is_terminal():
        assert not state.is_terminal()
        assert state.current_player() == ref.current, f"seat to act after {steps} actions"
        by_text = {skull_king.text(a): a for a in ref.legal_actions()}
        ours = sorted(a.text for a in state.legal_actions())
        assert ours == sorted(by_text), f"legal actions after {steps} actions"
        choice = rng.choice(ours)
        ref.apply_action(by_text[choice])
        state.apply_action(choice)
        steps += 1
    assert state.is_terminal()
    assert state.scores() == ref.scores


@pytest.mark.parametrize("seed", range(12))
def test_skull_king_matches_reference(seed):
    _skull_king_game(seed, players=4, rounds=10)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_skull_king_matches_reference_other_tables(players):
    _skull_king_game(200 + players, players, rounds=10)


def test_the_references_follow_the_rulebook_examples():
    """The references themselves reproduce the rulebooks' worked examples."""
    # Sarkophag: "Nico ... plays the 22. Clemens plays the 20 ... Henrik ... the 14.
    # Daniel plays his 15 ... Henrik ... has to take the trick with its 10 mummy heads."
    ref = sarkophag.Sarkophag([[22, 1], [20, 2], [14, 3], [15, 4]], dealer=3)
    for card in (22, 20, 14, 15):
        ref.apply_action(card)
    assert ref.heads == [0, 0, 10, 0] and ref.current == 2
    # "Clemens ... plays the 9. Henrik plays the 8 ... Daniel ... plays the 36 ... Nico
    # ... his 35 ... Daniel ... has to take the trick (with 9 mummy heads)".
    ref = sarkophag.Sarkophag([[9, 1], [8, 2], [36, 3], [35, 10]], dealer=3)
    assert ref.legal_actions() == [9, 1]
    for card in (9, 8, 36):
        ref.apply_action(card)
    assert ref.legal_actions() == [35, 10]  # nothing under 9: either card
    ref.apply_action(35)
    assert ref.heads == [0, 0, 9, 0]
    # A 5-head card may not lead unless the hand holds only such cards.
    assert sarkophag.Sarkophag([[15, 16], [1], [2], [3]], dealer=3).legal_actions() == [16]
    assert sarkophag.Sarkophag([[15, 25], [1], [2], [3]], dealer=3).legal_actions() == [15, 25]
    # Skull King: "David bids 3 tricks and wins exactly 3, he receives 60 points";
    # "Simon bids 5 ... wins 1 ... -40"; "4th round, Eloise bids 0 ... 40"; "9th round,
    # David bids 0, but wins 2 ... -90".
    assert skull_king.round_score(3, 3, 3, 0) == 60
    assert skull_king.round_score(5, 5, 1, 0) == -40
    assert skull_king.round_score(4, 0, 0, 0) == 40
    assert skull_king.round_score(9, 0, 2, 0) == -90
    card = {skull_king.card_text(c): c for c in range(skull_king.DECK_SIZE)}
    # The Skull King takes two pirates (Scary Mary as an escape counts): 60 bonus; a
    # mermaid in the same trick captures him instead (50).
    assert skull_king.trick_result([card["pirate"], card["skull_king"], skull_king.TIGRESS_ESCAPE]) == (1, 60)
    assert skull_king.trick_result([card["skull_king"], card["pirate"], card["mermaid"]]) == (2, 50)
    # Black beats the suit led; a special card led lets the next suit card set the suit.
    assert skull_king.trick_result([card["escape"], card["G3"], card["G9"], card["Y13"]]) == (2, 0)
    assert skull_king.trick_result([card["G3"], card["B1"], card["G13"]]) == (1, 0)
    assert skull_king.trick_result([card["escape"], skull_king.TIGRESS_ESCAPE]) == (0, 0)
    # Following: a seat holding the suit led plays it or a special card.
    hand = [card["G3"], card["Y5"], card["pirate"], card["tigress"]]
    assert skull_king.playable(hand, 0) == [card["G3"], card["pirate"], card["tigress"], skull_king.TIGRESS_ESCAPE]
    assert skull_king.playable(hand, 3) == hand + [skull_king.TIGRESS_ESCAPE]


@pytest.mark.parametrize(
    "script", ["sarkophag.py", "skull_king.py", "saqqara.py", "crazy_eights.py", "six_nimmt.py", "hearts.py"]
)
def test_reference_scripts_report_their_speed(script):
    """``bench.py --baselines`` runs each reference as a script and reads this line."""
    path = Path(__file__).parent / "reference" / script
    out = subprocess.run(
        [sys.executable, str(path), "--games", "3", "--mode", "api", "--players", "3"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    fields = dict(re.findall(r"(\w+)=([0-9.]+)", out))
    assert set(fields) == {"games_per_s", "actions_per_s"}
    assert float(fields["games_per_s"]) > 0 and float(fields["actions_per_s"]) > float(fields["games_per_s"])
