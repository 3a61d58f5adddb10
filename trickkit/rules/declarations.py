"""Compiles a ruleset's declarations: parameters, zones, teams, variables, and the symbols its DSL texts see.

Also the expressions evaluated at load time (``count`` of a zone family, a deck group's
``when``, a ``teams`` rule), which may use only parameters and ``num_players``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

from trickkit.dsl.builtins import STATE_NAMES
from trickkit.dsl.compiler import Budget, Compiler, DSLCompileError, EvaluationLimit, Namespace, Symbol, elem_type
from trickkit.dsl.hooks import _RUNTIME
from trickkit.dsl.parser import DSLSyntaxError
from trickkit.dsl.runtime import stored
from trickkit.errors import did_you_mean, short_repr
from trickkit.rules.compile_base import CompilerBase, dsl_message, rule_text
from trickkit.rules.model import MAX_ZONE_FAMILY, VariableSpec, ZoneSpec
from trickkit.rules.yaml_build import Path


class DeclarationCompiler(CompilerBase):
    """The ruleset compiler's part for what a ruleset declares before its round."""

    def _params(self) -> dict[str, Any]:
        specs = self.doc.get("parameters") or {}
        values: dict[str, Any] = {}
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
            if t == "choice":
                ok = v in spec.get("choices", [])
            elif t == "bool":
                ok = isinstance(v, bool)
            elif t == "str":
                ok = isinstance(v, str)
            else:  # int (the schema allows no other type)
                ok = isinstance(v, int) and not isinstance(v, bool)
            if not ok:
                expected = f"one of {short_repr(spec.get('choices'))}" if t == "choice" else t
                self.add(where, f"parameter {name!r} must be {expected}, got {short_repr(v)}")
            elif t == "int" and v.bit_length() > _MAX_INT_BITS:  # it could not even be printed
                self.add(where, f"parameter {name!r} is too large ({short_repr(v)})")
            elif isinstance(v, str) and _has_surrogate(v):
                self.add(where, f"parameter {name!r} holds a lone surrogate (not a character): {short_repr(v)}")
            elif t == "int" and (("min" in spec and v < spec["min"]) or ("max" in spec and v > spec["max"])):
                self.add(where, f"parameter {name!r} must be {_int_range(spec)}, got {v!r}")
        return values

    def _zones(self, n: int, params: dict[str, Any]) -> list[ZoneSpec]:
        zones: list[ZoneSpec] = []
        seat_i, table_i = 0, 0
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

    def _load_time_int(self, path: Path, text: Any, n: int, params: dict[str, Any], minimum: int = 0) -> int:
        """Evaluate an int expression that may use only parameters and ``num_players``."""
        value = self._load_time_value(path, text, n, params, "int")
        if value is None:
            return minimum
        if not isinstance(value, int) or value < minimum:
            self.add(path, f"must be an integer >= {minimum}, got {value!r}")
            return minimum
        return value

    def _load_time_value(
        self,
        path: Path,
        text: Any,
        n: int,
        params: dict[str, Any],
        want: str,
        context: dict[str, int] | None = None,
    ) -> Any:
        """Evaluate an expression at load time: it may use only parameters and ``num_players``
        (and the names of ``context``, a dict of int values, e.g. ``{"seat": 2}``)."""
        context = context or {}
        symbols = {"num_players": Symbol("const", "int", n)}
        for k, v in params.items():
            symbols[k] = Symbol("const", "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "str", v)
        compiler = Compiler(Namespace(symbols=symbols, card_attrs={}, face_attrs={}, face_mode=(), num_players=n))
        try:
            fn, size, _ = compiler.expression(rule_text(text), tuple((k, "int") for k in context), want)
            frame: list[Any] = [None] * size
            frame[: len(context)] = list(context.values())
            return fn(Budget(), frame)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(path, dsl_message(e, rule_text(text)) + " (only parameters and num_players are known here)")
            return None
        except _RUNTIME as e:  # e.g. 1 // 0, or a runaway aggregate, evaluated at load time
            self.add(path, f"{type(e).__name__}: {e} in {' '.join(rule_text(text).split())!r}")
            return None

    def _suit_codes(self) -> dict[str, str]:
        """Suit code -> suit name of the deck's groups (``H`` -> ``hearts``), for suggestions."""
        codes: dict[str, str] = {}
        for group in self.doc.get("deck") or []:
            suits = group.get("suit") if isinstance(group, dict) else None
            if isinstance(suits, dict):
                codes.update({str(k): v for k, v in suits.items() if isinstance(v, str)})
        return codes

    def _teams(self, n: int, params: dict[str, Any]) -> tuple[int, ...]:
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
            team_of: list[int | None] = [None] * n
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
            return tuple(cast("list[int]", team_of))  # every seat has a team: none is missing
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

    def _variables(self, key: str, start: int = 0, teams: int = 0) -> tuple[VariableSpec, ...]:
        """The variables declared under ``key``; team variables (``teams`` > 0) get indices from
        ``start`` (after the table variables) and a list of ``teams`` values as initial value."""
        out: list[VariableSpec] = []
        for i, (name, spec) in enumerate((self.doc.get(key) or {}).items(), start):
            if not isinstance(spec, dict):
                spec = {"initial": spec}
            reset = spec.get("reset", "game")
            initial = spec.get("initial", 0)
            visibility = spec.get("visibility", "public")
            if visibility == "owner" and key == "table_variables":
                self.add(
                    (key, name, "visibility"),
                    "visibility 'owner' needs a seat or team variable (a table variable has no owner: "
                    "use visibility: hidden with seen_by)",
                )
                visibility = "hidden"
            typ = VARIABLE_TYPES.get(spec["type"], _vtype(initial)) if "type" in spec else _vtype(initial)
            if "type" in spec and initial is not None and not _assignable_initial(initial, typ):
                self.add(
                    (key, name, "initial"), f"initial value {initial!r} is not of the declared type {spec['type']!r}"
                )
            try:  # the limits every value stored in a variable keeps (a team variable: one per team)
                stored(Budget(), [initial] * teams if teams else initial)
            except EvaluationLimit as e:
                self.add((key, name, "initial"), f"initial value too large: {e}")
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
                        visibility=visibility,
                    )
                )
                continue
            out.append(
                VariableSpec(
                    name,
                    i,
                    initial,
                    reset == "round",
                    reset == "turn",
                    typ,
                    internal=spec.get("internal") is True,
                    visibility=visibility,
                )
            )
        return tuple(out)

    def _symbols(
        self,
        n: int,
        params: dict[str, Any],
        zones: list[ZoneSpec],
        seat_vars: tuple[VariableSpec, ...],
        table_vars: tuple[VariableSpec, ...],
    ) -> dict[str, Symbol]:
        symbols: dict[str, Symbol] = {}

        def put(name: str, sym: Symbol, path: Path) -> None:
            if name in symbols:
                self.add(path, f"name {name!r} is already used by a {symbols[name].kind.replace('_', ' ')}")
            symbols[name] = sym

        values: dict[str, Any] = {
            "seats": list(range(n)),
            "num_players": n,
            "deck_size": len(self.deck_built),
            "num_teams": max(self.team_of) + 1,
        }
        getters: dict[str, Callable[[Any], Any]] = {
            "round": operator.attrgetter("round"),
            "dealer": operator.attrgetter("dealer"),
            "trick": operator.attrgetter("trick"),
            "current_player": operator.attrgetter("current"),
            # outside a reaction window the seat to act is the seat whose turn it is
            "turn_player": lambda s: s.turn_player if s.window >= 0 else s.current,
            # a tricks step with an actor: the seat choosing the card due (else the seat to act)
            "acting_player": lambda s: s.current if s.actor is None else s.actor,
        }
        codes = {
            "round": "s.round",
            "dealer": "s.dealer",
            "trick": "s.trick",
            "current_player": "s.current",
            "turn_player": "(s.turn_player if s.window >= 0 else s.current)",
            "acting_player": "(s.current if s.actor is None else s.actor)",
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


_MAX_INT_BITS = 14_284  # bits of a 4,300-digit number: Python's limit on printing an int


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text)


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


def _assignable_initial(initial: Any, typ: str) -> bool:
    if typ == "bool":
        return isinstance(initial, bool)
    if typ in ("int", "card"):
        return isinstance(initial, int) and not isinstance(initial, bool)
    if typ == "str":
        return isinstance(initial, str)
    if typ.startswith("list"):
        return isinstance(initial, list)
    return False  # a play cannot be written in YAML: start it at null


def _vtype(initial: Any) -> str:
    if isinstance(initial, bool):
        return "bool"
    if isinstance(initial, int):
        return "int"
    if isinstance(initial, str):
        return "str"
    if isinstance(initial, list):
        return "list[any]"
    return "any"


def _int_range(spec: dict[str, Any]) -> str:
    """How an int parameter's bounds read in an error: ``in 1..10``, ``at least 0``, ``at most 7``."""
    if "min" in spec and "max" in spec:
        return f"in {spec['min']}..{spec['max']}"
    return f"at least {spec['min']}" if "min" in spec else f"at most {spec['max']}"
