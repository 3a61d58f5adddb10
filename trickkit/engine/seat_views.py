"""What one seat may see of a game in progress: the per-seat views of a `trickkit.State`.

`SeatViews` is the part of `State` that answers "what does seat N see?": its observation (dict),
observation tensor, information state, legal-action ids and mask, the history and actions as that
seat saw them, and the transcript. Each asks the visibility model (`trickkit.engine.visibility`,
through the Game) and refuses what is not a seat of the game. The class holds no state of its own.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from trickkit.engine.actions import Action
from trickkit.engine.observation import Observation
from trickkit.engine.protocols import Seat, StateGame

if TYPE_CHECKING:
    from trickkit.rules.ruleset import Rules


class SeatViews:
    """The per-seat views of a state (a base class of `trickkit.State`, which has the data)."""

    __slots__ = ()

    if TYPE_CHECKING:
        game: StateGame[Any]
        rules: Rules
        step: int
        acted: int
        _n: int
        _terminal: bool
        _history: list[tuple[Seat, str]]
        _legal: list[Action] | None

        def legal_actions(self) -> list[Action]: ...

    def legal_action_ids(self) -> list[int]:
        """The ids of `legal_actions` (same order), in the game's fixed action space
        (`trickkit.Game.num_distinct_actions`); empty once the game is over.

        Raises:
            trickkit.engine.spaces.ActionSpaceError: a legal action has no id (see `trickkit.engine.spaces`).
        """
        return self.game.action_space.ids_of(self.legal_actions())

    def legal_action_mask(self, out: Any = None) -> Any:
        """One ``int8`` entry per action id: 1 if that action is legal now, else 0 (all 0 once the
        game is over), as a new numpy array, or written into ``out`` (an ``int8`` or ``bool`` array of
        shape ``(num_distinct_actions,)``), which is returned. ``mask.view(bool)`` reads it as booleans.

        Raises:
            ValueError: ``out`` is not such an array.
            trickkit.engine.spaces.ActionSpaceError: a legal action has no id.
        """
        game = self.game
        tables = game._mask
        if tables is None:  # the first mask of this Game (imports numpy)
            tables = game._new_mask_tables()
        width, ids, ndarray, shape, int8, check_out = tables
        if out is not None:
            check_out(out)  # a writable int8 or bool array of the mask's shape, else a ValueError
        # made here, not in a function of the Game: one Python call less per decision
        legal = self._legal  # the state's own list of this decision, when made (no copy)
        if legal is None:
            legal = self.legal_actions()  # empty once the game is over: all 0
        cells = bytearray(width)  # a new buffer: a caller changing the mask changes no later one
        try:
            for action in legal:
                cells[ids[action.text]] = 1  # byte by byte: quicker than numpy's indexing
        except KeyError:
            game.action_space.ids_of(legal)  # raises the ActionSpaceError naming the action
            raise
        if out is None:
            return ndarray(shape, int8, cells)  # on the bytearray itself (np.frombuffer would add a memoryview)
        try:  # the bytes copied at once (0 and 1 are the same bytes in bool)
            out.data.cast("B")[:] = cells
        except (TypeError, AttributeError):  # not contiguous (a column, a slice with a step) or a subclass
            # whose .data is not a memoryview (np.ma.MaskedArray): numpy copies
            out.view(int8)[:] = ndarray(shape, int8, cells)
        return out

    def observation_tensor(self, seat: Seat, out: Any = None) -> Any:
        """What ``seat`` may see, as a flat numpy ``float32`` vector of `trickkit.Game.observation_tensor_shape`
        (layout: `trickkit.Game.observation_tensor_layout`, `trickkit.engine.tensor`): a new array, or
        written into ``out`` (a writable float32 array of that shape, e.g. a row of a batch), which is
        returned. Never encodes a card hidden from ``seat`` (it shows what `observation` shows).
        Repeated calls rewrite only the parts of the tensor that changed since this state's last
        tensor for ``seat``.

        Raises:
            ValueError: ``seat`` is not a seat of this game, or ``out`` is not such an array.
        """
        if seat.__class__ is not int or not 0 <= seat < self._n:  # the usual seat passes here, quicker
            seat = self._seat_of(seat, "observation_tensor")
        return self.game._observation_encoder.encode(self, seat, out)

    def information_state_tensor(self, seat: Seat, out: Any = None) -> Any:
        """``seat``'s perfect-recall information state as a flat numpy ``float32`` vector of
        `trickkit.Game.information_state_tensor_shape`: its observation tensor now, then the actions so
        far as it saw them (`history_seen_by`), within the game's history window (layout:
        `trickkit.Game.information_state_tensor_layout`, `trickkit.engine.infostate`). A new array, or
        written into ``out`` (a writable float32 array of that shape), which is returned. Never encodes
        a card hidden from ``seat`` nor another seat's private choice.

        Raises:
            ValueError: ``seat`` is not a seat of this game, or ``out`` is not such an array.
        """
        seat = self._seat_of(seat, "information_state_tensor")
        return self.game._information_state_encoder.encode(self, seat, out)

    def information_state_string(self, seat: Seat) -> str:
        """``seat``'s perfect-recall information state as text: the seat, its observation dict as
        JSON, then one line per action so far as it saw it (``ACTOR: SEEN TEXT``, `history_seen_by`),
        the whole history. Two states ``seat`` cannot tell apart give the same text; two different
        histories as ``seat`` saw them give different texts (see `trickkit.engine.infostate`).

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        seat = self._seat_of(seat, "information_state_string")
        return self.game._information_state_encoder.string(self, seat)

    def action_seen_by(self, action: Action | str, seat: Seat) -> str:
        """How the current seat's ``action``, about to be applied, appears to ``seat``.

        A simultaneous bid by another seat shows as ``'bid ?'`` (nobody sees another's bid
        until all have bid); everything else shows its canonical text.

        Raises:
            ValueError: a blank ``action`` text, or ``seat`` is not a seat of the game.
        """
        text = action.text if isinstance(action, Action) else str(action)
        return self.game.action_seen_by(self, text, self._seat_of(seat, "action_seen_by"))

    def history(self) -> list[str]:
        """Texts of every action applied so far, in order."""
        return [t for _, t in self._history]

    def history_seen_by(self, seat: Seat) -> list[str]:
        """Texts of every action applied so far as ``seat`` saw them: the choices an action
        kind declares ``private`` show as ``?`` to every seat but the one that acted, and so
        do the bids or cards chosen so far in a simultaneous step that is still running
        (``bid ?``, ``pick ?``: nothing is revealed until every seat has chosen).

        Raises:
            ValueError: ``seat`` is not a seat (None included: the true texts are in `history`).
        """
        from trickkit.engine.privacy import HIDDEN, history_seen_by

        seat = self._seat_of(seat, "history_seen_by")
        seen = history_seen_by(self.game._privacy, self._history, seat)
        if (
            seat is not None
            and not self._terminal
            and self.acted
            and getattr(self.rules.steps[self.step], "simultaneous", False)
        ):
            start = len(self._history) - self.acted  # the decisions of the running step
            for i in range(start, len(self._history)):
                actor, text = self._history[i]
                if actor != seat:
                    seen[i] = f"{text.split(' ')[0]} {HIDDEN}"
        return seen

    def observation(self, seat: Seat) -> Observation:
        """What ``seat`` may see, as a JSON-serialisable dict (hidden cards appear only as counts):
        an `trickkit.engine.observation.Observation`, e.g. ``obs["zones"]["hand"][seat]["cards"]``.

        Returns:
            Observation: a new dict each call (changing it changes nothing in the game).

        Raises:
            ValueError: ``seat`` is not a seat of this game (an int in ``0..n-1``).
        """
        seat = self._seat_of(seat, "observation")
        return self.game.observe(self, seat)

    def _seat_of(self, seat: Any, what: str) -> int:
        """``seat`` as a seat (an int or numpy integer in ``0..n-1``; None and bools are not)."""
        value = seat if seat.__class__ is int else None
        if value is None and seat is not None and not isinstance(seat, bool) and hasattr(seat, "__index__"):
            try:
                value = operator.index(seat)  # a numpy integer, say
            except TypeError:
                value = None
        if value is None or not 0 <= value < self._n:
            raise ValueError(f"{what}(seat): seat must be an int in 0..{self._n - 1}, got {seat!r}")
        return int(value)

    def transcript(self, seat: Seat) -> str:
        """The game so far as a person would tell it, from ``seat``'s view: the cards that
        seat was dealt, every action as it saw it, each trick and who took it (and why),
        bids and the scores of each round. Never shows a card hidden from ``seat``.

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        from trickkit.engine.view import transcript

        return transcript(self, seat)

    def observation_all(self) -> Observation:
        """Everything, hidden cards included (for debugging and tests; not for agents).

        Returns:
            Observation: with ``seat`` None and every zone's cards shown.
        """
        return self.game.observe(self, None)
