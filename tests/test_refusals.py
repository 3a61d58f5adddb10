"""Refusals of huge action texts are short: the text is quoted by its start and its length."""

from __future__ import annotations

import pytest

import trickkit
from trickkit.engine.actions import QUOTE_LIMIT, quote_action

HUGE = 1_000_000
TEXTS = [
    "play " + "x" * HUGE,
    "x" * HUGE,
    "bid " + "9" * HUGE,
    "take 1" + " 1" * (HUGE // 2),
    "\x1b[2J" * (HUGE // 4),
    "play " + "é" * HUGE,
]


@pytest.mark.parametrize("game", trickkit.list_games())
@pytest.mark.parametrize("text", TEXTS, ids=["play-x", "x", "bid-9", "take-1s", "escapes", "accents"])
def test_huge_refused_text_gives_a_short_message(game, text):
    state = trickkit.load_game(game).new_initial_state(seed=1)
    before = state.to_json()
    with pytest.raises(trickkit.IllegalActionError) as info:
        state.apply_action(text)
    message = str(info.value)
    assert len(message) < 4 * QUOTE_LIMIT + 400, message[:500]
    assert f"({len(text)} characters)" in message
    assert "\x1b" not in message
    assert state.to_json() == before


def test_short_texts_are_quoted_whole():
    assert quote_action("play G7") == "'play G7'"
    assert quote_action("a" * QUOTE_LIMIT) == repr("a" * QUOTE_LIMIT)
    assert quote_action("a" * (QUOTE_LIMIT + 1)) == f"{'a' * QUOTE_LIMIT!r}… ({QUOTE_LIMIT + 1} characters)"
