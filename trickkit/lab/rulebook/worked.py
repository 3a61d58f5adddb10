"""The rulebook's worked examples from one seeded game the engine plays: bids offered, scores by round."""

from __future__ import annotations

import random
from typing import Any

from trickkit.engine.game import Game
from trickkit.lab.rulebook.blocks import Block, Heading, Para, Table
from trickkit.lab.rulebook.probe import MAX_WALK, SEED, compact, show

MAX_ROUNDS_SHOWN = 6
"""Rounds of the worked game shown in the tables."""


def worked_sections(game: Game, doc: dict[str, Any]) -> list[Block]:
    """Bids and scoring, as tables of one game the engine plays with random legal moves (seed `SEED`)."""
    rng = random.Random(SEED)
    s = game.new_initial_state(seed=SEED)
    rules = game.rules
    seat_vars = [v for v in rules.seat_vars if not v.internal]
    bids: list[tuple[str, ...]] = []
    scores: list[tuple[str, ...]] = []
    verbs: set[str] = set()
    last_round = s.round

    def score_rows(label: str) -> None:
        values = s.scores()
        for seat in range(game.num_players):
            row = [label, str(seat)] + [show(s.seat_vars[v.index][seat]) for v in seat_vars] + [str(values[seat])]
            scores.append(tuple(row))

    for _ in range(MAX_WALK * 20):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        texts = [str(a) for a in legal]
        verbs.update(t.split(" ", 1)[0] for t in texts)
        chosen = rng.choice(legal)
        if texts and all(t.startswith("bid ") for t in texts) and s.round <= MAX_ROUNDS_SHOWN:
            values = [_int(t[4:]) for t in texts]
            bids.append((str(s.round), str(s.current_player()), compact(values), str(chosen)))
        s.apply_action(chosen)
        if s.round != last_round or s.is_terminal():
            if last_round <= MAX_ROUNDS_SHOWN:
                score_rows(f"after round {last_round}" + (" (game over)" if s.is_terminal() else ""))
            last_round = s.round
    blocks: list[Block] = []
    if bids:
        blocks += [
            Heading(2, "Bids"),
            Para(
                "The bids the engine offers in a game it plays with random legal moves (seed "
                f"{SEED}, {game.num_players} players), first {MAX_ROUNDS_SHOWN} rounds at most."
            ),
            Table("bids", ("round", "seat", "may bid", "bid"), tuple(bids)),
        ]
    if scores:
        blocks += [
            Heading(2, "Scoring"),
            Para(
                f"The same game: each seat's variables and score (`{' '.join(str(doc.get('score', '')).split())}`, "
                f"in {game.score_unit}) after each round."
            ),
            Table("scoring", ("when", "seat", *(v.name for v in seat_vars), "score"), tuple(scores)),
        ]
    return blocks


def _int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text
