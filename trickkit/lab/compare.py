"""``trickkit compare``: several rulesets (variants) played on the same seeds, side by side.

**Common random numbers.** Game ``i`` of every variant uses the state seed
``game_seed(seed, i)`` and the agents' generator ``agent_seed(seed, i)`` (see
`trickkit.lab.simulation`). Two variants with the same deck and the same deal steps therefore
shuffle and deal the same cards in game ``i``: the deal is the first thing the state's
generator is used for. From the first decision where their legal actions differ, random
agents pick differently and the games drift apart; still, pairing game ``i`` of A with game
``i`` of B removes much of the luck of the deal from their difference, so a paired
difference needs far fewer games than two independent runs. `Comparison.same_deal` says
for how many games the opening deal was in fact the same.

The statistics (see `trickkit.lab.stats`): Wilson intervals for win rates, Student t
intervals for means, and for each variant after the first the paired difference from the
first (the baseline), game by game, with its t interval.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from trickkit.errors import TrickkitError
from trickkit.lab import stats
from trickkit.lab.play import GameStats, play_measured
from trickkit.lab.simulation import game_seed
from trickkit.lab.workers import _exit_with_parent, _game_spec, pooled_chunks

__all__ = ["Comparison", "VariantStats", "compare"]

SAME_DEAL_CHECKS = 50
"""How many games' opening deals `compare` checks for being the same across variants."""


@attrs.frozen
class VariantStats:
    """The summary of one variant over a run.

    Attributes:
        label: how the variant was named (a shipped name or a path).
        game: the ruleset's name.
        players: seat count.
        games: games played.
        win_rate: per seat, the share of games it won (a shared win counts for every winner), Wilson interval.
        mean_score: per seat, the mean final score, t interval.
        seat_test: chi-square test of "every seat wins equally often" (split credit for shared wins), or None;
            in a partnership game, of "every team wins equally often".
        actions: mean game length in actions.
        rounds: mean game length in rounds.
        lead_changes: mean number of lead changes per game (see `trickkit.lab.play`).
        team_win_rate: per team, when the game has teams (else None).
        team_mean_score: per team, when the game has teams (else None).
    """

    label: str
    game: str
    players: int
    games: int
    win_rate: tuple[Any, ...]
    mean_score: tuple[Any, ...]
    seat_test: Any
    actions: stats.Interval
    rounds: stats.Interval
    lead_changes: stats.Interval
    team_win_rate: tuple[Any, ...] | None = None
    team_mean_score: tuple[Any, ...] | None = None


@attrs.frozen
class Difference:
    """A variant against the baseline (the first variant), paired game by game.

    Attributes:
        label: the variant.
        baseline: the baseline's label.
        win_rate: per seat, the mean of (won in this variant - won in the baseline), t interval;
            None when the seat counts differ.
        mean_score: per seat, the mean score difference, t interval; None when the seat counts differ.
        actions: mean difference in game length (actions).
        rounds: mean difference in rounds.
        lead_changes: mean difference in lead changes.
        same_deal: games (of those checked) whose opening deal was the same as the baseline's, and how many
            were checked.
    """

    label: str
    baseline: str
    win_rate: tuple[Any, ...] | None
    mean_score: tuple[Any, ...] | None
    actions: stats.Interval
    rounds: stats.Interval
    lead_changes: stats.Interval
    same_deal: tuple[Any, ...]


@attrs.frozen
class Comparison:
    """The result of `compare`: per-variant summaries, paired differences and every game's measures.

    Attributes:
        seed: the master seed.
        games: games per variant.
        variants: one `VariantStats` per variant, in the order given.
        differences: one `Difference` per variant after the first.
        results: per variant, the `trickkit.lab.play.GameStats` of every game in order.
        seconds: wall-clock time of the run.
    """

    seed: int
    games: int
    variants: tuple[Any, ...]
    differences: tuple[Any, ...]
    results: tuple[Any, ...] = attrs.field(repr=False)
    seconds: float = 0.0


def _summarise(label: str, game: Any, results: Sequence[GameStats]) -> VariantStats:
    n = len(results)
    players = game.num_players
    wins = [0] * players
    share = [0.0] * players
    scores: list[list[int]] = [[] for _ in range(players)]
    for r in results:
        for seat in r.winners:
            wins[seat] += 1
            share[seat] += 1 / len(r.winners)
        for seat, v in enumerate(r.scores):
            scores[seat].append(v)
    team_win = team_score = None
    team_scores = [r.team_scores for r in results if r.team_scores is not None]
    team_winners = [r.team_winners for r in results if r.team_winners is not None]
    if results and len(team_scores) == n:  # every game has team scores
        teams = len(team_scores[0])
        team_score = tuple(stats.mean_interval([s[t] for s in team_scores]) for t in range(teams))
        if len(team_winners) == n:
            team_win = tuple(stats.wilson(sum(1 for w in team_winners if t in w), n) for t in range(teams))
            if teams < players:  # partnerships: only teams are meaningful, the balance test is per team
                team_share = [0.0] * teams
                for w in team_winners:
                    for t in w:
                        team_share[t] += 1 / len(w)
                share = team_share
    return VariantStats(
        label=label,
        game=game.name,
        players=players,
        games=n,
        win_rate=tuple(stats.wilson(w, n) for w in wins),
        mean_score=tuple(stats.mean_interval(s) for s in scores),
        seat_test=stats.chi_square_equal(share),
        actions=stats.mean_interval([r.actions for r in results]),
        rounds=stats.mean_interval([r.rounds for r in results]),
        lead_changes=stats.mean_interval([r.lead_changes for r in results]),
        team_win_rate=team_win,
        team_mean_score=team_score,
    )


