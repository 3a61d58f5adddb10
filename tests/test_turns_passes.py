"""The generated passes of turns steps (`trickkit.dsl.compiler.Compiler.kinds_pass`): the shipped
turns games use them, they agree with the engine's general path (`trickkit.engine.turns`) on random
states, budget included, and a rule that fails inside one still fails located."""

from __future__ import annotations

import random
import re
import textwrap
from pathlib import Path

import attrs
import pytest

import trickkit
from trickkit.engine import turns
from trickkit.errors import DSLRuntimeError

TURNS_GAMES = ["saqqara", "trumps", "crazy_eights", "six_nimmt", "hearts", "euchre", "love_letter"]
"""Every shipped game with a turns step (checked below, so a new one cannot be missed)."""

SAQQARA_LOOKAHEAD = str(Path(__file__).parent / "data" / "saqqara_lookahead.yaml")
"""Saqqara as it was written with `lookahead: placed == 0` (the shipped one now tests a second
placement in `allowed`): a game whose lookahead trials run at many decisions."""


def _turn_steps(game):
    return [st for st in game.rules.steps if st.kind == "turns"]


def test_every_shipped_turns_step_and_window_has_its_generated_passes():
    for name in trickkit.list_games() if hasattr(trickkit, "list_games") else TURNS_GAMES:
        game = trickkit.load_game(name)
        steps = _turn_steps(game)
        assert bool(steps) == (name in TURNS_GAMES), name
        for st in steps:
            assert st.passes is not None, name
            assert all(w.passes is not None for w in st.windows), name


def test_the_generated_passes_are_what_legal_actions_runs(monkeypatch):
    game = trickkit.load_game("saqqara")
    calls = []
    real = turns._run_pass
    monkeypatch.setattr(turns, "_run_pass", lambda s, fn: calls.append(fn) or real(s, fn))
    state = game.new_initial_state(seed=3)
    turns.legal_turns(game, game.rules.steps[state.step], state)  # the general path (State runs the planned one)
    assert calls and all(fn is not None for fn in calls)


def _general(monkeypatch):
    """Make every turns decision take the general path (as when a generated pass fails)."""
    monkeypatch.setattr(turns, "_run_pass", lambda s, fn: None)


def _decisions(name, games, seed):
    """Random play of ``name``: a clone of every state where a turns step decides."""
    game = trickkit.load_game(name)
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_initial_state(seed=seed * 100 + g)
        while not state.is_terminal():
            if game.rules.steps[state.step].kind == "turns":
                yield game, state.clone()
            state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", TURNS_GAMES)
def test_generated_passes_agree_with_the_general_path(name, monkeypatch):
    checked = 0
    games = {"trumps": 1, "euchre": 10}.get(name, 3)  # Euchre: one turns decision (the discard) per hand at most
    for game, state in _decisions(name, games, seed=7):
        step = game.rules.steps[state.step]
        kinds = turns._kinds_now(state, step)
        passes = turns._passes_of(state, step)
        fast_state, slow_state = state.clone(), state.clone()
        fast = turns.legal_turns(game, step, fast_state)
        fast_any = [turns._any_passes(game, fast_state, (k,)) for k in kinds]
        fast_all = turns._any_passes(game, fast_state, kinds, passes)
        fast_can = [turns.kind_available(game, fast_state, step, k.name) for k in kinds]
        with monkeypatch.context() as m:
            _general(m)
            slow = turns.legal_turns(game, step, slow_state)
            slow_any = [turns._any_passes(game, slow_state, (k,)) for k in kinds]
            slow_all = turns._any_passes(game, slow_state, kinds, passes)
            slow_can = [turns.kind_available(game, slow_state, step, k.name) for k in kinds]
        assert [a.text for a in fast] == [a.text for a in slow]
        assert fast == slow  # the same Action objects, in the same order
        assert (fast_any, fast_all, fast_can) == (slow_any, slow_all, slow_can)
        assert fast_state.budget == slow_state.budget  # every rule charged as the general path charges it
        assert fast_state.to_json() == slow_state.to_json() == state.to_json()
        checked += 1
    assert checked > 50


