"""Builds a ruleset's deck: card groups generated from suits and rank ranges into card and face tables.

Cards are plain ints (ids in deck order) at play time; their attributes live in tuples
indexed by id, built once here. A *face* is a card as played in one of its modes (Scary
Mary "as a pirate"); a card without modes has exactly one face.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from trickkit.rules.templates import template_problem

Card = int
"""A card is its id: an index into the deck's tables."""

MAX_DECK_CARDS = 10_000
"""Most cards a deck may hold, copies included (the shipped decks have under 100)."""
MAX_DECK_FACES = 20_000
"""Most faces (cards times their modes) a deck may hold."""
MAX_CARD_TEXT = 100
"""Longest card text, in characters (it is typed in actions: ``play B13``)."""

STANDARD_ATTRIBUTES = ("name", "suit", "rank", "kind", "copy", "text")
"""Attributes every card has (null where a group does not set them); ``copy`` numbers the
identical copies of a card from 0 (so six sets of 0-9 are told apart by ``copy``); ``text``
is the card's canonical text, as actions name it (``C10``), the same as ``name``."""

ProblemFactory = Callable[[tuple[Any, ...], str], Exception]
"""``problem(path, message)``: the exception to raise for a meaning error at ``path``."""

OWN_ATTRIBUTES = ("text", "copy")
"""Attributes the engine sets itself: a group's ``attributes`` or a mode may not set them."""


@attrs.frozen
class Deck:
    """The cards of a ruleset and their attribute tables."""

    texts: tuple[str, ...]
    """Canonical text of each card (copies share a text), e.g. ``'B13'``, ``'escape'``."""
    attrs: dict[str, tuple[Any, ...]]
    """Attribute name -> values by card id (``name`` is the text)."""
    face_card: tuple[int, ...]
    """Card id of each face."""
    face_mode: tuple[Any, ...]
    """Mode name of each face, or None for a card's only face."""
    face_texts: tuple[str, ...]
    """Text of each face as written in actions: ``'G7'`` or ``'tigress:pirate'``."""
    face_attrs: dict[str, tuple[Any, ...]]
    """Attribute name -> values by face id (the card's, overridden by its mode)."""
    card_faces: tuple[tuple[int, ...], ...]
    """Face ids of each card."""
    by_text: dict[str, tuple[int, ...]]
    """Card text -> ids of all its copies."""
    face_by_text: dict[str, int]
    """Face text -> face id of the first copy (faces of copies are interchangeable)."""

    def __len__(self) -> int:
        return len(self.texts)


