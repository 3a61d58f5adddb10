"""Tests for trickkit.rules.source: safe YAML loading with positions."""

from __future__ import annotations

import math

import pytest

from trickkit.errors import RulesetError
from trickkit.rules.source import Locator, format_path, load_yaml, load_yaml_file

RULESET = """\
name: whist
players:
  min: 4
phases:
  - deal
  - name: play
    winner: highest
table: {0: [a], 2: [b, c]}
"""


def problems(text: str) -> list[str]:
    with pytest.raises(RulesetError) as info:
        load_yaml(text, "r.yaml")
    return [str(p) for p in info.value.problems]


def test_data_is_plain_and_int_keys_stay_ints():
    data, locator = load_yaml(RULESET, "r.yaml")
    assert data == {
        "name": "whist",
        "players": {"min": 4},
        "phases": ["deal", {"name": "play", "winner": "highest"}],
        "table": {0: ["a"], 2: ["b", "c"]},
    }
    assert locator.filename == "r.yaml"


def test_positions_are_exact_for_nested_keys_and_items():
    _, loc = load_yaml(RULESET, "r.yaml")
    assert loc.position(()) == (1, 1)
    assert loc.position(("name",)) == (1, 7)
    assert loc.position(("players", "min")) == (3, 8)
    assert loc.key_position(("players", "min")) == (3, 3)
    assert loc.position(("phases", 0)) == (5, 5)
    assert loc.position(("phases", 1)) == (6, 5)
    assert loc.position(("phases", 1, "winner")) == (7, 13)
    assert loc.key_position(("phases", 1, "winner")) == (7, 5)
    assert loc.position(("table", 2, 1)) == (8, 24)


def test_position_falls_back_to_ancestor_then_zero():
    _, loc = load_yaml(RULESET, "r.yaml")
    assert loc.position(("phases", 1, "missing", 3)) == (6, 5)
    assert loc.key_position(("phases", 0)) == (5, 5)
    assert Locator("x").position(("a",)) == (0, 0)


def test_locator_problem():
    _, loc = load_yaml(RULESET, "r.yaml")
    assert str(loc.problem(("phases", 1, "winner"), "bad")) == "r.yaml:7:13: $.phases[1].winner: bad"
    assert str(loc.problem(("phases", 1, "winner"), "bad", at_key=True)) == ("r.yaml:7:5: $.phases[1].winner: bad")


def test_format_path():
    assert format_path(()) == "$"
    assert format_path(("phases", 2, "winner")) == "$.phases[2].winner"
    assert format_path(("params", "limit")) == "$.params.limit"
    assert format_path(("odd key", "x-y", "_ok1")) == '$["odd key"]["x-y"]._ok1'
    assert Locator.format_path(("a",)) == "$.a"


def test_yaml_11_words_stay_strings():
    data, _ = load_yaml(
        "w: [yes, no, on, off, y, n, Yes, NO, true, False, TRUE]\nt: 2001-12-14\nsexa: 1:20\nexp: 1e3\nunder: 1_000\n",
        "r.yaml",
    )
    assert data["w"] == ["yes", "no", "on", "off", "y", "n", "Yes", "NO", True, False, True]
    assert data["t"] == "2001-12-14"
    assert data["sexa"] == "1:20"
    assert data["exp"] == "1e3"
    assert data["under"] == "1_000"


def test_numbers_and_nulls():
    data, _ = load_yaml("n: [10, -3, 0x1F, 0o17, 1.5, .5, 2., 1.5e3, .inf, -.inf, ~, null, '', '10']\ne:\n", "r.yaml")
    assert data["n"][:9] == [10, -3, 31, 15, 1.5, 0.5, 2.0, 1500.0, math.inf]
    assert data["n"][9:] == [-math.inf, None, None, "", "10"]
    assert data["e"] is None
    assert all(type(v) is int for v in data["n"][:4])
    assert math.isnan(load_yaml("x: .nan", "r.yaml")[0]["x"])


