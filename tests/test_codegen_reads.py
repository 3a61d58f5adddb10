"""Generated code that reads less (Trumps' speed, issue 32): a kinds pass calls a state-only
definition that several kinds read once, and a loop over a list written out of values that are
there (``[trumps[me], world[me]]``) reads its items without null checks, charged its known length.
Each gives what the code it replaces gives, budget included."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import trickkit

sys.path.insert(0, str(Path(__file__).parent))
from test_codegen_tight import _both, _tiny
from test_turns_passes import _decisions, _general

from trickkit.engine import turns


def _function(source: str, name: str) -> str:
    return source.split(f"def {name}(")[1].split("\ndef ")[0]


def test_a_kinds_pass_calls_a_definition_the_kinds_share_once():
    game = trickkit.load_game("trumps")
    step = game.rules.steps[2]
    body = _function(game.rules.generated_source, step.passes[0].__name__)
    # every power reads `powers_ready` through one local, called only while it is unset
    assert "p0 = _MISS" in body and body.count("if p0 is _MISS:") == body.count("p0 = _d") >= 8, body
    reads = re.findall(r"^ *[th][0-9]+ = (_d[0-9]+)\(s\)$", body, re.M)
    assert len(reads) == len(set(reads)), reads  # no other definition read by several kinds


def test_a_shared_definition_read_once_charges_the_budget_as_the_general_path(monkeypatch):
    checked = 0
    for game, state in _decisions("trumps", 1, seed=3):
        step = game.rules.steps[state.step]
        fast_state, slow_state = state.clone(), state.clone()
        fast = turns.legal_turns(game, step, fast_state)
        with monkeypatch.context() as m:
            _general(m)
            slow = turns.legal_turns(game, step, slow_state)
        assert fast == slow
        assert fast_state.budget == slow_state.budget
        checked += 1
    assert checked > 50


def test_a_loop_over_a_written_list_of_zones_reads_them_without_null_checks(tmp_path, monkeypatch):
    game = _tiny(
        tmp_path,
        "card.rank > count(z for z in [hand[current_player], table] if len(z) > x)",
        '{card: "hand[current_player]", x: "[0, 2]"}',
        "play {card} {x}",
    )
    source = game.rules.generated_source
    assert "_fn_len(" not in source and "s.budget -= 2" in source, source
    fast, slow = _both(game, monkeypatch, [[["1", "3", "2"], ["4", "4", "5"]]])
    # the hand holds 3 cards, the table none: one zone has more than 0 (or 2) cards, so rank > 1
    assert fast == slow == ["play 2 0", "play 2 2", "play 3 0", "play 3 2"]
