"""Draws games with hypothesis and checks them: `check_ruleset`, `check_one` and the pytest
functions of `ruleset_tests` (hypothesis is imported when a check runs, not before)."""

from __future__ import annotations

import contextlib
import functools
import os
import random
from collections.abc import Callable, Sequence
from typing import Any

from trickkit.lab.conformance.case import CHECKS, InvariantError, MissingHypothesis
from trickkit.lab.conformance.driver import IndexChooser
from trickkit.lab.conformance.replay import _CHECK_FUNCTIONS, run_check, shrink

DEFAULT_EXAMPLES = 20
"""Games per check by default (hypothesis examples)."""


def _hypothesis() -> None:
    """Import hypothesis (when a check first runs), or raise `MissingHypothesis` saying how to install it."""
    try:
        import hypothesis  # noqa: F401
        from hypothesis import strategies  # noqa: F401
    except ImportError:
        raise MissingHypothesis(
            "trickkit.lab.conformance needs hypothesis, a dependency of trickkit that is missing here: "
            "pip install hypothesis (or reinstall trickkit)"
        ) from None


def check_ruleset(
    ruleset: str | os.PathLike[str],
    players: int | None = None,
    params: dict[str, Any] | None = None,
    *,
    checks: Sequence[str] | None = None,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    max_actions: int | None = None,
) -> None:
    """Check the engine's invariants (`CHECKS`) on a ruleset with hypothesis.

    Args:
        ruleset: a shipped game name or a ruleset path. A relative path that does not exist
            from the working directory is looked up beside the calling test file.
        players: the seat count; default: every count the ruleset allows (hypothesis picks).
        params: parameter values, as for `trickkit.load_game`.
        checks: which checks to run (default all of `CHECKS`, in that order).
        examples: random games per check (hypothesis examples).
        seed: makes the run repeatable (hypothesis' seed); default a fresh random run.
        max_actions: a game longer than this fails (default the ruleset's ``max_actions``).

    Raises:
        InvariantError: the first check that fails, with the smallest failing game found
            (seat count, seed, actions) and a command that replays it.
        MissingHypothesis: hypothesis is not installed.
        trickkit.RulesetError: the ruleset does not load.
        ValueError: an unknown check name.
    """
    for check in checks or CHECKS:
        if check not in _CHECK_FUNCTIONS:
            raise ValueError(f"unknown check {check!r} (checks: {', '.join(CHECKS)})")
    for check in checks or CHECKS:
        check_one(
            ruleset, check, players, params, examples=examples, seed=seed, max_actions=max_actions, _caller_depth=2
        )


def _resolve(ruleset: str | os.PathLike[str], depth: int) -> str:
    """``ruleset`` as given, or beside the calling file when it is a relative path not found here."""
    import inspect

    text = os.fspath(ruleset)
    if os.path.isabs(text) or os.path.exists(text) or not (text.endswith((".yaml", ".yml")) or os.sep in text):
        return text
    frame = inspect.currentframe()
    for _ in range(depth + 1):
        frame = frame.f_back if frame is not None else None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("trickkit.lab.conformance"):
        frame = frame.f_back
    caller: str | None = frame.f_globals.get("__file__") if frame is not None else None
    if caller:
        beside = os.path.join(os.path.dirname(os.path.abspath(caller)), text)
        if os.path.exists(beside):
            return beside
    return text


