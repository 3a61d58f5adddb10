"""``trickkit serve`` on the command line: without the ``web`` extra it says how to install it (exit 2)."""

from __future__ import annotations

import sys

from trickkit.cli.main import build_parser, main


def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    assert main(["serve", "--port", "0"]) == 2
    assert 'pip install "trickkit[web]"' in capsys.readouterr().err


def test_serve_arguments():
    args = build_parser().parse_args(["serve", "my.yaml", "--host", "127.0.0.1", "--port", "8123", "--data", "d"])
    assert (args.games, args.host, args.port, args.data) == (["my.yaml"], "127.0.0.1", 8123, "d")
    assert build_parser().parse_args(["serve"]).games == []
