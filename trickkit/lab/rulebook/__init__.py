"""Rulebooks computed from the rules: a ruleset's deck, flow, trick winners, duties, bids, scoring, views,
parameters, notation and version, each table evaluated by the engine (``trickkit rulebook``, `trickkit.rulebook`).

Modules by section: `deck`, `flow` (its diagram drawn by `flowsvg`), `tricks` (who wins, follow
duties), `worked` (bids and scoring from a seeded game), `seats` (views, parameters, notation,
version); `blocks` renders them as Markdown or HTML; `probe` builds the states the rules are
evaluated on; `diff` compares two rulebooks.
"""

from __future__ import annotations

import os
from typing import Any, Union

from trickkit.engine.game import Game, content_hash
from trickkit.engine.loader import read_document
from trickkit.lab.rulebook.blocks import Block, Heading, Para, Table, to_html, to_markdown
from trickkit.lab.rulebook.deck import deck_section
from trickkit.lab.rulebook.flow import flow_section
from trickkit.lab.rulebook.flowsvg import flow_svg
from trickkit.lab.rulebook.probe import SEED, walk_to
from trickkit.lab.rulebook.seats import notation_section, parameters_section, seats_section, version_section
from trickkit.lab.rulebook.tricks import duty_section, winner_section
from trickkit.lab.rulebook.worked import worked_sections
from trickkit.rules.ruleset import RulesetCompiler, step_parts

__all__ = ["FORMATS", "build", "flow_diagram", "rulebook", "tables"]

FORMATS = ("md", "html")

GameLike = Union[Game, str, "os.PathLike[str]"]


def _game(game: GameLike, players: int | None, params: dict[str, Any]) -> tuple[Game, dict[str, Any], Any]:
    """A private copy of the game, its resolved document and the compiler of its rules (the
    rulebook compiles rules of its own: a card's values), loaded as `trickkit.load_game` does."""
    if isinstance(game, Game):
        path: str | os.PathLike[str] = game.path
        players, params = players or game.num_players, {**game.params, **params}
    else:
        path = game
    doc, loc = read_document(path)
    compiler = RulesetCompiler(doc, loc, players, params)
    return Game(compiler.compile(), content_hash(doc), str(path)), doc, compiler.compiler


def build(game: GameLike, players: int | None = None, *, flow_image: str | None = None, **params: Any) -> list[Block]:
    """The rulebook of ``game`` (a `Game`, a shipped name or a ruleset path) as document blocks;
    ``flow_image``: where the Markdown finds the flow diagram (see `rulebook`)."""
    g, doc, compiler = _game(game, players, params)
    blocks: list[Block] = [Heading(1, f"{g.title}: the rulebook computed from the rules")]
    blocks.append(
        Para(
            f"Computed by trickkit from the ruleset `{g.name}` for {g.num_players} players "
            f"({_params_text(g)}): every table below is the engine evaluating the rules."
        )
    )
    if doc.get("description"):
        blocks.append(Para(" ".join(str(doc["description"]).split())))
    start = g.new_initial_state(seed=SEED)
    blocks += deck_section(g, doc, start, compiler)
    blocks += flow_section(doc, flow_image)
    trick = walk_to(g, "tricks")
    if trick is not None:
        step = g.rules.steps[trick.step]
        spec = _trick_spec(doc)
        blocks += winner_section(g, doc, trick, step, str(spec.get("winner", step.winner.text)))
        blocks += duty_section(g, trick, step)
    else:
        blocks += [Heading(2, "Who wins a trick"), Para("This game has no tricks step.")]
    blocks += worked_sections(g, doc)
    blocks += seats_section(g, doc)
    blocks += parameters_section(doc)
    blocks += notation_section(g)
    blocks += version_section(g)
    return blocks


def _params_text(g: Game) -> str:
    return ", ".join(f"{k}={v}" for k, v in g.params.items()) or "no parameters"


def _trick_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """The first ``tricks`` step of the ruleset's round, looking inside repeats."""
    todo = list(doc.get("round") or [])
    while todo:
        kind, spec = step_parts(todo.pop(0))
        if kind == "tricks":
            return dict(spec)
        if kind == "repeat":
            todo = list(spec.get("steps") or []) + todo
    return {}


def flow_diagram(game: GameLike) -> str:
    """The flow of a round of ``game`` (a `Game`, a shipped name or a ruleset path) as an SVG file's
    text, drawn from its ruleset's round (the diagram of the rulebook's flow section)."""
    doc, _ = read_document(game.path if isinstance(game, Game) else game)
    return flow_svg(doc, f"Flow of a round of {doc.get('title') or doc.get('name') or 'the game'}")


def rulebook(
    game: GameLike,
    format: str = "md",
    players: int | None = None,
    *,
    base_level: int = 1,
    flow_image: str | None = None,
    **params: Any,
) -> str:
    """The rulebook of ``game`` computed from its rules, as Markdown (``format="md"``) or a
    self-contained HTML page (``"html"``).

    Args:
        game: a `Game`, a shipped game name or the path of a ruleset file.
        format: ``"md"`` or ``"html"``.
        players: seat count (default: the ruleset's default, or the `Game`'s).
        base_level: the Markdown heading level of the title (2 to embed it under a page's title).
        flow_image: the path (relative to the Markdown page) of the flow diagram's SVG file, written
            by the caller with `flow_diagram`; ``None``: the Markdown carries the diagram in a
            ``data:`` address. The HTML page always holds the diagram inline.
        **params: parameter values (default: the ruleset's).
    """
    blocks = build(game, players, flow_image=flow_image, **params)
    if format == "md":
        return to_markdown(blocks, base_level)
    if format == "html":
        title = blocks[0].text if isinstance(blocks[0], Heading) else "rulebook"
        return to_html(blocks, title)
    raise ValueError(f"unknown rulebook format {format!r}: use one of {', '.join(FORMATS)}")


def tables(blocks: list[Block]) -> dict[str, Table]:
    """The tables of a rulebook by name."""
    return {b.name: b for b in blocks if isinstance(b, Table)}
