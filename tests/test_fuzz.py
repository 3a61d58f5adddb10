"""Fuzzing hostile and broken input (issue 7): rulesets, DSL text, actions, saved states,
scenario files and game records.

The invariant everywhere: only :class:`trickkit.TrickkitError` subclasses escape, every
example finishes quickly (a per-example alarm turns a hang into a failure), and errors say
where they come from (``file:line:col: $.path`` for ruleset problems, the ruleset location
for DSL runtime errors).

Example counts are small so the whole file runs in well under a minute. Run it longer with::

    TRICKKIT_FUZZ_EXAMPLES=2000 pytest -q tests/test_fuzz.py -s

(``-s`` shows how many inputs of each kind were tried). See docs/robustness.md.
"""

from __future__ import annotations

import collections
import copy
import functools
import json
import os
import random
import re
import sys
import tempfile

import attrs
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit import Action, DSLRuntimeError, IllegalActionError, RulesetError, ScenarioError, StateError, TrickkitError
from trickkit.dsl.hooks import make_hook
from trickkit.engine.loader import read_document, ruleset_text
from trickkit.engine.records import replay_record
from trickkit.lab.scenarios import load_scenario_file, run_scenario
from trickkit.lab.simulation import play_game
from trickkit.rules.ruleset import RulesetCompiler
from trickkit.rules.source import load_yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backstop  # (the hang backstop shared with the other fuzz suite)

# ------------------------------------------------------------------------- settings

_SCALE = int(os.environ.get("TRICKKIT_FUZZ_EXAMPLES", "0") or 0)
"""When set, every fuzz test runs this many examples (the CI defaults are per test, below)."""
HANG_SECONDS = float(os.environ.get("TRICKKIT_FUZZ_HANG_SECONDS", "300"))
"""A backstop, not an assertion: one example still running after this long is reported as a hang
instead of stalling the run. What the guards promise (node caps, evaluation budget, step
counts) is checked by counted limits in deterministic tests (tests/test_limits.py,
tests/test_hostile.py, tests/bad_inputs), so a slow machine cannot fail this suite."""

pytestmark = pytest.mark.fuzz  # a separate CI step: `pytest -m fuzz`

GAMES = trickkit.list_games()
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO_DIR = os.path.join(HERE, "scenarios")
SCENARIO_FILES = sorted(f for f in os.listdir(SCENARIO_DIR) if f.endswith(".yaml"))

TRIED: collections.Counter = collections.Counter()
"""Inputs tried per kind in this run (printed at the end with ``-s``)."""
OUTCOMES: collections.Counter = collections.Counter()
"""How they ended (loaded, which error class ...)."""


def fuzz(default: int):
    """Hypothesis settings: ``default`` examples in CI, ``TRICKKIT_FUZZ_EXAMPLES`` when set."""
    return settings(
        max_examples=_SCALE or default,
        deadline=None,
        derandomize=not _SCALE,
        suppress_health_check=list(HealthCheck),
        database=None,
    )


def no_hang(what: str):
    return backstop.no_hang(what, HANG_SECONDS)


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    if TRIED:
        print("\nfuzz inputs tried per kind:")
        for kind, n in sorted(TRIED.items()):
            print(f"  {kind:32s} {n}")
        print("outcomes:")
        for kind, n in sorted(OUTCOMES.items()):
            print(f"  {kind:48s} {n}")


# ------------------------------------------------------------------------- helpers

_TMP = tempfile.mkdtemp(prefix="trickkit-fuzz-")
_LOCATED = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+): \$")
# problems that concern the file as a whole and may have no line
_WHOLE_FILE = ("empty ruleset", "ruleset too large", "not valid UTF-8", "cannot read", "unknown game")


def write(name: str, data: str | bytes) -> str:
    path = os.path.join(_TMP, name)
    with open(path, "wb") as fh:
        fh.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path


def check_ruleset_error(err: RulesetError) -> None:
    """Every problem is located: a file, a YAML path, and a line unless it is about the whole file."""
    assert err.problems, "RulesetError without problems"
    for p in err.problems:
        assert p.file, p
        assert p.path.startswith("$"), p
        assert p.message, p
        if p.line == 0:
            assert any(w in p.message for w in _WHOLE_FILE) or p.path == "$", f"unlocated problem: {p}"
        else:
            assert _LOCATED.match(str(p)), p


def check_runtime_error(err: TrickkitError) -> None:
    """A DSL runtime error names the ruleset location it comes from."""
    if isinstance(err, DSLRuntimeError):
        assert re.search(r"\.ya?ml:\d+:\d+: \$", str(err)), f"DSLRuntimeError without a location: {err}"


def load_and_play(path: str, seed: int, moves: int = 25) -> str:
    """Load a ruleset file and play a few random actions; return the outcome's name.

    Only TrickkitError may escape; RulesetError must be located; a DSLRuntimeError must
    name the ruleset location.
    """
    try:
        game = trickkit.load_game(path)
    except RulesetError as e:
        check_ruleset_error(e)
        return "RulesetError"
    rng = random.Random(seed)
    try:
        state = game.new_initial_state(seed=seed)
        for _ in range(moves):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if not legal:
                break
            state.apply_action(rng.choice(legal))
        state.observation(0)
        state.scores()
    except TrickkitError as e:
        check_runtime_error(e)
        return f"played: {type(e).__name__}"
    return "loaded and played"


