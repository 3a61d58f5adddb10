"""Perfect-recall information states: what one seat observes now, plus every action so far as it saw it.

Algorithms for imperfect-information games (CFR, NFSP, Deep CFR...) key their tables and networks
on a seat's *information state*: everything that seat has observed in the game so far. Two states
the seat cannot tell apart have the same information state; two states reached by different
histories as the seat saw them have different ones (perfect recall). trickkit builds it from two
views that already hide what the seat may not see:

- the seat's observation now (`trickkit.State.observation`, `trickkit.State.observation_tensor`);
- the actions so far as that seat saw them (`trickkit.State.history_seen_by`): a choice an action
  kind declares ``private`` shows as ``?`` to the other seats (``pass ?``, ``priestess ? 2``), and
  the bids or cards chosen in a simultaneous step still running show as ``VERB ?`` until every
  seat has chosen (then they show as they are).

**The string** (`trickkit.State.information_state_string`) holds the seat, its observation dict
as JSON, then one line per action so far, ``ACTOR: SEEN TEXT``: the whole history, however long
(perfect recall without a bound).

**The tensor** (`trickkit.State.information_state_tensor`) has a fixed size per Game,
`trickkit.Game.information_state_tensor_shape`, laid out as (`trickkit.Game.information_state_tensor_layout`):

- the observation tensor, segment by segment, at the same offsets (`trickkit.engine.tensor`);
- ``history length`` (1): how many actions the game has had so far;
- ``history`` (``window`` slots of ``1 + n + V`` floats): the last ``window`` actions as the seat
  saw them, oldest first, each ``[present, actor +0 .. +(n-1), seen action one-hot]``; the actor is
  relative to the viewer (as in the observation tensor) and the seen action is a one-hot over the
  game's *seen vocabulary* (`trickkit.Game.information_state_vocabulary`): entries ``0 ..
  num_distinct_actions-1`` are the action ids themselves, the next ones the masked texts other
  seats may see (``pass ?``, ``bid ?``, ``priestess ? 2``), the last one any other text. Slots past
  the actions so far are all zero.

**The history window.** ``window`` (`trickkit.Game.information_state_window`) is the game's
``max_actions`` when the history of that many actions fits in `HISTORY_FLOATS` floats, else
``HISTORY_FLOATS // (1 + n + V)`` actions: Hearts (``max_actions`` 6000, 112 floats per action)
keeps its last 292 actions (four and a half deals of 64 actions), Skull King (1000, 77) 425 of a
game's 260, and a game with thousands of action ids far fewer (Trumps: 4). Within the window the
tensor is perfect-recall; past it the oldest actions drop out (``history length`` still counts
them, and the observation part still shows the scores and everything on the table). The string
never drops anything.

**Cost.** Per state and seat the encoder keeps the last tensor it wrote and the seen ids of the
settled actions (those no running simultaneous step can still reveal), so a call after one more
action encodes one more action and the parts of the observation that changed (see
`trickkit.engine.tensor`). Nothing can go stale: a cache whose last settled action is no longer the
state's (another history) is dropped.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from trickkit.engine.arrays import check_out
from trickkit.engine.privacy import HIDDEN, seen_text
from trickkit.engine.protocols import Seat
from trickkit.engine.state import State
from trickkit.engine.tensor import Segment

__all__ = ["HISTORY_FLOATS", "InformationStateEncoder"]

HISTORY_FLOATS = 32_768
"""Most floats the history part of an information-state tensor may take (see the module docstring)."""

OTHER = "<other>"
"""The last entry of a seen vocabulary: any seen text not foreseen (never expected)."""


class _InfoView:
    """One seat's last information-state tensor of one state, with what it was written from."""

    __slots__ = ("array", "last", "line_last", "lines", "offset", "seen", "settled", "written")

    def __init__(self) -> None:
        self.array: np.ndarray[Any, Any] | None = None  # made by the first tensor asked for
        self.lines: list[str] = []  # the string's line of each settled action (see information_state_string)
        self.line_last: Any = None  # the history entry of the last of them (identity checked)
        self.seen: list[tuple[int, int]] = []  # (relative actor, seen id) of each settled action
        self.settled = 0  # how many actions of the history are settled (encoded in ``seen``)
        self.last: Any = None  # the history entry of the last settled action (identity checked)
        self.written: list[tuple[int, int] | None] = []  # per history slot, what it holds
        self.offset = 0  # the action the first history slot shows


