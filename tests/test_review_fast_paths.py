"""Review of the load-time fast paths: libyaml's events (source.FAST_YAML) and the lean LALR
driver (parser.LALR_DRIVER) must give exactly what the slow paths give."""

from __future__ import annotations

import math

import pytest

from trickkit.errors import RulesetError
from trickkit.rules import source


def _norm(x):
    if isinstance(x, dict):
        return ("d", [(_norm(k), _norm(v)) for k, v in x.items()])
    if isinstance(x, list):
        return ("l", [_norm(v) for v in x])
    if isinstance(x, float) and math.isnan(x):
        return ("nan",)
    return (type(x).__name__, x)


def _yaml_outcome(text: str, fast: bool, monkeypatch):
    monkeypatch.setattr(source, "FAST_YAML", fast)
    try:
        data, loc = source.load_yaml(text, "r.yaml")
    except RulesetError as e:
        return ("error", [(p.line, p.column, p.path, p.message) for p in e.problems])
    return ("ok", _norm(data), list(loc._values.items()), list(loc._keys.items()))


@pytest.mark.parametrize(
    "text",
    [
        "a: |#\n",  # PyYAML: "expected chomping or indentation indicators, but found '#'"; libyaml: ''
        "a: >-#c\n  x\n",
        "a: |2#\n  x\n",
    ],
)
def test_block_scalar_header_with_comment_glued_reads_alike(text, monkeypatch):
    assert _yaml_outcome(text, True, monkeypatch) == _yaml_outcome(text, False, monkeypatch)