def test_a_trial_state_gets_the_same_answer_from_both_paths(monkeypatch):
    # the lookahead's question (one level deep): is some action allowed after this one?
    checked = 0
    for game, state in _decisions(SAQQARA_LOOKAHEAD, 2, seed=11):
        step = game.rules.steps[state.step]
        trial = state._trial()
        fast = turns._any_passes(game, trial, step.kinds, step.passes)
        budget = trial.budget
        with monkeypatch.context() as m:
            _general(m)
            trial.budget = state.budget
            assert turns._any_passes(game, trial, step.kinds, step.passes) == fast
        assert trial.budget == budget
        checked += 1
    assert checked > 50  # two games' decisions were asked (not a loop over nothing)


HEAD = """
format: 1
name: tiny
title: Tiny
players: {min: 2, max: 3, default: 2}
deck:
  - rank: {from: 1, to: 6}
    text: "{rank}"
    copies: 2
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  table: {owner: table, visibility: public}
table_variables:
  zero: {initial: 0}
game_over: "true"
score: "0"
round:
  - deal: {count: 3}
  - turns:
      first: "0"
      until: all(len(h) == 0 for h in hand)
      actions:
        play:
          text: "play {card}"
          choices: {card: "hand[current_player]"}
          allowed: GUARD and CHOICE
          effect: |
            move(card, hand[current_player], table)
            end_turn()
"""


def _tiny(tmp_path, guard="true", choice="true"):
    path = tmp_path / "tiny.yaml"
    path.write_text(textwrap.dedent(HEAD).lstrip().replace("GUARD", guard).replace("CHOICE", choice), "utf-8")
    return trickkit.load_game(path)


def test_copies_are_offered_once_by_the_generated_pass(tmp_path):
    game = _tiny(tmp_path, guard="len(table) >= 0", choice="card.rank > 0")
    assert _turn_steps(game)[0].passes is not None
    state = game.new_initial_state(seed=1, deals=[[["1", "1", "2"], ["3", "3", "4"]]])
    assert [a.text for a in state.legal_actions()] == ["play 1", "play 2"]


@pytest.mark.parametrize(
    "guard, choice",
    [("1 // zero == 0", "true"), ("true", "card.rank // zero == 0"), ("len(table) >= 0", "card.rank // zero == 0")],
)
def test_a_rule_failing_inside_a_generated_pass_is_a_located_error(tmp_path, guard, choice):
    game = _tiny(tmp_path, guard=guard, choice=choice)
    assert _turn_steps(game)[0].passes is not None
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: .*actions\.play\.allowed.*ZeroDivisionError"):
        game.new_initial_state(seed=1).legal_actions()


def test_each_lookahead_is_tried_once_per_decision(monkeypatch):
    # Saqqara's discard asks can('place') (every placement tried ahead) before the legal list
    # tries the same placements: the answers are shared, not tried twice
    tried = []
    real = turns._trial_passes
    monkeypatch.setattr(
        turns,
        "_trial_passes",
        lambda game, s, kind, combo: tried.append((id(kind), combo)) or real(game, s, kind, combo),
    )
    asked_can = 0
    for _, state in _decisions(SAQQARA_LOOKAHEAD, 3, seed=5):
        tried.clear()
        legal = state.legal_actions()
        assert len(tried) == len(set(tried))
        if any(a.verb == "place" for a in legal) and len(state.seat_zones[0][state.current]) >= 5:
            asked_can += 1
    assert asked_can > 0


def _everything(s):
    """Every field of a state, by value (lists copied deeply, the generator by its state), and
    the identity of each zone and variable list."""
    from trickkit.engine.state import State

    def value(v):
        if isinstance(v, list):
            return [value(x) for x in v]
        if isinstance(v, dict):
            return {k: value(x) for k, x in v.items()}
        return v

    out = {}
    for name in State.__slots__:
        v = getattr(s, name)
        out[name] = v.getstate() if isinstance(v, random.Random) else value(v)
    lists = [s.seat_zones, s.table_zones, s.seat_vars, s.table_vars, *s.seat_zones, *s.table_zones, *s.seat_vars]
    lists += [z for zones in s.seat_zones for z in zones]
    out["identities"] = [id(x) for x in lists]
    return out


