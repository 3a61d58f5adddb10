"""What one seat sees of an engine state, for the information-set sampler (`trickkit.agents.determinize`).

Read from the seat's observation and `trickkit.engine.visibility` (the model every view uses):
the zones as it sees them, the cards it sees or was shown by a reveal, the variables as it
sees them, and a state with the values it may not see put back to their initial values.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def views(s: Any, me: int) -> Iterator[Any]:
    """``(owner seat or None, cards list, how me sees it, zone key)`` for every zone of ``s``.

    How a zone shows is read from ``s.observation(me)`` itself (``all``: its cards, ``top``: its
    top card, ``count``: nothing), so any visibility rule the engine has is followed exactly; a
    zone the observation leaves out counts as hidden.
    """
    rules = s.rules
    zones = s.observation(me)["zones"]
    for z in rules.seat_zones:
        views = zones.get(z.name)
        for seat, cards in enumerate(s.seat_zones[z.index]):
            view = views[seat] if isinstance(views, list) and seat < len(views) else None
            yield seat, cards, how(view, cards), ("seat", z.index, seat)
    for z in rules.table_zones:
        views = zones.get(z.name)
        for i in range(max(z.count, 1)):
            view = (views[i] if isinstance(views, list) and i < len(views) else None) if z.count else views
            cards = s.table_zones[z.index + i]
            yield None, cards, how(view, cards), ("table", z.index + i)


def how(view: Any, cards: list[Any]) -> str:
    """How a zone's observation ``view`` shows its ``cards``: ``all``, ``top`` or ``count``."""
    if isinstance(view, dict) and "cards" in view and len(view["cards"]) == len(cards):
        return "all"
    if isinstance(view, dict) and "top" in view:
        return "top"
    return "count"


def visible_cards(s: Any, me: int) -> set[int]:
    """Card ids ``me`` can see in ``s``: its visible zones, tops, the trick, card-valued variables."""
    out: set[int] = set()
    for _, cards, how, _ in views(s, me):
        if how == "all":
            out.update(cards)
        elif how == "top" and cards:
            out.add(cards[-1])
    out.update(p[1] for p in s.trick)
    if s.last_trick is not None:  # a trick's last card goes straight to its taker: it was seen
        out.update(p[1] for p in s.last_trick[1])
    vis = s.game.visibility
    for cards in vis.known_cards(s, me).values():  # shown to it by a reveal, still where it was
        out.update(cards)
    rules = s.rules
    for v in rules.seat_vars:
        if v.type in ("card", "play"):
            card_values(out, vis.seat_values(s, v, me, list(s.seat_vars[v.index])))
    for v in rules.table_vars:
        if v.type in ("card", "play"):
            card_values(out, [vis.table_value(s, v, me, s.table_vars[v.index])])
    return out


def card_values(out: set[int], values: list[Any]) -> None:
    """Add to ``out`` the cards among ``values`` (card ids, or plays ``(seat, card, ...)``)."""
    for x in values:
        if isinstance(x, int) and not isinstance(x, bool):
            out.add(x)
        elif isinstance(x, tuple) and len(x) > 1:
            out.add(x[1])


def seen_variables(s: Any, me: int) -> str:
    """The variables of ``s`` as ``me`` sees them (a value hidden from it is None), as text."""
    vis, rules = s.game.visibility, s.rules
    if not vis.private_vars:
        return repr((s.seat_vars, s.table_vars))
    seat = [vis.seat_values(s, v, me, list(s.seat_vars[v.index])) for v in rules.seat_vars]
    table = [vis.table_value(s, v, me, s.table_vars[v.index]) for v in rules.table_vars]
    return repr((seat, table))


def blank_hidden(s: Any, me: int) -> Any:
    """``s`` with every variable value ``me`` may not see put back to its initial value: a sample
    must not carry the real values of what the seat does not know (they are unknown to it)."""
    from trickkit.engine.layout import fresh

    vis, rules = s.game.visibility, s.rules
    if not vis.private_vars:
        return s
    for v in rules.seat_vars:
        values = s.seat_vars[v.index]
        seen = vis.seat_values(s, v, me, [True] * len(values))
        s.seat_vars[v.index] = [x if ok else fresh(v.initial) for x, ok in zip(values, seen, strict=True)]
    for v in rules.table_vars:
        value = s.table_vars[v.index]
        if v.per_team:
            seen = vis.table_value(s, v, me, [True] * len(value))
            s.table_vars[v.index] = [x if ok else fresh(i) for x, ok, i in zip(value, seen, v.initial, strict=True)]
        elif vis.table_value(s, v, me, True) is None:
            s.table_vars[v.index] = fresh(v.initial)
    s._legal = None
    return s


def hidden_places(s: Any, me: int) -> list[tuple[Any, ...]]:
    """``(owner, zone list, index)`` of every card position ``me`` cannot see."""
    out: list[tuple[Any, ...]] = []
    for owner, cards, how, _ in views(s, me):
        if how == "all":
            continue
        last = len(cards) - 1 if how == "top" else len(cards)
        out.extend((owner, cards, i) for i in range(max(last, 0)))
    return out


def hidden_locations(s: Any, me: int) -> dict[int, tuple[Any, ...]]:
    """Each card ``me`` cannot see -> the zone it lies in."""
    out: dict[int, tuple[Any, ...]] = {}
    for _, cards, how, key in views(s, me):
        if how != "all":
            for c in cards[:-1] if how == "top" else cards:
                out[c] = key
    return out
