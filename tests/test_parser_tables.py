"""The stored LALR tables (trickkit/dsl/parser_tables.py) parse exactly like a parser built
from grammar.lark, and are regenerated whenever the grammar changes."""

from __future__ import annotations

import lark

from trickkit.dsl import parser, parser_tables
from trickkit.engine.loader import list_games, read_document


def _dsl_texts() -> set[str]:
    """Every text of every shipped ruleset (most are DSL; the rest must fail alike)."""
    texts: set[str] = set()

    def walk(value):
        if isinstance(value, str):
            texts.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for name in list_games():
        walk(read_document(name)[0])
    return texts


def _outcome(p: lark.Lark, text: str, start: str):
    try:
        tree = p.parse(text, start=start)
    except lark.exceptions.UnexpectedInput as err:
        return ("error", type(err).__name__, err.line, err.column)
    spans = [(t.data, t.meta.line, t.meta.column, t.meta.end_pos) for t in tree.iter_subtrees() if not t.meta.empty]
    return ("tree", tree, spans)


def test_tables_were_made_from_this_grammar():
    # (lark numbers its LALR states differently from run to run, so the tables themselves
    # cannot be compared with a fresh build; their behaviour is, below)
    assert parser.grammar_digest() == parser_tables.GRAMMAR_SHA256, (
        "grammar.lark changed: run python -m trickkit.dsl.write_tables"
    )
    source = parser.table_source(parser.stored_parser() or parser.build_parser())
    assert f"GRAMMAR_SHA256 = {parser.grammar_digest()!r}" in source


def test_stored_parser_parses_like_the_built_one():
    stored = parser.stored_parser()
    if stored is None:
        # only another lark version may refuse the tables (then the grammar is built instead)
        assert lark.__version__ != parser_tables.LARK_VERSION, "regenerate the stored tables"
        return
    built = parser.build_parser()
    texts = _dsl_texts() | {"a +", "1 + + 2", "if x then", "x[0].rank < y.z", "a += 1; b = 2"}
    assert len(texts) > 100
    for text in sorted(texts):
        for start in ("expr", "block"):
            assert _outcome(stored, text, start) == _outcome(built, text, start), (text, start)


def test_tables_from_another_grammar_are_not_used(monkeypatch):
    monkeypatch.setattr(parser_tables, "GRAMMAR_SHA256", "0" * 64)
    assert parser.stored_parser() is None
    monkeypatch.setattr(parser_tables, "GRAMMAR_SHA256", parser.grammar_digest())
    monkeypatch.setattr(parser_tables, "LARK_VERSION", "0.0.0")
    assert parser.stored_parser() is None


# -- the lean driver (trickkit/dsl/lalr.py) builds lark's trees --------------------------------


def _shape(x):
    """Everything of a parse result: tree names, every position lark records, tokens' types."""
    if isinstance(x, lark.Tree):
        return ("tree", x.data, sorted(vars(x.meta).items()), [_shape(c) for c in x.children])
    if isinstance(x, lark.Token):
        return ("token", x.type, str(x), x.start_pos, x.line, x.column, x.end_line, x.end_column, x.end_pos)
    return ("value", x)


def _lark_shape(p: lark.Lark, text: str, start: str):
    try:
        return _shape(p.parse(text, start=start))
    except lark.exceptions.UnexpectedInput:
        return None  # the driver must refuse it too (lark then reports the error)


_PIECES = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ";",
    " ",
    "\n",
    "#c\n",
    "if ",
    " then ",
    " else ",
    " and ",
    " or ",
    "not ",
    " in ",
    "??",
    "==",
    "=",
    "+=",
    "-",
    "+",
    "*",
    "//",
    "%",
    "<",
    "'x'",
    '"y"',
    "0",
    "12",
    "a",
    "let ",
    "for ",
    " by ",
    "elif",
    "true",
    "null",
    "x.y",
    "f(",
    "\t",
    "if_",
    "notx",
    "ina",
]


def _mutated(text: str, rng) -> str:
    for _ in range(rng.randint(1, 3)):
        i, op = rng.randrange(len(text) + 1), rng.randrange(3)
        if op == 0:
            text = text[:i] + rng.choice(_PIECES) + text[i:]
        elif op == 1:
            text = text[:i] + text[i + rng.randint(1, 4) :]
        else:  # copy a slice elsewhere
            j, k = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
            text = text[:i] + text[j:k] + text[i:]
    return text


def test_driver_parses_exactly_like_lark():
    import random

    from trickkit.dsl import lalr

    reference = parser.stored_parser() or parser.build_parser()
    driver = lalr.driver(parser_tables.TABLES, parser._decoded)
    assert driver is not None
    texts = sorted(_dsl_texts())
    rng = random.Random(12)
    cases = [(t, s) for t in texts for s in ("expr", "block")]
    cases += [(_mutated(rng.choice(texts), rng), rng.choice(("expr", "block"))) for _ in range(3000)]
    parsed = 0
    for text, start in cases:
        want = _lark_shape(reference, text, start)
        got = driver.parse(text, start)
        assert (None if got is None else _shape(got)) == want, (text, start)
        parsed += want is not None
    assert parsed > 600  # the shipped texts and a good share of the mutations parse


def test_parse_uses_the_driver_and_lark_reports_the_errors(monkeypatch):
    assert parser._driver() is not None  # the stored tables are this grammar's: loading uses the driver
    parser._parse_cached.cache_clear()
    calls = []
    real = parser._parser

    def counted():
        calls.append(1)
        return real()

    monkeypatch.setattr(parser, "_parser", counted)
    parser.parse("a.b + f(1, 'x')", "expr")
    assert not calls
    import pytest

    with pytest.raises(parser.DSLSyntaxError) as info:
        parser.parse("a +", "expr")
    assert calls and "unexpected end of text" in str(info.value)
    parser._parse_cached.cache_clear()


def test_driver_is_not_used_for_other_tables(monkeypatch):
    parser._driver.cache_clear()
    try:
        monkeypatch.setattr(parser_tables, "GRAMMAR_SHA256", "0" * 64)
        assert parser._driver() is None
    finally:
        parser._driver.cache_clear()