@pytest.mark.parametrize("name", [*TURNS_GAMES, SAQQARA_LOOKAHEAD])
def test_a_trial_in_place_leaves_the_state_exactly_as_it_was(name):
    # Every allowed combination of every kind, at random decisions of every turns game, tried
    # on the state itself: afterwards every field is as before (the generator and the very list
    # objects included) but the budget, which is charged what the trial spent, as a trial on a
    # copy charges it; and the answer is the one a trial on a copy gives.
    tried = drawing = 0
    for game, state in _decisions(name, 2 if name != "trumps" else 1, seed=13):
        step = game.rules.steps[state.step]
        for kind in turns._kinds_now(state, step):
            if turns._draws(kind.effect):
                drawing += 1
                continue
            state.memo = {}  # as while the legal actions are found
            combos = turns._combinations(state, kind)
            state.memo = None
            for combo in combos[:6]:
                before = _everything(state)
                budget = state.budget
                on_copy = turns._trial_on_copy(game, state, kind, combo)
                spent = budget - state.budget
                assert _everything(state)["identities"] == before["identities"]
                before = _everything(state)  # the copy took a snapshot of the generator: same draws
                assert turns._trial_in_place(game, state, kind, combo) == on_copy, (kind.name, combo)
                after = _everything(state)
                assert before.pop("budget") - after.pop("budget") == spent >= 0, (kind.name, combo)
                assert after == before, (kind.name, combo)
                state.budget = budget
                tried += 1
    assert tried > 30
    if name == "trumps":
        assert drawing > 0  # the High Priestess draws a random card: tried on a copy


def test_a_failing_effect_in_a_trial_in_place_leaves_the_state_as_it_was():
    game, state = next(
        (g, s) for g, s in _decisions(SAQQARA_LOOKAHEAD, 1, seed=3) if any(a.verb == "place" for a in s.legal_actions())
    )
    kind = next(k for k in game.rules.steps[state.step].kinds if k.name == "place")
    combo = next(a.choices for a in state.legal_actions() if a.verb == "place")
    before = _everything(state)

    def failing(s, *choices):
        s.table_zones[0].append(99)
        s.turn_over = True
        raise ValueError("boom")

    kind = attrs.evolve(kind, effect=failing)  # a kind like place whose effect fails half-way
    with pytest.raises(ValueError):
        turns._trial_in_place(game, state, kind, combo)
    assert _everything(state) == before


def test_an_effect_failing_in_a_lookahead_trial_is_a_located_error(tmp_path):
    # the trial in place runs the effect's bare function; when it fails, the state is put back
    # and the trial runs again on a copy through the hook, which names the rule
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace("            end_turn()\n", "            zero = 1 // zero\n            end_turn()\n")
    text = text.replace("          effect: |\n", "          lookahead: true\n          effect: |\n")
    path = tmp_path / "tiny.yaml"
    path.write_text(text, "utf-8")
    state = trickkit.load_game(path).new_initial_state(seed=1)
    before = state.to_json(), state.seat_zones, state.table_zones, state.table_vars
    copies = [[*z] for z in state.seat_zones[0]], [*state.table_vars]
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: .*actions\.play\.effect.*ZeroDivisionError"):
        state.legal_actions()
    assert (state.to_json(), state.seat_zones, state.table_zones, state.table_vars) == before
    assert state.seat_zones is before[1] and state.table_vars is before[3]
    assert ([[*z] for z in state.seat_zones[0]], [*state.table_vars]) == copies


