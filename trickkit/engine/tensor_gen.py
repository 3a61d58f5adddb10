"""Generated writers of the incremental observation-tensor encoder: per viewer seat, one function
that brings the zones and the trick of its cached tensor up to date.

`trickkit.engine.tensor_fast.IncrementalEncoding` compares each source of the tensor with a copy
of what it last wrote; its general loop walks plans (per zone family, per seat, per how) at every
call. For a layout whose zones always show the same way (no ``public_when``, no simultaneous
choose) the plans are fixed per viewer, so they are written out here as straight code, one
function per viewer seat: the offsets are constants, the loops unrolled, and only the helpers
that write a changed zone or trick are called. The source is built from numbers alone (offsets,
indices), never from ruleset text, and goes through the allow-list like every generated function
(`trickkit.dsl.load`).

Each function ``_e<seat>(s, a0, q0)`` takes the state, a memoryview of the tensor and its keys;
per zone family (every seat's zone of one name, or all the table zones) it compares the zones with
their copies at once (a nested list comparison); where they differ, a seat seen as a count gets its
count written and its copy renewed, a seat whose cards show is compared alone and, if changed,
rewritten by its helper (which renews the copy in place). The trick is compared with its copy and
rewritten by its helper when it changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from trickkit.dsl.load import load
from trickkit.engine.arrays import _ALL, _COUNT, flip_changed

Writer = Callable[[Any, Any, list[Any], bool], None]
"""``(state, memoryview of the tensor, keys, whether the game is over)``: rewrites the zones and the
trick that changed (and, where every variable is a number, the header and the variables)."""


def zone_writers(enc: Any) -> tuple[Writer, ...]:
    """The generated writer of each viewer seat for ``enc`` (a `trickkit.engine.tensor.ObservationEncoder`
    whose zones always show the same way); see the module docstring."""
    return tuple(_writer(enc, seat) for seat in range(enc.n))


def blank_tensor(enc: Any, seat: int) -> np.ndarray[Any, Any]:
    """The tensor the writers start from for ``seat``: every zone empty (count 0, ``shown`` 1 where
    the seat sees the cards), no trick; the header and the variables are written at the first call."""
    array = np.zeros(enc.size, np.float32)
    for _slot, _index, segs, _counts, _shown in enc._zone_plans[seat]:
        for start, how in segs:
            if how is not _COUNT and start >= 0:
                array[start + 1] = 1.0
    return array


def blank_keys(enc: Any, keys: list[Any]) -> list[Any]:
    """``keys`` (fresh ones) with the copies the writers start from (what `blank_tensor` encodes):
    per zone slot, an empty list per zone; in the trick's slot, an empty trick."""
    keys[enc._trick_slot] = []
    for slot, _index, segs, _counts, _shown in enc._zone_plans[0]:
        keys[slot] = [[] for _ in segs]
    return keys


def _writer(enc: Any, seat: int) -> Writer:
    """Generate, check and load seat ``seat``'s writer."""
    lines = [f"def _e{seat}(s, a0, q0, t0):"]
    env: dict[str, Any] = {}
    if enc._plain:  # the header and the variables (numbers) compared here too, all at once
        lines += [
            "    h0 = (s.round, t0, s.dealer, s.current, s.turn_player, s.step, s.seat_vars, s.table_vars)",
            f"    if h0 != q0[{enc._head_slot}]:",
            "        _head(s, a0, q0, h0)",
        ]
        env["_head"] = _head_writer(enc, seat)
    lines.append("    h0 = s.seat_zones")
    for slot, index, segs, _counts, _shown in enc._zone_plans[seat]:
        lines.append(f"    h1 = h0[{index}]" if index >= 0 else "    h1 = s.table_zones")
        lines += [f"    q1 = q0[{slot}]", "    if h1 != q1:"]
        for i, (start, how) in enumerate(segs):
            lines.append(f"        h2 = h1[{i}]")
            if how is _COUNT or start < 0:  # only its count shows: written (as quick as compared), copy renewed
                if start >= 0:
                    lines.append(f"        a0[{start}] = _len(h2)")
                lines.append(f"        q1[{i}] = [*h2]")
            else:  # its cards show: compared alone, its changed cards written (the copy renewed there)
                helper = "_all" if how is _ALL and enc._unique_cards else "_all_anew" if how is _ALL else "_top"
                lines += [f"        if h2 != q1[{i}]:", f"            {helper}(a0, h2, q1[{i}], {start})"]
    trick = enc._trick_slot
    lines += ["    h1 = s.trick", f"    q1 = q0[{trick}]", "    if h1 != q1:", "        _trick(a0, h1, q1)"]
    lines.append(f"        q0[{trick}] = [*h1]")
    env.update(_len=len, _all=_all_cards(enc), _trick=_trick_writer(enc, seat))
    env["_all_anew"], env["_top"] = (_anew(enc, how) for how in (_ALL, "top"))
    writer: Writer = load(env, f"_e{seat}", "\n".join(lines) + "\n")
    return writer


