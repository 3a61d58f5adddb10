"""Observation tensors: what one seat may see, as a flat list of floats with a fixed layout per Game.

The tensor is built from `trickkit.State.observation` (the dict view), so it hides exactly
what that view hides: cards of zones the seat may not see (only their counts show), the top
card only of a ``top`` zone, other seats' simultaneous bids until every seat has bid. Seats are
numbered **relative to the viewer**: block ``+0`` is the viewer, ``+1`` the seat on its left,
and so on, so one policy can play every seat.

The layout, segment by segment (`Game.observation_tensor_layout` lists the segments of a game
with their offsets; every segment's size is fixed by the ruleset, seat count and parameters):

- ``round`` (1): the round number; ``terminal`` (1): 1 once the game is over;
- ``dealer``, ``current_player``, ``turn_player`` (n each): one-hot relative seat (all zero once
  the game is over, for the last two);
- ``step`` (one per step of the round): one-hot index of the step being played;
- ``scores`` (n): each seat's score so far, relative seat order;
- ``zone NAME +k`` for a seat zone (one per relative seat k), ``zone NAME`` for a table zone,
  ``zone NAME[i]`` for member i of a zone family: ``[count, shown, c_0 .. c_{T-1}]`` where ``count``
  is the number of cards, ``shown`` is 1 when the seat sees the cards now, and ``c_j`` counts the
  cards of the j-th distinct card text (`Game.cards` without repeats) in the zone; only the top
  card for a ``top`` zone, all zero when the cards are not shown;
- ``trick k`` (one per seat, k = 0 for the lead): ``[present, seat +0 .. seat +(n-1), f_0 .. f_{F-1}]``:
  who played the k-th card of the current trick and its face (one-hot over the distinct face
  texts, so a card played in a mode is told apart);
- ``var NAME +k`` for a seat variable (one per relative seat), ``var NAME`` for a table variable,
  by the variable's type: int or bool ``[value, is_null]``; card ``[is_null, c_0 ..]``; text
  ``[is_null, one-hot over the game's texts, other]``; list ``[length, is_null]``; any
  ``[number, is_null, one-hot over the game's texts, other, length]``. The game's texts are the text
  values its cards' attributes, its parameters, its variables' initial values and its action
  choices can take, sorted. A variable some seat may not see (``visibility``/``seen_by``) has one
  more entry, ``known``: 1 when the viewer sees the value; an unknown value is all zeros, ``known``
  included (a team variable is known when every team's value is);
- only in games whose rules ``reveal`` cards: ``revealed NAME +k`` for a seat zone (one per relative
  seat), ``revealed NAME`` for a table zone (``NAME[i]`` for a family member): the count of each
  distinct card text the viewer was shown there and still knows (`trickkit.engine.visibility`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from trickkit.engine.observation import ZoneView
from trickkit.engine.protocols import Seat
from trickkit.engine.state import State
from trickkit.errors import TrickkitError

MAX_TENSOR_SIZE = 10_000_000
"""Most floats in one observation tensor. A small ruleset can ask for far more (each zone of a
family of 1,000 holds a count per card text of a deck of 10,000): one tensor of 100 million
floats takes most of a gigabyte, every call."""


class ObservationSpaceError(TrickkitError, ValueError):
    """The ruleset's observation tensor would exceed `MAX_TENSOR_SIZE` floats."""


class Segment(NamedTuple):
    """One named part of an observation tensor: ``tensor[start:start + size]``."""

    name: str
    start: int
    size: int
    description: str


