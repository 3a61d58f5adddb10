"""Generated code against the closure evaluator it replaced: the differences found in review.

Each test states what the closure evaluator answered (the rules' documented semantics: an
ordering with null is false, ``x in null`` is false) and checks the generated code agrees.
"""

import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import trickkit
import trickkit.engine.game
import trickkit.engine.state
from trickkit.dsl.compiler import Compiler, Namespace, Symbol
from trickkit.dsl.parser import parse

sys.path.insert(0, str(Path(__file__).parent))
from test_dsl import CARD, FakeState


def skull_king_variant(tmp_path, body: str):
    """A ruleset file extending Skull King with ``body`` (YAML), named v."""
    path = tmp_path / "v.yaml"
    path.write_text("extends: skull_king\nname: v\n" + body, "utf-8")
    return path


def compiler(extra_symbols=(), extra_definitions=()):
    symbols = {
        "seats": Symbol("const", "list[int]", [0, 1, 2]),
        "trick": Symbol("state", "list[play]", lambda s: s.trick),
        "pot": Symbol("table_var", "int", 0),
        "limit": Symbol("const", "int", 100),
        "nothing": Symbol("state", "list[int]", lambda s: None),  # a list variable set to null
        "piles": Symbol("zone_family", "list[zone]", (0, 3)),
    }
    symbols.update(extra_symbols)
    defs = {"lead": parse("trick[0]"), **{k: parse(v) for k, v in dict(extra_definitions).items()}}
    return Compiler(
        Namespace(
            symbols=symbols, card_attrs=CARD, face_attrs=CARD, face_mode=(None,) * 4, definitions=defs, num_players=3
        )
    )


def ev(text, state=None):
    fn, size, _ = compiler().expression(text, (("card", "card"),))
    return fn(state or FakeState(), [None] * max(size, 1))


@pytest.mark.parametrize(
    "text, expected",
    [
        # an ordering whose left side is null is false: the right side is never computed
        ("trick[0].rank < trick[0].rank + 1", False),
        ("lead.rank >= sum(1 // len(trick) for s in seats)", False),
        ("null < sum(1 // len(trick) for s in seats)", False),
        # `x in null` is false: the item is never computed
        ("sum(1 // len(trick) for s in seats) in nothing", False),
        ("sum(1 // len(trick) for s in seats) not in nothing", True),
    ],
)
def test_a_null_side_decides_before_the_other_side_is_computed(text, expected):
    assert ev(text, FakeState(trick=[])) is expected


def test_the_left_side_of_an_ordering_is_computed_first():
    # the closure evaluator failed on 1 // 0 before it looked at the (null) right side
    with pytest.raises(ZeroDivisionError):
        ev("1 // len(trick) < trick[0].rank", FakeState(trick=[]))


def test_an_aggregate_over_an_aggregate_with_an_invariant_compiles():
    # the inner aggregate closed the outer one's hoist: a raw AttributeError at load
    assert ev("sum(len(trick) for x in list(y for y in seats))", FakeState(trick=[(0, 1, 1, 0)])) == 3
    assert (
        ev("sum(x + len(trick) for x in list(y for y in seats if y > len(trick)))", FakeState(trick=[(0, 1, 1, 0)]))
        == 2 + 1
    )


def test_an_aggregate_over_an_aggregate_in_a_ruleset_is_no_raw_python_error(tmp_path):
    path = skull_king_variant(
        tmp_path,
        textwrap.dedent("""\
        round:
          $change:
            2:
              must_play_if_able: led_suit == null or card.suit == led_suit or sum(len(trick) for s in list(t for t in seats)) > 99
        """),  # noqa: E501 (the ruleset's rule kept on one line, as its author would write it)
    )
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=1)
    while repr(state.legal_actions()[0]).startswith("<Action bid"):
        state.apply_action(state.legal_actions()[0])
    assert state.legal_actions()


