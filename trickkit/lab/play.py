"""Plays one game of a run exactly as `trickkit.lab.simulation.play_game` does, and measures it.

Game ``index`` of a run with master ``seed`` gets the state seed `trickkit.lab.simulation.game_seed`
``(seed, index)`` and the agents' generator `trickkit.lab.simulation.agent_seed` ``(seed, index)``,
so the same game is played here, by `simulate` and by every variant of a `compare` run
(common random numbers). Besides the scores and winners it records the game's length in
actions and rounds, and how often the lead changed.

**The lead** after a round is the set of seats with the best score then, "best" being the
ruleset's ``winners:`` direction (highest or lowest). It is checked at the end of every
round (when the engine moves to the next round, and when the game ends); a **lead change**
is a round whose leading set differs from the previous round's (so a tie joining or
leaving the lead counts). A one-round game has no lead change.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from trickkit.errors import TrickkitError
from trickkit.lab.simulation import MAX_ACTIONS, _make_agents, agent_seed, game_seed

__all__ = ["GameStats", "play_measured"]


@attrs.frozen
class GameStats:
    """What one game measured.

    Attributes:
        index: the game's number in the run.
        seed: its state seed.
        scores: the final score of each seat.
        winners: the winning seats (ties share the win).
        actions: number of actions applied.
        rounds: number of rounds played (the state's ``round`` at the end).
        lead_changes: rounds whose leading seats differ from the previous round's.
        team_scores: each team's final score, when the game has teams (else None).
        team_winners: the winning teams, when the game says (else None).
    """

    index: int
    seed: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    actions: int
    rounds: int
    lead_changes: int
    team_scores: tuple[int, ...] | None = None
    team_winners: tuple[int, ...] | None = None


def _best(scores: Sequence[int], highest: bool) -> frozenset[int]:
    if not scores:
        return frozenset()
    best = max(scores) if highest else min(scores)
    return frozenset(s for s, v in enumerate(scores) if v == best)


def _teams(game: Any, state: Any, highest: bool) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """Team scores and winners of a game with partnerships (``game.teams`` with fewer teams
    than seats; a game without: None), from the state's own ``team_scores()``. The winning
    teams are those of the winning seats (partners win together), else, for a game that
    does not say who partners whom, the teams with the best team score."""
    scores = winners = None
    teams = getattr(game, "teams", None)
    if teams is not None and len(teams) in (0, game.num_players):
        return None, None  # every seat is its own team: the seats' figures say it all
    fn = getattr(state, "team_scores", None)
    if callable(fn):
        try:
            value = fn()
        except Exception:  # no teams in this game
            value = None
        if value:
            scores = tuple(value)
    if scores is None:
        return None, None
    if teams:
        won = set(state.winners())
        winners = tuple(t for t, members in enumerate(teams) if won & set(members))
    else:
        winners = tuple(sorted(_best(scores, highest)))
    return scores, winners


def play_measured(
    game: Any,
    seed: int,
    index: int,
    agents: Sequence[Any] | None = None,
    on_decision: Callable[[Any, list[Any], Any], None] | None = None,
) -> GameStats:
    """Play game ``index`` of a run with master ``seed`` to its end and measure it.

    Args:
        game: a loaded Game.
        seed: the run's master seed.
        index: the game's number (selects its seeds, as in `trickkit.lab.simulation.play_game`).
        agents: per-seat agents or factories, as for `trickkit.simulate`; None = random.
        on_decision: called as ``on_decision(state, legal_actions, chosen)`` before each
            action is applied (coverage counts use it); it must not change the state.

    Raises:
        TrickkitError: the game did not end within `trickkit.lab.simulation.MAX_ACTIONS`
            actions, or an agent failed (as in `play_game`).
    """
    sseed = game_seed(seed, index)
    rng = random.Random(agent_seed(seed, index))
    seats = _make_agents(agents, game.num_players, rng)
    state = game.new_initial_state(seed=sseed)
    rules = getattr(game, "rules", None)
    highest = getattr(rules, "winners_highest", True)
    actions = 0
    last_round = getattr(state, "round", 1)
    leaders = None
    changes = 0

    def check_lead() -> None:
        nonlocal leaders, changes
        now = _best(state.scores(), highest)
        if leaders is not None and now != leaders:
            changes += 1
        leaders = now

    while not state.is_terminal():
        if actions >= MAX_ACTIONS:
            raise TrickkitError(f"game {index} (seed {sseed}) did not end after {MAX_ACTIONS} actions")
        seat = state.current_player()
        if on_decision is not None:
            legal = state.legal_actions()
            chosen = seats[seat].step(state)
            on_decision(state, legal, chosen)
        else:
            chosen = seats[seat].step(state)
        state.apply_action(chosen)
        actions += 1
        now_round = getattr(state, "round", 1)
        if now_round != last_round:  # a round ended (the scores are those after its scoring)
            check_lead()
            last_round = now_round
    check_lead()  # the last round ended with the game
    team_scores, team_winners = _teams(game, state, highest)
    return GameStats(
        index=index,
        seed=sseed,
        scores=tuple(state.scores()),
        winners=tuple(state.winners()),
        actions=actions,
        rounds=getattr(state, "round", 1),
        lead_changes=changes,
        team_scores=team_scores,
        team_winners=team_winners,
    )