def test_a_part_naming_the_first_choices_is_computed_in_their_loop(tmp_path, monkeypatch):
    # `6 // x` names only the first choice: the filter computes it once per x, before the loop
    # over y. Computed there it fails for x == 0 (which `x == 0 or` guards): the engine's
    # general path then decides, with the same answer as testing each combination
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace(
        'choices: {card: "hand[current_player]"}',
        'choices: {card: "hand[current_player]", x: "range(0, 3)", y: "range(0, 2)"}',
    )
    text = text.replace('text: "play {card}"', 'text: "play {card} {x} {y}"')
    text = text.replace("allowed: true and true", "allowed: card.rank > 0 and (x == 0 or 6 // x + y > ZERO)")
    results = []
    for zero in ("3", "0"):
        path = tmp_path / f"tiny{zero}.yaml"
        path.write_text(text.replace("ZERO", zero), "utf-8")
        game = trickkit.load_game(path)
        kind = _turn_steps(game)[0].kinds[0]
        source = game.rules.generated_source.split(f"def {kind.combo_filter.__name__}(")[1].split("\ndef ")[0]
        # (once per x: in the loop over x, or before every loop when it names x alone)
        assert re.search(r"for a1 in domains\[1\]:\n +h", source) and "(6 // a1)" in source.split("for a2")[0], source
        state = game.new_initial_state(seed=1)
        fast = [a.text for a in state.legal_actions()]
        with monkeypatch.context() as m:
            _general(m)
            slow = [a.text for a in game.new_initial_state(seed=1).legal_actions()]
        assert fast == slow
        results.append(fast)
    hand = sorted({a.split()[1] for a in results[1]})
    assert results[1] == [f"play {c} {x} {y}" for c in hand for x in range(3) for y in range(2)]
    assert results[0] == [
        f"play {c} {x} {y}" for c in hand for x in range(3) for y in range(2) if x == 0 or 6 // x + y > 3
    ]


@pytest.mark.parametrize(
    ("allowed", "skips", "bulk"),
    [
        # a conjunct naming only the card: no x or y is tried for a card that fails it; the
        # test is whole before the loop over y: every y is taken in one call
        ("card.rank > 3 and x != 1", ["if not h", "continue"], True),
        # alternatives whose card parts all fail: the card is skipped
        ("card.rank == 2 and x + y > 1 or card.rank == 5 and x != y", ["if not ((h", "continue"], False),
        # nothing to decide early: every combination is tested
        ("x + y > card.rank - 4", [], False),
    ],
)
def test_a_combination_filter_skips_the_choices_that_cannot_pass(tmp_path, monkeypatch, allowed, skips, bulk):
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace(
        'choices: {card: "hand[current_player]"}',
        'choices: {card: "hand[current_player]", x: "range(0, 3)", y: "range(0, 2)"}',
    )
    text = text.replace('text: "play {card}"', 'text: "play {card} {x} {y}"')
    text = text.replace("allowed: true and true", f"allowed: {allowed}")
    path = tmp_path / "skips.yaml"
    path.write_text(text, "utf-8")
    game = trickkit.load_game(path)
    kind = _turn_steps(game)[0].kinds[0]
    source = game.rules.generated_source.split(f"def {kind.combo_filter.__name__}(")[1].split("\ndef ")[0]
    for part in skips:
        assert part in source, source
    assert ("continue" in source) == bool(skips), source
    # (y, two constant values, is a loop where x or the card are skipped, else unrolled: a test per y)
    tested = "for a2" in source or "out.append((a0, a1, 1))" in source
    assert ("_iproduct" in source) == bulk and tested == (not bulk), source
    assert ("for a2" in source) == (bool(skips) and not bulk), source
    assert _turn_steps(game)[0].passes[0].rows == (False,)  # y has too few values for whole rows
    for hand in (["1", "4", "5"], ["5", "5", "2"], ["4", "6", "2"]):  # seat 0's (seat 1 holds 3 3 6)
        deal = [[hand, ["3", "3", "6"]]]
        fast = [a.text for a in game.new_initial_state(seed=1, deals=deal).legal_actions()]
        with monkeypatch.context() as m:
            _general(m)
            slow = [a.text for a in game.new_initial_state(seed=1, deals=deal).legal_actions()]
        assert fast == slow
        assert fast  # (some combination passes in each of these hands)