# ------------------------------------------------------------------------- rulesets


@functools.cache
def shipped_doc(name: str):
    return load_yaml(ruleset_text(name), f"{name}.yaml")[0]


def node_paths(doc, path=()):
    """Every node of a document as its path (the root excluded)."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append(path + (k,))
            out += node_paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append(path + (i,))
            out += node_paths(v, path + (i,))
    return out


def get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


DSL_FRAGMENTS = [
    "1 // 0",
    "1 % 0",
    "trick.__class__",
    "__import__('os')",
    "card.__class__.__mro__",
    "().__class__",
    "open('/etc/passwd')",
    "eval('1')",
    "exec",
    "globals()",
    "getattr(card, 'rank')",
    "card._x",
    "__builtins__",
    "range(0, 1000000000)",
    "sum(sum(1 for b in range(0, 90000)) for a in range(0, 90000))",
    "len(5)",
    "abs()",
    "abs(1, 2)",
    "min(1)",
    "'a' + 1",
    "'a' < 1",
    "1 - 'a'",
    "-'x'",
    "null.rank",
    "null[0]",
    "hand[99]",
    "hand['x']",
    "x.y.z",
    "card.colour",
    "trick[0].nope",
    "if true then 1 else 'a'",
    "if false then 1 else 'a'",
    "if false then 1 else null",
    "[1, 'a']",
    "concat([1, 2])",
    "distinct(5)",
    "index_of(null, 1)",
    "seat_holding(5, card)",
    "sorted(x for x in [1, 'a'] by x)",
    "max(x for x in ['a', 1])",
    "highest(x for x in seats by 'a')",
    "can('nope')",
    "can(1)",
    "left_of()",
    "seat_after(1)",
    "str()",
    "99999999999999999999999999999999 * 99999999999999999999",
    "9" * 5000,
    "-" * 3000 + "1",
    "(" * 3000 + "1" + ")" * 3000,
    "not " * 3000 + "true",
    "[" * 2000 + "]" * 2000,
    "a.b" * 1000,
    "hand[" * 1000 + "0" + "]" * 1000,
    "1 +",
    "(",
    ")",
    "@",
    "\x00",
    "'unterminated",
    "if 1 then",
    "for x in y",
    "x = 1",
    "end_game()",
    "move(card, hand, hand)",
    "sum(x for x in 5)",
    "first(x for x in null)",
    "range(5, 0)",
    "range(-100000000, 100000000)",
    "abs(-9223372036854775808)",
    "2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2",
    "seats[num_players * 1000]",
    "str(card) + str(trick)",
    "current_player // 0",
    "round % (round - round)",
]

YAML_SURPRISES = [
    "no",
    "on",
    "off",
    "yes",
    "y",
    "n",
    "1e3",
    "0x1F",
    "0o17",
    "1:20",
    "1_000",
    "~",
    "null",
    ".inf",
    ".nan",
    "2001-12-14",
    "true",
    "-",
    "!!python/object:os.system",
    "!!binary aGVsbG8=",
    "*alias",
    "&anchor x",
    "<<",
    "'",
    '"',
    "{",
    "[",
    "|",
    ">",
    "%YAML 1.1",
    "---",
    "...",
    "@",
    "`",
    "? x",
]


def random_value(draw):
    return draw(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-(10**6), 10**6),
            st.floats(allow_nan=True),
            st.text(max_size=12),
            st.sampled_from(DSL_FRAGMENTS),
            st.lists(st.integers(-3, 3) | st.text(max_size=4), max_size=3),
            st.dictionaries(st.text(max_size=5), st.integers(-3, 3) | st.text(max_size=4), max_size=3),
        )
    )


def rename(draw, key):
    key = str(key)
    how = draw(st.sampled_from(["typo", "case", "prefix", "random", "int"]))
    if how == "typo" and key:
        i = draw(st.integers(0, len(key) - 1))
        return key[:i] + key[i + 1 :] + draw(st.sampled_from("aeiouxs_"))
    if how == "case":
        return key.upper()
    if how == "prefix":
        return draw(st.sampled_from(["$", "x_", "__", "$re"])) + key
    if how == "int":
        return draw(st.integers(-5, 50))
    return draw(st.text(min_size=1, max_size=8))


@st.composite
def mutated_documents(draw):
    """A shipped ruleset document with 1-3 structural mutations, dumped back to YAML text."""
    name = draw(st.sampled_from(GAMES))
    doc = copy.deepcopy(shipped_doc(name))
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        paths = node_paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = get(doc, path[:-1])
        key = path[-1]
        op = draw(st.sampled_from(["delete", "duplicate", "retype", "rename", "splice", "splice", "emptycoll"]))
        ops.append(op)
        if op == "delete":
            del parent[key]
        elif op == "duplicate":
            if isinstance(parent, list):
                parent.insert(key, copy.deepcopy(parent[key]))
            else:
                parent[rename(draw, key)] = copy.deepcopy(parent[key])
        elif op == "retype":
            parent[key] = random_value(draw)
        elif op == "rename":
            if isinstance(parent, dict):
                value = parent.pop(key)
                parent[rename(draw, key)] = value
            else:
                parent[key] = {rename(draw, "x"): parent[key]}
        elif op == "emptycoll":
            parent[key] = draw(st.sampled_from([[], {}, "", None]))
        else:  # splice a DSL fragment into a string (most strings of a ruleset are DSL)
            fragment = draw(st.sampled_from(DSL_FRAGMENTS))
            old = parent[key]
            if isinstance(old, str) and old:
                how = draw(st.sampled_from(["replace", "insert", "append_op", "wrap"]))
                if how == "replace":
                    new = fragment
                elif how == "insert":
                    i = draw(st.integers(0, len(old)))
                    new = old[:i] + fragment + old[i:]
                elif how == "append_op":
                    new = f"({old}) {draw(st.sampled_from(['+', 'and', '//', '==', '??', 'or']))} {fragment}"
                else:
                    new = f"if {fragment} then ({old}) else ({old})"
            else:
                new = fragment
            parent[key] = new
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10**6)
    return name, tuple(ops), text


@st.composite
def mutated_texts(draw):
    """A shipped ruleset's text with a text-level mutation."""
    name = draw(st.sampled_from(GAMES))
    text = ruleset_text(name)
    lines = text.splitlines(keepends=True)
    op = draw(
        st.sampled_from(
            ["truncate", "delete_line", "duplicate_line", "surprise", "garbage", "indent", "swap_lines", "tab"]
        )
    )
    if op == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif op == "delete_line":
        del lines[draw(st.integers(0, len(lines) - 1))]
        text = "".join(lines)
    elif op == "duplicate_line":  # usually a duplicate key
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
        text = "".join(lines)
    elif op == "surprise":  # a YAML 1.1 surprise where a value (often a name) was meant
        candidates = [i for i, ln in enumerate(lines) if re.match(r"^\s*[-\w]+:\s*\S", ln)]
        i = draw(st.sampled_from(candidates))
        head = re.match(r"^(\s*[-\w]+:\s*)", lines[i]).group(1)
        lines[i] = head + draw(st.sampled_from(YAML_SURPRISES)) + "\n"
        text = "".join(lines)
    elif op == "garbage":
        i = draw(st.integers(0, len(text)))
        junk = draw(st.binary(min_size=1, max_size=16)).decode("latin-1")
        text = text[:i] + junk + text[i:]
    elif op == "indent":
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = " " * draw(st.integers(1, 5)) + lines[i]
        text = "".join(lines)
    elif op == "swap_lines":
        i = draw(st.integers(0, len(lines) - 2))
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        text = "".join(lines)
    else:
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = "\t" + lines[i]
        text = "".join(lines)
    return name, op, text


