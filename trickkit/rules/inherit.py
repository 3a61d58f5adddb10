"""Variant inheritance: resolves ``extends:`` into one merged ruleset document.

A ruleset that says ``extends: <shipped name or relative path>`` is a *child*: its
document is merged over its parent's (which may itself extend another) before the
schema check. The rules, documented for designers in ``docs/variants.md``:

* **Mappings merge** key by key, recursively; a key written in the child overrides the
  parent's. New keys are added after the parent's keys (parent order is kept, which
  matters for zones: the first table zone holds the cards before the first deal).
* **Scalars and DSL texts are replaced** whole (there is no partial edit of a text).
* **Lists are replaced whole** when the child writes a list. A child may instead write a
  mapping of **list operations** (``$remove``, ``$change``, ``$insert_before``,
  ``$insert_after``, ``$prepend``, ``$append``), applied to the parent's list (one card of a
  deck group by its text, ``DJ`` of ``{suit}J``: `trickkit.rules.deck_select`).
* ``$remove: [keys]`` inside a mapping deletes the parent's keys; ``$replace: value``
  (alone in its mapping) replaces a mapping or list instead of merging into it.
* ``extends`` is not part of the merged document; the child must declare its own
  ``name`` (different from the parent's). Everything else may be inherited.

Every merged node keeps the file, line and column it was written at, so problems are
reported in the file that supplied the offending key (`MergedLocator`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, TypeAlias

import attrs

from trickkit.errors import Problem, RulesetError, did_you_mean
from trickkit.rules.confine import _identity_of_file, _is_path, _outside, _short, confined_ruleset
from trickkit.rules.deck_select import selectors, split_for_cards
from trickkit.rules.source import MAX_TEXT_SIZE, Locator, format_path, load_yaml, read_limited

__all__ = ["LIST_OPERATIONS", "MAX_CHAIN", "MergedLocator", "confined_ruleset", "resolve_extends"]

#: The list operations a child may write (as the keys of a mapping) where the parent has a list.
Path: TypeAlias = tuple[Any, ...]
"""A YAML path: keys and list indices from the document's root."""
Position: TypeAlias = tuple[str, int, int]
"""Where a node is written: (file, line, column)."""

LIST_OPERATIONS = ("$remove", "$change", "$insert_before", "$insert_after", "$prepend", "$append")
#: Longest accepted chain of ``extends`` (child, parent, grandparent, ...).
MAX_CHAIN = 16

_DIRECTIVES = set(LIST_OPERATIONS) | {"$replace"}


@attrs.frozen
class MergedLocator(Locator):
    """A `trickkit.rules.source.Locator` over a merged document whose nodes come from several files.

    ``filename`` is the child's file (the one that was loaded); `filename_at`
    gives the file that supplied a given node, and `problem` uses it.
    """

    _files: dict[Path, str] = attrs.field(factory=dict, alias="files")
    _key_files: dict[Path, str] = attrs.field(factory=dict, alias="key_files")

    def filename_at(self, path: Iterable[Any], at_key: bool = False) -> str:
        """The file that wrote the node at ``path`` (or its key), falling back to the nearest ancestor."""
        path = tuple(path)
        if at_key and path in self._key_files:
            return self._key_files[path]
        while True:
            if path in self._files:
                return self._files[path]
            if not path:
                return self.filename
            path = path[:-1]

    def problem(self, path: Iterable[Any], message: str, at_key: bool = False) -> Problem:
        """A `Problem` located in the file, line and column that supplied ``path``."""
        path = tuple(path)
        line, column = self.key_position(path) if at_key else self.position(path)
        return Problem(self.filename_at(path, at_key), line, column, format_path(path), message)


# --------------------------------------------------------------------------- positions


