"""The type names the engine's modules share: aliases for seats, cards and plays, and Protocols for
what is dynamic (rule hooks and the attributes the rules compiler gives them) or what a module may
not import (the Game as a State and the step functions see it: `trickkit.engine.game` imports their modules).

Types only: nothing here runs while a game is played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from trickkit.engine.actions import Action
from trickkit.engine.observation import Observation
from trickkit.engine.privacy import PrivacyTable
from trickkit.engine.spaces import ActionSpace
from trickkit.rules.ruleset import ActionKind, Rules

Seat = int
"""Seats are numbered 0..n-1 clockwise; seat 0 deals first."""
CardId = int
"""A card of the deck, by its index in deck order (copies of a card have ids of their own)."""
FaceId = int
"""A face of a card (a card played in modes has one per mode), by its index in the deck's faces."""
Play = tuple[Seat, CardId, FaceId, int]
"""A card on the table in a trick: ``(seat, card, face, order)``, ``order`` counting from 0 for the lead."""
LastTrick = tuple[int, list[Play], "Play | None"]
"""The last completed trick: ``(step index, its plays, the winning play or None)``."""

SeatZones = list[list[list[CardId]]]
"""Seat zones of a state: ``seat_zones[zone index][seat]``, the cards bottom to top."""
TableZones = list[list[CardId]]
"""Table zones of a state (zone families flattened): ``table_zones[zone index]``."""
SeatVars = list[list[Any]]
"""Seat variables of a state: ``seat_vars[variable index][seat]`` (DSL values)."""
TableVars = list[Any]
"""Table variables of a state: ``table_vars[variable index]`` (DSL values)."""
LayoutParts = tuple[SeatZones, TableZones, SeatVars, TableVars]
"""The four parts of a layout, as a layout copier returns them."""

StateT = TypeVar("StateT")
"""The type of a game's states, `trickkit.engine.state.State` (which imports this module)."""

LegalFn = Callable[[StateT], list[Action]]
"""A step's legal actions, bound to its Game and step: ``fn(state) -> [Action]``."""
ApplyFn = Callable[[StateT, Action], bool]
"""A step's action applied, bound to its Game and step: ``fn(state, action) -> the step is over``."""
MaskTables = tuple[int, dict[str, int], Any, tuple[int], Any, Callable[[Any], None]]
"""A Game's legal-action mask tables: width, text -> id, ``np.ndarray``, the mask's shape and dtype,
and the function checking a caller's ``out`` (`trickkit.engine.arrays.mask_tables`)."""

Frame = Sequence[Any]
"""The frame of a generated rule function: its context values first, then its locals."""


class HasLayout(Protocol):
    """Zones and variables: a `trickkit.engine.state.State`, or a `trickkit.engine.layout.Layout`."""

    seat_zones: SeatZones
    table_zones: TableZones
    seat_vars: SeatVars
    table_vars: TableVars


class LayoutCopier(Protocol):
    """A generated copier of a game's layout (`trickkit.engine.layout.layout_copier`)."""

    source: str
    """Its Python source (for ``trickkit compile`` and tests)."""

    def __call__(self, s: HasLayout, /) -> LayoutParts: ...


class RuleHook(Protocol):
    """A compiled rule (`trickkit.dsl.hooks.make_hook`), called as ``hook(state, *context)``."""

    where: str
    """``file:line:col: $.path`` of the rule, for error messages."""
    text: str
    """The rule's DSL text."""
    fn: Callable[[Any, Frame], Any]
    """The bare generated function ``fn(state, frame)`` (errors not located)."""
    size: int
    """The frame size ``fn`` needs (context values first)."""

    def __call__(self, state: Any, /, *context: Any) -> Any: ...


HandFilter = Callable[[Any, Frame, Sequence[CardId]], list[CardId]]
"""A generated hand filter ``filter(state, frame, cards) -> the cards passing``."""


class CardTest(RuleHook, Protocol):
    """A bool rule about a card (context ``card``), with its generated hand filter (None when the
    test does not compile as one: the engine then tests card by card)."""

    filter: HandFilter | None


class AlwaysAllowed(CardTest, Protocol):
    """``always_allowed`` of a tricks step: ``either_filter`` passes the cards passing the first
    follow duty or this test, in one pass (None when it does not compile as one)."""

    either_filter: HandFilter | None


def located(hook: Any) -> str:
    """Where the rule ``hook`` (a `RuleHook`) is written, for an error message."""
    where: str = hook.where
    return where