def alias_bomb(levels: int, width: int) -> str:
    out = ["name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        refs = ", ".join(f"*a{i - 1}" for _ in range(width))
        out.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(out) + "\n"


@st.composite
def hostile_texts(draw):
    """Whole documents that are hostile by construction."""
    kind = draw(
        st.sampled_from(
            [
                "empty",
                "whitespace",
                "non_mapping",
                "binary",
                "alias_bomb",
                "deep_list",
                "deep_map",
                "deep_flow",
                "recursive_alias",
                "many_docs",
                "tags",
                "random_text",
            ]
        )
    )
    if kind == "empty":
        text = ""
    elif kind == "whitespace":
        text = draw(st.sampled_from(["\n", "   ", "# only a comment\n", "---\n", "~\n", "null\n"]))
    elif kind == "non_mapping":
        text = draw(st.sampled_from(["- a\n- b\n", "42\n", "'text'\n", "[1, 2]\n", "true\n", "no\n", "1e3\n"]))
    elif kind == "binary":
        return kind, draw(st.binary(max_size=200))
    elif kind == "alias_bomb":
        text = alias_bomb(draw(st.integers(2, 12)), draw(st.integers(2, 10)))
    elif kind == "deep_list":
        d = draw(st.integers(90, 3000))
        text = "x: " + "[" * d + "]" * d + "\n"
    elif kind == "deep_map":
        d = draw(st.integers(90, 400))
        text = "".join("  " * i + f"k{i}:\n" for i in range(d)) + "  " * d + "v\n"
    elif kind == "deep_flow":
        d = draw(st.integers(90, 3000))
        text = "x: " + "{a: " * d + "1" + "}" * d + "\n"
    elif kind == "recursive_alias":
        text = "name: &a [*a]\n"
    elif kind == "many_docs":
        text = "name: a\n---\nname: b\n"
    elif kind == "tags":
        text = (
            f"name: {draw(st.sampled_from(['!!python/name:os.system', '!!set {a}', '!custom x', '!!omap [a: 1]']))}\n"
        )
    else:
        text = draw(st.text(max_size=300))
    return kind, text


@fuzz(120)
@given(mutated_documents(), st.integers(0, 2**32))
def test_mutated_rulesets_fail_cleanly_or_play(case, seed):
    name, ops, text = case
    for op in ops:
        TRIED[f"ruleset: {op}"] += 1
    TRIED["ruleset: mutated documents"] += 1
    path = write("mutated.yaml", text)
    with no_hang(f"loading a mutation of {name} ({ops})"):
        OUTCOMES["mutated document: " + load_and_play(path, seed)] += 1


@fuzz(100)
@given(mutated_texts(), st.integers(0, 2**32))
def test_mutated_ruleset_texts(case, seed):
    name, op, text = case
    TRIED[f"ruleset text: {op}"] += 1
    path = write("text.yaml", text)
    with no_hang(f"loading {name} after {op}"):
        OUTCOMES["mutated text: " + load_and_play(path, seed, moves=10)] += 1


@fuzz(80)
@given(hostile_texts())
def test_hostile_documents(case):
    kind, text = case
    TRIED[f"hostile: {kind}"] += 1
    path = write("hostile.yaml", text)
    with no_hang(f"loading a {kind} document"):
        try:
            trickkit.load_game(path)
        except RulesetError as e:
            check_ruleset_error(e)
            OUTCOMES["hostile: RulesetError"] += 1
        else:  # pragma: no cover - none of these is a ruleset
            pytest.fail(f"a {kind} document loaded")
    if isinstance(text, str):  # the same through the in-memory loader
        with no_hang(f"parsing a {kind} document"):
            try:
                load_yaml(text, "mem.yaml")
            except RulesetError as e:
                check_ruleset_error(e)


@fuzz(40)
@given(
    st.sampled_from(GAMES),
    st.sampled_from(["no", "on", "off", "yes", "1e3", "0x1F", "1:20", "2024-01-01", "~", "true", "12", "1.5"]),
)
def test_yaml_surprises_where_a_name_is_meant(name, word):
    """Names (the ruleset name, zone and variable references) given as YAML 1.1 surprises."""
    TRIED["ruleset: yaml 1.1 surprise in a name"] += 1
    text = re.sub(r"^name: .*$", f"name: {word}", ruleset_text(name), count=1, flags=re.M)
    path = write("surprise.yaml", text)
    with no_hang("surprise"):
        outcome = load_and_play(path, 1, moves=3)
    OUTCOMES["surprise: " + outcome] += 1
    if word in ("true", "~", "12", "1.5", "0x1F"):  # really not a string: must be refused
        assert outcome == "RulesetError"


# ------------------------------------------------------------------------- extends chains


@fuzz(30)
@given(
    st.sampled_from(GAMES),
    st.sampled_from(["self", "cycle", "missing", "missing_shipped", "int", "empty", "deep", "dir", "nul"]),
)
def test_extends_hostile(parent, kind):
    TRIED[f"extends: {kind}"] += 1
    a, b = os.path.join(_TMP, "ext_a.yaml"), os.path.join(_TMP, "ext_b.yaml")
    child = "name: child\nextends: {}\n"
    if kind == "self":
        write("ext_a.yaml", child.format("ext_a.yaml"))
    elif kind == "cycle":
        write("ext_a.yaml", child.format("ext_b.yaml"))
        write("ext_b.yaml", "name: other\nextends: ext_a.yaml\n")
    elif kind == "missing":
        write("ext_a.yaml", child.format("nowhere/missing.yaml"))
    elif kind == "missing_shipped":
        write("ext_a.yaml", child.format(parent[:-1] + "x"))
    elif kind == "int":
        write("ext_a.yaml", child.format("12"))
    elif kind == "empty":
        write("ext_a.yaml", child.format("''"))
        write("ext_b.yaml", "")
    elif kind == "deep":  # a long chain of variants: capped
        for i in range(20):
            write(f"chain{i}.yaml", f"name: c{i}\nextends: chain{i + 1}.yaml\n")
        write("chain20.yaml", f"name: c20\nextends: {parent}\n")
        write("ext_a.yaml", child.format("chain0.yaml"))
    elif kind == "dir":
        write("ext_a.yaml", child.format("./"))
    else:
        write("ext_a.yaml", child.format('"x\\0y.yaml"'))
    with no_hang(f"extends {kind}"):
        try:
            trickkit.load_game(a)
        except RulesetError as e:
            check_ruleset_error(e)
        else:
            pytest.fail(f"extends {kind} loaded")
    del b


# ------------------------------------------------------------------------- random DSL text


@functools.cache
def compiled_ruleset(name: str):
    """(compiler, game, a state in play) for evaluating random DSL against a real game."""
    doc, loc = read_document(name)
    rc = RulesetCompiler(doc, loc, None, {})
    rc.compile()
    game = trickkit.load_game(name)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    for _ in range(6):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return rc, game, state


DSL_TOKENS = [
    "card",
    "trick",
    "winner",
    "seat",
    "seats",
    "hand",
    "round",
    "dealer",
    "num_players",
    "current_player",
    "score",
    "bid",
    "tricks",
    "x",
    "p",
    "c",
    "suit",
    "rank",
    "kind",
    ".",
    ",",
    "(",
    ")",
    "[",
    "]",
    "+",
    "-",
    "*",
    "//",
    "%",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "and",
    "or",
    "not",
    "in",
    "if",
    "then",
    "else",
    "for",
    "by",
    "??",
    "true",
    "false",
    "null",
    "0",
    "1",
    "2",
    "-1",
    "100000",
    "'a'",
    "'red'",
    "sum",
    "count",
    "any",
    "all",
    "min",
    "max",
    "first",
    "last",
    "highest",
    "lowest",
    "list",
    "sorted",
    "len",
    "abs",
    "range",
    "str",
    "distinct",
    "concat",
    "index_of",
    "seat_holding",
    "left_of",
    "right_of",
    "seat_after",
    "can",
    "__class__",
    "__import__",
    "'os'",
    "__dict__",
    "_",
    "=",
    "+=",
    "{",
    "}",
    ";",
    "move",
    "end_game",
    "end_turn",
    "elif",
    "\n",
    "#",
    "@",
    "\\",
    "'",
]


@st.composite
def dsl_texts(draw):
    if draw(st.booleans()):
        tokens = draw(st.lists(st.sampled_from(DSL_TOKENS), max_size=25))
        return " ".join(tokens)
    if draw(st.integers(0, 4)) == 0:
        return draw(st.text(max_size=60))
    return draw(st.sampled_from(DSL_FRAGMENTS))


@fuzz(400)
@given(
    st.sampled_from(GAMES),
    dsl_texts(),
    st.sampled_from(["expr", "block"]),
    st.sampled_from([None, "int", "bool", "list"]),
)
def test_random_dsl_text(name, text, start, want):
    """Compile random text against a real game; run what compiles on a state in play."""
    TRIED[f"dsl: random {start}"] += 1
    rc, _, state = compiled_ruleset(name)
    context = (("card", "card"), ("winner", "play"), ("seat", "int"))
    state = state.clone()
    with no_hang(f"compiling {text!r}"):
        try:
            if start == "expr":
                fn, size, _ = rc.compiler.expression(text, context, want)
            else:
                fn, size = rc.compiler.block(text, context)
        except Exception as e:  # any class: the assertion is about which one
            from trickkit.dsl.compiler import DSLCompileError, DSLSyntaxError

            assert isinstance(e, (DSLCompileError, DSLSyntaxError)), f"{type(e).__name__}: {e} for {text!r}"
            OUTCOMES["dsl: compile error"] += 1
            return
        hook = make_hook(fn, size, 3, f"{name}.yaml:1:1: $.fuzz", text)
        card = state.seat_zones[0][0][0] if state.seat_zones and state.seat_zones[0][0] else 0
        try:
            hook(state, card, (0, card, 0, 0), 0)
            OUTCOMES["dsl: ran"] += 1
        except TrickkitError as e:
            check_runtime_error(e)
            OUTCOMES[f"dsl: {type(e).__name__}"] += 1
        except Exception as e:
            from trickkit.dsl.compiler import GameEnded

            assert isinstance(e, GameEnded), f"{type(e).__name__}: {e} running {text!r}"


@fuzz(60)
@given(st.sampled_from(GAMES), st.sampled_from(DSL_FRAGMENTS), st.integers(0, 2**32))
def test_dsl_fragment_in_every_rule(name, fragment, seed):
    """Put a hostile fragment in a random DSL-bearing place of a ruleset: a located error or a clean game."""
    TRIED["ruleset: dsl fragment in a rule"] += 1
    doc = copy.deepcopy(shipped_doc(name))
    strings = [
        p
        for p in node_paths(doc)
        if isinstance(get(doc, p), str) and p[0] in ("definitions", "round", "score", "game_over", "zones", "deck")
    ]
    rng = random.Random(seed)
    path = rng.choice(strings)
    get(doc, path[:-1])[path[-1]] = fragment
    file = write("fragment.yaml", yaml.safe_dump(doc, sort_keys=False, width=10**6))
    with no_hang(f"{fragment!r} at {path}"):
        OUTCOMES["fragment: " + load_and_play(file, seed)] += 1


# ------------------------------------------------------------------------- the play API


@functools.cache
def game_of(name: str):
    return trickkit.load_game(name)


def state_after(name: str, seed: int, moves: int):
    game = game_of(name)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def finished_state(name: str, seed: int):
    state = game_of(name).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@functools.cache
def finished_json(name: str) -> str:
    return finished_state(name, 5).to_json()


garbage_actions = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "",
            " ",
            "play",
            "play ",
            "bid",
            "bid -1",
            "bid 999999999999999999999",
            "bid 1.5",
            "bid x",
            "PLAY",
            "play \x00",
            "play G7 G7",
            "take 0",
            "take -1",
            "\n",
            "bid 1e3",
            "pass pass",
        ]
    ),
    st.builds(
        lambda a, b: f"{a} {b}",
        st.sampled_from(["play", "bid", "take", "place", "choose", "draw"]),
        st.text(max_size=8),
    ),
)
non_str_actions = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.binary(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.just(object()),
    st.just(Action),
    st.just(b"play x"),
)


