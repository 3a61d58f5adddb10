"""Hand-written bad inputs (tests/bad_inputs/), each paired with its exact expected error text.

Every file of the folder except ``*.expected`` is one case; ``NAME.expected`` next to it holds
the exact message (``str()`` of the error; ``NAME.play.expected`` for ``NAME.play.yaml``,
``NAME.state.expected`` for ``NAME.state.json`` ...), with file names relative to the folder (the test
runs there). The suffix says what the file is:

* ``*.yaml``: a ruleset; loading it raises :class:`trickkit.RulesetError`;
* ``*.play.yaml``: a ruleset that loads but fails while played (first legal action each time,
  seed 0, then the scores): :class:`trickkit.DSLRuntimeError` or another TrickkitError;
* ``*.scenario.yaml``: a scenario file; loading it raises :class:`trickkit.ScenarioError`;
* ``*.state.json``: a saved state loaded into the shipped game sarkophag (4 seats);
  ``state_from_json`` raises :class:`trickkit.StateError`.
  ``@HASH@`` and ``@VERSION@`` in the file stand for the shipped ruleset's content hash and
  the trickkit version; ``@HASH12@`` in the expected text for the first 12 hex digits of the hash.

Set ``TRICKKIT_WRITE_EXPECTED=1`` to (re)write the ``.expected`` files from the current
messages, then review the diff.
"""

from __future__ import annotations

import os

import pytest

import trickkit
from trickkit import DSLRuntimeError, RulesetError, ScenarioError, StateError, TrickkitError
from trickkit.lab.scenarios import load_scenario_file
from trickkit.rules import source
from trickkit.rules.source import MAX_TEXT_SIZE

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_inputs")
CASES = sorted(f for f in os.listdir(FOLDER) if not f.endswith(".expected"))


def _error(name: str) -> TrickkitError:
    if name.endswith(".state.json"):
        with open(name, encoding="utf-8") as fh:
            text = fh.read()
        game = trickkit.load_game("sarkophag")
        text = text.replace("@HASH@", game.content_hash).replace("@VERSION@", trickkit.__version__)
        with pytest.raises(StateError) as info:
            game.state_from_json(text)
        return info.value
    if name.endswith(".scenario.yaml"):
        with pytest.raises(ScenarioError) as info:
            load_scenario_file(name)
        return info.value
    if name.endswith(".play.yaml"):
        game = trickkit.load_game(name)
        with pytest.raises(TrickkitError) as info:
            state = game.new_initial_state(seed=0)
            for _ in range(game.rules.max_actions):
                if state.is_terminal():
                    break
                state.apply_action(state.legal_actions()[0])
            state.scores()
        assert not isinstance(info.value, RulesetError)
        return info.value
    with pytest.raises(RulesetError) as info:
        trickkit.load_game(name)
    return info.value


def _expected_text(text: str) -> str:
    return text.replace("@HASH12@", trickkit.load_game("sarkophag").content_hash[:12])


def test_there_are_enough_cases():
    assert len(CASES) >= 25


@pytest.mark.parametrize("name", CASES)
def test_bad_input(name, monkeypatch):
    monkeypatch.chdir(FOLDER)
    error = _error(name)  # a hang is caught by the counted limits, never timed here
    message = str(error)
    if isinstance(error, DSLRuntimeError):  # names the ruleset location
        assert ".yaml:" in message and ": $." in message, message
    expected_file = os.path.splitext(name)[0] + ".expected"
    if os.environ.get("TRICKKIT_WRITE_EXPECTED"):
        with open(expected_file, "w", encoding="utf-8") as fh:
            fh.write(message + "\n")
        return
    with open(expected_file, encoding="utf-8") as fh:
        expected = _expected_text(fh.read().rstrip("\n"))
    assert message == expected


def test_alias_bomb_is_rejected_fast(monkeypatch):
    """The size check visits each distinct YAML node once (memoised), so a bomb that expands to
    10**10 nodes is refused after a counted, small amount of work (no wall-clock limit)."""
    monkeypatch.chdir(FOLDER)
    visits = []
    children = source._Builder._children

    def counting(node, path):
        visits.append(path)
        return children(node, path)

    monkeypatch.setattr(source._Builder, "_children", staticmethod(counting))
    with pytest.raises(RulesetError, match="alias bomb"):
        trickkit.load_game("alias_bomb.yaml")
    assert 0 < len(visits) < 200, f"{len(visits)} nodes visited"


def test_huge_file_is_refused_before_parsing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open("huge.yaml", "w") as fh:
        fh.write("name: huge\n")
        fh.write(("# " + "x" * 97 + "\n") * (MAX_TEXT_SIZE // 100 + 1))
    parsed = []

    def reader_must_not_run(*args, **kwargs):
        parsed.append(args)
        raise AssertionError("the YAML reader ran on a file over the size limit")

    monkeypatch.setattr(source, "load_yaml", reader_must_not_run)
    with pytest.raises(RulesetError) as info:
        trickkit.load_game("huge.yaml")
    assert str(info.value) == f"huge.yaml: $: ruleset too large (over {MAX_TEXT_SIZE:,} bytes)"
    assert parsed == [], "the YAML reader ran on a file over the size limit"
