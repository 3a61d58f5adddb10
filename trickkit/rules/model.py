"""The frozen typed model of a compiled ruleset: zones, variables, the kinds of round step, action kinds and `Rules`.

`trickkit.rules.compiler.RulesetCompiler` builds these from a ruleset document; the engine
only reads them. (While a ruleset with mistakes is compiled, a rule that failed is None in the
steps built meanwhile; they are discarded with the problems, never part of a `Rules`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

from trickkit.dsl.compiler import Compiler
from trickkit.dsl.hooks import Hook
from trickkit.rules.cards import Deck


class RuleHook(Protocol):
    """A compiled rule, called as ``hook(state, *context)``, with what its compiler recorded on it."""

    where: str
    """``file:line:col: $.path`` of the rule, for error messages."""
    text: str
    """The rule's DSL text."""
    fn: Callable[..., Any]
    """The bare generated function ``fn(state, frame)``."""
    size: int
    """The frame size ``fn`` needs (context values first)."""
    type: str
    """The rule's static DSL type."""
    elem_type: str
    """The element type of a list rule (else ``any``)."""
    checks: str
    """Set on a hook whose result type is checked at play time: the type wanted (see
    `trickkit.rules.checks.checked_result`)."""
    filter: Callable[..., Any] | None
    """A card test's generated hand filter (see `trickkit.dsl.compiler.card_filter`), or None."""
    filter_size: int
    either_filter: Callable[..., Any] | None
    """``always_allowed``: the hand filter of "must_play_if_able or always_allowed", or None."""

    def __call__(self, state: Any, *context: Any) -> Any: ...


MAX_ZONE_FAMILY = 1_000
"""Most zones a zone family (``count``) may have."""


@attrs.frozen
class ZoneSpec:
    """A named place for cards."""

    name: str
    """Zone name, e.g. ``hand``."""
    index: int
    """Index into the state's seat-zone or table-zone list."""
    per_seat: bool
    """True when every seat has its own copy (owner: seat)."""
    visibility: str
    """``public``, ``owner``, ``hidden`` or ``top`` (only the top card shows)."""
    count: int = 0
    """For a zone family (e.g. excavation piles, rows): how many zones; 0 for a single zone.
    A family occupies ``count`` consecutive table zones starting at ``index``."""
    public_when: RuleHook | None = None
    """Hook: while it holds, the zone is public whatever its visibility (e.g. open hands)."""
    seen_by: RuleHook | None = None
    """Hook ``(state, seat, owner) -> bool``: the viewing ``seat`` also sees the cards of the zone of
    ``owner`` (-1 for a table zone) while it holds (``seen_by:``; see `trickkit.engine.visibility`)."""


@attrs.frozen
class VariableSpec:
    """A named number kept per seat or for the table."""

    name: str
    """Variable name, e.g. ``bid``."""
    index: int
    """Index into the state's variable list."""
    initial: Any
    """Value at the start of the game (and of each round when ``reset`` is ``round``)."""
    per_round: bool
    """True when reset at the start of every round."""
    per_turn: bool = False
    """True when reset at the start of every turn (in a turns step)."""
    type: str = "any"
    """Its DSL type: declared with ``type:``, else the type of ``initial`` (``any`` for null)."""
    internal: bool = False
    """True for the rules' own bookkeeping, not shown to players (``trickkit play``, transcripts)."""
    per_team: bool = False
    """True for a team variable (``team_variables:``): a table variable holding a list with one
    value per team, read and written as ``name[team_of(seat)]``. ``initial`` is then that list."""
    visibility: str = "public"
    """Who sees its value: ``public``, ``owner`` (the owning seat; a team variable: that team's
    seats) or ``hidden`` (see `trickkit.engine.visibility`)."""
    seen_by: RuleHook | None = None
    """Hook ``(state, seat, owner) -> bool``: the viewing ``seat`` also sees the value of ``owner``
    (a seat, a team for a team variable, -1 for a table variable) while it holds (``seen_by:``)."""