def assert_refused_untouched(state, action):
    before = state.to_json()
    view = state.observation_all()
    try:
        state.apply_action(action)
    except IllegalActionError as e:
        assert str(e), "IllegalActionError without a reason"
        assert state.to_json() == before, "a refused action changed the saved state"
        assert state.observation_all() == view, "a refused action changed the state"
        return "refused"
    return "applied"


@fuzz(150)
@given(st.sampled_from(GAMES), st.integers(0, 1000), st.integers(0, 30), garbage_actions)
def test_garbage_action_text(name, seed, moves, text):
    TRIED["action: garbage text"] += 1
    state = state_after(name, seed, moves)
    legal = [a.text for a in state.legal_actions()]
    outcome = assert_refused_untouched(state, text)
    if outcome == "applied":  # only a legal action (up to spacing and the verb's case) may apply
        verb, _, rest = " ".join(text.split()).partition(" ")
        assert (f"{verb.lower()} {rest}" if rest else verb.lower()) in legal, text
    OUTCOMES[f"action text: {outcome}"] += 1


@fuzz(60)
@given(st.sampled_from(GAMES), st.integers(0, 1000), st.integers(0, 20), non_str_actions)
def test_non_text_actions(name, seed, moves, obj):
    TRIED["action: non-str object"] += 1
    state = state_after(name, seed, moves)
    # an int is an action id (issue 16): only one of the legal ids may apply
    is_id = isinstance(obj, int) and not isinstance(obj, bool)
    legal_ids = state.legal_action_ids() if is_id else []
    outcome = assert_refused_untouched(state, obj)
    assert outcome == "refused" or obj in legal_ids, obj
    OUTCOMES[f"non-text action: {outcome}"] += 1


