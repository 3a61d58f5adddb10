"""A ``sits_out`` rule that holds still while the tricks step runs (`trickkit.engine.steady`) is
evaluated once, as the step begins: the generated apply starts later tricks with the winner
alone. Any rule that may change within the step (a zone, the trick, a variable ``after_trick``
names, an aggregate, a rule that charges the budget) is still evaluated at every trick, and
both play as the general path."""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

import pytest
import yaml

import trickkit
from trickkit.dsl.parser import parse
from trickkit.engine.game import Game
from trickkit.engine.steady import names_in, steady

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import general_twin

DOC = {
    "format": 1,
    "name": "steady",
    "title": "Steady",
    "players": {"min": 4, "max": 4, "default": 4},
    "teams": [[0, 2], [1, 3]],
    "parameters": {"alone": {"type": "bool", "default": True}},
    "deck": [{"suit": {"R": "red", "B": "blue", "G": "green"}, "rank": {"from": 1, "to": 8}, "text": "{suit}{rank}"}],
    "zones": {
        "stock": {"owner": "table", "visibility": "hidden"},
        "hand": {"owner": "seat", "visibility": "owner"},
        "taken": {"owner": "seat", "visibility": "public"},
    },
    "table_variables": {"maker": {"initial": 1}, "sizes": {"initial": []}},
    "definitions": {"sits(x)": "alone and x == partner(maker)", "lone": "alone"},
    "round": [
        {"deal": {"count": 3}},
        {"effect": "maker = (maker + 1) % 4"},
        {
            "tricks": {
                "count": 3,
                "must_play_if_able": "len(trick) == 0 or card.suit == trick[0].suit",
                "winner": "highest(p for p in trick if p.suit == trick[0].suit by p.rank)",
                "taken_to": "taken",
                "after_trick": "sizes = sizes + [len(trick)]",
                "sits_out": "SITS",
            }
        },
    ],
    "game_over": "round == 3",
    "score": "0",
}


def _game(tmp_path, sits: str) -> Game:
    doc = copy.deepcopy(DOC)
    doc["round"][2]["tricks"]["sits_out"] = sits
    path = tmp_path / "steady.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return trickkit.load_game(str(path))


def _apply_source(game: Game) -> str:
    source = game.rules.generated_source
    name = game.rules.steps[2].fused_apply.__name__
    start = source.index(f"def {name}(")
    return source[start : source.index("\ndef ", start + 1)]


@pytest.mark.parametrize(
    "sits, held",
    [
        ("sits(seat)", True),  # variables after_trick never names, a parameter, a definition, seat arithmetic
        ("lone and seat == (dealer + 2) % num_players", True),
        ("seat == 3 and round > 1", True),
        ("seat == len(sizes) % 4", False),  # after_trick writes sizes
        ("len(hand[seat]) == 0", False),  # a zone: cards leave hands during the step
        ("len(trick) > 9 and seat == 1", False),
        ("seat == current_player", False),
        ("any(s == seat for s in [1])", False),  # an aggregate (charged to the budget)
        ("seat in [1]", False),  # a membership test (charged too)
    ],
)
def test_a_sitting_rule_is_steady_only_when_nothing_in_the_step_can_change_it(tmp_path, sits, held):
    game = _game(tmp_path, sits)
    apply = _apply_source(game)
    assert ("sits_out" not in apply) == held  # steady: no sits_out evaluation in the generated apply
    twin = general_twin(game)  # the general path, which evaluates it at every trick
    for seed in range(8):
        a, b, rng = game.new_initial_state(seed), twin.new_initial_state(seed), random.Random(seed)
        while not a.is_terminal():
            legal = [x.text for x in a.legal_actions()]
            assert legal == [x.text for x in b.legal_actions()]
            assert a.current_player() == b.current_player()
            action = rng.choice(legal)
            a.apply_action(action)
            b.apply_action(action)
            assert a.seating == b.seating and a.budget == b.budget
        assert a.to_json() == b.to_json()


def test_the_steadiness_test_follows_definitions_and_knows_the_names_a_block_writes(tmp_path):
    _game(tmp_path, "sits(seat)")
    compiler = trickkit.load_game(str(tmp_path / "steady.yaml"), coverage=True).rules.compiler  # (kept with coverage)
    assert compiler is not None
    written = frozenset(names_in(parse("sizes = sizes + [len(trick)]", "block")))
    assert {"sizes", "trick", "len"} <= written
    seat = frozenset({"seat"})
    assert steady(compiler, parse("sits(seat)"), seat, written)
    assert not steady(compiler, parse("sits(seat)"), seat, frozenset({"maker"}))  # a variable the step writes
    assert not steady(compiler, parse("unknown_name == seat"), seat, written)
    assert not steady(compiler, parse("abs(seat) == 1"), seat, written)  # functions: seat arithmetic only
