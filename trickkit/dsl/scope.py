"""Name resolution's data: the DSL names a generated function binds to Python locals.

A `Scope` chains the rule's context (its frame), loop variables, inlined definitions'
arguments and ``let`` locals, innermost first; each name maps to a `Local` (the Python code
that reads it and its type). Global names (parameters, variables, zones) are not here: they
are the ruleset's `trickkit.dsl.types.Namespace`, resolved in `trickkit.dsl.gen_names`.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Local:
    """A DSL name bound in a generated function."""

    name: str  # the Python local (made by the generator), or the code of an inlined argument
    type: str
    nullable: bool = True
    free: frozenset[str] | None = None  # what it reads, when it is an inlined argument's code
    state: bool = False
    declared: tuple[int, int] | None = None  # (line, column) of its ``let``: a local name the block may assign
    const: tuple[object] | None = None  # (value,) of a choice a combination filter unrolls: known when generating


class Scope:
    """DSL names bound to Python locals: the rule's context, then loop variables."""

    def __init__(self, names: dict[str, Local], parent: Scope | None = None) -> None:
        self.names = names
        self.parent = parent

    def lookup(self, name: str) -> Local | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> list[str]:
        out: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            out += list(scope.names)
            scope = scope.parent
        return out

    def root(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def child(self, name: str, local: Local) -> Scope:
        return Scope({name: local}, self)


def where_declared(declared: tuple[int, int] | None) -> str:
    """Where a ``let`` was, for errors: ``line N`` (or ``this block``)."""
    return f"line {declared[0]}" if declared and declared[0] else "this block"
