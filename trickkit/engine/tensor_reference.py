"""The reference encoding of observation tensors: each part written from the dict view
(`trickkit.State.observation`), plainly, as the specification of the layout.

`trickkit.engine.tensor.ObservationEncoder` writes the same values faster, incrementally, from the
state itself; its tests compare the two on every shipped game. Games with per-seat visibility
(`seen_by`, private variables), reveals or auctions use this encoding directly.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from trickkit.engine.observation import AuctionCall, ZoneView
from trickkit.engine.protocols import Seat

if TYPE_CHECKING:
    from trickkit.engine.state import State
    from trickkit.rules.ruleset import Rules


class ReferenceEncoding:
    """The dict-view encoding of `trickkit.engine.tensor.ObservationEncoder` (its base class; the
    encoder holds the layout this reads)."""

    if TYPE_CHECKING:
        n: int
        rules: Rules
        size: int
        segments: list[Any]  # trickkit.engine.tensor.Segment (that module imports this one)
        card_index: dict[str, int]
        card_of_id: tuple[int, ...]
        face_index: dict[str, int]
        texts: tuple[str, ...]
        text_index: dict[str, int]
        calls: dict[tuple[str, Any], int]
        reveals: bool
        _reveal_segments: dict[tuple[str, int | None], int]
        _var_kinds: list[str]
        _var_private: list[bool]

    def encode_reference(self, state: State, seat: Seat) -> list[float]:
        """The tensor of ``state`` as ``seat`` sees it, as a list of floats, built from the dict
        view `trickkit.State.observation` (slow; `encode` gives the same values as ``float32``)."""
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
        if "auction" in obs:
            self._auction(out, next(at).start, obs["auction"], seat)
        if self.reveals:
            segments = self.segments
            for entry in obs.get("revealed", ()):
                owner = entry["seat"]
                start = segments[
                    self._reveal_segments[(entry["zone"], None if owner is None else (owner - seat) % n)]
                ].start
                out[start + index[entry["card"]]] += 1.0
        return out

    def _auction(self, out: list[float], start: int, calls: list[AuctionCall], seat: Seat) -> None:
        """Write the auction segment (see the module docstring) from an observation's auction."""
        n, index = self.n, self.calls
        at = -1  # the last call's block
        passes = 0
        for entry in calls:
            kind = entry["kind"]
            who = (entry["seat"] - seat) % n
            if kind == "pass":
                passes += 1
                continue
            passes = 0
            if kind == "call":
                c = entry["call"]
                i = index.get((type(c).__name__, c))
                at = -1 if i is None else start + 3 * n * i
                if at >= 0:
                    out[at + who] = 1.0
            elif at >= 0:
                out[at + (n if kind == "double" else 2 * n) + who] = 1.0
        end = start + 3 * n * len(index)
        out[end] = float(len(calls))
        out[end + 1] = float(passes)

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
