"""Tighter generated code (issue 32): each shortcut gives the value, and charges the evaluation
budget, exactly as the code it replaces, and the generated passes agree with the engine's
general path."""

from __future__ import annotations

import itertools
import re
import sys
import textwrap
from pathlib import Path

import trickkit
from trickkit.dsl.compiler import Compiler
from trickkit.dsl.parser import parse
from trickkit.dsl.types import Namespace, Symbol

sys.path.insert(0, str(Path(__file__).parent))
from test_dsl import CARD, FakeState
from test_turns_passes import HEAD, _general, _turn_steps

from trickkit.engine import turns


def _compiler(definitions: dict[str, str] | None = None) -> Compiler:
    symbols = {
        "seats": Symbol("const", "list[int]", [0, 1, 2]),
        "used": Symbol("table_var", "list[int]", 0),
        "hand": Symbol("seat_zone", "list[card]", 0),
        "score": Symbol("seat_var", "int", 0),
        "piles": Symbol("zone_family", "list[zone]", (1, 4)),  # table zones 1-4
        "turn_player": Symbol("state", "int", None, code="(s.turn_player if s.window >= 0 else s.current)"),
    }
    defs = {k.split("(")[0]: parse(v) for k, v in (definitions or {}).items()}
    params = {k.split("(")[0]: tuple(k[:-1].split("(")[1].split(", ")) for k in definitions or {} if "(" in k}
    return Compiler(
        Namespace(
            symbols=symbols,
            card_attrs=CARD,
            face_attrs=CARD,
            face_mode=(None,) * 4,
            definitions=defs,
            definition_params=params,
            num_players=3,
        )
    )


def _run(text: str, state: FakeState, definitions: dict[str, str] | None = None) -> tuple[object, str]:
    c = _compiler(definitions)
    fn, _, _ = c.expression(text)
    return fn(state, []), c.source()


def test_a_loop_over_the_seats_indexes_the_seat_lists_without_a_range_check():
    state = FakeState()
    state.seat_zones = [[[0, 1], [], [3]]]
    value, source = _run("count(s for s in seats if len(hand[s]) > 0)", state)
    assert value == 2
    assert "s.seat_zones[0][v" in source and "_index(" not in source and "0 <= " not in source, source
    # a seat given to a definition: the temp holding turn_player indexes directly too
    state.turn_player, state.window = 2, 0
    value, source = _run("size(turn_player) + size(0)", state, {"size(p)": "len(hand[p]) * 10 + len(hand[p])"})
    assert value == 11 + 22
    assert "_index(" not in source and "0 <= " not in source, source  # seat 0 as a number: in range too
    assert _run("len(hand[0]) + len(hand[2])", state)[0] == 3


def test_the_length_of_a_zone_family_or_of_a_zone_per_seat_is_a_constant():
    state = FakeState()
    state.table_zones = [[], [0], [], [1, 2], [3], []]
    state.seat_zones = [[[0, 1], [], [3]]]
    before = state.budget
    value, source = _run("range(1, len(piles) + 1)", state)
    assert value == [1, 2, 3, 4] and state.budget == before
    assert "_fn_len" not in source and "_fn_range" not in source, source  # folded when the rules load
    value, source = _run("len(hand) * 10 + len(piles[1])", state)
    assert value == 30 + 0  # piles[1] is table zone 2, empty; hand: a zone per seat
    assert _run("len(piles[2])", state)[0] == 2  # one pile's length is read at play time


def test_distinct_of_single_values_is_one_call_charged_as_before():
    state = FakeState()
    state.table_vars = [[4, 5, 4, 7, 5]]
    before = state.budget
    value, source = _run("distinct(used)", state)
    assert value == [4, 5, 7] and before - state.budget == 5  # its items, as `_charged` charges them
    assert "_distinct_items(s, " in source and "_charged" not in source, source
    state.seat_zones = [[[0, 1], [1], [0, 1]]]
    before = state.budget
    value, source = _run("distinct(list(hand[s] for s in seats))", state)
    assert value == [[0, 1], [1]] and "_charged(s, _fn_distinct" in source, source  # lists within: the walk
    assert before - state.budget == 3 + 3 + 5  # the seats looped (3), the lists (3) and their items (5)