class ObservationEncoder:
    """Turns `trickkit.State.observation` dicts of one Game into flat float lists.

    ``game``: a `trickkit.engine.game.Game` (which imports this module).
    """

    def __init__(self, game: Any):
        rules = game.rules
        deck = rules.deck
        self.n = n = game.num_players
        self.card_index = {t: i for i, t in enumerate(dict.fromkeys(deck.texts))}
        self.face_index = {t: i for i, t in enumerate(dict.fromkeys(deck.face_texts))}
        self.card_of_id = tuple(self.card_index[t] for t in deck.texts)
        self.texts = _text_vocabulary(game)
        self.text_index = {t: i for i, t in enumerate(self.texts)}
        self.rules = rules
        T, F, V = len(self.card_index), len(self.face_index), len(self.texts)
        self.segments: list[Segment] = []
        add = self._add
        add("round", 1, "the round number (from 1)")
        add("terminal", 1, "1 once the game is over")
        add("dealer", n, "one-hot: the dealer, relative to the viewer")
        add("current_player", n, "one-hot: the seat to act, relative to the viewer")
        add("turn_player", n, "one-hot: the seat whose turn it is (turns steps), relative to the viewer")
        add("step", len(rules.steps), "one-hot: the step of the round being played")
        add("scores", n, "each seat's score, relative seat order")
        zone_desc = "count, shown, then the count of each distinct card text"
        for z in rules.seat_zones:
            for k in range(n):
                add(f"zone {z.name} +{k}", 2 + T, f"{z.visibility} zone of seat +{k}: {zone_desc}")
        for z in rules.table_zones:
            for i in range(z.count) if z.count else [None]:
                add(
                    f"zone {z.name}" + ("" if i is None else f"[{i}]"), 2 + T, f"{z.visibility} table zone: {zone_desc}"
                )
        for k in range(n):
            add(f"trick {k}", 1 + n + F, f"card {k} of the current trick: present, relative seat one-hot, face one-hot")
        self._var_kinds: list[str] = []
        self._var_private: list[bool] = []
        for v in rules.seat_vars:
            kind, size, desc = _var_block(v.type, T, V)
            private = _private(v)
            self._var_kinds.append(kind)
            self._var_private.append(private)
            for k in range(n):
                add(
                    f"var {v.name} +{k}",
                    size + private,
                    f"seat variable ({v.type}) of seat +{k}: {desc}" + (", known" if private else ""),
                )
        for v in rules.table_vars:
            kind, size, desc = _var_block(v.type, T, V)
            private = _private(v)
            self._var_kinds.append(kind)
            self._var_private.append(private)
            add(f"var {v.name}", size + private, f"table variable ({v.type}): {desc}" + (", known" if private else ""))
        self.reveals = bool(getattr(game, "reveals", False))
        self._reveal_segments: dict[tuple[str, int | None], int] = {}  # (zone name, relative seat) -> segment
        if self.reveals:
            for z in rules.seat_zones:
                for k in range(n):
                    self._reveal_segments[(z.name, k)] = len(self.segments)
                    add(f"revealed {z.name} +{k}", T, f"cards of zone {z.name} of seat +{k} revealed to this seat")
            for z in rules.table_zones:
                for i in range(z.count) if z.count else [None]:
                    name = z.name + ("" if i is None else f"[{i}]")
                    self._reveal_segments[(name, None)] = len(self.segments)
                    add(f"revealed {name}", T, f"cards of table zone {name} revealed to this seat")
        self.size = sum(s.size for s in self.segments)
        if self.size > MAX_TENSOR_SIZE:
            raise ObservationSpaceError(
                f"{game.name}: the observation tensor would hold {self.size:,} floats (limit {MAX_TENSOR_SIZE:,}): "
                f"{sum(s.name.startswith('zone ') for s in self.segments):,} zones (seat zones once per seat, "
                f"families once per member) of {2 + T:,} floats each (a count per card text)"
            )

    def _add(self, name: str, size: int, description: str) -> None:
        start = self.segments[-1].start + self.segments[-1].size if self.segments else 0
        self.segments.append(Segment(name, start, size, description))

    def encode(self, state: State, seat: Seat) -> list[float]:
        """The tensor of ``state`` as ``seat`` sees it (see the module docstring)."""
        obs = state.observation(seat)
        n, rules = self.n, self.rules
        out = [0.0] * self.size  # mostly zeros: only the non-zero entries are written below
        at = iter(self.segments)

        def rel(s: Seat | None) -> None:  # a relative-seat one-hot
            start = next(at).start
            if isinstance(s, int) and 0 <= s < n:
                out[start + (s - seat) % n] = 1.0

        terminal = obs["terminal"]
        out[next(at).start] = float(obs["round"])
        out[next(at).start] = 1.0 if terminal else 0.0
        rel(obs["dealer"])
        rel(None if terminal else obs["current_player"])
        rel(None if terminal else state.turn_player if rules.steps[state.step].kind == "turns" else None)
        start = next(at).start
        if not terminal:
            out[start + state.step] = 1.0
        start = next(at).start
        scores = obs["scores"]
        for k in range(n):
            out[start + k] = _float(scores[(seat + k) % n])
        zones = obs["zones"]
        index = self.card_index
        for view in self._zone_views(zones, seat):
            start = next(at).start
            out[start] = float(view["count"])
            if "cards" in view:
                out[start + 1] = 1.0
                for t in view["cards"]:
                    out[start + 2 + index[t]] += 1.0
            elif "top" in view:
                out[start + 1] = 1.0
                if view["top"] is not None:
                    out[start + 2 + index[view["top"]]] = 1.0
        trick = obs["trick"]
        faces = self.face_index
        for k in range(n):
            start = next(at).start
            if k < len(trick):
                out[start] = 1.0
                out[start + 1 + (trick[k]["seat"] - seat) % n] = 1.0
                out[start + 1 + n + faces[trick[k]["card"]]] = 1.0
        variables = obs["variables"]
        kinds = iter(self._var_kinds)
        private = iter(self._var_private)
        var = self._var
        vis = state.game.visibility
        for v in rules.seat_vars:
            kind = next(kinds)
            values = variables[v.name]
            known = vis.variable_known(state, v, seat, True) if next(private) else None
            for k in range(n):
                seg = next(at)
                start = seg.start
                if known is not None:
                    if not known[(seat + k) % n]:
                        continue  # unknown: all zeros, its known-flag too
                    out[start + seg.size - 1] = 1.0
                value = values[(seat + k) % n]
                if kind == "number":  # most variables: write the two entries directly
                    if value is None:
                        out[start + 1] = 1.0
                    elif value.__class__ in (int, bool, float):
                        out[start] = _float(value)
                    continue
                block = var(kind, value)
                out[start : start + len(block)] = block
        for v in rules.table_vars:
            seg = next(at)
            start = seg.start
            kind = next(kinds)
            if next(private):
                known = vis.variable_known(state, v, seat, False)
                if not all(known):  # a team variable: known only when every team's value is
                    continue
                out[start + seg.size - 1] = 1.0
            block = var(kind, variables[v.name])
            out[start : start + len(block)] = block
        if self.reveals:
            segments = self.segments
            for entry in obs.get("revealed", ()):
                owner = entry["seat"]
                start = segments[
                    self._reveal_segments[(entry["zone"], None if owner is None else (owner - seat) % n)]
                ].start
                out[start + index[entry["card"]]] += 1.0
        return out

    def _zone_views(self, zones: Mapping[str, Any], seat: Seat) -> Iterator[ZoneView]:
        """The zone views of an observation in layout order (seat zones from the viewer on)."""
        n = self.n
        for z in self.rules.seat_zones:
            views = zones[z.name]
            for k in range(n):
                yield views[(seat + k) % n]
        for z in self.rules.table_zones:
            view = zones[z.name]
            yield from (view if z.count else [view])

    def _var(self, kind: str, value: Any) -> list[float]:
        T, V = len(self.card_index), len(self.texts)
        null = 1.0 if value is None else 0.0
        if kind == "number":
            return [_number(value), null]
        if kind == "card":
            block = [null] + [0.0] * T
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(self.card_of_id):
                block[1 + self.card_of_id[value]] = 1.0
            return block
        if kind == "list":
            return [float(len(value)) if isinstance(value, (list, tuple)) else 0.0, null]
        texts = [0.0] * (V + 1)
        if isinstance(value, str):
            texts[self.text_index.get(value, V)] = 1.0
        if kind == "text":
            return [null] + texts
        return [_number(value), null] + texts + [float(len(value)) if isinstance(value, (list, tuple)) else 0.0]