class InformationStateEncoder:
    """Information-state tensors of one Game (see the module docstring).

    ``game``: a `trickkit.engine.game.Game` (which imports this module).
    """

    def __init__(self, game: Any) -> None:
        self.game = game
        self.n = n = game.num_players
        self.observation = game._observation_encoder
        texts = game.action_space.texts
        table = game._privacy
        extra: dict[str, None] = {}
        for text in texts:  # every masked form another seat may be shown
            verb = text.split(" ")[0]
            extra[f"{verb} {HIDDEN}"] = None
            masked = table.mask(text) if table else text
            if masked != text:
                extra[masked] = None
        known = set(texts)
        self.vocabulary: tuple[str, ...] = (*texts, *sorted(t for t in extra if t not in known), OTHER)
        self.index = {t: i for i, t in enumerate(self.vocabulary)}
        self.other = len(self.vocabulary) - 1
        self.slot = 1 + n + len(self.vocabulary)
        self.window: int = max(1, min(game.rules.max_actions, HISTORY_FLOATS // self.slot))
        obs = self.observation.size
        self.segments = [
            *self.observation.segments,
            Segment("history length", obs, 1, "how many actions the game has had so far"),
            Segment(
                "history",
                obs + 1,
                self.window * self.slot,
                f"the last {self.window} actions as this seat saw them, oldest first, each "
                f"[present, actor +0..+{n - 1}, seen action one-hot over {len(self.vocabulary)} texts]",
            ),
        ]
        self.history_start = obs + 1
        self.size: int = obs + 1 + self.window * self.slot
        self._simultaneous = tuple(bool(getattr(step, "simultaneous", False)) for step in game.rules.steps)

    def seen_ids(self, state: State, seat: Seat, view: _InfoView) -> tuple[list[tuple[int, int]], int]:
        """``(relative actor, seen id)`` of every action so far as ``seat`` saw it, and how many of them
        were settled before this call (their slots cannot have changed)."""
        history = state._history
        total = len(history)
        end = total  # the settled actions: all but those of a simultaneous step still running
        if not state._terminal and state.acted and self._simultaneous[state.step]:
            end = total - state.acted
        before = view.settled
        if before and (before > end or history[before - 1] is not view.last):  # another history
            view.seen, view.settled, view.last, before = [], 0, None, 0
            view.written = []  # the history part is written whole again
        n, table, index, other = self.n, self.game._privacy, self.index, self.other
        seen = view.seen
        for i in range(view.settled, end):
            actor, text = history[i]
            seen.append(((actor - seat) % n, index.get(seen_text(table, text, actor, seat), other)))
        if end:
            view.settled, view.last = end, history[end - 1]
        ids = seen if end == total else [*seen]
        for i in range(end, total):  # a running simultaneous step: others' choices are hidden
            actor, text = history[i]
            shown = seen_text(table, text, actor, seat) if actor == seat else f"{text.split(' ')[0]} {HIDDEN}"
            ids.append(((actor - seat) % n, index.get(shown, other)))
        return ids, before

    def encode(self, state: State, seat: Seat, out: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """``seat``'s information-state tensor of ``state``: a new ``float32`` array, or written into
        ``out`` (a float32 array of shape ``(size,)``), which is returned.

        Raises:
            ValueError: ``out`` is not a writable ``float32`` array of shape ``(size,)``.
        """
        if out is not None:
            check_out(out, (self.size,), np.float32, "information_state_tensor")
        n = self.n
        view = self.view(state, seat)
        array = view.array
        if array is None:
            array = view.array = np.zeros(self.size, np.float32)
        obs = self.observation.size
        self.observation.encode(state, seat, array[:obs])
        ids, before = self.seen_ids(state, seat, view)
        total = len(ids)
        array[obs] = float(total)
        window, slot, start = self.window, self.slot, self.history_start
        offset = max(0, total - window)
        written = view.written
        moved = offset - view.offset
        if written and 0 < moved < window:  # the window moved on: shift the slots (a memmove), then as below
            block = array[start:].reshape(window, slot)
            block[: window - moved] = block[moved:]
            block[window - moved :] = 0.0
            written = view.written = [*written[moved:], *([None] * moved)]
            view.offset = offset
        if offset != view.offset or not written:  # another history (or a first call): write it whole
            block = array[start:].reshape(window, slot)
            block[:] = 0.0
            shown = ids[offset:]
            if shown:
                rows = np.arange(len(shown))
                actors = np.fromiter((a for a, _ in shown), np.intp, len(shown))
                seen = np.fromiter((s for _, s in shown), np.intp, len(shown))
                block[rows, 0] = 1.0
                block[rows, 1 + actors] = 1.0
                block[rows, 1 + n + seen] = 1.0
            view.written = [*shown, *([None] * (window - len(shown)))]
            view.offset = offset
        else:
            for j in range(max(0, before - offset), window):
                i = offset + j
                want = ids[i] if i < total else None
                had = written[j]
                if had == want:
                    if i >= total:
                        break  # the slots past the history are empty, and were
                    continue
                at = start + j * slot
                if had is not None:
                    array[at : at + slot] = 0.0
                if want is not None:
                    array[at] = 1.0
                    array[at + 1 + want[0]] = 1.0
                    array[at + 1 + n + want[1]] = 1.0
                written[j] = want
        if out is None:
            copy: np.ndarray[Any, Any] = array.copy()
            return copy
        used = start + min(total, window) * slot  # the rest of the window is empty: cleared, not copied
        out[:used] = array[:used]
        out[used:] = 0.0
        return out

    def string(self, state: State, seat: Seat) -> str:
        """``seat``'s information state as text: the seat, its observation as JSON, then one line per
        action so far, ``ACTOR: SEEN TEXT`` (see the module docstring)."""
        observation = json.dumps(state.observation(seat), sort_keys=True, separators=(",", ":"))
        return "\n".join([f"seat {seat}", observation, *self.history_lines(state, seat)])

    def view(self, state: State, seat: Seat) -> _InfoView:
        """``seat``'s cache of ``state`` (made on first use; a clone starts without)."""
        n = self.n
        views = state._tensors
        if views is None:
            views = state._tensors = [None] * (2 * n)
        view: _InfoView | None = views[n + seat]
        if view is None:
            view = views[n + seat] = _InfoView()
        return view

    def history_lines(self, state: State, seat: Seat) -> list[str]:
        """``ACTOR: SEEN TEXT`` of every action so far as ``seat`` saw it; the lines of settled
        actions are kept per state and seat, so a call after one more action makes one more line."""
        history = state._history
        total = len(history)
        end = total
        if not state._terminal and state.acted and self._simultaneous[state.step]:
            end = total - state.acted
        view = self.view(state, seat)
        lines, table = view.lines, self.game._privacy
        if lines and (len(lines) > end or history[len(lines) - 1] is not view.line_last):  # another history
            lines = view.lines = []
        for i in range(len(lines), end):
            actor, text = history[i]
            lines.append(f"{actor}: {seen_text(table, text, actor, seat)}")
        if end:
            view.line_last = history[end - 1]
        out = [*lines]
        for i in range(end, total):  # a running simultaneous step: others' choices are hidden
            actor, text = history[i]
            out.append(f"{actor}: {text if actor == seat else text.split(' ')[0] + ' ' + HIDDEN}")
        return out
