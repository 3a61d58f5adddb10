"""The mutable state of one game in progress: zones, variables, the current step, and the rules that move it on."""

from __future__ import annotations

import json
import random
from typing import Any, NoReturn

from trickkit.dsl.compiler import EVALUATION_BUDGET, GameEnded
from trickkit.engine.actions import QUOTE_LIMIT, Action, quote_action
from trickkit.engine.layout import fresh
from trickkit.engine.protocols import (
    ApplyFn,
    LastTrick,
    LegalFn,
    Play,
    Seat,
    SeatVars,
    SeatZones,
    StateGame,
    TableVars,
    TableZones,
)
from trickkit.engine.seat_views import SeatViews
from trickkit.engine.spaces import check_action_id
from trickkit.engine.visibility import forget_moved
from trickkit.errors import DSLRuntimeError, IllegalActionError
from trickkit.rules.ruleset import Rules

MAX_STEPS_WITHOUT_DECISION = 10_000
"""Most steps (deals, effects, empty tricks ...) the engine runs in a row without a seat to ask:
a ruleset whose rounds never ask anything, and never end, fails instead of hanging."""

TERMINAL = -4
"""``current_player()`` of a finished game (OpenSpiel's convention: a negative seat)."""


class State(SeatViews):
    """One game in progress. Create it with `trickkit.Game.new_initial_state`.

    Every random choice (shuffles) comes from ``self.rng``, seeded at creation, so the
    same seed and the same actions give the same game.
    """

    game: StateGame[State]
    rules: Rules
    _rng: random.Random | None
    _rng_state: tuple[Any, ...] | None
    _rng_lent: bool
    seed: int
    deals: list[Any] | None
    deal_no: int
    seat_zones: SeatZones
    table_zones: TableZones
    seat_vars: SeatVars
    table_vars: TableVars
    round: int
    dealer: Seat
    step: int
    current: Seat
    actor: Seat | None
    seating: tuple[tuple[Seat, ...], int] | None
    trick: list[Play]
    tricks_done: int
    tricks_total: int
    last_trick: LastTrick | None
    acted: int
    turn_over: bool
    turn_no: int
    turn_player: Seat
    window: int
    responders: list[Seat]
    next_turn: Seat | None
    passes: list[int]
    queue: list[Seat]
    auction: Any
    _history: list[tuple[Seat, str]]
    known: dict[tuple[Seat, tuple[int, int], int], None] | None
    _terminal: bool
    _legal: list[Action] | None
    _n: int
    memo: dict[Any, Any] | None
    _depth: int
    budget: int
    _tensors: list[Any] | None

    __slots__ = tuple(__annotations__)  # the attributes annotated above (no instance dict: quicker copies)

    def __init__(self, game: StateGame[State], seed: int, deals: list[Any] | None = None):
        rules = game.rules
        n = rules.num_players
        self.game, self.rules, self._n = game, rules, n
        self.seed = seed
        self._rng = random.Random(seed)
        self._rng_state = None  # a snapshot of the generator, shared with clones (see `rng`)
        self._rng_lent = False  # handed out through `rng`: it may draw behind our back
        self.deals = deals
        self.deal_no = 0
        # zones and variables as the game begins: a copy of the Game's `initial_layout`
        self.seat_zones, self.table_zones, self.seat_vars, self.table_vars = game._copy_layout(game._initial_layout)
        self.round, self.dealer, self.step = 1, 0, 0
        self.current, self.trick = 0, []
        self.actor = None  # a tricks step with `actor`: the seat choosing the card due (see current_player)
        self.seating = None  # a tricks step with `sits_out`: (next playing seat of each seat, plays per trick)
        self.tricks_done = self.tricks_total = self.acted = 0
        self.last_trick = None  # (step index, plays, winning play or None) of the last completed trick
        self.turn_over, self.turn_no, self.turn_player = False, 0, 0
        self.window, self.responders = -1, []  # an open reaction window (engine.turns), who may still respond
        self.next_turn = None  # the seat end_turn(next=...) named for the next turn (None: clockwise)
        self.passes = [0] * rules.repeat_slots  # per repeat: passes still to run (-1: no count), see engine.repeat
        self.queue = []  # a choose step's decisions still to make, one seat per card (engine.choose)
        self.auction = None  # the round's running (or last) auction: an engine.auction.AuctionState, immutable
        self._depth = 0  # nesting of lookahead checks (see turns.legal_turns)
        self._history = []
        self.known = None  # what reveal() showed to whom (see trickkit.engine.visibility); None: nothing
        self._terminal = False
        self._legal = None
        self.memo = None  # memo of state-only rule parts, open only while the state holds still
        self.budget = EVALUATION_BUDGET  # list items the rules may iterate over per engine call
        if rules.first_dealer is not None:  # (a rule checked to give a seat, see `trickkit.rules.checks.seat_result`)
            self.dealer = rules.first_dealer(self)
        self._tensors = (
            None  # per seat its last observation tensor (engine.tensor), then per seat its information state's
        )
        self._enter_step()
        if self.known:
            forget_moved(self)

    # -- the public API -----------------------------------------------------------------
    def current_player(self) -> Seat:
        """The seat to act, or `TERMINAL` once the game is over. In a tricks step whose ``actor``
        has another seat choose, the seat choosing (the card is due from ``playing_for``)."""
        return TERMINAL if self._terminal else self.current if self.actor is None else self.actor

    def playing_for(self) -> Seat | None:
        """The seat whose card the current player chooses if another (a tricks step's ``actor``), else None."""
        actor = self.actor
        return None if self._terminal or actor is None or actor == self.current else self.current

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self._terminal

    def legal_actions(self) -> list[Action]:
        """The current seat's legal actions, in a deterministic order (deck order for cards).

        Returns an empty list once the game is over.
        """
        legal = self._legal
        if legal is None:  # _legal_now, inlined: this runs once per decision
            self.budget = EVALUATION_BUDGET
            if self._terminal:
                legal = self._legal = []
            else:
                fn = self.game._legal_fns[self.step]
                try:
                    legal = fn(self)
                except Exception:
                    legal = self._legal_general(fn)
                if not legal:
                    self._no_legal_action()
                self._legal = legal
        return [*legal]  # the caller's own list ([*x]: the quickest copy)

    def apply_action(self, action: Action | str | int) -> None:
        """Apply the current seat's action, given as an `Action`, its canonical text or its id
        (`legal_action_ids`).

        Raises:
            IllegalActionError: the action is malformed or not legal now; the message says
                why and the state is left exactly as it was.
        """
        legal = self._legal
        if legal is not None and action.__class__ is Action:  # most callers pass an action of legal_actions()
            for chosen in legal:
                if chosen is action:
                    break
            else:
                chosen = self._chosen(action)  # an equal action, not the same object: matched by its text
        else:
            chosen = self._chosen(action)  # every other form, checked and matched
        history = self._history
        if len(history) >= self.rules.max_actions:  # (_chosen checks it first where it refuses an action)
            self._too_many_actions()
        # _perform, inlined: this is the engine's hottest path
        self.budget = EVALUATION_BUDGET
        # a caller holding the generator may have drawn from it: only a full copy restores it
        backup = self._snapshot() if self._rng_lent else None
        history.append((self.current, chosen.text))
        self._legal = None
        fn = self.game._apply_fns[self.step]
        try:
            if fn(self, chosen):
                try:  # the next steps, by their planned enters (trickkit.engine.turnplan)
                    self.game._advance(self)
                except GameEnded:
                    raise
                except Exception:  # a planned enter failed: the general path runs the action again, below
                    fn = _ENTER_FAILED  # (not a flag set at every decision: that would cost every game)
                    raise
        except GameEnded:  # an end_game() effect: the game is over at once
            self._terminal = True
        except Exception:
            # A rule failed half-way (a ruleset bug, a given deal that does not fit): rebuild
            # the state as it was by replaying the game so far, then report the error.
            self._restore(
                backup if backup is not None else self.game.replay(self.seed, self.deals, self.history()[:-1])
            )
            general = self.game._apply_general[self.step]
            if general is fn:
                raise
            # the step's generated function, or a planned enter after it, failed: the general
            # path runs the action again and reports the error, located (or, if the generated
            # code only computed a part too early, performs the action)
            self._perform(chosen, general)
        if self.known:  # revealed cards that moved are forgotten (nothing to do in most games)
            forget_moved(self)

    def _chosen(self, action: object) -> Action:
        """The legal action ``action`` names (an Action, its text, or its id), checked.

        Raises:
            IllegalActionError: as `apply_action`.
        """
        text = action.text if isinstance(action, Action) else action
        if not isinstance(text, str):
            if isinstance(action, bool) or not hasattr(action, "__index__"):
                raise IllegalActionError(
                    f"an action must be text, an Action or an action id, got {type(action).__name__}"
                )
            text = check_action_id(self.game.action_space, action)  # an action id (see legal_action_ids)
        if self._terminal:
            raise IllegalActionError(f"illegal action {quote_action(text)}: the game is over")
        if len(self._history) >= self.rules.max_actions:
            self._too_many_actions()
        legal = self._legal
        if legal is None:
            legal = self._legal = self._legal_now()
        for chosen in legal:
            if chosen.text == text:
                return chosen
        verb, _, rest = " ".join(text.split()).partition(" ")
        norm = f"{verb.lower()} {rest}" if rest else verb.lower()
        found = next((a for a in legal if a.text == norm), None)
        if found is None:
            raise IllegalActionError(  # a huge text is quoted (and explained) by its start only
                f"illegal action {quote_action(text)} for seat {self.current_player()}"
                + (f" (playing seat {self.current}'s cards)" if self.playing_for() is not None else "")
                + f": "
                f"{self.game.step_explain(self, norm[:QUOTE_LIMIT])}"
            )
        return found

    def _too_many_actions(self) -> NoReturn:
        raise DSLRuntimeError(
            f"{self.rules.name}: the game exceeded its declared max_actions="
            f"{self.rules.max_actions} (a ruleset that never ends?)"
        )

    def _legal_now(self) -> list[Action]:
        """The legal actions of a game not over (never empty), computed now."""
        self.budget = EVALUATION_BUDGET
        fn = self.game._legal_fns[self.step]
        try:
            legal = fn(self)
        except Exception:
            legal = self._legal_general(fn)
        if not legal:
            self._no_legal_action()
        return legal

    def _legal_general(self, fn: LegalFn[State]) -> list[Action]:
        """The legal actions by the general path (trickkit.engine.steps), after ``fn``, the step's
        generated function, raised: it raises the error, located, or gives the answer (when
        the generated code only computed a part too early). Called while handling the error."""
        general = self.game._legal_general[self.step]
        if general is fn:
            raise  # the general path itself failed: its error stands
        self.budget = EVALUATION_BUDGET  # charged as if the generated function never ran
        self.memo = None
        return general(self)

    def _perform(self, chosen: Action, fn: ApplyFn[State]) -> None:
        """Apply the legal action ``chosen`` with the step's apply function ``fn``; on an error
        the state is left as it was and the error raised."""
        self.budget = EVALUATION_BUDGET
        backup = self._snapshot() if self._rng_lent else None
        self._history.append((self.current, chosen.text))
        self._legal = None
        try:
            if fn(self, chosen):
                self.step += 1
                self._enter_step()
        except GameEnded:
            self._terminal = True
        except Exception:
            self._restore(
                backup if backup is not None else self.game.replay(self.seed, self.deals, self.history()[:-1])
            )
            raise
        if self.known:
            forget_moved(self)

    def scores(self) -> list[int]:
        """Each seat's score so far, in the game's unit (e.g. points, mummy heads)."""
        self.budget = EVALUATION_BUDGET
        score = self.rules.score
        return [score(self, s) for s in range(self._n)]

    def team_scores(self) -> list[int]:
        """Each team's score so far, team 0 first (see `trickkit.Game.teams`).

        A team's score is the ruleset's ``team_score`` rule, else the score of its first seat
        (partners share a score). Without ``teams:`` every seat is a team: this is `scores`.
        """
        self.budget = EVALUATION_BUDGET
        rules = self.rules
        if rules.team_score is not None:
            return [rules.team_score(self, t) for t in range(len(rules.teams))]
        scores = self.scores()
        if not rules.teams:
            return scores
        return [scores[members[0]] for members in rules.teams]

    def winning_teams(self) -> list[int]:
        """Teams with the best team score (highest or lowest, per the ruleset); ties share the win."""
        scores = self.team_scores()
        best = max(scores) if self.rules.winners_highest else min(scores)
        return [t for t, v in enumerate(scores) if v == best]

    def winners(self) -> list[Seat]:
        """Seats with the best score (highest or lowest, per the ruleset); ties share the win.

        With ``teams:`` the best *teams* win and every seat of a winning team is a winner
        (both partners win), in seat order.
        """
        rules = self.rules
        if not rules.teams or (rules.team_score is None and len(rules.teams) == self._n):  # every seat its own team
            scores = self.scores()
            best = max(scores) if rules.winners_highest else min(scores)
            return [s for s, v in enumerate(scores) if v == best]
        won = set(self.winning_teams())
        return [s for s in range(self._n) if rules.team_of[s] in won]

    @property
    def rng(self) -> random.Random:
        """The state's random generator: every shuffle and random move draws from it."""
        r = self._generator()
        self._rng_lent = True  # the caller may keep it and draw later: clones must look at it then
        return r

    @rng.setter
    def rng(self, value: random.Random) -> None:
        """Replace the generator (a `random.Random`, or a subclass of it).

        Raises:
            TypeError: ``value`` is not a `random.Random`; the state keeps its generator.
        """
        if not isinstance(value, random.Random):
            raise TypeError(f"state.rng must be a random.Random, got {type(value).__name__}")
        self._rng, self._rng_state, self._rng_lent = value, None, True

    def _generator(self) -> random.Random:
        """The generator, for the engine's own draws (made now if this copy never drew)."""
        r = self._rng
        if r is None:  # a copy that has not drawn yet: make its generator from the snapshot
            r = self._rng = random.Random.__new__(random.Random)  # no OS seeding: the state is set next
            r.setstate(self._rng_state)  # type: ignore[arg-type]  # no generator: then a snapshot
        self._rng_state = None  # about to draw: the snapshot will no longer describe the generator
        return r

    def _trial(self) -> State:
        """A copy to try an action on and throw away (lookahead), one level deeper. It shares
        the history: a trial only runs the action's effect, which never writes history."""
        c = self._copy(self._history)
        c._depth = self._depth + 1
        return c

    def clone(self, _history: list[tuple[Seat, str]] | None = None) -> State:
        """An independent copy: applying actions to it never changes this state, nor the
        other way round. It draws the same random numbers as this state would."""
        # The hottest path of search agents and lookahead: straight-line slot copies, and the
        # zones and variables copied by the Game's own generated copier (`layout_copier`).
        # ``_history`` (internal, `_copy`): the history list to give the copy instead of a copy.
        c = _new(State)
        c.seat_zones, c.table_zones, c.seat_vars, c.table_vars = self.game._copy_layout(self)
        c.game, c.rules, c._n, c.seed, c.deals = self.game, self.rules, self._n, self.seed, self.deals
        # Copies share one immutable snapshot of the generator and build a generator only if
        # they draw (see `_generator`): copying its state costs more than the rest of a copy.
        r = self._rng_state
        if r is None or (self._rng_lent and self._rng is not None):
            r = self._rng_state = self._rng.getstate()  # type: ignore[union-attr]  # no snapshot: a generator
        c._rng_state = r
        c._rng = None
        c._rng_lent = False
        c.deal_no = self.deal_no
        c.round = self.round
        c.dealer = self.dealer
        c.step = self.step
        c.current = self.current
        c.actor = self.actor
        c.seating = self.seating
        c.trick = [*self.trick]  # [*x]: the quickest list copy (no slice object)
        c.tricks_done = self.tricks_done
        c.tricks_total = self.tricks_total
        c.acted = self.acted
        c.last_trick = self.last_trick
        c.turn_over = self.turn_over
        c.turn_no = self.turn_no
        c._depth = self._depth
        c.turn_player = self.turn_player
        c.window = self.window
        c.responders = [*self.responders]
        c.next_turn = self.next_turn
        c.passes = [*self.passes]
        c.queue = [*self.queue]
        c.auction = self.auction  # immutable: shared
        c._history = [*self._history] if _history is None else _history
        c.known = self.known  # never changed in place (reveal and forget_moved make a new one): shared
        c._terminal = self._terminal
        c._legal = self._legal
        c.memo = None
        c.budget = self.budget
        c._tensors = None
        return c

    _copy = clone  # the engine's copies (`_trial`, `_snapshot`) name the history to give

    def to_json(self) -> str:
        """The state as JSON text: game, ruleset hash, parameters, seed, given deals and actions.

        `trickkit.Game.state_from_json` replays it exactly.
        """
        return json.dumps(self.game.record(self), sort_keys=True)

    def __repr__(self) -> str:
        # Public facts only: the deal order and hidden hands stay out of logs and tracebacks.
        where = "game over" if self._terminal else f"seat {self.current_player()} to act"
        try:
            scores: list[int] | str = self.scores()
        except Exception:  # a repr must never raise (it is used in tracebacks and debuggers)
            scores = "?"
        return f"<State {self.rules.name} round {self.round}, {len(self._history)} actions, {where}, scores {scores}>"

    __str__ = __repr__

    # -- engine internals ------------------------------------------------------------------
    def _restore(self, other: State) -> None:
        for name in State.__slots__:
            setattr(self, name, getattr(other, name))

    def can(self, kind: str) -> bool:
        """True if the current seat has a legal action of ``kind`` now (the DSL's ``can('kind')``)."""
        return self.game.kind_available(self, kind)

    def _reset_variables(self, scope: str) -> None:
        """Put the variables whose spec flag ``scope`` (``per_round``/``per_turn``) is set
        back to their initial values."""
        resets = self.game._variable_resets.get(scope)
        if resets is None:  # which variables, found once per Game (this runs at every turn)
            rules = self.rules
            resets = self.game._variable_resets[scope] = (
                tuple((v.index, v.initial, v.initial.__class__ is list) for v in rules.seat_vars if getattr(v, scope)),
                tuple((v.index, v.initial, v.initial.__class__ is list) for v in rules.table_vars if getattr(v, scope)),
            )
        seat, table = resets
        for index, initial, copied in seat:  # only a list needs copying (`fresh`); other values are shared
            self.seat_vars[index] = [fresh(initial) for _ in range(self._n)] if copied else [initial] * self._n
        table_vars = self.table_vars
        for index, initial, copied in table:
            table_vars[index] = fresh(initial) if copied else initial

    def _no_legal_action(self) -> NoReturn:
        from trickkit.rules.ruleset import step_where

        raise DSLRuntimeError(
            f"{step_where(self.rules.steps[self.step])}: seat {self.current} has no legal action "
            f"(the game is not over, but the rules offer this seat nothing to do)"
        )

    def _snapshot(self) -> State:
        """A full copy, its generator included (which copies otherwise share lazily)."""
        c = self._copy()
        r = random.Random.__new__(random.Random)
        r.setstate(self._generator().getstate())
        c._rng, c._rng_state, c._rng_lent = r, None, True
        return c

    def _enter_step(self, ran: int = 0) -> None:
        """Run automatic steps until a seat must decide or the game ends (``ran``: steps already
        entered without a decision, by a planned step's apply, `trickkit.engine.turnplan`).

        Raises:
            DSLRuntimeError: `MAX_STEPS_WITHOUT_DECISION` steps ran with no seat asked to
                decide and the game not over (rounds that never ask anything).
        """
        steps = self.rules.steps
        game = self.game
        while True:
            ran += 1
            if ran > MAX_STEPS_WITHOUT_DECISION:
                raise DSLRuntimeError(
                    f"{self.rules.name}: {MAX_STEPS_WITHOUT_DECISION} steps ran without asking any seat to decide "
                    f"and game_over never held (round {self.round}): a round needs a step that asks a seat, "
                    f"or game_over must become true"
                )
            if self.step >= len(steps):
                if self.rules.game_over(self):
                    self._terminal = True
                    return
                self.round += 1
                self.dealer = (self.dealer + 1) % self._n
                self._reset_variables("per_round")
                self.step = 0
            try:
                if game.step_enter(self, steps[self.step]):
                    return
            except GameEnded:
                self._terminal = True
                return
            self.step += 1


def _enter_failed(state: State, action: Action) -> bool:
    """Never called: `State.apply_action` names it as the failed function when a planned enter
    after the step failed, so that the general path (never this) runs the action again."""
    raise AssertionError("never called")


_ENTER_FAILED: ApplyFn[State] = _enter_failed

_new = object.__new__
