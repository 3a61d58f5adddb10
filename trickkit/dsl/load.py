"""The last pass: generated source, checked by the allow-list, compiled once and run.

`load` takes the source of one generated function, checks it against the AST allow-list
(`trickkit.dsl.allowlist`), compiles it and executes it into the generated module's own
namespace (no Python built-ins). Compiled code is cached by source for the process, so a
game loaded again (tests, simulation workers) skips the allow-list walk and ``compile()``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import Any

from trickkit.dsl import allowlist
from trickkit.dsl.types import DSLCompileError

_COMPILED: dict[str, tuple[CodeType, frozenset[str]]] = {}
"""Generated source -> (its code object, the global names it uses): a game loaded again in
the same process (tests, simulation workers) skips the allow-list walk and compile()."""

_COMPILED_MAX = 20_000


def _global_names(code: CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _global_names(const)
    return names


def load(env: dict[str, Any], name: str, source: str) -> Callable[..., Any]:
    """Run the generated ``source`` (defining ``name``) in the module namespace ``env``; the
    value it defines there (a generated function).

    Raises:
        DSLCompileError: when the source is too deeply nested for Python's compiler.
    """
    cached = _COMPILED.get(source)
    if cached is not None and cached[1] <= env.keys():  # checked before, names all defined here
        code = cached[0]
    else:
        try:
            tree = allowlist.check(source, env)
            code = compile(tree, f"<trickkit rules {name}>", "exec")
        except (SyntaxError, RecursionError, MemoryError):
            raise DSLCompileError("expression nested too deeply for the compiler") from None
        if len(_COMPILED) < _COMPILED_MAX:
            _COMPILED[source] = (code, frozenset(n for n in _global_names(code) if n.startswith("_") and n != name))
    exec(code, env)  # the allow-listed module, in its own namespace without built-ins
    fn: Callable[..., Any] = env[name]
    return fn
