"""Generates the reference pages of the documentation from the code, so they cannot drift.

* `schema_reference` — every property of ``schemas/ruleset.schema.json``.
* `dsl_reference` — the DSL grammar constructs and the built-in registry
  (`trickkit.dsl.builtins`), each with an example (see `dsl_examples`).
* `cli_reference` — every ``trickkit`` subcommand's usage and help, from the argparse parser.

The mkdocs build calls these from ``docs/hooks.py``; the tests parse every DSL example.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

__all__ = ["cli_reference", "dsl_examples", "dsl_reference", "load_schema", "schema_properties", "schema_reference"]

from trickkit.cli.docgen_common import GENERATED_NOTE as _GENERATED
from trickkit.cli.docgen_common import code_span as _code
from trickkit.cli.docgen_dsl import dsl_examples, dsl_reference

__all__ = [
    "cli_reference",
    "dsl_examples",
    "dsl_reference",
    "load_schema",
    "observation_reference",
    "schema_properties",
    "schema_reference",
    "spaces_reference",
]


# ------------------------------------------------------------------ schema


def load_schema() -> dict[str, Any]:
    """The ruleset JSON Schema, as shipped with the package."""
    text = resources.files("trickkit.schemas").joinpath("ruleset.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` followed; the node's own keys (description, default...) win."""
    seen = set()
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if ref in seen or not ref.startswith("#/"):
            break
        seen.add(ref)
        target: Any = schema
        for part in ref[2:].split("/"):
            target = target[part]
        merged = dict(target)
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        node = merged
    return node


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref") if isinstance(node, dict) else None
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _type_text(schema: dict[str, Any], node: dict[str, Any]) -> str:
    name = _ref_name(node)
    node = _resolve(schema, node)
    if "const" in node:
        return f"constant {_code(node['const'])}"
    if "enum" in node:
        return "one of " + ", ".join(_code(v) for v in node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(_type_text(schema, branch) for branch in node[key])
    t = node.get("type")
    if isinstance(t, list):
        text = " or ".join(t)
    elif t == "array":
        items = node.get("items")
        text = f"list of {_type_text(schema, items)}" if isinstance(items, dict) else "list"
    elif t == "object" and "properties" not in node and isinstance(node.get("additionalProperties"), dict):
        text = f"mapping of name → {_type_text(schema, node['additionalProperties'])}"
    else:
        text = t or "any"
    return f"{text} ({name})" if name else text


def _constraints(node: dict[str, Any]) -> list[str]:
    out = []
    for key, label in (
        ("minimum", "minimum"),
        ("maximum", "maximum"),
        ("minLength", "min length"),
        ("minItems", "min items"),
        ("minProperties", "min entries"),
        ("maxProperties", "max entries"),
        ("pattern", "pattern"),
    ):
        if key in node:
            out.append(f"{label} {_code(node[key])}")
    if node.get("uniqueItems"):
        out.append("unique items")
    return out


def _walk(
    schema: dict[str, Any], node: dict[str, Any], path: str, required: bool, stack: tuple[str, ...]
) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """Yield ``(path, resolved node, required)`` for ``node`` and everything below it."""
    ref = _ref_name(node)
    resolved = _resolve(schema, node)
    yield path, resolved, required
    if ref is not None and ref in stack:
        return
    stack = stack + ((ref,) if ref else ())
    yield from _children(schema, resolved, path, stack)


def _children(
    schema: dict[str, Any], node: dict[str, Any], path: str, stack: tuple[str, ...]
) -> Iterator[tuple[str, dict[str, Any], bool]]:
    req = set(node.get("required", ()))
    for name, sub in node.get("properties", {}).items():
        yield from _walk(schema, sub, f"{path}.{name}" if path else name, name in req, stack)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        yield from _walk(schema, extra, f"{path}.<name>", False, stack)
    items = node.get("items")
    if isinstance(items, dict) and (
        _resolve(schema, items).get("properties") or _resolve(schema, items).get("additionalProperties")
    ):
        yield from _walk(schema, items, f"{path}[]", False, stack)
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, ()):
            resolved = _resolve(schema, branch)
            if resolved.get("properties") or isinstance(resolved.get("additionalProperties"), dict):
                ref = _ref_name(branch)
                if ref and ref in stack:
                    continue
                yield from _children(schema, resolved, path, stack + ((ref,) if ref else ()))


