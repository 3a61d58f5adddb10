"""The ``trickkit rulebook`` command: a ruleset's rulebook computed from its rules, as Markdown or HTML."""

from __future__ import annotations

import argparse
from typing import Any

from trickkit.cli.common import check_out, check_outputs, parse_params

__all__ = ["cmd_rulebook", "register"]


def register(sub: Any) -> None:
    """Add the ``rulebook`` command to the ``trickkit`` subcommands."""
    p = sub.add_parser(
        "rulebook",
        help="a ruleset's rulebook computed from its rules: deck, flow, trick winners, duties, bids, scoring, views",
    )
    p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("--format", choices=("md", "html"), default="md", help="Markdown (default) or an HTML page")
    p.add_argument("--out", default=None, metavar="PATH", help="write to this file (default: standard output)")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the ruleset's default)")
    p.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="override a game parameter (repeatable)"
    )
    p.set_defaults(func=cmd_rulebook)


def cmd_rulebook(args: argparse.Namespace) -> int:
    check_outputs([args.game], {"--out": args.out})
    if args.out:
        check_out(args.out)
    from trickkit.lab.rulebook import rulebook

    text = rulebook(args.game, args.format, args.players, **parse_params(args.param))
    if args.out:
        from trickkit.lab.files import atomic_writer

        with atomic_writer(args.out) as f:  # never a half-written file in place of a good one
            f.write(text)
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0
