"""Reading a ruleset document: name or file -> safe YAML -> merged
``extends`` chain -> JSON Schema check. No rule is compiled here (`trickkit.engine.loader` does)."""

from __future__ import annotations

import os
from typing import Any

import attrs

from trickkit.errors import Problem, RulesetError
from trickkit.rules.inherit import resolve_extends
from trickkit.rules.schema_check import check_schema
from trickkit.rules.shipped import ruleset_text, rulesets_folder
from trickkit.rules.source import Locator, load_yaml, load_yaml_file, read_header, read_limited

Document = tuple[Any, Locator]
"""A parsed ruleset and where its nodes are written."""


def _is_path(name: str) -> bool:
    return name.endswith((".yaml", ".yml")) or os.sep in name or "/" in name


def _file_identity(path: str | os.PathLike[str]) -> tuple[str, str | None]:
    """Cycle-detection key and folder (for relative ``extends``) of a ruleset file."""
    full = os.path.realpath(os.fspath(path))
    return "file:" + full, os.path.dirname(os.path.abspath(os.fspath(path)))


def _shipped_identity(name: str) -> tuple[str, str | None]:
    """Cycle-detection key and folder of a shipped ruleset (the same key as when named by path)."""
    file = rulesets_folder().joinpath(f"{name}.yaml")
    if isinstance(file, os.PathLike):
        return "file:" + os.path.realpath(os.fspath(file)), os.path.dirname(os.fspath(file))
    return f"shipped:{name}", None


def _merged_document(name_or_path: str | os.PathLike[str]) -> Document:
    """The parsed ruleset with its ``extends`` chain merged in, not yet schema-checked."""
    if isinstance(name_or_path, os.PathLike) or _is_path(str(name_or_path)):
        try:
            doc, loc = load_yaml_file(name_or_path)
        except OSError as e:
            raise RulesetError(
                [Problem(str(name_or_path), 0, 0, "$", f"cannot read ruleset: {e.strerror or e}")]
            ) from None
        identity, directory = _file_identity(name_or_path)
    else:
        doc, loc = load_yaml(ruleset_text(str(name_or_path)), f"{name_or_path}.yaml")
        identity, directory = _shipped_identity(str(name_or_path))
    # variants: merge the child over its parent(s); the merged document (without `extends`) is
    # what the schema checks and what the content hash covers
    return resolve_extends(doc, loc, identity=identity, directory=directory)


def read_document(name_or_path: str | os.PathLike[str]) -> Document:
    """Parse a ruleset, resolve its ``extends`` chain and schema-check it. Returns ``(document, locator)``.

    For a variant (a ruleset with ``extends``) the document is the merged one, without
    ``extends``, and the locator a `trickkit.rules.inherit.MergedLocator` that places every
    node in the file that wrote it.

    Raises:
        RulesetError: YAML or schema problems, all of them, located.
    """
    doc, loc = _merged_document(name_or_path)
    problems = mixed_key_problems(doc, loc) + check_schema(doc, loc)  # the shipped ruleset schema
    if problems:
        raise RulesetError(problems)
    return doc, loc


def mixed_key_problems(doc: Any, loc: Locator) -> list[Problem]:
    """Mappings whose keys mix integers and texts (``{1: [...], high: [...]}``), located.

    JSON, and so the content hash and saved states, has only text keys: ``1`` and ``'1'``
    would be one key, and integers and texts cannot be sorted together. Quoting the
    integers (``'1'``) keeps the meaning (attribute group values that read as integers are
    integers either way).
    """
    problems: list[Problem] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            ints = [k for k in node if isinstance(k, int)]
            if ints and len(ints) < len(node):
                text = next(k for k in node if not isinstance(k, int))
                problems.append(
                    loc.problem(
                        path + (ints[0],),
                        f"this mapping mixes integer keys ({ints[0]}) and "
                        f"text keys ({text!r}); quote the integers ('{ints[0]}')",
                        at_key=True,
                    )
                )
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
    return problems


@attrs.frozen
class GameInfo:
    """What a ruleset says about itself, read without compiling its rules (see `game_info`)."""

    name: str
    title: str
    players_min: int
    players_max: int
    players_default: int


def game_info(name_or_path: str | os.PathLike[str]) -> GameInfo:
    """A ruleset's name, title and seat counts, without compiling its rules (`load_game` does).

    A ruleset without ``extends`` is read only as far as those entries (its first lines):
    problems further down are for `load_game` or `validate` to report. A variant is read
    whole and merged with its parents.

    Raises:
        RulesetError: YAML or schema problems, located.
    """
    doc = _header(name_or_path)
    if doc is None:
        doc, _loc = _merged_document(name_or_path)
    try:  # the schema check costs more than everything else here: only when the fields look wrong
        pl = doc["players"]
        info = GameInfo(doc["name"], doc["title"], pl["min"], pl["max"], pl.get("default", pl["min"]))
        if (
            all(
                isinstance(v, int) and not isinstance(v, bool)
                for v in (info.players_min, info.players_max, info.players_default)
            )
            and isinstance(info.title, str)
            and isinstance(info.name, str)
        ):
            return info
    except (KeyError, TypeError, AttributeError):
        pass
    doc, _ = read_document(name_or_path)  # raises the located problems
    pl = doc["players"]
    return GameInfo(doc["name"], doc["title"], pl["min"], pl["max"], pl.get("default", pl["min"]))


_HEADER = frozenset({"name", "title", "players"})


def _header(name_or_path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The name, title and players of a ruleset without extends, read from its first lines
    (`trickkit.rules.source.read_header`); None: read the whole (merged) document."""
    try:
        if isinstance(name_or_path, os.PathLike) or _is_path(str(name_or_path)):
            text = read_limited(name_or_path).decode("utf-8-sig")
        else:
            text = ruleset_text(str(name_or_path))
    except (OSError, UnicodeDecodeError, RulesetError):
        return None  # the whole read reports it
    return read_header(text, _HEADER)