def test_duplicate_key_error_text_and_location():
    assert problems("deck: a\nplayers:\n  min: 1\n  min: 2\ndeck: b\n") == [
        "r.yaml:4:3: $.players.min: duplicate key 'min' (first at line 3)",
        "r.yaml:5:1: $.deck: duplicate key 'deck' (first at line 1)",
    ]


def test_duplicate_int_keys():
    assert problems("t: {0: a, 00: b}\n") == ["r.yaml:1:11: $.t[0]: duplicate key 0 (first at line 1)"]


def test_syntax_error_is_located():
    assert problems("a: [1, 2\nb: 3\n") == [
        "r.yaml:2:2: $: YAML syntax error: expected ',' or ']', but got ':' (while parsing a flow sequence)"
    ]


@pytest.mark.parametrize("text", ["", "   \n\n", "# only a comment\n", "---\n", "~\n"])
def test_empty_ruleset(text):
    assert problems(text) == ["r.yaml: $: empty ruleset"]


def test_top_level_must_be_mapping():
    assert problems("- a\n- b\n") == ["r.yaml:1:1: $: top level must be a mapping, got a list"]
    assert problems("just text\n") == ["r.yaml:1:1: $: top level must be a mapping, got a scalar"]


def test_more_than_one_document():
    assert problems("a: 1\n---\nb: 2\n") == ["r.yaml:2:1: $: more than one YAML document (only one is allowed)"]


def test_merge_keys_rejected():
    assert problems("base: &b {x: 1}\nother:\n  <<: *b\n") == [
        "r.yaml:3:3: $.other: merge keys ('<<') are not supported"
    ]


def test_unsupported_tags_rejected():
    assert problems("a: !!python/object/apply:os.system ['true']\n") == [
        "r.yaml:1:4: $.a: unsupported tag '!!python/object/apply:os.system'"
    ]
    assert problems("a: !!binary aGk=\n") == ["r.yaml:1:4: $.a: unsupported tag '!!binary'"]


def test_bad_key_types_rejected():
    assert problems("true: 1\n") == ["r.yaml:1:1: $: mapping key 'true' must be a string or an integer (quote it)"]


def test_aliases_are_allowed_and_expanded():
    data, loc = load_yaml("a: &x [1, 2]\nb: *x\n", "r.yaml")
    assert data == {"a": [1, 2], "b": [1, 2]}
    assert data["a"] is not data["b"]
    assert loc.position(("b", 1)) == (1, 11)


def test_alias_bomb_rejected():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    errs = problems("\n".join(lines) + "\n")
    assert errs == ["r.yaml:7:4: $.g: document expands to more than 1,000,000 nodes (alias bomb?)"]


def test_recursive_alias_rejected():
    assert problems("a: &a [1, *a]\n") == ["r.yaml:1:4: $.a[1]: recursive alias (a node contains itself)"]


def test_nesting_depth_capped():
    assert problems("a: " + "[" * 150 + "]" * 150 + "\n") == ["r.yaml:1:103: $: nesting deeper than 100 levels"]
    chain = "a0: &a0 [1]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 120))
    assert problems(chain) == ["r.yaml:99:6: $.a99[0]: nesting deeper than 100 levels"]


def test_text_size_capped():
    assert problems("a: '" + "x" * 5_000_000 + "'\n") == [
        "r.yaml: $: ruleset too large (5,000,006 characters, limit 5,000,000)"
    ]


def test_control_characters_rejected():
    assert problems("a: 1\nb: \x00\n") == [
        "r.yaml:2:4: $: unacceptable character #x0000 (special characters are not allowed)"
    ]


def test_load_yaml_file(tmp_path):
    path = tmp_path / "game.yaml"
    path.write_bytes("\ufeffname: \u00e9cart\u00e9\n".encode("utf-8"))
    data, loc = load_yaml_file(path)
    assert data == {"name": "\u00e9cart\u00e9"}
    assert loc.filename == str(path)
    assert loc.position(("name",)) == (1, 7)


