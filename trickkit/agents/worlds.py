"""Helpers of the information-set sampler on engine states: where cards lie, which choices are
cards, relabelling and swapping cards, what the next decision looks like (see
`trickkit.agents.determinize`). What a seat sees (zones, cards, variables) is
`trickkit.agents.seat_view`'s job."""

from __future__ import annotations

from typing import Any

from trickkit.agents.seat_view import seen_variables


def _generator_state(s: Any) -> Any:
    r = s._rng
    return r.getstate() if r is not None else s._rng_state


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
    if c.known:  # what reveals showed other seats follows the cards (the sample's, not the real ones)
        c.known = {(v, place, get(x, x)): None for v, place, x in c.known}
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


def _signature(s: Any, me: int) -> tuple[Any, ...]:
    """What the next decision looks like from outside: who acts, where, the zone sizes and the
    variables (as ``me`` sees them: a value hidden from it must not tell the cards apart)."""
    return (
        s.current_player(),
        s.round,
        s.step,
        s.turn_player,
        s.window,
        repr(s.trick),
        tuple(len(h) for zone in s.seat_zones for h in zone),
        tuple(len(z) for z in s.table_zones),
        seen_variables(s, me),
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