@fuzz(60)
@given(st.sampled_from(GAMES), st.sampled_from(GAMES), st.integers(0, 1000), st.integers(0, 20), st.integers(0, 1000))
def test_action_from_another_game(name, other, seed, moves, pick):
    TRIED["action: Action from another game"] += 1
    state = state_after(name, seed, moves)
    foreign_state = state_after(other, seed + 1, moves)
    foreign = foreign_state.legal_actions()
    if not foreign:
        return
    action = foreign[pick % len(foreign)]
    legal = [a.text for a in state.legal_actions()]
    outcome = assert_refused_untouched(state, action)
    assert outcome == "refused" or action.text in legal
    OUTCOMES[f"foreign action: {outcome}"] += 1


@fuzz(30)
@given(st.sampled_from(GAMES), st.one_of(garbage_actions, non_str_actions, st.sampled_from(["play G7", "bid 1"])))
def test_actions_after_the_end(name, action):
    TRIED["action: after the end"] += 1
    state = game_of(name).state_from_json(finished_json(name))
    assert state.is_terminal()
    assert assert_refused_untouched(state, action) == "refused"
    assert state.legal_actions() == []


# ------------------------------------------------------------------------- saved states


@st.composite
def tampered_states(draw):
    name = draw(st.sampled_from(GAMES))
    state = state_after(name, draw(st.integers(0, 50)), draw(st.integers(0, 40)))
    data = json.loads(state.to_json())
    game = game_of(name)
    kind = draw(
        st.sampled_from(
            [
                "field_retype",
                "field_delete",
                "unknown_field",
                "other_game",
                "hash",
                "players",
                "params",
                "seed",
                "actions_edit",
                "deals",
                "format",
                "not_json",
                "non_object",
                "truncate",
            ]
        )
    )
    if kind == "field_retype":
        data[draw(st.sampled_from(sorted(data)))] = random_value(draw)
    elif kind == "field_delete":
        del data[draw(st.sampled_from(sorted(data)))]
    elif kind == "unknown_field":
        data[draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in data))] = 1
    elif kind == "other_game":
        data["game"] = draw(st.sampled_from([g for g in GAMES if g != name] + ["", "x"]))
    elif kind == "hash":
        data["ruleset_sha256"] = draw(
            st.sampled_from(
                ["0" * 64, data["ruleset_sha256"][::-1], "", None, game_of(draw(st.sampled_from(GAMES))).content_hash]
            )
        )
    elif kind == "players":
        data["players"] = draw(st.sampled_from([0, 1, -1, data["players"] + 1, 10**9, "4", 4.0, True, None]))
    elif kind == "params":
        params = dict(data["params"])
        if params and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(params)))
            params[key] = random_value(draw)
        else:
            params[draw(st.text(max_size=5))] = 1
        data["params"] = params
    elif kind == "seed":
        data["seed"] = draw(st.sampled_from([-1, 1.5, "7", None, True, 2**200, [], {}]))
    elif kind == "actions_edit":
        actions = list(data["actions"])
        cards = list(game.cards)
        how = draw(st.sampled_from(["dup", "drop", "swap", "garbage", "card", "append", "nonstr"]))
        i = draw(st.integers(0, max(len(actions) - 1, 0)))
        if how == "dup" and actions:
            actions.insert(i, actions[i])
        elif how == "drop" and actions:
            del actions[i]
        elif how == "swap" and len(actions) > 1:
            j = min(i + 1, len(actions) - 1)
            actions[i], actions[j] = actions[j], actions[i]
        elif how == "garbage" and actions:
            actions[i] = draw(st.text(max_size=10))
        elif how == "card" and actions:
            actions[i] = "play " + draw(st.sampled_from(cards))
        elif how == "nonstr":
            actions.insert(i, random_value(draw))
        else:
            actions.append(draw(st.sampled_from(["play " + cards[0], "bid 0", "draw", "pass"])))
        data["actions"] = actions
    elif kind == "deals":
        cards = list(game.cards)
        n = game.num_players
        how = draw(st.sampled_from(["dup_card", "unknown_card", "seats", "shape", "missing_card", "nonstr"]))
        hand = draw(st.lists(st.sampled_from(cards), min_size=1, max_size=10))
        if how == "dup_card":
            hand = [hand[0]] * 30
        elif how == "unknown_card":
            hand = hand + ["ZZ99"]
        elif how == "missing_card":
            hand = hand[:-1]
        elif how == "nonstr":
            hand = hand + [draw(st.sampled_from([1, None, [], {}]))]
        deal = [list(hand) for _ in range(n)]
        if how == "seats":
            deal = deal + [list(hand)] if draw(st.booleans()) else deal[:-1]
        data["deals"] = (
            draw(st.sampled_from([[deal], deal, {"a": deal}, "x", [deal, deal]])) if how == "shape" else [deal]
        )
    elif kind == "format":
        data["format"] = draw(st.sampled_from(["", "trickkit-record", None, 1]))
    elif kind == "non_object":
        return name, kind, json.dumps(draw(st.sampled_from([[], 1, "x", None, [data]])))
    elif kind == "truncate":
        text = json.dumps(data)
        return name, kind, text[: draw(st.integers(0, len(text) - 1))]
    else:
        return name, kind, draw(st.one_of(st.text(max_size=20), st.binary(max_size=20), st.none(), st.integers()))
    return name, kind, json.dumps(data)


