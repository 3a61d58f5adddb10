"""Lockstep: the love_letter ruleset plays exactly like the independent model in
tests/reference/love_letter.py, over many random games, and leaks no private reveal.

At every decision both must agree on the seat to act and the legal actions; after every action
on every zone (hands, laid cards, the deck, the set-aside cards), on who is out and protected,
on the tokens, and on what each seat has been shown (``observation(seat)["revealed"]``); at the
end on the winners.

Chance is the deck order of each round, and comes two ways:
- injected: the model shuffles, and the engine is given the same order through
  ``new_initial_state(deals=[{"stock": deck}, ...])`` (the deal gives no cards; the ruleset sets
  aside and draws from the top of the stock);
- mirrored: the engine shuffles, and the model rebuilds the order from the engine's zones at the
  round's start (the set-aside cards, the first draws and the rest of the stock).

No leak: a Priest's reveal is in the player's observation and no one else's; a Baron's
comparison is seen by the two seats only; other hands never show their cards.

This test needs the information-model primitives of issue 29 (deck ``rank_texts`` and
``copies`` per rank, the ``reveal`` effect): until they land in the engine the ruleset does not
load and this test fails.
"""

import functools
import random
import sys
from pathlib import Path

import pytest

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from reference import love_letter as ref

RULESET = "love_letter"


@functools.cache
def load(players: int, **params) -> trickkit.Game:
    return trickkit.load_game(RULESET, players=players, **params)


def zones(state) -> dict:
    z = state.observation_all()["zones"]
    return {
        "hands": [h.get("cards", []) for h in z["hand"]],
        "laid": [h.get("cards", []) for h in z["laid"]],
        "stock": z["stock"].get("cards", []),
        "aside": z["aside"].get("cards", []),
        "aside_up": z["aside_up"].get("cards", []),
    }


def revealed(state, seat: int) -> list[tuple[int, str]]:
    """The other seats' hand cards ``seat`` has been shown, as (holder, card)."""
    seen = state.observation(seat).get("revealed", [])
    return sorted((r["seat"], r["card"]) for r in seen if r["zone"] == "hand")


class EngineChance:
    """The engine's own shuffles, read back from its zones as each round starts."""

    def __init__(self, state):
        self.state = state

    def deck(self, model: ref.LoveLetter) -> list[str]:
        z = zones(self.state)
        starter = model.starter
        hands = z["hands"]
        assert len(hands[starter]) == 2, "the starter has drawn"
        assert all(len(h) == 1 for s, h in enumerate(hands) if s != starter), "one card each"
        first = [h[0] for h in hands]  # the cards drawn before the first turn, seat 0 first
        drawn = hands[starter][1]  # the starter's draw is the last card of its hand
        # top LAST: the face-down card was taken first, then the face-up ones, then the draws
        return z["stock"] + [drawn] + first[::-1] + z["aside_up"][::-1] + z["aside"]


def agree(state, model: ref.LoveLetter, where: str) -> None:
    z = zones(state)
    n = model.n
    assert state.current_player() == model.current, f"seat to act {where}"
    assert sorted(a.text for a in state.legal_actions()) == model.legal_actions(), f"legal actions {where}"
    assert [sorted(h) for h in z["hands"]] == [sorted(h) for h in model.hands], f"hands {where}"
    assert z["laid"] == model.laid, f"laid cards {where}"
    assert (z["stock"], z["aside"], z["aside_up"]) == (model.stock, model.aside, model.aside_up), f"deck {where}"
    variables = state.observation_all()["variables"]
    assert variables["out"] == [not a for a in model.alive], f"seats out {where}"
    assert variables["protected"] == model.protected, f"protection {where}"
    assert state.scores() == model.scores, f"tokens {where}"
    for seat in range(n):
        assert revealed(state, seat) == model.revealed(seat), f"what seat {seat} was shown {where}"
        hands = state.observation(seat)["zones"]["hand"]
        assert all("cards" not in hands[s] or hands[s]["cards"] == [] for s in range(n) if s != seat), (
            f"seat {seat} sees another hand {where}"
        )