class _Src:
    """Positions of one (possibly already merged) document: path -> (file, line, column)."""

    def __init__(self, values: dict[Path, Position], keys: dict[Path, Position], filename: str):
        self.values, self.keys, self.filename = values, keys, filename

    @classmethod
    def of(cls, loc: Locator) -> _Src:
        if isinstance(loc, MergedLocator):
            values = {p: (loc.filename_at(p), *pos) for p, pos in loc._values.items()}
            keys = {p: (loc.filename_at(p, True), *pos) for p, pos in loc._keys.items()}
        else:
            values = {p: (loc.filename, *pos) for p, pos in loc._values.items()}
            keys = {p: (loc.filename, *pos) for p, pos in loc._keys.items()}
        return cls(values, keys, loc.filename)

    def at(self, path: Iterable[Any], at_key: bool = False) -> Position:
        path = tuple(path)
        if at_key and path in self.keys:
            return self.keys[path]
        while True:
            if path in self.values:
                return self.values[path]
            if not path:
                return (self.filename, 0, 0)
            path = path[:-1]

    def problem(self, path: Iterable[Any], message: str, at_key: bool = False) -> Problem:
        file, line, column = self.at(path, at_key)
        return Problem(file, line, column, format_path(tuple(path)), message)


class _Merger:
    """Merges one child document over its parent, recording where every merged node came from."""

    def __init__(self, parent_src: _Src, child_src: _Src):
        self.p, self.c = parent_src, child_src
        self.values: dict[Path, Position] = {}
        self.keys: dict[Path, Position] = {}
        self.problems: list[Problem] = []

    def fail(self, path: Iterable[Any], message: str, at_key: bool = False) -> None:
        self.problems.append(self.c.problem(path, message, at_key))

    # -- taking a value whole from one side ------------------------------------------
    def take(self, value: Any, src: _Src, sp: Path, op: Path, from_child: bool) -> Any:
        """Copy ``value`` (at ``sp`` in ``src``) to ``op`` with its positions; reject stray directives."""
        self.values[op] = src.at(sp)
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if from_child and isinstance(k, str) and k.startswith("$"):
                    self.fail(sp + (k,), self._stray(k, sp), at_key=True)
                    continue
                self.keys[op + (k,)] = src.at(sp + (k,), at_key=True)
                out[k] = self.take(v, src, sp + (k,), op + (k,), from_child)
            return out
        if isinstance(value, list):
            return [self.take(v, src, sp + (i,), op + (i,), from_child) for i, v in enumerate(value)]
        return value

    @staticmethod
    def _stray(key: Any, path: Path) -> str:
        if key in _DIRECTIVES:
            return f"{key!r} has nothing to apply to: the parent has no list or mapping at {format_path(path)}"
        return f"unknown merge directive {key!r}{did_you_mean(key, sorted(_DIRECTIVES))}"

    # -- merging ---------------------------------------------------------------------
    def merge(self, parent: Any, pp: Path, child: Any, cp: Path, op: Path) -> Any:
        if isinstance(child, dict) and "$replace" in child:
            if len(child) > 1:
                others = ", ".join(repr(k) for k in child if k != "$replace")
                self.fail(
                    cp + ("$replace",), f"'$replace' must be alone in its mapping (also here: {others})", at_key=True
                )
            if isinstance(parent, (dict, list)) and not isinstance(child["$replace"], type(parent)):
                pass  # a different shape is allowed; the schema judges the result
            return self.take(child["$replace"], self.c, cp + ("$replace",), op, True)
        if isinstance(parent, dict) and isinstance(child, dict):
            return self.merge_mapping(parent, pp, child, cp, op)
        if isinstance(parent, list) and isinstance(child, dict):
            return self.list_operations(parent, pp, child, cp, op)
        return self.take(child, self.c, cp, op, True)

    def merge_mapping(
        self, parent: dict[Any, Any], pp: Path, child: dict[Any, Any], cp: Path, op: Path
    ) -> dict[Any, Any]:
        self.values[op] = self.c.at(cp)
        removed = self._removed_keys(parent, child, cp)
        out: dict[Any, Any] = {}
        for k, v in parent.items():
            if k in removed:
                continue
            if k in child:
                self.keys[op + (k,)] = self.c.at(cp + (k,), at_key=True)
                out[k] = self.merge(v, pp + (k,), child[k], cp + (k,), op + (k,))
            else:
                self.keys[op + (k,)] = self.p.at(pp + (k,), at_key=True)
                out[k] = self.take(v, self.p, pp + (k,), op + (k,), False)
        for k, v in child.items():
            if k in parent:
                continue
            if isinstance(k, str) and k.startswith("$"):
                if k == "$remove":
                    continue
                if k in LIST_OPERATIONS:
                    self.fail(
                        cp + (k,),
                        f"list operation {k!r} needs a list in the parent, but "
                        f"{format_path(pp)} is a mapping there (use '$remove: [keys]' or set keys)",
                        at_key=True,
                    )
                else:
                    self.fail(cp + (k,), self._stray(k, cp), at_key=True)
                continue
            self.keys[op + (k,)] = self.c.at(cp + (k,), at_key=True)
            out[k] = self.take(v, self.c, cp + (k,), op + (k,), True)
        return out

    def _removed_keys(self, parent: dict[Any, Any], child: dict[Any, Any], cp: Path) -> set[Any]:
        if "$remove" not in child:
            return set()
        keys = child["$remove"]
        path = cp + ("$remove",)
        if not isinstance(keys, list):
            self.fail(path, f"'$remove' takes a list of keys, got {keys!r}")
            return set()
        removed = set()
        for i, k in enumerate(keys):
            if isinstance(k, (list, dict)):  # unhashable: never a key of the parent
                self.fail(path + (i,), f"'$remove' takes a list of keys (names), got {_short(k)}")
            elif k not in parent:
                self.fail(
                    path + (i,),
                    f"cannot remove {_short(k)}: the parent has no such key{_hint(str(k), [str(x) for x in parent])}",
                )
            elif k in child:
                self.fail(path + (i,), f"{k!r} is both removed and set; remove it or set it, not both")
            else:
                removed.add(k)
        return removed

    # -- list operations -------------------------------------------------------------
    def list_operations(self, parent: list[Any], pp: Path, child: dict[Any, Any], cp: Path, op: Path) -> list[Any]:
        self.values[op] = self.c.at(cp)
        for k in child:
            if k not in LIST_OPERATIONS:
                hint = did_you_mean(str(k), LIST_OPERATIONS) if str(k).startswith("$") else ""
                self.fail(
                    cp + (k,),
                    f"{format_path(pp)} is a list in the parent: write a list to replace it, "
                    f"or a mapping of list operations ({', '.join(LIST_OPERATIONS)}); got key {k!r}{hint}",
                    at_key=True,
                )
        scalars = all(not isinstance(item, (dict, list)) for item in parent)
        listed = [_identity(item) for item in parent]  # the parent's items, as error messages name them
        # a selector naming one card of a group (`DJ` of `{suit}J`) splits it: origin = each item's
        # index in the parent's list; picked = card selector -> the group holding that card alone
        parent, origin, picked = split_for_cards(parent, [] if scalars else selectors(child), _identity)
        split = {o for o in origin if origin.count(o) > 1}  # the parent's items split into several
        ids = [_identity(item) for item in parent]

        positions: dict[
            Any, list[int]
        ] = {}  # identity -> indices of the parent's items that have it (one scan, not one per selector)
        for k, x in enumerate(ids):
            if x is not None:
                positions.setdefault(x, []).append(k)

        names: list[str] = []  # the items' names for hints, made on the first failure

        def select(sel: Any, path: Path) -> int | None:
            if isinstance(sel, int) and not isinstance(sel, bool) and not scalars:
                if sel in split:
                    self.fail(
                        path,
                        f"item {sel} of {format_path(pp)} is split to select one of its cards by its text: "
                        f"select that card by its text, the others by theirs",
                    )
                    return None
                if sel in origin:
                    return int(origin.index(sel))
                self.fail(path, f"no item {sel} in {format_path(pp)} (the parent's list has {len(set(origin))} items)")
                return None
            if isinstance(sel, str) and sel in picked:
                return next(i for i, item in enumerate(parent) if item is picked[sel])
            try:
                found = positions.get(sel, [])
            except TypeError:  # an unhashable selector (a list or mapping) names no item
                found = []
            if len(found) == 1:
                return found[0]
            if not found:
                if not names:  # once, not once per failing selector
                    names.extend(str(x) for x in listed if x is not None)
                self.fail(
                    path,
                    f"no item {_short(sel)} in {format_path(pp)}{_hint(str(sel), names)} (items: {_listing(listed)})",
                )
            else:
                where = ", ".join(format_path(pp + (i,)) for i in found[:5]) + (", ..." if len(found) > 5 else "")
                self.fail(path, f"{_short(sel)} matches {len(found)} items ({where}); select one by its index")
            return None

        def items_of(key: str) -> list[tuple[Path, Any]]:
            value = child.get(key, [])
            if not isinstance(value, list):
                self.fail(cp + (key,), f"{key!r} takes a list of items, got {_short(value)}")
                return []
            return [(cp + (key, i), v) for i, v in enumerate(value)]

        def mapping_of(key: str) -> dict[Any, Any]:
            value = child.get(key, {})
            if not isinstance(value, dict):
                self.fail(cp + (key,), f"{key!r} takes a mapping (item -> ...), got {_short(value)}")
                return {}
            return value

        removed: set[int] = set()
        if "$remove" in child:
            for path, sel in items_of("$remove"):
                i = select(sel, path)
                if i is not None:
                    removed.add(i)
        changes: dict[int, tuple[Path, Any]] = {}
        for sel, value in mapping_of("$change").items():
            path = cp + ("$change", sel)
            i = select(sel, path)
            if i is None:
                continue
            if i in removed:
                self.fail(path, f"item {sel!r} is both removed and changed", at_key=True)
            elif i in changes:
                self.fail(path, f"item {sel!r} is changed twice", at_key=True)
            else:
                changes[i] = (path, value)
        before: dict[int, list[tuple[Path, Any]]] = {}
        after: dict[int, list[tuple[Path, Any]]] = {}
        for key, table in (("$insert_before", before), ("$insert_after", after)):
            for sel, value in mapping_of(key).items():
                path = cp + (key, sel)
                i = select(sel, path)
                if i is None:
                    continue
                if not isinstance(value, list):
                    self.fail(path, f"{key!r} takes item -> list of new items, got {_short(value)}")
                    continue
                table.setdefault(i, []).extend((path + (j,), v) for j, v in enumerate(value))
        # the final order: prepended, then each parent item with its insertions around it, then appended
        plan: list[tuple[str, Any, Any]] = [("new", p, v) for p, v in items_of("$prepend")]
        for i, item in enumerate(parent):
            plan += [("new", p, v) for p, v in before.get(i, [])]
            if i not in removed:
                plan.append(("old", i, item))
            plan += [("new", p, v) for p, v in after.get(i, [])]
        plan += [("new", p, v) for p, v in items_of("$append")]
        out = []
        for j, (what, where, value) in enumerate(plan):
            if what == "new":
                out.append(self.take(value, self.c, where, op + (j,), True))
                continue
            at = pp + (origin[where],)  # where the parent wrote it (a split group: the whole group)
            if where in changes:
                cpath, change = changes[where]
                kind = _step_kind(value)
                if kind is None:
                    out.append(self.merge(value, at, change, cpath, op + (j,)))
                else:  # a step (one-key mapping): the change applies to its settings, under its kind
                    self.values[op + (j,)] = self.p.at(at)
                    self.keys[op + (j, kind)] = self.p.at(at + (kind,), at_key=True)
                    out.append({kind: self.merge(value[kind], at + (kind,), change, cpath, op + (j, kind))})
            else:
                out.append(self.take(value, self.p, at, op + (j,), False))
        return out