@fuzz(150)
@given(tampered_states())
def test_tampered_saved_states(case):
    name, kind, text = case
    TRIED[f"saved state: {kind}"] += 1
    game = game_of(name)
    with no_hang(f"state_from_json after {kind}"):
        try:
            state = game.state_from_json(text)
        except StateError as e:
            assert str(e)
            OUTCOMES["saved state: StateError"] += 1
            return
    # a tampering that still describes a game of this ruleset (e.g. fewer actions) loads that game
    OUTCOMES["saved state: loaded"] += 1
    again = game.state_from_json(state.to_json())
    assert again.to_json() == state.to_json()


def test_saved_state_of_another_game_and_changed_ruleset():
    TRIED["saved state: other game (fixed)"] += len(GAMES) ** 2
    for name in GAMES:
        text = state_after(name, 1, 5).to_json()
        for other in GAMES:
            if other != name:
                with pytest.raises(StateError):
                    game_of(other).state_from_json(text)
    text = state_after("sarkophag", 1, 5).to_json()
    changed = write("changed.yaml", ruleset_text("sarkophag").replace("title:", "description: changed\ntitle:", 1))
    changed_game = trickkit.load_game(changed)
    with pytest.raises(StateError, match="different version of ruleset"):
        changed_game.state_from_json(text)


