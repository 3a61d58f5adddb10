"""Compiles a validated ruleset document into the frozen rule tables of a Game: meaning checks and DSL compilation.

Every problem found is collected with its file, line, column and YAML path; the caller
raises them together as one `trickkit.errors.RulesetError`.
"""

from __future__ import annotations

import operator
import re
from typing import Any

import attrs
import lark

from trickkit.dsl.builtins import STATE_NAMES
from trickkit.dsl.compiler import Budget, Compiler, DSLCompileError, Namespace, Symbol, card_filter, elem_type, is_list
from trickkit.dsl.hooks import _RUNTIME, Hook, make_hook
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.errors import DSLRuntimeError, Problem, RulesetError, did_you_mean, short_repr
from trickkit.rules.cards import Deck, build_deck
from trickkit.rules.source import Locator
from trickkit.rules.templates import template_problem
from trickkit.rules.textpos import block_position


class _Located(Exception):
    def __init__(self, path, message):
        self.path, self.message = tuple(path), message


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
    public_when: Any = None
    """Hook: while it holds, the zone is public whatever its visibility (e.g. open hands)."""


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


@attrs.frozen
class DealStep:
    """Collect every card, shuffle, deal ``count`` cards to each seat's ``to`` zone; the rest go to ``rest``."""

    count: Hook
    to: ZoneSpec
    rest: ZoneSpec
    kind: str = "deal"


@attrs.frozen
class BidStep:
    """Each seat in turn, from ``first``, chooses one of ``options`` into a seat variable."""

    variable: VariableSpec
    options: Hook
    first: Hook
    simultaneous: bool
    kind: str = "bid"
    reason: Hook | None = None
    """Why a bid is refused (context ``value``, the refused number): a text, or null for the
    engine's own message."""
    fused_legal: Any = attrs.field(default=None, eq=False, repr=False)
    """The generated ``legal(state)`` of the whole step (see `trickkit.engine.fused`), or None."""
    fused_apply: Any = attrs.field(default=None, eq=False, repr=False)
    """The generated ``apply(state, action)`` of the whole step (see `trickkit.engine.fused`), or None."""


@attrs.frozen
class TrickStep:
    """Play ``count`` tricks: each seat plays one card from its hand in turn; ``winner`` takes the trick."""

    count: Hook
    leader: Hook
    must_play_if_able: Hook
    """The follow duty (with a layered duty, its first test)."""
    always_allowed: Hook | None
    reason: Hook | None
    winner: Hook
    next_leader: Hook | None
    taken_to: ZoneSpec | None
    after_trick: Hook | None
    hand: ZoneSpec
    no_winner_to: ZoneSpec | None = None
    why: Hook | None = None
    """Text saying why the winner took the trick (for players; the engine never runs it)."""
    fallback_duties: tuple = ()
    """A layered duty's later card tests, in order (``must_play_if_able: [a, b, c]`` gives ``(b, c)``):
    when no card in hand passes the ones before, the first that some card passes decides."""
    kind: str = "tricks"
    fused_legal: Any = attrs.field(default=None, eq=False, repr=False)
    """The generated ``legal(state)`` of the whole step (see `trickkit.engine.fused`), or None."""
    fused_apply: Any = attrs.field(default=None, eq=False, repr=False)
    """The generated ``apply(state, action)`` of the whole step (see `trickkit.engine.fused`), or None."""


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
    domains: tuple
    """Hook per choice giving the list of values to try."""
    allowed: Hook
    """Card-player test: may the current seat take this action with these choices now?"""
    effect: Hook
    """What the action does."""
    reason: Hook | None
    """Why it is refused (text), for error messages."""
    lookahead: bool | Hook
    """Legal only if the seat can still act afterwards or its turn has ended (no dead ends).
    A hook (called with the choices) limits the check to the combinations where it holds."""
    opens: int | None = None
    """Index of the reaction window this action opens once its effect has run, or None."""
    guard: Hook | None = None
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


@attrs.frozen
class ReactionWindow:
    """After an action, other seats in order may respond; the first response closes the window.

    If every responder passes (or cannot respond), ``resolve`` runs: the action takes effect.
    """

    name: str
    """Window name, referenced by an action kind's ``opens``."""
    responders: Hook | None
    """Seats allowed to respond, in order (default: every other seat from the player's left)."""
    kinds: tuple[ActionKind, ...]
    """The responses; taking any of them closes the window without ``resolve``."""
    resolve: Hook | None
    """What happens when nobody responded."""
    passes: tuple | None = None
    """The generated passes over ``kinds``, as `TurnStep.passes`."""


@attrs.frozen
class TurnStep:
    """Seats take turns clockwise from ``first``; each turn is one or more actions of the declared kinds,
    until an effect calls ``end_turn()``. The step ends when ``until`` holds (checked after every action)."""

    first: Hook
    until: Hook
    kinds: tuple[ActionKind, ...]
    windows: tuple[ReactionWindow, ...] = ()
    on_turn_start: Hook | None = None
    after_action: Hook | None = None
    kind: str = "turns"
    passes: tuple | None = None
    """The generated passes over ``kinds``: ``(legal, any, some kind has a lookahead)`` (see
    `trickkit.dsl.compiler.Compiler.kinds_pass`), or None when some kind needs the engine's
    general path (`trickkit.engine.turns`)."""


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
    count: Hook
    """Cards each seat chooses (evaluated as the step starts)."""
    allowed: Hook | None
    """Card test: may the current seat choose ``card``? (None: every card may be chosen.)"""
    first: Hook
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
    count: Hook | None
    until: Hook | None
    end: int
    """Index (in ``Rules.steps``) of the block's `RepeatEnd`."""
    kind: str = "repeat"


@attrs.frozen
class RepeatEnd:
    """The end of a ``repeat:`` block: another pass starts at ``start + 1``, or the round goes on."""

    slot: int
    count: Hook | None
    until: Hook | None
    start: int
    """Index (in ``Rules.steps``) of the block's `RepeatStep`."""
    kind: str = "repeat_end"


MAX_REPEAT_NESTING = 8
"""Deepest nesting of ``repeat:`` blocks in a round."""


