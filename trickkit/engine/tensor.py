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
the trick, the variables). A later call compares each part's source with the one it encoded and
rewrites only the parts that changed: a zone (every seat's copy) or all the table zones are
compared at once, as lists, and within a changed one only the seats whose cards changed are
rewritten, a shown zone by flipping the cards that came or went; the trick is cleared at once
and its plays written; number variables are compared all at once; a score rule that reads a seat
variable as it is (``score: total[seat]``) is read from the variable. The comparison is against
copies of the sources, so nothing can go stale: whatever changed the state (actions, clones, a
restored state), a changed part is rewritten. `encode_reference`
builds the same tensor from the dict view, the specification the fast path is tested against.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from trickkit.dsl.compiler import EVALUATION_BUDGET
from trickkit.engine.arrays import (
    _ALL,
    _COUNT,
    _F32,
    _NUMBERS,
    _SCORE_LIMIT,
    _UNSET,
    _View,
    check_out,
    clamped,
    f32,
    visible,
)
from trickkit.engine.protocols import Seat
from trickkit.engine.state import State
from trickkit.engine.tensor_reference import ReferenceEncoding, _private, _var_block
from trickkit.engine.tensor_rules import bare_seat_variable, text_vocabulary
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


class ObservationEncoder(ReferenceEncoding):
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

    # -- the fast, incremental encoder ------------------------------------------------------------
    def _plan_fast(self) -> None:
        """Offsets and tables of the fast path; ``self._fast`` False if the layout holds a segment it
        does not know (then `encode` converts `encode_reference`)."""
        n, rules = self.n, self.rules
        at = {seg.name: seg.start for seg in self.segments}
        known = {"round", "terminal", "dealer", "current_player", "turn_player", "step", "scores"}
        known.update(f"trick {k}" for k in range(n))
        # key slots: 0 the header, 1 the positions it set, 2 the scores, 3 + z each seat zone, then the
        # table zones, the trick, the seat variables, the table variables (one slot each)
        seat_zones = rules.seat_zones
        self._zone_plans = tuple(
            tuple(
                (
                    3 + z,
                    spec.index,
                    tuple(visible(spec.visibility, owner == seat) for owner in range(n)),
                    tuple(at.get(f"zone {spec.name} +{(owner - seat) % n}", -1) for owner in range(n)),
                )
                for z, spec in enumerate(seat_zones)
            )
            for seat in range(n)
        )
        """Per viewer, its seat zones: (key slot, zone index, how and where each seat's is shown, seat 0 first)."""
        for z in seat_zones:
            known.update(f"zone {z.name} +{k}" for k in range(n))
        self._public_when = tuple(z.public_when for z in seat_zones)
        self._secret_zone = tuple(
            step.to.index if step.kind == "choose" and getattr(step, "simultaneous", False) else -1
            for step in rules.steps
        )
        """Per step, the seat zone a running simultaneous choose chooses into (others see its count), or -1."""
        self._hidden_var = tuple(
            step.variable.name if step.kind == "bid" and getattr(step, "simultaneous", False) else None
            for step in rules.steps
        )
        """Per step, the seat variable a running simultaneous bid writes (others' bids hidden), or None."""
        table: list[int] = []  # the start of each table zone (family members each), in the state's order
        table_hows: list[str] = []
        table_when: list[Any] = []
        for z in rules.table_zones:
            for i in range(z.count) if z.count else [None]:
                name = f"zone {z.name}" + ("" if i is None else f"[{i}]")
                known.add(name)
                table.append(at.get(name, -1))
                table_hows.append(visible(z.visibility, False))
                table_when.append(z.public_when)
        self._table_plan = (3 + len(seat_zones), -1, tuple(table_hows), tuple(table))
        """The table zones' plan: (key slot, -1, how each is shown, start of each)."""
        if table:
            self._zone_plans = tuple((*plans, self._table_plan) for plans in self._zone_plans)
        self._table_when = tuple(table_when)
        self._zone_overrides = any(w is not None for w in (*self._public_when, *table_when)) or any(
            x >= 0 for x in self._secret_zone
        )
        self._trick_slot = 4 + len(seat_zones)
        kinds = iter(self._var_kinds)
        self._seat_var_plan: list[tuple[int, int, str, str, tuple[int, ...]]] = []
        for v in rules.seat_vars:
            names = [f"var {v.name} +{k}" for k in range(n)]
            known.update(names)
            slot = self._trick_slot + 1 + len(self._seat_var_plan)
            self._seat_var_plan.append((slot, v.index, v.name, next(kinds), tuple(at.get(x, -1) for x in names)))
        self._table_var_plan: list[tuple[int, int, str, int]] = []
        for v in rules.table_vars:
            known.add(f"var {v.name}")
            slot = self._trick_slot + 1 + len(self._seat_var_plan) + len(self._table_var_plan)
            self._table_var_plan.append((slot, v.index, next(kinds), at.get(f"var {v.name}", -1)))
        self._vars_slot = self._trick_slot + 1 + len(self._seat_var_plan) + len(self._table_var_plan)
        """Two more slots: copies of all the seat variables' and of all the table variables' values."""
        self._hows_slot = self._vars_slot + 2
        """Then, in games whose zones show otherwise at times, how each zone slot was last shown."""
        self._n_keys = self._hows_slot + self._trick_slot
        # per-seat visibility (zone seen_by, private variables) is the visibility model's to decide:
        # such games take the reference path, which asks it (`trickkit.engine.visibility`)
        per_seat = any(z.seen_by is not None for z in (*rules.seat_zones, *rules.table_zones)) or any(
            _private(v) for v in (*rules.seat_vars, *rules.table_vars)
        )
        self._fast = not per_seat and all(seg.name in known for seg in self.segments)
        self._at = at
        self._header_at = (
            at.get("dealer", 0),
            at.get("current_player", 0),
            at.get("turn_player", 0),
            at.get("step", 0),
        )
        self._scores_at = at.get("scores", 0)
        self._trick_at = at.get("trick 0", 0)
        self._trick_size = 1 + n + len(self.face_index)
        deck = rules.deck
        self._face_of_id = tuple(self.face_index[t] for t in deck.face_texts)
        # one card text per card: the card id is its text's index, and a zone holds each at most once
        self._unique_cards = self.card_of_id == tuple(range(len(deck.texts)))
        self._small_deck = len(deck.texts) <= 256  # card ids fit in bytes
        self._turns_steps = tuple(step.kind == "turns" for step in rules.steps)
        self._zeros = memoryview(np.zeros(2 + len(self.card_index), np.float32))  # type: ignore[arg-type]
        self._orders = tuple(tuple((seat + k) % n for k in range(n)) for seat in range(n))
        self._score_var = bare_seat_variable(rules)
        self._numbers_only = all(kind == "number" for kind in self._var_kinds)
        """Every variable is a number (values compared as a whole, copied as lists of numbers)."""
        self._rel = tuple(tuple(1 + (actor - seat) % n for actor in range(n)) for seat in range(n))
        self._face_at = tuple(1 + n + f for f in self._face_of_id)
        self._trick_zeros = memoryview(np.zeros(n * self._trick_size, np.float32))  # type: ignore[arg-type]

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
        array = self.cached(state, seat)
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
        if views is None:
            views = state._tensors = [None] * (2 * self.n)  # then the information states' (engine.infostate)
        view = views[seat]
        if view is None:
            view = views[seat] = _View(np.zeros(self.size, np.float32), self._fresh_keys())
        array: np.ndarray[Any, Any] = view.array
        self._update(state, seat, view.cells, view.keys, array)
        return array

    def _fresh_keys(self) -> list[Any]:
        """The keys of a tensor not written yet (all zeros): no source equals them, the header set no position."""
        keys: list[Any] = [_UNSET] * self._n_keys
        keys[1] = ()
        for slot in range(3, self._trick_slot):
            keys[slot] = None  # zones: written whole the first time
        return keys

    def _update(self, state: State, seat: Seat, a: Any, keys: list[Any], array: np.ndarray[Any, Any]) -> None:
        """Rewrite the parts of ``array`` (``seat``'s last tensor of ``state``; ``a``, a memoryview of
        it, writes single floats quicker) whose source changed.

        ``keys`` holds, per part, what it was encoded from: the header's tuple and the positions it
        set, the scores, per seat zone (all seats' cards) and for the table zones together how they
        were shown and a copy of their cards, the trick, the variables' values (numbers) or encoded
        blocks (other types)."""
        terminal = state._terminal
        step_no = state.step
        header = (
            state.round,
            terminal,
            state.dealer,
            None if terminal else state.current,
            None if terminal or not self._turns_steps[step_no] else state.turn_player,
            None if terminal else step_no,
        )
        if header != keys[0]:
            self._header(a, seat, header, keys)
        bare = self._score_var
        scores = state.seat_vars[bare] if bare >= 0 else self._scores(state)
        if scores != keys[2]:
            self._write_scores(a, seat, state, scores, keys)
        # zones, a seat zone (every seat's) or all the table zones at once: unchanged cards, nothing to do
        if self._zone_overrides:
            plans: Any = self._overridden(state, seat, keys, -1 if terminal else self._secret_zone[step_no])
        else:
            plans = self._zone_plans[seat]
        seat_zones = state.seat_zones
        for slot, index, hows, starts in plans:
            zones = seat_zones[index] if index >= 0 else state.table_zones
            was = keys[slot]
            if zones != was:
                if was is None:
                    keys[slot] = [[*cards] for cards in zones]
                self._zones(a, zones, was, hows, starts)
        trick = state.trick
        i = self._trick_slot
        if trick != keys[i]:
            keys[i] = [*trick]
            self._trick(a, seat, trick)
        # variables: numbers by value, other types by their encoded block
        hidden = None if terminal else self._hidden_var[step_no]
        seat_vars = state.seat_vars
        i = self._vars_slot  # numbers only: all compared at once (the masked bids of a simultaneous bid aside)
        if hidden is not None or not self._numbers_only or seat_vars != keys[i]:
            if self._numbers_only:  # the masked bids were written: compared again next time
                keys[i] = _UNSET if hidden is not None else [[*values] for values in seat_vars]
            self._seat_vars(state, seat, a, keys, array, hidden)
        table_vars = state.table_vars
        if not self._numbers_only or table_vars != keys[i + 1]:
            if self._numbers_only:
                keys[i + 1] = [*table_vars]
            self._table_vars(a, keys, array, table_vars)

    def _seat_vars(self, state: State, seat: Seat, a: Any, keys: list[Any], array: Any, hidden: str | None) -> None:
        """Rewrite the seat variables' segments whose values changed."""
        n = self.n
        order = self._orders[seat]
        seat_vars = state.seat_vars
        var = self._var
        for i, index, name, kind, starts in self._seat_var_plan:
            values = seat_vars[index]
            if name == hidden:
                done = {(state.current - k - 1) % n for k in range(state.acted)}
                values = [x if s == seat and s in done else None for s, x in enumerate(values)]
            if kind == "number":
                if values != keys[i]:
                    keys[i] = [*values]
                    for k in range(n):
                        start = starts[k]
                        value = values[order[k]]
                        if value is None:
                            a[start] = 0.0
                            a[start + 1] = 1.0
                        else:
                            a[start] = f32(value) if value.__class__ in _NUMBERS else 0.0
                            a[start + 1] = 0.0
            else:
                blocks = [var(kind, values[order[k]]) for k in range(n)]
                if blocks != keys[i]:
                    keys[i] = blocks
                    for k in range(n):
                        array[starts[k] : starts[k] + len(blocks[k])] = blocks[k]

    def _table_vars(self, a: Any, keys: list[Any], array: Any, table_vars: list[Any]) -> None:
        """Rewrite the table variables' segments whose values changed."""
        var = self._var
        for i, index, kind, start in self._table_var_plan:
            value = table_vars[index]
            if kind == "number":
                if value != keys[i] or value.__class__ is not keys[i].__class__:
                    keys[i] = value
                    if value is None:
                        a[start] = 0.0
                        a[start + 1] = 1.0
                    else:
                        a[start] = f32(value) if value.__class__ in _NUMBERS else 0.0
                        a[start + 1] = 0.0
            else:
                block = var(kind, value)
                if block != keys[i]:
                    keys[i] = block
                    array[start : start + len(block)] = block

    def _header(self, a: Any, seat: Seat, header: tuple[Any, ...], keys: list[Any]) -> None:
        """Rewrite the header (round, terminal, dealer, current and turn seats, step)."""
        n = self.n
        keys[0] = header
        for j in keys[1]:
            a[j] = 0.0
        ones = [at + (s - seat) % n for at, s in zip(self._header_at, header[2:5]) if s.__class__ is int and 0 <= s < n]
        if header[5] is not None:
            ones.append(self._header_at[3] + header[5])
        for j in ones:
            a[j] = 1.0
        keys[1] = ones
        a[0] = f32(header[0])
        a[1] = 1.0 if header[1] else 0.0

    def _scores(self, state: State) -> list[Any]:
        """`trickkit.State.scores`, calling the score rule's generated function directly (the
        engine's checks wrap it: on anything but an int within bounds, ``state.scores()`` runs and
        reports it as the engine does)."""
        fn, pad = self._score_fn
        if fn is None:
            return state.scores()
        state.budget = EVALUATION_BUDGET
        try:
            scores = [fn(state, (s, *pad)) for s in range(self.n)]
        except Exception:
            return state.scores()
        return self._checked(state, scores)

    def _checked(self, state: State, scores: list[Any]) -> list[Any]:
        """``scores`` if each is an int within the engine's bounds, else ``state.scores()`` (which
        reports the bad one as the engine does)."""
        limit = _SCORE_LIMIT
        for v in scores:
            if v.__class__ is not int or not -limit < v < limit:
                return state.scores()
        return scores

    def _overridden(self, state: State, seat: Seat, keys: list[Any], secret: int) -> list[Any]:
        """The viewer's zone plans with the hows of this moment: a zone whose ``public_when`` holds
        is shown to all; the zone a simultaneous choose chooses into shows others only its count."""
        plans = []
        for plan, when in zip(self._zone_plans[seat], self._public_when):
            slot, index, hows, starts = plan
            public = when is not None and when(state)
            if public or index == secret:
                hows = tuple(
                    (_ALL if public else how) if owner == seat or index != secret else _COUNT
                    for owner, how in enumerate(hows)
                )
                plan = (slot, index, hows, starts)
            plans.append(plan)
        slot, index, hows, starts = self._table_plan
        if starts:
            hows = tuple(_ALL if w is not None and w(state) else how for how, w in zip(hows, self._table_when))
            plans.append((slot, index, hows, starts))
        for slot, _, hows, _ in plans:  # shown otherwise than last time: written anew
            if keys[self._hows_slot + slot] != hows:
                keys[self._hows_slot + slot] = hows
                keys[slot] = None
        return plans

    def _write_scores(self, a: Any, seat: Seat, state: State, scores: list[Any], keys: list[Any]) -> None:
        """Rewrite the scores (checked as the engine checks them, when read from the variable)."""
        if self._score_var >= 0:
            scores = self._checked(state, scores)
        keys[2] = [*scores]
        start = self._scores_at
        order = self._orders[seat]
        for k in range(self.n):
            a[start + k] = f32(scores[order[k]])

    def _zones(self, a: Any, zones: list[list[int]], was: Any, hows: Any, starts: Any) -> None:
        """Rewrite the segments of ``zones`` (each seat's zone, or the table zones) whose cards
        differ from ``was`` (copies of them when last written, updated here; all of them if None)."""
        if was is None:
            T = len(self.card_index)
            for cards, start, how in zip(zones, starts, hows):
                if how is _COUNT:
                    a[start] = len(cards)
                    a[start + 1 : start + 2 + T] = self._zeros[: 1 + T]
                else:
                    self._zone_anew(a, cards, how, start)
            return
        unique, small = self._unique_cards, self._small_deck
        for z, (cards, before, start, how) in enumerate(zip(zones, was, starts, hows)):
            if cards != before:
                was[z] = [*cards]  # the key: a copy of the cards written
                a[start] = len(cards)
                if how is _ALL and unique:  # each card at most once: set the new ones, clear the gone
                    cells = a[start + 2 :]
                    if small:  # the differences as bytes (card ids < 256): quicker than sets
                        after, gone = bytes(cards), bytes(before)
                        for c in after.translate(None, gone):
                            cells[c] = 1.0
                        for c in gone.translate(None, after):
                            cells[c] = 0.0
                        continue
                    for c in set(cards).difference(before):
                        cells[c] = 1.0
                    for c in set(before).difference(cards):
                        cells[c] = 0.0
                elif how is not _COUNT:
                    self._zone_anew(a, cards, how, start)

    def _zone_anew(self, a: Any, cards: list[int], how: str, start: int) -> None:
        """Write one shown zone's segment whole: ``[count, 1, counts per card text]`` of its cards
        (``all``) or of its top card (``top``)."""
        T = len(self.card_index)
        a[start] = len(cards)
        a[start + 1] = 1.0
        base = start + 2
        a[base : base + T] = self._zeros[:T]
        index = self.card_of_id
        for c in cards if how is _ALL else cards[-1:]:
            a[base + index[c]] += 1.0

    def _trick(self, a: Any, seat: Seat, trick: list[Any]) -> None:
        """Rewrite the trick's segments: cleared at once, then each play's three ones."""
        lo, size = self._trick_at, self._trick_size
        a[lo : lo + self.n * size] = self._trick_zeros
        rel, face_at = self._rel[seat], self._face_at
        start = lo
        for play in trick[: self.n]:
            a[start] = 1.0
            a[start + rel[play[0]]] = 1.0
            a[start + face_at[play[2]]] = 1.0
            start += size

    def _add(self, name: str, size: int, description: str) -> None:
        start = self.segments[-1].start + self.segments[-1].size if self.segments else 0
        self.segments.append(Segment(name, start, size, description))