# ------------------------------------------------------------------------- scenario files


@functools.cache
def scenario_text(file: str) -> str:
    with open(os.path.join(SCENARIO_DIR, file), encoding="utf-8") as fh:
        return fh.read()


@st.composite
def mutated_scenarios(draw):
    file = draw(st.sampled_from(SCENARIO_FILES))
    text = scenario_text(file)
    kind = draw(st.sampled_from(["doc", "doc", "truncate", "line", "surprise", "hostile"]))
    if kind == "doc":
        data = yaml.safe_load(text)
        items = data if isinstance(data, list) else data.get("scenarios", [data]) if isinstance(data, dict) else []
        item = copy.deepcopy(draw(st.sampled_from(items)))
        paths = node_paths(item)
        path = draw(st.sampled_from(paths))
        parent, key = get(item, path[:-1]), path[-1]
        op = draw(st.sampled_from(["delete", "retype", "rename"]))
        kind = f"doc {op}"
        if op == "delete":
            del parent[key]
        elif op == "retype":
            parent[key] = random_value(draw)
        elif isinstance(parent, dict):
            parent[rename(draw, key)] = parent.pop(key)
        else:
            parent[key] = {rename(draw, "x"): parent[key]}
        # keep it short: stop the scenario a few actions in
        if isinstance(item, dict) and isinstance(item.get("actions"), list):
            item["actions"] = item["actions"][: draw(st.integers(0, 12))]
        text = yaml.safe_dump(draw(st.sampled_from([[item], item, {"scenarios": [item]}])), sort_keys=False)
    elif kind == "truncate":
        text = text[: draw(st.integers(0, min(len(text), 3000)))]
    elif kind == "line":
        lines = text.splitlines(keepends=True)[:80]
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i]) if draw(st.booleans()) else lines.pop(i)
        text = "".join(lines)
    elif kind == "surprise":
        lines = text.splitlines(keepends=True)[:80]
        candidates = [i for i, ln in enumerate(lines) if re.match(r"^\s*-?\s*[\w]+:\s*\S", ln)] or [0]
        i = draw(st.sampled_from(candidates))
        m = re.match(r"^(\s*-?\s*[\w]+:\s*)", lines[i])
        lines[i] = (m.group(1) if m else "") + draw(st.sampled_from(YAML_SURPRISES)) + "\n"
        text = "".join(lines)
    else:
        kind, text = draw(hostile_texts())
        kind = f"hostile {kind}"
    return kind, text