def build_deck(groups: list[Any], problem: ProblemFactory, one_deck: bool = True) -> Deck:
    """Generate the deck from validated card groups.

    Args:
        groups: the ruleset's ``deck`` list (already schema-validated).
        problem: ``problem(path, message)`` returns the exception to raise for a meaning error.
        one_deck: the groups form one deck, so two different cards may not share a text
            (False for the union of a ruleset's optional groups, which never meet in one game).

    Raises:
        whatever ``problem`` returns, e.g. for a template naming an attribute the group lacks.
    """
    rows: list[dict[str, Any]] = []
    modes_of: list[dict[str, Any]] = []
    groups_of: list[int] = []  # the group of each card, for errors
    defaulted: set[tuple[int, str]] = set()  # (first row of a card, attribute) set by a lookup's default
    cards = faces = 0  # counted before anything is built, so a huge deck costs nothing
    for gi, group in enumerate(groups):
        path = ("deck", gi)
        suits = group.get("suit")
        suit_items = (
            list(suits.items())
            if isinstance(suits, dict)
            else [(suits, suits)]
            if suits is not None
            else [(None, None)]
        )
        rank = group.get("rank")
        if isinstance(rank, dict):
            if rank["to"] < rank["from"]:
                raise problem(path + ("rank",), f"empty rank range {rank['from']}..{rank['to']}")
            rank_count = rank["to"] - rank["from"] + 1
        else:
            rank_count = 1
        ranks = range(rank["from"], rank["to"] + 1) if isinstance(rank, dict) else [rank]
        mode_count = max(len(group.get("modes") or {}), 1)
        one_count = group.get("copies", 1)
        copies = one_count if one_count.__class__ is int else 1  # at least one copy of each rank
        least = len(suit_items) * rank_count * copies  # counted before any per-rank table is built
        if cards + least > MAX_DECK_CARDS or faces + least * mode_count > MAX_DECK_FACES:
            group_cards = least
        else:
            copies_of = _copies_per_rank(group, ranks, path, problem)
            rank_texts = _rank_texts(group, ranks, path, problem)
            copies = max(copies_of.values(), default=1)
            group_cards = len(suit_items) * sum(copies_of.values())
        cards += group_cards
        faces += group_cards * mode_count
        if cards > MAX_DECK_CARDS or faces > MAX_DECK_FACES:
            where = (
                (*path, "copies") if "copies" in group and copies > 1 else path + ("rank",) if rank_count > 1 else path
            )
            what = f"{cards:,} cards" if cards > MAX_DECK_CARDS else f"{faces:,} card faces (cards times modes)"
            raise problem(
                where,
                f"deck too large: with this group ({len(suit_items)} suits x {rank_count:,} ranks "
                f"x {copies:,} copies) it holds {what}; the limit is {MAX_DECK_CARDS:,} cards "
                f"and {MAX_DECK_FACES:,} faces",
            )
        template = str(group["text"])
        bad = template_problem(template, ("suit", "rank"), "card field")
        if bad is not None:
            raise problem(path + ("text",), bad)
        for code, suit in suit_items:
            for r in ranks:
                values = {"suit": suit, "rank": r, "kind": group.get("kind")}
                # safe: the template has only {suit} and {rank} fields (checked above)
                shown = rank_texts.get(r, r) if r is not None else ""  # rank_texts: the text put in {rank}
                text = template.format(suit=code if code is not None else "", rank=shown)
                if len(text) > MAX_CARD_TEXT:
                    raise problem(
                        path + ("text",), f"card text {text[:40]!r}... is longer than {MAX_CARD_TEXT} characters"
                    )
                values["name"] = values["text"] = text
                for attr, spec in (group.get("attributes") or {}).items():
                    if attr in OWN_ATTRIBUTES:
                        raise problem(
                            path + ("attributes", attr),
                            f"{attr!r} is set by the engine (the card's "
                            f"{'text' if attr == 'text' else 'copy number'}): "
                            f"choose another attribute name",
                        )
                    values[attr] = _attribute_value(spec, values, path + ("attributes", attr), problem)
                    if isinstance(spec, dict) and not any(
                        values.get(spec["by"]) in k for k in spec.get("groups", {}).values()
                    ):
                        defaulted.add(
                            (len(rows), attr)
                        )  # a lookup's default (an int by the schema): no type of its own
                for copy in range(copies_of[r]):
                    rows.append({**values, "copy": copy})
                    modes_of.append(group.get("modes") or {})
                    groups_of.append(gi)
        for mode, overrides in (group.get("modes") or {}).items():
            for attr in overrides:
                if attr in OWN_ATTRIBUTES:
                    raise problem(path + ("modes", mode, attr), f"a mode may not change {attr!r} (set by the engine)")
    _check_attribute_types(rows, modes_of, groups_of, problem, defaulted)
    if one_deck:
        _check_unambiguous(rows, modes_of, groups_of, problem)
    names = list(STANDARD_ATTRIBUTES)
    for values in rows:
        for k in values:
            if k not in names:
                names.append(k)
    for mode_map in modes_of:
        for overrides in mode_map.values():
            for k in overrides:
                if k not in names:
                    names.append(k)
    texts = tuple(v["name"] for v in rows)
    card_attrs = {n: tuple(v.get(n) for v in rows) for n in names}
    face_card: list[int] = []
    face_mode: list[Any] = []
    face_texts: list[str] = []
    face_values: list[dict[str, Any]] = []
    card_faces: list[tuple[int, ...]] = []
    for cid, values in enumerate(rows):
        ids = []
        modes = modes_of[cid]
        for mode, overrides in modes.items() if modes else [(None, {})]:
            ids.append(len(face_card))
            face_card.append(cid)
            face_mode.append(mode)
            face_texts.append(texts[cid] if mode is None else f"{texts[cid]}:{mode}")
            face_values.append({**values, **overrides})
        card_faces.append(tuple(ids))
    by_text: dict[str, list[int]] = {}
    for cid, t in enumerate(texts):
        by_text.setdefault(t, []).append(cid)
    face_by_text: dict[str, int] = {}
    for fid, t in enumerate(face_texts):
        face_by_text.setdefault(t, fid)
    return Deck(
        texts=texts,
        attrs=card_attrs,
        face_card=tuple(face_card),
        face_mode=tuple(face_mode),
        face_texts=tuple(face_texts),
        face_attrs={n: tuple(v.get(n) for v in face_values) for n in names},
        card_faces=tuple(card_faces),
        by_text={t: tuple(ids) for t, ids in by_text.items()},
        face_by_text=face_by_text,
    )


def _copies_per_rank(group: dict[str, Any], ranks: Any, path: Any, problem: Any) -> dict[Any, int]:
    """Copies of each rank's cards: ``copies`` as one count, or as a mapping rank -> count
    that lists every rank of the group (keys written as integers or as texts)."""
    copies = group.get("copies", 1)
    if not isinstance(copies, dict):
        return dict.fromkeys(ranks, copies)
    given = _by_rank(copies, ranks, (*path, "copies"), problem, "copies")
    missing = [r for r in ranks if r not in given]
    if missing:
        raise problem(
            (*path, "copies"),
            f"copies as a mapping must give a count for every rank of the group: "
            f"missing rank{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}",
        )
    for r, count in given.items():
        if count.__class__ is not int or count < 1:
            raise problem((*path, "copies", r), f"the copies of rank {r} must be an integer 1 or more, got {count!r}")
    return given


