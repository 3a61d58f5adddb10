"""Fast aggregate loops (trickkit.dsl.aggregates) answer exactly as the general loop."""

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickkit.dsl import aggregates as A
from trickkit.dsl.compiler import Symbol

sys.path.insert(0, str(Path(__file__).parent))
from test_dsl import FakeState, compiler  # noqa: E402

DEFINITIONS = {"lead": "trick[0]", "led": "first(p.suit for p in trick if p.kind == 'suit')"}

# item-only elements, conditions and keys (the fast loops), some with nulls (pirate, escape)
AGGREGATES = [
    "any(p.kind == 'pirate' for p in trick)", "all(p.kind == 'suit' for p in trick)",
    "any(p.rank > 5 for p in trick)", "all(p.suit != 'green' for p in trick)",
    "count(p for p in trick if p.kind != 'suit')", "count(p for p in trick)",
    "first(p.seat for p in trick if p.kind == 'pirate')", "first(p for p in trick if p.rank >= 3)",
    "last(p.seat for p in trick if p.suit == led)", "last(p for p in trick)",
    "highest(p for p in trick if p.suit == led by p.rank)", "lowest(p.seat for p in trick by p.rank)",
    "highest(p for p in trick by p.order)", "lowest(p for p in trick if p.kind in ['suit', 'pirate'] by p.rank)",
    "sum(p.rank ?? 0 for p in trick)", "sum(p.order for p in trick if p.seat < 2)",
    "list(p.kind for p in trick if p.order > 0)", "min(p.rank for p in trick)", "max(p.rank for p in trick if p.seat != 1)",
    "count(p for p in trick if p.rank < lead.rank)", "any((p.rank ?? 0) < (lead.rank ?? 0) for p in trick)",
    "first(p.card.kind for p in trick if p.card.rank <= round)", "count(c for c in hand[1] if c.rank == null)",
    "any(c.kind == 'pirate' for c in hand[seat])", "highest(c for c in hand[seat] by c.rank)",
]

PLAYS = [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (0, 3, 3, 0)]  # G7, B3, pirate, escape
tricks = st.lists(st.sampled_from(PLAYS), max_size=4).map(
    lambda t: [(p[0], p[1], p[2], i) for i, p in enumerate(t)])


def general_only(monkeypatch):
    """A compiler whose aggregates always take the general loop."""
    monkeypatch.setattr(A, "make", lambda name, cf, slot, ef, pf, kf, fast: A._general(name, cf, slot, ef, pf, kf))


def evaluate(text, state):
    fn, size, _ = compiler(DEFINITIONS).expression(text, (("seat", "int"),))
    try:
        return ("value", fn(state, [0] + [None] * (size - 1)))
    except TypeError as e:  # e.g. summing nulls: both loops must fail alike
        return ("error", type(e))


@pytest.mark.parametrize("text", AGGREGATES)
@settings(max_examples=30, deadline=None)
@given(trick=tricks, hand=st.lists(st.integers(0, 3), max_size=4), round_=st.integers(1, 8))
def test_fast_aggregates_match_the_general_loop(text, trick, hand, round_):
    state = FakeState(trick)
    state.round = round_
    state.seat_zones = [[hand, list(reversed(hand)), []]]
    fast = evaluate(text, state)
    with pytest.MonkeyPatch.context() as mp:
        general_only(mp)
        general = evaluate(text, state)
    assert fast == general


def test_a_loop_invariant_is_computed_once_per_loop():
    calls = []
    c = compiler(DEFINITIONS)
    c.ns.symbols["round"] = Symbol("state", "int", lambda s: calls.append(1) or s.round)
    fn, size, _ = c.expression("count(p for p in trick if (p.rank ?? 0) + round * 2 > round + 6)")
    state = FakeState(PLAYS)
    state.round = 3
    assert fn(state, [None] * size) == 1  # 7 + 6 > 9; 3 + 6 and 0 + 6 are not
    assert len(calls) == 2  # round * 2 and round + 6, once each for the whole loop (not 8 times)
    assert state._cache is None  # the cache closes with the loop


