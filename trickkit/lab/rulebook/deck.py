"""The rulebook's deck section: a row per card text with every per-card value, evaluated by the engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.dsl.hooks import make_hook
from trickkit.engine.game import Game
from trickkit.engine.state import State
from trickkit.errors import TrickkitError
from trickkit.lab.rulebook.blocks import Block, Heading, Para, Table
from trickkit.lab.rulebook.probe import definition_texts, evaluate, reads, show, state_names
from trickkit.rules.cards import STANDARD_ATTRIBUTES

CARD = (("card", "card"),)


def card_rule(compiler: Any, text: str) -> Callable[..., Any] | None:
    """``text`` compiled as a rule about one ``card`` (None if the ruleset's names do not allow it)."""
    try:
        fn, size, _ = compiler.expression(text, CARD, None, False, "rulebook")
    except TrickkitError:
        return None
    except Exception:  # a compile error of another kind: the column is left out, not the rulebook
        return None
    return make_hook(fn, size, 1, "rulebook", text)


def card_columns(game: Game, doc: dict[str, Any], s: State, compiler: Any) -> list[tuple[str, list[str]]]:
    """Per-card values: each attribute the ruleset adds (``card.heads``), then each definition of
    one parameter that holds for every card (``points(c)``), evaluated on every card of the deck."""
    deck = game.rules.deck
    columns = []
    names = [a for a in deck.attrs if a not in STANDARD_ATTRIBUTES]
    texts = [(a, f"card.{a}") for a in names]
    defs = definition_texts(doc)
    for key in doc.get("definitions") or {}:
        head, _, rest = key.partition("(")
        params = [p.strip() for p in rest.rstrip(")").split(",") if p.strip()]
        if len(params) == 1 and not reads(doc["definitions"][key], defs) & state_names(doc):
            texts.append((f"{head}(card)", f"{head}(card)"))
    for label, text in texts:
        hook = card_rule(compiler, text)
        if hook is None:
            continue
        values = []
        try:
            for c in range(len(deck)):
                values.append(show(evaluate(s, hook, c)))
        except Exception:  # the rule needs more than a card (a trick, a pile): not a per-card value
            continue
        columns.append((label, values))
    return columns


def deck_section(game: Game, doc: dict[str, Any], s: State, compiler: Any) -> list[Block]:
    deck = game.rules.deck
    columns = card_columns(game, doc, s, compiler)
    standard = [a for a in ("suit", "kind", "rank") if any(v is not None for v in deck.attrs.get(a, ()))]
    modes = any(len(f) > 1 for f in deck.card_faces)
    header = ["card", *standard, "count"] + (["played as"] if modes else []) + [label for label, _ in columns]
    rows, seen = [], set()
    for c, text in enumerate(deck.texts):
        if text in seen:
            continue
        seen.add(text)
        row = [f"`{text}`"] + [show(deck.attrs[a][c]) for a in standard] + [str(len(deck.by_text[text]))]
        if modes:
            faces = deck.card_faces[c]
            row.append(", ".join(f"`{deck.face_texts[f]}`" for f in faces) if len(faces) > 1 else "")
        row += [values[c] for _, values in columns]
        rows.append(tuple(row))
    blocks: list[Block] = [
        Heading(2, "The deck"),
        Para(
            f"{len(deck)} cards, {len(rows)} different. Values in the last columns are computed by the engine: "
            "each rule evaluated on each card."
            if columns
            else f"{len(deck)} cards, {len(rows)} different."
        ),
        Table("deck", tuple(header), tuple(rows)),
    ]
    return blocks