def schema_properties(schema: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any], bool]]:
    """Every property path of the schema, in document order, as ``(path, node, required)``.

    Paths use ``.`` between keys, ``[]`` for list items and ``<name>`` for user-chosen keys,
    e.g. ``round[].tricks.winner`` or ``parameters.<name>.default``.
    """
    schema = schema or load_schema()
    return list(_children(schema, schema, "", ()))


def _required_sentence(schema: dict[str, Any]) -> str:
    """Which top-level keys a ruleset must have: a full ruleset and a variant (``extends``) differ."""

    def keys(node: Any) -> str:
        return ", ".join(f"`{k}`" for k in (node or {}).get("required", ()))

    if schema.get("required"):
        return f"Required top-level keys: {keys(schema)}."
    if "if" in schema and "extends" in schema["if"].get("required", ()):
        return (
            f"Required top-level keys: {keys(schema.get('else'))}; a variant that says `extends` "
            f"needs only {keys(schema.get('then'))} (the rest comes from its parent)."
        )
    return "No top-level key is required."


def schema_reference() -> str:
    """Markdown reference of the ruleset format: every property path with its type, default,
    description and examples, from ``schemas/ruleset.schema.json``."""
    schema = load_schema()
    lines = [
        "# Ruleset reference",
        "",
        _GENERATED.strip(),
        "",
        schema.get("description", ""),
        "",
        "A ruleset is a YAML mapping checked against the JSON Schema "
        "`schemas/ruleset.schema.json` (see [Editor support](../editors.md)). "
        "This page is generated from that schema. Paths use `.` between keys, `[]` for the items "
        "of a list and `<name>` for keys you choose (parameter, zone or variable names).",
        "",
        _required_sentence(schema),
        "",
    ]
    for path, node, required in schema_properties(schema):
        depth = path.count(".") + path.count("[]")
        level = "##" if depth == 0 else "###"
        lines.append(f"{level} `{path}`")
        lines.append("")
        if node.get("description"):
            lines.append(node["description"])
            lines.append("")
        facts = [f"**Type:** {_type_text(schema, node)}"]
        if required:
            facts.append("**Required**")
        if "default" in node:
            facts.append(f"**Default:** {_code(node['default'])}")
        constraints = _constraints(node)
        if constraints:
            facts.append("**Constraints:** " + ", ".join(constraints))
        if node.get("examples"):
            facts.append("**Examples:** " + ", ".join(_code(e) for e in node["examples"]))
        lines.extend(f"- {fact}" for fact in facts)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ------------------------------------------------------------------ CLI


def _build_parser() -> argparse.ArgumentParser:
    from trickkit.cli.main import build_parser

    return build_parser()


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=88)
    return parser.format_help().rstrip()