def test_membership_of_a_number_is_charged_the_length_of_the_list_without_a_call():
    state = FakeState()
    state.table_vars = [[4, 5, 6, 7]]
    before = state.budget
    value, source = _run("5 in used", state)
    assert value is True and before - state.budget == 4
    assert "_in(" not in source, source
    state.table_vars = [None]  # `x in null` is false, and charges nothing
    before = state.budget
    value, _ = _run("5 in used", state)
    assert value is False and state.budget == before
    state.table_vars = [[1, 2]]
    assert _run("9 in used", state)[0] is False


def test_an_attribute_of_a_card_at_a_zones_end_is_null_when_the_zone_is_too_short():
    state = FakeState()
    state.seat_zones = [[[0, 1], [2], []]]
    for seat, rank, second in ((0, 3, 7), (1, None, None), (2, None, None)):
        value, source = _run(f"hand[{seat}][-1].rank", state)
        assert value == rank
        assert _run(f"hand[{seat}][-2].rank", state)[0] == second
        assert "None if" not in source, source  # one test: is the card there


def _tiny(tmp_path, allowed, choices, text="play {card} {x} {y}"):
    source = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    source = source.replace('choices: {card: "hand[current_player]"}', f"choices: {choices}")
    source = source.replace('text: "play {card}"', f'text: "{text}"')
    source = source.replace("allowed: true and true", f"allowed: {allowed}")
    path = tmp_path / "tiny.yaml"
    path.write_text(source, "utf-8")
    return trickkit.load_game(path)


def _both(game, monkeypatch, deal):
    fast = [a.text for a in game.new_initial_state(seed=1, deals=deal).legal_actions()]
    with monkeypatch.context() as m:
        _general(m)
        slow = [a.text for a in game.new_initial_state(seed=1, deals=deal).legal_actions()]
    return fast, slow


def test_a_constant_choice_is_made_distinct_once_when_the_game_loads(tmp_path, monkeypatch):
    game = _tiny(tmp_path, "card.rank >= x", '{card: "hand[current_player]", x: "[2, 1, 2, 3]"}', "play {card} {x}")
    source = game.rules.generated_source
    assert "_distinct_values" not in source, source
    fast, slow = _both(game, monkeypatch, [[["1", "3", "2"], ["4", "4", "5"]]])
    assert fast == slow == ["play 1 1", "play 2 2", "play 2 1", "play 3 2", "play 3 1", "play 3 3"]


def test_a_part_naming_only_a_middle_choice_is_computed_once_per_value_before_the_loops(tmp_path, monkeypatch):
    choices = '{card: "hand[current_player]", x: "range(0, 3)", y: "range(0, 2)"}'
    for zero, allowed in (
        ("", "card.rank + y > 6 // (x + 1)"),
        # computed before the loops, `6 // x` fails for x == 0 (which `x == 0 or` guards):
        # the engine's general path then decides, as if each combination were tested
        ("0", "x == 0 or card.rank + y > 6 // x"),
    ):
        game = _tiny(tmp_path, allowed, choices)
        kind = _turn_steps(game)[0].kinds[0]
        source = game.rules.generated_source.split(f"def {kind.combo_filter.__name__}(")[1].split("\ndef ")[0]
        head = source.split("out = []")[0]
        assert "for a1 in domains[1]:" in head and "for a1, h" in source, source
        for hand in (["1", "4", "5"], ["5", "5", "2"], ["2", "6", "1"]):
            fast, slow = _both(game, monkeypatch, [[hand, ["3", "3", "6"]]])
            assert fast == slow, (allowed, hand)
            want = [
                f"play {c} {x} {y}"
                for c in sorted(set(map(int, hand)))
                for x in range(3)
                for y in range(2)
                if (zero and x == 0) or c + y > 6 // (x + (0 if zero else 1))
            ]
            assert fast == want, (allowed, hand)


