"""Scenario `expect` keys for zones, variables and a seat's observation (issue 17)."""

from __future__ import annotations

import textwrap

import pytest

from trickkit.errors import ScenarioError
from trickkit.lab.scenarios import run_scenario_file

# sarkophag, 3 seats, 2 cards each, seed 1: hands 3 6 | 27 60 | 10 24, seat 1 leads
HEAD = """\
- name: s
  game: sarkophag
  params: {players: 3, hand_size: 2}
  seed: 1
  actions:
"""


def run(tmp_path, items: str):
    f = tmp_path / "s.yaml"
    f.write_text(HEAD + textwrap.indent(textwrap.dedent(items), "    "))
    (result,) = run_scenario_file(f)
    return result


def test_zones_variables_and_observation_pass(tmp_path):
    r = run(
        tmp_path,
        """\
    - expect:
        zones: {hand: {0: [3, 6], 1: ["27", "60"]}, taken: [[], [], []]}
        variables: {heads: [0, 0, 0]}
        observation: {seat: 2, phase: tricks, zones: {hand: [{count: 2}, {count: 2}, {cards: ["10", "24"]}]}}
    - play 27
    - expect:
        zones: {hand: {1: ["60"]}}
        observation: {seat: 0, trick: [{seat: 1, card: "27"}]}
    - play 24
    - play 3
    - expect:
        zones: {taken: {0: ["27", "24", "3"]}}
        variables: {heads: {0: 2, 1: 0}}
    """,
    )
    assert r.passed, r.message


@pytest.mark.parametrize(
    "check,message",
    [
        ("zones: {hand: {0: [6, 3]}}", "zones.hand[0] expected ['6', '3'] got ['3', '6']"),  # order counts
        ("zones: {stock: [1, 2]}", "zones.stock expected ['1', '2'] got ['19', '44'"),
        ("zones: {hands: {0: []}}", "unknown zone 'hands' (did you mean 'hand'?)"),
        ("zones: {hand: {7: []}}", "zones.hand: 7 is not a seat (0..2)"),
        ("variables: {heads: {1: 5}}", "variables.heads[1] expected 5 got 0"),
        ("variables: {heads: [0, 0]}", "variables.heads expected 2 values (one per seat) for 3 seats"),
        ("variables: {head: [0, 0, 0]}", "unknown variable 'head' (did you mean 'heads'?)"),
        ("observation: {seat: 0, phase: bid}", "observation(0).phase expected 'bid' got 'tricks'"),
        (
            "observation: {seat: 0, zones: {hand: [{}, {cards: ['27', '60']}, {}]}}",
            "observation(0).zones.hand[1]: no field 'cards'",
        ),  # seat 0 cannot see seat 1's hand
        ("observation: {seat: 9}", "observation: seat 9 is not a seat of this game"),
    ],
)
def test_mismatches_say_expected_and_actual(tmp_path, check, message):
    r = run(tmp_path, f"- expect: {{{check}}}\n")
    assert not r.passed
    assert message in r.message, r.message


@pytest.mark.parametrize(
    "check", ["zones: [a]", "variables: {}", "observation: {phase: bid}", "observation: {seat: true}"]
)
def test_malformed_new_keys_are_located_errors(tmp_path, check):
    f = tmp_path / "s.yaml"
    f.write_text(HEAD + f"    - expect: {{{check}}}\n")
    with pytest.raises(ScenarioError, match=r"s\.yaml:6:"):
        run_scenario_file(f)
