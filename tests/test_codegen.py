"""Generated rule code: every module passes the AST allow-list, names only what the generator
made, and the allow-list itself refuses everything else."""

import ast
import functools
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit.dsl import allowlist
from trickkit.dsl.allowlist import GLOBAL_NAME, LOCAL_NAME, UnsafeCode
from trickkit.dsl.compiler import DSLCompileError, DSLSyntaxError
from trickkit.engine.loader import read_document
from trickkit.rules.ruleset import RulesetCompiler

sys.path.insert(0, str(Path(__file__).parent))
from test_dsl import compiler

GAMES = trickkit.list_games()


def names_in(source: str) -> set[str]:
    tree = ast.parse(source)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            out.add(node.name)
    return out


@pytest.mark.parametrize("name", GAMES)
def test_every_shipped_game_generates_allow_listed_code(name):
    game = trickkit.load_game(name)
    source = game.rules.generated_source
    assert "def _r" in source  # rules were generated
    # the whole module passes the allow-list again, as one module
    allowlist.check(source, {n for n in names_in(source) if GLOBAL_NAME.match(n)})
    for ident in names_in(source):
        assert LOCAL_NAME.match(ident) or GLOBAL_NAME.match(ident), ident


@pytest.mark.parametrize("name", GAMES)
def test_generated_code_names_the_yaml_line_of_each_rule(name):
    source = trickkit.load_game(name).rules.generated_source
    blocks = [b for b in source.split("\n\n") if b.startswith("def _r")]
    located = [b for b in blocks if re.match(r"^    # \S+\.yaml:\d+:\d+: \$", b.splitlines()[1])]
    assert blocks and located == blocks


@pytest.mark.parametrize(
    "source",
    [
        "def _r0(s, fr):\n    return __import__('os')",
        "def _r0(s, fr):\n    return s.__class__",
        "def _r0(s, fr):\n    return s._generator()",
        "def _r0(s, fr):\n    return eval('1')",
        "def _r0(s, fr):\n    return (lambda: 1)()",
        "import os",
        "def _r0(s, fr):\n    return [x for x in fr]",
        "def _r0(s, fr):\n    return fr.pop()",
        "def _r0(s, fr):\n    return t0.pop(0)",
        "def _r0(s, fr):\n    return out.pop()",
        "def _r0(s, fr):\n    global _k1\n    return 1",
        "def _r0(s, fr):\n    return 1.5",
        "def _r0(s, fr):\n    return b'x'",
        "def _r0(s, fr):\n    return fr.trick",
        "def _r0(s, fr):\n    with fr:\n        pass",
        "def _r0(s, fr):\n    try:\n        pass\n    except Exception:\n        pass",
        "def _r0(s, fr):\n    _len = 3",
        "def _r0(s, fr):\n    return _unknown_helper(s)",
        "def _r0(s, fr, *rest):\n    return 1",
        "def evil(s):\n    return 1",
        "@_len\ndef _r0(s, fr):\n    return 1",
        "def _r0(s, fr):\n    return f'{s}'",
        "def _r0(s, fr):\n    return _len(s, key=1)",
        "def _r0(s, fr):\n    return s.round.__class__",
        "def _r0(s, fr):\n    return _len(*fr)",  # a star only copies a list inside a list display
        "def _r0(s, fr):\n    return (*fr,)",
        "def _r0(s, fr):\n    [*a0] = fr\n    return a0",
    ],
)
def test_the_allow_list_refuses_what_the_generator_never_emits(source):
    with pytest.raises(UnsafeCode):
        allowlist.check(source, {"_len", "_k1"})


def test_the_allow_list_accepts_what_the_generator_emits():
    source = (
        "def _r0(s, fr):\n    a0 = fr[0]\n    t1 = s.trick\n    s.budget -= _len(t1)\n"
        "    out = []\n    for v2 in t1[::-1]:\n        if not (v2[0] == a0):\n            continue\n"
        "        out.append(v2)\n    s.turn_over = True\n    return (None if a0 is None else out)"
    )
    assert isinstance(allowlist.check(source, {"_len"}), ast.Module)


DSL_ATOMS = [
    "card",
    "winner",
    "seat",
    "trick",
    "round",
    "dealer",
    "seats",
    "num_players",
    "hand",
    "null",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "'x'",
    "'suit'",
    "__import__",
    "eval",
    "os",
    "_len",
    "_r0",
    "s",
    "fr",
]
DSL_FORMS = [
    "{a}",
    "{a}.rank",
    "{a}.kind",
    "{a}.seat",
    "{a}[{b}]",
    "len({a})",
    "{a} + {b}",
    "{a} == {b}",
    "{a} < {b}",
    "{a} and {b}",
    "not {a}",
    "{a} ?? {b}",
    "if {a} then {b} else {a}",
    "[{a}, {b}]",
    "any(p.kind == {a} for p in trick)",
    "first(p for p in trick if p.seat == {a})",
    "highest(p for p in trick by {a})",
    "sum(c.rank for c in hand[{a}])",
    "{a} in [{b}]",
    "sorted(c for c in hand[{a}] by -c.rank)",
    "count(x for x in seats if x != {a})",
    "max(x for x in range(0, {a}))",
    "left_of({a})",
    "str({a}) + 'y'",
    "last(p for p in trick)",
]


@st.composite
def dsl_expressions(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(DSL_ATOMS))
    form = draw(st.sampled_from(DSL_FORMS))
    return form.format(a=draw(dsl_expressions(depth - 1)), b=draw(dsl_expressions(depth - 1)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAMES), dsl_expressions(), st.sampled_from(["expr", "block"]))