def _private(v: Any) -> bool:
    """Is variable ``v`` hidden from some seat (its tensor block then ends with a known-flag)?"""
    return bool(v.visibility != "public" or v.seen_by is not None)


def _number(value: Any) -> float:
    return _float(value) if isinstance(value, (int, float)) else 0.0


_FLOAT_MAX = 1.7976931348623157e308


def _float(value: Any) -> float:
    """``float(value)``, with an int beyond the float range (rules may compute numbers of up to
    MAX_INT_BITS bits) clamped to the largest float of its sign instead of OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return _FLOAT_MAX if value > 0 else -_FLOAT_MAX


def _var_block(vtype: str, T: int, V: int) -> tuple[str, int, str]:
    if vtype in ("int", "bool"):
        return "number", 2, "value, is_null"
    if vtype == "card":
        return "card", 1 + T, "is_null, one-hot card text"
    if vtype == "str":
        return "text", 2 + V, "is_null, one-hot text, other text"
    if vtype.startswith("list"):
        return "list", 2, "length, is_null"
    return "any", 4 + V, "number, is_null, one-hot text, other text, length"


def _text_vocabulary(game: Any) -> tuple[str, ...]:
    """The text values this game's variables can be expected to hold (see the module docstring)."""
    from trickkit.engine.spaces import _Prober

    rules = game.rules
    found: set[str] = set()
    for name, values in rules.deck.attrs.items():
        if name != "name":
            found.update(v for v in values if isinstance(v, str))
    found.update(v for v in rules.params.values() if isinstance(v, str))
    for v in rules.seat_vars + rules.table_vars:
        if isinstance(v.initial, str):
            found.add(v.initial)
    prober = _Prober(game)
    for step in rules.steps:
        if step.kind == "turns":
            for kind in list(step.kinds) + [k for w in step.windows for k in w.kinds]:
                for hook, typ in zip(kind.domains, kind.choice_types):
                    if typ != "card":
                        found.update(v for v in prober.values(hook) if isinstance(v, str))
    return tuple(sorted(found))