def _all_cards(enc: Any) -> Callable[[Any, list[int], list[int], int], None]:
    """The helper that rewrites a zone whose cards all show, each card at most once (a card id is
    its text's index): the cards that came are set, those gone cleared, found as byte strings'
    differences (card ids below 256) or as sets."""
    small, width = enc._small_deck, len(enc.card_index)
    zeros = enc._zeros[:width]

    def write(a: Any, cards: list[int], before: list[int], start: int) -> None:
        count = len(cards)
        a[start] = count
        cells = start + 2
        known = len(before)
        if count == known - 1:  # one card left (played, passed): the sums' difference, checked
            gone = sum(before) - sum(cards)
            try:
                before.remove(gone)
            except ValueError:
                pass
            else:
                if before == cards:
                    a[cells + gone] = 0.0
                    return
                before.append(gone)  # more changed than that card: the general way below (order aside)
        elif count > known and cards[:known] == before:  # cards came on top (a trick taken)
            came = cards[known:]
            for c in came:
                a[cells + c] = 1.0
            before += came
            return
        if not cards:  # emptied (a new round): cleared at once
            a[cells : cells + width] = zeros
        else:
            flip_changed(a, cells, cards, before, small)
        before[:] = cards

    return write


def _head_writer(enc: Any, seat: int) -> Callable[[Any, Any, list[Any], tuple[Any, ...]], None]:
    """The helper that rewrites, for ``seat``, what changed of the header, the scores (a seat
    variable) and the variables (numbers), given ``(round, terminal, dealer, current, turn player,
    step, seat variables, table variables)`` as the state holds them; it keeps that with copies of
    the variables for the next comparison."""
    score, slot, at = enc._score_var, enc._vars_slot, enc._head_slot
    header, write_scores, seat_vars, table_vars = enc._header, enc._write_scores, enc._seat_vars, enc._table_vars

    def write(state: Any, a: Any, keys: list[Any], values: tuple[Any, ...]) -> None:
        head = values[:6]
        if head != keys[0]:
            header(a, seat, head, keys)
        now = values[6]
        if now != keys[slot]:
            scores = now[score]
            if scores != keys[2]:
                write_scores(a, seat, state, scores, keys)
            keys[slot] = [[*v] for v in now]
            seat_vars(state, seat, a, keys, None, None)
        now = values[7]
        if now != keys[slot + 1]:
            keys[slot + 1] = [*now]
            table_vars(a, keys, None, now)
        keys[at] = (*head, keys[slot], keys[slot + 1])

    return write


def _anew(enc: Any, how: str) -> Callable[[Any, list[int], list[int], int], None]:
    """The helper that rewrites a shown zone whole (its cards, ``all``, or its top card, ``top``)."""
    zone_anew = enc._zone_anew

    def write(a: Any, cards: list[int], before: list[int], start: int) -> None:
        zone_anew(a, cards, how, start)
        before[:] = cards

    return write


def _trick_writer(enc: Any, seat: int) -> Callable[[Any, list[Any], list[Any]], None]:
    """The helper that rewrites the trick for ``seat``: a trick that grew (the plays written still
    its first ones) gets its new plays written, any other is cleared at once and written."""
    n, base, size = enc.n, enc._trick_at, enc._trick_size
    end = base + n * size
    rel, face_at, zeros = enc._rel[seat], enc._face_at, enc._trick_zeros

    def write(a: Any, trick: list[Any], was: list[Any]) -> None:
        lo = base
        plays = trick if len(trick) <= n else trick[:n]  # (not copied: only read)
        if was:  # (no play written: nothing to clear)
            k = len(was)
            if len(plays) > k and plays[:k] == was:  # plays added (one a step, say): those only
                lo += k * size
                plays = plays[k:]
            else:
                a[base:end] = zeros
        for play in plays:
            a[lo] = 1.0
            a[lo + rel[play[0]]] = 1.0
            a[lo + face_at[play[2]]] = 1.0
            lo += size

    return write
