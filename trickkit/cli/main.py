"""The ``trickkit`` entry point: the argument parser of every command (list, validate, simulate, compare,
check, play, diff, replay, test, lint, rulebook, serve ...), and the dispatch to its module.

Exit codes: 0 success; 1 a validation or scenario check failed, a replayed record
diverged or was refused, an invariant failed (``test``) or lint found something; 2 usage
errors and games that cannot be loaded.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence

from trickkit.cli.checks import cmd_check, cmd_lint, cmd_test, testing_checks
from trickkit.cli.common import UsageError, api, check_seed, parse_params
from trickkit.cli.games import cmd_compile, cmd_diff, cmd_list, cmd_replay, cmd_show, cmd_validate
from trickkit.cli.play import cmd_play
from trickkit.cli.rulebook import register as register_rulebook
from trickkit.cli.runs import cmd_compare, cmd_simulate
from trickkit.cli.serve import add_serve_parser
from trickkit.errors import TrickkitError

__all__ = ["build_parser", "main", "parse_params"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trickkit", description="Card games as YAML rulesets, played by one engine.")
    parser.add_argument("--version", action="version", version=f"trickkit {api().__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("list", help="list the shipped games")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="write a shipped ruleset's YAML to standard output, to copy and edit")
    p.add_argument("game", metavar="GAME", help="shipped game name (see 'trickkit list')")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("validate", help="load rulesets and report every problem")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cmd_validate)

    def game_args(p: argparse.ArgumentParser, seed_help: str = "seed (default 0)") -> None:
        p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
        p.add_argument("--players", type=int, default=None, help="number of players")
        p.add_argument("--seed", type=int, default=0, help=seed_help)
        p.add_argument(
            "--param", action="append", default=[], metavar="KEY=VALUE", help="override a game parameter (repeatable)"
        )

    p = sub.add_parser("simulate", help="play many games with agents (random unless --agents says otherwise)")
    game_args(p)
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes, or Ray CPUs with --backend ray (default 1)")
    p.add_argument(
        "--backend",
        choices=("process", "ray"),
        default="process",
        help="where parallel games run: worker processes here, or Ray (pip install 'trickkit[ray]')",
    )
    p.add_argument(
        "--address", default=None, help="Ray cluster address for --backend ray (default: start a local Ray instance)"
    )
    p.add_argument("--out", default=None, metavar="FILE.jsonl", help="write one JSON line per game")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.add_argument(
        "--agents",
        default=None,
        metavar="SPEC,SPEC,...",
        help="one agent per seat (or one for all): random, first, or ismcts, each with options as "
        "NAME:KEY=VALUE:..., e.g. 'ismcts:iterations=100,random,random,random' (default: random)",
    )
    p.add_argument(
        "--agent-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option for every listed agent that has it, e.g. iterations=100 (repeatable)",
    )
    p.add_argument(
        "--coverage",
        action="store_true",
        help="count which action kinds, if-branches, cards and effects fired, and list what never did",
    )
    p.add_argument("--csv", default=None, metavar="FILE.csv", help="write the per-seat statistics as CSV")
    p.add_argument(
        "--report",
        default=None,
        metavar="FILE.html",
        help="write a self-contained HTML report with plots (needs pip install 'trickkit[lab]')",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "compare", help="play rulesets (variants) on the same seeds and compare them with confidence intervals"
    )
    p.add_argument(
        "rulesets",
        nargs="+",
        metavar="GAME",
        help="shipped game names or ruleset paths, the first being the baseline; GAME@k=v,k=v "
        "gives that variant its own parameter values",
    )
    p.add_argument("--games", type=int, default=100, help="games per variant (default 100)")
    p.add_argument(
        "--seed", type=int, default=0, help="master seed: game i of every variant shares its seeds (default 0)"
    )
    p.add_argument("--players", type=int, default=None, help="number of players (every variant)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter of every variant (repeatable)",
    )
    p.add_argument(
        "--agents",
        default=None,
        metavar="AGENT[,AGENT...]",
        help="random (default), first, or module:attribute (a factory called with an RNG); "
        "one for every seat or one per seat",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; the same results)")
    p.add_argument("--csv", default=None, metavar="FILE.csv", help="write every statistic as CSV")
    p.add_argument(
        "--report",
        default=None,
        metavar="FILE.html",
        help="write a self-contained HTML report with plots (needs pip install 'trickkit[lab]')",
    )
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("check", help="run scenario files (directories are searched for *.yaml)")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "play", help="play one seat in the terminal against agents (random unless --agents says otherwise)"
    )
    game_args(
        p,
        seed_help="seed of the deal and of the other seats' moves (default: a fresh random "
        "seed, shown when the game ends)",
    )
    p.add_argument("--seat", type=int, default=0, help="the seat you play, 0-based (default 0)")
    p.add_argument(
        "--agents",
        default=None,
        metavar="SPEC,SPEC,...",
        help="the agents of the other seats: one for all (e.g. 'ismcts:iterations=100'), one per other "
        "seat in seat order, or one per seat with 'human' at yours (default: random)",
    )
    p.add_argument(
        "--agent-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option for every listed agent that has it, e.g. iterations=100 (repeatable)",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="FILE.jsonl",
        help="when the game ends, write its record (as 'simulate --out' does) for 'trickkit replay'",
    )
    p.set_defaults(func=cmd_play, seed=None)  # a fresh deal each time unless --seed is given

    p = sub.add_parser("diff", help="the differences between two rulesets in plain words (after extends)")
    p.add_argument("a", metavar="A", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("b", metavar="B", help="shipped game name or path to a ruleset .yaml")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("compile", help="print the Python code generated from a ruleset's rules")
    p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the ruleset's default)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="override a parameter (repeatable)")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("replay", help="re-play recorded games (simulate --out) and confirm their scores")
    p.add_argument("file", metavar="FILE.jsonl", help="records written by 'trickkit simulate --out'")
    p.add_argument(
        "--force",
        action="store_true",
        help="replay records even when the ruleset's content hash differs from the recorded one",
    )
    p.add_argument(
        "--ruleset",
        default=None,
        metavar="GAME",
        help="load this ruleset (name or path) instead of the one each record names",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="also list the confirmed records")
    p.add_argument(
        "--show",
        action="store_true",
        help="tell each confirmed game as a person would, from one seat's view (see --seat)",
    )
    p.add_argument("--seat", type=int, default=0, help="the seat whose view --show tells (default 0)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("test", help="check the engine's invariants on a ruleset with random games (hypothesis)")
    p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("--players", type=int, default=None, help="seat count (default: every count the ruleset allows)")
    p.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="override a game parameter (repeatable)"
    )
    p.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="CHECK",
        help="run only this check (repeatable): " + ", ".join(testing_checks()),
    )
    p.add_argument("--examples", type=int, default=20, help="random games per check (default 20)")
    p.add_argument("--seed", type=int, default=None, help="make the run repeatable (hypothesis' seed)")
    p.add_argument(
        "--max-actions",
        type=int,
        default=None,
        help="a game longer than this fails (default: 10000, or the ruleset's max_actions if lower)",
    )
    p.add_argument(
        "--replay",
        default=None,
        metavar="JSON_OR_FILE",
        help="replay the game of a failure report (its JSON, or a file holding it) and check it again",
    )
    p.set_defaults(func=cmd_test)

    p = sub.add_parser(
        "lint",
        help="report unused definitions, variables and zones, dead action kinds, "
        "duplicate card texts, unknown text literals and tricks with no single winner",
    )
    p.add_argument("file", metavar="FILE", help="ruleset .yaml (or a shipped game name)")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the ruleset's default)")
    p.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="override a game parameter (repeatable)"
    )
    p.add_argument(
        "--games",
        type=int,
        default=50,
        help="random games played to find action kinds that are never legal (default 50)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of those games (default 0)")
    p.set_defaults(func=cmd_lint)
    register_rulebook(sub)
    add_serve_parser(sub)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The ``trickkit`` argument parser (used to generate the command line reference)."""
    return _parser()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``trickkit`` command line.

    Args:
        argv: the arguments (without the program name); ``None`` = ``sys.argv[1:]``.

    Returns:
        The exit code: 0 ok, 1 failed validation/checks, 2 usage or load errors.
    """
    for stream in (sys.stdout, sys.stderr):  # a character the terminal cannot show is escaped, never a crash
        if hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):  # a stream that cannot change: leave it
                stream.reconfigure(errors="backslashreplace")
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.command != "test":  # (test's --seed is hypothesis' own)
            check_seed(getattr(args, "seed", None))  # a seed records can hold, in every command
        code: int = args.func(args)
        return code
    except UsageError as exc:
        print(f"trickkit {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except TrickkitError as exc:
        print(
            f"trickkit {args.command}: {type(exc).__name__}:\n{exc}"
            if "\n" in str(exc)
            else f"trickkit {args.command}: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 2
    except ImportError as exc:  # an optional dependency (hypothesis for 'test') that is not installed
        print(f"trickkit {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
