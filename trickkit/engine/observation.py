"""The shape of an observation: what `trickkit.State.observation` returns for one seat.

These are `typing.TypedDict` types: at run time an observation is a plain,
JSON-serialisable ``dict`` with exactly these keys.
"""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["AuctionCall", "Observation", "PlayView", "RevealView", "ZoneView"]


class ZoneView(TypedDict, total=False):
    """One zone as a seat sees it.

    ``count`` is always there. ``cards`` (card texts, bottom to top) is there when the
    seat may see the cards; ``top`` (the top card's text, or ``None`` when the zone is
    empty) when only the top card shows. A hidden zone has only its ``count``.
    """

    count: int
    cards: list[str]
    top: str | None


class PlayView(TypedDict):
    """One card on the table in the current trick."""

    seat: int
    card: str


class AuctionCall(TypedDict):
    """One decision of an auction, as every seat sees it (calls are public).

    ``kind`` is ``"call"``, ``"pass"``, ``"double"`` or ``"redouble"``; ``call`` is the call
    made, doubled or redoubled (a text, or a number in a numbers auction), ``None`` for a pass.
    """

    seat: int
    kind: str
    call: Any


class RevealView(TypedDict):
    """One card a ``reveal`` showed this seat, where it still lies: ``{"card": "Priest", "zone": "hand",
    "seat": 2}`` (``seat`` None for a table zone; a zone family's member is named ``piles[1]``)."""

    card: str
    zone: str
    seat: int | None


class _ObservationKeys(TypedDict):
    """The keys every observation has (see `Observation`)."""

    game: str
    seat: int | None
    round: int
    dealer: int
    phase: str
    current_player: int
    zones: dict[str, ZoneView | list[ZoneView]]
    trick: list[PlayView]
    variables: dict[str, Any]
    seat_zones: list[str]
    seat_variables: list[str]
    scores: list[int]
    terminal: bool


class Observation(_ObservationKeys, total=False):
    """What one seat may see of a game (see the Observations reference page for examples).

    Attributes:
        game: the game's name, e.g. ``"skull_king"``.
        seat: the seat this view is for (``None`` only in `trickkit.State.observation_all`).
        round: the round (deal) number, from 1.
        dealer: the dealer's seat.
        phase: the kind of the current step (``"bid"``, ``"auction"``, ``"choose"``, ``"tricks"``,
            ``"turns"``, ``"deal"``, ``"effect"``), or ``"over"``.
        current_player: the seat to act (`trickkit.TERMINAL` once the game is over).
        zones: zone name -> a `ZoneView` for a table zone, or a list of them: one per seat
            for a seat zone (see ``seat_zones``), one per member for a zone family.
        trick: the cards played to the current trick, in play order.
        variables: variable name -> value; a seat variable holds one value per seat, a team
            variable one per team (``None`` for a value this seat may not see: a simultaneous bid
            not revealed yet, a variable whose ``visibility``/``seen_by`` hides it).
        seat_zones: the names of the per-seat zones.
        seat_variables: the names of the per-seat variables.
        scores: each seat's score so far.
        terminal: True once the game is over.
        auction: only in games whose round has an ``auction`` step: the decisions of the
            round's running (or last) auction, in order, as `AuctionCall` dicts (empty before
            the round's first auction). Every call is public.
        playing_for: present only while the seat to act chooses another seat's card (a tricks
            step's ``actor``, e.g. the declarer playing dummy's): whose card is due. Public:
            every seat's observation has it.
        revealed: only in games whose rules use ``reveal``: the cards this seat was shown and
            still knows (`RevealView`; see `trickkit.engine.visibility`).
    """

    auction: list[AuctionCall]
    playing_for: int
    revealed: list[RevealView]