def check_reveals(state, model: ref.LoveLetter, actor: int, action: str, hands: list[list[str]], seen: list) -> None:
    """Right after a Priest or Baron: exactly the right seats were shown the cards. ``hands`` and
    ``seen`` (each seat's reveals) are from before the action."""
    words = action.split()
    if len(words) != 3 or words[1] not in ("Priest", "Baron"):
        return
    target = int(words[2])
    kept = list(hands[actor])
    kept.remove(words[1])  # the card the actor keeps
    after = zones(state)["hands"]
    shown = [(actor, target, hands[target][0])]
    if words[1] == "Baron":
        shown.append((target, actor, kept[0]))
    for viewer, holder, card in shown:
        if after[holder]:  # (a Baron's lower card is laid face up: public, no longer a reveal)
            assert (holder, card) in revealed(state, viewer), f"{action}: seat {viewer} sees seat {holder}'s card"
    viewers = {v for v, _, _ in shown}
    for q in range(model.n):
        if q not in viewers:
            assert set(revealed(state, q)) <= set(seen[q]), f"{action}: seat {q} was shown something"


def lockstep(seed: int, players: int, inject: bool, **params) -> int:
    """Play one random game in lockstep; returns the number of actions."""
    rng = random.Random(seed)
    if inject:
        decks = [ref.RandomChance(random.Random(seed * 7 + k)).deck(None) for k in range(60)]
        state = load(players, **params).new_initial_state(seed=seed, deals=[{"stock": d} for d in decks])
        model = ref.LoveLetter(players, ref.FixedChance(decks), **params)
    else:
        state = load(players, **params).new_initial_state(seed=seed)
        model = ref.LoveLetter(players, EngineChance(state), **params)
    steps = 0
    agree(state, model, "at the start")
    while not model.over:
        assert not state.is_terminal(), f"the engine ended the game early, after {steps} actions"
        action = rng.choice(model.legal_actions())
        actor, hands, rounds = model.current, [list(h) for h in model.hands], model.rounds
        seen = [revealed(state, q) for q in range(players)]
        state.apply_action(action)
        model.apply(action)
        steps += 1
        if model.rounds == rounds:  # the same round goes on: the reveals are fresh
            check_reveals(state, model, actor, action, hands, seen)
        if not model.over:
            agree(state, model, f"after {steps} actions ({action})")
        else:
            assert state.scores() == model.scores, "final tokens"
    assert state.is_terminal()
    assert state.winners() == model.winners()
    return steps


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(8))
def test_love_letter_matches_the_model_injected_decks(seed, players):
    lockstep(100 * players + seed, players, inject=True)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_love_letter_matches_the_model_engine_shuffles(seed, players):
    lockstep(900 + 10 * players + seed, players, inject=False)


@pytest.mark.parametrize("players", [2, 4])
def test_a_short_game_by_the_tokens_parameter(players):
    lockstep(31 + players, players, inject=True, tokens=1)
    lockstep(41 + players, players, inject=False, tokens=2)


def test_the_priest_shows_one_seat_only():
    """A fixed round: seat 0's Priest looks at seat 1's King; seats 1 and 2 are shown nothing."""
    deck = ref.make_deck(hands=["Guard", "King", "Baron"], draws=["Priest", "Handmaid"], aside="Princess")
    state = load(3).new_initial_state(seed=1, deals=[{"stock": deck}])
    state.apply_action("play Priest 1")
    assert revealed(state, 0) == [(1, "King")]
    assert revealed(state, 1) == [] and revealed(state, 2) == []
    assert "King" not in str(state.observation(2)) and "King" not in str(state.history_seen_by(2))


def test_the_baron_shows_the_two_seats_only():
    """A fixed round: seat 0's Baron (keeping a Handmaid) against seat 1's Handmaid: a tie, and
    each of the two knows the other's card; seat 2 knows neither."""
    deck = ref.make_deck(hands=["Baron", "Handmaid", "Guard"], draws=["Handmaid"], aside="Princess")
    state = load(3).new_initial_state(seed=2, deals=[{"stock": deck}])
    state.apply_action("play Baron 1")
    assert revealed(state, 0) == [(1, "Handmaid")] and revealed(state, 1) == [(0, "Handmaid")]
    assert revealed(state, 2) == []
    assert "Handmaid" not in str(state.observation(2))
