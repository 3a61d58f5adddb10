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

Each function ``_e<seat>(s, a0, q0, t0)`` takes the state, a memoryview of the tensor, its keys and
whether the game is over. Where every variable is a number (`_plain`), it first compares the header
(one tuple), the seat variables (the scores among them) and the table variables with their copies,
and rewrites what changed. Then per zone family (every seat's
zone of one name, or all the table zones) it compares the zones with their copies at once (a nested
list comparison); where they differ, a seat seen as a count gets its count written and its copy
renewed, a seat whose cards show is compared alone and, if changed, rewritten by its helper (which
renews the copy in place). Last the trick: a new one (the usual change between two turns of a seat)
is cleared and written here, one that only grew gets its new plays from its helper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from trickkit.dsl.load import load
from trickkit.engine.arrays import _ALL, _COUNT, _UNSET, flip_changed, write_number

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
    if enc._plain:  # each table variable compared with its copy: none written yet
        keys[enc._vars_slot + 1] = [_UNSET] * len(enc._table_var_plan)
    for slot, _index, segs, _counts, _shown in enc._zone_plans[0]:
        keys[slot] = [[] for _ in segs]
    return keys


def _writer(enc: Any, seat: int) -> Writer:
    """Generate, check and load seat ``seat``'s writer."""
    lines = [f"def _e{seat}(s, a0, q0, t0):"]
    env: dict[str, Any] = {}
    if enc._plain:  # the header, the seat variables, then each table variable (numbers), compared here
        vs = enc._vars_slot
        lines += [
            "    h0 = (s.round, t0, s.dealer, s.current, s.turn_player, s.step)",
            "    if h0 != q0[0]:",
            f"        _header(a0, {seat}, h0, q0)",
            "    h0 = s.seat_vars",
            f"    if h0 != q0[{vs}]:",
            "        _seats(s, a0, q0, h0)",
            "    h0 = s.table_vars",
            f"    q1 = q0[{vs + 1}]",
            "    if h0 != q1:",
        ]
        for _slot, index, _kind, start in enc._table_var_plan:  # (a number changed now and then: a flag, say)
            if start >= 0:
                lines += [
                    f"        h1 = h0[{index}]",
                    f"        if h1 != q1[{index}]:",
                    f"            _number(a0, {start}, h1)",
                ]
        lines.append(f"        q0[{vs + 1}] = [*h0]")
        env.update(_header=enc._header, _seats=_seat_vars_writer(enc, seat), _number=write_number)
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
    lines += _trick_inline(enc, seat)
    env.update(_len=len, _one=1.0, _all=_all_cards(enc))
    env.update(_trick=_trick_writer(enc, seat), _trick_zeros=enc._trick_zeros, _rel=enc._rel[seat])
    env.update(_face_at=enc._face_at)
    env["_all_anew"], env["_top"] = (_anew(enc, how) for how in (_ALL, "top"))
    writer: Writer = load(env, f"_e{seat}", "\n".join(lines) + "\n")
    return writer


def _trick_inline(enc: Any, seat: int) -> list[str]:
    """Lines rewriting the trick for ``seat`` where it changed: a trick that only grew by the
    helper ``_trick`` (the new plays), any other (a new trick, the usual change between two of a
    seat's turns) cleared and written here, one play at a time; the copy renewed."""
    n, base, size, slot = enc.n, enc._trick_at, enc._trick_size, enc._trick_slot
    return [
        "    h1 = s.trick",
        f"    q1 = q0[{slot}]",
        "    if h1 != q1:",
        "        m0 = _len(h1)",
        "        m1 = _len(q1)",
        f"        if m0 > {n} or (m1 and m0 > m1 and h1[:m1] == q1):",
        "            _trick(a0, h1, q1)",
        "        else:",
        "            if m1:",
        f"                a0[{base}:{base + n * size}] = _trick_zeros",
        f"            m0 = {base}",
        "            for h2 in h1:",
        "                a0[m0] = _one",
        "                a0[m0 + _rel[h2[0]]] = _one",
        "                a0[m0 + _face_at[h2[2]]] = _one",
        f"                m0 = m0 + {size}",
        f"        q0[{slot}] = [*h1]",
    ]


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


def _seat_vars_writer(enc: Any, seat: int) -> Callable[[Any, Any, list[Any], list[Any]], None]:
    """The helper that rewrites, for ``seat``, the scores (a seat variable) and the seat variables
    (numbers) that changed, given the state's seat variables; it keeps copies of them for the next
    comparison."""
    score, slot = enc._score_var, enc._vars_slot
    write_scores, seat_vars = enc._write_scores, enc._seat_vars

    def write(state: Any, a: Any, keys: list[Any], now: list[Any]) -> None:
        scores = now[score]
        if scores != keys[2]:
            write_scores(a, seat, state, scores, keys)
        keys[slot] = [[*v] for v in now]
        seat_vars(state, seat, a, keys, None, None)

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
