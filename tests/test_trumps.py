"""Trumps specifics that scenarios cannot check: observations and action texts.

The Empress (III) makes every hand public; otherwise hands are private, the draw pile is
hidden and only the top card of a trump stack shows.  Every legal action text parses back.
(The generic property tests cover card conservation, termination and round trips.)
Seed 7189 draws W6 C1 C6 S2 S4 C8 ... first (see tests/scenarios/trumps_rulebook.yaml).
"""

from __future__ import annotations

import random

import pytest

from trickkit import load_game

SEED = 7189
SUITS = ["choose swords", "choose cups", "choose wands"]


def _game(**params):
    params.setdefault("players", 3)
    params.setdefault("single_game", True)
    params.setdefault("hand_size", 3)
    return load_game("trumps", **params)


def _state(hands, actions, **params):
    state = _game(**params).new_initial_state(seed=SEED, deals=[hands])
    for text in SUITS + list(actions):
        state.apply_action(text)
    return state


def _hand_seen(state, viewer, seat):
    """The cards of ``seat``'s hand as ``viewer`` sees them, or None when hidden."""
    zone = state.observation(viewer)["zones"]["hand"][seat]
    return sorted(zone["cards"]) if "cards" in zone else None


def _hand_true(state, seat):
    return sorted(state.observation_all()["zones"]["hand"][seat]["cards"])


HANDS = [["T3", "T1", "S5"], ["C3", "C4", "C5"], ["W4", "W7", "W8"]]


def test_hands_private_without_the_empress():
    state = _state(HANDS, ["draw", "play T1", "draw", "play C3", "draw", "play W4"])
    for viewer in range(3):
        for seat in range(3):
            seen = _hand_seen(state, viewer, seat)
            if seat == viewer:
                assert seen == _hand_true(state, seat)
            else:
                assert seen is None, (viewer, seat)
            assert state.observation(viewer)["zones"]["hand"][seat]["count"] == len(_hand_true(state, seat))


def test_the_empress_shows_every_hand_to_everyone():
    state = _state(HANDS, ["draw", "play T3"])
    assert state.current_player() == 1
    for viewer in range(3):
        for seat in range(3):
            assert _hand_seen(state, viewer, seat) == _hand_true(state, seat), (viewer, seat)
    # seat 0 holds T1 S5 W6 (W6 drawn): everyone sees it
    assert _hand_seen(state, 2, 0) == ["S5", "T1", "W6"]


def test_the_empress_while_pending_does_not_open_hands_yet():
    # seat 1 holds a face-up court, so seat 1 may cancel the Empress while it is pending
    hands = [["SK", "T3", "S5"], ["CQ", "C4", "C5"], ["W4", "W7", "W8"]]
    state = _state(
        hands, ["draw", "play SK", "draw", "play CQ", "pass", "draw", "play W4", "pass", "pass", "draw", "play T3"]
    )
    assert state.current_player() == 1  # seat 1 decides on a cancel
    assert _hand_seen(state, 1, 0) is None
    state.apply_action("cancel CQ")  # cancelled: no effect, hands stay private
    assert _hand_seen(state, 1, 0) is None
    assert _hand_seen(state, 2, 1) is None


def test_the_empress_buried_or_silenced_hides_hands_again():
    # buried: seat 0 plays T1 on top of its Empress
    state = _state(HANDS, ["draw", "play T3", "draw", "play C3", "draw", "play W4"])
    assert _hand_seen(state, 1, 0) == _hand_true(state, 0)
    state.apply_action("draw")
    state.apply_action("play T1")
    assert _hand_seen(state, 1, 0) is None
    assert _hand_seen(state, 0, 2) is None
    # silenced: the Emperor on another seat's stack
    hands = [["T3", "T1", "S5"], ["T4", "C4", "C5"], ["W4", "W7", "W8"]]
    state = _state(hands, ["draw", "play T3", "draw"])
    assert _hand_seen(state, 2, 1) == _hand_true(state, 1)
    state.apply_action("play T4")
    for viewer in range(3):
        for seat in range(3):
            if seat != viewer:
                assert _hand_seen(state, viewer, seat) is None, (viewer, seat)


def test_trump_stack_shows_only_its_top_and_the_draw_pile_is_hidden():
    state = _state(HANDS, ["draw", "play T1", "draw", "play C3", "draw", "play W4", "draw", "play T3"])
    for viewer in range(3):
        zones = state.observation(viewer)["zones"]
        assert zones["trumps"][0]["count"] == 2
        assert zones["trumps"][0]["top"] == "T3"
        assert "cards" not in zones["trumps"][0]
        assert "T1" not in repr(zones["trumps"])
        assert zones["stock"]["count"] == 78 - 9 - 4
        assert "cards" not in zones["stock"]
        # suit stacks: top only
        assert zones["stacks"][1] == {"count": 1, "top": "C3"}


def test_court_face_state_is_public_and_face_down_cards_hidden():
    hands = [["SK", "S5", "S6"], ["CQ", "C3", "C4"], ["W4", "W7", "W8"]]
    state = _state(hands, ["draw", "play SK", "draw", "play CQ", "pass", "draw", "play W4", "pass", "cancel CQ"])
    for viewer in range(3):
        zones = state.observation(viewer)["zones"]
        assert zones["court_up"][0]["cards"] == ["SK"]
        assert zones["court_up"][1]["cards"] == []
        assert zones["court_down"][1]["count"] == 1
        assert "cards" not in zones["court_down"][1]
        assert zones["pending"]["cards"] == []


def test_world_stack_shows_only_its_top():
    hands = [["T21", "T10", "T1"], ["C3", "C4", "C5"], ["W4", "W7", "W8"]]
    state = _state(hands, ["draw", "play T21", "draw", "play C3", "draw", "play W4", "draw", "world T10"])
    zones = state.observation(2)["zones"]
    assert zones["world"][0]["count"] == 2 and zones["world"][0]["top"] == "T10"
    assert "T21" not in repr(zones["world"])
    assert zones["trumps"][0] == {"count": 0, "top": None}


MAX_LEGAL = 400  # e.g. 9 cards x 7 seats (priestess) + lovers over 16 courts: far fewer


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_random_play_every_legal_text_parses_back(players):
    game = load_game("trumps", players=players, single_game=True)
    for seed in range(3):
        rng = random.Random(seed * 31 + players)
        state = game.new_initial_state(seed=seed)
        steps = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal, "a live state must offer an action"
            assert len(legal) <= MAX_LEGAL
            texts = [a.text for a in legal]
            assert len(set(texts)) == len(texts), "legal action texts must be distinct"
            for text in texts:
                trial = state.clone()
                trial.apply_action(text)  # the text alone is enough to act
            state.apply_action(rng.choice(texts))
            steps += 1
            assert steps < 5000
        assert set(state.winners()) <= set(range(players))


def test_random_play_reaches_every_power_with_parsable_texts():
    """Bias random play towards trumps and powers, so the power texts are exercised."""
    game = load_game("trumps", players=4, single_game=True, hand_size=9)
    seen = set()
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            texts = [a.text for a in state.legal_actions()]
            for text in texts:
                trial = state.clone()
                trial.apply_action(text)
            powers = [t for t in texts if t.split()[0] not in ("play", "draw", "pass", "choose", "discard")]
            trumps = [t for t in texts if t.startswith("play T")]
            pick = powers or trumps or texts
            text = rng.choice(pick)
            seen.add(text.split()[0])
            state.apply_action(text)
    assert {"magician", "wheel", "hanged", "death", "tower", "cancel"} & seen
