"""Two DSL primitives on their own: local names in blocks (``let``) and the shuffle effects
(``shuffle(zone)``, ``insert_random(card, zone)``), compiled against a small namespace."""

import random
from collections import Counter

import pytest

from trickkit.dsl.compiler import Compiler, DSLCompileError, Namespace, Symbol
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.randomness import shuffle as deal_shuffle

CARD = {
    "name": tuple(f"c{i}" for i in range(6)),
    "suit": ("red",) * 3 + ("blue",) * 3,
    "rank": (1, 2, 3, 4, 5, 6),
    "kind": ("n",) * 6,
    "points": (1, 2, 3, 4, 5, 6),
}


class FakeState:
    """Zones: hand (per seat, 3 seats), stock and discard (table); variables: score (seat), pot (table)."""

    def __init__(self, seed=0):
        self.trick = []
        self.seat_vars = [[0, 0, 0]]
        self.table_vars = [0]
        self.seat_zones = [[[0, 1], [2], []]]
        self.table_zones = [[3, 4, 5], []]
        self.round, self.dealer, self.current = 1, 0, 0
        self.memo = None
        self.budget = 5_000_000
        self.rng = random.Random(seed)

    def _generator(self):
        return self.rng


def compiler():
    symbols = {
        "seats": Symbol("const", "list[int]", [0, 1, 2]),
        "limit": Symbol("const", "int", 100),
        "score": Symbol("seat_var", "int", 0),
        "pot": Symbol("table_var", "int", 0),
        "hand": Symbol("seat_zone", "list[card]", 0),
        "stock": Symbol("table_zone", "zone", 0),
        "discard": Symbol("table_zone", "zone", 1),
    }
    defs = {"twice": parse("limit * 2")}
    return Compiler(
        Namespace(
            symbols=symbols, card_attrs=CARD, face_attrs=CARD, face_mode=(None,) * 6, definitions=defs, num_players=3
        )
    )


def run(text, state=None, context=(), values=()):
    state = state or FakeState()
    fn, size = compiler().block(text, context)
    fn(state, list(values) + [None] * (size - len(values)))
    return state


# -- let --------------------------------------------------------------------------------
def test_a_local_holds_a_value_for_the_rest_of_its_block():
    s = run("let n = len(stock) + 1\npot = n * 10")
    assert s.table_vars[0] == 40


def test_a_local_can_be_assigned_and_added_to_in_a_loop():
    s = run(
        "let total = 0\nfor c in stock { total += c.points }\nlet best = null\n"
        "for c in stock { if best == null or c.points > best.points { best = c } }\n"
        "pot = total * 100 + best.rank"
    )
    assert s.table_vars[0] == (4 + 5 + 6) * 100 + 6


def test_a_local_is_read_in_aggregates_and_effects():
    s = run(
        "let top = stock[-1]\nlet big = count(c for c in stock if c.rank >= top.rank - 1)\n"
        "move(top, stock, discard)\nscore[0] = big"
    )
    assert s.table_zones == [[3, 4], [5]] and s.seat_vars[0][0] == 2


def test_a_local_is_fresh_each_time_the_rule_runs_and_each_loop_pass():
    fn, size = compiler().block("for s in seats { let k = s * 2\nk += 1\nscore[s] = k }")
    state = FakeState()
    fn(state, [None] * size)
    fn(state, [None] * size)
    assert state.seat_vars[0] == [1, 3, 5]


def test_sibling_blocks_may_each_declare_the_same_name():
    s = run("if pot == 0 { let n = 7\npot = n } else { let n = 8\npot = n }")
    assert s.table_vars[0] == 7


def test_generated_code_names_locals_itself():
    c = compiler()
    c.block("let secret_name = 3\npot = secret_name")
    assert "secret_name" not in c.source()


@pytest.mark.parametrize(
    "text, message",
    [
        ("let n = 1\nlet n = 2", "'n' is already a local name (from line 1)"),
        ("let score = 1", "'score' is a seat variable: a local name cannot reuse it"),
        ("let pot = 1", "'pot' is a table variable: a local name cannot reuse it"),
        ("let stock = 1", "'stock' is a zone: a local name cannot reuse it"),
        ("let limit = 1", "'limit' is a parameter or constant: a local name cannot reuse it"),
        ("let twice = 1", "'twice' is a definition: a local name cannot reuse it"),
        ("let len = 1", "'len' is a built-in function: a local name cannot reuse it"),
        ("for s in seats { let s = 1 }", "'s' is already a name here (the rule's context or a loop variable)"),
        ("let s = 1\nfor s in seats { pot = s }", "'s' is a local name (from line 1): a loop variable cannot reuse it"),
        (
            "let s = 1\npot = sum(s for s in seats)",
            "'s' is a local name (from line 1): a loop variable cannot reuse it",
        ),
        ("for s in seats { s = 1 }", "'s' is the rule's context or a loop variable and cannot be assigned"),
        ("let n = 1\nn[0] = 2", "'n' is a local name, not a seat variable"),
        ("let n = 1\nn = 'x'", "'n' holds int values (the type its let gave it, at line 1), not str"),
        ("let n = 'a'\nn += 1", "'n' holds str values (the type its let gave it): it cannot be added to"),
        ("if pot == 0 { let n = 1 }\npot = n", "'n' is a local name of a block that has ended (its let is at line 1)"),
        ("let n = m + 1", "unknown name 'm'"),
    ],
)
def test_misused_locals_are_located_load_errors(text, message):
    with pytest.raises(DSLCompileError) as err:
        compiler().block(text)
    assert message in str(err.value)
    assert err.value.line >= 1