@fuzz(100)
@given(mutated_scenarios())
def test_malformed_scenario_files(case):
    kind, text = case
    TRIED[f"scenario: {kind.split()[0]}"] += 1
    path = write("scenario.yaml", text)
    with no_hang(f"scenario {kind}"):
        try:
            scenarios = load_scenario_file(path)
        except ScenarioError as e:
            assert str(e)
            for p in getattr(e, "problems", []):
                assert p.path.startswith("$"), p
            OUTCOMES["scenario: ScenarioError"] += 1
            return
        for scenario in scenarios[:2]:
            # a well-formed scenario runs: passes or fails, but never raises
            short = attrs.evolve(scenario, steps=scenario.steps[:15], lines=scenario.lines[:15])
            result = run_scenario(short)
            OUTCOMES[f"scenario: ran ({'passed' if result.passed else 'failed'})"] += 1


# ------------------------------------------------------------------------- game records


@functools.cache
def record_of(name: str) -> dict:
    return play_game(game_of(name), 11, 0)


RECORD_GAMES = ["sarkophag", "saqqara"]


@st.composite
def tampered_records(draw):
    name = draw(st.sampled_from(RECORD_GAMES))
    rec = copy.deepcopy(record_of(name))
    kind = draw(
        st.sampled_from(
            [
                "action_garbage",
                "action_drop",
                "action_dup",
                "action_swap",
                "extra_action",
                "scores",
                "winners",
                "seed",
                "players",
                "params",
                "game",
                "hash",
                "field_retype",
                "field_delete",
                "ruleset",
                "non_object",
            ]
        )
    )
    actions = rec["actions"]
    i = draw(st.integers(0, len(actions) - 1))
    if kind == "action_garbage":
        actions[i] = draw(st.text(max_size=10))
    elif kind == "action_drop":
        del actions[i]
    elif kind == "action_dup":
        actions.insert(i, actions[i])
    elif kind == "action_swap":
        j = min(i + 1, len(actions) - 1)
        actions[i], actions[j] = actions[j], actions[i]
    elif kind == "extra_action":
        actions.append(actions[-1])
    elif kind == "scores":
        rec["scores"] = [s + draw(st.integers(1, 5)) for s in rec["scores"]]
    elif kind == "winners":
        rec["winners"] = draw(st.lists(st.integers(-1, 9), max_size=4))
    elif kind == "seed":
        rec["seed"] = draw(st.sampled_from([-1, 1.5, "x", None, True, rec["seed"] + 1, 2**100]))
    elif kind == "players":
        rec["players"] = draw(st.sampled_from([0, 1, 99, "2", None, [2], {"a": 1}, 2.5, True]))
    elif kind == "params":
        rec["params"] = draw(st.sampled_from([{"nope": 1}, [], "x", None, {"players": 3}, {"": None}]))
    elif kind == "game":
        rec["game"] = draw(st.sampled_from(["", "nope", None, 1, [], {}, "../x.yaml", "skull_king"]))
    elif kind == "hash":
        rec["ruleset_sha256"] = draw(st.sampled_from(["", "0" * 64, None, 5, []]))
    elif kind == "field_retype":
        rec[draw(st.sampled_from(sorted(rec)))] = random_value(draw)
    elif kind == "field_delete":
        del rec[draw(st.sampled_from(sorted(rec)))]
    elif kind == "ruleset":
        rec["ruleset"] = draw(st.sampled_from(["missing.yaml", "", "x\x00y.yaml", "/", _TMP, 5, None, "/dev/null"]))
    else:
        return name, kind, draw(st.sampled_from([[], 1, "x", None, [rec]]))
    return name, kind, rec


@fuzz(80)
@given(tampered_records())
def test_tampered_records_replay(case):
    name, kind, rec = case
    TRIED[f"record: {kind}"] += 1
    with no_hang(f"replaying a record after {kind}"):
        result = replay_record(rec, 1, base=_TMP)
    assert result.status in ("confirmed", "diverged", "refused"), result
    assert result.message
    OUTCOMES[f"record: {result.status}"] += 1
    # a changed game never confirms (a garbage action may by chance be the same text)
    if kind in ("action_garbage", "action_drop", "action_dup", "extra_action", "scores") and not (
        kind == "action_garbage" and rec["actions"] == record_of(name)["actions"]
    ):
        assert result.status != "confirmed", (kind, result)
