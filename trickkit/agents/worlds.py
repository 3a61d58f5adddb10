"""Helpers of the information-set sampler on engine states: where cards lie, what a seat sees
of each zone, which places it cannot see, and relabelling cards (see
`trickkit.agents.determinize`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def _generator_state(s: Any) -> Any:
    r = s._rng
    return r.getstate() if r is not None else s._rng_state


def _views(s: Any, me: int) -> Iterator[Any]:
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
            yield seat, cards, _how(view, cards), ("seat", z.index, seat)
    for z in rules.table_zones:
        views = zones.get(z.name)
        for i in range(max(z.count, 1)):
            view = (views[i] if isinstance(views, list) and i < len(views) else None) if z.count else views
            cards = s.table_zones[z.index + i]
            yield None, cards, _how(view, cards), ("table", z.index + i)


def _how(view: Any, cards: list[Any]) -> str:
    if isinstance(view, dict) and "cards" in view and len(view["cards"]) == len(cards):
        return "all"
    if isinstance(view, dict) and "top" in view:
        return "top"
    return "count"


def _visible_cards(s: Any, me: int) -> set[int]:
    """Card ids ``me`` can see in ``s``: its visible zones, tops, the trick, card-valued variables."""
    out: set[int] = set()
    for _, cards, how, _ in _views(s, me):
        if how == "all":
            out.update(cards)
        elif how == "top" and cards:
            out.add(cards[-1])
    out.update(p[1] for p in s.trick)
    if s.last_trick is not None:  # a trick's last card goes straight to its taker: it was seen
        out.update(p[1] for p in s.last_trick[1])
    rules = s.rules
    for specs, values, per_seat in ((rules.seat_vars, s.seat_vars, True), (rules.table_vars, s.table_vars, False)):
        for v in specs:
            if v.type in ("card", "play"):
                for x in values[v.index] if per_seat else [values[v.index]]:
                    if isinstance(x, int) and not isinstance(x, bool):
                        out.add(x)
                    elif isinstance(x, tuple) and len(x) > 1:
                        out.add(x[1])
    return out


def _hidden_places(s: Any, me: int) -> list[tuple[Any, ...]]:
    """``(owner, zone list, index)`` of every card position ``me`` cannot see."""
    out: list[tuple[Any, ...]] = []
    for owner, cards, how, _ in _views(s, me):
        if how == "all":
            continue
        last = len(cards) - 1 if how == "top" else len(cards)
        out.extend((owner, cards, i) for i in range(max(last, 0)))
    return out


def _card_choices(s: Any, action: Any) -> tuple[bool, ...]:
    """For each choice of ``action`` (taken in ``s``), whether it is a card: a card choice of a
    turns action kind, or the one choice of a step whose action names a card by its text."""
    if not action.choices:
        return ()
    step = s.rules.steps[s.step]
    kinds = list(getattr(step, "kinds", ()))
    for window in getattr(step, "windows", ()):
        kinds += list(window.kinds)
    if kinds:
        for kind in kinds:
            if kind.name == action.verb and len(kind.choice_types) == len(action.choices):
                return tuple(t == "card" and isinstance(v, int) for t, v in zip(kind.choice_types, action.choices))
        return (False,) * len(action.choices)
    texts = s.rules.deck.texts  # a step without action kinds (a card chosen): `verb CARD`
    words = action.text.split()[1:]
    return tuple(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(texts) and texts[v] in words
        for v in action.choices
    )


def _relabel(s: Any, perm: dict[int, int], dealt: set[int] | frozenset[int] = frozenset()) -> Any:
    """A copy of ``s`` in which card ``p`` is replaced by ``perm[p]`` wherever it lies.

    A hand of a seat zone in ``dealt`` (just filled by a deal) holding a relabelled card is put
    in deck order, as the deal left it: its order then tells nothing of the real hand."""
    c = s.clone()
    get = perm.get
    c.seat_zones = [
        [
            sorted(get(x, x) for x in hand)
            if z in dealt and any(x in perm for x in hand)
            else [get(x, x) for x in hand]
            for hand in zone
        ]
        for z, zone in enumerate(c.seat_zones)
    ]
    c.table_zones = [[get(x, x) for x in zone] for zone in c.table_zones]
    c._legal = None
    return c


def _locations(s: Any) -> dict[int, tuple[Any, ...]]:
    """Each card in a zone of ``s`` -> its zone key (``("seat", zone, seat)`` or ``("table", zone)``)."""
    out: dict[int, tuple[Any, ...]] = {}
    for z, zone in enumerate(s.seat_zones):
        for seat, cards in enumerate(zone):
            seat_key = ("seat", z, seat)
            for x in cards:
                out[x] = seat_key
    for z, cards in enumerate(s.table_zones):
        table_key = ("table", z)
        for x in cards:
            out[x] = table_key
    return out


def _cards_in_place_order(s: Any) -> list[int]:
    """Every card in a zone of ``s``, zone by zone (seat zones seat by seat, then table zones)."""
    out: list[int] = []
    for zone in s.seat_zones:
        for cards in zone:
            out.extend(cards)
    for cards in s.table_zones:
        out.extend(cards)
    return out


def _hidden_locations(s: Any, me: int) -> dict[int, tuple[Any, ...]]:
    """Each card ``me`` cannot see -> the zone it lies in."""
    out: dict[int, tuple[Any, ...]] = {}
    for _, cards, how, key in _views(s, me):
        if how != "all":
            for c in cards[:-1] if how == "top" else cards:
                out[c] = key
    return out


def _signature(s: Any) -> tuple[Any, ...]:
    """What the next decision looks like from outside: who acts, where, the zone sizes and the variables."""
    return (
        s.current_player(),
        s.round,
        s.step,
        s.turn_player,
        s.window,
        repr(s.trick),
        tuple(len(h) for zone in s.seat_zones for h in zone),
        tuple(len(z) for z in s.table_zones),
        repr(s.seat_vars),
        repr(s.table_vars),
    )


def _swap(s: Any, a: int, b: int) -> None:
    """Exchange the places of cards ``a`` and ``b`` in ``s``."""
    for zone in s.seat_zones:
        for cards in zone:
            for i, x in enumerate(cards):
                if x == a:
                    cards[i] = b
                elif x == b:
                    cards[i] = a
    for cards in s.table_zones:
        for i, x in enumerate(cards):
            if x == a:
                cards[i] = b
            elif x == b:
                cards[i] = a
    s._legal = None
