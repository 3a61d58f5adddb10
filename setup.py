"""Build script. The default build is pure Python: everything is configured in pyproject.toml.

``TRICKKIT_COMPILE=1 pip install .`` builds the opt-in compiled variant instead: mypyc (from the
``mypy`` package) compiles the engine modules of COMPILED to C extensions. The games are the
same (tests/test_golden.py passes against either build); a decision costs 0-5% fewer
instructions, Hearts' observation tensor about a third fewer (docs/performance.md). The
per-game code the DSL generates is compiled by ``compile()`` when a game is loaded and stays
Python in either build.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup  # type: ignore[import-untyped,unused-ignore]  # typed from setuptools 71

COMPILED = [
    "trickkit/randomness.py",
    "trickkit/dsl/hooks.py",
    "trickkit/engine/steps.py",
    "trickkit/engine/turns.py",
    "trickkit/engine/tensor_native.py",
]
"""The hot engine modules (cProfile of random play), as mypyc compiles them without changes, and
the observation tensor's writers typed for mypyc (used instead of the generated ones when compiled).

Left out: dsl/runtime.py, the helpers the generated code calls: compiled, every call of one
crosses into C and checks its arguments (a decision cost 20-25% more instructions), and the
checks replace the located messages of some bad rules with mypyc's (tests/test_bad_inputs.py).
engine/state.py, which mypyc refuses (``State.__slots__`` in ``_restore``) and which would not
work compiled without changes: its ``__slots__`` comes from the class annotations, which a
mypyc class does not keep; the aliases ``_copy = clone`` and ``__str__ = __repr__`` become
instance attributes; ``clone`` uses ``object.__new__(State)``; and a compiled State cannot be
monkeypatched. engine/fused.py and engine/actions.py compile but only run while a game loads."""

# What mypy needs to type the compiled modules the way the checked-in code is typed: itself,
# the stubs and the runtime dependencies (kept in step with pyproject.toml's [project] lists).
BUILD_REQUIRES = [
    "mypy==2.4.1",
    "types-PyYAML",
    "types-jsonschema",
    "pyyaml>=6",
    "jsonschema>=4.18",
    "attrs>=23.1",
    "lark>=1.1.7",
    "rich>=13",
    "numpy>=1.24",
    "hypothesis>=6",
]


def compiled_build() -> dict[str, object]:
    """The setup() arguments of the compiled build; none unless TRICKKIT_COMPILE is set (and not 0)."""
    if os.environ.get("TRICKKIT_COMPILE", "0") in ("", "0"):
        return {}
    try:
        from mypyc.build import mypycify
    except ImportError:
        # The first pass of a PEP 517 build (egg_info) only asks for the build requirements:
        # setuptools takes them from setup_requires and stops; pip installs them and runs us again.
        if "egg_info" not in sys.argv:  # building: without mypyc this would quietly be the pure build
            sys.exit("TRICKKIT_COMPILE is set but mypyc cannot be imported: pip install mypy==2.4.1")
        return {"setup_requires": BUILD_REQUIRES}
    return {"setup_requires": BUILD_REQUIRES, "ext_modules": mypycify(COMPILED, group_name="trickkit")}


setup(**compiled_build())