MIXED = {"rank": (7, 3, None, None, "x"), "kind": ("suit", "suit", "pirate", "escape", "odd")}  # card 4: text rank


def mixed_compiler():
    from trickkit.dsl.compiler import Compiler, Namespace
    symbols = {"trick": Symbol("state", "list[play]", lambda s: s.trick)}
    return Compiler(Namespace(symbols=symbols, card_attrs=MIXED, face_attrs=MIXED, face_mode=(None,) * 5))


@pytest.mark.parametrize("text, trick", [
    ("count(p.rank + 1 for p in trick)", [(0, 2, 2, 0), (1, 3, 3, 1)]),   # E fails on null: count fails too
    ("any(p.rank > 3 for p in trick)", [(0, 0, 0, 0), (1, 4, 4, 1)]),     # stops at 7, before 'x'
    ("first(p.seat for p in trick if p.rank > 3)", [(0, 0, 0, 0), (1, 4, 4, 1)]),
    ("any(p.rank > trick[0].rank + 1 for p in trick)", [(0, 2, 2, 0), (1, 3, 3, 1)]),  # every rank null
    ("all(p.rank < 5 for p in trick)", [(0, 0, 0, 0), (1, 4, 4, 1)]),     # 7 fails first
    ("count(p for p in trick if p.rank >= 3)", [(0, 4, 4, 0), (1, 0, 0, 1)]),  # 'x' >= 3 fails
])
def test_fast_loops_fail_or_stop_where_the_general_loop_does(text, trick):
    state = FakeState(trick)
    state._budget = 10_000

    def run():
        fn, size, _ = mixed_compiler().expression(text)
        try:
            return ("value", fn(state, [None] * size))
        except TypeError as e:
            return ("error", str(e))
    fast = run()
    with pytest.MonkeyPatch.context() as mp:
        general_only(mp)
        assert run() == fast


def test_nested_aggregates_compile_in_linear_work(monkeypatch):
    from trickkit.dsl.compiler import Compiler
    calls = []
    original = Compiler._expr
    monkeypatch.setattr(Compiler, "_expr", lambda self, *a: calls.append(1) or original(self, *a))

    def nodes_compiled(depth):
        text = "0"
        for i in range(depth):
            text = f"count(x{i} for x{i} in trick if x{i}.rank > {text})"
        calls.clear()
        compiler().expression(text)
        return len(calls)
    assert nodes_compiled(16) <= 2.5 * nodes_compiled(8)  # each level once, not twice per level


def test_a_failing_fast_loop_is_retried_once_not_at_every_level():
    reads = []
    from trickkit.dsl.compiler import Compiler, Namespace
    symbols = {"trick": Symbol("state", "list[play]", lambda s: reads.append(1) or s.trick),
               "zero": Symbol("const", "int", 0)}
    c = Compiler(Namespace(symbols=symbols, card_attrs=MIXED, face_attrs=MIXED, face_mode=(None,) * 5))
    text = "1 // zero"
    for i in range(12):
        text = f"count(p{i} for p{i} in trick if p{i}.rank > {text})"
    fn, size, _ = c.expression(text)
    state = FakeState([(0, 0, 0, 0), (1, 1, 1, 1)])
    with pytest.raises(ZeroDivisionError):
        fn(state, [None] * size)
    assert len(reads) < 100  # about two per level; retrying at every level would be 2 ** 12
    assert state._slow is False


def test_a_fallback_charges_the_budget_as_the_general_loop_alone():
    text = "any(p.rank > 3 for p in trick)"  # the fast loop fails on 'x'; the general one stops at 7
    state = FakeState([(0, 0, 0, 0), (1, 4, 4, 1)])
    fn, size, _ = mixed_compiler().expression(text)
    assert fn(state, [None] * size) is True
    spent = 5_000_000 - state._budget
    with pytest.MonkeyPatch.context() as mp:
        general_only(mp)
        general_state = FakeState([(0, 0, 0, 0), (1, 4, 4, 1)])
        fn, size, _ = mixed_compiler().expression(text)
        fn(general_state, [None] * size)
    assert spent == 5_000_000 - general_state._budget == 2
