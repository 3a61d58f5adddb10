"""Compiles a round's steps (deal, bid, tricks, turns, choose, effect) into one flat list, ``repeat:`` as markers."""

from __future__ import annotations

from typing import Any, cast

import lark

from trickkit.dsl.compiler import DSLCompileError
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.errors import did_you_mean, short_repr
from trickkit.rules.actions import ActionKindCompiler
from trickkit.rules.compile_base import Context, required, rule_text
from trickkit.rules.declarations import DeclarationCompiler
from trickkit.rules.model import (
    MAX_REPEAT_NESTING,
    STEP_CONDITION,
    AuctionStep,
    BidStep,
    ChooseStep,
    DealStep,
    EffectStep,
    ReactionWindow,
    RepeatEnd,
    RepeatStep,
    RuleHook,
    Step,
    TrickStep,
    TurnStep,
    VariableSpec,
    WhenStep,
    step_parts,
)
from trickkit.rules.yaml_build import Path


def _false(state: Any, frame: Any) -> bool:
    return False


class _Never:
    """The ``until`` of a turns step that gives none (a `RuleHook` of the text ``false``): the
    step never ends by it, only by ``until_after_turn``. A plain call, no generated rule."""

    where = ""
    text = "false"
    fn = staticmethod(_false)
    size = 0
    type = "bool"
    elem_type = "any"
    checks = ""
    filter = None
    filter_size = 0
    either_filter = None

    def __call__(self, state: Any, *context: Any) -> bool:
        return False


never = cast(RuleHook, _Never())
"""The one `_Never`."""