@attrs.frozen
class EffectStep:
    """Run a DSL block once (e.g. scoring a round)."""

    block: Hook
    kind: str = "effect"


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
    params: dict
    deck: Deck
    seat_zones: tuple[ZoneSpec, ...]
    table_zones: tuple[ZoneSpec, ...]
    seat_vars: tuple[VariableSpec, ...]
    table_vars: tuple[VariableSpec, ...]
    steps: tuple
    game_over: Hook
    score: Hook
    winners_highest: bool
    score_unit: str
    max_actions: int
    description: str = ""
    teams: tuple = ()
    """The partnerships: a tuple of seat tuples, team 0 first (``teams:``). Without ``teams:``
    every seat is a team of its own: ``((0,), (1,), ...)``."""
    team_of: tuple = ()
    """The team number of each seat."""
    team_score: Any = None
    """Hook (context ``team``): a team's score; None: the score of the team's first seat."""
    generated_source: str = attrs.field(default="", repr=False, eq=False)
    """The Python module generated from the ruleset's DSL texts (see `trickkit.dsl.compiler`)."""
    repeat_slots: int = 0
    """How many ``repeat:`` blocks the round has (each keeps a pass counter in the state)."""
    compiler: Any = attrs.field(default=None, repr=False, eq=False)
    """The `trickkit.dsl.compiler.Compiler` that generated the rules' code: a `trickkit.Game`
    plans its steps with it (fused step functions, `trickkit.engine.fused`); None: no planning."""


def step_where(step) -> str:
    """``'file.yaml:124:14: $.round[2].turns'``: where a compiled step is written, for errors
    raised while it runs (found from the position of one of its rules).

    One line of printable text: generated code writes it in a ``#`` comment, and the file name
    (an ``extends`` path is ruleset text) may hold a newline that would end the comment."""
    for name in ("until", "winner", "options", "count", "block", "first", "leader"):
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


def _expr_where(loc: Locator, path) -> str:
    # through problem(), so a rule inherited from a parent ruleset names the parent's file
    p = loc.problem(tuple(path), "")
    return f"{p.file}:{p.line}:{p.column}: {p.path}"


