"""Tests for trickkit.rules.schema_check: located JSON Schema validation."""

from __future__ import annotations

import pytest

from trickkit.rules.schema_check import check_schema, load_schema
from trickkit.rules.source import load_yaml

SCHEMA = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "players": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}},
        },
        "deck": {"enum": ["french52", "piquet32"]},
        "table": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {"^[0-9]+$": {"type": "array"}},
        },
        "phases": {
            "type": "array",
            "items": {
                "oneOf": [
                    {"type": "string"},
                    {
                        "type": "object",
                        "required": ["winner"],
                        "additionalProperties": False,
                        "properties": {"winner": {"type": "string"}},
                    },
                ]
            },
        },
        "steps": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "object", "properties": {"kind": {"const": "deal"}, "count": {"type": "integer"}}},
                    {"type": "object", "properties": {"kind": {"const": "play"}}},
                ]
            },
        },
        "hand": {"type": "array", "maxItems": 2},
    },
}


def check(text: str) -> list[str]:
    data, locator = load_yaml(text, "g.yaml")
    return [str(p) for p in check_schema(data, locator, SCHEMA)]


def test_valid_document_has_no_problems():
    assert check("name: whist\nplayers: {min: 4, max: 4}\ntable: {0: [a]}\nphases: [deal, {winner: high}]\n") == []


def test_unknown_key_with_did_you_mean_located_at_key():
    assert check("nmae: whist\n") == [
        "g.yaml:1:1: $: missing required key 'name'",
        "g.yaml:1:1: $.nmae: unknown key 'nmae' (did you mean 'name'?)",
    ]
    assert check("name: x\nplayers:\n  min: 2\n  mxa: 4\n  zzz: 1\n") == [
        "g.yaml:4:3: $.players.mxa: unknown key 'mxa' (did you mean 'max'?)",
        "g.yaml:5:3: $.players.zzz: unknown key 'zzz'",
    ]


def test_type_error_location_and_message():
    assert check("name: x\nplayers:\n  min: three\n") == ["g.yaml:3:8: $.players.min: expected integer, got 'three'"]
    assert check("name: [a]\n") == ["g.yaml:1:7: $.name: expected string, got a list"]


def test_all_errors_collected_in_file_order():
    problems = check("name: x\nplayers: {max: many, min: few}\n")
    assert problems == [
        "g.yaml:2:16: $.players.max: expected integer, got 'many'",
        "g.yaml:2:27: $.players.min: expected integer, got 'few'",
    ]


def test_enum_error_suggests():
    assert check("name: x\ndeck: french53\n") == [
        "g.yaml:2:7: $.deck: expected one of 'french52', 'piquet32', got 'french53' (did you mean 'french52'?)"
    ]


def test_int_keys_are_validated_as_strings_and_located():
    assert check("name: x\ntable: {0: [a], 2: 3, x: []}\n") == [
        "g.yaml:2:20: $.table[2]: expected array, got 3",
        "g.yaml:2:23: $.table.x: unknown key 'x'",
    ]


def test_one_of_picks_the_fitting_alternative():
    assert check("name: x\nphases:\n  - deal\n  - {winnr: high}\n  - 5\n") == [
        "g.yaml:4:5: $.phases[1]: missing required key 'winner'",
        "g.yaml:4:6: $.phases[1].winnr: unknown key 'winnr' (did you mean 'winner'?)",
        "g.yaml:5:5: $.phases[2]: expected string or object, got 5",
    ]


def test_any_of_tagged_alternatives():
    assert check("name: x\nsteps:\n  - {kind: deal, count: x}\n  - {kind: plya}\n") == [
        "g.yaml:3:25: $.steps[0].count: expected integer, got 'x'",
        "g.yaml:4:5: $.steps[1]: 'kind' must be one of 'deal', 'play', got 'plya' (did you mean 'play'?)",
    ]


def test_huge_instance_repr_is_trimmed():
    (problem,) = check("name: x\nhand: [" + ", ".join(str(i) for i in range(100)) + "]\n")
    assert problem == (
        "g.yaml:2:7: $.hand: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21... "
        "is too long"
    )


def test_load_schema_missing_name():
    with pytest.raises(FileNotFoundError, match="no schema named 'no-such-schema'"):
        load_schema("no-such-schema")


def test_no_schema_means_the_shipped_ruleset_schema():
    text = "format: 1\nname: 3\nplayers: {min: 2, mux: 4}\nphases: [x]\nextra: 1\n"
    data, locator = load_yaml(text, "g.yaml")
    shipped = [str(p) for p in check_schema(data, locator)]
    assert shipped and shipped == [str(p) for p in check_schema(data, locator, load_schema("ruleset"))]
