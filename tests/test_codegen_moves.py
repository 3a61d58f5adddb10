"""Generated effects that move one card between two zones that are there do it inline (no
helper call, Trumps' speed, issue 32); a card not in the zone it leaves still fails as the
helper says, located, and the state is left as it was."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.errors import DSLRuntimeError

sys.path.insert(0, str(Path(__file__).parent))
from test_turns_passes import HEAD


def _game(tmp_path, effect):
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace("move(card, hand[current_player], table)", effect)
    path = tmp_path / "moves.yaml"
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


def _effect_source(game):
    kind = game.rules.steps[1].kinds[0]
    return game.rules.generated_source.split(f"def {kind.effect.fn.__name__}(")[1].split("\ndef ")[0]


def test_a_card_moved_between_two_zones_is_moved_inline(tmp_path):
    game = _game(tmp_path, "move(card, hand[current_player], table)")
    effect = _effect_source(game)
    assert ".remove(" in effect and ".append(" in effect, effect
    state = game.new_initial_state(seed=1, deals=[[["1", "3", "2"], ["4", "4", "5"]]])
    state.apply_action("play 3")
    assert [game.rules.deck.texts[c] for c in state.table_zones[1]] == ["3"]  # the table (stock is 0)
    assert [a.text for a in state.legal_actions()] == ["play 4", "play 5"]
    state.apply_action("play 4")
    assert sorted(a.text for a in state.legal_actions()) == ["play 1", "play 2"]


@pytest.mark.parametrize(
    "effect, generated",
    [
        ("move(card, table, hand[current_player])", ".remove("),  # a card not in the zone it leaves
        ("move(table[-1], table, hand[current_player])", ".pop())"),  # a draw from an empty zone
    ],
)
def test_a_move_from_the_wrong_zone_fails_as_the_helper_says_located(tmp_path, effect, generated):
    game = _game(tmp_path, effect)
    assert generated in _effect_source(game)
    state = game.new_initial_state(seed=1, deals=[[["1", "3", "2"], ["4", "4", "5"]]])
    before = [a.text for a in state.legal_actions()]
    with pytest.raises(
        DSLRuntimeError, match=r"moves\.yaml:\d+:\d+: .*move\(\): the card is not in the zone it is moved from"
    ):
        state.apply_action("play 3")
    assert [a.text for a in state.legal_actions()] == before
    assert state.history() == []


def test_the_top_card_drawn_is_popped_inline(tmp_path):
    """``move(table[-1], table, hand[me])``, a draw into a zone that is there: popped and
    appended inline, no helper call on the way (Love Letter's draw at every turn)."""
    game = _game(
        tmp_path, "move(card, hand[current_player], table)\n            move(table[-1], table, hand[current_player])"
    )
    effect = _effect_source(game)
    assert ".append(t" in effect and ".pop())" in effect, effect
    state = game.new_initial_state(seed=1, deals=[[["1", "3", "2"], ["4", "4", "5"]]])
    state.apply_action("play 3")  # played, then drawn back: the hand is as before
    assert [game.rules.deck.texts[c] for c in state.seat_zones[0][0]] == ["1", "2", "3"]
    assert state.table_zones[1] == []
