"""Round 3 of hostile input, files: outputs never overwrite inputs, are never left half-written,
and ``--param`` refuses the names of ``load_game``'s own arguments in every command."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import trickkit
from trickkit.cli.common import RESERVED_PARAMS, UsageError, parse_params
from trickkit.cli.main import main

SARKOPHAG = Path(__file__).parent.parent / "rulesets" / "sarkophag.yaml"


@pytest.fixture
def mine(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SARKOPHAG, "mine.yaml")
    os.symlink("mine.yaml", "link.yaml")
    return tmp_path / "mine.yaml"


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "mine.yaml", "--games", "1", "--out", "mine.yaml"],
        ["simulate", "mine.yaml", "--games", "1", "--out", "link.yaml"],
        ["simulate", "link.yaml", "--games", "1", "--csv", "mine.yaml"],
        ["simulate", "mine.yaml", "--games", "1", "--report", "./mine.yaml"],
        ["simulate", "mine.yaml", "--games", "1", "--out", "x.jsonl", "--csv", "x.jsonl"],
        ["compare", "sarkophag", "mine.yaml", "--games", "1", "--report", "link.yaml"],
        ["compare", "sarkophag", "mine.yaml", "--games", "1", "--csv", "mine.yaml"],
        ["rulebook", "mine.yaml", "--out", "mine.yaml"],
    ],
)
def test_an_output_may_not_be_an_input(mine, args, capsys):
    before = mine.read_bytes()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "would be overwritten" in err or "writes that file too" in err
    assert mine.read_bytes() == before
    assert sorted(os.listdir(mine.parent)) == ["link.yaml", "mine.yaml"]  # nothing written, no temporary file


def test_a_failed_run_leaves_the_earlier_file_whole(tmp_path):
    """An agent that fails half-way through the games: the earlier records stay as they were,
    and no temporary file is left behind."""
    game = trickkit.load_game(SARKOPHAG, hand_size=3)
    out = tmp_path / "games.jsonl"
    trickkit.simulate(game, 3, seed=1, out=out)
    good = out.read_text()

    class Failing:
        def __init__(self) -> None:
            self.moves = 0

        def step(self, state):
            self.moves += 1
            if self.moves > 20:
                raise RuntimeError("agent crashed")
            return state.legal_actions()[0]

    with pytest.raises(RuntimeError, match="agent crashed"):
        trickkit.simulate(game, 5, seed=2, out=out, agents=[Failing()] * 4)
    assert out.read_text() == good
    assert os.listdir(tmp_path) == ["games.jsonl"]


@pytest.mark.parametrize("key", sorted(RESERVED_PARAMS))
def test_param_refuses_load_game_arguments(key):
    with pytest.raises(UsageError, match=f"--param {key}"):
        parse_params([f"{key}=3"])
    assert parse_params(["hand_size=3"]) == {"hand_size": 3}


@pytest.mark.parametrize("key", sorted(RESERVED_PARAMS))
@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "sarkophag", "--games", "1"],
        ["compare", "sarkophag", "sarkophag", "--games", "1"],
        ["rulebook", "sarkophag"],
        ["lint", str(SARKOPHAG)],
        ["test", "sarkophag"],
        ["play", "sarkophag"],
    ],
)
def test_every_command_gives_a_usage_error_for_reserved_params(command, key, capsys):
    assert main([*command, "--param", f"{key}=x"]) == 2
    err = capsys.readouterr().err
    assert f"--param {key}" in err and "Traceback" not in err