def test_a_large_definition_over_the_choices_is_inlined_in_the_combination_filter(tmp_path):
    big = " + ".join(f"(if x.rank > {i} then 1 else 0)" for i in range(8))  # past 60 tree nodes
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "high(card) >= 3")
    text = text.replace("game_over:", f'definitions:\n  high(x): "{big}"\ngame_over:')
    path = tmp_path / "tiny.yaml"
    path.write_text(text, "utf-8")
    game = trickkit.load_game(path)
    step = next(st for st in game.rules.steps if st.kind == "turns")
    combo = step.kinds[0].combo_filter
    assert combo.__name__ in game.rules.generated_source
    body = game.rules.generated_source.split(f"def {combo.__name__}(")[1].split("\ndef ")[0]
    assert "_d" not in body and "s.budget -= 1" in body, body  # inlined, its call's charge written out
    kind = step.kinds[0]
    test = kind.choice_test if kind.choice_test is not None else kind.allowed
    for seed in range(4):  # the same combinations, charged the same, as a call per combination
        fast_state = game.new_initial_state(seed=seed)
        slow_state = fast_state.clone()
        domains = turns._domains(fast_state, kind)
        fast = combo(fast_state, (), domains)
        slow = [c for c in itertools.product(*domains) if test(slow_state, *c)]
        assert fast == slow
        assert fast_state.budget == slow_state.budget < game.new_initial_state(seed=seed).budget


def test_a_zone_compared_empty_or_not_is_tested_by_its_truth_without_a_call():
    state = FakeState()
    state.table_zones = [[], [0], [], [1, 2], [3], []]
    state.seat_zones = [[[0, 1], [], [3]]]
    for text, want in [
        ("count(s for s in seats if len(hand[s]) == 0)", 1),
        ("count(s for s in seats if len(hand[s]) != 0)", 2),
        ("count(p for p in piles if len(p) > 0)", 3),
    ]:
        before = state.budget
        value, source = _run(text, state)
        assert value == want, text
        assert "_len(v" not in source and "_fn_len" not in source and "(not " in source, source
        assert before - state.budget == (3 if "seats" in text else 4)  # charged the loop only, as len() was
    # other comparisons call len(), and a zone that may be missing (an index out of range) is
    # left to len(), which fails (then the general path reports it, located)
    value, source = _run("len(hand[1]) > 1 or len(piles[score[0]]) == 0", state)
    assert "_len(s.seat_zones[0][1]) > 1" in source and "_fn_len(" in source, source


def test_a_choice_over_constant_numbers_indexes_a_zone_family_without_a_check(monkeypatch):
    # Saqqara's place {artifact} {row} {end}: row in range(1, 4), so rows[row - 1] is a row for
    # sure (no range check), and end in ['left', 'right'] is unrolled: a test per end
    game = trickkit.load_game("saqqara")
    kind = next(k for k in _turn_steps(game)[-1].kinds if k.name == "place")
    for flt in (kind.combo_filter, kind.combo_first):
        source = game.rules.generated_source.split(f"def {flt.__name__}(")[1].split("\ndef ")[0]
        assert re.search(r"s\.table_zones\[6 \+ h[0-9]+\]", source) and " if 0 <= " not in source, source
        assert "for a2" not in source and "'left')" in source and "'right')" in source, source
    rng = __import__("random").Random(3)
    fast, slow = [], []
    for g in range(4):
        s = game.new_initial_state(seed=g)
        while not s.is_terminal():
            legal = s.legal_actions()
            fast.append([a.text for a in legal])
            s.apply_action(rng.choice(legal))
    rng = __import__("random").Random(3)
    with monkeypatch.context() as m:
        _general(m)
        for g in range(4):
            s = game.new_initial_state(seed=g)
            while not s.is_terminal():
                legal = s.legal_actions()
                slow.append([a.text for a in legal])
                s.apply_action(rng.choice(legal))
    assert fast == slow and any(a.startswith("place") for x in fast for a in x)
