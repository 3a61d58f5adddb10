"""Generated code that knows more (Love Letter's speed, issue 29): a choice offered from
``seats`` indexes seat lists without a check in its effect, combination filters index seat
lists directly (an index out of range falls back on the general path), constant lists are
tested by a set, kinds share a zone's distinct cards, a draw pops the top card, and
``reveal`` of a seat's zone is told its place. Each gives what the code it replaces gives."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.dsl import runtime
from trickkit.rules.shipped import ruleset_text

sys.path.insert(0, str(Path(__file__).parent))
from test_codegen_tight import _both, _compiler
from test_dsl import CARD, FakeState
from test_turns_passes import HEAD


def _function(source: str, name: str) -> str:
    return source.split(f"def {name}(")[1].split("\ndef ")[0]


def test_love_letters_effects_read_the_named_seats_zones_directly():
    game = trickkit.load_game("love_letter")
    source = game.rules.generated_source
    aim = next(k for k in game.rules.steps[2].kinds if k.name == "aim")
    effect = _function(source, aim.effect.fn.__name__)
    assert "_index(" not in effect and "_bad_seat(" not in effect, effect  # target: one of `seats`
    assert "_reveal(s, s.seat_zones[0][a1], s.current, (0, a1))" in effect, effect
    assert "_move_top(" in effect, effect  # the Prince's draw from the deck


def test_a_filter_indexing_a_seat_list_out_of_range_falls_back_to_the_general_path(tmp_path, monkeypatch):
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace(
        'choices: {card: "hand[current_player]"}', 'choices: {card: "hand[current_player]", x: "range(-3, 4)"}'
    )
    text = text.replace('text: "play {card}"', 'text: "play {card} {x}"')
    text = text.replace("allowed: true and true", "allowed: not flag[x] and card.rank > 0")
    text = text.replace("table_variables:", "seat_variables:\n  flag: {initial: true}\ntable_variables:")
    path = tmp_path / "flags.yaml"
    path.write_text(text, "utf-8")
    game = trickkit.load_game(path)
    source = game.rules.generated_source
    kind = game.rules.steps[1].kinds[0]
    assert "0 <= " not in _function(source, kind.combo_filter.__name__)
    fast, slow = _both(game, monkeypatch, [[["1", "3", "2"], ["4", "4", "5"]]])
    # flag[-2], flag[-1]: counted from the end; flag[-3], flag[2], flag[3]: null, so `not flag` holds
    assert fast == slow
    assert [a for a in fast if a.startswith("play 1 ")] == ["play 1 -3", "play 1 2", "play 1 3"]


def test_membership_in_a_constant_list_is_a_set_lookup_with_the_same_result():
    c = _compiler()
    fn, _, _ = c.expression("len(hand[0]) in [0, 2, 5]")
    source = c.source()
    name = re.search(r" in (_k[0-9]+)\)", source).group(1)
    assert isinstance(c.env[name], frozenset), source
    state = FakeState()
    state.seat_zones = [[[0, 1], [], [3]]]
    assert fn(state, []) is True
    state.seat_zones = [[[0], [], [3]]]
    assert fn(state, []) is False
    c = _compiler()
    c.expression("len(hand[0]) in [0, 2]")  # two items: compared in turn, as written
    assert not any(isinstance(v, frozenset) for k, v in c.env.items() if k.startswith("_k")), c.source()


def test_kinds_offering_the_same_zone_make_its_cards_distinct_once():
    game = trickkit.load_game("love_letter")
    step = game.rules.steps[2]
    source = _function(game.rules.generated_source, step.passes[0].__name__)
    # made once at the top (a zone read: nothing to charge, nothing to fail), read by aim and plain
    assert source.count("p0 = ") == 3 and source.count("_distinct_cards(p0, ") == 1, source
    assert source.count("v0 = p0") == 2 and "is None" not in source, source
    # a hand of two different cards is the zone's own list: the helper is left for other sizes
    top = source.split("# love_letter.yaml")[0]
    assert "p0 = h900\n    if _len(p0) != 2:" in top, top
    # the top block's charges are one charge, like terms added up (a len call per zone)
    assert source.count("s.budget -=") == 2 and "s.budget -= _len(h900) * 3 + _len(p0) * 5 + 4" in source, source


def test_move_top_is_move_of_the_top_card():
    for frm, to in (([3, 7, 1], [2]), ([5], [])):
        a, b = [*frm], [*to]
        runtime.move(a[-1], a, b, False, "move")
        c, d = [*frm], [*to]
        runtime.move_top(c, d, "move")
        assert (a, b) == (c, d)
    for frm, to in (([], []), (None, []), ([1], None)):
        with pytest.raises(ValueError) as want:
            runtime.move(frm[-1] if frm else None, frm, to, False, "move")
        with pytest.raises(ValueError) as got:
            runtime.move_top(frm, to, "move")
        assert str(got.value) == str(want.value)


def test_six_nimmts_placement_indexes_rows_and_seats_without_range_checks():
    """A loop over ``range(0, 4)`` indexes the four rows directly, a loop over the seats sorted
    indexes the seat zones and variables directly; the game plays as before (the goldens)."""
    game = trickkit.load_game("six_nimmt")
    source = game.rules.generated_source
    start = next(f for f in source.split("\ndef ") if "turns.on_turn_start" in f)
    assert "_index(" not in start and "_bad_seat(" not in start, start  # `player`: one of the seats, sorted
    assert "= s.table_zones[1 + v" in start, start  # `rows[i]` for `i in range(0, 4)`
    assert "if 0 <= v" not in start, start


def test_saqqaras_take_pops_the_pile_read_once_and_piles_are_charged_their_known_count():
    """``let p = piles[pile - 1]`` then ``move(p[-1], p, ...)`` pops the top card (the zone is
    that very local, null as `_move` would fail on it); ``piles``, a table zone family, is
    charged its fixed number of zones without a ``len`` call; the game plays as before (the goldens)."""
    game = trickkit.load_game("saqqara")
    source = game.rules.generated_source
    step = game.rules.steps[2]
    take = next(k for k in step.kinds if k.name == "take")
    effect = _function(source, take.effect.fn.__name__)
    assert "_move_top(v" in effect and "_move(" not in effect, effect
    assert re.search(r"t[0-9]+ = s\.table_zones\[1:6\]\n +s\.budget -= 5\n", effect), effect
    assert "_len(t" not in effect.split("table_zones[1:6]")[1], effect
    state = game.new_initial_state(seed=3)
    while not any(a.verb == "take" and a.choices == (2,) for a in state.legal_actions()):
        state.apply_action(state.legal_actions()[0])
    seat, top = state.current, state.table_zones[2][-1]
    state.apply_action(next(a for a in state.legal_actions() if a.choices == (2,)))
    assert top not in state.table_zones[2] and state.seat_zones[0][seat][-1] == top


def test_a_pass_inlines_a_short_rule_holding_a_plain_text_literal():
    """Saqqara's discard guard asks ``can('place')``: a text literal no longer keeps the rule
    out of the pass (renumbering the locals leaves a literal without local names alone); a
    literal that looks like a local keeps it a call."""
    game = trickkit.load_game("saqqara")
    step = game.rules.steps[2]
    source = _function(game.rules.generated_source, step.passes[0].__name__)
    assert "_can(s, 'place')" in source, source
    assert not re.search(r"_r[0-9]+\(s, \(\)\)", source), source
    c = _compiler()
    c._inline_parts["_r999"] = (["t0 = 't1'"], "t0")
    assert c._inline("_r999", [1000]) is None
    c._inline_parts["_r998"] = (["t0 = 'place'"], "t0")
    assert c._inline("_r998", [1000]) == (["t1000 = 'place'"], "(t1000)")


def test_a_kinds_pass_returns_its_kinds_entries_without_an_append_per_kind():
    """Each kind's combinations go to a local of their own, returned as one list: Saqqara's four kinds."""
    game = trickkit.load_game("saqqara")
    source = _function(game.rules.generated_source, game.rules.steps[2].passes[0].__name__)
    assert "out" not in source and "return [q0, q1, q2, q3]" in source, source
    assert "s.memo[('can', 'place')] = q2" in source, source


def test_a_branch_a_constant_rules_out_leaves_no_staged_parts_in_a_filter(tmp_path):
    """A combination filter stages the parts of a rule at its loops' levels; in a branch that an
    unrolled constant choice rules out (``if end == 'left' ...`` for 'right'), the parts staged
    there read parts that are dropped with the branch: they are dropped too (they once stayed,
    reading an unassigned local, which failed over to the general path at play)."""
    import ast

    text = ruleset_text("saqqara")
    text = text.replace(
        "    else any(c != artifact and at_new_ends(c.rank) for c in hand[me])\n",
        "    else second_at_row\n",
    )
    text = text.replace(
        "  at_new_ends(v): >-\n",
        "  second_at_row: >-\n    len(hand[me]) > 1 and\n"
        "    (if end == 'left' then artifact.rank > hand_low or lows > 1 or hand_high >= the_row[-1].rank\n"
        "     else artifact.rank < hand_high or highs > 1 or hand_low <= the_row[0].rank)\n"
        "  hand_low: min(c.rank for c in hand[me])\n  hand_high: max(c.rank for c in hand[me])\n"
        "  lows: count(c for c in hand[me] if c.rank == hand_low)\n"
        "  highs: count(c for c in hand[me] if c.rank == hand_high)\n"
        "  at_new_ends(v): >-\n",
    )
    assert "second_at_row:" in text
    path = tmp_path / "saqqara.yaml"
    path.write_text(text, "utf-8")
    source = trickkit.load_game(path).rules.generated_source
    for fn in ast.parse(source).body:
        assigned = {a.arg for a in fn.args.args} if isinstance(fn, ast.FunctionDef) else set()
        names = [n for n in ast.walk(fn) if isinstance(n, ast.Name)]
        assigned |= {n.id for n in names if isinstance(n.ctx, ast.Store)}
        read = {n.id for n in names if isinstance(n.ctx, ast.Load) and re.fullmatch(r"[thvq][0-9]+", n.id)}
        assert read <= assigned, (getattr(fn, "name", ""), sorted(read - assigned))


def test_a_filter_stages_a_lists_emptiness_not_its_length():
    """``len(the_row) == 0`` in Saqqara's place filter: the row's truth is staged per row, no
    ``len`` call staged before it; the game plays as before (the goldens)."""
    game = trickkit.load_game("saqqara")
    kind = next(k for k in game.rules.steps[2].kinds if k.name == "place")
    source = _function(game.rules.generated_source, kind.combo_filter.__name__)
    assert re.search(r"h[0-9]+ = \(not h[0-9]+\)\n", source), source
    assert not re.search(r"h[0-9]+ = _len\(h[0-9]+\)\n", source), source


def test_a_seat_list_indexed_by_a_nullable_seat_needs_no_call_in_range_and_gives_null_outside():
    # `court_up[target]` with `target` a table variable (it may hold anything): read directly
    # when a seat, by the runtime helper (null, or counted from the end) otherwise
    from trickkit.dsl.compiler import Compiler
    from trickkit.dsl.types import Namespace, Symbol

    symbols = {"hand": Symbol("seat_zone", "list[card]", 0), "target": Symbol("table_var", "int", 0)}
    c = Compiler(Namespace(symbols=symbols, card_attrs=CARD, face_attrs=CARD, face_mode=(None,) * 4, num_players=3))
    fn, _, _ = c.expression("hand[target]")
    code = c.source()
    assert "s.seat_zones[0][t" in code and " is not None and 0 <= " in code, code
    state = FakeState()
    state.seat_zones = [[[0, 1], [2], [3]]]
    for target, want in ((0, [0, 1]), (2, [3]), (-1, [3]), (3, None), (-4, None), (None, None)):
        state.table_vars = [target]
        assert fn(state, []) == runtime.index(state.seat_zones[0], target) == want, target
