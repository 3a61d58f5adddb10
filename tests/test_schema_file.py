"""The ruleset JSON Schema file: itself valid, documented, and accepting/rejecting rulesets as intended."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

ROOT = Path(__file__).parent.parent
SCHEMA_PATH = ROOT / "schemas/ruleset.schema.json"
RULESETS = sorted((ROOT / "rulesets").glob("*.yaml"))


def _str_keys(data: Any) -> Any:
    """A copy of ``data`` with integer mapping keys turned into strings, as the validator expects."""
    if isinstance(data, dict):
        return {str(k) if isinstance(k, int) else k: _str_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_str_keys(v) for v in data]
    return data


def _load(path: Path) -> Any:
    return _str_keys(yaml.safe_load(path.read_text("utf-8")))


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text("utf-8"))


@pytest.fixture(scope="module")
def validator(schema: dict) -> Draft202012Validator:
    return Draft202012Validator(schema)


def _errors(validator: Draft202012Validator, data: Any) -> list:
    return sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))


def _describe(errors: list) -> str:
    return "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_schema_is_valid_draft_2020_12(schema: dict) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://trickkit.dev/schemas/ruleset.schema.json"


_MAP_KEYWORDS = ("properties", "$defs")
_SCHEMA_KEYWORDS = ("additionalProperties", "items", "propertyNames", "if", "then", "else", "not")
_LIST_KEYWORDS = ("oneOf", "anyOf", "allOf")


def _subschemas(node: Any, where: str = "$") -> Iterator[tuple[str, dict]]:
    """Every subschema (including ``node``) with its location, walking schema keywords only."""
    if not isinstance(node, dict):
        return
    yield where, node
    for keyword in _MAP_KEYWORDS:
        for name, sub in node.get(keyword, {}).items():
            yield from _subschemas(sub, f"{where}.{keyword}.{name}")
    for keyword in _SCHEMA_KEYWORDS:
        if keyword in node:
            yield from _subschemas(node[keyword], f"{where}.{keyword}")
    for keyword in _LIST_KEYWORDS:
        for i, sub in enumerate(node.get(keyword, [])):
            yield from _subschemas(sub, f"{where}.{keyword}[{i}]")


def test_every_property_has_a_description(schema: dict) -> None:
    props = [
        (f"{where}.{name}", sub)
        for where, node in _subschemas(schema)
        if ".if" not in where and ".then" not in where  # conditional branches only restate a type
        for name, sub in node.get("properties", {}).items()
    ]
    assert len(props) > 50
    assert [where for where, sub in props if "description" not in sub] == []


def test_examples_and_defaults_are_valid(schema: dict) -> None:
    """Every ``default`` and ``examples`` entry satisfies the subschema it belongs to."""
    checked = 0
    for where, node in _subschemas(schema):
        bare = {k: v for k, v in node.items() if k not in ("examples", "default", "$defs", "$id", "$schema")}
        sub = {"$defs": schema["$defs"], **bare}
        for sample in list(node.get("examples", [])) + ([node["default"]] if "default" in node else []):
            errors = list(Draft202012Validator(sub).iter_errors(sample))
            assert not errors, f"{where}: {sample!r} fails its own schema: {errors[0].message}"
            checked += 1
    assert checked > 20


def test_shipped_rulesets_found() -> None:
    names = {p.name for p in RULESETS}
    assert {"sarkophag.yaml", "skull_king.yaml"} <= names


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_shipped_ruleset_is_valid(validator: Draft202012Validator, path: Path) -> None:
    data = _load(path)
    if "extends" in data:  # a variant file is checked as the ruleset it resolves to
        from trickkit.engine.loader import read_document

        merged, _ = read_document(path)
        data = _str_keys(merged)
    errors = _errors(validator, data)
    assert not errors, _describe(errors)


def _skull_king() -> dict:
    return copy.deepcopy(_load(ROOT / "rulesets/skull_king.yaml"))


def test_misspelt_top_level_key_is_rejected(validator: Draft202012Validator) -> None:
    data = _skull_king()
    data["nmae"] = data.pop("name")
    errors = _errors(validator, data)
    kinds = {(e.validator, tuple(e.absolute_path)) for e in errors}
    assert kinds == {("additionalProperties", ()), ("required", ())}, _describe(errors)
    extra = next(e for e in errors if e.validator == "additionalProperties")
    assert "'nmae'" in extra.message


def test_players_min_as_string_is_rejected(validator: Draft202012Validator) -> None:
    data = _skull_king()
    data["players"]["min"] = "3"
    errors = _errors(validator, data)
    assert [(e.validator, list(e.absolute_path)) for e in errors] == [("type", ["players", "min"])], _describe(errors)
    assert errors[0].validator_value == "integer"


def test_unknown_step_kind_is_rejected(validator: Draft202012Validator) -> None:
    data = _skull_king()
    data["round"].insert(1, {"shuffle": {"count": 1}})
    errors = _errors(validator, data)
    assert [(e.validator, list(e.absolute_path)) for e in errors] == [("additionalProperties", ["round", 1])], (
        _describe(errors)
    )
    assert "'shuffle'" in errors[0].message


def test_step_with_two_kinds_is_rejected(validator: Draft202012Validator) -> None:
    data = _skull_king()
    data["round"][0]["effect"] = "x = 1"
    errors = _errors(validator, data)
    assert [(e.validator, list(e.absolute_path)) for e in errors] == [("maxProperties", ["round", 0])], _describe(
        errors
    )


def test_misspelt_step_option_is_rejected(validator: Draft202012Validator) -> None:
    data = _skull_king()
    data["round"][0]["deal"]["too"] = data["round"][0]["deal"].pop("to")
    errors = _errors(validator, data)
    assert [(e.validator, list(e.absolute_path)) for e in errors] == [("additionalProperties", ["round", 0, "deal"])], (
        _describe(errors)
    )


def test_bad_lookup_group_key_is_rejected(validator: Draft202012Validator) -> None:
    data = _skull_king()
    data["deck"][0]["attributes"] = {"points": {"by": "rank", "groups": {"": [10]}}}
    errors = _errors(validator, data)
    assert [(e.validator, list(e.absolute_path)) for e in errors] == [("oneOf", ["deck", 0, "attributes", "points"])], (
        _describe(errors)
    )
    # of the two allowed forms (constant, lookup), the lookup fails on the empty key
    assert any(sub.validator == "minLength" and sub.instance == "" for sub in errors[0].context)