def test_a_local_error_points_at_the_line_and_column():
    with pytest.raises(DSLCompileError) as err:
        compiler().block("pot = 1\n  let pot = 2")
    assert (err.value.line, err.value.column) == (2, 7)


def test_let_is_a_statement_not_an_expression():
    with pytest.raises(DSLSyntaxError):
        parse("let n = 1", "expr")


def test_a_context_name_cannot_be_assigned_or_reused():
    with pytest.raises(DSLCompileError, match="cannot be assigned"):
        compiler().block("card = null", context=[("card", "card")])
    with pytest.raises(DSLCompileError, match="already a name here"):
        compiler().block("let card = 1", context=[("card", "card")])


# -- shuffle and insert_random --------------------------------------------------------------
def test_shuffle_permutes_a_zone_with_the_states_generator():
    s = run("move_all(hand[0], stock)\nshuffle(stock)", FakeState(seed=5))
    expected = [3, 4, 5, 0, 1]
    deal_shuffle(random.Random(5), expected)
    assert s.table_zones[0] == expected  # the deal's own walk, the same draws


def test_shuffle_is_reproducible_and_varies_with_the_seed():
    orders = {
        tuple(run("move_all(hand[0], stock)\nshuffle(stock)", FakeState(seed)).table_zones[0]) for seed in range(40)
    }
    assert len(orders) > 20
    assert run("shuffle(stock)", FakeState(3)).table_zones == run("shuffle(stock)", FakeState(3)).table_zones


def test_insert_random_moves_the_card_from_wherever_it_lies():
    s = run("insert_random(hand[1][0], stock)", FakeState(seed=1))
    assert s.seat_zones[0][1] == [] and sorted(s.table_zones[0]) == [2, 3, 4, 5]
    assert [c for c in s.table_zones[0] if c != 2] == [3, 4, 5]  # the others keep their order


def test_insert_random_reaches_every_gap_about_evenly():
    places = Counter(
        run("insert_random(hand[1][0], stock)", FakeState(seed)).table_zones[0].index(2) for seed in range(800)
    )
    assert set(places) == {0, 1, 2, 3}  # bottom, between, and top
    assert min(places.values()) > 140


def test_insert_random_within_the_same_zone_and_into_an_empty_one():
    s = run("insert_random(stock[0], stock)\ninsert_random(hand[0][1], discard)")
    assert sorted(s.table_zones[0]) == [3, 4, 5] and s.table_zones[1] == [1]


def test_insert_random_draws_from_the_states_generator():
    a, b = FakeState(9), FakeState(9)
    run("insert_random(hand[0][0], stock)", a)
    b.rng.randrange(4)
    assert a.rng.getstate() == b.rng.getstate()


@pytest.mark.parametrize(
    "text, message",
    [
        ("shuffle(hand)", "shuffle() needs a zone here"),
        ("shuffle(stock, stock)", "shuffle() takes 1 argument, got 2"),
        ("insert_random(stock, stock)", "insert_random() needs a card here"),
        ("insert_random(stock[0])", "insert_random() takes 2 arguments, got 1"),
    ],
)
def test_shuffle_effects_check_their_arguments_at_load(text, message):
    with pytest.raises(DSLCompileError) as err:
        compiler().block(text)
    assert message in str(err.value)


def test_insert_random_of_no_card_fails_at_play_time():
    with pytest.raises(ValueError, match="no card"):
        run("insert_random(discard[-1], stock)")


def test_shuffles_in_a_loop_are_charged_to_the_evaluation_budget():
    from trickkit.dsl.runtime import EvaluationLimit

    state = FakeState()
    state.budget = 1000
    fn, size = compiler().block("for i in range(0, 400) { shuffle(stock) }")
    with pytest.raises(EvaluationLimit):
        fn(state, [None] * size)
    state = FakeState()
    state.budget = 1000
    fn, size = compiler().block("for i in range(0, 400) { insert_random(stock[0], stock) }")
    with pytest.raises(EvaluationLimit):
        fn(state, [None] * size)
