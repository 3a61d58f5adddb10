"""The differences between two resolved rulesets, in plain words (``trickkit diff A B``).

Both rulesets are read with their ``extends`` chains resolved, and their decks are
compiled (with each ruleset's default seat count and parameters), so a variant is
compared by what it *is*, not by how its file is written. DSL texts are compared with
whitespace normalised (line breaks and indentation do not count as changes).
"""

from __future__ import annotations

import collections
import difflib
import os
import re
from collections.abc import Sequence
from typing import Any

from trickkit.rules.ruleset import step_parts

__all__ = ["Change", "diff_documents", "diff_rulesets", "readable"]

DIFF_CELLS = 40_000
"""Largest comparison `diff` aligns (lines of an old and a new rule text, or old and new steps of
the round, multiplied): longer ones are not aligned, but shown whole (every old line ``-``, every
new line ``+``; steps paired by position), so a diff of two long rules costs linear time, not the
quadratic time of a longest common subsequence."""

_METADATA = ("name", "title", "description", "source", "score_unit", "winners", "max_actions", "format")
_STEP_TEXT_KEYS = {  # the settings of each step kind that are DSL texts
    "deal": ("count",),
    "bid": ("options", "first"),
    "auction": ("first", "calls", "strain", "allowed", "ends_after_passes", "passed_out_after"),
    "tricks": (
        "count",
        "leader",
        "must_play_if_able",
        "always_allowed",
        "reason",
        "winner",
        "next_leader",
        "after_trick",
    ),
}


def _norm(text: Any) -> str:
    """A DSL text with its whitespace normalised (``true``/``false`` for booleans)."""
    if isinstance(text, bool):
        return "true" if text else "false"
    # comments do not count either, and would swallow the rest once lines are joined
    lines = [line.split("#", 1)[0] if "'" not in line and '"' not in line else line for line in str(text).splitlines()]
    return " ".join(" ".join(lines).split())


class Change(str):
    """One changed DSL text: the one-line sentence ``'<where> changed: old -> new'`` (the
    string itself), which also keeps the texts as written, for `readable`.

    Attributes:
        head: what changed, e.g. ``'definition led_suit'``.
        old: the text before, as written.
        new: the text after, as written.
    """

    head: str
    old: str
    new: str


def _changed(head: str, old: Any, new: Any) -> Change:
    change = Change(f"{head} changed: {_norm(old)} -> {_norm(new)}")
    change.head, change.old, change.new = head, str(old), str(new)
    return change


def _lines(text: str, width: int) -> list[str]:
    """A DSL text as lines to compare: comments dropped, spaces normalised, long lines wrapped."""
    import textwrap

    out = []
    for line in text.splitlines():
        code = line.split("#", 1)[0] if "'" not in line and '"' not in line else line
        code = " ".join(code.split())
        if len(code) > width:  # one long line (a folded YAML text): a line per alternative
            code = re.sub(r" (?=else |\?\? )", "\n", code)
            out += _lines(code, width) if "\n" in code else textwrap.wrap(code, width, subsequent_indent="  ")
            continue
        if code:
            out += textwrap.wrap(code, width, subsequent_indent="  ", break_on_hyphens=False) or [code]
    return out


def readable(lines: list[str], width: int = 100) -> list[str]:
    """`diff_rulesets` sentences laid out for a person: a changed DSL text longer than
    ``width`` becomes a line diff (``-`` old lines, ``+`` new lines, indented under its
    heading), and any other long sentence is wrapped with a hanging indent.

    Args:
        lines: the sentences, as `diff_rulesets` returns them.
        width: the widest line wanted.

    Returns:
        The lines to print, none longer than ``width`` (bar single words longer than that).
    """
    import textwrap

    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
        elif isinstance(line, Change):
            out.append(f"{line.head} changed:")
            inner = max(width - 6, 20)
            old, new = _lines(line.old, inner), _lines(line.new, inner)
            if len(old) * len(new) > DIFF_CELLS:  # too long to align: both shown whole
                rows = [f"- {x}" for x in old] + [f"+ {x}" for x in new]
            else:
                rows = list(difflib.ndiff(old, new))
            for row in rows:
                if row[:1] in ("-", "+", " "):
                    out.append(f"    {row}")
        else:
            out += textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False)
    return out


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _players(p: dict[str, Any]) -> str:
    span = f"{p['min']}" if p["min"] == p["max"] else f"{p['min']}-{p['max']}"
    return f"{span} (default {p.get('default', p['min'])})"


def _count_list(counter: collections.Counter[str], order: list[str]) -> str:
    return ", ".join(t if counter[t] == 1 else f"{t} \u00d7{counter[t]}" for t in order if counter[t])