class RulesetCompiler:
    """Turns one validated document into `Rules`, collecting located problems."""

    def __init__(self, doc: dict, loc: Locator, players: int | None, overrides: dict):
        self.doc, self.loc = doc, loc
        self.problems: list[Problem] = []
        self.players = players
        self.overrides = overrides
        self._splits: dict = {}  # (allowed, choices) -> its split: each action kind asks four times

    def problem(self, path, message) -> _Located:
        return _Located(path, message)

    def add(self, path, message):
        self.problems.append(self.loc.problem(tuple(path), message))

    def add_dsl(self, path, error, text: str, message: str) -> None:
        """A DSL error, located at the line of the mistake inside a ``|``/``>`` block when it can be."""
        problem = self.loc.problem(tuple(path), message)
        if getattr(error, "line", 0) and problem.line:
            at = block_position(problem.file, problem.line, problem.column, text, error.line, error.column)
            if at is not None:
                problem = attrs.evolve(problem, line=at[0], column=at[1])
        self.problems.append(problem)

    def compile(self) -> Rules:
        doc = self.doc
        pl = doc["players"]
        n = self.players if self.players is not None else pl.get("default", pl["min"])
        if not isinstance(n, int) or isinstance(n, bool) or not pl["min"] <= n <= pl["max"]:
            self.add(("players",), f"{doc['name']} is for {pl['min']}-{pl['max']} players, not {short_repr(n)}")
            n = pl.get("default", pl["min"])
        params = self._params()
        groups = []
        for gi, group in enumerate(doc["deck"]):  # a group with `when` is in the deck only if it holds
            if "when" not in group or self._load_time_value(("deck", gi, "when"), group["when"], n, params, "bool"):
                groups.append(group)
        try:
            deck = build_deck(groups, self.problem)
            self.deck_built = deck
            # the texts each attribute can take with every optional group in: a rule may name a
            # card that only some parameter values put in the deck (a Kraken, a Loot card)
            every = build_deck(doc["deck"], self.problem, one_deck=False) if len(groups) < len(doc["deck"]) else deck
        except _Located as e:
            self.add(e.path, e.message)
            raise RulesetError(self.problems) from None
        attr_values: dict[str, frozenset] = {}
        for attr, table in list(every.attrs.items()) + list(every.face_attrs.items()):  # printed or as played
            attr_values[attr] = attr_values.get(attr, frozenset()) | {v for v in table if isinstance(v, str)}
        attr_values["mode"] = frozenset(v for v in every.face_mode if isinstance(v, str))
        zones = self._zones(n, params)
        team_of = self._teams(n, params)
        self.team_of = team_of
        num_teams = max(team_of) + 1
        seat_vars, table_vars = self._variables("seat_variables"), self._variables("table_variables")
        team_vars = self._variables("team_variables", len(table_vars), num_teams)
        table_vars = table_vars + team_vars
        self.zones = zones
        symbols = self._symbols(n, params, zones, seat_vars, table_vars)
        definitions, def_params = {}, {}
        for key, text in (doc.get("definitions") or {}).items():
            name, head_params = _definition_head(key)
            if name in symbols:
                sym = symbols[name]  # say what it hides: a built-in, or the ruleset's own zone, variable, ...
                what = (
                    "a built-in name"
                    if sym.kind in ("const", "state") and sym.doc != "parameter"
                    else f"the {sym.doc} {name!r} of this ruleset"
                )
                self.add(("definitions", key), f"definition {name!r} hides {what}; choose another name")
            elif name in _DSL_WORDS:  # `len(x): 7` would change every len() of the rules, parent's included
                self.add(("definitions", key), f"definition {name!r} hides {_DSL_WORDS[name]}; choose another name")
            if head_params:
                def_params[name] = head_params
            try:
                definitions[name] = parse(_text(text), "expr")
            except DSLSyntaxError as e:
                self.add_dsl(("definitions", key), e, _text(text), _dsl_message(e, _text(text)))
        kinds, choice_context = self._action_kind_names()
        self.ns = Namespace(
            symbols=symbols,
            card_attrs=deck.attrs,
            face_attrs=deck.face_attrs,
            face_mode=deck.face_mode,
            definitions=definitions,
            num_players=n,
            action_kinds=frozenset(kinds),
            definition_params=def_params,
            attr_aliases={"suit": self._suit_codes()},
            attr_values=attr_values,
            variable_nullable=frozenset(
                v.name for v in seat_vars + table_vars if v.initial is None or v.per_team and v.initial[0] is None
            ),
            team_of=team_of,
        )
        self.compiler = Compiler(self.ns)
        for key in doc.get("definitions") or {}:
            self.compiler.definition_where[_definition_head(key)[0]] = _expr_where(self.loc, ("definitions", key))
        zones = [
            attrs.evolve(z, public_when=self.expr(("zones", z.name, "public_when"), (), "bool"))
            if "public_when" in doc["zones"][z.name]
            else z
            for z in zones
        ]
        self.zones = zones
        for key in doc.get("definitions") or {}:  # report errors inside definitions once, where they are written
            name, head_params = _definition_head(key)
            if name in definitions:
                self.definition_check(("definitions", key), name, head_params, ANY_CONTEXT + choice_context)
        self.seat_zone_by_name = {z.name: z for z in zones if z.per_seat}
        self.repeat_slots = 0
        steps = tuple(self._flat_steps(("round",), doc["round"], [], 0))
        game_over = self.expr(("game_over",), (), "bool")
        score = _bounded_score(self.expr(("score",), (("seat", "int"),), "int"))
        team_score = (
            _bounded_score(self.expr(("team_score",), (("team", "int"),), "int")) if "team_score" in doc else None
        )
        if "team_score" in doc and "teams" not in doc:
            self.add(
                ("team_score",),
                "team_score needs teams: (without them every seat is its own team and score is the team's score)",
            )
        if self.problems:
            raise RulesetError(sorted(self.problems, key=lambda p: (p.line, p.column)))
        return Rules(
            name=doc["name"],
            title=doc["title"],
            source=doc.get("source", ""),
            num_players=n,
            players_min=pl["min"],
            players_max=pl["max"],
            players_default=pl.get("default", pl["min"]),
            params=params,
            deck=deck,
            seat_zones=tuple(z for z in zones if z.per_seat),
            table_zones=tuple(z for z in zones if not z.per_seat),
            seat_vars=seat_vars,
            table_vars=table_vars,
            steps=steps,
            game_over=game_over,
            score=score,
            winners_highest=doc.get("winners", "highest") == "highest",
            score_unit=doc.get("score_unit", "points"),
            max_actions=doc.get("max_actions", 100_000),
            description=doc.get("description", ""),
            teams=tuple(tuple(x for x in range(n) if team_of[x] == t) for t in range(num_teams)),
            team_of=team_of,
            team_score=team_score,
            generated_source=self.compiler.source(),
            repeat_slots=self.repeat_slots,
            compiler=self.compiler,
        )

    # -- pieces -------------------------------------------------------------------------
    def _params(self) -> dict:
        specs = self.doc.get("parameters") or {}
        values = {}
        for name, spec in specs.items():
            values[name] = spec["default"]
        for name, value in self.overrides.items():
            if name not in specs:
                self.add(
                    ("parameters",),
                    f"unknown parameter {short_repr(name)}{did_you_mean(str(name), specs)}"
                    f" (parameters: {', '.join(specs) or 'none'})",
                )
                continue
            values[name] = value
        for name, spec in specs.items():
            v = values[name]
            where = ("parameters", name, "default") if name not in self.overrides else ("parameters", name)
            t = spec["type"]
            ok = {
                "int": lambda x: isinstance(x, int) and not isinstance(x, bool),
                "bool": lambda x: isinstance(x, bool),
                "str": lambda x: isinstance(x, str),
                "choice": lambda x: x in spec.get("choices", []),
            }[t](v)
            if not ok:
                expected = f"one of {short_repr(spec.get('choices'))}" if t == "choice" else t
                self.add(where, f"parameter {name!r} must be {expected}, got {short_repr(v)}")
            elif t == "int" and v.bit_length() > _MAX_INT_BITS:  # it could not even be printed
                self.add(where, f"parameter {name!r} is too large ({short_repr(v)})")
            elif isinstance(v, str) and _has_surrogate(v):
                self.add(where, f"parameter {name!r} holds a lone surrogate (not a character): {short_repr(v)}")
            elif t == "int":
                if "min" in spec and v < spec["min"] or "max" in spec and v > spec["max"]:
                    self.add(
                        where,
                        f"parameter {name!r} must be in {spec.get('min', '-inf')}..{spec.get('max', 'inf')}, got {v!r}",
                    )
        return values

    def _zones(self, n: int, params: dict) -> list[ZoneSpec]:
        zones, seat_i, table_i = [], 0, 0
        for name, spec in self.doc["zones"].items():
            per_seat = spec.get("owner", "table") == "seat"
            vis = spec.get("visibility", "public")
            if vis == "owner" and not per_seat:
                self.add(("zones", name, "visibility"), "visibility 'owner' needs owner: seat")
            count = 0
            if "count" in spec:
                if per_seat:
                    self.add(("zones", name, "count"), "a zone family (count) must be owned by the table")
                count = self._load_time_int(("zones", name, "count"), spec["count"], n, params, minimum=1)
                if count > MAX_ZONE_FAMILY:
                    self.add(
                        ("zones", name, "count"),
                        f"a zone family has at most {MAX_ZONE_FAMILY:,} zones, got {short_repr(count)}",
                    )
                    count = 1
            zones.append(ZoneSpec(name, seat_i if per_seat else table_i, per_seat, vis, count))
            if per_seat:
                seat_i += 1
            else:
                table_i += max(count, 1)
        return zones

    def _load_time_int(self, path, text, n, params, minimum=0) -> int:
        """Evaluate an int expression that may use only parameters and ``num_players``."""
        value = self._load_time_value(path, text, n, params, "int")
        if value is None:
            return minimum
        if not isinstance(value, int) or value < minimum:
            self.add(path, f"must be an integer >= {minimum}, got {value!r}")
            return minimum
        return value

    def _load_time_value(self, path, text, n, params, want, context=None):
        """Evaluate an expression at load time: it may use only parameters and ``num_players``
        (and the names of ``context``, a dict of int values, e.g. ``{"seat": 2}``)."""
        context = context or {}
        symbols = {"num_players": Symbol("const", "int", n)}
        for k, v in params.items():
            symbols[k] = Symbol("const", "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "str", v)
        compiler = Compiler(Namespace(symbols=symbols, card_attrs={}, face_attrs={}, face_mode=(), num_players=n))
        try:
            fn, size, _ = compiler.expression(_text(text), tuple((k, "int") for k in context), want)
            frame = [None] * size
            frame[: len(context)] = list(context.values())
            return fn(Budget(), frame)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(path, _dsl_message(e, _text(text)) + " (only parameters and num_players are known here)")
            return None
        except _RUNTIME as e:  # e.g. 1 // 0, or a runaway aggregate, evaluated at load time
            self.add(path, f"{type(e).__name__}: {e} in {' '.join(_text(text).split())!r}")
            return None

    def _suit_codes(self) -> dict[str, str]:
        """Suit code -> suit name of the deck's groups (``H`` -> ``hearts``), for suggestions."""
        codes = {}
        for group in self.doc.get("deck") or []:
            suits = group.get("suit") if isinstance(group, dict) else None
            if isinstance(suits, dict):
                codes.update({str(k): v for k, v in suits.items() if isinstance(v, str)})
        return codes

    def _teams(self, n: int, params: dict) -> tuple[int, ...]:
        """The team number of each seat, from ``teams:`` (a list of seat lists, or a rule with
        context ``seat`` evaluated at load); without it every seat is its own team."""
        spec = self.doc.get("teams")
        if spec is None:
            return tuple(range(n))
        if isinstance(spec, list):
            if len(spec) > n or any(len(m) > n for m in spec):  # also keeps a hostile list's errors few
                self.add(
                    ("teams",),
                    f"{len(spec)} teams, the largest of {max(map(len, spec))} seats, for a table "
                    f"of {n}: list every seat 0..{n - 1} in exactly one team",
                )
                return tuple(range(n))
            team_of: list = [None] * n
            for t, members in enumerate(spec):
                for k, x in enumerate(members):
                    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < n:
                        self.add(("teams", t, k), f"a team lists seats 0..{n - 1}, got {short_repr(x)}")
                    elif team_of[x] is not None:
                        self.add(("teams", t, k), f"seat {x} is in two teams ({team_of[x]} and {t})")
                    else:
                        team_of[x] = t
            missing = [x for x in range(n) if team_of[x] is None]
            if missing:
                self.add(
                    ("teams",),
                    f"with {n} seats every seat needs a team; no team lists seat"
                    f"{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}",
                )
                return tuple(range(n))
            return tuple(team_of)
        values = []
        for seat in range(n):  # a rule: the team number of `seat`, from parameters and num_players only
            before = len(self.problems)
            v = self._load_time_value(("teams",), spec, n, params, "int", context={"seat": seat})
            if v is None:
                if len(self.problems) == before:
                    self.add(("teams",), f"the teams rule gives seat {seat} no team (null)")
                return tuple(range(n))
            values.append(v)
        numbers = sorted(set(values))  # teams numbered from 0 in the order of the rule's numbers
        return tuple(numbers.index(v) for v in values)

    def _variables(self, key, start: int = 0, teams: int = 0) -> tuple[VariableSpec, ...]:
        """The variables declared under ``key``; team variables (``teams`` > 0) get indices from
        ``start`` (after the table variables) and a list of ``teams`` values as initial value."""
        out = []
        for i, (name, spec) in enumerate((self.doc.get(key) or {}).items(), start):
            if not isinstance(spec, dict):
                spec = {"initial": spec}
            reset = spec.get("reset", "game")
            initial = spec.get("initial", 0)
            typ = VARIABLE_TYPES.get(spec.get("type"), _vtype(initial))
            if "type" in spec and initial is not None and not _assignable_initial(initial, typ):
                self.add(
                    (key, name, "initial"), f"initial value {initial!r} is not of the declared type {spec['type']!r}"
                )
            if teams:
                out.append(
                    VariableSpec(
                        name,
                        i,
                        [initial] * teams,
                        reset == "round",
                        reset == "turn",
                        "list[any]" if typ.startswith("list") else f"list[{typ}]",
                        internal=spec.get("internal") is True,
                        per_team=True,
                    )
                )
                continue
            out.append(
                VariableSpec(
                    name, i, initial, reset == "round", reset == "turn", typ, internal=spec.get("internal") is True
                )
            )
        return tuple(out)

    def _symbols(self, n, params, zones, seat_vars, table_vars) -> dict[str, Symbol]:
        symbols: dict[str, Symbol] = {}

        def put(name, sym, path):
            if name in symbols:
                self.add(path, f"name {name!r} is already used by a {symbols[name].kind.replace('_', ' ')}")
            symbols[name] = sym

        values = {
            "seats": list(range(n)),
            "num_players": n,
            "deck_size": len(self.deck_built),
            "num_teams": max(self.team_of) + 1,
        }
        getters = {
            "round": operator.attrgetter("round"),
            "dealer": operator.attrgetter("dealer"),
            "trick": operator.attrgetter("trick"),
            "current_player": operator.attrgetter("current"),
            # outside a reaction window the seat to act is the seat whose turn it is
            "turn_player": lambda s: s.turn_player if s.window >= 0 else s.current,
        }
        codes = {
            "round": "s.round",
            "dealer": "s.dealer",
            "trick": "s.trick",
            "current_player": "s.current",
            "turn_player": "(s.turn_player if s.window >= 0 else s.current)",
        }  # the same, for generated code
        for name, entry in STATE_NAMES.items():  # the registry documents them; here they get their values
            if name in values:
                symbols[name] = Symbol("const", entry.type, values[name], entry.doc)
            else:
                symbols[name] = Symbol("state", entry.type, getters[name], entry.doc, codes[name])
        specs = self.doc.get("parameters") or {}
        for name, value in params.items():
            declared = specs.get(name, {}).get("type")  # the declared type, even if a bad value was given
            t = {"int": "int", "bool": "bool", "str": "str"}.get(declared, "any")
            if declared == "choice":  # the type its choices share: `sequence == 3` is then a type error
                choices = specs[name].get("choices")
                kinds = {c.__class__ for c in choices} if isinstance(choices, list) and choices else set()
                t = {frozenset({str}): "str", frozenset({int}): "int", frozenset({bool}): "bool"}.get(
                    frozenset(kinds), "any"
                )
                if t != "any" and value.__class__ not in kinds:
                    t = "any"  # a bad value (reported elsewhere) must not be typed by its choices
                texts = tuple(choices) if t == "str" else None  # a text compared with it must be a choice
            else:
                texts = None
            put(name, Symbol("const", t, value, "parameter", choices=texts), ("parameters", name))
        for z in zones:
            if z.count:
                put(z.name, Symbol("zone_family", "list[zone]", (z.index, z.count), "zone family"), ("zones", z.name))
            else:
                put(
                    z.name,
                    Symbol("seat_zone" if z.per_seat else "table_zone", "zone", z.index, "zone"),
                    ("zones", z.name),
                )
        for v in seat_vars:
            put(v.name, Symbol("seat_var", v.type, v.index, "seat variable"), ("seat_variables", v.name))
        for v in table_vars:
            if v.per_team:  # its symbol has the type of one team's value
                put(v.name, Symbol("team_var", elem_type(v.type), v.index, "team variable"), ("team_variables", v.name))
            else:
                put(v.name, Symbol("table_var", v.type, v.index, "table variable"), ("table_variables", v.name))
        return symbols

    def expr(self, path, context, want, default=None, memoise=False) -> Hook | None:
        """Compile the rule at ``path`` as a hook (None, with a problem recorded, if it fails).

        ``memoise`` for rules evaluated while the engine holds a state still and tests many
        candidates (cards, action choices); see `trickkit.dsl.compiler.Compiler.expression`.
        """
        node = self.doc
        try:
            for k in path:
                node = node[k]
        except (KeyError, IndexError, TypeError):
            if default is None:
                return None
            node = default
        text = _text(node)
        where = _expr_where(self.loc, path)
        try:
            fn, size, typ = self.compiler.expression(text, context, want, memoise, where)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add_dsl(path, e, text, _dsl_message(e, text))
            return None
        hook = make_hook(fn, size, len(context), where, text)
        hook.type = typ
        hook.elem_type = elem_type(typ)
        static = typ == want or want == "list" and typ != "any" and is_list(typ)  # the type is known at load
        if (
            want == "list[int]"
            or want in _RESULT_CHECKS
            and not (static and (want == "play" or not getattr(fn, "nullable", True)))
        ):
            hook = _checked(hook, want)  # the engine relies on the type: check it where the rule is named
        return hook

    def card_test(self, path, context, default=None) -> Hook | None:
        """A bool rule about a card, with a staged hand filter (``hook.filter``) for the engine."""
        hook = self.expr(path, context, "bool", default, memoise=True)
        if hook is not None:
            hook.filter, hook.filter_size = card_filter(self.compiler, hook.text, context) or (None, 0)
        return hook

    def _always_allowed(self, p, spec, context) -> Hook | None:
        """``always_allowed`` as a card test, with ``hook.either_filter``: the generated hand
        filter of "must_play_if_able or always_allowed" (the playable cards when some card
        must be played)."""
        if "always_allowed" not in spec:
            return None
        hook = self.card_test(p + ("always_allowed",), context)
        if hook is not None:
            try:
                must = parse(_text(_first_duty(spec.get("must_play_if_able", "true"))), "expr")
                either = lark.Tree("or_", [must, parse(hook.text, "expr")])
                hook.either_filter = self.compiler.card_filter(either, context)[0]
            except (DSLSyntaxError, DSLCompileError):
                hook.either_filter = None  # reported where the rules themselves are compiled
        return hook

    def _duty(self, p, spec, context) -> tuple:
        """``must_play_if_able`` as card tests: one, or a layered duty's tests in order."""
        declared = spec.get("must_play_if_able", "true")
        if isinstance(declared, list):
            return tuple(self.card_test(p + ("must_play_if_able", i), context) for i in range(len(declared)))
        return (self.card_test(p + ("must_play_if_able",), context, "true"),)

    def definition_check(self, path, name, params, context) -> None:
        """Compile a definition once where it is written, so its errors point there."""
        text = name if not params else f"{name}({', '.join(params)})"
        call_context = context + tuple((p, "any") for p in params)
        try:
            self.compiler.context_reads(parse(text, "expr"), call_context)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(
                path, _dsl_message(e, _text(self.doc["definitions"][path[-1]])).replace(f"in definition {name!r}: ", "")
            )

    def block(self, path, context) -> Hook | None:
        node = self.doc
        for k in path:
            node = node[k]
        text = _text(node)
        where = _expr_where(self.loc, path)
        try:
            fn, size = self.compiler.block(text, context, where)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(path, _dsl_message(e, text))
            return None
        return make_hook(fn, size, len(context), where, text)

    def zone(self, path, name, per_seat=None) -> ZoneSpec | None:
        for z in self.zones:
            if z.name == name:
                if per_seat is not None and z.per_seat != per_seat:
                    self.add(path, f"zone {name!r} must be owned by {'each seat' if per_seat else 'the table'}")
                return z
        self.add(path, f"unknown zone {name!r}{did_you_mean(name, [z.name for z in self.zones])}")
        return None

    def _flat_steps(self, base, items, out: list, depth: int) -> list:
        """Compile the steps at ``base`` into ``out``; a ``repeat:`` block becomes a `RepeatStep`,
        its steps and a `RepeatEnd` (so the state's step index stays a plain index)."""
        for i, item in enumerate(items):
            ((kind, spec),) = item.items()
            if kind != "repeat":
                compiled = self._step(i, item, base)
                if compiled is not None:
                    out.append(compiled)
                continue
            p = base + (i, "repeat")
            if depth >= MAX_REPEAT_NESTING:
                self.add(p, f"repeat blocks nest at most {MAX_REPEAT_NESTING} deep")
                continue
            if "count" not in spec and "until" not in spec:
                self.add(p, "a repeat needs 'count' (how many passes) or 'until' (when to stop), or both")
            count = self.expr(p + ("count",), (), "int") if "count" in spec else None
            until = self.expr(p + ("until",), (), "bool") if "until" in spec else None
            slot, start = self.repeat_slots, len(out)
            self.repeat_slots += 1
            out.append(None)  # the start marker, once the end is known
            self._flat_steps(p + ("steps",), spec["steps"], out, depth + 1)
            out[start] = RepeatStep(slot, count, until, end=len(out))
            out.append(RepeatEnd(slot, count, until, start=start))
        return out

    def _step(self, i, step, base=("round",)):
        ((kind, spec),) = step.items()
        p = base + (i, kind)
        if kind == "effect":
            return EffectStep(self.block(p, ()))
        if kind == "deal":
            count = self.expr(p + ("count",), (), "int")
            fixed = getattr(getattr(count, "fn", None), "const_value", None)  # parameters only: known now
            seats, deck = self.ns.num_players, len(self.deck_built)
            if fixed.__class__ is int and not 0 <= fixed * seats <= deck:
                self.add(
                    p + ("count",),
                    f"cannot deal {fixed} cards to each of {seats} seats from {deck} cards "
                    f"(with these parameters and {seats} players)",
                )
            return DealStep(
                count,
                self.zone(p + ("to",), spec.get("to", "hand"), True),
                self.zone(p + ("rest",), spec.get("rest", "stock"), False),
            )
        if kind == "bid":
            var = next((v for v in self._all_seat_vars() if v.name == spec["variable"]), None)
            if var is None:
                self.add(
                    p + ("variable",),
                    f"unknown seat variable {spec['variable']!r}"
                    f"{did_you_mean(spec['variable'], [v.name for v in self._all_seat_vars()])}",
                )
            return BidStep(
                var,
                self.expr(p + ("options",), (), "list[int]"),
                self.expr(p + ("first",), (), "int", "left_of(dealer)"),
                spec.get("simultaneous", True),
                reason=self.expr(p + ("reason",), (("value", "int"),), None) if "reason" in spec else None,
            )
        if kind == "turns":
            return self._turns(p, spec)
        if kind == "choose":
            return self._choose(p, spec)
        if kind == "tricks":
            card = (("card", "card"),)
            winner = (("winner", "play"),)
            duty = self._duty(p, spec, card)
            return TrickStep(
                count=self.expr(p + ("count",), (), "int"),
                leader=self.expr(p + ("leader",), (), "int", "left_of(dealer)"),
                must_play_if_able=duty[0],
                always_allowed=self._always_allowed(p, spec, card),
                reason=self.expr(p + ("reason",), card, None) if "reason" in spec else None,
                winner=self.expr(p + ("winner",), (), "play"),
                next_leader=self.expr(p + ("next_leader",), winner, "int") if "next_leader" in spec else None,
                taken_to=self.zone(p + ("taken_to",), spec["taken_to"], True) if "taken_to" in spec else None,
                after_trick=self.block(p + ("after_trick",), winner) if "after_trick" in spec else None,
                hand=self.zone(p, spec.get("hand", "hand"), True),
                no_winner_to=self.zone(p + ("no_winner_to",), spec["no_winner_to"], False)
                if "no_winner_to" in spec
                else None,
                why=self.expr(p + ("why",), winner, None) if "why" in spec else None,
                fallback_duties=duty[1:],
            )
        self.add(p, f"unknown step kind {kind!r}")  # the schema normally catches this
        return None

    def _choose(self, p, spec) -> ChooseStep:
        verb = spec.get("verb", "choose")
        if verb in ("play", "bid", "pass"):
            self.add(p + ("verb",), f"the verb {verb!r} is taken by the engine's own actions; choose another")
        if spec.get("from", "hand") == spec["to"]:
            self.add(p + ("to",), f"the cards are chosen from {spec['to']!r}: put them into another seat zone")
        return ChooseStep(
            verb=verb,
            source=self.zone(p + ("from",), spec.get("from", "hand"), True),
            to=self.zone(p + ("to",), spec["to"], True),
            count=self.expr(p + ("count",), (), "int", "1"),
            allowed=self.card_test(p + ("allowed",), (("card", "card"),)) if "allowed" in spec else None,
            first=self.expr(p + ("first",), (), "int", "left_of(dealer)"),
            simultaneous=spec.get("simultaneous", True),
        )

    def _action_kind_names(self):
        """Every action kind name, and every choice name (with a loose type) any definition may use."""
        kinds, context = [], []
        for step in _all_steps(self.doc["round"]):
            turns = step.get("turns") or {}
            groups = [turns.get("actions") or {}] + [
                w.get("actions") or {} for w in (turns.get("reactions") or {}).values()
            ]
            for group in groups:
                for name, spec in group.items():
                    kinds.append(name)
                    for choice in spec.get("choices") or {}:
                        if all(choice != c for c, _ in context):
                            context.append((choice, "any"))
        return kinds, tuple(context)

    def _turns(self, p, spec) -> TurnStep:
        window_names = list((spec.get("reactions") or {}))
        windows = []
        for wname, w in (spec.get("reactions") or {}).items():
            wp = p + ("reactions", wname)
            wkinds = self._action_kinds(wp, w["actions"], [])
            windows.append(
                ReactionWindow(
                    name=wname,
                    responders=self.expr(wp + ("responders",), (), "list[int]") if "responders" in w else None,
                    kinds=wkinds,
                    resolve=self.block(wp + ("resolve",), ()) if "resolve" in w else None,
                    passes=self._kinds_passes(wkinds),
                )
            )
        kinds = self._action_kinds(p, spec["actions"], window_names)
        return TurnStep(
            first=self.expr(p + ("first",), (), "int", "left_of(dealer)"),
            until=self.expr(p + ("until",), (), "bool", "false"),
            kinds=kinds,
            passes=self._kinds_passes(kinds),
            windows=tuple(windows),
            on_turn_start=self.block(p + ("on_turn_start",), ()) if "on_turn_start" in spec else None,
            after_action=self.block(p + ("after_action",), ()) if "after_action" in spec else None,
        )

    def _action_kinds(self, p, actions, window_names) -> tuple:
        kinds = []
        shapes: dict[tuple, str] = {}  # (verb, words in the text) -> the kind that has it
        for name, a in actions.items():
            ap = p + ("actions", name)
            template = a.get("text", name)
            choices = a.get("choices") or {}
            names = tuple(choices)
            bad = template_problem(template, None, "choice")
            if bad is not None:  # only {choice} fields: no format specs, conversions, attributes
                self.add(ap + ("text",), bad)
                template = name
            for placeholder in _placeholders(template):
                if placeholder not in choices:
                    self.add(
                        ap + ("text",),
                        f"placeholder {{{placeholder}}} is not a choice"
                        f"{did_you_mean(placeholder, choices)} (choices: {', '.join(choices) or 'none'})",
                    )
            for c in names if bad is None else ():
                if c not in _placeholders(template):  # two combinations would read the same
                    self.add(
                        ap + ("choices", c),
                        f"choice {c!r} does not appear in the action text {template!r}: "
                        f"add {{{c}}} to 'text', or two different actions would read the same",
                    )
            verb = a.get("verb", name)
            if template.split(" ")[0] != verb:
                said = "its verb" if "verb" in a else "its name"
                self.add(
                    ap + ("text",), f"the text of action {name!r} must start with {said} {verb!r}, got {template!r}"
                )
            shape = (verb, len(template.split(" ")))
            if shape in shapes:  # two kinds whose texts could read the same
                self.add(
                    ap + ("text",),
                    f"actions {shapes[shape]!r} and {name!r} both have texts of {shape[1]} words "
                    f"starting with {verb!r}: kinds sharing a verb need texts of different lengths",
                )
            shapes.setdefault(shape, name)
            domains, types = [], []
            for c in names:
                hook = self.expr(ap + ("choices", c), (), "list", memoise=True)
                if getattr(hook, "elem_type", None) == "zone":  # actions are values: a zone would be shared state
                    self.add(
                        ap + ("choices", c),
                        f"a choice cannot be a zone; offer its number instead, "
                        f"e.g. range(1, len({_text(a['choices'][c])}) + 1)",
                    )
                domains.append(hook)
                types.append(getattr(hook, "elem_type", "any"))
            context = tuple(zip(names, types))
            kinds.append(
                ActionKind(
                    name=name,
                    template=template,
                    choice_names=names,
                    choice_types=tuple(types),
                    domains=tuple(domains),
                    allowed=self.expr(ap + ("allowed",), context, "bool", "true", memoise=True),
                    effect=self.block(ap + ("effect",), context) if "effect" in a else _no_effect,
                    reason=self.expr(ap + ("reason",), context, None) if "reason" in a else None,
                    lookahead=self._lookahead(ap + ("lookahead",), context),
                    opens=self._window_index(ap + ("opens",), a.get("opens"), window_names),
                    guard=self._guard(ap + ("allowed",), a.get("allowed"), context),
                    choice_test=self._choice_test(ap + ("allowed",), a.get("allowed"), context),
                    combo_filter=self._combo_filter(a.get("allowed"), context),
                    combo_first=self._combo_filter(a.get("allowed"), context, first_only=True),
                    description=str(a.get("description", "")),
                    private=self._private(ap + ("private",), a.get("private", False), names, template),
                    verb=verb,
                    private_kind=a.get("private") is True,
                )
            )
        return tuple(kinds)

    def _kinds_passes(self, kinds) -> tuple | None:
        """The generated passes over a step's (or window's) action kinds, ``(legal, any, lookahead)``:
        one call per decision instead of several hook calls per kind (see
        `trickkit.dsl.compiler.Compiler.kinds_pass`). None when some kind needs the general
        path: a rule that did not compile, a combination test that is not generated, or a
        rule whose result type the engine checks at play time."""
        if self.problems or not kinds:
            return None
        specs = []
        for k in kinds:
            for hook in k.domains + ((k.guard,) if k.guard is not None else ()):
                if hook is None or getattr(hook, "checks", None) or hook.size:
                    return None
            if not k.domains:
                if getattr(k.allowed, "checks", None) or k.allowed.size:
                    return None
                flt = None
            elif k.combo_filter is ALL_COMBINATIONS:
                flt = "all"
            elif k.combo_filter is None:
                return None  # tested combination by combination (choice_test / allowed)
            else:
                flt = k.combo_filter
            specs.append(
                {
                    "guard": k.guard and k.guard.fn,
                    "domains": tuple(h.fn for h in k.domains),
                    "cards": tuple(t == "card" for t in k.choice_types),
                    "allowed": k.allowed.fn,
                    "where": k.allowed.where,
                    "filter": flt,
                }
            )
        deck = self.deck_built
        texts = deck.texts if len(set(deck.texts)) < len(deck.texts) else None
        firsts = []
        for spec, k in zip(specs, kinds):
            if spec["filter"] not in (None, "all"):
                firsts.append(dict(spec, filter=k.combo_first))
            else:
                firsts.append(spec)
        try:
            return (
                self.compiler.kinds_pass(specs, texts=texts),
                self.compiler.kinds_pass(firsts, first_only=True, texts=texts),
                any(bool(k.lookahead) for k in kinds),
            )
        except DSLCompileError:
            return None

    def _private(self, path, declared, names, template) -> tuple[str, ...]:
        """The choices other seats do not see: ``true`` is all of them, a list names them."""
        if declared is True:
            shown = tuple(n for n in names if n in _placeholders(template))
            if not shown:
                self.add(
                    path,
                    f"the action text {template!r} shows no choice, so there is nothing to hide "
                    f"(other seats always see the action's verb)",
                )
            return shown
        if not declared:
            return ()
        for i, choice in enumerate(declared):
            if choice not in names:
                self.add(
                    path + (i,),
                    f"{choice!r} is not a choice of this action{did_you_mean(choice, names)}"
                    f" (choices: {', '.join(names) or 'none'})",
                )
            elif choice not in _placeholders(template):
                self.add(
                    path + (i,),
                    f"choice {choice!r} is not in the action text {template!r}, so there is nothing to hide",
                )
        return tuple(c for c in declared if c in names)

    def _lookahead(self, path, context):
        """``lookahead`` as True/False when it is a constant, else as a hook over the choices."""
        hook = self.expr(path, context, "bool", "false")  # a wrong type is reported there
        if hook is None or hasattr(hook.fn, "const_value"):
            return bool(hook is not None and hook.fn.const_value)
        return hook

    @staticmethod
    def _and_terms(text):
        """The top-level ``and`` terms of a DSL text, in order (None if it does not parse)."""
        try:
            tree = parse(_text(text), "expr")
        except DSLSyntaxError:
            return None  # reported where `allowed` itself is compiled
        terms, stack = [], [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, lark.Tree) and node.data == "and_":
                stack.extend(reversed(node.children))
            else:
                terms.append(node)
        return terms

    def _split_allowed(self, text, context):
        """``allowed``'s top-level ``and`` terms, split into (choice-free, naming a choice).

        A term names a choice when, compiled with the choices in scope, it reads one of
        them (directly or through a definition); a global that merely shares a choice's
        name does not make a term choice-free. Returns None if ``allowed`` does not parse.
        """
        try:
            key = (type(text), text, context)
            return self._splits[key]
        except TypeError:  # an unhashable value (a wrong type, reported elsewhere): not cached
            return self._split_terms(text, context)
        except KeyError:
            split = self._splits[key] = self._split_terms(text, context)
            return split

    def _split_terms(self, text, context):
        terms = self._and_terms(text) if text is not None else None
        if terms is None:
            return None
        free, naming = [], []
        for term in terms:
            try:
                reads = self.compiler.context_reads(term, context)
            except (DSLCompileError, RecursionError):
                reads = True  # reported where `allowed` itself is compiled
            (naming if reads else free).append(term)
        return free, naming

    def _choice_test(self, path, text, context):
        """The top-level ``and`` terms of ``allowed`` that name a choice, as one test: what is
        left to check per combination once the guard (the other terms) has passed."""
        split = self._split_allowed(text, context) if context else None
        if split is None or not split[0]:
            return None  # nothing in the guard: `allowed` itself is the test
        kept = split[1]
        if not kept:
            return _always_true
        tree = kept[0]
        for term in kept[1:]:
            tree = lark.Tree("and_", [tree, term])
        try:
            fn, size, _ = self.compiler.expression_tree(tree, context, None, where=_expr_where(self.loc, path))
        except (DSLCompileError, RecursionError):
            return None  # reported where `allowed` itself is compiled
        return make_hook(fn, size, len(context), _expr_where(self.loc, path), _text(text))

    def _combo_filter(self, text, context, first_only=False):
        """The generated pass over every combination of choices (see `ActionKind.combo_filter`)."""
        if not context:
            return None  # one combination, (): `allowed` is tested as it is
        if text is None:
            return ALL_COMBINATIONS
        split = self._split_allowed(text, context)
        if split is None:
            return None  # reported where `allowed` itself is compiled
        terms = split[1]  # the terms naming a choice (the others are the guard, tested once)
        if not terms:
            return ALL_COMBINATIONS
        tree = terms[0]
        for term in terms[1:]:
            tree = lark.Tree("and_", [tree, term])
        try:
            return self.compiler.combo_filter(tree, context, first_only)
        except (DSLCompileError, RecursionError):
            return None  # reported where `allowed` itself is compiled (or nested too deeply to generate)

    def _guard(self, path, text, context):
        """Compile the top-level ``and`` terms of ``allowed`` that name no choice, as one test.

        Evaluated once per decision before any choice is tried: when it fails, the action
        kind offers nothing, whatever the choices (so a power nobody holds costs nothing).
        """
        split = self._split_allowed(text, context)
        if split is None or not split[0]:
            return None
        tree = split[0][0]
        for term in split[0][1:]:  # one generated test, evaluated left to right as written
            tree = lark.Tree("and_", [tree, term])
        where = _expr_where(self.loc, path)
        try:
            fn, size, _ = self.compiler.expression_tree(tree, (), None, memoise=True, where=where)
        except (DSLCompileError, RecursionError):
            return None  # cannot happen: it compiled with the choices in scope and read none
        return make_hook(fn, size, 0, where, _text(text))

    def _window_index(self, path, name, window_names):
        if name is None:
            return None
        if name not in window_names:
            self.add(
                path,
                f"unknown reaction window {name!r}{did_you_mean(name, window_names)}"
                f" (windows: {', '.join(window_names) or 'none'})",
            )
            return None
        return window_names.index(name)

    def _all_seat_vars(self):
        return self._variables("seat_variables")


def _all_steps(items):
    """Every step of a round document, those inside ``repeat:`` blocks included, in order."""
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("repeat"), dict):
            yield from _all_steps(item["repeat"].get("steps") or [])
        elif isinstance(item, dict):
            yield item


