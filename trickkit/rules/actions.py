"""Compiles the action kinds of a turns step: their texts and choices, guards, combination filters and generated passes.

An action kind's ``allowed`` is split into its top-level ``and`` terms: those naming no
choice form the guard (tested once per decision), the others the combination test (and the
generated filter over every combination of choices).
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import Any, cast

import lark

from trickkit.dsl.compiler import DSLCompileError
from trickkit.dsl.hooks import Hook, make_hook
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.dsl.types import text_value
from trickkit.errors import did_you_mean
from trickkit.rules.checks import always_true, no_effect
from trickkit.rules.compile_base import CompilerBase, Context, expr_where, required, rule_text
from trickkit.rules.model import ALL_COMBINATIONS, ActionKind, KindsPasses, RuleHook
from trickkit.rules.templates import template_problem
from trickkit.rules.yaml_build import Path

AndTerms = tuple[list[Any], list[Any]]
"""``allowed``'s top-level ``and`` terms (parsed trees): (naming no choice, naming a choice)."""


class ActionKindCompiler(CompilerBase):
    """The ruleset compiler's part for action kinds (of a turns step and its reaction windows)."""

    def _action_kind_names(self) -> tuple[list[str], Context]:
        """Every action kind name, and every choice name (with a loose type) any definition may use."""
        kinds: list[str] = []
        context: list[tuple[str, str]] = []
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

    def _action_kinds(self, p: Path, actions: dict[str, Any], window_names: list[str]) -> tuple[ActionKind, ...]:
        kinds: list[ActionKind] = []
        shapes: dict[tuple[str, int], str] = {}  # (verb, words in the text) -> the kind that has it
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
            for c in names:
                if c in self.ns.definitions:  # it would hide the definition here and in every definition used here
                    self.add(
                        (*ap, "choices", c),
                        f"choice {c!r} has the name of the definition {c!r} "
                        f"({self.compiler.definition_where.get(c, '$.definitions')}): in this action, and in "
                        f"every definition it uses, {c!r} would mean the choice; rename one of them",
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
            domains: list[RuleHook] = []
            types: list[str] = []
            repeats: list[bool] = []
            for c in names:
                hook = self.expr(ap + ("choices", c), (), "list", memoise=True)
                elem = getattr(hook, "elem_type", None)
                if elem == "zone":  # actions are values: a zone would be shared state
                    self.add(
                        ap + ("choices", c),
                        f"a choice cannot be a zone; offer its number instead, "
                        f"e.g. range(1, len({rule_text(a['choices'][c])}) + 1)",
                    )
                elif isinstance(elem, str) and elem.startswith("list"):  # a list is no action text, nor a dict key
                    self.add(
                        ap + ("choices", c),
                        f"the values of choice {c!r} are lists ({elem}); a choice takes single values "
                        f"(numbers, texts, cards, true/false): offer an index into the list instead",
                    )
                domains.append(required(hook))
                types.append(getattr(hook, "elem_type", "any"))
                repeats.append(hook is not None and _may_repeat(hook))
            context = tuple(zip(names, types))
            kinds.append(
                ActionKind(
                    name=name,
                    template=template,
                    choice_names=names,
                    choice_types=tuple(types),
                    domains=tuple(domains),
                    allowed=required(self.expr(ap + ("allowed",), context, "bool", "true", memoise=True)),
                    effect=required(
                        self.block(ap + ("effect",), context, _seat_choices(names, domains, self.ns.num_players))
                    )
                    if "effect" in a
                    else no_effect,
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
                    repeats=tuple(repeats) if any(repeats) else (),
                )
            )
        return tuple(kinds)

    def _kinds_passes(self, kinds: tuple[ActionKind, ...]) -> KindsPasses | None:
        """The generated passes over a step's (or window's) action kinds, ``(legal, any, lookahead)``:
        one call per decision instead of several hook calls per kind (see
        `trickkit.dsl.compiler.Compiler.kinds_pass`). None when some kind needs the general
        path: a rule that did not compile, a combination test that is not generated, or a
        rule whose result type the engine checks at play time."""
        if self.problems or not kinds:
            return None
        specs: list[dict[str, Any]] = []
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
                    "repeats": k.repeats,
                    "allowed": k.allowed.fn,
                    "where": k.allowed.where,
                    "name": k.name,
                    "filter": flt,
                    "rows": not k.lookahead,  # rows of actions taken whole: no combination to check on its own
                }
            )
        deck = self.deck_built
        texts = deck.texts if len(set(deck.texts)) < len(deck.texts) else None
        firsts: list[dict[str, Any]] = []
        for spec, k in zip(specs, kinds):
            if spec["filter"] not in (None, "all"):
                firsts.append(dict(spec, filter=k.combo_first))
            else:
                firsts.append(spec)
        asked = self.compiler.asked_kinds
        named: set[str] = set()
        for spec, k in zip(specs, kinds):
            # its combinations kept for `can` (the first kind of a name; a lookahead would have to run)
            spec["can"] = k.name in asked and k.name not in named and not k.lookahead
            named.add(k.name)
        try:
            passes = (
                self.compiler.kinds_pass(specs, texts=texts),
                self.compiler.kinds_pass(firsts, first_only=True, texts=texts),
                any(bool(k.lookahead) for k in kinds),
            )
            # a kind some rule asks about (`can('place')`): its own pass, run without a hook per rule
            by_kind = {
                k.name: self.compiler.kinds_pass([first], first_only=True, texts=texts)
                for k, first in reversed(list(zip(kinds, firsts)))  # the first of a name wins, as `can` finds it
                if k.name in asked
            }
        except DSLCompileError:
            return None
        if by_kind:
            setattr(passes[1], "by_kind", by_kind)  # noqa: B010  # read by `trickkit.engine.turns.kind_available`
        return passes

    def _private(self, path: Path, declared: Any, names: tuple[str, ...], template: str) -> tuple[str, ...]:
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

    def _lookahead(self, path: Path, context: Context) -> bool | RuleHook:
        """``lookahead`` as True/False when it is a constant, else as a hook over the choices."""
        hook = self.expr(path, context, "bool", "false")  # a wrong type is reported there
        if hook is None:
            return False
        fn: Any = hook.fn  # a generated function: a constant rule's carries its value
        if hasattr(fn, "const_value"):
            return bool(fn.const_value)
        return hook

    @staticmethod
    def _and_terms(text: Any) -> list[Any] | None:
        """The top-level ``and`` terms of a DSL text, in order (None if it does not parse)."""
        try:
            tree = parse(rule_text(text), "expr")
        except DSLSyntaxError:
            return None  # reported where `allowed` itself is compiled
        terms: list[Any] = []
        stack: list[Any] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, lark.Tree) and node.data == "and_":
                stack.extend(reversed(node.children))
            else:
                terms.append(node)
        return terms

    def _split_allowed(self, text: Any, context: Context) -> AndTerms | None:
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

    def _split_terms(self, text: Any, context: Context) -> AndTerms | None:
        terms = self._and_terms(text) if text is not None else None
        if terms is None:
            return None
        free: list[Any] = []
        naming: list[Any] = []
        for term in terms:
            try:
                reads = self.compiler.context_reads(term, context)
            except (DSLCompileError, RecursionError):
                reads = True  # reported where `allowed` itself is compiled
            (naming if reads else free).append(term)
        return free, naming

    def _choice_test(self, path: Path, text: Any, context: Context) -> Hook | None:
        """The top-level ``and`` terms of ``allowed`` that name a choice, as one test: what is
        left to check per combination once the guard (the other terms) has passed."""
        split = self._split_allowed(text, context) if context else None
        if split is None or not split[0]:
            return None  # nothing in the guard: `allowed` itself is the test
        kept = split[1]
        if not kept:
            return always_true
        tree = kept[0]
        for term in kept[1:]:
            tree = lark.Tree("and_", [tree, term])
        try:
            fn, size, _ = self.compiler.expression_tree(tree, context, None, where=expr_where(self.loc, path))
        except (DSLCompileError, RecursionError):
            return None  # reported where `allowed` itself is compiled
        return make_hook(fn, size, len(context), expr_where(self.loc, path), rule_text(text))

    def _combo_filter(self, text: Any, context: Context, first_only: bool = False) -> Any:
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

    def _guard(self, path: Path, text: Any, context: Context) -> RuleHook | None:
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
        where = expr_where(self.loc, path)
        try:
            # asked once per decision: memoising its parts would only cost
            fn, size, _ = self.compiler.expression_tree(tree, (), None, memoise=False, where=where)
        except (DSLCompileError, RecursionError):
            return None  # cannot happen: it compiled with the choices in scope and read none
        return cast(RuleHook, make_hook(fn, size, 0, where, rule_text(text)))

    def _window_index(self, path: Path, name: str | None, window_names: list[str]) -> int | None:
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