def check_one(
    ruleset: str | os.PathLike[str],
    check: str,
    players: int | None = None,
    params: dict[str, Any] | None = None,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    max_actions: int | None = None,
    _caller_depth: int = 1,
) -> None:
    """Run one check of `CHECKS` on a ruleset with hypothesis (see `check_ruleset`).

    Raises:
        InvariantError: the check fails (on the smallest failing game found).
        MissingHypothesis: hypothesis is not installed.
        trickkit.RulesetError: the ruleset does not load.
    """
    from trickkit.engine.loader import game_info

    _hypothesis()
    import hypothesis
    from hypothesis import strategies as st

    ruleset = _resolve(ruleset, _caller_depth)
    params = dict(params or {})
    info = game_info(ruleset)
    games: dict[int, Any] = {}

    def game_for(n: int) -> Any:
        if n not in games:
            key = tuple(sorted(params.items()))
            try:
                hash(key)
            except TypeError:  # a parameter value that cannot be a cache key: load it afresh
                return _load.__wrapped__(os.fspath(ruleset), n, key, ())
            games[n] = _load(os.fspath(ruleset), n, key, _stamp(ruleset))
        return games[n]

    if players is not None:
        game_for(players)  # a bad seat count or parameter fails here, not inside hypothesis
        counts = st.just(players)
    else:
        game_for(info.players_default)
        counts = st.integers(info.players_min, info.players_max)

    found: list[tuple[InvariantError, int, int, list[int]]] = []

    @hypothesis.settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(hypothesis.HealthCheck),
        report_multiple_bugs=False,
        verbosity=hypothesis.Verbosity.quiet,
        print_blob=False,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.generate],
    )
    # hypothesis draws the seat count, the shuffle seed and the seed of the choices; its own
    # shrinking is off (a draw per decision costs more than the decision): `shrink` does it
    @hypothesis.given(counts, st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
    def run(n: int, game_seed: int, choice_seed: int) -> None:
        chooser = IndexChooser(rng=random.Random(choice_seed))
        try:
            run_check(
                check,
                game_for(n),
                game_seed,
                chooser,
                ruleset=os.fspath(ruleset),
                params=params,
                max_actions=max_actions,
            )
        except InvariantError as e:
            found.append((e, n, game_seed, chooser.taken))
            raise

    if seed is not None:
        run = hypothesis.seed(seed)(run)
    with contextlib.suppress(InvariantError):
        run()
    if found:
        error, n, game_seed, taken = found[0]
        raise shrink(
            error,
            check,
            game_for,
            n,
            game_seed,
            taken,
            lo=info.players_min if players is None else n,
            ruleset=os.fspath(ruleset),
            params=params,
            max_actions=max_actions,
        ) from None


def _stamp(ruleset: str | os.PathLike[str]) -> tuple[int, ...]:
    """What tells one version of a ruleset file from the next (for the cache of loaded games)."""
    try:
        st = os.stat(ruleset)
    except (OSError, ValueError):
        return ()
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=32)
def _load(ruleset: str, players: int, params: tuple[tuple[str, Any], ...], stamp: tuple[int, ...]) -> Any:
    """A loaded game, kept while its file is unchanged: every check (and every test calling
    `check_ruleset`) of one ruleset shares it."""
    from trickkit.engine.loader import load_game

    return load_game(ruleset, players=players, **dict(params))


def ruleset_tests(
    ruleset: str | os.PathLike[str],
    players: int | None = None,
    params: dict[str, Any] | None = None,
    *,
    checks: Sequence[str] | None = None,
    examples: int = DEFAULT_EXAMPLES,
    max_actions: int | None = None,
) -> dict[str, Callable[[], None]]:
    """One pytest test function per check, to put in a test module's namespace::

        from trickkit.lab.conformance import ruleset_tests
        globals().update(ruleset_tests("my_game.yaml"))   # test_termination, test_conservation, ...

    pytest then reports each check on its own line.

    Returns:
        ``{"test_<check>": function}`` for each check.
    """
    path = _resolve(ruleset, 1)
    tests: dict[str, Callable[[], None]] = {}
    for check in checks or CHECKS:

        def test(check: str = check) -> None:
            check_one(path, check, players, params, examples=examples, max_actions=max_actions)

        test.__name__ = test.__qualname__ = f"test_{check}"
        test.__doc__ = f"trickkit.lab.conformance: the {check} invariant holds on {os.fspath(ruleset)}."
        tests[test.__name__] = test
    return tests
