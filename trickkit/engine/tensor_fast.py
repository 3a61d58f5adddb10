"""The incremental observation-tensor encoder's bookkeeping: per state and seat, what each part of
the last tensor was written from, and the rewriting of the parts whose sources changed.

`trickkit.engine.tensor.ObservationEncoder` (the module that documents the layout and the cost)
plans the offsets here (`IncrementalEncoding._plan_fast`) and calls `IncrementalEncoding._update`
at each `encode`. Every source is compared with a copy of what was last written, so nothing goes
stale whatever changed the state (actions, clones, a restored state, an edit by hand).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from trickkit.dsl.compiler import EVALUATION_BUDGET
from trickkit.engine.arrays import _ALL, _COUNT, _SCORE_LIMIT, _UNSET, f32, flip_changed, visible, write_number
from trickkit.engine.protocols import Seat
from trickkit.engine.tensor_gen import Writer, blank_keys, blank_tensor, zone_writers
from trickkit.engine.tensor_native import native_writers
from trickkit.engine.tensor_reference import _private
from trickkit.engine.tensor_rules import bare_seat_variable

if TYPE_CHECKING:
    from trickkit.engine.state import State
    from trickkit.rules.ruleset import Rules


class IncrementalEncoding:
    """The fast path of `trickkit.engine.tensor.ObservationEncoder` (its base class; the encoder
    holds the layout this reads)."""

    if TYPE_CHECKING:
        n: int
        rules: Rules
        segments: list[Any]  # trickkit.engine.tensor.Segment (that module imports this one)
        card_index: dict[str, int]
        face_index: dict[str, int]
        card_of_id: tuple[int, ...]
        _var_kinds: list[str]
        _score_fn: tuple[Any, tuple[None, ...]]
        size: int

        def _var(self, kind: str, value: Any) -> list[float]: ...

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
                _plan(
                    3 + z,
                    spec.index,
                    tuple(
                        (at.get(f"zone {spec.name} +{(owner - seat) % n}", -1), visible(spec.visibility, owner == seat))
                        for owner in range(n)
                    ),
                )
                for z, spec in enumerate(seat_zones)
            )
            for seat in range(n)
        )
        """Per viewer, its seat zones: (key slot, zone index, where and how each seat's is shown, seat 0
        first, then the same split: the seats shown as a count, the seats whose cards show)."""
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
        self._table_plan = _plan(3 + len(seat_zones), -1, tuple(zip(table, table_hows)))
        """The table zones' plan: (key slot, -1, where and how each is shown)."""
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
        self._plain = self._numbers_only and self._score_var >= 0 and all(v is None for v in self._hidden_var)
        """The scores are a seat variable, every variable a number, no bid hidden: the header, the seat
        variables (the scores with them) and the table variables are compared each at once."""
        self._rel = tuple(tuple(1 + (actor - seat) % n for actor in range(n)) for seat in range(n))
        self._face_at = tuple(1 + n + f for f in self._face_of_id)
        self._trick_zeros = memoryview(np.zeros(n * self._trick_size, np.float32))  # type: ignore[arg-type]
        self._writers: tuple[Writer, ...] | None = None
        self._whole: tuple[Writer, ...] | None = None
        """The generated writers when they write the header and the variables too (`_plain`)."""
        """Zones always shown the same way: per viewer, its generated zone and trick writer."""
        if self._fast and not self._zone_overrides:
            self._writers = native_writers(self) or zone_writers(self)  # compiled (opt-in build) or generated
            if self._plain:
                self._whole = self._writers
            self._blanks = tuple(blank_tensor(self, seat) for seat in range(n))

    def _fresh_keys(self) -> list[Any]:
        """The keys of a tensor not written yet (all zeros; with generated writers, `_blanks`): no
        source equals them, the header set no position."""
        keys: list[Any] = [_UNSET] * self._n_keys
        keys[1] = ()
        if self._writers is not None:
            return blank_keys(self, keys)  # zones empty, no trick: as the blank tensor shows
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
        whole = self._whole
        if whole is not None:  # the viewer's generated writer does it all
            whole[seat](state, a, keys, terminal)
            return
        step_no = state.step
        if self._plain:  # _parts, inlined: the scores are a variable, every variable a number
            header = (state.round, terminal, state.dealer, state.current, state.turn_player, step_no)
            if header != keys[0]:
                self._header(a, seat, header, keys)
            seat_vars = state.seat_vars
            i = self._vars_slot
            if seat_vars != keys[i]:
                scores = seat_vars[self._score_var]
                if scores != keys[2]:
                    self._write_scores(a, seat, state, scores, keys)
                keys[i] = [[*values] for values in seat_vars]
                self._seat_vars(state, seat, a, keys, array, None)
            table_vars = state.table_vars
            if table_vars != keys[i + 1]:
                keys[i + 1] = [*table_vars]
                self._table_vars(a, keys, array, table_vars)
        else:
            self._parts(state, seat, a, keys, array)
        writers = self._writers
        if writers is not None:  # zones always shown the same way: the viewer's generated writer
            writers[seat](state, a, keys, terminal)
            return
        # zones, a seat zone (every seat's) or all the table zones at once: unchanged cards, nothing to do
        seat_zones = state.seat_zones
        if self._zone_overrides:  # some zones show otherwise at times: as shown now
            plans: Any = self._overridden(state, seat, keys, -1 if terminal else self._secret_zone[step_no])
        else:
            plans = self._zone_plans[seat]
        for slot, index, segs, counts, shown in plans:  # a zone (every seat's) or all the table zones
            zones = seat_zones[index] if index >= 0 else state.table_zones
            was = keys[slot]
            if zones != was:  # (unchanged, nothing to do)
                if was is None:
                    keys[slot] = [[*cards] for cards in zones]
                    self._zones_anew(a, zones, segs)
                else:
                    for i, start in counts:  # another seat's hand, say: its count, written (as quick as compared)
                        cards = zones[i]
                        a[start] = len(cards)
                        was[i][:] = cards  # the key: a copy of the cards written
                    for j, start, how in shown:  # the seats whose cards show: the changed ones
                        cards = zones[j]
                        before = was[j]
                        if cards != before:
                            self._zone(a, cards, before, start, how)
        trick = state.trick
        i = self._trick_slot
        was = keys[i]
        if trick != was:  # _trick, inlined: it changes at (nearly) every decision
            keys[i] = [*trick]
            lo, size, n = self._trick_at, self._trick_size, self.n
            plays = trick[:n]
            if was.__class__ is list and was:  # (nothing written yet, or no play: nothing to clear)
                k = len(was)
                if len(plays) > k and plays[:k] == was:  # plays added (one a step, say): those only
                    lo += k * size
                    plays = plays[k:]
                else:
                    a[lo : lo + n * size] = self._trick_zeros
            rel, face_at = self._rel[seat], self._face_at
            for play in plays:
                a[lo] = 1.0
                a[lo + rel[play[0]]] = 1.0
                a[lo + face_at[play[2]]] = 1.0
                lo += size

    def _parts(self, state: State, seat: Seat, a: Any, keys: list[Any], array: np.ndarray[Any, Any]) -> None:
        """Rewrite the header, the scores and the variables where they changed."""
        terminal = state._terminal
        step_no = state.step
        header = (state.round, terminal, state.dealer, state.current, state.turn_player, step_no)  # as they are
        if header != keys[0]:
            self._header(a, seat, header, keys)
        bare = self._score_var
        scores = state.seat_vars[bare] if bare >= 0 else self._scores(state)
        if scores != keys[2]:
            self._write_scores(a, seat, state, scores, keys)
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
                        write_number(a, starts[k], values[order[k]])
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
                    write_number(a, start, value)
            else:
                block = var(kind, value)
                if block != keys[i]:
                    keys[i] = block
                    array[start : start + len(block)] = block

    def _header(self, a: Any, seat: Seat, header: tuple[Any, ...], keys: list[Any]) -> None:
        """Rewrite the header from ``(round, terminal, dealer, current, turn_player, step)`` as the
        state holds them (once the game is over, no current or turn seat and no step; a turn seat only
        in a turns step)."""
        n = self.n
        keys[0] = header
        for j in keys[1]:
            a[j] = 0.0
        terminal, step_no = header[1], header[5]
        seats = (
            header[2],
            None if terminal else header[3],
            None if terminal or not self._turns_steps[step_no] else header[4],
        )
        ones = [at + (s - seat) % n for at, s in zip(self._header_at, seats) if s.__class__ is int and 0 <= s < n]
        if not terminal:
            ones.append(self._header_at[3] + step_no)
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
            slot, index, segs = plan[:3]
            public = when is not None and when(state)
            if public or index == secret:
                segs = tuple(
                    (start, (_ALL if public else how) if owner == seat or index != secret else _COUNT)
                    for owner, (start, how) in enumerate(segs)
                )
                plan = _plan(slot, index, segs)
            plans.append(plan)
        slot, index, segs = self._table_plan[:3]
        if segs:
            segs = tuple(
                (start, _ALL if w is not None and w(state) else how) for (start, how), w in zip(segs, self._table_when)
            )
            plans.append(_plan(slot, index, segs))
        for slot, _, segs, _, _ in plans:  # shown otherwise than last time: written anew
            if keys[self._hows_slot + slot] != segs:
                keys[self._hows_slot + slot] = segs
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

    def _zones_anew(self, a: Any, zones: list[list[int]], segs: Any) -> None:
        """Write the segments of ``zones`` (each seat's zone, or the table zones) whole."""
        T = len(self.card_index)
        for cards, (start, how) in zip(zones, segs):
            if how is _COUNT:
                a[start] = len(cards)
                a[start + 1 : start + 2 + T] = self._zeros[: 1 + T]
            else:
                self._zone_anew(a, cards, how, start)

    def _zone(self, a: Any, cards: list[int], before: list[int], start: int, how: str) -> None:
        """Rewrite the segment at ``start`` of a zone whose cards show (``how``): ``cards`` now,
        ``before`` a copy of them when last written (updated here)."""
        count = len(cards)
        a[start] = count
        if how is _ALL and self._unique_cards:  # each card at most once: clear the cards gone, set those come
            cells = start + 2
            known = len(before)
            if count == known - 1:  # one card left (played, passed): the sums' difference, checked
                gone = sum(before) - sum(cards)
                try:
                    j = before.index(gone)
                except ValueError:
                    j = -1
                if j >= 0:
                    del before[j]
                    if before == cards:
                        a[cells + gone] = 0.0
                        return
                    before.insert(j, gone)  # more changed than that card: the general way below
            elif count > known and cards[:known] == before:  # cards came on top (a trick taken)
                for c in cards[known:]:
                    a[cells + c] = 1.0
                before[known:] = cards[known:]
                return
            if not cards:  # emptied (a new round): cleared at once
                a[cells : cells + len(self.card_index)] = self._zeros[2:]
            else:
                flip_changed(a, cells, cards, before, self._small_deck)
        else:
            self._zone_anew(a, cards, how, start)
        before[:] = cards

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


def _plan(slot: int, index: int, segs: tuple[tuple[int, str], ...]) -> tuple[Any, ...]:
    """A zone plan: ``(slot, index, segs)`` and its seats split by how they show: ``((seat, start), ..)``
    of those shown as a count, ``((seat, start, how), ..)`` of those whose cards show."""
    counts = tuple((i, start) for i, (start, how) in enumerate(segs) if how is _COUNT)
    shown = tuple((i, start, how) for i, (start, how) in enumerate(segs) if how is not _COUNT)
    return (slot, index, segs, counts, shown)