ANY_CONTEXT = (("card", "card"), ("winner", "play"), ("seat", "int"))
"""Every context name some hook provides: a definition may use any of them (checked again where it is used)."""


_HEAD = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)?\s*\))?\s*$"
)


def _dsl_words() -> dict[str, str]:
    from trickkit.dsl import builtins as B

    words = {w: f"the DSL word {w!r}" for w in B.KEYWORDS}
    for table in (B.FUNCTIONS, B.SEAT_FUNCTIONS, B.AGGREGATES, B.ENGINE_FUNCTIONS):
        words.update((name, "a built-in function") for name in table)
    words.update((name, "a built-in effect") for name in B.EFFECTS)
    return words


_DSL_WORDS = _dsl_words()
"""Names a definition may not take: DSL keywords, built-in functions, aggregates and effects."""


def _definition_head(key: str) -> tuple[str, tuple[str, ...]]:
    """``'placeable(v)'`` -> ``('placeable', ('v',))``; ``'lead'`` -> ``('lead', ())``."""
    m = _HEAD.match(str(key))
    if not m:
        return str(key), ()
    params = tuple(p.strip() for p in (m.group(2) or "").split(",") if p.strip())
    return m.group(1), params


ALL_COMBINATIONS = "all"
"""`ActionKind.combo_filter` of a kind whose choices are never tested (every combination is allowed)."""