def _identity(item: Any) -> Any:
    """How a list item is selected: a card group by its ``text``, a step by its kind, a scalar by itself."""
    if isinstance(item, dict):
        if isinstance(item.get("text"), str):
            return item["text"]
        kinds = [k for k in item if k != "when"]  # a step: its kind (its ``when:`` condition aside)
        if len(kinds) == 1 and len(item) <= 2:
            return kinds[0]
        return None
    if isinstance(item, list):
        return None
    return item


def _step_kind(item: Any) -> str | None:
    """The kind of a step-like item (a mapping with exactly one key and no ``text``), else None."""
    if isinstance(item, dict) and "text" not in item:
        kinds = [k for k in item if k != "when"]  # its ``when:`` condition aside
        if len(kinds) == 1 and len(item) <= 2:
            return str(kinds[0])
    return None


_HINT_CANDIDATES = 500
"""Above this many candidates no did-you-mean hint is computed (difflib is quadratic-ish:
thousands of bad selectors against thousands of items would take minutes)."""


def _hint(name: str, candidates: list[Any]) -> str:
    return did_you_mean(name, candidates) if len(candidates) <= _HINT_CANDIDATES else ""


def _listing(ids: list[Any], limit: int = 12) -> str:
    """The first items' identities, for a message (not all 20,000 of them)."""
    shown = ", ".join(_short(x) for x in ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


# --------------------------------------------------------------------------- resolving


def _shipped_file(name: str) -> Any:
    from trickkit.rules.shipped import rulesets_folder

    return rulesets_folder().joinpath(f"{name}.yaml")


def _load_parent(
    ref: str, child_filename: str, child_dir: Any, where: Problem, root: Any = None
) -> tuple[Any, Locator, str, Any]:
    """Load the parent named by ``ref``: ``(doc, locator, identity, directory)``; raise located errors.

    What ``extends`` may reach (docs/robustness.md): a shipped game by name, or a ``.yaml``/
    ``.yml`` regular file given by a relative path that stays inside ``root``, the folder of
    the ruleset being loaded (``..`` may climb back up to it, not beyond; symbolic links are
    followed before the check). Absolute paths are refused.
    """
    from trickkit.rules.shipped import list_games

    def refuse(message: str) -> RulesetError:
        return RulesetError([attrs.evolve(where, message=message)])

    if _is_path(ref):
        if os.path.isabs(ref):
            raise refuse(
                f"'extends' takes a shipped game name or a path relative to this file, not the "
                f"absolute path {_short(ref)}"
            )
        if not ref.endswith((".yaml", ".yml")):
            raise refuse(f"'extends' names a ruleset file, which ends in .yaml or .yml, got {_short(ref)}")
        full = os.path.join(os.fspath(child_dir), ref) if child_dir is not None else ref
        base = os.path.dirname(child_filename) if child_dir is not None else ""
        shown = os.path.normpath(os.path.join(base, ref))
        try:
            # checked before reading: not even whether a file outside exists may be learnt
            if _outside(full, root):
                raise refuse(
                    f"the parent ruleset {_short(ref)} is outside the folder of the ruleset being "
                    f"loaded; 'extends' reaches only files in that folder (and below it) and shipped games"
                )
            raw = read_limited(full)
        except (OSError, ValueError) as e:  # ValueError: a path with a NUL byte
            reason = (e.strerror or e) if isinstance(e, OSError) else e
            raise refuse(f"cannot read the parent ruleset {_short(ref)}: {reason}") from None
        data, loc = _load_bytes_as(raw, shown)
        return data, loc, _identity_of_file(full), os.path.dirname(os.path.abspath(full))
    games = list_games()
    if ref not in games:
        raise refuse(
            f"unknown game {_short(ref)}{_hint(ref, games)} "
            f"(shipped games: {', '.join(games)}; or a relative path to a .yaml file)"
        )
    file = _shipped_file(ref)
    data, loc = load_yaml(file.read_text("utf-8"), f"{ref}.yaml")
    directory = os.path.dirname(os.fspath(file)) if isinstance(file, os.PathLike) else None
    return data, loc, _identity_of_file(file) if isinstance(file, os.PathLike) else f"shipped:{ref}", directory


def _load_bytes_as(raw: bytes, shown: str) -> tuple[Any, Locator]:
    """Parse a parent file's bytes, naming it ``shown`` in problems (the path as the user would write it)."""
    if len(raw) > MAX_TEXT_SIZE:
        raise RulesetError([Problem(shown, 0, 0, "$", f"ruleset too large (over {MAX_TEXT_SIZE:,} bytes)")])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        message = f"not valid UTF-8 text (bad byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        raise RulesetError([Problem(shown, 0, 0, "$", message)]) from None
    return load_yaml(text, shown)


def resolve_extends(
    doc: dict[str, Any],
    loc: Locator,
    *,
    identity: str | None = None,
    directory: Any = None,
    root: Any = None,
    _chain: tuple[tuple[str, str], ...] = (),
) -> tuple[dict[str, Any], Locator]:
    """Resolve ``extends`` (recursively) and return the merged ``(document, locator)``.

    A document without ``extends`` is returned unchanged. Otherwise the parent is
    loaded (a shipped name, or a path relative to ``directory``, the child's folder;
    ``None`` means the current directory), resolved in turn, and the child is merged
    over it. The merged document has no ``extends`` key.

    Args:
        doc, loc: the child as loaded by `trickkit.rules.source`.
        identity: a key naming the child's file (to detect cycles).
        directory: the folder the child's relative ``extends`` paths start from.
        root: the folder no ``extends`` path may leave (default: ``directory`` of the first
            ruleset of the chain, the one being loaded).

    Raises:
        RulesetError: every merge problem, each located in the file that wrote the
            offending key; an unknown parent, a cycle or a too-long chain at the
            offending ``extends``.
    """
    if not isinstance(doc, dict) or "extends" not in doc:
        return doc, loc
    ref = doc["extends"]
    if root is None and not _chain:
        root = directory
    chain = _chain + ((identity or f"<{loc.filename}>", loc.filename),)
    where = loc.problem(("extends",), "")
    if not isinstance(ref, str) or not ref.strip():
        raise RulesetError(
            [
                attrs.evolve(
                    where,
                    message=f"'extends' names a shipped ruleset or a relative path to a .yaml file, got {_short(ref)}",
                )
            ]
        )
    if len(chain) > MAX_CHAIN:
        raise RulesetError([attrs.evolve(where, message=f"chain of 'extends' longer than {MAX_CHAIN} rulesets")])
    pdoc, ploc, pid, pdir = _load_parent(ref, loc.filename, directory, where, root)
    if any(pid == seen for seen, _ in chain):
        names = [name for _, name in chain] + [ploc.filename]
        raise RulesetError([attrs.evolve(where, message="'extends' makes a cycle: " + " -> ".join(names))])
    pdoc, ploc = resolve_extends(
        pdoc, ploc, identity=pid, directory=pdir, root=root if _is_path(ref) else pdir, _chain=chain
    )
    problems = []
    if not isinstance(doc.get("name"), str):
        problems.append(
            loc.problem(("extends",), "a ruleset that extends another must declare its own 'name'", at_key=True)
        )
    elif isinstance(pdoc, dict) and doc["name"] == pdoc.get("name"):
        problems.append(
            loc.problem(
                ("name",), f"a variant needs a name of its own; {doc['name']!r} is the name of the ruleset it extends"
            )
        )
    child = {k: v for k, v in doc.items() if k != "extends"}
    merger = _Merger(_Src.of(ploc), _Src.of(loc))
    merged = merger.merge(pdoc, (), child, (), ())
    problems += merger.problems
    if problems:
        raise RulesetError(sorted(problems, key=lambda p: (p.file != loc.filename, p.file, p.line, p.column)))
    values = {p: v[1:] for p, v in merger.values.items()}
    keys = {p: v[1:] for p, v in merger.keys.items()}
    files = {p: v[0] for p, v in merger.values.items()}
    key_files = {p: v[0] for p, v in merger.keys.items()}
    return merged, MergedLocator(loc.filename, values=values, keys=keys, files=files, key_files=key_files)
