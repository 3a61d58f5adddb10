"""The AST allow-list every generated module must pass before it is compiled.

The code generator (`trickkit.dsl.compiler` and its passes) writes Python only from a checked DSL tree,
with names of its own and literals written by ``repr()``. This check is the second line:
it parses the generated source and refuses anything the generator does not emit, so a
generator bug can never turn ruleset text into arbitrary Python.

Allowed: function definitions named by the generator, assignments, ``if``/``for``/
``break``/``continue``/``return``, arithmetic, comparisons, boolean logic, conditional
expressions, subscripts and slices, list and tuple displays (and ``[*x]``, a list's copy,
inside a list display only), literal constants (int, str, bool, None), a fixed set of state
attributes, the chosen action's ``face``/``value`` (read by a fused step function,
`trickkit.engine.fused`), and calls of the generator's helpers only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Container
from typing import Any

_NODES = (
    ast.Module,
    ast.FunctionDef,
    ast.arguments,
    ast.arg,
    ast.Return,
    ast.Assign,
    ast.AugAssign,
    ast.If,
    ast.For,
    ast.Break,
    ast.Continue,
    ast.Pass,
    ast.Expr,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.Tuple,
    ast.List,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.And,
    ast.Or,
    ast.Not,
    ast.USub,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.FloorDiv,
    ast.Mod,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.Is,
    ast.IsNot,
    ast.ListComp,
    ast.comprehension,
)

_NODE_SET = frozenset(_NODES)

STATE_ATTRIBUTES = frozenset(
    {
        "trick",
        "round",
        "dealer",
        "current",
        "turn_player",
        "window",
        "seat_vars",
        "table_vars",
        "seat_zones",
        "table_zones",
        "budget",
        "memo",
        "turn_over",
        # the engine's own fields, which the fused step functions (trickkit.engine.fused) read and move on
        "step",
        "acted",
        "tricks_done",
        "tricks_total",
        "last_trick",
        "seating",
        "actor",
        "next_turn",
        "turn_no",
    }
)
"""Attributes of the state generated code may read (and, for ``turn_over``/``budget``, write)."""

ACTION_ATTRIBUTES = frozenset({"face", "value"})
"""Attributes of the action a fused apply function is given (``act``) that it may read."""

_METHODS = frozenset({"append", "pop", "remove"})
"""Methods generated code may call (on its own lists)."""

_POPPED = re.compile(r"^[tv][0-9]+$")
"""The locals generated code may ``pop()`` the last item of: a zone it read (the draw of a top card)."""

LOCAL_NAME = re.compile(r"^(s|fr|act|cards|domains|out|[atvhpqm][0-9]+)$")
"""Names of locals and arguments the generator makes."""

GLOBAL_NAME = re.compile(r"^_([A-Za-z][A-Za-z_]*|[rdfcglpkT][0-9]+)$")
"""Names of module-level functions, constants, tables and helpers the generator makes."""

_FUNCTION_NAME = re.compile(r"^_[rdfcglpe][0-9]+$")
"""Generated functions: rules, definitions, hand filters, constants, combination filters, and
the fused legal (``_l``) and apply (``_p``) functions of a step (`trickkit.engine.fused`), and the
observation tensor's writers (``_e``, `trickkit.engine.tensor_gen`)."""


class UnsafeCode(Exception):
    """Generated code outside the allow-list: a generator bug, never a ruleset author's."""


def check(source: str, known_globals: Container[str]) -> ast.Module:
    """Parse ``source`` and check every node against the allow-list.

    Args:
        source: a generated module.
        known_globals: the names the module's namespace defines (helpers, constants,
            tables and the functions generated so far).

    Returns:
        The parsed module, ready for ``compile()``.

    Raises:
        UnsafeCode: a node, name, attribute, call or constant that the generator never emits.
        SyntaxError, RecursionError, MemoryError: the source nests too deeply for Python.
    """
    tree = ast.parse(source, mode="exec")
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    names_ok: dict[str, bool] = {}
    stack: list[Any] = [tree]  # ast nodes, dispatched on their exact type below (mypy cannot narrow that)
    while stack:  # a plain stack walk: ast.walk costs more than the checks (this runs at every load)
        node = stack.pop()
        kind = type(node)
        if kind not in _NODE_SET:
            raise UnsafeCode(f"generated code uses {kind.__name__}")
        if kind is ast.Name:
            ok = names_ok.get(node.id)
            if ok is None:
                ok = names_ok[node.id] = bool(
                    LOCAL_NAME.match(node.id)
                    or (GLOBAL_NAME.match(node.id) and (node.id in known_globals or node.id in defined))
                )
            if not ok:
                raise UnsafeCode(f"generated code names {node.id!r}")
            if node.ctx.__class__ is ast.Store and not LOCAL_NAME.match(node.id):
                raise UnsafeCode(f"generated code assigns {node.id!r}")
            continue
        if kind is ast.Constant:
            if not (node.value is None or isinstance(node.value, (bool, int, str))):
                raise UnsafeCode(f"generated constant of type {type(node.value).__name__}")
            continue
        if kind is ast.FunctionDef:
            if not _FUNCTION_NAME.match(node.name) or node.decorator_list or node.returns:
                raise UnsafeCode(f"generated function {node.name!r}")
        elif kind is ast.arguments:
            if node.vararg or node.kwarg or node.kwonlyargs or node.defaults or node.kw_defaults or node.posonlyargs:
                raise UnsafeCode("generated function with special arguments")
        elif kind is ast.arg:
            if not LOCAL_NAME.match(node.arg) or node.annotation:
                raise UnsafeCode(f"generated argument {node.arg!r}")
        elif kind is ast.Attribute:
            if (
                node.attr in ACTION_ATTRIBUTES
                and isinstance(node.value, ast.Name)
                and node.value.id == "act"
                and node.ctx.__class__ is ast.Load
            ):
                continue  # the chosen action's payload, read by a fused apply function
            if node.attr.startswith("_") or node.attr not in STATE_ATTRIBUTES | _METHODS:
                raise UnsafeCode(f"generated code reads attribute {node.attr!r}")
            if node.attr in STATE_ATTRIBUTES and not (isinstance(node.value, ast.Name) and node.value.id == "s"):
                raise UnsafeCode(f"attribute {node.attr!r} of something other than the state")
        elif kind is ast.List and node.ctx.__class__ is ast.Load:
            # ``[*x]`` (the state copier's list copy) is the one place a star may stand: its
            # value is checked like any expression, and a star anywhere else is refused
            for item in node.elts:
                if item.__class__ is ast.Starred:
                    stack.append(item.value)
                else:
                    stack.append(item)
            stack.append(node.ctx)
            continue
        elif kind is ast.Call:
            if node.keywords:
                raise UnsafeCode("generated call with keywords")
            f = node.func
            if isinstance(f, ast.Name):
                if not GLOBAL_NAME.match(f.id):
                    raise UnsafeCode(f"generated code calls {f.id!r}")
            elif not (
                isinstance(f, ast.Attribute)
                and f.attr in _METHODS
                and isinstance(f.value, ast.Name)
                and LOCAL_NAME.match(f.value.id)
                and (f.attr != "pop" or (_POPPED.match(f.value.id) and not node.args))
            ):
                raise UnsafeCode("generated code calls something other than a helper")
        for field in node._fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                stack.extend(value)
            elif isinstance(value, ast.AST):
                stack.append(value)
    return tree


__all__ = ["STATE_ATTRIBUTES", "UnsafeCode", "check"]
