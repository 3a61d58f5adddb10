"""The ruleset compiler's base: the document, the located problems it collects, and compiling one rule into a hook.

`trickkit.rules.compiler.RulesetCompiler` builds on it (declarations, action kinds, round
steps); every problem found is collected with its file, line, column and YAML path, and the
caller raises them together as one `trickkit.errors.RulesetError`.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import attrs

from trickkit.dsl.compiler import Compiler, DSLCompileError, Namespace, card_filter, elem_type, is_list
from trickkit.dsl.hooks import make_hook
from trickkit.dsl.parser import DSLSyntaxError
from trickkit.errors import Problem, did_you_mean
from trickkit.rules.cards import Deck
from trickkit.rules.checks import RESULT_CHECKS, checked_result
from trickkit.rules.model import RuleHook, ZoneSpec
from trickkit.rules.source import Locator
from trickkit.rules.textpos import block_position
from trickkit.rules.yaml_build import Path

T = TypeVar("T")

Context = tuple[tuple[str, str], ...]
"""The context names a rule is compiled with, and their DSL types: ``(("card", "card"),)``."""


class Located(Exception):
    """A problem found where no `Locator` is at hand (building the deck): its YAML path and message."""

    def __init__(self, path: Path, message: str):
        self.path, self.message = tuple(path), message


def expr_where(loc: Locator, path: Path) -> str:
    """``'file.yaml:12:5: $.round[0].deal.count'``: where the rule at ``path`` is written."""
    # through problem(), so a rule inherited from a parent ruleset names the parent's file
    p = loc.problem(tuple(path), "")
    return f"{p.file}:{p.line}:{p.column}: {p.path}"


class CompilerBase:
    """The state shared by the compiler's parts, problem collection, and rules compiled as hooks."""

    deck_built: Deck
    """The deck for this table (its optional groups decided by the parameters)."""
    team_of: tuple[int, ...]
    """The team number of each seat."""
    zones: list[ZoneSpec]
    """Every declared zone, in order."""
    ns: Namespace
    """The names the ruleset's DSL texts see."""
    compiler: Compiler
    """The DSL compiler generating the ruleset's code."""
    seat_zone_by_name: dict[str, ZoneSpec]
    repeat_slots: int
    """``repeat:`` blocks compiled so far (each gets a pass counter in the state)."""

    def __init__(self, doc: dict[str, Any], loc: Locator, players: int | None, overrides: dict[str, Any]):
        self.doc, self.loc = doc, loc
        self.problems: list[Problem] = []
        self.players = players
        self.overrides = overrides
        # (allowed, choices) -> its split: each action kind asks four times
        self._splits: dict[tuple[Any, ...], tuple[list[Any], list[Any]] | None] = {}

    def problem(self, path: Path, message: str) -> Located:
        return Located(path, message)

    def add(self, path: Path, message: str) -> None:
        self.problems.append(self.loc.problem(tuple(path), message))

    def add_dsl(self, path: Path, error: Exception, text: str, message: str) -> None:
        """A DSL error, located at the line of the mistake inside a ``|``/``>`` block when it can be."""
        problem = self.loc.problem(tuple(path), message)
        line = getattr(error, "line", 0)
        if line and problem.line:
            at = block_position(problem.file, problem.line, problem.column, text, line, getattr(error, "column", 0))
            if at is not None:
                problem = attrs.evolve(problem, line=at[0], column=at[1])
        self.problems.append(problem)

    def expr(
        self, path: Path, context: Context, want: str | None, default: str | None = None, memoise: bool = False
    ) -> RuleHook | None:
        """Compile the rule at ``path`` as a hook (None, with a problem recorded, if it fails).

        ``memoise`` for rules evaluated while the engine holds a state still and tests many
        candidates (cards, action choices); see `trickkit.dsl.compiler.Compiler.expression`.
        """
        node: Any = self.doc
        try:
            for k in path:
                node = node[k]
        except (KeyError, IndexError, TypeError):
            if default is None:
                return None
            node = default
        text = rule_text(node)
        where = expr_where(self.loc, path)
        try:
            fn, size, typ = self.compiler.expression(text, context, want, memoise, where)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add_dsl(path, e, text, dsl_message(e, text))
            return None
        hook = cast(RuleHook, make_hook(fn, size, len(context), where, text))
        hook.type = typ
        hook.elem_type = elem_type(typ)
        static = typ == want or (want == "list" and typ != "any" and is_list(typ))  # the type is known at load
        if want is not None and (
            want == "list[int]"
            or (want in RESULT_CHECKS and not (static and (want == "play" or not getattr(fn, "nullable", True))))
        ):
            hook = checked_result(hook, want)  # the engine relies on the type: check it where the rule is named
        return hook

    def card_test(self, path: Path, context: Context, default: str | None = None) -> RuleHook | None:
        """A bool rule about a card, with a staged hand filter (``hook.filter``) for the engine."""
        hook = self.expr(path, context, "bool", default, memoise=True)
        if hook is not None:
            hook.filter, hook.filter_size = card_filter(self.compiler, hook.text, context) or (None, 0)
        return hook

    def block(self, path: Path, context: Context, seats: frozenset[str] = frozenset()) -> RuleHook | None:
        """Compile the statement block at ``path`` as a hook (None, with a problem recorded, if it
        fails); ``seats``: context names that always hold a seat (see `trickkit.dsl.compiler.Compiler.block`)."""
        node: Any = self.doc
        for k in path:
            node = node[k]
        text = rule_text(node)
        where = expr_where(self.loc, path)
        try:
            fn, size = self.compiler.block(text, context, where, seats)
        except (DSLSyntaxError, DSLCompileError) as e:
            self.add(path, dsl_message(e, text))
            return None
        return cast(RuleHook, make_hook(fn, size, len(context), where, text))

    def zone(self, path: Path, name: str, per_seat: bool | None = None) -> ZoneSpec | None:
        """The declared zone ``name`` (None, with a problem recorded, if there is none or its owner is wrong)."""
        for z in self.zones:
            if z.name == name:
                if per_seat is not None and z.per_seat != per_seat:
                    self.add(path, f"zone {name!r} must be owned by {'each seat' if per_seat else 'the table'}")
                return z
        self.add(path, f"unknown zone {name!r}{did_you_mean(name, [z.name for z in self.zones])}")
        return None


def required(value: T | None) -> T:
    """A rule, zone or variable the model requires: None only when it failed to compile (or is
    unknown), and then its problem is recorded and the `Rules` being built is never returned."""
    return cast(T, value)


def rule_text(node: Any) -> str:
    """A rule as DSL text (YAML reads ``true`` as a bool)."""
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def dsl_message(e: Exception, text: str) -> str:
    """The message of a DSL error in ``text``, with the offending line and a caret under the mistake."""
    msg = str(e)
    if isinstance(e, DSLCompileError) and e.line:
        lines = text.splitlines() or [""]
        src = lines[e.line - 1] if e.line <= len(lines) else ""
        msg += f"\n    {src}\n    {' ' * max(e.column - 1, 0)}^"
    elif isinstance(e, DSLSyntaxError):
        first, _, rest = msg.partition("\n")
        msg = first + ("\n" + "\n".join("    " + ln for ln in rest.splitlines()) if rest else "")
    return msg