def test_random_dsl_texts_generate_only_allow_listed_code(name, text, start):
    """Whatever random DSL text compiles, the module it produces passes the allow-list and
    names nothing but the generator's own names."""
    c = _game_compiler(name)
    before = len(c._sources)
    try:
        if start == "expr":
            c.expression(text, (("card", "card"), ("winner", "play"), ("seat", "int")))
        else:
            c.block(f"if {text} {{ end_turn() }}", (("card", "card"), ("winner", "play"), ("seat", "int")))
    except (DSLCompileError, DSLSyntaxError):
        return
    new = "\n\n".join(c._sources[before:])
    allowlist.check(new, c.env)
    for ident in names_in(new):
        assert LOCAL_NAME.match(ident) or GLOBAL_NAME.match(ident), (ident, text)
        assert ident not in ("eval", "os", "__import__"), text


@functools.cache
def _game_compiler(name):
    """The DSL compiler a shipped game was compiled with (its namespace, its module)."""
    rc = RulesetCompiler(*read_document(name), None, {})
    rc.compile()
    return rc.compiler


def test_definition_chains_compile_in_linear_work():
    """``d1: d0 + d0``, ``d2: d1 + d1`` ...: each definition is generated once, not once per use."""
    defs = {"d0": "len(trick)"}
    for i in range(1, 60):
        defs[f"d{i}"] = f"d{i - 1} + d{i - 1}"
    c = compiler(defs)
    c.expression("d59 > 0", (("card", "card"),))  # generates d59 and the chain of definitions it reads
    assert c.source().count("def _d") <= 60
    assert len(c.source()) < 60 * 400


def test_trickkit_compile_prints_the_generated_module(capsys):
    from trickkit.cli.main import main

    assert main(["compile", "sarkophag", "--players", "3", "--param", "hand_size=7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Python generated from sarkophag for 3 seats")
    assert re.search(r"# sarkophag\.yaml:\d+:\d+: \$\.round\[1\]\.tricks\.must_play_if_able", out)
    assert "return 7" in out  # hand_size is a constant of this game: the deal count folds to it
    allowlist.check(out, {n for n in names_in(out) if GLOBAL_NAME.match(n)})
    # the state copier follows, generated for 3 seats: seat 2 is copied, no seat 3
    copier = out[out.index("# the state copier") :]
    assert "def _c0(s):" in copier and "[*a0[2]]" in copier and "a0[3]" not in copier
    assert main(["compile", "no_such_game"]) == 2


def test_a_small_constant_times_a_number_is_inline_and_equals_the_bounded_product():
    from trickkit.dsl import runtime
    from trickkit.dsl.compiler import _SMALL_FACTOR_BOUND

    game = trickkit.load_game("skull_king")
    source = game.rules.generated_source
    assert (
        f"(10 * s.round if -{_SMALL_FACTOR_BOUND} < s.round < {_SMALL_FACTOR_BOUND} else _mul(10, s.round))" in source
    )
    for k in (0, 1, -1, 65535, -65535):  # the inline product and the bounded one agree on both sides of the bound
        for x in (0, 5, -5, _SMALL_FACTOR_BOUND - 1, _SMALL_FACTOR_BOUND, -_SMALL_FACTOR_BOUND, 1 << 4000):
            assert (
                k * x if -_SMALL_FACTOR_BOUND < x < _SMALL_FACTOR_BOUND else runtime.multiply(k, x)
            ) == runtime.multiply(k, x)


def _memo_blocks(source: str) -> list:
    """The ``if mN is not None and KEY in mN:`` tests of memoised parts, as AST nodes."""
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.BoolOp)
        and isinstance(node.test.values[0], ast.Compare)
        and isinstance(node.test.values[0].left, ast.Name)
        and re.fullmatch(r"m\d+", node.test.values[0].left.id)
    ]


@pytest.mark.parametrize("name", ["trumps", "saqqara", "hearts"])
def test_no_memoised_part_inside_another(name):
    """A part memoised inside a larger memoised part would be cached twice per state: the outer
    entry already makes it run at most once, so inner parts are generated plain."""
    source = trickkit.load_game(name).rules.generated_source
    blocks = _memo_blocks(source)
    assert blocks or name == "hearts"
    for block in blocks:
        for inner in block.body + block.orelse:
            assert not any(b is not block for b in _memo_blocks(ast.unparse(inner))), ast.unparse(block)[:400]


def test_sorted_by_keeps_ties_in_order_and_null_keys_last():
    """`sorted(... by K)` (the runtime's `sort_keyed`): ascending keys, equal keys in their
    order (True and 1 are equal keys too), null keys last in their order, as one stable sort."""
    from trickkit.dsl import runtime

    keyed = [(3, "a"), (None, "n1"), (1, "b"), (3, "c"), (None, "n2"), (1, "d")]
    assert runtime.sort_keyed(keyed) == ["b", "d", "a", "c", "n1", "n2"]
    assert keyed[1] == (None, "n1")  # the caller's list is left as it was
    assert runtime.sort_keyed([(True, "x"), (1, "y"), (0, "z")]) == ["z", "x", "y"]
    assert runtime.sort_keyed([(None, 1)]) == [1]
    assert runtime.sort_keyed([]) == []
    with pytest.raises(TypeError):
        runtime.sort_keyed([(1, "x"), ("a", "y")])