class StepCompiler(ActionKindCompiler, DeclarationCompiler):
    """The ruleset compiler's part for the steps of a round."""

    def _always_allowed(self, p: Path, spec: dict[str, Any], context: Context) -> RuleHook | None:
        """``always_allowed`` as a card test, with ``hook.either_filter``: the generated hand
        filter of "must_play_if_able or always_allowed" (the playable cards when some card
        must be played)."""
        if "always_allowed" not in spec:
            return None
        hook = self.card_test(p + ("always_allowed",), context)
        if hook is not None:
            try:
                must = parse(rule_text(_first_duty(spec.get("must_play_if_able", "true"))), "expr")
                either: lark.Tree[lark.Token] = lark.Tree("or_", [must, parse(hook.text, "expr")])
                hook.either_filter = self.compiler.card_filter(either, context)[0]
            except (DSLSyntaxError, DSLCompileError):
                hook.either_filter = None  # reported where the rules themselves are compiled
        return hook

    def _duty(self, p: Path, spec: dict[str, Any], context: Context) -> tuple[RuleHook, ...]:
        """``must_play_if_able`` as card tests: one, or a layered duty's tests in order."""
        declared = spec.get("must_play_if_able", "true")
        if isinstance(declared, list):
            return tuple(required(self.card_test(p + ("must_play_if_able", i), context)) for i in range(len(declared)))
        return (required(self.card_test(p + ("must_play_if_able",), context, "true")),)

    def _flat_steps(self, base: Path, items: list[Any], out: list[Any], depth: int) -> list[Any]:
        """Compile the steps at ``base`` into ``out``; a ``repeat:`` block becomes a `RepeatStep`,
        its steps and a `RepeatEnd` (so the state's step index stays a plain index)."""
        for i, item in enumerate(items):
            guard = len(out) if self._step_item((*base, i), item) else None
            if guard is not None:  # the marker, once the end of the guarded step is known
                out.append(None)
            kind, spec = step_parts(item)
            if kind != "repeat":
                compiled = self._step(i, item, base)
                if compiled is not None:
                    out.append(compiled)
            else:
                self._repeat(base + (i, "repeat"), spec, out, depth)
            if guard is not None:
                condition = self.expr((*base, i, STEP_CONDITION), (), "bool")
                out[guard] = WhenStep(required(condition), end=len(out) - 1)
        return out

    def _step_item(self, p: Path, item: dict[str, Any]) -> bool:
        """Check a step item has exactly one kind; True when it has a ``when:`` condition."""
        kinds = [k for k in item if k != STEP_CONDITION]
        if len(kinds) != 1:
            self.add(
                p,
                "a step has exactly one kind (deal, bid, choose, tricks, turns, effect or repeat)"
                + (
                    f", beside 'when': found {', '.join(map(repr, kinds))}"
                    if kinds
                    else " beside its 'when:' condition"
                ),
            )
        return STEP_CONDITION in item

    def _repeat(self, p: Path, spec: dict[str, Any], out: list[Any], depth: int) -> None:
        """A ``repeat:`` block at ``p``: its start marker, its steps and its end marker into ``out``."""
        if depth >= MAX_REPEAT_NESTING:
            self.add(p, f"repeat blocks nest at most {MAX_REPEAT_NESTING} deep")
            return
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

    def _step(self, i: int, step: dict[str, Any], base: Path = ("round",)) -> Step | None:
        kind, spec = step_parts(step)
        p = base + (i, kind)
        if kind == "effect":
            return EffectStep(required(self.block(p, ())))
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
                required(count),
                required(self.zone(p + ("to",), spec.get("to", "hand"), True)),
                required(self.zone(p + ("rest",), spec.get("rest", "stock"), False)),
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
                required(var),
                required(self.expr(p + ("options",), (), "list[int]")),
                required(self.expr(p + ("first",), (), "int", "left_of(dealer)")),
                spec.get("simultaneous", True),
                reason=self.expr(p + ("reason",), (("value", "int"),), None) if "reason" in spec else None,
            )
        if kind == "turns":
            return self._turns(p, spec)
        if kind == "auction":
            return self._auction(p, spec)
        if kind == "choose":
            return self._choose(p, spec)
        if kind == "tricks":
            card = (("card", "card"),)
            winner = (("winner", "play"),)
            duty = self._duty(p, spec, card)
            return TrickStep(
                count=required(self.expr(p + ("count",), (), "int")),
                leader=required(self.expr(p + ("leader",), (), "int", "left_of(dealer)")),
                must_play_if_able=duty[0],
                always_allowed=self._always_allowed(p, spec, card),
                reason=self.expr(p + ("reason",), card, None) if "reason" in spec else None,
                winner=required(self.expr(p + ("winner",), (), "play")),
                next_leader=self.expr(p + ("next_leader",), winner, "int") if "next_leader" in spec else None,
                taken_to=self.zone(p + ("taken_to",), spec["taken_to"], True) if "taken_to" in spec else None,
                after_trick=self.block(p + ("after_trick",), winner) if "after_trick" in spec else None,
                hand=required(self.zone(p, spec.get("hand", "hand"), True)),
                no_winner_to=self.zone(p + ("no_winner_to",), spec["no_winner_to"], False)
                if "no_winner_to" in spec
                else None,
                why=self.expr(p + ("why",), winner, None) if "why" in spec else None,
                fallback_duties=duty[1:],
                sits_out=self.expr((*p, "sits_out"), (("seat", "int"),), "bool") if "sits_out" in spec else None,
                actor=self.expr((*p, "actor"), (("seat", "int"),), "int") if "actor" in spec else None,
            )
        self.add(p, f"unknown step kind {kind!r}")  # the schema normally catches this
        return None

    def _choose(self, p: Path, spec: dict[str, Any]) -> ChooseStep:
        verb = spec.get("verb", "choose")
        if verb in ("play", "bid", "pass"):
            self.add(p + ("verb",), f"the verb {verb!r} is taken by the engine's own actions; choose another")
        if spec.get("from", "hand") == spec["to"]:
            self.add(p + ("to",), f"the cards are chosen from {spec['to']!r}: put them into another seat zone")
        return ChooseStep(
            verb=verb,
            source=required(self.zone(p + ("from",), spec.get("from", "hand"), True)),
            to=required(self.zone(p + ("to",), spec["to"], True)),
            count=required(self.expr(p + ("count",), (), "int", "1")),
            allowed=self.card_test(p + ("allowed",), (("card", "card"),)) if "allowed" in spec else None,
            first=required(self.expr(p + ("first",), (), "int", "left_of(dealer)")),
            simultaneous=spec.get("simultaneous", True),
        )

    def _turns(self, p: Path, spec: dict[str, Any]) -> TurnStep:
        window_names = list(spec.get("reactions") or {})
        windows: list[ReactionWindow] = []
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
            first=required(self.expr(p + ("first",), (), "int", "left_of(dealer)")),
            # without `until`, a plain function: no rule (and its error hook) is called after every action
            until=required(self.expr(p + ("until",), (), "bool")) if "until" in spec else never,
            kinds=kinds,
            passes=self._kinds_passes(kinds),
            windows=tuple(windows),
            on_turn_start=self.block(p + ("on_turn_start",), ()) if "on_turn_start" in spec else None,
            after_action=self.block(p + ("after_action",), ()) if "after_action" in spec else None,
            until_after_turn=(
                required(self.expr((*p, "until_after_turn"), (), "bool")) if "until_after_turn" in spec else None
            ),
        )

    def _auction(self, p: Path, spec: dict[str, Any]) -> AuctionStep:
        """An ``auction`` step: its rules, texts and output variables, checked where it can be at load."""
        n = self.ns.num_players
        calls = self.expr((*p, "calls"), (), "list")
        elem = "any"
        fixed: tuple[Any, ...] | None = None
        if calls is not None:
            typ = calls.type
            elem = calls.elem_type if typ.startswith("list") else "any"
            if (typ != "any" and not typ.startswith("list")) or elem not in ("str", "int", "any"):
                self.add((*p, "calls"), f"calls must be a list of texts (or of numbers), got {typ}")
                elem = "any"
            const = getattr(calls.fn, "const_value", None)
            if const is not None:
                problem = auction_calls_problem(const)
                if problem:
                    self.add((*p, "calls"), problem)
                else:
                    fixed = tuple(const)
                    elem = "int" if const and const[0].__class__ is int else "str"
        template = _auction_text(self, (*p, "text"), spec.get("text", "bid {call}"), "text", True)
        pass_text = _auction_text(self, (*p, "pass"), spec.get("pass", "pass"), "pass", False)
        double = spec.get("double", False) is True
        own = [pass_text, *(["double", "redouble"] if double else [])]
        if double and pass_text in ("double", "redouble"):
            self.add((*p, "pass"), f"the text of a pass may not be {pass_text!r}: that is an action of this auction")
        if fixed is not None:
            for text in (template.replace("{call}", str(c)) for c in fixed):
                if text in own:
                    self.add((*p, "calls"), f"the call text {text!r} is also the text of a {text.split()[0]}")
                    break
        context = (("call", elem),)
        step = AuctionStep(
            first=required(self.expr((*p, "first"), (), "int", "left_of(dealer)")),
            calls=required(calls),
            template=template,
            strain=self.expr((*p, "strain"), context, None) if "strain" in spec else None,
            allowed=self.expr((*p, "allowed"), context, "bool") if "allowed" in spec else None,
            pass_text=pass_text,
            double=double,
            ends_after_passes=required(self._auction_count(p, "ends_after_passes", str(n - 1), 0)),
            passed_out_after=required(self._auction_count(p, "passed_out_after", str(n), 1)),
            contract=self._auction_variable(p, spec, "contract", (elem,) if elem != "any" else ("str", "int"), True),
            caller=self._auction_variable(p, spec, "caller", ("int",), True),
            declarer=self._auction_variable(p, spec, "declarer", ("int",), True),
            doubled=self._auction_variable(p, spec, "doubled", ("int",), False),
            fixed_calls=fixed,
        )
        return step

    def _auction_count(self, p: Path, key: str, default: str, least: int) -> RuleHook | None:
        """``ends_after_passes``/``passed_out_after``: an int rule, checked at load when it is known then."""
        hook = self.expr((*p, key), (), "int", default)
        value = getattr(getattr(hook, "fn", None), "const_value", None)
        if value.__class__ is int and value < least:
            self.add((*p, key), f"{key} must be at least {least}, got {value}")
        return hook

    def _auction_variable(
        self, p: Path, spec: dict[str, Any], key: str, types: tuple[str, ...], nullable: bool
    ) -> VariableSpec | None:
        """The table variable an auction writes its ``key`` output to (None: not written)."""
        if key not in spec:
            return None
        name = spec[key]
        table = self._variables("table_variables")
        var = next((v for v in table if v.name == name), None)
        if var is None:
            others = [("seat_variables", "a seat variable"), ("team_variables", "a team variable")]
            what = next((w for k, w in others if name in (self.doc.get(k) or {})), None)
            if what is not None:
                self.add((*p, key), f"{name!r} is {what}; the auction's {key} must be a table variable")
            else:
                self.add(
                    (*p, key),
                    f"unknown table variable {name!r}{did_you_mean(str(name), [v.name for v in table])}",
                )
            return None
        if var.type != "any" and var.type not in types:
            want = " or ".join(
                {"str": "a text (type: str)", "int": "a number or seat (type: int or seat)"}[t] for t in types
            )
            self.add((*p, key), f"variable {name!r} is of type {var.type}; the auction's {key} is {want}")
        if nullable and var.initial is not None:
            self.add(
                (*p, key),
                f"variable {name!r} must be declared with initial: null (the auction writes null when "
                f"it is passed out)",
            )
        return var

    def _all_seat_vars(self) -> tuple[VariableSpec, ...]:
        return self._variables("seat_variables")