def test_short_rules_of_the_state_alone_are_inlined_in_the_generated_passes():
    # Trumps' power guards (`power(1)` ...) are one line each: the pass runs them itself,
    # calling the definition, instead of calling each guard's function
    game = trickkit.load_game("trumps")
    step = _turn_steps(game)[-1]
    source = game.rules.generated_source
    assert len(step.passes) >= 2  # the loop below has two passes to read
    for fn in step.passes[:2]:
        text = source.split(f"def {fn.__name__}(")[1].split("\ndef ")[0]
        for kind in step.kinds:
            if kind.name in ("magician", "wheel", "tower"):
                assert f"{kind.guard.fn.__name__}(s, ())" not in text, kind.name
        assert text.count("(s, ())") < len(step.kinds)  # most rules inlined, none dropped


@pytest.mark.parametrize(
    "until, message",
    [
        ("if 1 // zero == 0 then flag else flag", r"until: ZeroDivisionError: integer division or modulo by zero in"),
        ("if zero == 0 then null else flag", r"until: expected true or false, got None in"),
    ],
)
def test_a_checked_until_called_bare_still_fails_located(tmp_path, until, message):
    # `until` may be null (a variable), so its result is checked; the check calls the rule's
    # generated function itself, and on a failure its hook, which names the rule
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace("  zero: {initial: 0}", "  zero: {initial: 0}\n  flag: {initial: false}")
    path = tmp_path / "tiny.yaml"
    path.write_text(text.replace("until: all(len(h) == 0 for h in hand)", f"until: {until}"), "utf-8")
    game = trickkit.load_game(path)
    assert _turn_steps(game)[0].until.checks == "bool"
    with pytest.raises(DSLRuntimeError, match=r"tiny\.yaml:\d+:\d+: \$\.round\[1\]\.turns\." + message):
        game.new_initial_state(seed=1)


def test_distinct_cards_keeps_the_first_copy_of_each_text_in_hands_of_any_size():
    from trickkit.dsl.runtime import distinct_cards

    texts = ["A", "A", "B"]
    assert distinct_cards([], texts) == [] and distinct_cards([2], texts) == [2]
    assert distinct_cards([1, 0], texts) == [1] and distinct_cards([1, 2], texts) == [1, 2]
    assert distinct_cards([None, None], texts) == [None, None] and distinct_cards([0, None], texts) == [0, None]
    assert distinct_cards([0, 2, 1, None, 2], texts) == [0, 2, None]
    hand = [0]
    assert distinct_cards(hand, texts) is not hand  # a new list: the zone itself is never handed out


def test_a_kind_decided_before_its_last_choice_comes_as_rows_of_actions(tmp_path, monkeypatch):
    # the last choice has enough constant values: the pass gives rows, the engine each row's actions whole
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", "true").replace("CHOICE", "true")
    text = text.replace(
        'choices: {card: "hand[current_player]"}', 'choices: {card: "hand[current_player]", x: "range(0, 7)"}'
    )
    text = text.replace('text: "play {card}"', 'text: "play {card} {x}"')
    text = text.replace("allowed: true and true", "allowed: card.rank != 4")
    path = tmp_path / "rows.yaml"
    path.write_text(text, "utf-8")
    game = trickkit.load_game(path)
    assert _turn_steps(game)[0].passes[0].rows == (True,)
    for hand in (["1", "4", "5"], ["5", "5", "2"], ["1", "4", "5"], ["6", "2", "4"]):
        deal = [[hand, ["3", "3", "6"]]]
        fast = [a.text for a in game.new_initial_state(seed=1, deals=deal).legal_actions()]
        with monkeypatch.context() as m:
            _general(m)
            slow = [a.text for a in game.new_initial_state(seed=1, deals=deal).legal_actions()]
        assert fast == slow == [f"play {c} {x}" for c in sorted(set(hand) - {"4"}) for x in range(7)]