def _opening(game: Any, seed: int) -> dict[str, Any] | None:
    """Every zone's cards (as texts) at the start of a game: its opening deal."""
    try:
        zones: dict[str, Any] = game.new_initial_state(seed=seed).observation_all()["zones"]
        return zones
    except Exception:  # a game without full observations (a test double): not comparable
        return None


def _same_deal(base: Any, other: Any, seed: int, games: int) -> tuple[int, int]:
    checked = min(games, SAME_DEAL_CHECKS)
    same = 0
    for i in range(checked):
        a, b = _opening(base, game_seed(seed, i)), _opening(other, game_seed(seed, i))
        if a is not None and b is not None and set(a) == set(b) and a == b:
            same += 1
    return same, checked


def _difference(
    label: Any,
    base_label: Any,
    base_game: Any,
    game: Any,
    base: Sequence[GameStats],
    other: Sequence[GameStats],
    seed: int,
) -> Difference:
    seats = game.num_players == base_game.num_players
    win = score = None
    if seats:
        win = tuple(
            stats.paired_difference([float(s in r.winners) for r in other], [float(s in r.winners) for r in base])
            for s in range(game.num_players)
        )
        score = tuple(
            stats.paired_difference([r.scores[s] for r in other], [r.scores[s] for r in base])
            for s in range(game.num_players)
        )
    return Difference(
        label=label,
        baseline=base_label,
        win_rate=win,
        mean_score=score,
        actions=stats.paired_difference([r.actions for r in other], [r.actions for r in base]),
        rounds=stats.paired_difference([r.rounds for r in other], [r.rounds for r in base]),
        lead_changes=stats.paired_difference([r.lead_changes for r in other], [r.lead_changes for r in base]),
        same_deal=_same_deal(base_game, game, seed, len(base)),
    )


# ------------------------------------------------------------------ workers

_WORKER: dict[str, Any] = {}


def _load_spec(spec: tuple[Any, ...]) -> Any:
    import pickle

    if spec[0] == "pickle":
        return pickle.loads(spec[1])
    from trickkit.engine.loader import load_game

    return load_game(spec[1], **spec[2])


def _worker_init(specs: tuple[Any, ...], agents: Any, parent: int) -> None:
    _exit_with_parent(parent)
    _WORKER["games"] = [_load_spec(s) for s in specs]
    _WORKER["agents"] = agents


def _worker_chunk(seed: int, start: int, stop: int) -> list[list[GameStats]]:
    games, agents = _WORKER["games"], _WORKER["agents"]
    return [[play_measured(g, seed, i, a) for g, a in zip(games, agents)] for i in range(start, stop)]


def _rows(games: Sequence[Any], count: int, seed: int, agents: Any, jobs: int) -> Iterator[list[GameStats]]:
    """For each game index in order: the measures of that game in every variant."""
    if jobs == 1 or count <= 1:
        for i in range(count):
            yield [play_measured(g, seed, i, a) for g, a in zip(games, agents)]
        return
    specs = tuple(_game_spec(g) for g in games)
    for rows in pooled_chunks(
        count, jobs, _worker_init, (specs, agents, os.getpid()), lambda start, stop: (_worker_chunk, seed, start, stop)
    ):
        yield from rows


def compare(
    variants: Sequence[tuple[str, Any]],
    games: int,
    seed: int = 0,
    agents: Sequence[Any] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Play ``games`` games of every variant on the same seeds and compare them.

    Args:
        variants: ``(label, game)`` pairs, at least one; the first is the baseline the
            others are compared with. ``game`` is a loaded Game.
        games: games per variant (>= 1).
        seed: master seed: game ``i`` of every variant uses ``game_seed(seed, i)`` and
            ``agent_seed(seed, i)`` (the same games `simulate` plays with that seed).
        agents: per-seat agents or factories as for `trickkit.simulate` (the same for every
            variant; one entry: every seat's, whatever a variant's seat count; with ``jobs > 1``
            picklable); None: random agents.
        jobs: worker processes; the results are the same for any ``jobs``.
        progress: called as ``progress(done, total)`` after each game index.

    Returns:
        The `Comparison`.

    Raises:
        TrickkitError: no variant, ``games < 1`` or ``jobs < 1``, agents that do not fit a
            variant's seat count, or a game that misbehaves (see `trickkit.lab.simulation.play_game`).
    """
    import time

    if not variants:
        raise TrickkitError("compare needs at least one ruleset")
    if games < 1:
        raise TrickkitError(f"games must be >= 1, got {games}")
    if jobs < 1:
        raise TrickkitError(f"jobs must be >= 1, got {jobs}")
    per_variant = []
    for label, game in variants:
        if agents is None or len(agents) == 1:
            per_variant.append(None if agents is None else list(agents) * game.num_players)
        elif len(agents) != game.num_players:
            raise TrickkitError(f"{label}: got {len(agents)} agents for a {game.num_players}-player game")
        else:
            per_variant.append(list(agents))
    started = time.perf_counter()
    labels = [label for label, _ in variants]
    loaded = [game for _, game in variants]
    results: list[list[GameStats]] = [[] for _ in variants]
    for done, row in enumerate(_rows(loaded, games, seed, per_variant, jobs), start=1):
        for v, r in enumerate(row):
            results[v].append(r)
        if progress is not None:
            progress(done, games)
    summaries = tuple(_summarise(label, game, res) for label, game, res in zip(labels, loaded, results))
    diffs = tuple(
        _difference(labels[v], labels[0], loaded[0], loaded[v], results[0], results[v], seed)
        for v in range(1, len(variants))
    )
    return Comparison(
        seed=seed,
        games=games,
        variants=summaries,
        differences=diffs,
        results=tuple(tuple(r) for r in results),
        seconds=time.perf_counter() - started,
    )
