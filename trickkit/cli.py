"""The ``trickkit`` command line: list, validate, simulate, compare, check, play, diff, replay, test and lint games.

Exit codes: 0 success; 1 a validation or scenario check failed, a replayed record
diverged or was refused, an invariant failed (``test``) or lint found something; 2 usage
errors and games that cannot be loaded.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Sequence

import yaml

from trickkit.errors import IllegalActionError, RulesetError, ScenarioError, TrickkitError

__all__ = ["main", "parse_params"]

#: ``simulate`` shows a progress bar (on stderr, if it is a terminal) from this many games on.
PROGRESS_MIN_GAMES = 200


class _UsageError(Exception):
    """Bad command-line usage detected after argparse (exit code 2)."""


def _api() -> Any:
    """The trickkit package, imported late (so tests can patch ``trickkit.load_game``)."""
    import trickkit

    return trickkit


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    # No user text (file names, card texts, titles) may go through rich markup or emoji
    # codes: ``n.yaml:100:15:`` must not become ``n.yaml💯15:``.
    return Console(file=sys.stderr if stderr else sys.stdout, highlight=False, soft_wrap=True,
                   markup=False, emoji=False)


def parse_params(items: Sequence[str] | None) -> dict[str, Any]:
    """Parse ``--param k=v`` items into keyword arguments for ``load_game``.

    Each value is read with ``yaml.safe_load`` so ``3`` is an int, ``0.5`` a
    float, ``true`` a bool and anything else a string.

    Args:
        items: the ``k=v`` texts.

    Returns:
        The parameter mapping.

    Raises:
        _UsageError: an item has no ``=`` or an empty key.
    """
    params: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _UsageError(f"--param expects KEY=VALUE, got {item!r}")
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            parsed = value
        except ValueError:  # an integer past Python's limit on digits converted
            raise _UsageError(f"--param {key}: the number has too many digits ({len(value)} characters)") from None
        if isinstance(parsed, bool) or not isinstance(parsed, (int, float, str)):
            parsed = parsed if isinstance(parsed, bool) else value
        params[key] = parsed
    return params


def _check_seed(seed: int | None) -> None:
    if seed is not None and seed < 0:
        raise _UsageError(f"--seed must be a non-negative integer, got {seed}")


def _load(game: str, players: int | None, params: dict[str, Any]) -> Any:
    kwargs = dict(params)
    if players is not None:
        kwargs["players"] = players
    return _api().load_game(game, **kwargs)


# ------------------------------------------------------------------ commands


def _cmd_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    api = _api()
    table = Table(title="Shipped games")
    table.add_column("name")
    table.add_column("title")
    table.add_column("players", justify="right")
    for name in api.list_games():
        info = api.game_info(name)  # title and seats only: no need to compile the rules
        lo, hi = info.players_min, info.players_max
        table.add_row(name, info.title, f"{lo}" if lo == hi else f"{lo}-{hi}")
    _console().print(table)
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from trickkit.loader import ruleset_text

    sys.stdout.write(ruleset_text(args.game))  # as shipped: no markup, no wrapping
    sys.stdout.flush()
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    out = _console()
    failed = 0
    for file in args.files:
        try:
            game = _api().load_game(file)
            from trickkit.loader import other_seat_count_problems
            others = other_seat_count_problems(file, game, _api().load_game)  # the players range's other counts
            if others:
                raise RulesetError(others)
        except RulesetError as exc:
            failed += 1
            if _looks_like_scenarios(file):
                out.print(f"{file}: this is a scenario file, not a ruleset: run it with 'trickkit check {file}'")
                continue
            for problem in exc.problems or [f"{file}: invalid"]:
                out.print(str(problem), markup=False)
        except TrickkitError as exc:
            failed += 1
            out.print(f"{file}: {exc}", markup=False)
        else:
            out.print(f"{file}: ok", markup=False)
    return 1 if failed else 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from trickkit.simulation import simulate

    if args.games < 0:
        raise _UsageError(f"--games must be >= 0, got {args.games}")
    if args.jobs < 1:
        raise _UsageError(f"--jobs must be >= 1, got {args.jobs}")
    _check_seed(args.seed)
    if args.out is not None:
        _check_out(args.out)
    if args.coverage or args.csv or args.report:  # the design lab's options (trickkit.lab)
        from trickkit.lab.commands import run_simulate_lab

        params = parse_params(args.param)
        game = (_load(args.game, args.players, params) if not args.coverage else
                _api().load_game(args.game, **({"players": args.players} if args.players is not None else {}),
                                 coverage=True, **params))
        agents = _agents(args, game.num_players)
        return run_simulate_lab(args, game, _console, lambda on_record: _write_guard(args.out, lambda: simulate(
            game, args.games, seed=args.seed, agents=agents, jobs=args.jobs, out=args.out, backend=args.backend,
            address=args.address, on_record=on_record)))
    game = _load(args.game, args.players, parse_params(args.param))
    agents = _agents(args, game.num_players)
    show = args.games >= PROGRESS_MIN_GAMES and not args.no_progress and sys.stderr.isatty()
    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=_console(stderr=True), transient=True,
        ) as bar:
            task = bar.add_task(f"simulating {game.name}", total=args.games)
            summary = _write_guard(args.out, lambda: simulate(
                game, args.games, seed=args.seed, agents=agents, jobs=args.jobs, out=args.out,
                backend=args.backend, address=args.address,
                progress=lambda done, total: bar.update(task, completed=done),
            ))
    else:
        summary = _write_guard(args.out, lambda: simulate(game, args.games, seed=args.seed, agents=agents, jobs=args.jobs,
                                                          out=args.out, backend=args.backend,
                                                          address=args.address))
    _console().print(summary.to_table())
    if args.out:
        _console().print(f"wrote {summary.games} games to {args.out}", markup=False)
    return 0


def _agents(args: argparse.Namespace, players: int):
    """The per-seat agent specs of ``--agents`` and ``--agent-option`` (None: random agents)."""
    from trickkit.agents import parse_agent_specs

    extra = {}
    for item in args.agent_option:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise _UsageError(f"--agent-option {item!r}: expected KEY=VALUE")
        extra[key.strip()] = value.strip()
    if args.agents is None:
        if extra:
            raise _UsageError("--agent-option needs --agents (e.g. --agents ismcts,random,random,random)")
        return None
    return parse_agent_specs(args.agents, players, extra)


def _cmd_compare(args: argparse.Namespace) -> int:
    from trickkit.lab.commands import run_compare

    _check_seed(args.seed)
    args.common_params = parse_params(args.param)
    show = args.games >= PROGRESS_MIN_GAMES and not args.no_progress and sys.stderr.isatty()
    return run_compare(args, _load, _console, show)


def _check_out(out: str) -> None:
    """Refuse an ``--out`` path that cannot be written, before any game is played."""
    if os.path.isdir(out):
        raise _UsageError(f"--out {out}: is a directory (give a file name such as games.jsonl)")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise _UsageError(f"--out {out}: no such folder {folder}")


def _write_guard(out: str | None, run):
    """Run ``run()``; an OSError while writing ``out`` (a full disk, a vanished folder) is a usage error."""
    try:
        return run()
    except OSError as exc:
        if out is None:
            raise
        raise _UsageError(f"cannot write --out {out}: {exc.strerror or exc}") from None


def _scenario_files(paths: Sequence[str]) -> list[tuple[str, bool]]:
    """``(file, found in a directory)`` for every scenario file to run, in order."""
    files: list[tuple[str, bool]] = []
    for path in paths:
        if os.path.isdir(path):
            found = []
            for root, dirs, names in os.walk(path):
                dirs.sort()
                found.extend(os.path.join(root, n) for n in names if n.endswith((".yaml", ".yml")))
            files.extend((f, True) for f in sorted(found))
        elif os.path.exists(path):
            files.append((path, False))
        else:
            raise _UsageError(f"{path}: no such file or directory")
    return files


def _yaml_file(file) -> Any:
    """The YAML document in ``file``, or None when it cannot be read (the caller's error says why)."""
    try:
        if os.path.getsize(file) > 5 * 1024 * 1024 or not os.path.isfile(file):
            return None
        with open(file, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except Exception:  # unreadable or not YAML
        return None


def _looks_like_ruleset(file) -> bool:
    """True for a YAML mapping with a ruleset's keys (deck, round, extends)."""
    data = _yaml_file(file)
    return isinstance(data, dict) and ("deck" in data or "round" in data or "extends" in data)


def _looks_like_scenarios(file) -> bool:
    """True for a YAML list of mappings with a scenario's keys (game, actions)."""
    data = _yaml_file(file)
    return (isinstance(data, list) and bool(data)
            and all(isinstance(d, dict) and ("actions" in d or "game" in d) for d in data))


def _cmd_check(args: argparse.Namespace) -> int:
    from trickkit.scenarios import run_scenario_file

    out = _console()
    files = _scenario_files(args.paths)
    passed = failed = errors = skipped = 0
    for file, in_folder in files:
        try:
            results = run_scenario_file(file)
        except ScenarioError as exc:
            if in_folder and _looks_like_ruleset(file):
                skipped += 1  # the ruleset a folder's scenarios test, kept beside them
                continue
            errors += 1
            lines = str(exc).splitlines() or [file]
            out.print(f"ERROR {file}", markup=False)
            if _looks_like_ruleset(file):
                out.print("  this is a ruleset, not a scenario file: check it with 'trickkit validate'", markup=False)
                continue
            for line in lines:
                out.print(f"  {line}", markup=False)
            continue
        for result in results:
            if result.passed:
                passed += 1
                out.print(f"PASS {file}: {result.name}", markup=False)
            else:
                failed += 1
                where = f"{file}:{result.line}" if result.line else file
                out.print(f"FAIL {where}: {result.name}: {result.message}", markup=False)
    tail = f" ({skipped} ruleset file{'s' if skipped != 1 else ''} skipped)" if skipped else ""
    out.print(f"{passed} passed, {failed} failed, {errors} errors{tail}", markup=False)
    if len(files) == skipped:
        out.print("no scenario files found", markup=False)
        return 1
    return 1 if failed or errors else 0


def _cmd_play(args: argparse.Namespace) -> int:
    import random
    import shutil

    from trickkit.simulation import RandomAgent
    from trickkit.view import Narrator, clean, columns, fit, render

    _check_seed(args.seed)
    game = _load(args.game, args.players, parse_params(args.param))
    if not 0 <= args.seat < game.num_players:
        raise _UsageError(f"--seat must be 0..{game.num_players - 1}, got {args.seat}")
    out = _console()
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)

    def say(line: str = "") -> None:  # escaped, and broken into lines no wider than the terminal
        for part in fit(clean(line), width):
            out.print(part, markup=False, emoji=False)

    # The seed fixes every hidden card and every opponent move: it is shown only at the end.
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    state = game.new_initial_state(seed=seed)
    agent = RandomAgent(random.Random(f"trickkit:play:{seed}"))
    me = args.seat
    rules = getattr(game, "rules", None)
    narrator = Narrator(game, me) if rules is not None else None
    titles = narrator.titles if narrator else {}
    hidden = narrator.hidden if narrator else frozenset()
    unit = getattr(game, "score_unit", "points")
    best = "lowest" if rules is not None and not rules.winners_highest else "highest"

    def show(title: str) -> None:
        say(f"--- {title} ---")
        for line in render(state.observation(me), me, titles, unit, hidden):
            say(line)

    def perform(seat: int, action: Any, shown: str | None) -> None:
        before = narrator.snapshot(state) if narrator else None
        state.apply_action(action)
        shown = state.history()[-1] if shown is None else shown  # your own move, as the engine spells it
        say(f"seat {seat}{' (you)' if seat == me else ''}: {shown}")
        for line in narrator.tell(before, state) if narrator else ():
            say(line)

    say(f"{game.title}: you are seat {me} of {game.num_players}. Scores count {unit}; {best} wins.")
    while not state.is_terminal():
        seat = state.current_player()
        if seat != me:
            action = agent.step(state)
            perform(seat, action, state.action_seen_by(action, me))  # hidden bids show as 'bid ?'
            continue
        show(f"seat {me} (you) to act")
        actions = state.legal_actions()
        for line in columns([f"{i}. {clean(a)}" for i, a in enumerate(actions, start=1)], width):
            say(line)
        for line in narrator.meanings(actions) if narrator else ():
            say(line)
        while True:
            try:
                answer = input("your move (number or text)> ").strip()
            except EOFError:
                say()
                say(f"bye (this was seed {seed})")
                return 0
            if not answer:
                continue
            if answer.isdigit():
                index = int(answer)
                if not 1 <= index <= len(actions):
                    say(f"pick 1..{len(actions)} or type an action")
                    continue
                choice: Any = actions[index - 1]
            else:
                choice = answer
            try:
                perform(me, choice, None)
            except IllegalActionError as exc:
                say(f"not allowed: {exc}")
                continue
            break
    show("final position")
    scores = state.scores()
    winners = state.winners()
    say("final scores:")
    for seat, score in enumerate(scores):
        mark = " (you)" if seat == me else ""
        won = "  winner" if seat in winners else ""
        say(f"  seat {seat}{mark}: {score} {unit}{won}")
    say(f"seed {seed}: play this deal again with --seed {seed}")
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    import shutil

    from trickkit.diff import diff_rulesets, readable
    from trickkit.view import clean

    out = _console()
    lines = diff_rulesets(args.a, args.b)
    width = max(min(shutil.get_terminal_size((100, 24)).columns - 1, 120), 40)
    for line in readable(lines, width):  # long expressions as line diffs, not 900-character lines
        out.print(clean(line), markup=False)
    if not lines:
        out.print(f"no differences between {args.a} and {args.b}", markup=False)
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    game = _load(args.game, args.players, parse_params(args.param))
    sys.stdout.write(f"# Python generated from {game.rules.name} for {game.num_players} seats "
                     f"(each block names the YAML line it comes from)\n\n")
    sys.stdout.write(game.rules.generated_source)
    copier = getattr(game._copy_layout, "source", None)
    if copier:  # the state copier is made from the layout's counts only, not from ruleset text
        sys.stdout.write(f"\n# the state copier of State.clone(), generated for this layout "
                         f"({game.num_players} seats; no YAML line)\n\n{copier}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from trickkit.records import replay_records

    out = _console()
    try:
        results = replay_records(args.file, force=args.force, ruleset=args.ruleset)
    except OSError as exc:
        raise _UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    counts = {"confirmed": 0, "diverged": 0, "refused": 0}
    for result in results:
        counts[result.status] += 1
        if not result.ok or args.verbose:
            out.print(f"{args.file}:{result.line}: {result.status}: {result.message}", markup=False)
        if args.show and result.state is not None:
            from trickkit.view import clean

            if not 0 <= args.seat < result.state.game.num_players:
                raise _UsageError(f"--seat must be 0..{result.state.game.num_players - 1}, got {args.seat}")
            out.print(f"--- {args.file}:{result.line} ---")
            for line in result.state.transcript(args.seat).splitlines():
                out.print(clean(line))
    out.print(f"{counts['confirmed']} confirmed, {counts['diverged']} diverged, {counts['refused']} refused",
              markup=False)
    if not results:
        out.print(f"{args.file}: no records", markup=False)
        return 1
    return 0 if counts["confirmed"] == len(results) else 1


def _cmd_test(args: argparse.Namespace) -> int:
    import attrs

    from trickkit import testing

    params = parse_params(args.param)
    checks = args.check or list(testing.CHECKS)
    for check in checks:
        if check not in testing.CHECKS:
            raise _UsageError(f"--check {check!r}: unknown (checks: {', '.join(testing.CHECKS)})")
    if args.examples < 1:
        raise _UsageError(f"--examples must be >= 1, got {args.examples}")
    if args.max_actions is not None and args.max_actions < 1:
        raise _UsageError(f"--max-actions must be >= 1, got {args.max_actions}")
    out = _console()
    if args.replay is not None:
        text = args.replay
        if not text.lstrip().startswith("{"):
            try:
                with open(text, encoding="utf-8") as f:
                    text = f.read()
            except OSError as exc:
                raise _UsageError(f"--replay {args.replay}: {exc.strerror or exc}") from None
        try:
            case = testing.GameCase.from_json(text)
        except ValueError as exc:
            raise _UsageError(f"--replay: {exc}") from None
        game = _load(args.game, case.players, case.params)
        try:
            testing.replay_case(attrs.evolve(case, ruleset=args.game), game)  # reported under the name given
        except testing.InvariantError as exc:
            out.print(f"FAIL {exc}", markup=False)
            return 1
        out.print(f"ok: {case.check} holds on the replayed game ({len(case.actions)} actions)", markup=False)
        return 0
    failed = 0
    for check in checks:
        try:
            testing.check_one(args.game, check, args.players, params, examples=args.examples, seed=args.seed,
                              max_actions=args.max_actions)
        except testing.InvariantError as exc:
            failed += 1
            out.print(f"FAIL {exc}", markup=False)
            if check == "termination":  # every other check plays games to their end
                out.print("the other checks need games that end: skipped", markup=False)
                checks = checks[:checks.index(check) + 1]
                break
        else:
            out.print(f"ok   {check} ({args.examples} games)", markup=False)
    out.print(f"{len(checks) - failed} passed, {failed} failed", markup=False)
    return 1 if failed else 0


def _cmd_lint(args: argparse.Namespace) -> int:
    from trickkit.lint import lint

    if args.games < 0:
        raise _UsageError(f"--games must be >= 0, got {args.games}")
    out = _console()
    findings = lint(args.file, players=args.players, params=parse_params(args.param), games=args.games,
                    seed=args.seed)
    for finding in findings:
        out.print(str(finding), markup=False)
    out.print(f"{args.file}: {len(findings)} finding{'s' if len(findings) != 1 else ''}", markup=False)
    return 1 if findings else 0


# ------------------------------------------------------------------ parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trickkit", description="Card games as YAML rulesets, played by one engine."
    )
    parser.add_argument("--version", action="version", version=f"trickkit {_api().__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("list", help="list the shipped games")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("show", help="write a shipped ruleset's YAML to standard output, to copy and edit")
    p.add_argument("game", metavar="GAME", help="shipped game name (see 'trickkit list')")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("validate", help="load rulesets and report every problem")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=_cmd_validate)

    def game_args(p: argparse.ArgumentParser, seed_help: str = "seed (default 0)") -> None:
        p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
        p.add_argument("--players", type=int, default=None, help="number of players")
        p.add_argument("--seed", type=int, default=0, help=seed_help)
        p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                       help="override a game parameter (repeatable)")

    p = sub.add_parser("simulate", help="play many games with agents (random unless --agents says otherwise)")
    game_args(p)
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes, or Ray CPUs with --backend ray (default 1)")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="where parallel games run: worker processes here, or Ray (pip install 'trickkit[ray]')")
    p.add_argument("--address", default=None,
                   help="Ray cluster address for --backend ray (default: start a local Ray instance)")
    p.add_argument("--out", default=None, metavar="FILE.jsonl", help="write one JSON line per game")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.add_argument("--agents", default=None, metavar="SPEC,SPEC,...",
                   help="one agent per seat (or one for all): random, first, or ismcts, each with options as "
                        "NAME:KEY=VALUE:..., e.g. 'ismcts:iterations=100,random,random,random' (default: random)")
    p.add_argument("--agent-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option for every listed agent that has it, e.g. iterations=100 (repeatable)")
    p.add_argument("--coverage", action="store_true",
                   help="count which action kinds, if-branches, cards and effects fired, and list what never did")
    p.add_argument("--csv", default=None, metavar="FILE.csv", help="write the per-seat statistics as CSV")
    p.add_argument("--report", default=None, metavar="FILE.html",
                   help="write a self-contained HTML report with plots (needs pip install 'trickkit[lab]')")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("compare", help="play rulesets (variants) on the same seeds and compare them with "
                                       "confidence intervals")
    p.add_argument("rulesets", nargs="+", metavar="GAME",
                   help="shipped game names or ruleset paths, the first being the baseline; GAME@k=v,k=v "
                        "gives that variant its own parameter values")
    p.add_argument("--games", type=int, default=100, help="games per variant (default 100)")
    p.add_argument("--seed", type=int, default=0, help="master seed: game i of every variant shares its seeds "
                                                        "(default 0)")
    p.add_argument("--players", type=int, default=None, help="number of players (every variant)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a parameter of every variant (repeatable)")
    p.add_argument("--agents", default=None, metavar="AGENT[,AGENT...]",
                   help="random (default), first, or module:attribute (a factory called with an RNG); "
                        "one for every seat or one per seat")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; the same results)")
    p.add_argument("--csv", default=None, metavar="FILE.csv", help="write every statistic as CSV")
    p.add_argument("--report", default=None, metavar="FILE.html",
                   help="write a self-contained HTML report with plots (needs pip install 'trickkit[lab]')")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("check", help="run scenario files (directories are searched for *.yaml)")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("play", help="play one seat in the terminal against random agents")
    game_args(p, seed_help="seed of the deal and of the other seats' moves (default: a fresh random "
                           "seed, shown when the game ends)")
    p.add_argument("--seat", type=int, default=0, help="the seat you play, 0-based (default 0)")
    p.set_defaults(func=_cmd_play, seed=None)  # a fresh deal each time unless --seed is given

    p = sub.add_parser("diff", help="the differences between two rulesets in plain words (after extends)")
    p.add_argument("a", metavar="A", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("b", metavar="B", help="shipped game name or path to a ruleset .yaml")
    p.set_defaults(func=_cmd_diff)

    p = sub.add_parser("compile", help="print the Python code generated from a ruleset's rules")
    p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the ruleset's default)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="override a parameter (repeatable)")
    p.set_defaults(func=_cmd_compile)

    p = sub.add_parser("replay", help="re-play recorded games (simulate --out) and confirm their scores")
    p.add_argument("file", metavar="FILE.jsonl", help="records written by 'trickkit simulate --out'")
    p.add_argument("--force", action="store_true",
                   help="replay records even when the ruleset's content hash differs from the recorded one")
    p.add_argument("--ruleset", default=None, metavar="GAME",
                   help="load this ruleset (name or path) instead of the one each record names")
    p.add_argument("-v", "--verbose", action="store_true", help="also list the confirmed records")
    p.add_argument("--show", action="store_true",
                   help="tell each confirmed game as a person would, from one seat's view (see --seat)")
    p.add_argument("--seat", type=int, default=0, help="the seat whose view --show tells (default 0)")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("test", help="check the engine's invariants on a ruleset with random games (hypothesis)")
    p.add_argument("game", metavar="GAME", help="shipped game name or path to a ruleset .yaml")
    p.add_argument("--players", type=int, default=None, help="seat count (default: every count the ruleset allows)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a game parameter (repeatable)")
    p.add_argument("--check", action="append", default=[], metavar="CHECK",
                   help="run only this check (repeatable): " + ", ".join(_testing_checks()))
    p.add_argument("--examples", type=int, default=20, help="random games per check (default 20)")
    p.add_argument("--seed", type=int, default=None, help="make the run repeatable (hypothesis' seed)")
    p.add_argument("--max-actions", type=int, default=None,
                   help="a game longer than this fails (default: the ruleset's max_actions)")
    p.add_argument("--replay", default=None, metavar="JSON_OR_FILE",
                   help="replay the game of a failure report (its JSON, or a file holding it) and check it again")
    p.set_defaults(func=_cmd_test)

    p = sub.add_parser("lint", help="report unused definitions, variables and zones, dead action kinds, "
                                    "duplicate card texts, unknown text literals and tricks with no single winner")
    p.add_argument("file", metavar="FILE", help="ruleset .yaml (or a shipped game name)")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the ruleset's default)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a game parameter (repeatable)")
    p.add_argument("--games", type=int, default=50,
                   help="random games played to find action kinds that are never legal (default 50)")
    p.add_argument("--seed", type=int, default=0, help="seed of those games (default 0)")
    p.set_defaults(func=_cmd_lint)
    return parser


def _testing_checks() -> tuple[str, ...]:
    from trickkit.testing import CHECKS

    return CHECKS


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
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream that cannot change: leave it
                pass
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return args.func(args)
    except _UsageError as exc:
        print(f"trickkit {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except TrickkitError as exc:
        print(f"trickkit {args.command}: {type(exc).__name__}:\n{exc}" if "\n" in str(exc)
              else f"trickkit {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # an optional dependency (hypothesis for 'test') that is not installed
        print(f"trickkit {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
