"""A turns action's choice domains, whatever values its rule gives: a list among them is
refused clearly (a load error where the type is known, a located runtime error otherwise),
repeated values give one action (one text, one id), and null and true/false read as the DSL
writes them."""

from __future__ import annotations

import os
import textwrap
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit import DSLRuntimeError, RulesetError
from trickkit.engine import turns

GAME = """
format: 1
name: tiny
title: Tiny
players: {min: 2, max: 3, default: 2}
deck:
  - rank: {from: 1, to: 6}
    text: "{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  table: {owner: table, visibility: public}
table_variables:
  v: {initial: null}
  t: {initial: 'a'}
game_over: "true"
score: "0"
round:
  - deal: {count: 2}
  - turns:
      first: "0"
      until: all(len(h) == 0 for h in hand)
      actions:
        play:
          text: "play {card} {x}"
          choices: {card: "hand[current_player]", x: "DOMAIN"}
          allowed: ALLOWED
          effect: |
            move(card, hand[current_player], table)
            end_turn()
"""

_SCALARS = st.sampled_from(["1", "2", "0", "'a'", "'b'", '"a"', "null", "v", "t", "true", "false"])
_ITEMS = _SCALARS | st.lists(_SCALARS, min_size=0, max_size=2).map(lambda xs: "[" + ", ".join(xs) + "]")
_DOMAINS = st.tuples(st.lists(_ITEMS, min_size=1, max_size=5), st.sampled_from(["{}", "{} + []", "concat([{}])"]))


def _load(tmp_path, domain: str, allowed: str = "true"):
    path = tmp_path / "tiny.yaml"
    text = textwrap.dedent(GAME).lstrip().replace("DOMAIN", domain.replace('"', '\\"')).replace("ALLOWED", allowed)
    path.write_text(text, "utf-8")
    return trickkit.load_game(path)


@settings(
    max_examples=int(os.environ.get("TRICKKIT_HOSTILE_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(domain=_DOMAINS, allowed=st.sampled_from(["true", "str(x) != 'z'"]), general=st.booleans())
def test_choice_domains_give_distinct_actions_or_a_clear_error(tmp_path, domain, allowed, general):
    items, shape = domain
    rule = shape.format("[" + ", ".join(items) + "]")
    has_list = any(i.startswith("[") for i in items)
    try:
        game = _load(tmp_path, rule, allowed)
    except RulesetError as e:
        assert has_list, (rule, e)  # only a list of lists is refused at load
        assert "a choice takes single values" in str(e) and "$.round[1].turns.actions.play.choices.x" in str(e)
        return
    state = game.new_initial_state(seed=1)
    before = state.to_json()
    with mock.patch.object(turns, "_run_pass", lambda s, fn: None) if general else mock.MagicMock():
        try:
            actions = state.legal_actions()
        except DSLRuntimeError as e:
            assert has_list, (rule, e)
            assert "choices.x" in str(e) and "a choice takes single values" in str(e)
            assert state.to_json() == before
            return
    assert not has_list, (rule, actions)  # a list among the values is never offered
    texts = [a.text for a in actions]
    assert len(set(texts)) == len(texts), (rule, texts)
    assert not any(w in t.split() for t in texts for w in ("None", "True", "False")), texts
    ids = game.action_space.ids_of(actions)
    assert len(set(ids)) == len(ids)
    if actions:
        state.apply_action(texts[-1])


@pytest.mark.parametrize(
    "domain,expected",
    [
        ("[1, 1, 2]", ["1", "2"]),
        ("['a', 'a', \"a\"]", ["a"]),
        ("[null, 1]", ["null", "1"]),
        ("[v, v, 2]", ["null", "2"]),
        ("[true, false]", ["true", "false"]),
        ("range(1, 3) + range(1, 3)", ["1", "2"]),
    ],
)
def test_repeated_values_are_offered_once_and_read_as_the_dsl_writes_them(tmp_path, domain, expected):
    game = _load(tmp_path, domain)
    state = game.new_initial_state(seed=1)
    texts = [a.text for a in state.legal_actions()]
    cards = list(dict.fromkeys(t.split()[1] for t in texts))
    assert texts == [f"play {c} {x}" for c in cards for x in expected]


def test_a_list_of_lists_is_a_load_error_and_a_computed_one_a_located_runtime_error(tmp_path):
    with pytest.raises(RulesetError, match=r"tiny\.yaml:\d+:\d+: \$\.round\[1\]\.turns\.actions\.play\.choices\.x: "):
        _load(tmp_path, "[[1], [2]]")
    state = _load(tmp_path, "if v == null then [[1]] else [1]").new_initial_state(seed=1)
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"choices\.x: choice 'x' of action 'play' offers \[1\]"):
        state.legal_actions()
    assert state.to_json() == before