def _all_steps(items: list[Any]) -> Iterator[dict[str, Any]]:
    """Every step of a round document, those inside ``repeat:`` blocks included, in order."""
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("repeat"), dict):
            yield from _all_steps(item["repeat"].get("steps") or [])
        elif isinstance(item, dict):
            yield item


def _placeholders(template: str) -> list[str]:
    """The ``{field}`` names of an action text, in order."""
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def _seat_choices(names: tuple[str, ...], domains: list[RuleHook], n: int) -> frozenset[str]:
    """The choices offered from a constant list of seats (``seats``): an action's effect runs
    only with a legal action's values, so there each holds a seat in 0..n-1."""
    out = set()
    for name, hook in zip(names, domains, strict=False):
        values = getattr(getattr(hook, "fn", None), "const_value", None)
        if isinstance(values, (list, tuple)) and values and all(v.__class__ is int and 0 <= v < n for v in values):
            out.add(name)
    return frozenset(out)


def _may_repeat(hook: Any) -> bool:
    """May the values of a choice's rule repeat (then the engine keeps the first of equal ones)?
    Not when it is a zone (a card lies in one place), a ``range(...)`` or a list of distinct
    numbers and texts written out: those games pay nothing for the check."""
    if getattr(hook, "type", None) == "zone":
        return False
    try:
        tree = parse(hook.text, "expr")
    except DSLSyntaxError:
        return True
    if tree.data == "call" and tree.children and tree.children[0] == "range":
        return False
    if tree.data == "list_lit":
        items = []
        for item in tree.children:
            if not isinstance(item, lark.Tree) or item.data not in ("int_lit", "str_lit"):
                return True
            token = str(item.children[0])
            if item.data == "int_lit" and not (token.isascii() and token.isdigit() and token[:1] != "0"):
                return True  # 0x10, 007: leave the comparison to the engine
            items.append(token if item.data == "int_lit" else repr(text_value(token)))
        return len(set(items)) < len(items)
    return True