def test_indexing_a_missing_zone_family_member_writes_no_none_subscript():
    # `None[0]` in generated code is a SyntaxWarning when compiled (an error under -W error)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ev("piles[5][0]") is None
        assert ev("piles[5][-1]") is None


def test_a_text_parameter_compared_with_a_card_attribute_may_be_no_value_of_it(tmp_path):
    # only a text written in the rule must be a value some card has: a parameter such as a
    # trump suit may be 'none'
    path = skull_king_variant(
        tmp_path,
        textwrap.dedent("""\
        parameters:
          trump: {type: choice, choices: [black, none], default: none, description: 'the trump suit, or none'}
        round:
          $change:
            2:
              winner: >-
                first(p for p in trick if p.kind == 'skull_king')
                ?? first(p for p in trick if p.kind == 'pirate')
                ?? first(p for p in trick if p.kind == 'mermaid')
                ?? highest(p for p in trick if p.suit == trump by p.rank)
                ?? highest(p for p in trick if p.suit == led_suit by p.rank)
                ?? trick[0]
        """),
    )
    game = trickkit.load_game(path)
    assert game.params["trump"] == "none"


def test_a_card_filter_that_fails_leaves_the_budget_to_the_per_card_test(tmp_path, monkeypatch):
    # The generated hand filter computes every card-independent part first, here the `else`
    # branch the test never reaches on a lead; it runs over the budget and the engine falls
    # back to testing card by card, which must be charged as if the filter had not run.
    path = skull_king_variant(
        tmp_path,
        textwrap.dedent("""\
        round:
          $change:
            2:
              must_play_if_able: >-
                if len(trick) == 0 then count(c for c in hand[current_player] if c == card) > 0
                else count(x for x in range(0, 3000 + round)) > 0
        """),
    )
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=1)
    while not (
        state.round >= 3 and len(state.trick) == 0 and repr(state.legal_actions()[0]).startswith("<Action play")
    ):
        state.apply_action(state.legal_actions()[0])
    expected = state.legal_actions()
    monkeypatch.setattr(trickkit.engine.state, "EVALUATION_BUDGET", 2000)
    monkeypatch.setattr(trickkit.engine.game, "EVALUATION_BUDGET", 2000)
    state._legal = None  # asked again, under the smaller budget
    assert state.legal_actions() == expected


class _FirstCard:
    def randrange(self, n):
        return 0


def run_block(text, zones):
    fn, size = compiler().block(text, (("card", "card"),))
    state = FakeState()
    state.table_zones = zones
    state._generator = lambda: _FirstCard()
    fn(state, [None] * max(size, 1))
    return state.table_zones


def test_move_random_reads_its_destination_after_the_draw():
    # as the closure evaluator: the card is drawn first, then the destination is read
    assert run_block("move_random(piles[0], piles[len(piles[0]) - 1])", [[1, 0], [], [2]]) == [[0, 1], [], [2]]


def test_move_random_from_an_empty_zone_reads_no_destination():
    # "nothing if the first is empty": the destination (here 1 // 0) is never computed
    assert run_block("move_random(piles[1], piles[1 // len(piles[1])])", [[1, 0], [], [2]]) == [[1, 0], [], [2]]


@pytest.mark.parametrize(
    "text",
    [
        "(if limit < 0 then pot + 1 > 0 else card.rank != null) and (card.rank ?? 0) < pot + 1",
        "(limit < 0 and pot + 1 > 0 or card.rank != null) and (card.rank ?? 0) < pot + 1",
    ],
)
def test_a_card_filter_reuses_no_part_of_a_branch_a_parameter_rules_out(text):
    # the branch ruled out is compiled to check it and dropped: a part hoisted there is not
    # computed, so the filter must not read it (a NameError made it fall back on every call)
    c = compiler()
    flt, size = c.card_filter(parse(text), (("card", "card"),))
    fn, _, _ = c.expression(text, (("card", "card"),))
    per_card = [card for card in range(4) if fn(FakeState(), [card])]
    assert per_card == [1]
    assert flt(FakeState(), [None] * max(size, 1), [0, 1, 2, 3]) == per_card


