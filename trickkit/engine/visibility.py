"""Who sees what, now: the one place that decides, for every card and variable, which seats may see it.

Every view of a seat is derived from here: the observation dict (`trickkit.engine.game.Game.observe`),
and through it the observation tensor, the ``trickkit play`` screen and transcripts; the conformance
kit's hidden-information check; and the samples of `trickkit.agents.determinize`. What it knows:

- **Zones.** A seat sees a zone's cards when the zone's ``visibility`` lets it (``public``;
  ``owner`` for the owning seat; ``top``: the top card only), its ``public_when`` holds, or its
  ``seen_by`` holds for that seat (context ``seat``, the viewer, and ``owner``, the zone's seat,
  -1 for a table zone). The zone a running simultaneous ``choose`` step chooses into shows only
  its count to the other seats until every seat has chosen.
- **Reveals.** ``reveal(CARDS, SEATS)`` (`trickkit.dsl.runtime.reveal`) records, in
  ``state.known``, that a seat knows a card's text at a place (a zone of a seat, or a table zone).
  The knowledge lasts while the card stays there: when a card of that text leaves that place,
  every viewer forgets that text there (copies are indistinguishable, so forgetting never depends
  on which copy the engine moved). `forget_moved` (`trickkit.dsl.runtime.forget_moved`) applies
  this at the end of every action (and of the automatic steps it set off), and before each
  ``reveal`` (a card moved earlier in the same action is forgotten before the new knowledge is
  added, not with it); a ``deal`` forgets everything. It runs only when something is known, so games without
  reveals pay nothing. A viewer's knowledge shows in its observation only, as
  ``revealed: [{"card": "Priest", "zone": "hand", "seat": 2}, ...]`` (``seat`` None for a table zone).
- **Variables.** A variable's ``visibility`` (``public``, ``owner``: the owning seat, or for a team
  variable the seats of that team; ``hidden``: nobody) and ``seen_by`` (context ``seat`` and
  ``owner``: the variable's seat, team, or -1 for a table variable) decide who sees its value; an
  unseen value is None in the observation. Other seats' bids in a running simultaneous ``bid``
  step are None too, until every seat has bid.

``viewer`` None means everything (debugging, saved states): every card and value shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

from trickkit.dsl.runtime import forget_moved
from trickkit.engine.observation import RevealView
from trickkit.engine.protocols import Seat

if TYPE_CHECKING:
    from trickkit.rules.model import VariableSpec, ZoneSpec

State: TypeAlias = Any
"""A `trickkit.engine.state.State` (which imports this module, so it is not named here)."""

__all__ = ["Place", "Visibility", "forget_moved"]

Place = tuple[int, int]
"""Where a revealed card lies: ``(seat zone index, seat)``, or ``(-1, table zone index)``."""

ALL, TOP, COUNT = "all", "top", "count"
"""How a seat sees a zone: every card, the top card only, or only how many cards it holds."""


def _zone_at(state: State, place: Place) -> list[int]:
    z, x = place
    zone: list[int] = state.table_zones[x] if z < 0 else state.seat_zones[z][x]
    return zone


class Visibility:
    """The visibility rules of one Game, compiled once; every method reads a state and a viewer.

    Args:
        rules: the game's compiled `trickkit.rules.ruleset.Rules`.
    """

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.n = rules.num_players
        self.zone_names = {(-1, z.index + i): z for z in rules.table_zones for i in range(max(z.count, 1))}
        """Table zone index -> its spec (a family's members share one)."""
        self._static_views: dict[tuple[int, Seat], list[str]] = {}
        """(seat zone index, viewer) -> how the viewer sees each seat's zone, for zones without ``seen_by``."""
        self.private_vars = any(v.visibility != "public" or v.seen_by is not None for v in self._variables())
        """True when some variable is not seen by every seat (the tensor then has known-flags)."""

    def _variables(self) -> Iterator[VariableSpec]:
        yield from self.rules.seat_vars
        yield from self.rules.table_vars

    # -- zones ------------------------------------------------------------------------------
    def secret_zone(self, state: State) -> int:
        """The seat zone a running simultaneous ``choose`` step chooses into (-1 if none): until every
        seat has chosen, the other seats see only its count."""
        if state.is_terminal():
            return -1
        step = self.rules.steps[state.step]
        return step.to.index if step.kind == "choose" and getattr(step, "simultaneous", False) else -1

    def seat_zone(self, state: State, zone: ZoneSpec, viewer: Seat | None, secret: int = -1) -> list[str]:
        """How ``viewer`` sees each seat's ``zone`` (`ALL`, `TOP` or `COUNT`), seat 0 first.
        ``secret``: `secret_zone` of ``state`` (the caller computes it once per view)."""
        if viewer is None:
            return [ALL] * self.n
        if zone.index == secret:
            return [ALL if s == viewer else COUNT for s in range(self.n)]
        if zone.public_when is not None and zone.public_when(state):
            return [ALL] * self.n
        vis, seen_by = zone.visibility, zone.seen_by
        if seen_by is None:  # visibility alone decides: the same answer every time (cached)
            key = (zone.index, viewer)
            fixed = self._static_views.get(key)
            if fixed is None:
                fixed = self._static_views[key] = [_static(vis, viewer, owner) for owner in range(self.n)]
            return [*fixed]
        out = []
        for owner in range(self.n):
            how = _static(vis, viewer, owner)
            if how != ALL and seen_by is not None and seen_by(state, viewer, owner):
                how = ALL
            out.append(how)
        return out

    def table_zone(self, state: State, zone: ZoneSpec, viewer: Seat | None) -> str:
        """How ``viewer`` sees the table ``zone`` (each member of a family alike)."""
        if viewer is None:
            return ALL
        if zone.public_when is not None and zone.public_when(state):
            return ALL
        how = _static(zone.visibility, viewer, None)
        if how != ALL and zone.seen_by is not None and zone.seen_by(state, viewer, -1):
            how = ALL
        return how

    def hidden_places(self, state: State, viewer: Seat) -> list[tuple[list[int], list[int]]]:
        """Every zone of ``state`` with cards ``viewer`` cannot see: ``(the zone's list, the positions
        hidden from it)``. A card it was shown by ``reveal`` and still knows is not hidden."""
        known = self.known_cards(state, viewer)
        out: list[tuple[list[int], list[int]]] = []

        def add(place: Place, cards: list[int], how: str) -> None:
            if how == ALL or not cards:
                return
            stop = len(cards) - 1 if how == TOP else len(cards)
            mine = known.get(place, ())
            positions = [i for i in range(stop) if cards[i] not in mine]
            if positions:
                out.append((cards, positions))

        secret = self.secret_zone(state)
        for z in self.rules.seat_zones:
            for owner, how in enumerate(self.seat_zone(state, z, viewer, secret)):
                add((z.index, owner), state.seat_zones[z.index][owner], how)
        for z in self.rules.table_zones:
            how = self.table_zone(state, z, viewer)
            for i in range(max(z.count, 1)):
                add((-1, z.index + i), state.table_zones[z.index + i], how)
        return out

    # -- reveals ----------------------------------------------------------------------------
    def known_cards(self, state: State, viewer: Seat | None) -> dict[Place, set[int]]:
        """The cards ``viewer`` knows by a reveal, by place (empty for None: it sees everything)."""
        out: dict[Place, set[int]] = {}
        if state.known and viewer is not None:
            for v, place, card in state.known:
                if v == viewer:
                    out.setdefault(place, set()).add(card)
        return out

    def revealed(self, state: State, viewer: Seat | None) -> list[RevealView]:
        """``viewer``'s knowledge from reveals, as the observation shows it: one entry per card,
        ``{"card": text, "zone": name, "seat": owner or None}``, in zone order then card order."""
        if not state.known or viewer is None:
            return []
        known = self.known_cards(state, viewer)
        if not known:
            return []
        texts = self.rules.deck.texts
        out: list[RevealView] = []
        for place in sorted(known):
            z, x = place
            if z < 0:
                zone = self.zone_names[place]
                name, seat = (zone.name if not zone.count else f"{zone.name}[{x - zone.index}]"), None
            else:
                name, seat = self.rules.seat_zones[z].name, x
            cards = _zone_at(state, place)
            ids = [c for c in known[place] if c in cards]  # (a sampled world may hold other cards there)
            # in the zone's order, so the view never tells which copy of a text was revealed
            out += [{"card": texts[c], "zone": name, "seat": seat} for c in sorted(ids, key=cards.index)]
        return out

    # -- variables --------------------------------------------------------------------------
    @staticmethod
    def plain(var: VariableSpec) -> bool:
        """Does every seat see ``var``'s values always (``visibility: public``, no ``seen_by``)?"""
        return var.visibility == "public" and var.seen_by is None

    def secret_bid(self, state: State) -> str | None:
        """The seat variable a running simultaneous ``bid`` step writes (others' bids are hidden), or None."""
        if state._terminal:
            return None
        step = self.rules.steps[state.step]
        return step.variable.name if step.kind == "bid" and step.simultaneous else None

    def sees_variable(self, state: State, var: VariableSpec, viewer: Seat | None, owner: int) -> bool:
        """Does ``viewer`` see ``var``'s value of ``owner`` (a seat, a team for a team variable,
        -1 for a table variable) now?"""
        if viewer is None or var.visibility == "public":
            return True
        if var.visibility == "owner":
            if var.per_team:
                if self.rules.team_of[viewer] == owner:
                    return True
            elif owner == viewer:
                return True
        return var.seen_by is not None and bool(var.seen_by(state, viewer, owner))

    def seat_values(self, state: State, var: VariableSpec, viewer: Seat | None, values: list[Any]) -> list[Any]:
        """``values`` (one per seat, copies the caller may keep) with those ``viewer`` may not see as None."""
        if viewer is not None and (var.visibility != "public" or var.seen_by is not None):
            values = [x if self.sees_variable(state, var, viewer, s) else None for s, x in enumerate(values)]
        if var.name == self.secret_bid(state):
            # simultaneous bids: nobody sees another's bid until all have bid
            done = {(state.current - k - 1) % self.n for k in range(state.acted)}
            values = [x if (s == viewer or viewer is None) and s in done else None for s, x in enumerate(values)]
        return values

    def table_value(self, state: State, var: VariableSpec, viewer: Seat | None, value: Any) -> Any:
        """``value`` of table (or team) variable ``var`` as ``viewer`` sees it (None where it may not)."""
        if viewer is None or (var.visibility == "public" and var.seen_by is None):
            return value
        if var.per_team:
            return [x if self.sees_variable(state, var, viewer, t) else None for t, x in enumerate(value)]
        return value if self.sees_variable(state, var, viewer, -1) else None

    def variable_known(self, state: State, var: VariableSpec, viewer: Seat, per_seat: bool) -> list[bool]:
        """For the tensor's known-flags: whether ``viewer`` sees ``var``'s value, per owner (seats for
        a seat variable, ``per_seat``; teams for a team variable; one entry for a table variable)."""
        if per_seat:
            owners: list[int] = list(range(self.n))
        elif var.per_team:
            owners = list(range(len(self.rules.teams)))
        else:
            owners = [-1]
        return [self.sees_variable(state, var, viewer, o) for o in owners]


def _static(visibility: str, viewer: Seat, owner: Seat | None) -> str:
    """How ``visibility`` alone shows a zone of ``owner`` (None: the table) to ``viewer``."""
    if visibility == "public":
        return ALL
    if visibility == "owner":
        return ALL if viewer == owner else COUNT
    if visibility == "top":
        return TOP
    return COUNT
