"""The DSL on its own: parsing, compile-time checks, evaluation, and the built-in registry."""

import pytest

from trickkit.dsl import builtins as B
from trickkit.dsl.compiler import Compiler, DSLCompileError, Namespace, Symbol
from trickkit.dsl.parser import DSLSyntaxError, parse


class FakeState:
    def __init__(self, trick=(), seat_vars=None):
        self.trick = list(trick)
        self.seat_vars = seat_vars or [[0, 0, 0]]
        self.table_vars = [5]
        self.seat_zones = [[[0, 1], [2], []]]
        self.table_zones = [[3]]
        self.round = 2
        self.dealer = 0
        self.current = 1
        self.memo = None
        self.budget = 5_000_000


# cards: 0 = G7, 1 = B3, 2 = pirate, 3 = escape; one face each (face id == card id)
CARD = {
    "name": ("G7", "B3", "pirate", "escape"),
    "suit": ("green", "black", None, None),
    "rank": (7, 3, None, None),
    "kind": ("suit", "suit", "pirate", "escape"),
}


def compiler(definitions=None):
    symbols = {
        "seats": Symbol("const", "list[int]", [0, 1, 2]),
        "round": Symbol("state", "int", lambda s: s.round),
        "trick": Symbol("state", "list[play]", lambda s: s.trick),
        "limit": Symbol("const", "int", 100),
        "score": Symbol("seat_var", "int", 0),
        "pot": Symbol("table_var", "int", 0),
        "hand": Symbol("seat_zone", "list[card]", 0),
    }
    defs = {k: parse(v) for k, v in (definitions or {}).items()}
    return Compiler(
        Namespace(
            symbols=symbols, card_attrs=CARD, face_attrs=CARD, face_mode=(None,) * 4, definitions=defs, num_players=3
        )
    )


def ev(text, state=None, context=(), values=(), definitions=None):
    fn, size, _ = compiler(definitions).expression(text, context)
    frame = list(values) + [None] * (size - len(values))
    return fn(state or FakeState(), frame)


def test_arithmetic_and_precedence():
    assert ev("1 + 2 * 3 - 10 // 4 % 3") == 1 + 2 * 3 - 10 // 4 % 3
    assert ev("-(2 + 3) * 2") == -10
    assert ev("if 1 < 2 then 'a' else 'b'") == "a"


def test_aggregates_over_a_trick():
    trick = [(0, 3, 3, 0), (1, 0, 0, 1), (2, 2, 2, 2)]  # escape, G7, pirate
    s = FakeState(trick)
    assert ev("first(p.seat for p in trick if p.kind == 'pirate')", s) == 2
    assert ev("first(p.suit for p in trick if p.kind == 'suit')", s) == "green"
    assert ev("count(p for p in trick if p.kind != 'suit')", s) == 2
    assert ev("highest(p.seat for p in trick by p.order)", s) == 2
    assert ev("lowest(p.seat for p in trick if p.rank != null by p.rank)", s) == 1
    assert ev("first(p for p in trick if p.seat == 7) ?? trick[0]", s) == trick[0]
    assert ev("all(p.order < 3 for p in trick)", s) is True
    assert ev("sum(p.order for p in trick)", s) == 3


def test_null_propagates_through_attributes_and_comparisons():
    s = FakeState([])
    assert ev("trick[0].rank", s) is None
    assert ev("trick[1].rank < trick[0].rank", s) is False
    assert ev("first(p.suit for p in trick) == null", s) is True


def test_variables_zones_and_statements():
    s = FakeState()
    fn, size = compiler().block("for s in seats { score[s] += s * 10 } pot -= 2 if pot == 3 { pot = 99 }")
    fn(s, [None] * size)
    assert s.seat_vars[0] == [0, 10, 20]
    assert s.table_vars[0] == 99
    assert ev("len(hand[0]) + len(hand[2])", s) == 2
    assert ev("max(c.rank for c in hand[0])", s) == 7


