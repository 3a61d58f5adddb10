"""Commands that play many games: ``simulate`` and ``compare`` (their lab options: `trickkit.cli.lab`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from trickkit.cli.common import (
    PROGRESS_MIN_GAMES,
    UsageError,
    api,
    check_out,
    check_outputs,
    check_seed,
    console,
    load_ruleset,
    parse_params,
    write_guard,
)


def cmd_simulate(args: argparse.Namespace) -> int:
    from trickkit.lab.simulation import simulate

    if args.games < 0:
        raise UsageError(f"--games must be >= 0, got {args.games}")
    if args.jobs < 1:
        raise UsageError(f"--jobs must be >= 1, got {args.jobs}")
    check_seed(args.seed)
    check_outputs([args.game], {"--out": args.out, "--csv": args.csv, "--report": args.report})
    if args.out is not None:
        check_out(args.out)
    if args.coverage or args.csv or args.report:  # the design lab's options (trickkit.lab)
        from trickkit.cli.lab import run_simulate_lab

        params = parse_params(args.param)
        game = (
            load_ruleset(args.game, args.players, params)
            if not args.coverage
            else api().load_game(
                args.game, **({"players": args.players} if args.players is not None else {}), coverage=True, **params
            )
        )
        agents = agent_specs(args, game.num_players)
        return run_simulate_lab(
            args,
            game,
            console,
            lambda on_record: write_guard(
                args.out,
                lambda: simulate(
                    game,
                    args.games,
                    seed=args.seed,
                    agents=agents,
                    jobs=args.jobs,
                    out=args.out,
                    backend=args.backend,
                    address=args.address,
                    on_record=on_record,
                ),
            ),
        )
    game = load_ruleset(args.game, args.players, parse_params(args.param))
    agents = agent_specs(args, game.num_players)
    show = args.games >= PROGRESS_MIN_GAMES and not args.no_progress and sys.stderr.isatty()

    def run(progress: Any = None) -> Any:  # the one simulate call, with or without a progress bar
        return write_guard(
            args.out,
            lambda: simulate(
                game,
                args.games,
                seed=args.seed,
                agents=agents,
                jobs=args.jobs,
                out=args.out,
                backend=args.backend,
                address=args.address,
                **({"progress": progress} if progress is not None else {}),
            ),
        )

    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task(f"simulating {game.name}", total=args.games)
            summary = run(lambda done, total: bar.update(task, completed=done))
    else:
        summary = run()
    console().print(summary.to_table())
    if args.out:
        console().print(f"wrote {summary.games} games to {args.out}", markup=False)
    return 0


def agent_specs(args: argparse.Namespace, players: int) -> Any:
    """The per-seat agent specs of ``--agents`` and ``--agent-option`` (None: random agents)."""
    from trickkit.agents import parse_agent_specs

    extra = {}
    for item in args.agent_option:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--agent-option {item!r}: expected KEY=VALUE")
        extra[key.strip()] = value.strip()
    if args.agents is None:
        if extra:
            raise UsageError("--agent-option needs --agents (e.g. --agents ismcts,random,random,random)")
        return None
    return parse_agent_specs(args.agents, players, extra)


def cmd_compare(args: argparse.Namespace) -> int:
    from trickkit.cli.lab import run_compare

    check_seed(args.seed)
    check_outputs(
        [*args.rulesets, *(t.split("@")[0] for t in args.rulesets)], {"--csv": args.csv, "--report": args.report}
    )
    args.common_params = parse_params(args.param)
    show = args.games >= PROGRESS_MIN_GAMES and not args.no_progress and sys.stderr.isatty()
    return run_compare(args, load_ruleset, console, show)
