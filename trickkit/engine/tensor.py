"""Observation tensors: what one seat may see, as a flat numpy ``float32`` vector with a fixed layout per Game.

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
- ``auction`` (only in games whose round has an ``auction`` step): the round's running (or last)
  auction, every call being public: for each call the game's auctions can offer (in their order)
  ``[called by +0 .. +(n-1), doubled by +0 .., redoubled by +0 ..]`` (relative seat one-hots),
  then ``[decisions so far, passes in a row at the end]``.

A number beyond the ``float32`` range is clamped to the largest ``float32`` of its sign.

**Cost.** `ObservationEncoder.encode` reads the state itself (not the dict view) and keeps, per
state and seat, the last tensor it wrote with the source of each part (header, scores, each zone,
the trick, the variables; `trickkit.engine.tensor_fast`). A later call compares each part's source
with the one it encoded and rewrites only the parts that changed: a zone (every seat's copy) or
all the table zones are compared at once, as lists; within a changed one the seats the viewer sees
only as a count get their count written (as quick as comparing), the seats whose cards show are
rewritten where their cards changed: a card that left (the sums' difference, checked) or cards that
came on top are flipped one by one, anything else by the cards that came or went; a trick that grew
(the plays written still its first ones) gets its new plays written, any other is cleared at once
and its plays written; in a game whose variables are numbers (the scores one of them) the header,
the seat variables and the table variables are each compared at once; a score rule that reads a
seat variable as it is (``score: total[seat]``) is read from the variable. The comparison is against copies of the
sources, so nothing can go stale: whatever changed the state (actions, clones, a restored state),
a changed part is rewritten. Where the zones always show the same way (no ``public_when``, no
simultaneous choose), the comparisons and writes of each viewer are generated as one straight
function with its offsets as constants (`trickkit.engine.tensor_gen`, checked by the allow-list).
`encode_reference` builds the same tensor from the dict view, the specification the fast path is
tested against.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from trickkit.engine.arrays import (
    _F32,
    _View,
    check_out,
    clamped,
)
from trickkit.engine.protocols import Seat
from trickkit.engine.state import State
from trickkit.engine.tensor_fast import IncrementalEncoding
from trickkit.engine.tensor_reference import ReferenceEncoding, _private, _var_block
from trickkit.engine.tensor_rules import text_vocabulary
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


class ObservationEncoder(IncrementalEncoding, ReferenceEncoding):
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
        self.texts = text_vocabulary(game)
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
        self.calls: dict[tuple[str, Any], int] = {}
        """Index of each call of the game's auctions (by type name and value), in the auction segment."""
        if any(step.kind == "auction" for step in rules.steps):
            from trickkit.engine.spaces import _Prober, auction_calls

            prober = _Prober(game)
            for step in rules.steps:
                if step.kind == "auction":
                    for c in auction_calls(prober, step):
                        self.calls.setdefault((type(c).__name__, c), len(self.calls))
            add(
                "auction",
                3 * n * len(self.calls) + 2,
                "per call: called by, doubled by, redoubled by (relative seat one-hots); "
                "then decisions so far, passes in a row",
            )
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
        self._shape = (self.size,)
        if self.size > MAX_TENSOR_SIZE:
            raise ObservationSpaceError(
                f"{game.name}: the observation tensor would hold {self.size:,} floats (limit {MAX_TENSOR_SIZE:,}): "
                f"{sum(s.name.startswith('zone ') for s in self.segments):,} zones (seat zones once per seat, "
                f"families once per member) of {2 + T:,} floats each (a count per card text)"
            )

        self._steps = game._steps
        score = rules.score
        frame = getattr(score, "size", None)
        fn = getattr(score, "fn", None)
        self._score_fn: tuple[Any, tuple[None, ...]] = (
            (fn, (None,) * (frame - 1)) if callable(fn) and isinstance(frame, int) and frame >= 1 else (None, ())
        )
        self._plan_fast()

    def encode(self, state: State, seat: Seat, out: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """The tensor of ``state`` as ``seat`` sees it (see the module docstring), a new ``float32``
        array, or written into ``out`` (a float32 array of the tensor's shape), which is returned.

        Raises:
            ValueError: ``out`` is not a writable ``float32`` array of shape ``(size,)``.
        """
        if out is not None and not (
            out.__class__ is np.ndarray and out.dtype is _F32 and out.shape == self._shape and out.flags.writeable
        ):
            check_out(out, self._shape, np.float32, "observation_tensor")  # the usual ones pass above, quicker
        whole = self._whole
        if whole is not None:  # `cached` and _update, inlined: the viewer's generated writer does it all
            views = state._tensors
            view = None if views is None else views[seat]
            if view is None:
                view = self._view(state, seat)
            whole[seat](state, view.cells, view.keys, state._terminal)
            array = view.array
        elif self._fast:  # `cached`, inlined: this runs at every decision of a learner
            views = state._tensors
            view = None if views is None else views[seat]
            if view is None:
                view = self._view(state, seat)
            array = view.array
            self._update(state, seat, view.cells, view.keys, array)
        else:
            array = clamped(self.encode_reference(state, seat))
        if out is None:
            copy: np.ndarray[Any, Any] = array.copy()
            return copy
        out[:] = array
        return out

    def cached(self, state: State, seat: Seat) -> np.ndarray[Any, Any]:
        """`encode` without a copy: ``state``'s own tensor for ``seat``, updated, which the next call
        (or any call for this state and seat) overwrites; the caller reads it, never writes it."""
        if not self._fast:  # a layout this encoder does not know: the dict view's encoding
            return clamped(self.encode_reference(state, seat))
        views = state._tensors
        view = None if views is None else views[seat]
        if view is None:
            view = self._view(state, seat)
        array: np.ndarray[Any, Any] = view.array
        whole = self._whole
        if whole is not None:  # _update, inlined
            whole[seat](state, view.cells, view.keys, state._terminal)
        else:
            self._update(state, seat, view.cells, view.keys, array)
        return array

    def _view(self, state: State, seat: Seat) -> _View:
        """A new cache of ``seat``'s tensor of ``state`` (nothing written yet)."""
        views = state._tensors
        if views is None:
            views = state._tensors = [None] * (2 * self.n)  # then the information states' (engine.infostate)
        array = np.zeros(self.size, np.float32) if self._writers is None else self._blanks[seat].copy()
        view = views[seat] = _View(array, self._fresh_keys())
        return view

    def _add(self, name: str, size: int, description: str) -> None:
        start = self.segments[-1].start + self.segments[-1].size if self.segments else 0
        self.segments.append(Segment(name, start, size, description))
