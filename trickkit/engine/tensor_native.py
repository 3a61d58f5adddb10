"""The incremental observation-tensor encoder's per-viewer writers, typed for mypyc: the opt-in
compiled build (setup.py) compiles this module, and the encoder then uses these writers instead
of the generated ones of `trickkit.engine.tensor_gen` (which are compiled by ``compile()`` when a
game loads, so stay interpreted in either build).

They do what the generated writers do, the same way and with the same keys (the copies of what
was written): per zone family, compare the zones with their copies at once; where they differ, a
seat seen as a count gets its count written and its copy renewed, a seat whose cards show is
compared alone and its changed cards written; the trick gets its new plays written (or is cleared
and written); where every variable is a number, the header, the scores and the variables are
compared at once. Here the offsets come from a plan per viewer instead of constants in the code,
and the loops over ints and lists run as C. In the pure build this module is only imported, never
used (`native_writers` gives None): the generated writers are quicker interpreted.
"""

from __future__ import annotations

import importlib.machinery
from collections.abc import Callable
from typing import Any, Final

from trickkit.engine.arrays import _ALL, _COUNT, _NUMBERS, f32

COMPILED: Final = __file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
"""Whether this module runs compiled (a C extension of the compiled build)."""

Writer = Callable[[Any, Any, list[Any], bool], None]

_COUNT_AT: Final = 0  # a seat seen as a count: its count written, its copy renewed
_COUNT_ONLY: Final = 1  # a seat seen as a count, not in the layout: nothing to do
_ALL_UNIQUE: Final = 2  # all cards shown, each at most once: the changed cards flipped
_ANEW: Final = 3  # all cards (several copies of a card) or the top card shown: written whole
_EXACT: Final = 1 << 53  # ints below this are exact floats (and within float32's range)


def native_writers(enc: Any, force: bool = False) -> tuple[Writer, ...] | None:
    """Per viewer seat, the writer of ``enc`` (a `trickkit.engine.tensor.ObservationEncoder` whose
    zones always show the same way) when this module is compiled (or ``force``: the tests run the
    same code interpreted); else None."""
    if not (COMPILED or force):
        return None
    return tuple(_SeatWriter(enc, seat) for seat in range(enc.n))


class _Family:
    """One zone family of a viewer's plan: every seat's zone of one name, or all the table zones."""

    def __init__(self, slot: int, index: int, kinds: list[int], starts: list[int]) -> None:
        self.slot = slot
        self.index = index  # the seat zone's index; -1: the table zones
        self.kinds = kinds  # per zone, how it is written (_COUNT_AT ...)
        self.starts = starts  # per zone, its segment's start


class _Written:
    """What a writer last wrote of one tensor (in the keys' first slot of how each zone was shown,
    which layouts whose zones always show the same way leave unused): the round, terminal, the
    position of each one of the header (-1: none), copies of the variables and the count of each
    zone seen as a count."""

    def __init__(self, zones: int) -> None:
        self.round: Any = _Unwritten()
        self.terminal: Any = None
        self.ones = [-1, -1, -1, -1]
        self.seat_vars: Any = _Unwritten()
        self.table_vars: Any = _Unwritten()
        self.counts = [0] * zones  # a blank tensor's (`trickkit.engine.tensor_gen.blank_tensor`)


class _Unwritten:
    """A value no source equals: not written yet."""

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


