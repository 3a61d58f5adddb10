"""Commands about rulesets and records: ``list``, ``show``, ``validate``, ``diff``, ``compile`` and ``replay``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from trickkit.cli.checks import looks_like_scenarios
from trickkit.cli.common import UsageError, api, console, load_ruleset, parse_params
from trickkit.errors import RulesetError, TrickkitError


def cmd_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    tk = api()
    table = Table(title="Shipped games")
    table.add_column("name")
    table.add_column("title")
    table.add_column("players", justify="right")
    for name in tk.list_games():
        info = tk.game_info(name)  # title and seats only: no need to compile the rules
        lo, hi = info.players_min, info.players_max
        table.add_row(name, info.title, f"{lo}" if lo == hi else f"{lo}-{hi}")
    console().print(table)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from trickkit.engine.loader import ruleset_text

    sys.stdout.write(ruleset_text(args.game))  # as shipped: no markup, no wrapping
    sys.stdout.flush()
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    out = console()
    failed = 0
    for file in args.files:
        try:
            game = api().load_game(file)
            from trickkit.engine.loader import other_seat_count_problems

            others = other_seat_count_problems(file, game, api().load_game)  # the players range's other counts
            if others:
                raise RulesetError(others)
        except RulesetError as exc:
            failed += 1
            if looks_like_scenarios(file):
                out.print(f"{file}: this is a scenario file, not a ruleset: run it with 'trickkit check {file}'")
                continue
            problems: Sequence[object] = exc.problems or [f"{file}: invalid"]
            for problem in problems:
                out.print(str(problem), markup=False)
        except TrickkitError as exc:
            failed += 1
            out.print(f"{file}: {exc}", markup=False)
        else:
            out.print(f"{file}: ok", markup=False)
    return 1 if failed else 0


def cmd_diff(args: argparse.Namespace) -> int:
    import shutil

    from trickkit.engine.view import clean
    from trickkit.lab.diff import diff_rulesets, readable
    from trickkit.lab.rulebook.rdiff import diff_rulebooks

    out = console()
    lines = diff_rulesets(args.a, args.b) + diff_rulebooks(args.a, args.b)  # rules, then rulebook rows
    width = max(min(shutil.get_terminal_size((100, 24)).columns - 1, 120), 40)
    for line in readable(lines, width):  # long expressions as line diffs, not 900-character lines
        out.print(clean(line), markup=False)
    if not lines:
        out.print(f"no differences between {args.a} and {args.b}", markup=False)
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    game = load_ruleset(args.game, args.players, parse_params(args.param))
    sys.stdout.write(
        f"# Python generated from {game.rules.name} for {game.num_players} seats "
        f"(each block names the YAML line it comes from)\n\n"
    )
    sys.stdout.write(game.rules.generated_source)
    copier = getattr(game._copy_layout, "source", None)
    if copier:  # the state copier is made from the layout's counts only, not from ruleset text
        sys.stdout.write(
            f"\n# the state copier of State.clone(), generated for this layout "
            f"({game.num_players} seats; no YAML line)\n\n{copier}"
        )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from trickkit.engine.records import replay_records

    out = console()
    try:
        results = replay_records(args.file, force=args.force, ruleset=args.ruleset)
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    counts = {"confirmed": 0, "diverged": 0, "refused": 0}
    for result in results:
        counts[result.status] += 1
        if not result.ok or args.verbose:
            out.print(f"{args.file}:{result.line}: {result.status}: {result.message}", markup=False)
        if args.show and result.state is not None:
            from trickkit.engine.view import clean

            if not 0 <= args.seat < result.state.game.num_players:
                raise UsageError(f"--seat must be 0..{result.state.game.num_players - 1}, got {args.seat}")
            out.print(f"--- {args.file}:{result.line} ---")
            for line in result.state.transcript(args.seat).splitlines():
                out.print(clean(line))
    out.print(
        f"{counts['confirmed']} confirmed, {counts['diverged']} diverged, {counts['refused']} refused", markup=False
    )
    if not results:
        out.print(f"{args.file}: no records", markup=False)
        return 1
    return 0 if counts["confirmed"] == len(results) else 1
