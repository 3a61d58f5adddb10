"""Commands that check a ruleset: ``check`` (scenario files), ``test`` (the conformance kit) and ``lint``."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

import yaml

from trickkit.cli.common import UsageError, console, load_ruleset, parse_params
from trickkit.errors import ScenarioError

TEST_MAX_ACTIONS = 10_000
"""Actions after which ``trickkit test`` stops a random game and reports that it did not end
(``--max-actions`` sets another cap; the ruleset's own ``max_actions`` applies when lower): a
game that never ends fails ``termination`` within seconds, not after the ruleset's
``max_actions`` (100,000 by default) for each of its games and each replay that shrinks it."""


def _scenario_files(paths: Sequence[str]) -> list[tuple[str, bool]]:
    """``(file, found in a directory)`` for every scenario file to run, in order."""
    files: list[tuple[str, bool]] = []
    for path in paths:
        if os.path.isdir(path):
            found: list[str] = []
            for root, dirs, names in os.walk(path):
                dirs.sort()
                found.extend(os.path.join(root, n) for n in names if n.endswith((".yaml", ".yml")))
            files.extend((f, True) for f in sorted(found))
        elif os.path.exists(path):
            files.append((path, False))
        else:
            raise UsageError(f"{path}: no such file or directory")
    return files


PEEK_SIZE = 1_000_000
"""Largest file `looks_like_ruleset` and `looks_like_scenarios` parse to tell what a file is (after
the scenario loader refused it, say): a larger one is neither, and is never read past this many
bytes (rulesets and scenario files are a few kilobytes)."""


def _yaml_file(file: Any) -> Any:
    """The YAML document in ``file``, or None when it cannot be read, is larger than `PEEK_SIZE`
    or is not YAML (the caller's error says why). Read as every user file is (regular files
    only, never blocking) and parsed by libyaml when it is there; aliases are not expanded."""
    from trickkit.rules.source import read_limited

    try:
        data = read_limited(file, PEEK_SIZE)
        if len(data) > PEEK_SIZE:
            return None
        return yaml.load(data.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:  # unreadable, not UTF-8, not YAML, nested too deeply
        return None


def looks_like_ruleset(file: Any) -> bool:
    """True for a YAML mapping with a ruleset's keys (deck, round, extends)."""
    data = _yaml_file(file)
    return isinstance(data, dict) and ("deck" in data or "round" in data or "extends" in data)


def looks_like_scenarios(file: Any) -> bool:
    """True for a YAML list of mappings with a scenario's keys (game, actions)."""
    data = _yaml_file(file)
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(d, dict) and ("actions" in d or "game" in d) for d in data)
    )


def cmd_check(args: argparse.Namespace) -> int:
    from trickkit.lab.scenarios import run_scenario_file

    out = console()
    files = _scenario_files(args.paths)
    passed = failed = errors = skipped = 0
    for file, in_folder in files:
        try:
            results = run_scenario_file(file)
        except ScenarioError as exc:
            if in_folder and looks_like_ruleset(file):
                skipped += 1  # the ruleset a folder's scenarios test, kept beside them
                continue
            errors += 1
            lines = str(exc).splitlines() or [file]
            out.print(f"ERROR {file}", markup=False)
            if looks_like_ruleset(file):
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


def cmd_test(args: argparse.Namespace) -> int:
    import attrs

    from trickkit.lab import conformance as testing

    params = parse_params(args.param)
    checks = args.check or list(testing.CHECKS)
    for check in checks:
        if check not in testing.CHECKS:
            raise UsageError(f"--check {check!r}: unknown (checks: {', '.join(testing.CHECKS)})")
    if args.examples < 1:
        raise UsageError(f"--examples must be >= 1, got {args.examples}")
    if args.max_actions is not None and args.max_actions < 1:
        raise UsageError(f"--max-actions must be >= 1, got {args.max_actions}")
    out = console()
    if args.replay is not None:
        text = args.replay
        if not text.lstrip().startswith("{"):
            try:
                with open(text, encoding="utf-8") as f:
                    text = f.read()
            except OSError as exc:
                raise UsageError(f"--replay {args.replay}: {exc.strerror or exc}") from None
        try:
            case = testing.GameCase.from_json(text)
        except ValueError as exc:
            raise UsageError(f"--replay: {exc}") from None
        game = load_ruleset(args.game, case.players, case.params)
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
            testing.check_one(
                args.game,
                check,
                args.players,
                params,
                examples=args.examples,
                seed=args.seed,
                max_actions=TEST_MAX_ACTIONS if args.max_actions is None else args.max_actions,
            )
        except testing.InvariantError as exc:
            failed += 1
            out.print(f"FAIL {exc}", markup=False)
            if check == "termination":  # every other check plays games to their end
                if args.max_actions is None and "did not end within" in exc.message:
                    out.print(
                        f"(games are stopped at {TEST_MAX_ACTIONS} actions unless --max-actions says otherwise)",
                        markup=False,
                    )
                out.print("the other checks need games that end: skipped", markup=False)
                checks = checks[: checks.index(check) + 1]
                break
        else:
            out.print(f"ok   {check} ({args.examples} games)", markup=False)
    out.print(f"{len(checks) - failed} passed, {failed} failed", markup=False)
    return 1 if failed else 0


def cmd_lint(args: argparse.Namespace) -> int:
    from trickkit.lab.lint import lint

    if args.games < 0:
        raise UsageError(f"--games must be >= 0, got {args.games}")
    out = console()
    findings = lint(args.file, players=args.players, params=parse_params(args.param), games=args.games, seed=args.seed)
    for finding in findings:
        out.print(str(finding), markup=False)
    out.print(f"{args.file}: {len(findings)} finding{'s' if len(findings) != 1 else ''}", markup=False)
    return 1 if findings else 0


def testing_checks() -> tuple[str, ...]:
    from trickkit.lab.conformance import CHECKS

    return CHECKS