@attrs.frozen
class DealStep:
    """Collect every card, shuffle, deal ``count`` cards to each seat's ``to`` zone; the rest go to ``rest``."""

    count: RuleHook
    to: ZoneSpec
    rest: ZoneSpec
    kind: str = "deal"


@attrs.frozen
class BidStep:
    """Each seat in turn, from ``first``, chooses one of ``options`` into a seat variable."""

    variable: VariableSpec
    options: RuleHook
    first: RuleHook
    simultaneous: bool
    kind: str = "bid"
    reason: RuleHook | None = None
    """Why a bid is refused (context ``value``, the refused number): a text, or null for the
    engine's own message."""
    fused_legal: Callable[..., Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The generated ``legal(state)`` of the whole step (see `trickkit.engine.fused`), or None."""
    fused_apply: Callable[..., Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The generated ``apply(state, action)`` of the whole step (see `trickkit.engine.fused`), or None."""


@attrs.frozen
class TrickStep:
    """Play ``count`` tricks: each seat plays one card from its hand in turn; ``winner`` takes the trick."""

    count: RuleHook
    leader: RuleHook
    must_play_if_able: RuleHook
    """The follow duty (with a layered duty, its first test)."""
    always_allowed: RuleHook | None
    reason: RuleHook | None
    winner: RuleHook
    next_leader: RuleHook | None
    taken_to: ZoneSpec | None
    after_trick: RuleHook | None
    hand: ZoneSpec
    no_winner_to: ZoneSpec | None = None
    why: RuleHook | None = None
    """Text saying why the winner took the trick (for players; the engine never runs it)."""
    fallback_duties: tuple[RuleHook, ...] = ()
    """A layered duty's later card tests, in order (``must_play_if_able: [a, b, c]`` gives ``(b, c)``):
    when no card in hand passes the ones before, the first that some card passes decides."""
    sits_out: RuleHook | None = None
    """Bool rule (context ``seat``), evaluated for every seat at each trick's start: a seat for
    which it holds neither leads nor plays in that trick (tricks of fewer cards)."""
    actor: RuleHook | None = None
    """Seat rule (context ``seat``, the seat whose card is due): the seat that chooses the card
    (``current_player()``); None: the seat itself."""
    kind: str = "tricks"
    fused_legal: Callable[..., Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The generated ``legal(state)`` of the whole step (see `trickkit.engine.fused`), or None."""
    fused_apply: Callable[..., Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The generated ``apply(state, action)`` of the whole step (see `trickkit.engine.fused`), or None."""
    fused_start: Callable[..., Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The generated ``start(state, leader)`` of a trick whose seats may sit out (see
    `trickkit.engine.fused`), or None."""


@attrs.frozen
class AuctionStep:
    """An auction: from ``first``, each seat in turn makes a call (higher than the last call),
    passes, or (with ``double``) doubles an opponent's call or redoubles its own side's doubled
    call. It ends after ``ends_after_passes`` passes in a row following the last call (or double,
    or redouble), or after ``passed_out_after`` passes with no call (passed out); then it writes
    the winning call, its caller, the declarer and the doubling into the named table variables.

    The engine's state of a running auction is ``State.auction`` (see `trickkit.engine.auction`)."""

    first: RuleHook
    """The seat that calls first; the others follow clockwise."""
    calls: RuleHook
    """The calls in ascending order: a list of distinct texts, or of distinct numbers (evaluated
    as the step starts)."""
    template: str
    """The action text of a call, with ``{call}`` where the call goes (``bid {call}``)."""
    strain: RuleHook | None
    """What a call names (context ``call``), for the declarer; None: the call itself."""
    allowed: RuleHook | None
    """Whether a call may be made now (context ``call``); None: every higher call may."""
    pass_text: str
    """The action text of a pass."""
    double: bool
    """True when ``double`` and ``redouble`` are offered."""
    ends_after_passes: RuleHook
    """Passes in a row after the last call (or double, or redouble) that end the auction (0: the
    first call ends it)."""
    passed_out_after: RuleHook
    """Passes with no call that end the auction passed out."""
    contract: VariableSpec | None = None
    """Table variable set to the winning call (null when passed out), or None."""
    caller: VariableSpec | None = None
    """Table variable set to the seat that made the winning call (null when passed out), or None."""
    declarer: VariableSpec | None = None
    """Table variable set to the first seat of the caller's team to have called the winning call's
    strain (null when passed out), or None."""
    doubled: VariableSpec | None = None
    """Table variable set to 0, 1 (doubled) or 2 (redoubled), or None."""
    fixed_calls: tuple[Any, ...] | None = None
    """The calls when they are known at load (a list written out, or made from parameters), else None."""
    kind: str = "auction"


KindsPasses = tuple[Callable[..., Any], Callable[..., Any], bool]
"""The generated passes over a step's (or window's) action kinds: ``(legal, any, some kind has a
lookahead)`` (see `trickkit.dsl.compiler.Compiler.kinds_pass`)."""


@attrs.frozen
class ActionKind:
    """One kind of action a seat may choose on its turn, e.g. ``take {pile}`` or ``place {artifact} {row} {end}``.

    Its legal actions are every combination of its choices for which ``allowed`` holds
    (and, with ``lookahead``, after which the seat can still finish its turn).
    """

    name: str
    """The kind's name (its key in ``actions``); by default also the verb its text starts with."""
    template: str
    """Text with ``{choice}`` placeholders, e.g. ``'take {pile}'``."""
    choice_names: tuple[str, ...]
    """Names of the choices, in template order; the hooks see them as context names."""
    choice_types: tuple[str, ...]
    """DSL type of each choice (``card``, ``int``, ``str``)."""
    domains: tuple[RuleHook, ...]
    """Hook per choice giving the list of values to try."""
    allowed: RuleHook
    """Card-player test: may the current seat take this action with these choices now?"""
    effect: Hook
    """What the action does."""
    reason: RuleHook | None
    """Why it is refused (text), for error messages."""
    lookahead: bool | RuleHook
    """Legal only if the seat can still act afterwards or its turn has ended (no dead ends).
    A hook (called with the choices) limits the check to the combinations where it holds."""
    opens: int | None = None
    """Index of the reaction window this action opens once its effect has run, or None."""
    guard: RuleHook | None = None
    """The conditions of ``allowed`` that do not depend on the choices (checked once per decision)."""
    description: str = ""
    """What the action means, in words, for players (``trickkit play``)."""
    choice_test: Hook | None = None
    """The conditions of ``allowed`` that name a choice: with ``guard`` passed, ``allowed``
    holds exactly when this does (None: test ``allowed`` itself)."""
    combo_filter: Any = None
    """That test over every combination at once (generated, see
    `trickkit.dsl.compiler.Compiler.combo_filter`); ``"all"`` when nothing is left to test,
    None to test each combination with ``choice_test``/``allowed``."""
    combo_first: Any = None
    """The same, stopping at the first combination that passes (to ask whether any does)."""
    private: tuple[str, ...] = ()
    """Choices that only the acting seat sees: every other seat sees ``?`` in their place
    (``priestess ? 2``); see `trickkit.engine.privacy`."""
    verb: str = ""
    """The first word of its texts: ``verb:`` if given (several kinds may share one, e.g.
    ``play {card}`` and ``play {card} {suit}``), else ``name``."""
    private_kind: bool = False
    """The whole action is private (``private: true``): every other seat sees only its verb
    (``pass ?``)."""
    repeats: tuple[bool, ...] = ()
    """Per choice: may its rule give a value twice (then the engine keeps the first of equal
    values, so no two legal actions are alike)? ``()`` when no choice may (a zone, a
    ``range``, distinct values written out)."""


@attrs.frozen
class ReactionWindow:
    """After an action, other seats in order may respond; the first response closes the window.

    If every responder passes (or cannot respond), ``resolve`` runs: the action takes effect.
    """

    name: str
    """Window name, referenced by an action kind's ``opens``."""
    responders: RuleHook | None
    """Seats allowed to respond, in order (default: every other seat from the player's left)."""
    kinds: tuple[ActionKind, ...]
    """The responses; taking any of them closes the window without ``resolve``."""
    resolve: RuleHook | None
    """What happens when nobody responded."""
    passes: KindsPasses | None = None
    """The generated passes over ``kinds``, as `TurnStep.passes`."""


@attrs.frozen
class TurnStep:
    """Seats take turns clockwise from ``first``; each turn is one or more actions of the declared kinds,
    until an effect calls ``end_turn()``. The step ends when ``until`` holds (checked as the step
    starts, after every action and after each start-of-turn block), or when a turn has ended and
    ``until_after_turn`` holds."""

    first: RuleHook
    until: RuleHook
    kinds: tuple[ActionKind, ...]
    windows: tuple[ReactionWindow, ...] = ()
    on_turn_start: RuleHook | None = None
    after_action: RuleHook | None = None
    kind: str = "turns"
    until_after_turn: RuleHook | None = None
    """Checked only once a turn has ended, before the next one starts (None: not given)."""
    passes: KindsPasses | None = None
    """The generated passes over ``kinds``: ``(legal, any, some kind has a lookahead)`` (see
    `trickkit.dsl.compiler.Compiler.kinds_pass`), or None when some kind needs the engine's
    general path (`trickkit.engine.turns`)."""
    fused_next: Callable[..., Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The generated ``next(state) -> bool`` run once a turn has ended: ``until_after_turn``,
    then the next turn started with its ``on_turn_start`` (see `trickkit.engine.fused`), or None."""


@attrs.frozen
class ChooseStep:
    """Every seat in turn, from ``first``, chooses ``count`` cards of its ``source`` zone (one
    decision per card, ``VERB CARD``) and puts them into its ``to`` zone. With ``simultaneous``,
    nobody sees what another chose (its ``to`` zone, its action texts) until every seat has
    chosen: then the choices are revealed together. A seat with no card it may choose is skipped."""

    verb: str
    """The action's verb: ``pick`` gives actions ``pick 55``."""
    source: ZoneSpec
    """The seat zone the cards are chosen from (``from:``, default ``hand``)."""
    to: ZoneSpec
    """The seat zone the chosen cards go to (the end of it)."""
    count: RuleHook
    """Cards each seat chooses (evaluated as the step starts)."""
    allowed: RuleHook | None
    """Card test: may the current seat choose ``card``? (None: every card may be chosen.)"""
    first: RuleHook
    """The seat that chooses first; the others follow clockwise."""
    simultaneous: bool
    kind: str = "choose"


@attrs.frozen
class RepeatStep:
    """The start of a ``repeat:`` block: the steps up to its `RepeatEnd` run again and again,
    ``count`` times (evaluated once, as the block starts) and/or until ``until`` holds
    (checked before every pass, the first included). The steps of a round are kept flat:
    the block is this marker, its steps, and the end marker."""

    slot: int
    """Index of this block's pass counter in ``State.passes``."""
    count: RuleHook | None
    until: RuleHook | None
    end: int
    """Index (in ``Rules.steps``) of the block's `RepeatEnd`."""
    kind: str = "repeat"


@attrs.frozen
class RepeatEnd:
    """The end of a ``repeat:`` block: another pass starts at ``start + 1``, or the round goes on."""

    slot: int
    count: RuleHook | None
    until: RuleHook | None
    start: int
    """Index (in ``Rules.steps``) of the block's `RepeatStep`."""
    kind: str = "repeat_end"


@attrs.frozen
class WhenStep:
    """``when:`` beside a step's kind: the step (a whole ``repeat:`` block for a repeat) runs only
    when ``condition`` holds as it starts; otherwise the round goes on after it. Kept flat like
    a repeat: this marker, then the step it guards."""

    condition: RuleHook
    end: int
    """Index (in ``Rules.steps``) of the guarded step's last entry (a block's `RepeatEnd`)."""
    kind: str = "when"


STEP_CONDITION = "when"
"""The key beside a step's kind that makes the step conditional (``- when: ...`` / ``  effect: ...``)."""


def step_parts(item: dict[str, Any]) -> tuple[str, Any]:
    """``(kind, spec)`` of a round's step item, its ``when:`` condition aside (the first other key)."""
    for key, spec in item.items():
        if key != STEP_CONDITION:
            return key, spec
    return STEP_CONDITION, item.get(STEP_CONDITION)


MAX_REPEAT_NESTING = 8
"""Deepest nesting of ``repeat:`` blocks in a round."""


@attrs.frozen
class EffectStep:
    """Run a DSL block once (e.g. scoring a round)."""

    block: RuleHook
    kind: str = "effect"


Step = (
    DealStep
    | BidStep
    | AuctionStep
    | TrickStep
    | TurnStep
    | ChooseStep
    | RepeatStep
    | RepeatEnd
    | WhenStep
    | EffectStep
)
"""One compiled step of a round (a ``repeat:`` block is a `RepeatStep`, its steps and a `RepeatEnd`)."""


@attrs.frozen
class Rules:
    """Everything a Game needs, compiled from one ruleset document."""

    name: str
    title: str
    source: str
    num_players: int
    players_min: int
    players_max: int
    players_default: int
    params: dict[str, Any]
    deck: Deck
    seat_zones: tuple[ZoneSpec, ...]
    table_zones: tuple[ZoneSpec, ...]
    seat_vars: tuple[VariableSpec, ...]
    table_vars: tuple[VariableSpec, ...]
    steps: tuple[Any, ...]
    """The round's steps, kept flat (each a `Step`; see `RepeatStep`)."""
    game_over: RuleHook
    score: RuleHook
    winners_highest: bool
    score_unit: str
    max_actions: int
    description: str = ""
    teams: tuple[tuple[int, ...], ...] = ()
    """The partnerships: a tuple of seat tuples, team 0 first (``teams:``). Without ``teams:``
    every seat is a team of its own: ``((0,), (1,), ...)``."""
    team_of: tuple[int, ...] = ()
    """The team number of each seat."""
    team_score: RuleHook | None = None
    """Hook (context ``team``): a team's score; None: the score of the team's first seat."""
    generated_source: str = attrs.field(default="", repr=False, eq=False)
    """The Python module generated from the ruleset's DSL texts (see `trickkit.dsl.compiler`)."""
    repeat_slots: int = 0
    """How many ``repeat:`` blocks the round has (each keeps a pass counter in the state)."""
    first_dealer: RuleHook | None = None
    """Hook: the seat that deals the first round (``first_dealer:``; None: seat 0)."""
    compiler: Compiler | None = attrs.field(default=None, repr=False, eq=False)
    """The `trickkit.dsl.compiler.Compiler` that generated the rules' code: a `trickkit.Game`
    plans its steps with it (fused step functions, `trickkit.engine.fused`); None: no planning."""


def step_where(step: Any) -> str:
    """``'file.yaml:124:14: $.round[2].turns'``: where a compiled step is written, for errors
    raised while it runs (found from the position of one of its rules).

    One line of printable text: generated code writes it in a ``#`` comment, and the file name
    (an ``extends`` path is ruleset text) may hold a newline that would end the comment."""
    for name in ("until", "winner", "options", "count", "block", "first", "leader", "condition"):
        where = getattr(getattr(step, name, None), "where", None)
        if isinstance(where, str) and ": " in where:
            at, path = where.split(": ", 1)
            return _printable(f"{at}: {path.rsplit('.', 1)[0] if path.endswith('.' + name) else path}")
    return f"a {getattr(step, 'kind', '?')} step"


def _printable(text: str) -> str:
    """``text`` with every unprintable character (newlines, carriage returns ...) escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


ALL_COMBINATIONS = "all"
"""`ActionKind.combo_filter` of a kind whose choices are never tested (every combination is allowed)."""