def _rank_texts(group: dict[str, Any], ranks: Any, path: Any, problem: Any) -> dict[Any, str]:
    """``rank_texts``: the text put in ``{rank}`` for some ranks (the others show their number)."""
    texts = group.get("rank_texts")
    if texts is None:
        return {}
    given = _by_rank(texts, ranks, (*path, "rank_texts"), problem, "rank_texts")
    for r, text in given.items():
        if not isinstance(text, (str, int)) or isinstance(text, bool) or str(text) == "":
            raise problem((*path, "rank_texts", r), f"the text of rank {r} must be a non-empty text, got {text!r}")
    return {r: str(t) for r, t in given.items()}


def _by_rank(mapping: dict[Any, Any], ranks: Any, path: Any, problem: Any, key: str) -> dict[Any, Any]:
    """A mapping keyed by rank (integer keys, or texts of integers), checked against the group's ranks."""
    out: dict[Any, Any] = {}
    for k, value in mapping.items():
        rank = k
        if isinstance(k, str):
            digits = k[1:] if k[:1] == "-" else k
            rank = int(k) if 0 < len(digits) <= 18 and digits.isascii() and digits.isdigit() else None
        if rank is None or rank not in ranks:
            shown = ", ".join(map(str, ranks)) if len(ranks) <= 20 else f"{ranks[0]}..{ranks[-1]}"
            raise problem((*path, k), f"{key}: {k!r} is not a rank of this group (its ranks: {shown})")
        if rank in out:
            raise problem((*path, k), f"{key}: rank {rank} is given twice")
        out[rank] = value
    return out


def _check_unambiguous(
    rows: list[dict[str, Any]], modes_of: list[dict[str, Any]], groups_of: list[int], problem: ProblemFactory
) -> None:
    """Cards that share a text must be copies of one card, since an action names a card by its
    text (``play C10``): the same attributes (``copy`` aside) and the same modes. Identical
    copies are interchangeable (Skull King's five escapes are ``play escape``); two different
    cards with one text would make ``play C10`` ambiguous.

    Raises:
        whatever ``problem`` returns, at the group of the second card.
    """
    first: dict[str, int] = {}
    for cid, values in enumerate(rows):
        i = first.setdefault(values["text"], cid)
        if i == cid:
            continue
        other = rows[i]
        differ = [k for k in sorted(set(values) | set(other)) if k != "copy" and values.get(k) != other.get(k)]
        if modes_of[cid] != modes_of[i]:
            differ.append("modes")
        if differ:
            where = f"deck[{groups_of[i]}]" + (" (the same group)" if groups_of[i] == groups_of[cid] else "")
            raise problem(
                ("deck", groups_of[cid], "text"),
                f"two different cards have the text {values['text']!r} (the other is in {where}; "
                f"they differ in {', '.join(differ)}): an action naming {values['text']!r} would be "
                f"ambiguous; give each card its own text (cards may share a text only as identical "
                f"copies)",
            )


_TYPE_NAMES = {bool: "a bool", int: "a number", float: "a number", str: "a text"}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), f"a {type(value).__name__}")


def _check_attribute_types(
    rows: list[dict[str, Any]],
    modes_of: list[dict[str, Any]],
    groups_of: list[int],
    problem: ProblemFactory,
    defaulted: set[tuple[int, str]],
) -> None:
    """Each attribute has one type across the deck (modes included); null fits any, and so does
    the default of a lookup (``by:``) a card falls back to. A text where other cards have
    numbers (``points: "-10"``) would fail only in play."""
    first: dict[str, tuple[str, str, int]] = {}  # attribute -> (type, card text, group) of its first value
    start = 0  # the first row of this card (copies are rows of their own)
    for row, (values, modes, gi) in enumerate(zip(rows, modes_of, groups_of, strict=True)):
        if values.get("copy", 0) == 0:
            start = row
        shown = [((), values)] + [(("modes", mode), overrides) for mode, overrides in modes.items()]
        for where, found in shown:
            for attr, value in found.items():
                if value is None or attr in OWN_ATTRIBUTES or attr in ("name", "text"):
                    continue
                if not where and (start, attr) in defaulted:
                    continue
                kind = _type_name(value)
                seen = first.setdefault(attr, (kind, values["text"], gi))
                if seen[0] != kind:
                    raise problem(
                        ("deck", gi, *where, "attributes", attr) if not where else ("deck", gi, *where, attr),
                        f"attribute {attr!r} of card {values['text']!r} is {kind} ({value!r}), but card "
                        f"{seen[1]!r} (deck[{seen[2]}]) has {seen[0]}: an attribute has one type across "
                        f"the deck (write {attr}: -10, not {attr}: '-10')",
                    )


def _attribute_value(spec: Any, values: dict[str, Any], path: tuple[Any, ...], problem: ProblemFactory) -> Any:
    if not isinstance(spec, dict):
        return spec
    key = values.get(spec["by"])
    if spec["by"] not in values:
        raise problem(path + ("by",), f"unknown attribute {spec['by']!r} to look up by")
    for value, keys in spec.get("groups", {}).items():
        if key in keys:
            return _int_or_text(value)
    return spec.get("default")


def _int_or_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value
