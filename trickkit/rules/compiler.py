"""Compiles a validated ruleset document into the `Rules` of a Game: drives meaning checks and DSL compilation.

`RulesetCompiler.compile` decides the table (players, parameters, deck, teams), compiles the
declarations (`trickkit.rules.declarations`), the definitions and the round
(`trickkit.rules.steps`, `trickkit.rules.actions`), and the end-of-game rules. Every problem
found is collected with its file, line, column and YAML path; they are raised together as
one `trickkit.errors.RulesetError`.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from trickkit.dsl import builtins as B
from trickkit.dsl.compiler import Compiler, DSLCompileError, Namespace
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.errors import RulesetError, short_repr
from trickkit.rules.cards import build_deck
from trickkit.rules.checks import bounded_score, seat_result
from trickkit.rules.compile_base import Context, Located, dsl_message, expr_where, required, rule_text
from trickkit.rules.model import RuleHook, Rules, VariableSpec, ZoneSpec
from trickkit.rules.steps import StepCompiler
from trickkit.rules.yaml_build import Path


class RulesetCompiler(StepCompiler):
    """Turns one validated document into `Rules`, collecting located problems."""

    def compile(self) -> Rules:
        """The compiled rules (raises `trickkit.errors.RulesetError` with every problem found)."""
        doc = self.doc
        pl = doc["players"]
        n = self.players if self.players is not None else pl.get("default", pl["min"])
        if not isinstance(n, int) or isinstance(n, bool) or not pl["min"] <= n <= pl["max"]:
            counts = f"{pl['min']}" if pl["min"] == pl["max"] else f"{pl['min']}-{pl['max']}"
            self.add(("players",), f"{doc['name']} is for {counts} players, not {short_repr(n)}")
            n = pl.get("default", pl["min"])
        params = self._params()
        groups: list[Any] = []
        for gi, group in enumerate(doc["deck"]):  # a group with `when` is in the deck only if it holds
            if "when" not in group or self._load_time_value(("deck", gi, "when"), group["when"], n, params, "bool"):
                groups.append(group)
        try:
            deck = build_deck(groups, self.problem)
            self.deck_built = deck
            # the texts each attribute can take with every optional group in: a rule may name a
            # card that only some parameter values put in the deck (a Kraken, a Loot card)
            every = build_deck(doc["deck"], self.problem, one_deck=False) if len(groups) < len(doc["deck"]) else deck
        except Located as e:
            self.add(e.path, e.message)
            raise RulesetError(self.problems) from None
        attr_values: dict[str, frozenset[str]] = {}
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
        definitions: dict[str, Any] = {}
        def_params: dict[str, tuple[str, ...]] = {}
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
                definitions[name] = parse(rule_text(text), "expr")
            except DSLSyntaxError as e:
                self.add_dsl(("definitions", key), e, rule_text(text), dsl_message(e, rule_text(text)))
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
                v.name for v in seat_vars + table_vars if v.initial is None or (v.per_team and v.initial[0] is None)
            ),
            team_of=team_of,
        )
        self.compiler = Compiler(self.ns)
        for key in doc.get("definitions") or {}:
            self.compiler.definition_where[_definition_head(key)[0]] = expr_where(self.loc, ("definitions", key))
        for key in doc.get("definitions") or {}:  # a parameter would hide a definition in its body
            name, head_params = _definition_head(key)
            for param in head_params:
                if param in definitions:
                    self.problems.append(  # located at the definition's key, where the parameter is written
                        self.loc.problem(
                            ("definitions", key),
                            f"parameter {param!r} of definition {name!r} has the name of the definition {param!r} "
                            f"({self.compiler.definition_where.get(param, '$.definitions')}): in {name!r}, and in "
                            f"every definition it uses, {param!r} would mean the parameter; rename one of them",
                            at_key=True,
                        )
                    )
        zones = [self._zone_hooks(z) for z in zones]
        self.zones = zones
        seat_vars = tuple(self._variable_hooks("seat_variables", v) for v in seat_vars)
        table_vars = tuple(
            self._variable_hooks("team_variables" if v.per_team else "table_variables", v) for v in table_vars
        )
        for key in doc.get("definitions") or {}:  # report errors inside definitions once, where they are written
            name, head_params = _definition_head(key)
            if name in definitions:
                self.definition_check(("definitions", key), name, head_params, ANY_CONTEXT + choice_context)
        self.seat_zone_by_name = {z.name: z for z in zones if z.per_seat}
        self.repeat_slots = 0
        steps = tuple(self._flat_steps(("round",), doc["round"], [], 0))
        game_over = required(self.expr(("game_over",), (), "bool"))
        first_dealer = self._first_dealer(n) if "first_dealer" in doc else None
        score = required(bounded_score(self.expr(("score",), (("seat", "int"),), "int")))
        team_score = (
            bounded_score(self.expr(("team_score",), (("team", "int"),), "int")) if "team_score" in doc else None
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
            first_dealer=first_dealer,
        )

    def _first_dealer(self, n: int) -> RuleHook | None:
        """``first_dealer``: an int rule (parameters, ``num_players``); a seat known at load is checked now."""
        hook = self.expr(("first_dealer",), (), "int")
        fixed = getattr(getattr(hook, "fn", None), "const_value", None)  # parameters only: known now
        if fixed.__class__ is int and not 0 <= fixed < n:
            self.add(("first_dealer",), f"the first dealer must be a seat 0..{n - 1}, got {fixed} (with {n} players)")
        return seat_result(hook, n, "the first dealer") if hook is not None else None

    def _zone_hooks(self, z: ZoneSpec) -> ZoneSpec:
        """``z`` with its ``public_when`` and ``seen_by`` rules compiled (context of ``seen_by``:
        ``seat``, the viewer, and ``owner``, the zone's seat or -1)."""
        spec = self.doc["zones"][z.name]
        if "public_when" in spec:
            z = attrs.evolve(z, public_when=self.expr(("zones", z.name, "public_when"), (), "bool"))
        if "seen_by" in spec:
            z = attrs.evolve(z, seen_by=self.expr(("zones", z.name, "seen_by"), VIEW_CONTEXT, "bool"))
        return z

    def _variable_hooks(self, key: str, v: VariableSpec) -> VariableSpec:
        """``v`` with its ``seen_by`` rule compiled (context ``seat``, the viewer, and ``owner``)."""
        spec = (self.doc.get(key) or {}).get(v.name)
        if isinstance(spec, dict) and "seen_by" in spec:
            return attrs.evolve(v, seen_by=self.expr((key, v.name, "seen_by"), VIEW_CONTEXT, "bool"))
        return v

    def definition_check(self, path: Path, name: str, params: tuple[str, ...], context: Context) -> None:
        """Compile a definition once where it is written, so its errors point there."""
        text = name if not params else f"{name}({', '.join(params)})"
        call_context = context + tuple((p, "any") for p in params)
        try:
            self.compiler.context_reads(parse(text, "expr"), call_context)
        except (DSLSyntaxError, DSLCompileError) as e:
            within = getattr(e, "within", None)
            if within is not None and within[0] == name:  # point at the mistake in the definition's text
                e = DSLCompileError(str(e).replace(f"in definition {name!r}: ", "", 1), within[1], within[2])
            text = rule_text(self.doc["definitions"][path[-1]])
            self.add_dsl(path, e, text, dsl_message(e, text).replace(f"in definition {name!r}: ", ""))


ANY_CONTEXT: Context = (("card", "card"), ("winner", "play"), ("seat", "int"))
"""Every context name some hook provides: a definition may use any of them (checked again where it is used)."""


VIEW_CONTEXT: Context = (("seat", "int"), ("owner", "int"))
"""The context of a ``seen_by`` rule: the viewing seat, and the owner (a seat, a team, or -1 for the table)."""

_HEAD = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)?\s*\))?\s*$"
)


def _dsl_words() -> dict[str, str]:
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