def diff_rulesets(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> list[str]:
    """The differences from ruleset ``a`` to ruleset ``b`` (shipped names or paths), one sentence per line.

    Lists, in this order: metadata, the players range, cards added and removed (by
    text, with counts) and cards whose attributes or modes changed, parameters, zones,
    seat and table variables, definitions, the steps of a round (added, removed, and
    every DSL text that changed, old -> new), ``game_over`` and ``score``.
    An empty list means the two rulesets have the same rules and metadata.

    Raises:
        RulesetError: either ruleset cannot be loaded.
    """
    from trickkit.engine.loader import load_game, read_document

    doc_a, _ = read_document(a)
    doc_b, _ = read_document(b)
    lines = diff_documents(doc_a, doc_b)
    cards = _diff_cards(load_game(a), load_game(b))
    at = next((i for i, line in enumerate(lines) if not line.startswith(("metadata", "players"))), len(lines))
    return lines[:at] + cards + lines[at:]


def _diff_cards(game_a: Any, game_b: Any) -> list[str]:
    out = []
    ca, cb = collections.Counter(game_a.cards), collections.Counter(game_b.cards)
    order_a = list(dict.fromkeys(game_a.cards))
    order_b = list(dict.fromkeys(game_b.cards))
    added = cb - ca
    removed = ca - cb
    if added:
        out.append(f"cards added ({sum(added.values())}): {_count_list(added, order_b)}")
    if removed:
        out.append(f"cards removed ({sum(removed.values())}): {_count_list(removed, order_a)}")
    da, db = game_a.rules.deck, game_b.rules.deck
    for text in order_a:
        if text not in cb:
            continue
        ia, ib = game_a.cards.index(text), game_b.cards.index(text)
        changes = []
        for attr in sorted(set(da.attrs) | set(db.attrs)):
            va = da.attrs[attr][ia] if attr in da.attrs else None
            vb = db.attrs[attr][ib] if attr in db.attrs else None
            if va != vb:
                changes.append(f"{attr} {_show(va)} -> {_show(vb)}")
        fa = [da.face_texts[f] for f in da.card_faces[ia]]
        fb = [db.face_texts[f] for f in db.card_faces[ib]]
        if fa != fb:
            changes.append(f"played as {', '.join(fa)} -> {', '.join(fb)}")
        elif len(fa) > 1:  # same modes: compare what each mode makes of the card
            for fid_a, fid_b in zip(da.card_faces[ia], db.card_faces[ib]):
                for attr in sorted(set(da.face_attrs) | set(db.face_attrs)):
                    va = da.face_attrs[attr][fid_a] if attr in da.face_attrs else None
                    vb = db.face_attrs[attr][fid_b] if attr in db.face_attrs else None
                    if va != vb:
                        changes.append(f"as {da.face_texts[fid_a]}: {attr} {_show(va)} -> {_show(vb)}")
        if changes:
            out.append(f"card {text}: " + "; ".join(dict.fromkeys(changes)))
    return out


def diff_documents(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The differences between two resolved ruleset documents (everything but the compiled cards)."""
    out: list[str] = []
    for key in _METADATA:
        va, vb = a.get(key), b.get(key)
        if va != vb:
            if va is None:
                out.append(f"metadata {key} added: {_show(vb)}")
            elif vb is None:
                out.append(f"metadata {key} removed (was {_show(va)})")
            else:
                out.append(f"metadata {key}: {_show(va)} -> {_show(vb)}")
    if a["players"] != b["players"]:
        out.append(f"players: {_players(a['players'])} -> {_players(b['players'])}")
    out += _diff_parameters(a.get("parameters") or {}, b.get("parameters") or {})
    out += _diff_named("zone", a.get("zones") or {}, b.get("zones") or {}, _zone)
    out += _diff_named("seat variable", a.get("seat_variables") or {}, b.get("seat_variables") or {}, _variable)
    out += _diff_named("table variable", a.get("table_variables") or {}, b.get("table_variables") or {}, _variable)
    out += _diff_named("team variable", a.get("team_variables") or {}, b.get("team_variables") or {}, _variable)
    if a.get("teams") != b.get("teams"):
        out.append(f"teams: {_show(a.get('teams'))} -> {_show(b.get('teams'))}")
    out += _diff_definitions(a.get("definitions") or {}, b.get("definitions") or {})
    out += _diff_steps(a["round"], b["round"])
    for key in ("game_over", "score"):
        if _norm(a[key]) != _norm(b[key]):
            out.append(_changed(key, a[key], b[key]))
    if _norm(a.get("team_score", "")) != _norm(b.get("team_score", "")):
        out.append(_changed("team_score", a.get("team_score", ""), b.get("team_score", "")))
    return out


def _diff_parameters(pa: dict[str, Any], pb: dict[str, Any]) -> list[str]:
    out = []
    for name, spec in pb.items():
        if name not in pa:
            out.append(f"parameter added: {name} ({spec['type']}, default {_show(spec['default'])})")
    for name, spec in pa.items():
        if name not in pb:
            out.append(f"parameter removed: {name} (was {spec['type']}, default {_show(spec['default'])})")
    for name, spec in pa.items():
        if name in pb and spec != pb[name]:
            other = pb[name]
            changes = [
                f"{k} {_show(spec.get(k))} -> {_show(other.get(k))}"
                for k in ("type", "default", "min", "max", "choices", "description")
                if spec.get(k) != other.get(k)
            ]
            out.append(f"parameter {name}: " + "; ".join(changes))
    return out


def _zone(spec: dict[str, Any]) -> dict[str, Any]:
    spec = dict(spec or {})
    spec.setdefault("owner", "table")
    spec.setdefault("visibility", "public")
    return spec


def _variable(spec: Any) -> dict[str, Any]:
    out: dict[str, Any] = dict(spec) if isinstance(spec, dict) else {"initial": spec}
    out.setdefault("initial", 0)
    out.setdefault("reset", "game")
    return out


def _describe(spec: dict[str, Any]) -> str:
    return ", ".join(f"{k} {_show(v)}" for k, v in spec.items() if k != "description")


def _diff_named(what: str, ma: dict[str, Any], mb: dict[str, Any], normalise: Any) -> list[str]:
    out = []
    for name in mb:
        if name not in ma:
            out.append(f"{what} added: {name} ({_describe(normalise(mb[name]))})")
    for name in ma:
        if name not in mb:
            out.append(f"{what} removed: {name}")
    for name in ma:
        if name in mb:
            sa, sb = normalise(ma[name]), normalise(mb[name])
            changes = [
                f"{k} {_show(sa.get(k))} -> {_show(sb.get(k))}"
                for k in dict.fromkeys([*sa, *sb])
                if sa.get(k) != sb.get(k)
            ]
            if changes:
                out.append(f"{what} {name}: " + "; ".join(changes))
    return out


def _diff_definitions(da: dict[str, Any], db: dict[str, Any]) -> list[str]:
    out = []
    for name in db:
        if name not in da:
            out.append(f"definition added: {name} = {_norm(db[name])}")
    for name in da:
        if name not in db:
            out.append(f"definition removed: {name} (was {_norm(da[name])})")
    for name in da:
        if name in db and _norm(da[name]) != _norm(db[name]):
            out.append(_changed(f"definition {name}", da[name], db[name]))
    return out


def _kind(step: dict[str, Any]) -> str:
    return step_parts(step)[0]


def _diff_steps(ra: list[Any], rb: list[Any]) -> list[str]:
    """Steps are aligned by kind (a longest common subsequence), then compared setting by setting."""
    out = []
    kinds_a, kinds_b = [_kind(s) for s in ra], [_kind(s) for s in rb]
    if len(kinds_a) * len(kinds_b) > DIFF_CELLS:  # too long to align: paired by position
        k = min(len(kinds_a), len(kinds_b))
        opcodes: Sequence[tuple[str, int, int, int, int]] = [
            ("equal" if kinds_a[i] == kinds_b[i] else "replace", i, i + 1, i, i + 1) for i in range(k)
        ] + [("replace", k, len(kinds_a), k, len(kinds_b))]
    else:
        opcodes = difflib.SequenceMatcher(a=kinds_a, b=kinds_b, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                out += _diff_step(i, j, ra[i], rb[j])
            continue
        for i in range(i1, i2):
            out.append(f"step removed: round[{i}] {kinds_a[i]}{_step_summary(ra[i])}")
        for j in range(j1, j2):
            out.append(f"step added: round[{j}] {kinds_b[j]}{_step_summary(rb[j])}")
    return out


def _step_summary(step: dict[str, Any]) -> str:
    _, body = step_parts(step)
    if not isinstance(body, dict):
        return f": {_norm(body)}"
    return " (" + ", ".join(f"{k}: {_norm(v)}" for k, v in body.items() if k != "description") + ")"


def _diff_step(i: int, j: int, sa: dict[str, Any], sb: dict[str, Any]) -> list[str]:
    kind = _kind(sa)
    where = f"round[{i}] {kind}" if i == j else f"round[{i}] {kind} (now round[{j}])"
    ba, bb = sa[kind], sb[kind]
    if not isinstance(ba, dict) or not isinstance(bb, dict):  # an effect: one DSL block
        return [] if _norm(ba) == _norm(bb) else [_changed(where, ba, bb)]
    out = []
    texts = _STEP_TEXT_KEYS.get(kind, ())
    for key in dict.fromkeys([*ba, *bb]):
        va, vb = ba.get(key), bb.get(key)
        if key in texts or isinstance(va, str) or isinstance(vb, str):
            same = va is not None and vb is not None and _norm(va) == _norm(vb)
        else:
            same = va == vb
        if same or (va is None and vb is None):
            continue
        if va is None:
            out.append(f"{where} {key} added: {_norm(vb) if isinstance(vb, (str, int)) else _show(vb)}")
        elif vb is None:
            out.append(f"{where} {key} removed (was {_norm(va) if isinstance(va, (str, int)) else _show(va)})")
        elif isinstance(va, (str, int, bool)) and isinstance(vb, (str, int, bool)):
            out.append(_changed(f"{where} {key}", va, vb))
        else:
            out.append(f"{where} {key} changed: {_show(va)} -> {_show(vb)}")
    return out