def test_binary_garbage_file(tmp_path):
    path = tmp_path / "garbage.yaml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    with pytest.raises(RulesetError) as info:
        load_yaml_file(path)
    assert [str(p) for p in info.value.problems] == [f"{path}: $: not valid UTF-8 text (bad byte 0x89 at offset 0)"]
    assert info.value.problems[0].line == 0


def test_read_header_reads_only_as_far_as_it_needs():
    from trickkit.rules.source import read_header

    keys = frozenset({"name", "players"})
    text = "format: 1\nname: x\nplayers: {min: 2, max: 4}\nrest: [unclosed\n"  # never read that far
    assert read_header(text, keys) == {"name": "x", "players": {"min": 2, "max": 4}}
    for text in (
        "extends: y\nname: x\nplayers: 2\n",  # a variant: its parents may say more
        "base: &b {min: 2}\nname: x\nplayers: *b\n",  # anchors: read it all
        "name: x\nname: y\nplayers: 2\n",  # a duplicate key is the whole read's to report
        "- a list\n",
        "name: [x\n",
        "1: x\nname: x\nplayers: 2\n",
        "name: x\n",
    ):
        assert read_header(text, keys) is None, text


# -- libyaml's events (FAST_YAML) against the pure-Python parser ------------------------------

from trickkit.rules import source  # noqa: E402

# texts where libyaml and PyYAML could disagree: each is read exactly as the pure-Python parser
# reads it (most by falling back to it)
PROBLEM_INPUTS = [
    "a: 1\n\tb: 2\n",
    "a:\t1\nb: [1,\t2]\n",
    "a: 1\r\nb: 2\r\n",
    "a: 1\rb: 2\r",
    "\ufeffa: 1\n",
    "a: x\x07y\n",
    "a: 1\u2028b: 2\n",
    "a: 1\x85b: 2\n",
    "a: '\U0001f600'\nb: 1\n",
    'a: "\\U0001F600"\n',
    'a: "\\ud800"\n',
    "a: !!str 3\nb: !!int '4'\n",
    "a: !x 1\n",
    "a: ! 1\n",
    "a: !!map {b: 1}\n",
    "a:\nb: ~\nc: ''\n",
    "a: {b: , c: d}\n",
    "a: [b:c, d]\n",
    "a: [b: c, d]\n",
    "a: {b:c}\n",
    "a: [-x, -1, -]\n",
    "a: [?x, x?]\n",
    "a: [x#y, z]\n",
    "? a\n: 1\n",
    "? [a, b]\n: 1\n",
    "%YAML 1.1\n---\na: 1\n",
    "%TAG !e! tag:e.com,2000:\n---\na: !e!x 1\n",
    "--- \na: 1\n...\n",
    "a: 1\n---\nb: 2\n",
    "a: &x [1, 2]\nb: *x\nc: *y\n",
    "a: &x 1\nb:\n  <<: *x\n",
    'a: "x\\ty\\n\\/\\e"\n',
    'a: "line\\\n  cont"\n',
    'a: "q \\" and \\\\"\n',
    "a: |2\n   x\n  y\n",
    "a: >-\n  x\n\n  y\n",
    "a: |+\n  x\n\n",
    "k" * 1100 + ": 1\n",
    "a: b\n  c\n  d\n",
    "a: x # c\nb: y#z\n",
    "a: b: c\n",
    "a: [1, 2\nb: 3\n",
    "- a\n- b\n",
    "just text\n",
    "",
    "# nothing\n",
    "a: 0x1F\nb: .inf\nc: 1e3\n",
    "a: {0: x, 00: y}\n",
    "a: 1\na: 2\n",
    "a:\n  - [1, {b: [2, {c: 3}]}]\n",
    "a: \u00e9t\u00e9\nb: \u00e9\n",
    "a: 'it''s'\nb: \"x\"\n",
    "a: [a, b, ]\n",
    "a: {a: 1, }\n",
    "a: [,]\n",
    "a: -\n",
    "- - -\n",
    "a: \ue000\ufffd\n",
    "a: \ufffe\n",
    "a: x\n b: y\n",
    "a:\n- 1\n- 2\n",
    "a: [\n  1,\n  2\n]\n",
    "a: '\n  multi\n\n  line'\n",
    'a: "\n  multi\n\n  line"\n',
    "t: " + "[" * 150 + "]" * 150 + "\n",
]