def test_a_kind_a_rule_asks_about_with_can_has_a_generated_pass_of_its_own(monkeypatch):
    game = trickkit.load_game("saqqara")  # discard: `... and not can('place')`
    step = game.rules.steps[2]
    by_kind = step.passes[1].by_kind
    assert set(by_kind) == {"place"}  # only the kind asked about: the others cost nothing at load
    state = next(st for g, st in _decisions("saqqara", 1, seed=2) if st.step == 2)
    ran = []
    real = turns._run_pass
    monkeypatch.setattr(turns, "_run_pass", lambda s, fn: ran.append(fn) or real(s, fn))
    budget = state.budget
    assert turns.kind_available(game, state, step, "place") is True
    assert ran == [by_kind["place"]]
    assert state.budget < budget  # its rules charged, as the general path charges them


def test_can_is_answered_from_the_combinations_the_legal_pass_found_before(monkeypatch):
    game = trickkit.load_game("saqqara")  # discard's `not can('place')`, place coming first
    step = game.rules.steps[2]
    assert step.passes[0].kept == (2,)  # place, the third kind
    ran = []
    real = turns._run_pass
    monkeypatch.setattr(turns, "_run_pass", lambda s, fn: ran.append(fn) or real(s, fn))
    asked = 0
    for _, state in _decisions("saqqara", 2, seed=4):
        if state.step != 2 or len(state.seat_zones[0][state.current]) < 5 or any(state.table_vars[1:5]):
            continue  # not a turn's start with a full hand: discard does not ask
        ran.clear()
        legal = state.legal_actions()
        assert step.passes[1].by_kind["place"] not in ran  # place's own pass did not run again
        assert any(a.verb == "place" for a in legal) != any(a.verb == "discard" for a in legal)
        asked += 1
    assert asked > 5


@pytest.mark.parametrize("guard", ["card.rank > 0", "len(table) >= 0"])
def test_two_kinds_offering_the_same_hand_offer_each_card_text_once(tmp_path, guard):
    """Two kinds choosing from the hand share its distinct cards, a hand of two made distinct
    inline (a pair of copies: one card), any other hand by the helper; made at the top of the
    pass, or with a guard before it, by the first kind that reaches it."""
    text = textwrap.dedent(HEAD).lstrip().replace("GUARD", guard).replace("CHOICE", "card.rank < 9")
    text = text.replace("count: 3", "count: COUNT")
    text += textwrap.indent(
        textwrap.dedent(
            """\
            toss:
              text: "toss {card}"
              choices: {card: "hand[current_player]"}
              allowed: card.rank > 1
              effect: |
                move(card, hand[current_player], table)
                end_turn()
            """
        ),
        " " * 8,
    )
    path = tmp_path / "tiny.yaml"
    for count, hands, want in [
        (2, [["1", "1"], ["3", "4"]], ["play 1"]),
        (2, [["2", "2"], ["3", "4"]], ["play 2", "toss 2"]),
        (2, [["1", "2"], ["3", "4"]], ["play 1", "play 2", "toss 2"]),
        (3, [["2", "2", "5"], ["3", "4", "4"]], ["play 2", "play 5", "toss 2", "toss 5"]),
        (1, [["2"], ["3"]], ["play 2", "toss 2"]),
    ]:
        path.write_text(text.replace("COUNT", str(count)), "utf-8")
        game = trickkit.load_game(path)
        assert game.rules.steps[1].passes[0].flat is not None
        source = game.rules.generated_source
        assert "_distinct_cards(p" in source and "elif _T" in source
        flat = source.split(f"def {game.rules.steps[1].passes[0].flat.__name__}(")[1].split("\ndef ")[0]
        assert ("if p0 is None:" in flat) == (guard != "card.rank > 0"), flat
        state = game.new_initial_state(seed=1, deals=[hands])
        assert [a.text for a in state.legal_actions()] == want
