"""Saqqara's `second_fits` (a first placement needs a second to follow) decides exactly as the
lookahead trial it replaced (tests/data/saqqara_lookahead.yaml): the same legal actions at every
decision of random games, every seat count and rule variant, and the same refusals."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

import trickkit

LOOKAHEAD = str(Path(__file__).parent / "data" / "saqqara_lookahead.yaml")

VARIANTS = [
    {},
    {"supply_aware_blocking": True},
    {"stop_at_once": True},
    {"hand_limit": 3, "refill": 1, "target": 10},
    {"reward_cards": 3, "stop_at_once": True, "supply_aware_blocking": True},
]


def _refusal(state: trickkit.State, text: str) -> str:
    try:
        state.apply_action(text)
    except trickkit.IllegalActionError as e:
        return str(e)
    raise AssertionError(f"{text!r} was accepted")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: ",".join(p) or "default")
def test_second_fits_decides_as_the_lookahead(players: int, params: dict[str, Any]) -> None:
    shipped = trickkit.load_game("saqqara", players=players, **params)
    fixture = trickkit.load_game(LOOKAHEAD, players=players, **params)
    assert not any(k.lookahead for st in shipped.rules.steps for k in getattr(st, "kinds", ()))
    decisions = dead_ends = 0
    for seed in range(4):
        rng = random.Random(seed)
        new, old = shipped.new_initial_state(seed=seed), fixture.new_initial_state(seed=seed)
        while not new.is_terminal():
            legal = [a.text for a in new.legal_actions()]
            assert legal == [a.text for a in old.legal_actions()], (seed, new.history())
            decisions += 1
            if legal[0].startswith("place") and new.table_vars[2] == 0:  # `placed`: a first placement
                hand = {shipped.rules.deck.texts[c] for c in new.seat_zones[0][new.current]}
                for card, row, end in itertools.product(sorted(hand), "123", ("left", "right")):
                    text = f"place {card} {row} {end}"
                    if text not in legal:
                        why = _refusal(new.clone(), text)
                        assert why == _refusal(old.clone(), text), text
                        dead_ends += "no way to finish" in why
            action = rng.choice(legal)
            new.apply_action(action)
            old.apply_action(action)
        assert old.is_terminal() and new.observation_all() == old.observation_all()
    assert decisions > 50
    if not params and players < 4:
        assert dead_ends > 0  # the refusal of a dead end was compared, not only the others
