"""Selecting one card of a deck group by its text in a variant's list operations (``extends``).

A variant may write ``$change: {DJ: ...}`` where the parent's deck has one ``{suit}J`` group
for four suits: `split_for_cards` splits that group into groups that make the same cards in the
same order, with ``DJ`` alone in one, and `trickkit.rules.inherit` applies the operation to it.
A deck whose variant selects no card this way is not touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["MAX_SPLIT_CARDS", "group_cards", "selectors", "split_for_cards", "split_group"]

#: Most cards of one group expanded to find a card selector in it (a larger group is not searched).
MAX_SPLIT_CARDS = 10_000


def selectors(child: dict[Any, Any]) -> list[str]:
    """The text selectors of a mapping of list operations, in the order they are written."""
    out: list[str] = []
    removed = child.get("$remove")
    for sel in removed if isinstance(removed, list) else ():
        if isinstance(sel, str):
            out.append(sel)
    for key in ("$change", "$insert_before", "$insert_after"):
        table = child.get(key)
        for sel in table if isinstance(table, dict) else ():
            if isinstance(sel, str):
                out.append(sel)
    return out


def group_cards(group: dict[Any, Any]) -> list[tuple[str, int, int]] | None:
    """``(card text, suit index, rank index)`` of each card a deck group makes, in deck order
    (suit by suit, rank by rank, as `trickkit.rules.cards.build_deck` makes them); None for an
    item that is no card group with a ``{suit}``/``{rank}`` template, or too large to search."""
    template = group.get("text")
    if not isinstance(template, str) or "{" not in template:
        return None
    suits = group.get("suit")
    codes = list(suits) if isinstance(suits, dict) else [suits] if suits is not None else [None]
    rank = group.get("rank")
    if isinstance(rank, dict):
        lo, hi = rank.get("from"), rank.get("to")
        if not isinstance(lo, int) or not isinstance(hi, int) or isinstance(lo, bool) or isinstance(hi, bool):
            return None
        if hi - lo > MAX_SPLIT_CARDS:
            return None
        ranks: list[Any] = list(range(lo, hi + 1))
    else:
        ranks = [rank]
    if len(codes) * len(ranks) > MAX_SPLIT_CARDS:
        return None
    texts = group.get("rank_texts")
    shown = {str(k): v for k, v in texts.items()} if isinstance(texts, dict) else {}
    out = []
    for si, code in enumerate(codes):
        for ri, r in enumerate(ranks):
            face = shown.get(str(r), r) if r is not None else ""
            try:
                text = template.format(suit=code if code is not None else "", rank=face)
            except (KeyError, IndexError, ValueError, AttributeError):  # not a card template: the schema says why
                return None
            out.append((text, si, ri))
    return out


def split_for_cards(
    parent: list[Any], wanted: list[str], identity: Callable[[Any], Any]
) -> tuple[list[Any], list[int], dict[str, dict[Any, Any]]]:
    """``parent`` with the card groups that make a selected card split so that card is alone in
    a group of its own (`split_group`), each item's index in ``parent``, and selector -> the
    group of that card (``identity(item)`` is how an item is selected otherwise). A selector
    that is an item's identity (a group's own ``text``), or that
    no group (or several cards) makes, is left to the usual selection and its errors."""
    items = list(parent)
    origin = list(range(len(parent)))
    picked: dict[str, dict[Any, Any]] = {}
    own = {identity(item) for item in parent if identity(item) is not None}
    for sel in wanted:
        if sel in own or sel in picked:
            continue
        found: list[tuple[int, int, int]] = []
        for i, item in enumerate(items):
            if isinstance(item, dict):
                found += [(i, si, ri) for text, si, ri in group_cards(item) or () if text == sel]
        if len(found) != 1:
            continue
        i, si, ri = found[0]
        pieces, alone = split_group(items[i], si, ri)
        items[i : i + 1] = pieces
        origin[i : i + 1] = [origin[i]] * len(pieces)
        picked[sel] = alone
    return items, origin, picked


def split_group(group: dict[Any, Any], si: int, ri: int) -> tuple[list[dict[Any, Any]], dict[Any, Any]]:
    """A card group split around its card (suit ``si``, rank ``ri``): the suits before it, the
    ranks of its suit before it, the card alone, the ranks after it and the suits after it, in
    the order the group makes its cards (so the deck is the same card for card), and the group
    of the card alone."""
    suits = group.get("suit")
    codes = list(suits) if isinstance(suits, dict) else [None]
    rank = group.get("rank")
    ranks = list(range(rank["from"], rank["to"] + 1)) if isinstance(rank, dict) else [rank]

    def piece(suit_part: list[Any], rank_part: list[Any]) -> dict[Any, Any]:
        out = dict(group)
        if isinstance(suits, dict):
            out["suit"] = {c: suits[c] for c in suit_part}
        if isinstance(rank, dict):
            out["rank"] = rank_part[0] if len(rank_part) == 1 else {"from": rank_part[0], "to": rank_part[-1]}
            for key in ("copies", "rank_texts"):  # per-rank tables keep the piece's ranks only
                table = group.get(key)
                if isinstance(table, dict):
                    kept = {k: v for k, v in table.items() if str(k) in {str(r) for r in rank_part}}
                    if kept:
                        out[key] = kept
                    else:
                        del out[key]
        return out

    pieces = []
    if si > 0:
        pieces.append(piece(codes[:si], ranks))
    if ri > 0:
        pieces.append(piece(codes[si : si + 1], ranks[:ri]))
    alone = piece(codes[si : si + 1], ranks[ri : ri + 1])
    pieces.append(alone)
    if ri < len(ranks) - 1:
        pieces.append(piece(codes[si : si + 1], ranks[ri + 1 :]))
    if si < len(codes) - 1:
        pieces.append(piece(codes[si + 1 :], ranks))
    return pieces, alone
