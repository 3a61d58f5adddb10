"""The compiled, immutable Game: creates states, decodes deals, observes and records states."""

from __future__ import annotations

import functools
import hashlib
import json
import operator
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from trickkit import jsonsafe
from trickkit.dsl.compiler import EVALUATION_BUDGET
from trickkit.engine import kinds as S
from trickkit.engine.actions import Action, PlayTables, play_tables
from trickkit.engine.auction import auction_view
from trickkit.engine.enterplan import enter_next
from trickkit.engine.fused import fuse_steps
from trickkit.engine.layout import fresh, initial_layout, layout_copier
from trickkit.engine.observation import Observation, ZoneView
from trickkit.engine.privacy import privacy_table, seen_text
from trickkit.engine.protocols import ApplyFn, CardId, LegalFn, Seat
from trickkit.engine.state import State
from trickkit.engine.turnplan import plan_steps
from trickkit.engine.turns import kind_available as _kind_available
from trickkit.engine.visibility import Visibility
from trickkit.errors import DealError, StateError, TrickkitError, did_you_mean
from trickkit.randomness import check_seed
from trickkit.rules.ruleset import ActionKind, Rules

if TYPE_CHECKING:
    from trickkit.dsl.coverage import CoverageSites
    from trickkit.engine.infostate import InformationStateEncoder
    from trickkit.engine.spaces import ActionSpace
    from trickkit.engine.tensor import ObservationEncoder, Segment