def _distinct_ints(v) -> bool:
    # set(map(type, ...)) runs in C: this check runs at every bid decision
    return v.__class__ is list and len(set(v)) == len(v) and set(map(type, v)) <= _INT_ONLY


_INT_ONLY = frozenset({int})


_RESULT_CHECKS = {
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list[int]": (_distinct_ints, "a list of different numbers"),
    "int": (lambda v: v.__class__ is int, "an int"),  # a bool is no number here: `score: true` is refused at load too
    "list": (lambda v: isinstance(v, list), "a list"),
    "play": (lambda v: v is None or isinstance(v, tuple), "a play or null"),
}


def _bounded_score(hook: Hook | None) -> Hook | None:
    """Wrap the score rule so a score beyond what game records keep (`trickkit.jsonsafe`: at
    most MAX_JSON_INT_DIGITS digits; rules may compute 4,096-bit numbers) fails as a located
    DSLRuntimeError, instead of a record that replay refuses and statistics that overflow floats."""
    if hook is None:
        return None
    from trickkit.jsonsafe import MAX_JSON_INT_DIGITS

    limit = 10**MAX_JSON_INT_DIGITS

    def bounded(state, *ctx):
        v = hook(state, *ctx)
        if v.__class__ is int and not -limit < v < limit:
            raise DSLRuntimeError(
                f"{hook.where}: a score of {len(str(abs(v)))} digits is too large (at most "
                f"{MAX_JSON_INT_DIGITS}, as game records keep it) in {' '.join(hook.text.split())!r}"
            )
        return v

    bounded.__dict__.update(hook.__dict__)  # where, text, type, checks ...
    return bounded


