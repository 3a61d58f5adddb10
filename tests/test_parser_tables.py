"""The stored LALR tables (trickkit/dsl/parser_tables.py) parse exactly like a parser built
from grammar.lark, and are regenerated whenever the grammar changes."""

from __future__ import annotations

import lark
from trickkit.dsl import parser, parser_tables
from trickkit.loader import list_games, read_document


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
    spans = [(t.data, t.meta.line, t.meta.column, t.meta.end_pos)
             for t in tree.iter_subtrees() if not t.meta.empty]
    return ("tree", tree, spans)


def test_tables_were_made_from_this_grammar():
    # (lark numbers its LALR states differently from run to run, so the tables themselves
    # cannot be compared with a fresh build; their behaviour is, below)
    assert parser_tables.GRAMMAR_SHA256 == parser.grammar_digest(), (
        "grammar.lark changed: run python -m trickkit.dsl.write_tables")
    source = parser.table_source(parser.stored_parser() or parser.build_parser())
    assert f"GRAMMAR_SHA256 = {parser.grammar_digest()!r}" in source


def test_stored_parser_parses_like_the_built_one():
    stored = parser.stored_parser()
    if stored is None:
        # only another lark version may refuse the tables (then the grammar is built instead)
        assert parser_tables.LARK_VERSION != lark.__version__, "regenerate the stored tables"
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