class Game:
    """A ruleset compiled for one seat count and one set of parameter values.

    Immutable once built: every state created from it shares its rule tables.
    Create it with `trickkit.load_game`.
    """

    coverage: CoverageSites | None = None
    """The rule-coverage counters compiled in by ``load_game(..., coverage=True)``, else None."""

    def __init__(self, rules: Rules, content_hash: str, path: str):
        tables = self._tables = play_tables(rules.deck)
        counting = rules.compiler is not None and rules.compiler.coverage is not None  # every rule through its hook
        rules = self.rules = _planned(rules, tables)
        self.content_hash = content_hash
        """SHA-256 of the ruleset document (its content, not its formatting)."""
        self.path = path
        self.pool_zone = 0
        # the actions of the deck, shared with the generated step functions (trickkit.engine.fused)
        self.play_actions = tables.play_actions
        self.first_copy = tables.first_copy
        """For each card id, the id of the first card with the same text (itself if unique)."""
        self._privacy = privacy_table(rules)
        self.visibility = Visibility(rules)
        """Who sees what (`trickkit.engine.visibility`): every view of a seat is derived from it."""
        self.reveals = "_reveal(" in (rules.generated_source or "")
        """True when the rules can reveal cards (``reveal``): observations then have ``revealed``."""
        self.single_play_action = tables.single_play_action
        """For each card id, its one play action, when no card is played in modes (else None)."""
        self.face_play = tables.face_play
        """For each face id: (its card id, the face's index among that card's faces)."""
        self._mask: Any = None
        """What `State.legal_action_mask` needs (`trickkit.engine.arrays.mask_tables`), made on
        the first mask: a plain attribute, read at every mask more quickly than a cached property."""
        self._turn_actions: dict[tuple[str, str, tuple[Any, ...]], Action] = {}
        """Actions of turns steps already made, by (template, verb, choices): reused, not rebuilt."""
        self._turn_kind_actions: dict[int, tuple[Any, list[Any]]] = {}
        """Per turns step (by id; the step is kept with it): its plans for `trickkit.engine.turns.legal_turns`."""
        self._variable_resets: dict[str, tuple[tuple[tuple[int, Any, bool], ...], tuple[tuple[int, Any, bool], ...]]]
        self._variable_resets = {}
        """Per reset scope (``per_turn``/``per_round``): (seat, table) variables as (index, initial, is a list),
        see `State._reset_variables`."""
        self._turn_kind_names: dict[int, tuple[Any, dict[str, ActionKind]]] = {}
        """Per kinds tuple of a turns step (by id; the tuple is kept with it): kind by name."""
        self._effect_draws: dict[int, tuple[Any, bool, Any]] = {}
        """Per action kind of a turns step (by id; the kind is kept with it): whether its effect
        may draw randomness (its lookahead trial then runs on a copy, see `trickkit.engine.turns`)."""
        self._choose_actions: dict[str, tuple[Action, ...]] = {}
        """Actions of choose steps, by verb: one per card id (see `trickkit.engine.choose`)."""
        self._auction_tables: dict[tuple[Any, ...], Any] = {}
        """The actions of auction steps, per list of calls (see `trickkit.engine.auction.CallTable`)."""
        self._has_auction = any(st.kind == "auction" for st in rules.steps)
        """True when the round has an auction step: observations then show ``auction``."""
        self._has_copies = tables.has_copies
        """True when some cards share a text (copies), which legal actions must offer once."""
        # copies the zones and variables of a state, generated for this layout (see State._copy)
        self._copy_layout = layout_copier(rules)
        self._initial_layout = initial_layout(rules, self.pool_zone)  # what a new state starts from (a copy)
        self._deck_size = len(rules.deck)
        self._steps = rules.steps
        # each step's legal/apply functions bound to it once, so a move costs no dispatch: the
        # general path (trickkit.engine.steps), and the step's generated functions where it has them
        # (trickkit.engine.fused), which State runs first, falling back on the general path if they raise.
        # A step that never asks a seat (deal, effect ...) has None: State never calls it there.
        self._legal_general = cast(
            "tuple[LegalFn[State], ...]",
            tuple(functools.partial(S.LEGAL[st.kind], self, st) if st.kind in S.LEGAL else None for st in rules.steps),
        )
        self._apply_general = cast(
            "tuple[ApplyFn[State], ...]",
            tuple(functools.partial(S.APPLY[st.kind], self, st) if st.kind in S.APPLY else None for st in rules.steps),
        )
        self._legal_fns: tuple[LegalFn[State], ...] = tuple(
            getattr(st, "fused_legal", None) or general for st, general in zip(rules.steps, self._legal_general)
        )
        self._apply_fns: tuple[ApplyFn[State], ...] = tuple(
            getattr(st, "fused_apply", None) or general for st, general in zip(rules.steps, self._apply_general)
        )
        self._advance: Callable[[State], None] = enter_next  # planned below, unless counting coverage
        if not counting:  # turns and choose steps: planned functions (trickkit.engine.turnplan)
            self._legal_fns, self._apply_fns, self._advance = plan_steps(
                self, rules.steps, self._legal_fns, self._apply_fns
            )

    # -- identity -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """Ruleset name, e.g. ``'skull_king'``."""
        return self.rules.name

    @property
    def title(self) -> str:
        """Human title, e.g. ``'Skull King'``."""
        return self.rules.title

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.rules.num_players

    @property
    def params(self) -> dict[str, Any]:
        """Resolved parameter values (defaults overridden at load)."""
        return dict(self.rules.params)

    @property
    def players_min(self) -> int:
        return self.rules.players_min

    @property
    def players_max(self) -> int:
        return self.rules.players_max

    @property
    def players_default(self) -> int:
        return self.rules.players_default

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The partnerships, team 0 first: each a tuple of seats (``teams:`` in the ruleset).
        Without ``teams:`` every seat is a team of its own: ``((0,), (1,), ...)``."""
        return self.rules.teams

    def team_of(self, seat: int) -> int:
        """The team number of ``seat`` (an int in ``0..num_players-1``; IndexError otherwise,
        negative seats included)."""
        if not 0 <= seat < len(self.rules.team_of):
            raise IndexError(f"no seat {seat!r}: seats are 0..{len(self.rules.team_of) - 1}")
        team: int = self.rules.team_of[seat]
        return team

    @property
    def score_unit(self) -> str:
        """What scores count, e.g. ``'points'`` or ``'heads'``."""
        return self.rules.score_unit

    @property
    def cards(self) -> tuple[str, ...]:
        """Text of every card in deck order (copies repeat)."""
        return self.rules.deck.texts

    def __repr__(self) -> str:
        return f"<Game {self.name} players={self.num_players} params={self.rules.params}>"

    # -- states ---------------------------------------------------------------------------
    def new_initial_state(self, seed: int | None = None, deals: Sequence[Any] | None = None) -> State:
        """A new game, shuffled from ``seed``.

        Args:
            seed: an int from 0 to ``10**100 - 1`` (a numpy integer too); the same seed gives
                the same game. None picks one at random (readable back as ``state.seed``).
            deals: optional fixed deals, one entry per deal in order. An entry is either a
                list of every seat's hand (seat 0 first) as card texts, or a mapping that may
                also fix table zones: ``{"hands": [[...], ...], "stock": ["C2", "H5"]}``. A
                table zone's cards are listed in zone order (the last is the top of a pile);
                for the deal's ``rest`` zone they lie on top of the other undealt cards
                (shuffled below them), so ``"stock": ["H5"]`` puts H5 on top, to be turned
                up; any other table zone holds exactly the cards listed. Without ``hands``
                the hands are dealt at random from the cards not fixed. Deals not given are
                random.

        Raises:
            DealError: a given deal names unknown cards, too many copies, or the wrong seats.
            ValueError: ``seed`` is not such an int (saved states could not hold it).
        """
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        seed = check_seed(seed)  # an int the save format holds (at most 100 digits)
        return State(self, seed, self._check_deals(deals) if deals is not None else None)

    def state_from_json(self, text: str) -> State:
        """Rebuild a state saved with `State.to_json` by replaying its actions.

        Raises:
            StateError: the text is not a saved state of this game, its ruleset content or
                parameters differ, or an action no longer replays.
        """
        try:
            data = jsonsafe.loads(text)  # bounded depth and digits: hostile text fails as a StateError
        except (TypeError, ValueError) as e:
            raise StateError(f"saved state is not JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != "trickkit-state":
            raise StateError("not a trickkit saved state (missing 'format': 'trickkit-state')")
        expected = {
            "format",
            "trickkit_version",
            "game",
            "ruleset_sha256",
            "players",
            "params",
            "seed",
            "deals",
            "actions",
        }
        unknown = set(data) - expected
        if unknown:
            raise StateError(f"saved state has unknown fields: {', '.join(sorted(unknown))}")
        missing = expected - set(data)
        if missing:
            raise StateError(f"saved state lacks fields: {', '.join(sorted(missing))}")
        if data["game"] != self.name:
            raise StateError(f"saved state is of game {data['game']!r}, not {self.name!r}")
        if data["ruleset_sha256"] != self.content_hash:
            raise StateError(
                f"saved state was made with a different version of ruleset {self.name!r} "
                f"(content hash {str(data['ruleset_sha256'])[:12]}..., this one {self.content_hash[:12]}...)"
            )
        if data["players"] != self.num_players:
            raise StateError(f"saved state has {data['players']!r} players, this game {self.num_players}")
        if data["params"] != self.rules.params:
            raise StateError(f"saved state has parameters {data['params']!r}, this game {self.rules.params!r}")
        if not isinstance(data["actions"], list) or not all(isinstance(a, str) for a in data["actions"]):
            raise StateError("saved state 'actions' must be a list of action texts")
        try:
            state = self.new_initial_state(seed=data["seed"], deals=data["deals"])
            for i, a in enumerate(data["actions"]):  # one by one, to say where a replay fails
                try:
                    state.apply_action(a)
                except TrickkitError as e:
                    raise StateError(f"saved state does not replay: action {i} {a!r}: {e}") from None
        except (TypeError, ValueError) as e:
            if isinstance(e, StateError):
                raise
            raise StateError(f"saved state is invalid: {e}") from None
        return state

    def replay(self, seed: int, deals: Sequence[Any] | None, actions: Sequence[str]) -> State:
        """A new state from ``seed`` and ``deals`` with ``actions`` (texts) applied in order.

        Raises:
            IllegalActionError: an action does not apply.
            TypeError: ``actions`` is not a list (or tuple) of actions.
        """
        if not isinstance(actions, (list, tuple)):
            raise TypeError(f"actions must be a list of action texts, got {type(actions).__name__}")
        state = self.new_initial_state(seed=seed, deals=deals)
        for a in actions:
            state.apply_action(a)
        return state

    def record(self, state: State) -> dict[str, Any]:
        """The JSON-ready record of a state (see `State.to_json`)."""
        from trickkit._version import __version__

        return {
            "format": "trickkit-state",
            "trickkit_version": __version__,
            "game": self.name,
            "ruleset_sha256": self.content_hash,
            "players": self.num_players,
            "params": self.rules.params,
            "seed": state.seed,
            "deals": state.deals,
            "actions": state.history(),
        }

    # -- deals ----------------------------------------------------------------------------
    def _check_deals(self, deals: object) -> list[Any]:
        out: list[Any] = []
        if not isinstance(deals, (list, tuple)):
            raise DealError("deals must be a list with one entry per deal")
        for d, deal in enumerate(deals):
            if isinstance(deal, dict):
                out.append(self._check_table_deal(d, deal))
                continue
            out.append(self._check_hands(d, deal))
        return out

    def _check_hands(self, d: int, deal: object) -> list[list[str]]:
        """Deal ``d``'s hands (one list of card texts per seat), checked and copied."""
        deck = self.rules.deck
        if not isinstance(deal, (list, tuple)) or len(deal) != self.num_players:
            raise DealError(f"deal {d}: expected one hand per seat ({self.num_players}), got {deal!r}")
        counts: dict[str, int] = {}
        hands = []
        for seat, hand in enumerate(deal):
            if not isinstance(hand, (list, tuple)):
                raise DealError(f"deal {d}, seat {seat}: a hand is a list of card texts, got {hand!r}")
            for t in hand:
                if not isinstance(t, str):
                    raise DealError(f"deal {d}, seat {seat}: a card is its text, got {t!r}")
                if t not in deck.by_text:
                    raise DealError(f"deal {d}, seat {seat}: unknown card {t!r}{did_you_mean(str(t), deck.by_text)}")
                counts[t] = counts.get(t, 0) + 1
                if counts[t] > len(deck.by_text[t]):
                    raise DealError(
                        f"deal {d}: card {t!r} dealt {counts[t]} times; the deck has {len(deck.by_text[t])}"
                    )
            hands.append([str(t) for t in hand])
        return hands

    def _check_table_deal(self, d: int, deal: dict[Any, Any]) -> dict[str, list[str] | list[list[str]]]:
        """A deal entry that fixes table zones (see `new_initial_state`), checked and copied."""
        deck = self.rules.deck
        zones = {z.name: z for z in self.rules.table_zones}
        out: dict[str, list[str] | list[list[str]]] = {}
        counts: dict[str, int] = {}
        for key, cards in deal.items():
            if key == "hands":
                hands = self._check_hands(d, cards)
                out["hands"] = hands
                for hand in hands:
                    for t in hand:
                        counts[t] = counts.get(t, 0) + 1
                continue
            if not isinstance(key, str) or key not in zones:
                raise DealError(
                    f"deal {d}: {key!r} is neither 'hands' nor a table zone"
                    f"{did_you_mean(str(key), list(zones) + ['hands'])}"
                )
            if zones[key].count:
                raise DealError(f"deal {d}: {key!r} is a zone family; a deal fixes single table zones only")
            if not isinstance(cards, (list, tuple)) or not all(isinstance(t, str) for t in cards):
                raise DealError(f"deal {d}, {key}: a table zone is a list of card texts, got {cards!r}")
            for t in cards:
                if t not in deck.by_text:
                    raise DealError(f"deal {d}, {key}: unknown card {t!r}{did_you_mean(t, deck.by_text)}")
                counts[t] = counts.get(t, 0) + 1
            out[key] = [str(t) for t in cards]
        for t, k in counts.items():
            if k > len(deck.by_text[t]):
                raise DealError(f"deal {d}: card {t!r} dealt {k} times; the deck has {len(deck.by_text[t])}")
        return out

    def resolve_table_deal(self, deal: dict[str, Any], index: int) -> tuple[dict[str, list[CardId]], dict[str, int]]:
        """Card ids of the table zones a deal entry fixes (zone name -> ids, in the order listed),
        and the copies of each text they use (so that the hands take the next copies)."""
        deck = self.rules.deck
        taken: dict[str, int] = {}
        out = {}
        for key, cards in deal.items():
            if key == "hands":
                continue
            ids: list[CardId] = []
            for t in cards:
                k = taken.get(t, 0)
                ids.append(deck.by_text[t][k])
                taken[t] = k + 1
            out[key] = ids
        return out, taken

    def resolve_deal(
        self, deal: Sequence[Sequence[str]], index: int, count: int, taken: dict[str, int] | None = None
    ) -> list[list[CardId]]:
        """Card ids for a given deal (card texts per seat); every hand must hold ``count`` cards.
        ``taken`` counts copies of a text already placed elsewhere (fixed table zones)."""
        deck = self.rules.deck
        taken = dict(taken or {})
        result = []
        for seat, hand in enumerate(deal):
            if len(hand) != count:
                raise DealError(f"deal {index}, seat {seat}: this deal gives {count} cards, the hand lists {len(hand)}")
            ids: list[CardId] = []
            for t in hand:
                k = taken.get(t, 0)
                ids.append(deck.by_text[t][k])
                taken[t] = k + 1
            result.append(ids)
        return result

    def bid_action(self, value: int) -> Action:
        """The action ``bid VALUE`` (one object per number, shared with the generated bid steps)."""
        return self._tables.bid(value)

    # -- step dispatch (used by State) ----------------------------------------------------
    def step_enter(self, state: State, step: Any) -> bool:
        return S.ENTER[step.kind](self, state, step)

    # legal actions and applying one: State calls _legal_fns / _apply_fns[state.step] directly

    def kind_available(self, state: State, kind: str) -> bool:
        """True if the current seat has a legal action of ``kind`` (in a turns step) now."""
        step = self._steps[state.step]
        if step.kind != "turns":
            return False
        return _kind_available(self, state, step, kind)

    def step_explain(self, state: State, text: str) -> str:
        step = self._steps[state.step]
        return S.EXPLAIN[step.kind](self, state, step, text)

    # -- action ids and observation tensors (trickkit.engine.spaces, trickkit.engine.tensor) ---------------
    @functools.cached_property
    def action_space(self) -> ActionSpace:
        """The game's fixed action space (`trickkit.engine.spaces.ActionSpace`), built on first use.

        Raises:
            trickkit.engine.spaces.ActionSpaceError: the ruleset's choices multiply to too many actions.
        """
        from trickkit.engine.spaces import build_action_space

        return build_action_space(self)

    def num_distinct_actions(self) -> int:
        """How many action ids the game has: every action text that can be legal has one id in
        ``0..num_distinct_actions()-1``, the same in every process (see `trickkit.engine.spaces`)."""
        return len(self.action_space)

    def action_to_string(self, action_id: int) -> str:
        """The canonical text of an action id, e.g. ``'play B13'``.

        Raises:
            trickkit.engine.spaces.ActionSpaceError: not an id of this game.
        """
        return self.action_space.to_string(action_id)

    def string_to_action(self, text: str) -> int:
        """The id of an action text (spaces normalised, like ``apply_action``).

        Raises:
            trickkit.engine.spaces.ActionSpaceError: no action of this game has that text.
        """
        return self.action_space.to_id(text)

    @functools.cached_property
    def _observation_encoder(self) -> ObservationEncoder:
        from trickkit.engine.tensor import ObservationEncoder

        return ObservationEncoder(self)

    def _new_mask_tables(self) -> Any:
        """Make `_mask`, on the first legal-action mask asked of this Game."""
        from trickkit.engine.arrays import mask_tables  # numpy: imported when a mask is first asked

        self._mask = mask_tables(self)
        return self._mask

    def observation_tensor_shape(self) -> tuple[int]:
        """The shape of `State.observation_tensor`: ``(size,)``, a flat vector of floats."""
        return (self._observation_encoder.size,)

    def observation_tensor_layout(self) -> list[Segment]:
        """The named segments of the observation tensor, in order: `trickkit.engine.tensor.Segment`
        tuples ``(name, start, size, description)``; see `trickkit.engine.tensor` for their meaning."""
        return list(self._observation_encoder.segments)

    @functools.cached_property
    def _information_state_encoder(self) -> InformationStateEncoder:
        from trickkit.engine.infostate import InformationStateEncoder

        return InformationStateEncoder(self)

    def information_state_tensor_shape(self) -> tuple[int]:
        """The shape of `State.information_state_tensor`: ``(size,)``, a flat vector of floats."""
        return (self._information_state_encoder.size,)

    def information_state_tensor_layout(self) -> list[Segment]:
        """The named segments of the information-state tensor, in order: the observation tensor's
        segments, then ``history length`` and ``history`` (see `trickkit.engine.infostate`)."""
        return list(self._information_state_encoder.segments)

    @property
    def information_state_window(self) -> int:
        """How many of the last actions the information-state tensor holds: ``max_actions``, or
        fewer where their encoding would exceed `trickkit.engine.infostate.HISTORY_FLOATS` floats."""
        return self._information_state_encoder.window

    def information_state_vocabulary(self) -> tuple[str, ...]:
        """The texts an action can show as in an information state, by seen id: the action texts
        (seen id = action id), then the masked forms (``pass ?``, ``bid ?``), then ``<other>``."""
        return self._information_state_encoder.vocabulary

    # -- observation ----------------------------------------------------------------------
    def action_seen_by(self, state: State, text: str, seat: Seat) -> str:
        """See `State.action_seen_by`."""
        if not isinstance(text, str) or not text.split():
            raise ValueError(f"an action text is a non-blank str, got {text!r}")
        if seat.__class__ is not int:
            try:
                seat = operator.index(seat)  # a numpy integer, say
            except TypeError:
                raise ValueError(f"no seat {seat!r}: seats are 0..{self.num_players - 1}") from None
        if not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r}: seats are 0..{self.num_players - 1}")
        if state.is_terminal() or seat == state.current:
            return text
        step = self._steps[state.step]
        if getattr(step, "simultaneous", False):  # a bid or a card chosen: hidden until all have chosen
            return f"{text.split()[0]} ?"
        return seen_text(self._privacy, text, state.current, seat)  # choices declared private show as ?

    def observe(self, state: State, seat: Seat | None) -> Observation:
        """What ``seat`` sees (None: everything). Hidden cards appear only as counts."""
        state.budget = EVALUATION_BUDGET
        rules, deck = self.rules, self.rules.deck
        texts = deck.texts
        step = None if state.is_terminal() else self._steps[state.step]
        vis = self.visibility
        zones: dict[str, Any] = {}
        secret = vis.secret_zone(state)
        for z in rules.seat_zones:
            hows = vis.seat_zone(state, z, seat, secret)
            zones[z.name] = [
                _zone_view(cards, texts, how) for cards, how in zip(state.seat_zones[z.index], hows, strict=True)
            ]
        for z in rules.table_zones:
            how = vis.table_zone(state, z, seat)
            if z.count:  # a zone family: one view per member
                zones[z.name] = [_zone_view(state.table_zones[z.index + i], texts, how) for i in range(z.count)]
            else:
                zones[z.name] = _zone_view(state.table_zones[z.index], texts, how)
        variables: dict[str, Any] = {}
        secret_bid = vis.secret_bid(state)
        for v in rules.seat_vars:  # copies (`fresh`): the caller may change what it gets
            values = [fresh(x) for x in state.seat_vars[v.index]]
            if v.name == secret_bid or not vis.plain(v):  # public values need no filtering
                values = vis.seat_values(state, v, seat, values)
            variables[v.name] = values
        for v in rules.table_vars:
            value = fresh(state.table_vars[v.index])
            variables[v.name] = value if vis.plain(v) else vis.table_value(state, v, seat, value)
        observation: Observation = {
            "game": self.name,
            "seat": seat,
            "round": state.round,
            "dealer": state.dealer,
            "phase": "over" if step is None else step.kind,
            "current_player": state.current_player(),
            "zones": zones,
            "trick": [{"seat": p[0], "card": deck.face_texts[p[2]]} for p in state.trick],
            "variables": variables,
            "seat_zones": [z.name for z in rules.seat_zones],
            "seat_variables": [v.name for v in rules.seat_vars],
            "scores": state.scores(),
            "terminal": state.is_terminal(),
        }
        whose = state.playing_for()
        if whose is not None:  # another seat chooses the card due (public: who plays whose card)
            observation["playing_for"] = whose
        if self._has_auction:  # every call is public (only games with an auction show the key)
            observation["auction"] = auction_view(state)
        if self.reveals:  # only games whose rules reveal cards have the key (other observations stay as they were)
            observation["revealed"] = vis.revealed(state, seat)
        return observation


def _planned(rules: Rules, tables: PlayTables) -> Rules:
    """``rules`` with generated step functions for its tricks and bid steps (`trickkit.engine.fused`),
    unless its rules count coverage (every rule then runs through its own hook)."""
    compiler = rules.compiler
    if compiler is None or compiler.coverage is not None:
        return rules
    steps = fuse_steps(compiler, rules.steps, tables, rules.num_players, rules.deck)
    return attrs.evolve(rules, steps=steps, generated_source=compiler.source(), compiler=None)


def _zone_view(cards: list[CardId], texts: tuple[str, ...], how: str) -> ZoneView:
    if how == "all":
        return {"count": len(cards), "cards": [texts[c] for c in cards]}
    if how == "top":
        return {"count": len(cards), "top": texts[cards[-1]] if cards else None}
    return {"count": len(cards)}


def content_hash(doc: Any) -> str:
    """SHA-256 of a ruleset document's content (key order and formatting do not matter)."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()
