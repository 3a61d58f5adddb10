"""Validates a document against the ruleset JSON Schema and reports every problem located."""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from trickkit.errors import Problem, did_you_mean
from trickkit.rules.source import Locator

__all__ = ["check_schema", "load_schema"]

_REPR_LIMIT = 80
_MESSAGE_LIMIT = 300
_JSON_TYPES = {
    dict: "mapping",
    list: "list",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def load_schema(name: str = "ruleset") -> dict[str, Any]:
    """Load ``schemas/<name>.schema.json`` shipped as package ``trickkit.schemas``.

    Falls back to the ``schemas/`` folder next to the ``trickkit`` package when
    running from a source checkout that is not installed.

    Args:
        name: schema name without the ``.schema.json`` suffix.

    Returns:
        A fresh dict (callers may mutate it).

    Raises:
        FileNotFoundError: when no such schema exists.
        json.JSONDecodeError: when the schema file is not valid JSON.
    """
    schema: dict[str, Any] = json.loads(_schema_text(name))
    return schema


@functools.cache
def _schema_text(name: str) -> str:
    filename = f"{name}.schema.json"
    try:
        return importlib.resources.files("trickkit.schemas").joinpath(filename).read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    fallback = Path(__file__).resolve().parents[2] / "schemas" / filename
    try:
        return fallback.read_text("utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"no schema named {name!r} ({filename} not found)") from None


def check_schema(data: Any, locator: Locator, schema: dict[str, Any] | None = None) -> list[Problem]:
    """Validate ``data`` against a JSON Schema (draft 2020-12) and locate every problem.

    Args:
        data: plain data as returned by `trickkit.rules.source.load_yaml`.
        locator: positions of ``data``'s nodes.
        schema: the JSON Schema; None: the shipped ruleset schema (``load_schema("ruleset")``),
            whose validator is built once per process without serialising the schema again.

    Returns:
        Every problem found (empty when valid), sorted by (line, column).
        ``oneOf``/``anyOf`` failures report the most relevant alternative's
        error; unexpected keys are reported one by one at the key itself as
        ``unknown key 'x'`` with a did-you-mean hint.

    Raises:
        jsonschema.exceptions.SchemaError: when ``schema`` itself is invalid.
    """
    # key order kept: it orders the problems found
    validator = _shipped_validator() if schema is None else _validator(json.dumps(schema))
    problems: list[Problem] = []
    seen: set[Problem] = set()
    for error in validator.iter_errors(_json_keys(data)):
        for problem in _problems(error, locator, validator, data):
            if problem not in seen:
                seen.add(problem)
                problems.append(problem)
    problems.sort(key=lambda p: (p.line, p.column))
    return problems


@functools.lru_cache(maxsize=1)
def _shipped_validator() -> Any:
    """The validator of the shipped ruleset schema (which tests/test_schema_file.py checks),
    reading ``pattern`` as ECMA-262 does (`_Validator`)."""
    return _Validator(load_schema("ruleset"))


@functools.lru_cache(maxsize=8)
def _validator(schema_text: str) -> Any:
    """A validator for a schema (given as JSON text), checked and built once per process: checking
    a schema against its meta-schema costs more than validating a ruleset (about 150 ms), so the
    shipped schema, which tests/test_schema_file.py checks, is not checked again at every start."""
    schema = json.loads(schema_text)
    if schema_text != json.dumps(load_schema("ruleset")):  # the shipped schema is checked by the tests
        jsonschema.Draft202012Validator.check_schema(schema)
    return _Validator(schema)


@functools.lru_cache(maxsize=256)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` as JSON Schema (ECMA-262) reads it: a final ``$`` is the end of the text.
    Python's ``$`` also matches before a final newline, so ``^[A-Za-z_][A-Za-z0-9_]*$`` let
    ``"draw\\n"`` through as a name (an action kind, a zone ...)."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]  # jsonschema's extend is unannotated
    jsonschema.Draft202012Validator, {"pattern": _pattern}
)


def _json_keys(data: Any) -> Any:
    """A copy of ``data`` with integer mapping keys turned into strings, as in JSON."""
    if isinstance(data, dict):
        return {str(k) if isinstance(k, int) else k: _json_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_json_keys(v) for v in data]
    return data


def _original_path(data: Any, path: Iterable[Any]) -> tuple[Any, ...]:
    """Map a path in the `_json_keys` copy back to ``data``'s own keys."""
    result = []
    for step in path:
        if isinstance(data, dict) and step not in data and isinstance(step, str):
            step = next((k for k in data if isinstance(k, int) and str(k) == step), step)
        result.append(step)
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            data = None
    return tuple(result)


def _problems(error: ValidationError, locator: Locator, validator: Any, data: Any) -> Iterator[Problem]:
    if error.validator in ("oneOf", "anyOf") and error.context:
        branch = _viable_branch(error)
        if branch is not None:
            for sub in branch:
                yield from _problems(sub, locator, validator, data)
            return
        best = best_match([error])
        if best is not error:
            yield from _problems(best, locator, validator, data)
            return
    path = _original_path(data, error.absolute_path)
    instance = error.instance

    if error.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        extras = _unexpected_keys(error, validator)
        if extras:
            allowed = sorted(str(k) for k in _property_names(error.schema))
            for key in extras:
                key_path = _original_path(data, path + (key,))
                hint = did_you_mean(str(key), allowed) if len(str(key)) <= _REPR_LIMIT else ""
                message = f"unknown key {_short(key_path[-1])}" + hint
                yield locator.problem(key_path, message, at_key=True)
            return

    yield locator.problem(path, _message(error))


def _viable_branch(error: ValidationError) -> list[ValidationError] | None:
    """The errors of the only oneOf/anyOf alternative that fits the instance, if exactly one does.

    Alternatives whose ``type`` does not match the instance are dropped, then (if
    several remain) those whose ``const``/``enum`` discriminator on a direct child fails.
    """
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    viable = [
        errs for errs in branches.values() if not any(e.validator == "type" and not e.relative_path for e in errs)
    ]
    if len(viable) > 1:
        tagged = [
            errs
            for errs in viable
            if not any(e.validator in ("const", "enum") and len(e.relative_path) <= 1 for e in errs)
        ]
        if tagged:
            viable = tagged
    return viable[0] if len(viable) == 1 else None


def _unexpected_keys(error: ValidationError, validator: Any) -> list[Any]:
    """Keys of ``error.instance`` that triggered an additional/unevaluated properties error."""
    instance: Any = error.instance
    schema = cast("dict[str, Any]", error.schema)
    if error.validator == "additionalProperties":
        properties = schema.get("properties", {})
        patterns = [_ecma_regex(p) for p in schema.get("patternProperties", {})]
        return [key for key in instance if key not in properties and not any(p.search(str(key)) for p in patterns)]
    try:  # unevaluatedProperties: ask jsonschema which keys were evaluated
        from jsonschema._utils import find_evaluated_property_keys_by_schema

        evaluated = set(find_evaluated_property_keys_by_schema(validator, instance, schema))
    except Exception:  # private helper changed: fall back to the generic message
        return []
    return [key for key in instance if key not in evaluated]


def _property_names(schema: Any, _depth: int = 0) -> set[Any]:
    """Property names a subschema declares, including those of its allOf/anyOf/oneOf parts."""
    names: set[Any] = set()
    if not isinstance(schema, dict) or _depth > 5:
        return names
    names.update(schema.get("properties", {}))
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(keyword, []):
            names |= _property_names(sub, _depth + 1)
    return names


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except (ValueError, RecursionError):  # an int too large to print
        return f"<a {type(value).__name__} too large to show>"


def _short(value: Any) -> str:
    text = _repr(value)
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


def _type_name(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _message(error: ValidationError) -> str:
    """A short message for one (leaf) validation error."""
    kind, expected, instance = error.validator, cast(Any, error.validator_value), error.instance
    if kind == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        if isinstance(instance, (dict, list)):
            return f"expected {wanted}, got a {_type_name(instance)}"
        return f"expected {wanted}, got {_short(instance)}"
    if kind == "required":
        match = re.fullmatch(r"(.*) is a required property", error.message, re.S)
        if match:
            return f"missing required key {match.group(1)}"
    if kind == "enum" and isinstance(expected, list):
        choices = ", ".join(_short(v) for v in expected[:12]) + (", ..." if len(expected) > 12 else "")
        hint = did_you_mean(instance, [v for v in expected if isinstance(v, str)]) if isinstance(instance, str) else ""
        return f"expected one of {choices}, got {_short(instance)}{hint}"
    if kind == "const":
        return f"expected {_short(expected)}, got {_short(instance)}"
    if kind in ("oneOf", "anyOf"):
        types: list[str] = []
        for sub in error.context:
            if sub.validator == "type" and not sub.relative_path:
                value = cast(Any, sub.validator_value)
                named = value if isinstance(value, list) else [value]
                types += [t for t in named if t not in types]
        if types and len(types) == len({s.relative_schema_path[0] for s in error.context}):
            return f"expected {' or '.join(types)}, got {_short(instance)}"
        tags = [e for e in error.context if e.validator in ("const", "enum") and len(e.relative_path) == 1]
        if tags and len({tuple(e.relative_path) for e in tags}) == 1:
            key = tags[0].relative_path[0]
            options: list[Any] = []
            for e in tags:
                value = cast(Any, e.validator_value)
                values = [value] if e.validator == "const" else list(value)
                options += [v for v in values if v not in options]
            got = tags[0].instance
            hint = did_you_mean(got, [c for c in options if isinstance(c, str)]) if isinstance(got, str) else ""
            listed = ", ".join(_short(c) for c in options)
            return f"{key!r} must be one of {listed}, got {_short(got)}{hint}"
        return f"{_short(instance)} does not match any of the allowed forms"
    message = error.message
    full = _repr(instance)
    if len(full) > _REPR_LIMIT:
        message = message.replace(full, _short(instance))
    if len(message) > _MESSAGE_LIMIT:  # jsonschema quoted the value in some other form: never all of it
        message = message[: _MESSAGE_LIMIT - 3] + "..."
    return message
