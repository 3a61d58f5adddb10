"""Rules that hold still while a tricks step runs: found from their text, at load.

Within a tricks step the only rule that changes the state is ``after_trick`` (the winner,
``next_leader`` and the follow rules are expressions, and expressions have no effects); cards
move from hands to the trick and to the taken piles. So an expression that reads no zone, no
trick and no seat of the moment (``current_player`` ...), only constants, the round's dealer
and counts, and variables that ``after_trick`` never names, has the same value at every
trick's start as at the first. A tricks step whose ``sits_out`` is such a rule seats the same
players in every trick (`trickkit.engine.fused` evaluates it once, as the step begins).

The test is conservative: a name it does not know, an aggregate (``any(... for ...)``), a
membership test or a function call other than seat arithmetic and the ruleset's own
definitions makes a rule not steady, and the rule is then evaluated at every trick as before.
"""

from __future__ import annotations

from typing import Any

import lark

from trickkit.dsl.builtins import SEAT_FUNCTIONS
from trickkit.dsl.compiler import Compiler

STEADY_STATE_NAMES = frozenset({"dealer", "round", "num_players", "num_teams", "seats", "deck_size"})
"""The state's names whose values hold still within a step (`trickkit.dsl.builtins.STATE_NAMES`)."""

_NOT_STEADY = frozenset({"aggregate", "contains", "not_contains"})
"""Expression nodes never taken as steady: they walk lists (and charge the evaluation budget)."""

MAX_DEPTH = 30
"""Definitions nested deeper than this are not followed (the rule is then not steady)."""


def names_in(tree: Any) -> set[str]:
    """Every identifier in a parsed rule (a variable a block assigns among them)."""
    if isinstance(tree, lark.Token):
        return {str(tree)} if tree.type == "NAME" else set()
    out: set[str] = set()
    for child in tree.children:
        if child is not None:
            out |= names_in(child)
    return out


def steady(c: Compiler, tree: Any, bound: frozenset[str], written: frozenset[str], depth: int = 0) -> bool:
    """Does the expression ``tree`` hold still within a tricks step? ``bound``: the names its
    context gives (``seat``) or a definition's parameters; ``written``: the names the step's
    ``after_trick`` block mentions."""
    if isinstance(tree, lark.Token) or tree is None:
        return True  # an operator, a literal's text, an attribute's name, an absent part
    kind = tree.data
    if depth > MAX_DEPTH or kind in _NOT_STEADY:
        return False
    if kind == "name":
        name = str(tree.children[0])
        if name in bound:
            return True
        if name in c._def_trees and not c.ns.definition_params.get(name):
            return steady(c, c._def_trees[name], frozenset(), written, depth + 1)
        symbol = c.ns.symbols.get(name)
        if symbol is None:
            return False
        if symbol.kind == "const":  # a parameter
            return True
        if symbol.kind in ("seat_var", "table_var"):
            return name not in written
        return symbol.kind == "state" and name in STEADY_STATE_NAMES
    if kind == "call":
        name = str(tree.children[0])
        args = tree.children[1:]
        if not all(steady(c, a, bound, written, depth + 1) for a in args):
            return False
        if name in bound:
            return False  # (a parameter called as a function: the compiler refuses it)
        params = c.ns.definition_params.get(name)
        if name in c._def_trees and params is not None:
            return steady(c, c._def_trees[name], frozenset(params), written, depth + 1)
        return name in SEAT_FUNCTIONS
    return all(steady(c, child, bound, written, depth + 1) for child in tree.children)