def _checked(hook: Hook, want: str) -> Hook:
    """Wrap a hook so a result of the wrong type (possible when the static type is ``any``,
    or ``null`` from an aggregate over nothing) fails as a located DSLRuntimeError."""
    test, what = _RESULT_CHECKS[want]
    fn = hook.fn if getattr(hook, "size", None) == 0 else None  # a rule of the state alone (`until`)
    is_bool = want == "bool"

    def checked(state, *ctx):
        if fn is not None and not ctx:  # its generated function itself: one call less per step
            try:
                v = fn(state, ())
            except Exception:  # the hook runs it again and reports the error, located
                v = hook(state)
        else:
            v = hook(state, *ctx)
        if not (v.__class__ is bool if is_bool else test(v)):
            raise DSLRuntimeError(f"{hook.where}: expected {what}, got {v!r} in {' '.join(hook.text.split())!r}")
        return v

    checked.__dict__.update(hook.__dict__)  # where, text, elem_type, fn, size
    checked.checks = want  # generated passes that call ``fn`` itself must leave this hook to the engine
    return checked


def _placeholders(template: str) -> list[str]:
    import string

    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


_MAX_INT_BITS = 14_284  # bits of a 4,300-digit number: Python's limit on printing an int


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text)


def _no_effect(state, *choices):
    return None