class GameTables(Protocol):
    """The Game as the step functions (`trickkit.engine.steps`, ``turns``, ``choose``, ``repeat``)
    see it: its rules, action tables and caches. `trickkit.engine.game.Game` is one; this Protocol
    spares those modules an import of `trickkit.engine.game`, which imports them."""

    rules: Rules
    pool_zone: int
    first_copy: tuple[CardId, ...]
    play_actions: tuple[tuple[Action, ...], ...]
    single_play_action: tuple[Action, ...] | None
    face_play: tuple[tuple[CardId, int], ...]
    _has_copies: bool
    _deck_size: int
    _copy_layout: LayoutCopier
    _turn_actions: dict[tuple[str, str, tuple[Any, ...]], Action]
    _turn_kind_actions: dict[int, tuple[Any, list[Any]]]
    _turn_kind_names: dict[int, tuple[Any, dict[str, ActionKind]]]
    _effect_draws: dict[int, tuple[Any, bool, Any]]
    _choose_actions: dict[str, tuple[Action, ...]]
    _auction_tables: dict[tuple[Any, ...], Any]
    _variable_resets: dict[str, tuple[tuple[tuple[int, Any, bool], ...], tuple[tuple[int, Any, bool], ...]]]

    def bid_action(self, value: int) -> Action: ...

    def resolve_deal(
        self, deal: Sequence[Sequence[str]], index: int, count: int, taken: dict[str, int] | None = None
    ) -> list[list[CardId]]: ...

    def resolve_table_deal(
        self, deal: dict[str, Any], index: int
    ) -> tuple[dict[str, list[CardId]], dict[str, int]]: ...


_StateIn = TypeVar("_StateIn", contravariant=True)


class ObservationEncoding(Protocol[_StateIn]):
    """The observation tensor encoder of a Game (`trickkit.engine.tensor.ObservationEncoder`)."""

    size: int

    def encode(self, state: _StateIn, seat: Seat, out: Any = None) -> Any: ...


class InformationStateEncoding(Protocol[_StateIn]):
    """The information-state encoder of a Game (`trickkit.engine.infostate.InformationStateEncoder`)."""

    size: int

    def encode(self, state: _StateIn, seat: Seat, out: Any = None) -> Any: ...
    def string(self, state: _StateIn, seat: Seat) -> str: ...


class StateGame(GameTables, Protocol[StateT]):
    """The Game as a `trickkit.engine.state.State` sees it: `trickkit.engine.game.Game` is one
    (``StateGame[State]``); that module imports ``state``, so ``state`` names this Protocol instead."""

    _privacy: PrivacyTable
    visibility: Any
    """Who sees what (a `trickkit.engine.visibility.Visibility`)."""
    reveals: bool
    """True when the rules can reveal cards."""
    _legal_fns: tuple[LegalFn[StateT], ...]
    """Per step: its legal actions, generated (`trickkit.engine.fused`) or general (unused at a
    step that never asks a seat)."""
    _apply_fns: tuple[ApplyFn[StateT], ...]
    _legal_general: tuple[LegalFn[StateT], ...]
    _apply_general: tuple[ApplyFn[StateT], ...]
    _advance: Callable[[StateT], None]
    """Enters the steps after the current one when it is over (`trickkit.engine.turnplan`)."""
    _mask: MaskTables | None
    """What `trickkit.State.legal_action_mask` needs, once made (`trickkit.engine.arrays.mask_tables`)."""

    @property
    def _initial_layout(self) -> HasLayout: ...
    @property
    def action_space(self) -> ActionSpace: ...
    @property
    def _observation_encoder(self) -> ObservationEncoding[StateT]: ...
    @property
    def _information_state_encoder(self) -> InformationStateEncoding[StateT]: ...
    def _new_mask_tables(self) -> MaskTables: ...
    def step_enter(self, state: StateT, step: Any) -> bool: ...
    def step_explain(self, state: StateT, text: str) -> str: ...
    def kind_available(self, state: StateT, kind: str) -> bool: ...
    def action_seen_by(self, state: StateT, text: str, seat: Seat) -> str: ...
    def observe(self, state: StateT, seat: Seat | None) -> Observation: ...
    def record(self, state: StateT) -> dict[str, Any]: ...
    def replay(self, seed: int, deals: list[Any] | None, actions: Sequence[str]) -> StateT: ...
