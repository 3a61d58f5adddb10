"""Compiles a validated ruleset document into the frozen rule tables of a Game: meaning checks and DSL compilation.

Every problem found is collected with its file, line, column and YAML path; the caller
raises them together as one :class:`~trickkit.errors.RulesetError`.
"""

from __future__ import annotations

import operator
from typing import Any

import attrs

from .cards import Deck, build_deck
from .dsl.builtins import STATE_NAMES
from .dsl.compiler import Compiler, DSLCompileError, Namespace, Symbol
from .dsl.parser import DSLSyntaxError, parse
from .errors import Problem, RulesetError, did_you_mean
from .hooks import Hook, make_hook
from .source import Locator, format_path


class _Located(Exception):
    def __init__(self, path, message):
        self.path, self.message = tuple(path), message


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


@attrs.frozen
class TrickStep:
    """Play ``count`` tricks: each seat plays one card from its hand in turn; ``winner`` takes the trick."""

    count: Hook
    leader: Hook
    must_play_if_able: Hook
    always_allowed: Hook | None
    reason: Hook | None
    winner: Hook
    next_leader: Hook | None
    taken_to: ZoneSpec | None
    after_trick: Hook | None
    hand: ZoneSpec
    kind: str = "tricks"


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


def _expr_where(loc: Locator, path) -> str:
    line, col = loc.position(path)
    return f"{loc.filename}:{line}:{col}: {format_path(path)}"