@pytest.mark.parametrize(
    "text, expected",
    [
        ("first(q.card for q in [lead, trick[1]])", None),
        ("count(q for q in list(trick[5] for s in seats) if q.seat == null)", 3),
        ("list(q.seat for q in [trick[0], lead])", [None, None]),
    ],
)
def test_a_list_of_plays_built_by_the_rules_may_hold_null(text, expected):
    # only the game's own lists (the trick, a seat zone, a zone family) never hold null
    assert ev(text, FakeState(trick=[])) == expected


def test_a_context_name_hides_a_global_of_that_name_in_a_definition_compiled_before():
    # a definition too large to inline, first compiled where `seat` is a global (a table
    # variable named seat), then used where `seat` is the rule's context (the score rule)
    text = "seat + " + " + ".join(["len(trick)"] * 30)
    c = compiler({"seat": Symbol("const", "int", 100)}, {"with_seat": text})
    without, _, _ = c.expression("with_seat", ())
    within, _, _ = c.expression("with_seat", (("seat", "int"),))
    direct, _, _ = c.expression(text, (("seat", "int"),))
    assert without(FakeState(), [None]) == 100
    assert within(FakeState(), [7]) == direct(FakeState(), [7]) == 7


HOISTED = """\
format: 1
name: hoisted
title: Hoisted
players: {min: 3, max: 3}
deck:
  - rank: {from: 1, to: 9}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
seat_variables:
  below: {initial: 0}
  pairs: {initial: 0}
round:
  - deal: {count: 3, rest: stock}
  - turns:
      first: "0"
      until: "false"
      actions:
        go:
          text: "go"
          effect: |
            for s in seats {
              below[s] = sum(v for v in range(0, 10) if v < hand[s][0].rank)
              pairs[s] = sum(count(c for c in hand[t] if c.rank < hand[s][-1].rank and len(hand[t]) > 0) for t in seats)
            }
game_over: "true"
score: "0"
"""


def test_a_loop_invariant_naming_a_for_statement_variable_is_computed_once_per_loop(tmp_path):
    # hand[s][0].rank names `s` (the for statement's) but not `v`: computed once per sum; a part
    # naming an aggregate's own variable (hand[t], c) is computed per item, as before
    path = tmp_path / "hoisted.yaml"
    path.write_text(HOISTED, "utf-8")
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=4)
    hands = [[game.rules.deck.texts[c] for c in state.seat_zones[0][s]] for s in range(3)]
    state.apply_action("go")
    ranks = [[int(t) for t in h] for h in hands]
    assert state.seat_vars[0] == [sum(v for v in range(10) if v < r[0]) for r in ranks]
    assert state.seat_vars[1] == [sum(sum(1 for c in ranks[t] if c < r[-1]) for t in range(3)) for r in ranks]
    effect = next(st for st in game.rules.steps if st.kind == "turns").kinds[0].effect
    source = game.rules.generated_source.split(f"def {effect.fn.__name__}(")[1].split("\ndef ")[0]
    import re

    hoisted = re.findall(r"\bh\d+ = (?!_MISS)(.*)", source)
    # hand[s], hand[s][0], its rank; hand[s], hand[s][-1], its rank: each computed once per sum
    assert len(hoisted) == 6 and sum("s.seat_zones[0][v" in h for h in hoisted) == 2, source
    # the two sums' and count's (the for statement's, over the constant `seats`, is the first loop)
    loop_vars = set(re.findall(r"for (v\d+) in t\d+:", source)) - {re.findall(r"for (v\d+) in", source)[0]}
    assert "[:]" not in source, source  # a for statement over a constant list: no copy of it
    assert len(loop_vars) == 3 and not any(v in h for h in hoisted for v in loop_vars), source