def auction_calls_problem(calls: Any) -> str:
    """What is wrong with an auction's calls (a list of distinct texts, or of distinct numbers),
    or ``""``. Texts must be written as an action text is (one space between words)."""
    if calls.__class__ is not list:
        return f"calls must be a list of texts, got {short_repr(calls)}"
    if not calls:
        return "calls is empty: an auction needs at least one call"
    kinds = set(map(type, calls))
    if kinds != {str} and kinds != {int}:
        return f"calls must be all texts (or all numbers), got {short_repr(calls)}"
    if len(set(calls)) != len(calls):
        twice = next(c for i, c in enumerate(calls) if c in calls[:i])
        return f"calls must be distinct: {short_repr(twice)} is listed twice"
    for c in calls:
        if c.__class__ is str and (not c.strip() or " ".join(c.split()) != c):
            return f"a call is a text without leading, trailing or repeated spaces, got {short_repr(c)}"
    return ""


def _auction_text(compiler: StepCompiler, path: Path, text: Any, key: str, template: bool) -> str:
    """The ``text`` template (with ``{call}`` once) or ``pass`` text of an auction, checked."""
    if not isinstance(text, str) or not text.strip() or " ".join(text.split()) != text:
        compiler.add(path, f"{key} must be a text without leading, trailing or repeated spaces, got {short_repr(text)}")
        return "bid {call}" if template else "pass"
    rest = text.replace("{call}", "", 1)
    if template and ("{call}" not in text or "{" in rest or "}" in rest):
        compiler.add(path, f"text must hold {{call}} once and no other {{...}} placeholder, got {text!r}")
        return "bid {call}"
    return text


def _first_duty(declared: Any) -> Any:
    """The first test of a follow duty (``must_play_if_able`` may be a list of tests)."""
    return declared[0] if isinstance(declared, list) and declared else declared