class RulesetCompiler:
    """Turns one validated document into :class:`Rules`, collecting located problems."""

    def __init__(self, doc: dict, loc: Locator, players: int | None, overrides: dict):
        self.doc, self.loc = doc, loc
        self.problems: list[Problem] = []
        self.players = players
        self.overrides = overrides

    def problem(self, path, message) -> _Located:
        return _Located(path, message)

    def add(self, path, message):
        self.problems.append(self.loc.problem(tuple(path), message))

    def compile(self) -> Rules:
        doc = self.doc
        pl = doc["players"]
        n = self.players if self.players is not None else pl.get("default", pl["min"])
        if not isinstance(n, int) or isinstance(n, bool) or not pl["min"] <= n <= pl["max"]:
            self.add(("players",), f"{doc['name']} is for {pl['min']}-{pl['max']} players, not {n!r}")
            n = pl.get("default", pl["min"])
        params = self._params()
        try:
            deck = build_deck(doc["deck"], self.problem)
        except _Located as e:
            self.add(e.path, e.message)
            raise RulesetError(self.problems) from None
        zones = self._zones()
        seat_vars, table_vars = self._variables("seat_variables"), self._variables("table_variables")
        self.zones = zones
        symbols = self._symbols(n, params, zones, seat_vars, table_vars)
        definitions = {}
        for name, text in (doc.get("definitions") or {}).items():
            if name in symbols:
                self.add(("definitions", name), f"definition {name!r} hides a built-in name; choose another")
            try:
                definitions[name] = parse(_text(text), "expr")
            except DSLSyntaxError as e:
                self.add(("definitions", name), str(e))
        self.ns = Namespace(symbols=symbols, card_attrs=deck.attrs, face_attrs=deck.face_attrs,
                            face_mode=deck.face_mode, definitions=definitions, num_players=n)
        self.compiler = Compiler(self.ns)
        for name in definitions:  # report errors inside definitions once, where they are written
            self.expr(("definitions", name), ANY_CONTEXT, None)
        self.seat_zone_by_name = {z.name: z for z in zones if z.per_seat}
        steps = tuple(s for s in (self._step(i, step) for i, step in enumerate(doc["round"])) if s is not None)
        game_over = self.expr(("game_over",), (), "bool")
        score = self.expr(("score",), (("seat", "int"),), "int")
        if self.problems:
            raise RulesetError(sorted(self.problems, key=lambda p: (p.line, p.column)))
        return Rules(
            name=doc["name"], title=doc["title"], source=doc.get("source", ""), num_players=n,
            players_min=pl["min"], players_max=pl["max"], players_default=pl.get("default", pl["min"]),
            params=params, deck=deck,
            seat_zones=tuple(z for z in zones if z.per_seat), table_zones=tuple(z for z in zones if not z.per_seat),
            seat_vars=seat_vars, table_vars=table_vars, steps=steps, game_over=game_over, score=score,
            winners_highest=doc.get("winners", "highest") == "highest", score_unit=doc.get("score_unit", "points"),
            max_actions=doc.get("max_actions", 100_000), description=doc.get("description", ""),
        )

    # -- pieces -------------------------------------------------------------------------
    def _params(self) -> dict:
        specs = self.doc.get("parameters") or {}
        values = {}
        for name, spec in specs.items():
            values[name] = spec["default"]
        for name, value in self.overrides.items():
            if name not in specs:
                self.add(("parameters",), f"unknown parameter {name!r}{did_you_mean(name, specs)}"
                         f" (parameters: {', '.join(specs) or 'none'})")
                continue
            values[name] = value
        for name, spec in specs.items():
            v = values[name]
            where = ("parameters", name, "default") if name not in self.overrides else ("parameters", name)
            t = spec["type"]
            ok = {"int": lambda x: isinstance(x, int) and not isinstance(x, bool),
                  "bool": lambda x: isinstance(x, bool),
                  "str": lambda x: isinstance(x, str),
                  "choice": lambda x: x in spec.get("choices", [])}[t](v)
            if not ok:
                expected = f"one of {spec.get('choices')}" if t == "choice" else t
                self.add(where, f"parameter {name!r} must be {expected}, got {v!r}")
            elif t == "int":
                if "min" in spec and v < spec["min"] or "max" in spec and v > spec["max"]:
                    self.add(where, f"parameter {name!r} must be in {spec.get('min', '-inf')}..{spec.get('max', 'inf')}, got {v!r}")
        return values

    def _zones(self) -> list[ZoneSpec]:
        zones, seat_i, table_i = [], 0, 0
        for name, spec in self.doc["zones"].items():
            per_seat = spec.get("owner", "table") == "seat"
            vis = spec.get("visibility", "public")
            if vis == "owner" and not per_seat:
                self.add(("zones", name, "visibility"), "visibility 'owner' needs owner: seat")
            zones.append(ZoneSpec(name, seat_i if per_seat else table_i, per_seat, vis))
            if per_seat:
                seat_i += 1
            else:
                table_i += 1
        return zones

    def _variables(self, key) -> tuple[VariableSpec, ...]:
        out = []
        for i, (name, spec) in enumerate((self.doc.get(key) or {}).items()):
            if not isinstance(spec, dict):
                spec = {"initial": spec}
            out.append(VariableSpec(name, i, spec.get("initial", 0), spec.get("reset", "game") == "round"))
        return tuple(out)

    def _symbols(self, n, params, zones, seat_vars, table_vars) -> dict[str, Symbol]:
        symbols: dict[str, Symbol] = {}

        def put(name, sym, path):
            if name in symbols:
                self.add(path, f"name {name!r} is already used by a {symbols[name].kind.replace('_', ' ')}")
            symbols[name] = sym
        values = {"seats": list(range(n)), "num_players": n}
        getters = {"round": "round", "dealer": "dealer", "trick": "trick", "current_player": "current"}
        for name, entry in STATE_NAMES.items():  # the registry documents them; here they get their values
            if name in values:
                symbols[name] = Symbol("const", entry.type, values[name], entry.doc)
            else:
                symbols[name] = Symbol("state", entry.type, operator.attrgetter(getters[name]), entry.doc)
        specs = self.doc.get("parameters") or {}
        for name, value in params.items():
            declared = specs.get(name, {}).get("type")  # the declared type, even if a bad value was given
            t = {"int": "int", "bool": "bool", "str": "str"}.get(declared, "any")
            put(name, Symbol("const", t, value, "parameter"), ("parameters", name))
        for z in zones:
            put(z.name, Symbol("seat_zone" if z.per_seat else "table_zone", "list[card]", z.index, "zone"), ("zones", z.name))
        for v in seat_vars:
            put(v.name, Symbol("seat_var", _vtype(v.initial), v.index, "seat variable"), ("seat_variables", v.name))
        for v in table_vars:
            put(v.name, Symbol("table_var", _vtype(v.initial), v.index, "table variable"), ("table_variables", v.name))
        return symbols

    def expr(self, path, context, want, default=None) -> Hook | None:
        node = self.doc
        try:
            for k in path:
                node = node[k]
        except (KeyError, IndexError, TypeError):
            if default is None:
                return None
            node = default
        text = _text(node)
        try:
            fn, size, _ = self.compiler.expression(text, context, want)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(path, _dsl_message(e, text))
            return None
        return make_hook(fn, size, len(context), _expr_where(self.loc, path), text)

    def block(self, path, context) -> Hook | None:
        node = self.doc
        for k in path:
            node = node[k]
        text = _text(node)
        try:
            fn, size = self.compiler.block(text, context)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(path, _dsl_message(e, text))
            return None
        return make_hook(fn, size, len(context), _expr_where(self.loc, path), text)

    def zone(self, path, name, per_seat=None) -> ZoneSpec | None:
        for z in self.zones:
            if z.name == name:
                if per_seat is not None and z.per_seat != per_seat:
                    self.add(path, f"zone {name!r} must be owned by {'each seat' if per_seat else 'the table'}")
                return z
        self.add(path, f"unknown zone {name!r}{did_you_mean(name, [z.name for z in self.zones])}")
        return None

    def _step(self, i, step):
        (kind, spec), = step.items()
        p = ("round", i, kind)
        if kind == "effect":
            return EffectStep(self.block(p, ()))
        if kind == "deal":
            return DealStep(self.expr(p + ("count",), (), "int"),
                            self.zone(p + ("to",), spec.get("to", "hand"), True),
                            self.zone(p + ("rest",), spec.get("rest", "stock"), False))
        if kind == "bid":
            var = next((v for v in self._all_seat_vars() if v.name == spec["variable"]), None)
            if var is None:
                self.add(p + ("variable",), f"unknown seat variable {spec['variable']!r}"
                         f"{did_you_mean(spec['variable'], [v.name for v in self._all_seat_vars()])}")
            return BidStep(var, self.expr(p + ("options",), (), None),
                           self.expr(p + ("first",), (), "int", "left_of(dealer)"),
                           spec.get("simultaneous", True))
        if kind == "tricks":
            card = (("card", "card"),)
            winner = (("winner", "play"),)
            return TrickStep(
                count=self.expr(p + ("count",), (), "int"),
                leader=self.expr(p + ("leader",), (), "int", "left_of(dealer)"),
                must_play_if_able=self.expr(p + ("must_play_if_able",), card, "bool", "true"),
                always_allowed=self.expr(p + ("always_allowed",), card, "bool") if "always_allowed" in spec else None,
                reason=self.expr(p + ("reason",), card, None) if "reason" in spec else None,
                winner=self.expr(p + ("winner",), (), "play"),
                next_leader=self.expr(p + ("next_leader",), winner, "int") if "next_leader" in spec else None,
                taken_to=self.zone(p + ("taken_to",), spec["taken_to"], True) if "taken_to" in spec else None,
                after_trick=self.block(p + ("after_trick",), winner) if "after_trick" in spec else None,
                hand=self.zone(p, spec.get("hand", "hand"), True),
            )
        self.add(p, f"unknown step kind {kind!r}")  # the schema normally catches this
        return None

    def _all_seat_vars(self):
        return self._variables("seat_variables")


ANY_CONTEXT = (("card", "card"), ("winner", "play"), ("seat", "int"))
"""Every context name some hook provides: a definition may use any of them (checked again where it is used)."""


def _vtype(initial) -> str:
    if isinstance(initial, bool):
        return "bool"
    if isinstance(initial, int):
        return "int"
    if isinstance(initial, str):
        return "str"
    return "any"


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
