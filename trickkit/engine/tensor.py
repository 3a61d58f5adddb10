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
the trick, each variable). A later call compares each part's source with the one it encoded and
rewrites only the parts that changed, so a step that moves one card rewrites one or two zones.
The comparison is against copies of the sources, so nothing can go stale: whatever changed the
state (actions, clones, a restored state), a changed part is rewritten. `encode_reference`
builds the same tensor from the dict view, the specification the fast path is tested against.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from trickkit.dsl.compiler import EVALUATION_BUDGET
from trickkit.engine.arrays import (
    _ALL,
    _COUNT,
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
        self._seat_zone_plan: list[tuple[int, tuple[str, ...], Any, tuple[int, ...]]] = []
        for z in rules.seat_zones:
            names = [f"zone {z.name} +{k}" for k in range(n)]
            known.update(names)
            hows = tuple(visible(z.visibility, k == 0) for k in range(n))
            self._seat_zone_plan.append((z.index, hows, z.public_when, tuple(at.get(x, -1) for x in names)))
        self._table_zone_plan: list[tuple[int, str, Any, int]] = []
        for z in rules.table_zones:
            for i in range(z.count) if z.count else [None]:
                name = f"zone {z.name}" + ("" if i is None else f"[{i}]")
                known.add(name)
                self._table_zone_plan.append(
                    (z.index + (i or 0), visible(z.visibility, False), z.public_when, at.get(name, -1))
                )
        kinds = iter(self._var_kinds)
        self._seat_var_plan: list[tuple[int, str, str, tuple[int, ...]]] = []
        for v in rules.seat_vars:
            names = [f"var {v.name} +{k}" for k in range(n)]
            known.update(names)
            self._seat_var_plan.append((v.index, v.name, next(kinds), tuple(at.get(x, -1) for x in names)))
        self._table_var_plan: list[tuple[int, str, int]] = []
        for v in rules.table_vars:
            known.add(f"var {v.name}")
            self._table_var_plan.append((v.index, next(kinds), at.get(f"var {v.name}", -1)))
        # per-seat visibility (zone seen_by, private variables) is the visibility model's to decide:
        # such games take the reference path, which asks it (`trickkit.engine.visibility`)
        per_seat = any(z.seen_by is not None for z in (*rules.seat_zones, *rules.table_zones)) or any(
            _private(v) for v in (*rules.seat_vars, *rules.table_vars)
        )
        self._fast = not per_seat and all(seg.name in known for seg in self.segments)
        self._at = at
        self._header_end = at["scores"] if self._fast else 0
        self._trick_span = (at.get("trick 0", 0), at.get("trick 0", 0) + n * (1 + n + len(self.face_index)))
        deck = rules.deck
        self._face_of_id = tuple(self.face_index[t] for t in deck.face_texts)
        self._unique_cards = len(self.card_index) == len(deck.texts)
        self._turns_steps = tuple(step.kind == "turns" for step in rules.steps)
        self._all_shown = (_ALL,) * n
        self._zeros = memoryview(np.zeros(2 + len(self.card_index), np.float32))  # type: ignore[arg-type]
        self._orders = tuple(tuple((seat + k) % n for k in range(n)) for seat in range(n))
        # every part's key: header (and the positions it set), scores, seat zones (n each), table
        # zones, the trick, seat variables (one per variable), table variables
        self._n_keys = (
            4 + len(rules.seat_zones) * n + len(self._table_zone_plan) + len(rules.seat_vars) + len(rules.table_vars)
        )

    def encode(self, state: State, seat: Seat, out: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """The tensor of ``state`` as ``seat`` sees it (see the module docstring), a new ``float32``
        array, or written into ``out`` (a float32 array of the tensor's shape), which is returned.

        Raises:
            ValueError: ``out`` is not a writable ``float32`` array of shape ``(size,)``.
        """
        if out is not None:
            check_out(out, (self.size,), np.float32, "observation_tensor")
        if not self._fast:  # a layout this encoder does not know: the dict view's encoding
            array = clamped(self.encode_reference(state, seat))
        else:
            views = state._tensors
            if views is None:
                views = state._tensors = [None] * (2 * self.n)  # then the information states' (engine.infostate)
            view = views[seat]
            if view is None:
                view = views[seat] = _View(np.zeros(self.size, np.float32), self._fresh_keys())
            self._update(state, seat, view.cells, view.keys, view.array)
            array = view.array
        if out is None:
            copy: np.ndarray[Any, Any] = array.copy()
            return copy
        out[:] = array
        return out

    def _fresh_keys(self) -> list[Any]:
        """The keys of a tensor not written yet: no source equals them (the header set no position)."""
        keys: list[Any] = [_UNSET] * self._n_keys
        keys[1] = []
        return keys

    def _update(self, state: State, seat: Seat, a: Any, keys: list[Any], array: np.ndarray[Any, Any]) -> None:
        """Rewrite the parts of ``array`` (``seat``'s last tensor of ``state``; ``a``, a memoryview of
        it, writes single floats quicker) whose source changed.

        ``keys`` holds, per part, what it was encoded from: the header's tuple and the positions it
        set, the scores, per zone its cards (shown), ``(count, top)`` or its count, the trick, the
        variables' values (numbers) or encoded blocks (other types)."""
        n = self.n
        terminal = state._terminal
        step_no = state.step
        step = None if terminal else self._steps[step_no]
        header = (
            state.round,
            terminal,
            state.dealer,
            None if terminal else state.current,
            None if terminal or not self._turns_steps[step_no] else state.turn_player,
            None if terminal else step_no,
        )
        if header != keys[0]:
            keys[0] = header
            for j in keys[1]:
                a[j] = 0.0
            at = self._at
            ones = []
            for name, s in zip(("dealer", "current_player", "turn_player"), header[2:5], strict=True):
                if s.__class__ is int and 0 <= s < n:
                    ones.append(at[name] + (s - seat) % n)
            if not terminal:
                ones.append(at["step"] + step_no)
            for j in ones:
                a[j] = 1.0
            keys[1] = ones
            a[0] = f32(header[0])
            a[1] = 1.0 if terminal else 0.0
        order = self._orders[seat]
        scores = self._scores(state)
        if scores != keys[2]:
            keys[2] = scores
            start = self._at["scores"]
            for k in range(n):
                a[start + k] = f32(scores[order[k]])
        # zones: per zone, its cards when shown, (count, top) for a top zone, else its count
        secret = step.to.index if step is not None and step.kind == "choose" and step.simultaneous else -1
        i = 3
        seat_zones = state.seat_zones
        for index, hows, public_when, starts in self._seat_zone_plan:
            per_seat = seat_zones[index]
            if public_when is not None and public_when(state):
                hows = self._all_shown
            if index == secret:
                hows = (hows[0],) + (_COUNT,) * (n - 1)
            for k in range(n):
                cards = per_seat[order[k]]
                how = hows[k]
                if how is _COUNT:
                    count = len(cards)
                    if count != keys[i]:
                        self._zone(a, starts[k], how, cards, keys, i)
                elif how is _ALL:
                    if cards != keys[i]:
                        self._zone(a, starts[k], how, cards, keys, i)
                else:
                    self._zone(a, starts[k], how, cards, keys, i)
                i += 1
        table_zones = state.table_zones
        for index, how, public_when, start in self._table_zone_plan:
            if public_when is not None and public_when(state):
                how = _ALL
            self._zone(a, start, how, table_zones[index], keys, i)
            i += 1
        trick = state.trick
        old = keys[i]
        if trick != old:
            lo = self._trick_span[0]
            size = 1 + n + len(self.face_index)
            faces = self._face_of_id
            kept = len(old) if old.__class__ is list and trick[: len(old)] == old else 0  # plays added: write those
            for k, play in enumerate(old[kept:n] if old.__class__ is list else (), kept):
                start = lo + k * size
                a[start] = 0.0
                a[start + 1 + (play[0] - seat) % n] = 0.0
                a[start + 1 + n + faces[play[2]]] = 0.0
            for k, play in enumerate(trick[kept:n], kept):
                start = lo + k * size
                a[start] = 1.0
                a[start + 1 + (play[0] - seat) % n] = 1.0
                a[start + 1 + n + faces[play[2]]] = 1.0
            keys[i] = [*trick]
        i += 1
        # variables: numbers by value, other types by their encoded block
        hidden = step.variable.name if step is not None and step.kind == "bid" and step.simultaneous else None
        seat_vars = state.seat_vars
        var = self._var
        for index, name, kind, starts in self._seat_var_plan:
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
            i += 1
        table_vars = state.table_vars
        for index, kind, start in self._table_var_plan:
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
            i += 1

    def _scores(self, state: State) -> list[Any]:
        """`trickkit.State.scores`, calling the score rule's generated function directly (the
        engine's checks wrap it: on anything but an int within bounds, ``state.scores()`` runs and
        reports it as the engine does)."""
        fn, pad = self._score_fn
        if fn is None:
            return state.scores()
        state.budget = EVALUATION_BUDGET
        limit = _SCORE_LIMIT
        try:
            scores = [fn(state, (s, *pad)) for s in range(self.n)]
        except Exception:
            return state.scores()
        for v in scores:
            if v.__class__ is not int or not -limit < v < limit:
                return state.scores()
        return scores

    def _zone(self, a: Any, start: int, how: str, cards: list[int], keys: list[Any], i: int) -> None:
        """Rewrite one zone segment (``[count, shown, counts per card text]``) if its source changed."""
        old = keys[i]
        if how == "all":
            if old.__class__ is list and cards == old:
                return
            keys[i] = new = [*cards]
            a[start] = len(cards)
            a[start + 1] = 1.0
            base = start + 2
            index = self.card_of_id
            if old.__class__ is list and self._unique_cards:  # one card text per card: set or clear the changed
                before: list[int] | set[int] = old
                after: list[int] | set[int] = new
                if len(old) + len(new) > 32:  # long zones: membership by set
                    before, after = set(old), set(new)
                for c in before:
                    if c not in after:
                        a[base + index[c]] = 0.0
                for c in after:
                    if c not in before:
                        a[base + index[c]] = 1.0
                return
            T = len(self.card_index)
            a[base : base + T] = self._zeros[:T]
            for c in new:
                a[base + index[c]] += 1.0
        elif how == "top":
            top = (len(cards), cards[-1] if cards else None)
            if top == old:
                return
            keys[i] = top
            a[start] = top[0]
            a[start + 1] = 1.0
            T = len(self.card_index)
            a[start + 2 : start + 2 + T] = self._zeros[:T]
            if cards:
                a[start + 2 + self.card_of_id[cards[-1]]] = 1.0
        else:
            count = len(cards)
            if count == old:
                return
            if old.__class__ is not int:  # shown before: clear the cards
                T = len(self.card_index)
                a[start + 1 : start + 2 + T] = self._zeros[: 1 + T]
            keys[i] = count
            a[start] = count

    def _add(self, name: str, size: int, description: str) -> None:
        start = self.segments[-1].start + self.segments[-1].size if self.segments else 0
        self.segments.append(Segment(name, start, size, description))


def _text_vocabulary(game: Any) -> tuple[str, ...]:
    """The text values this game's variables can be expected to hold (see the module docstring)."""
    from trickkit.engine.spaces import _Prober, auction_calls

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
        if step.kind == "auction":  # the calls a contract variable may hold
            found.update(v for v in auction_calls(prober, step) if isinstance(v, str))
        if step.kind == "turns":
            for kind in list(step.kinds) + [k for w in step.windows for k in w.kinds]:
                for hook, typ in zip(kind.domains, kind.choice_types):
                    if typ != "card":
                        found.update(v for v in prober.values(hook) if isinstance(v, str))
    return tuple(sorted(found))