class _SeatWriter:
    """The writer of one viewer seat: ``writer(state, memoryview of the tensor, keys, terminal)``."""

    def __init__(self, enc: Any, seat: int) -> None:
        self.enc = enc
        self.seat = seat
        self.n: int = enc.n
        self.plain: bool = enc._plain
        self.own_slot: int = enc._hows_slot  # (see _Written)
        self.vars_slot: int = enc._vars_slot
        self.score_var: int = enc._score_var
        self.trick_slot: int = enc._trick_slot
        self.header_at: list[int] = list(enc._header_at)
        self.turns_steps: list[bool] = list(enc._turns_steps)
        self.width: int = len(enc.card_index)
        self.zeros: object = enc._zeros[: self.width]
        self.one: object = 1.0  # (boxed once: a float written into the tensor is an object)
        self.zero: object = 0.0
        self.trick_zeros: object = enc._trick_zeros
        self.trick_at: int = enc._trick_at
        self.trick_size: int = enc._trick_size
        self.rel: list[int] = list(enc._rel[seat])
        self.face_at: list[int] = list(enc._face_at)
        self.order: list[int] = list(enc._orders[seat])
        self.scores_at: int = enc._scores_at
        plain = enc._seat_var_plan if self.plain else []  # (every variable a number: the plain games')
        self.var_slots: list[int] = [slot for slot, _index, _name, _kind, _starts in plain]
        self.var_index: list[int] = [index for _slot, index, _name, _kind, _starts in plain]
        self.var_starts: list[list[int]] = [list(starts) for _slot, _index, _name, _kind, starts in plain]
        tables = enc._table_var_plan if self.plain else []
        self.table_slots: list[int] = [slot for slot, _index, _kind, _start in tables]
        self.table_index: list[int] = [index for _slot, index, _kind, _start in tables]
        self.table_starts: list[int] = [start for _slot, _index, _kind, start in tables]
        self.families: list[_Family] = []
        for slot, index, segs, _counts, _shown in enc._zone_plans[seat]:
            kinds, starts = [], []
            for start, how in segs:
                if how is _COUNT or start < 0:
                    kinds.append(_COUNT_AT if start >= 0 else _COUNT_ONLY)
                else:
                    kinds.append(_ALL_UNIQUE if how is _ALL and enc._unique_cards else _ANEW)
                starts.append(start)
            self.families.append(_Family(slot, index, kinds, starts))
        self.hows: list[str] = [how for _slot, _index, segs, _c, _s in enc._zone_plans[seat] for _start, how in segs]
        self.zones = len(self.hows)

    def __call__(self, s: Any, a: Any, keys: list[Any], terminal: bool) -> None:
        h = keys[self.own_slot]
        if h.__class__ is not _Written:
            h = keys[self.own_slot] = _Written(self.zones)
        if self.plain:
            self._header(s, a, h, terminal)
            seat_vars = s.seat_vars
            if seat_vars != h.seat_vars:
                self._seat_vars(s, a, keys, h, seat_vars)
            table_vars = s.table_vars
            if table_vars != h.table_vars:
                h.table_vars = [*table_vars]
                keys[self.vars_slot + 1] = h.table_vars
                self._table_vars(a, keys, table_vars)
        seat_zones: list[Any] = s.seat_zones
        counts = h.counts
        j = 0  # the zone's index over all the families (in counts, hows)
        for family in self.families:
            zones: list[list[int]] = seat_zones[family.index] if family.index >= 0 else s.table_zones
            was: list[list[int]] = keys[family.slot]
            kinds, starts = family.kinds, family.starts
            for i in range(len(kinds)):
                cards = zones[i]
                kind = kinds[i]
                if kind == _COUNT_AT:  # its count only: written when it changed
                    count = len(cards)
                    if count != counts[j]:
                        counts[j] = count
                        a[starts[i]] = count
                elif kind == _ALL_UNIQUE:
                    if cards != was[i]:
                        self._cards(a, cards, was[i], starts[i])
                elif kind == _ANEW and cards != was[i]:
                    self.enc._zone_anew(a, cards, self.hows[j], starts[i])
                    was[i][:] = cards
                j += 1
        trick: list[Any] = s.trick
        slot = self.trick_slot
        if trick != keys[slot]:
            self._trick(a, trick, keys[slot])
            keys[slot] = [*trick]

    def _seat_vars(self, s: Any, a: Any, keys: list[Any], h: _Written, now: list[Any]) -> None:
        """The scores (a seat variable) and the seat variables (numbers), which changed: as
        `IncrementalEncoding._write_scores` and `_seat_vars` write them (scores that are not all
        exact ints are left to the former, which checks them as the engine does)."""
        seat, order, n = self.seat, self.order, self.n
        scores = now[self.score_var]
        if scores != keys[2]:
            exact = True
            for v in scores:
                if v.__class__ is not int or not -_EXACT < v < _EXACT:
                    exact = False
            if exact:
                keys[2] = [*scores]
                at = self.scores_at
                for k in range(n):
                    a[at + k] = float(scores[order[k]])
            else:
                self.enc._write_scores(a, seat, s, scores, keys)
        h.seat_vars = keys[self.vars_slot] = [[*v] for v in now]
        for p in range(len(self.var_slots)):
            values = now[self.var_index[p]]
            slot = self.var_slots[p]
            if values != keys[slot]:
                keys[slot] = [*values]
                starts = self.var_starts[p]
                for k in range(n):
                    self._number(a, starts[k], values[order[k]])

    def _table_vars(self, a: Any, keys: list[Any], now: list[Any]) -> None:
        """The table variables (numbers), which changed: as `IncrementalEncoding._table_vars`."""
        for p in range(len(self.table_slots)):
            value = now[self.table_index[p]]
            slot = self.table_slots[p]
            if value != keys[slot] or value.__class__ is not keys[slot].__class__:
                keys[slot] = value
                self._number(a, self.table_starts[p], value)

    def _number(self, a: Any, start: int, value: Any) -> None:
        """A number variable's ``[value, is_null]`` (clamped as `trickkit.engine.arrays.f32`)."""
        if value is None:
            a[start] = self.zero
            a[start + 1] = self.one
            return
        if value.__class__ is int and -_EXACT < value < _EXACT:
            a[start] = float(value)
        else:
            a[start] = f32(value) if value.__class__ in _NUMBERS else self.zero
        a[start + 1] = self.zero

    def _header(self, s: Any, a: Any, h: _Written, terminal: bool) -> None:
        """The header: the round and terminal where changed, and per one-hot (dealer, current seat,
        turn seat, step) its one moved where it moved (as `IncrementalEncoding._header` writes it:
        no current or turn seat and no step once the game is over, a turn seat only in a turns
        step, a seat outside the game none)."""
        n, seat, at, ones = self.n, self.seat, self.header_at, h.ones
        r = s.round
        if r != h.round or r.__class__ is not h.round.__class__:
            h.round = r
            a[0] = float(r) if r.__class__ is int and -_EXACT < r < _EXACT else f32(r)
        if terminal is not h.terminal:
            h.terminal = terminal
            a[1] = 1.0 if terminal else 0.0
        step_no = s.step
        for k in range(4):
            if k == 0:
                x = s.dealer
            elif terminal:
                x = None
            elif k == 1:
                x = s.current
            elif k == 2:
                x = s.turn_player if self.turns_steps[step_no] else None
            else:
                x = step_no
            j = -1
            if k == 3:
                if x is not None:
                    j = at[3] + step_no
            elif x.__class__ is int and 0 <= x < n:
                j = at[k] + (x - seat) % n
            if j != ones[k]:
                if ones[k] >= 0:
                    a[ones[k]] = self.zero
                if j >= 0:
                    a[j] = self.one
                ones[k] = j

    def _cards(self, a: Any, cards: list[int], before: list[int], start: int) -> None:
        """A zone whose cards all show, each at most once: the cards that came set, those gone
        cleared (``before``, the copy, renewed)."""
        count = len(cards)
        a[start] = count
        cells = start + 2
        known = len(before)
        if count == known - 1:  # one card left (played, passed): the copy less one card, checked
            j = 0
            while j < count and cards[j] == before[j]:
                j += 1
            i = j
            while i < count and cards[i] == before[i + 1]:
                i += 1
            if i == count:
                a[cells + before.pop(j)] = self.zero
                return
        elif count > known:  # cards came on top (a trick taken)?
            i = 0
            while i < known and cards[i] == before[i]:
                i += 1
            if i == known:
                one = self.one
                for i in range(known, count):
                    c = cards[i]
                    a[cells + c] = one
                    before.append(c)
                return
        if not cards:  # emptied (a new round): cleared at once
            a[cells : cells + self.width] = self.zeros
        else:
            for c in cards:
                if c not in before:
                    a[cells + c] = self.one
            for c in before:
                if c not in cards:
                    a[cells + c] = self.zero
        before[:] = cards

    def _trick(self, a: Any, trick: list[Any], was: list[Any]) -> None:
        """A trick that grew (the plays written still its first ones) gets its new plays written,
        any other is cleared at once and written."""
        n, size = self.n, self.trick_size
        lo = base = self.trick_at
        first = 0
        plays = len(trick) if len(trick) <= n else n
        if was:  # (no play written: nothing to clear)
            k = len(was)
            if plays > k and trick[:k] == was:  # plays added (one a step, say): those only
                lo += k * size
                first = k
            else:
                a[base : base + n * size] = self.trick_zeros
        rel, face_at, one = self.rel, self.face_at, self.one
        for i in range(first, plays):
            play = trick[i]
            a[lo] = one
            a[lo + rel[play[0]]] = one
            a[lo + face_at[play[2]]] = one
            lo += size