def _always_true(state, *choices):
    return True


VARIABLE_TYPES = {
    "int": "int",
    "bool": "bool",
    "str": "str",
    "card": "card",
    "play": "play",
    "seat": "int",
    "list": "list[any]",
}
"""Declarable variable types (``type:``) and their DSL types; a seat is an int."""


def _assignable_initial(initial, typ: str) -> bool:
    if typ == "bool":
        return isinstance(initial, bool)
    if typ in ("int", "card"):
        return isinstance(initial, int) and not isinstance(initial, bool)
    if typ == "str":
        return isinstance(initial, str)
    if typ.startswith("list"):
        return isinstance(initial, list)
    return False  # a play cannot be written in YAML: start it at null


def _vtype(initial) -> str:
    if isinstance(initial, bool):
        return "bool"
    if isinstance(initial, int):
        return "int"
    if isinstance(initial, str):
        return "str"
    if isinstance(initial, list):
        return "list[any]"
    return "any"


def _first_duty(declared):
    """The first test of a follow duty (``must_play_if_able`` may be a list of tests)."""
    return declared[0] if isinstance(declared, list) and declared else declared


def _text(node) -> str:
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def _dsl_message(e: Exception, text: str) -> str:
    msg = str(e)
    if isinstance(e, DSLCompileError) and e.line:
        lines = text.splitlines() or [""]
        src = lines[e.line - 1] if e.line <= len(lines) else ""
        msg += f"\n    {src}\n    {' ' * max(e.column - 1, 0)}^"
    elif isinstance(e, DSLSyntaxError):
        first, _, rest = msg.partition("\n")
        msg = first + ("\n" + "\n".join("    " + ln for ln in rest.splitlines()) if rest else "")
    return msg
