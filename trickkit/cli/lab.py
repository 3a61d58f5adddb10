"""The command-line side of the design lab: ``trickkit compare`` and the lab options of
``trickkit simulate`` (``--coverage``, ``--csv``, ``--report``). `trickkit.cli.main` parses the
arguments and calls these."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from trickkit.cli.common import UsageError, parse_params
from trickkit.lab.simulation import RandomAgent

__all__ = ["FirstAgent", "agent_factories", "parse_variant", "run_compare", "run_simulate_lab"]


class FirstAgent:
    """An agent that always takes the first legal action (deterministic: useful to compare
    variants without the noise of random choices).

    Args:
        rng: ignored (agents are made as ``factory(rng)``).
    """

    def __init__(self, rng: Any = None) -> None:
        self.rng = rng

    def step(self, state: Any) -> Any:
        """Return ``state.legal_actions()[0]``."""
        return state.legal_actions()[0]


BUILT_IN_AGENTS = {"random": RandomAgent, "first": FirstAgent}
"""Agents ``--agents`` knows by name; anything else is ``module:attribute``."""


def _usage(message: str) -> Exception:
    return UsageError(message)


def agent_factories(spec: str | None, players: int) -> list[Any] | None:
    """The per-seat agent factories of an ``--agents`` text.

    ``random`` (the default) and ``first`` are built in; ``module:attribute`` imports (from the
    installed packages or the current folder) a factory or class called as ``factory(rng)``,
    or an object with ``step(state)``. One
    name is every seat's; a comma-separated list gives one per seat.

    Raises:
        UsageError: an unknown name, an import that fails, or the wrong number of seats.
    """
    if spec is None:
        return None
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise _usage("--agents needs a name: random, first, or module:attribute")
    made = []
    for name in names:
        if name in BUILT_IN_AGENTS:
            made.append(BUILT_IN_AGENTS[name])
            continue
        module, sep, attr = name.partition(":")
        if not sep or not module or not attr:
            raise _usage(
                f"--agents: unknown agent {name!r} (built in: {', '.join(BUILT_IN_AGENTS)}; or module:attribute)"
            )
        if os.getcwd() not in sys.path:  # an agent module in the current folder, as `python -m` finds it
            sys.path.append(os.getcwd())
        try:
            made.append(getattr(importlib.import_module(module), attr))
        except (ImportError, AttributeError) as exc:
            raise _usage(f"--agents {name}: cannot import it ({exc})") from None
    if len(made) == 1:
        return made * players
    if len(made) != players:
        raise _usage(f"--agents lists {len(made)} agents for a {players}-player game")
    return made


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    """``'my_game@rounds=5,bonus=20'`` -> ``('my_game', {'rounds': 5, 'bonus': 20})``:
    a ruleset (shipped name or path) with its own parameter values."""

    name, sep, tail = text.rpartition("@")
    if not sep or "=" not in tail or not name:
        return text, {}
    return name, parse_params(tail.split(","))


def _check_writable(option: str, path: str | None) -> None:
    if path is None:
        return
    if os.path.isdir(path):
        raise _usage(f"{option} {path}: is a directory (give a file name)")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _usage(f"{option} {path}: no such folder {folder}")


def _need_plots(report: str | None) -> None:
    if report is not None:
        from trickkit.lab.report import _pyplot

        _pyplot()  # before any game is played: say at once how to install matplotlib


def _progress(console: Any) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def run_compare(args: Any, load: Callable[..., Any], console: Callable[..., Any], show_progress: bool) -> int:
    """``trickkit compare A B [C ...]``: see `trickkit.lab.compare.compare`."""
    from trickkit.lab.compare import compare
    from trickkit.lab.report import comparison_csv, comparison_html, comparison_tables

    if args.games < 1:
        raise _usage(f"--games must be >= 1, got {args.games}")
    if args.jobs < 1:
        raise _usage(f"--jobs must be >= 1, got {args.jobs}")
    _check_writable("--csv", args.csv)
    _check_writable("--report", args.report)
    _need_plots(args.report)
    variants = []
    seen: dict[str, int] = {}
    short = [os.path.basename(t) for t in args.rulesets]  # a path is named by its file, where that is unambiguous
    if len(set(short)) < len(short):
        short = list(args.rulesets)
    for text, label in zip(args.rulesets, short):
        name, own = parse_variant(text)
        params = {**args.common_params, **own}
        game = load(name, args.players, params)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} #{seen[label]}"
        variants.append((label, game))
    agents = None
    if args.agents:
        names = [n for n in args.agents.split(",") if n.strip()]
        seats = {g.num_players for _, g in variants}
        if len(names) > 1 and len(seats) > 1:
            raise _usage("--agents with one agent per seat needs variants with the same seat count")
        agents = agent_factories(args.agents, 1 if len(names) <= 1 else seats.pop())
    out = console()
    if show_progress:
        with _progress(console(stderr=True)) as bar:
            task = bar.add_task("comparing", total=args.games)
            comp = compare(
                variants,
                args.games,
                seed=args.seed,
                agents=agents,
                jobs=args.jobs,
                progress=lambda done, total: bar.update(task, completed=done),
            )
    else:
        comp = compare(variants, args.games, seed=args.seed, agents=agents, jobs=args.jobs)
    for table in comparison_tables(comp):
        out.print(table)
    out.print(f"{comp.games} games per variant in {comp.seconds:.2f}s", markup=False)
    _write_files(args, out, lambda p: comparison_csv(comp, p), lambda p: comparison_html(comp, p))
    return 0


def _write_files(args: Any, out: Any, write_csv: Any, write_html: Any) -> None:
    try:
        if args.csv:
            write_csv(args.csv)
            out.print(f"wrote {args.csv}", markup=False)
        if args.report:
            write_html(args.report)
            out.print(f"wrote {args.report}", markup=False)
    except OSError as exc:
        raise _usage(f"cannot write {exc.filename or 'the file'}: {exc.strerror or exc}") from None


def run_simulate_lab(args: Any, game: Any, console: Callable[..., Any], run: Callable[..., Any]) -> int:
    """``trickkit simulate`` with ``--coverage``, ``--csv`` or ``--report``.

    ``run(on_record, agents)`` plays the run as plain ``simulate`` would and returns its
    summary; with ``--coverage`` the games are played by `simulate_with_coverage` instead
    (in this process: the counters live here).
    """
    from trickkit.lab.report import simulation_csv, simulation_html

    _check_writable("--csv", args.csv)
    _check_writable("--report", args.report)
    _need_plots(args.report)
    scores: list[Any] = []
    lengths: list[Any] = []

    def keep(record: dict[str, Any]) -> None:
        scores.append(tuple(record["scores"]))
        lengths.append(record["length"])

    report = None
    if args.coverage:
        from trickkit.lab.coverage import simulate_with_coverage

        if args.backend != "process":
            print(
                "trickkit simulate: --coverage plays in worker processes here: --backend ray is ignored",
                file=sys.stderr,
            )
        summary, report = simulate_with_coverage(
            game, args.games, seed=args.seed, out=args.out, on_record=keep, jobs=args.jobs
        )
    else:
        summary = run(keep)
    out = console()
    out.print(summary.to_table())
    if args.out:
        out.print(f"wrote {summary.games} games to {args.out}", markup=False)
    if report is not None:
        for table in report.to_tables():
            out.print(table)
        never = report.never_fired()
        out.print(f"never fired ({len(never)}):" if never else "everything fired at least once", markup=False)
        for line in never:
            out.print(f"  {line}", markup=False)
    _write_files(
        args,
        out,
        lambda p: simulation_csv(summary, p, scores),
        lambda p: simulation_html(summary, p, scores, lengths, report),
    )
    return 0
