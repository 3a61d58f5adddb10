"""Compiles a round's steps (deal, bid, tricks, turns, choose, effect) into one flat list, ``repeat:`` as markers."""

from __future__ import annotations

from typing import Any

import lark

from trickkit.dsl.compiler import DSLCompileError
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.errors import did_you_mean
from trickkit.rules.actions import ActionKindCompiler
from trickkit.rules.compile_base import Context, required, rule_text
from trickkit.rules.declarations import DeclarationCompiler
from trickkit.rules.model import (
    MAX_REPEAT_NESTING,
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
)
from trickkit.rules.yaml_build import Path


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
                either = lark.Tree("or_", [must, parse(hook.text, "expr")])
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

    def _step(self, i: int, step: dict[str, Any], base: Path = ("round",)) -> Step | None:
        ((kind, spec),) = step.items()
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
            until=required(self.expr(p + ("until",), (), "bool", "false")),
            kinds=kinds,
            passes=self._kinds_passes(kinds),
            windows=tuple(windows),
            on_turn_start=self.block(p + ("on_turn_start",), ()) if "on_turn_start" in spec else None,
            after_action=self.block(p + ("after_action",), ()) if "after_action" in spec else None,
            until_after_turn=(
                required(self.expr((*p, "until_after_turn"), (), "bool")) if "until_after_turn" in spec else None
            ),
        )

    def _all_seat_vars(self) -> tuple[VariableSpec, ...]:
        return self._variables("seat_variables")


def _first_duty(declared: Any) -> Any:
    """The first test of a follow duty (``must_play_if_able`` may be a list of tests)."""
    return declared[0] if isinstance(declared, list) and declared else declared