def test_definitions_are_inlined_and_see_the_hook_context():
    defs = {"is_black": "card.suit == 'black'", "twice": "limit * 2"}
    assert ev("is_black", context=[("card", "card")], values=[1], definitions=defs) is True
    assert ev("twice + 1", definitions=defs) == 201


@pytest.mark.parametrize(
    "text, message",
    [
        ("hieghest", "unknown name 'hieghest'"),
        ("sum(p.heads for p in trick)", "plays have no attribute 'heads'"),
        ("abs(1, 2)", "abs() takes 1 argument, got 2"),
        ("highest(p for p in trick)", "highest() needs a key"),
        ("limit.rank", "cannot take attribute 'rank' of a int value"),
        ("'a' * 2", "'*' needs numbers, got str"),
        ("any(p for p in 3)", "can only iterate over a list, got int"),
        ("lenn(trick)", "unknown function 'lenn' (did you mean 'len'?)"),
        ("round == 'two'", "comparing int with str using '==' is always false"),
        ("any(p.suit == 'blak' for p in trick)", "no card has suit 'blak' (did you mean 'black'?)"),
        ("first(p.kind for p in trick) == 'mermaid'", "no card has kind 'mermaid'"),
        ("any(c.kind in ['pirate', 'pirat'] for c in hand[0])", "no card has kind 'pirat' (did you mean 'pirate'?)"),
        ("seat_holding([hand[0]], 'G7')", "seat_holding() expects a card, got a text"),
    ],
)
def test_compile_errors_are_caught_at_load(text, message):
    with pytest.raises(DSLCompileError) as err:
        compiler().expression(text)
    assert message in str(err.value)


def test_syntax_errors_show_a_caret():
    with pytest.raises(DSLSyntaxError) as err:
        parse("1 + * 2")
    text = str(err.value)
    assert text.startswith("unexpected '*' at line 1 column 5")
    assert "1 + * 2\n    ^" in text


def test_self_referring_definitions_are_rejected():
    with pytest.raises(DSLCompileError) as err:
        ev("a", definitions={"a": "b + 1", "b": "a"})
    assert "refers to itself" in str(err.value)


def test_no_python_escape_hatches():
    # no attribute access except card/play attributes; dunders are just unknown attributes
    for text in ["trick.__class__", "__import__('os')", "round.__add__", "seats.append(1)"]:
        with pytest.raises((DSLCompileError, DSLSyntaxError)):
            compiler().expression(text)


def test_every_registry_example_compiles_or_parses():
    for entry in list(B.FUNCTIONS.values()) + list(B.AGGREGATES.values()):
        parse(entry.example)
        assert entry.doc
    for name, (_, doc, example) in B.SEAT_FUNCTIONS.items():
        parse(example)
        assert doc, name


def test_an_unknown_attribute_lists_the_attributes_there_are():
    with pytest.raises(DSLCompileError) as err:
        compiler().expression("card.text", (("card", "card"),))
    assert "cards have no attribute 'text' (their attributes: name, suit, rank, kind)" in str(err.value)
    with pytest.raises(DSLCompileError) as err:
        compiler().expression("trick[0].heads")
    assert "(their attributes: seat, card, order, mode, name, suit, rank, kind)" in str(err.value)


def test_strings_have_escapes_for_quotes_and_backslash():
    # issue 30: a `'` inside a text could not be written
    assert ev(r"'it\'s'") == "it's"
    assert ev(r'"say \"hi\""') == 'say "hi"'
    assert ev(r"'a\\b'") == "a\\b"
    assert ev(r"'\\'") == "\\"
    assert ev(r"['\'', '\\']") == ["'", "\\"]
    assert ev(r"'it\'s' + ' ' + 'fine'") == "it's fine"
    with pytest.raises(DSLCompileError) as info:
        ev(r"'a\nb'")
    assert str(info.value) == "unknown escape '\\n' in a text: write \\' \\\" or \\\\ (a quote or a backslash)"


def test_list_plus_joins_lists():
    assert ev("[1, 2] + [3]") == [1, 2, 3]