def cli_reference() -> str:
    """Markdown reference of the ``trickkit`` command line: the usage and help of every subcommand."""
    parser = _build_parser()
    lines = [
        "# Command line reference",
        "",
        _GENERATED.strip(),
        "",
        "Generated from the argparse parser of `trickkit/cli.py`. Exit codes: 0 success; "
        "1 a validation or scenario check failed, an invariant failed (`test`) or lint found something; "
        "2 usage errors and games that cannot be loaded.",
        "",
        "```text",
        _help(parser),
        "```",
        "",
    ]
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subs:
        helps = {c.dest: c.help for c in action._choices_actions}
        for name, sub in action.choices.items():
            lines += [f"## `trickkit {name}`", ""]
            text = helps.get(name)
            if text:
                lines += [text[0].upper() + text[1:] + ".", ""]
            lines += ["```text", _help(sub), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


_OBSERVATION_FIELDS = [
    ("game", "the game's name"),
    ("seat", "the seat this view is for"),
    ("round", "the round (deal) number, from 1"),
    ("dealer", "the dealer's seat"),
    ("phase", "the kind of the current step: `bid`, `auction`, `choose`, `tricks`, `turns` ... or `over`"),
    ("current_player", "the seat to act (negative once the game is over)"),
    (
        "zones",
        "zone name -> a view; a seat zone gives one view per seat, a zone family one per "
        "member. A view is `{count, cards}` when the seat may see the cards, `{count, top}` "
        "when only the top card shows, and `{count}` when the cards are hidden (or chosen "
        "in secret by another seat in a simultaneous `choose` step not yet revealed)",
    ),
    ("trick", "the cards on the table in this trick, in play order: `{seat, card}`"),
    (
        "variables",
        "variable name -> value; a seat variable gives one value per seat (`null` "
        "for a simultaneous bid not yet revealed to this seat)",
    ),
    ("seat_zones", "which `zones` are per seat"),
    ("seat_variables", "which `variables` are per seat"),
    ("scores", "each seat's score so far"),
    ("terminal", "true once the game is over"),
    (
        "playing_for",
        "only while the seat to act chooses another seat's card (a tricks step's `actor`, e.g. the declarer "
        "playing dummy's): the seat whose card is due. In every seat's observation (who plays whose card is public)",
    ),
    ("auction", "only with an `auction` step: the round's auction, public: `{seat, kind, call}` per decision"),
]


def observation_reference() -> str:
    """The Markdown page describing `State.observation`, with a real example per shipped game."""
    import json

    from trickkit.engine.loader import list_games, load_game

    lines = [
        "# Observations",
        "",
        "`state.observation(seat)` is what one seat may see, as a JSON-serialisable dict: agents "
        "and interfaces read it instead of the state. Hidden cards appear only as counts. This page "
        "is generated from the shipped games at build time.",
        "",
        "| key | meaning |",
        "| --- | --- |",
        *[f"| `{k}` | {v} |" for k, v in _OBSERVATION_FIELDS],
        "",
        "Variables declared `internal: true` (the rules' own bookkeeping) are in observations too; "
        "`trickkit play` and transcripts do not show them.",
        "",
    ]
    for name in list_games():
        game = load_game(name)
        obs = game.new_initial_state(seed=1).observation(0)
        text = json.dumps(obs, indent=1, ensure_ascii=False)
        # lists of plain values on one line: a hand is one line, not ten
        text = re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + " ".join(m[1].split()) + "]", text)
        text = re.sub(r"\{\s*([^{}]*?)\s*\}", lambda m: "{" + " ".join(m[1].split()) + "}", text)
        lines += [
            f"## `{name}`",
            "",
            f"Seat 0 at the start of a {game.num_players}-player game ({game.title}, seed 1):",
            "",
            "```json",
            text,
            "```",
            "",
        ]
    return "\n".join(lines)


def spaces_reference() -> str:
    """The documentation page of every shipped game's action ids and tensor layout (generated at
    docs build time, at each game's default seat count and parameters)."""
    from trickkit.engine.loader import list_games, load_game

    out = [
        "# Action spaces and tensor layouts",
        "",
        "Generated from the shipped rulesets at their default seat count and parameters (see",
        "[Agents and RL environments](../agents.md) for what the ids and segments mean). Another seat",
        "count or parameter value gives other sizes: ask `game.num_distinct_actions()` and",
        "`game.observation_tensor_layout()`.",
        "",
    ]
    for name in list_games():
        game = load_game(name)
        texts = game.action_space.texts
        out += [
            f"## {game.title} (`{name}`)",
            "",
            f"{game.num_players} seats, parameters {_params(game.params)}: **{len(texts)} action ids**, "
            f"an observation tensor of **{game.observation_tensor_shape()[0]} floats**.",
            "",
            "| Ids | Actions |",
            "|---|---|",
        ]
        for first, last in _runs(texts):
            shown = f"`{texts[first]}`" if first == last else f"`{texts[first]}` ... `{texts[last]}`"
            out.append(f"| {first}" + ("" if first == last else f"-{last}") + f" | {shown} |")
        out += ["", "| Offset | Size | Segment | Content |", "|---|---|---|---|"]
        for seg in game.observation_tensor_layout():
            out.append(f"| {seg.start} | {seg.size} | `{seg.name}` | {seg.description} |")
        out.append("")
    return "\n".join(out)


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"`{k}={v}`" for k, v in params.items()) or "none"


def _runs(texts: Any) -> list[tuple[int, int]]:
    """Consecutive ids with the same verb, as (first, last) pairs."""
    runs: list[list[int]] = []
    for i, t in enumerate(texts):
        verb = t.split(" ")[0]
        if runs and texts[runs[-1][0]].split(" ")[0] == verb:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return [(first, last) for first, last in runs]