def _outcome(text: str, fast: bool, monkeypatch):
    monkeypatch.setattr(source, "FAST_YAML", fast)
    try:
        data, loc = load_yaml(text, "r.yaml")
    except RulesetError as e:
        return ("error", [str(p) for p in e.problems])
    return ("ok", repr(data), loc._values, loc._keys)


def _fast_reads(text: str) -> bool:
    """Whether libyaml's events are used for ``text`` (not refused, no error)."""
    if not source._fast_parser_ok(text):
        return False
    try:
        source._build(source._compose_fast(text), "r.yaml", lambda *a: RulesetError([]))
    except Exception:
        return False
    return True


@pytest.mark.parametrize("text", PROBLEM_INPUTS)
def test_problem_inputs_read_alike(text, monkeypatch):
    assert _outcome(text, True, monkeypatch) == _outcome(text, False, monkeypatch)


def test_shipped_rulesets_use_libyaml_events_and_read_alike(monkeypatch):
    from trickkit.engine.loader import list_games, ruleset_text

    for name in list_games():
        text = ruleset_text(name)
        assert _fast_reads(text), name  # else loading is several times slower again
        assert _outcome(text, True, monkeypatch) == _outcome(text, False, monkeypatch), name


def test_fast_path_refuses_what_it_should():
    for text in (
        "a: 1\n\tb: 2\n",
        "a: 1\r\n",
        "\ufeffa: 1\n",
        "a: !!str 3\n",
        "a:\nb: 1\n",
        "a: [b:c]\n",
        'a: "\\t"\n',
        "%YAML 1.1\n---\na: 1\n",
        "a: '\U0001f600'\n",
    ):
        assert not _fast_reads(text), text
    assert _fast_reads('a: [1, -2, x]\nb: "q \\" \\\\"\nc: {d: e}\n')


_MUTATION_PIECES = list(":-#[]{},'\"&*!|>?%@` \n\n  .0129aZ_=\\") + [
    "\t",
    "\r",
    "- ",
    ": ",
    " #",
    "&a ",
    "*a",
    "!!str ",
    "? ",
    "---\n",
    "...\n",
    "|\n",
    ">-\n",
    '"\\u00e9"',
    "\u00e9",
    "\U0001f600",
    "\u2028",
    "\x85",
    "\ufeff",
    "[a: b]",
    "{a, b}",
    "[a:b]",
    "{? a}",
    "- -",
    ":x",
    "-x",
    "~",
    "''",
]


def _mutated(text: str, rng) -> str:
    for _ in range(rng.randint(1, 3)):
        op, i = rng.randrange(7), rng.randrange(len(text) + 1)
        if op <= 1:
            text = text[:i] + rng.choice(_MUTATION_PIECES) + text[i:]
        elif op == 2:
            text = text[:i] + text[i + rng.randint(1, 3) :]
        elif op == 3 and i + 1 < len(text):
            text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        else:
            lines = text.split("\n")
            j = rng.randrange(len(lines))
            if op == 4:
                lines.insert(j, lines[rng.randrange(len(lines))])
            elif op == 5:
                del lines[j]
            else:
                lines[j] = " " * rng.randint(1, 2) + lines[j] if rng.random() < 0.5 else lines[j][1:]
            text = "\n".join(lines)
    return text


def test_mutated_rulesets_read_alike(monkeypatch):
    import random

    from trickkit.engine.loader import list_games, ruleset_text

    texts = [ruleset_text(name) for name in list_games()]
    rng = random.Random(12)
    fast = 0
    for _ in range(400):
        text = _mutated(rng.choice(texts), rng)
        fast += _fast_reads(text)
        assert _outcome(text, True, monkeypatch) == _outcome(text, False, monkeypatch), text
    assert fast > 100  # most mutations keep the text plain enough for libyaml's events
