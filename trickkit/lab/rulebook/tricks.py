"""The rulebook's trick sections: who wins a trick (the winner rule evaluated on every pair of cards, in every
trump situation it reads) and the follow duties (the duty evaluated on a constructed hand)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickkit.engine.game import Game
from trickkit.engine.state import State
from trickkit.engine.steps import playable_cards
from trickkit.lab.rulebook.blocks import Block, Bullets, Heading, Para, Table
from trickkit.lab.rulebook.probe import definition_texts, evaluate, reads, show
from trickkit.rules.ruleset import TrickStep

HAND_SIZE = 10
"""About how many cards the hand of the follow-duty examples holds."""

MAX_EXCEPTIONS = 8
"""Most exceptions listed per trump situation."""


def face_class(game: Game, face: int) -> str:
    """The group a played face belongs to: its suit, else its kind, else its text."""
    fa = game.rules.deck.face_attrs
    suit, kind = fa.get("suit", ())[face] if "suit" in fa else None, fa.get("kind", ())[face] if "kind" in fa else None
    if suit is not None:
        return str(suit)
    if kind is not None:
        return str(kind)
    return game.rules.deck.face_texts[face]


def _rank(game: Game, face: int) -> Any:
    fa = game.rules.deck.face_attrs
    return fa["rank"][face] if "rank" in fa else None


def situations(game: Game, doc: dict[str, Any], s: State, text: str) -> list[tuple[str, Any, Any]]:
    """The trump situations the winner rule ``text`` depends on: (label, set-up, restore) for each
    table zone it reads (empty, or holding one card of each suit or kind) and each bool table
    variable it reads (true, false); one situation (the dealt state) when it reads neither."""
    names = reads(text, definition_texts(doc))
    deck = game.rules.deck
    out: list[tuple[str, Any, Any]] = []
    for z in game.rules.table_zones:
        if z.name not in names or z.count:
            continue
        saved = list(s.table_zones[z.index])
        firsts: dict[str, int] = {}
        for c in range(len(deck)):
            firsts.setdefault(face_class(game, deck.card_faces[c][0]), c)

        def put(cards: list[int], zi: int = z.index) -> None:
            s.table_zones[zi][:] = cards

        out.append((f"`{z.name}` empty", (put, []), (put, saved)))
        for label, c in firsts.items():
            out.append((f"`{z.name}` holds `{deck.texts[c]}` ({label})", (put, [c]), (put, saved)))
    for v in game.rules.table_vars:
        if v.name not in names or v.per_team or not isinstance(v.initial, bool):
            continue
        saved_v = s.table_vars[v.index]

        def setv(value: Any, vi: int = v.index) -> None:
            s.table_vars[vi] = value

        out.append((f"`{v.name}` true", (setv, True), (setv, saved_v)))
        out.append((f"`{v.name}` false", (setv, False), (setv, saved_v)))
    return out or [("", None, None)]


def _summary(outcomes: list[tuple[int, int, str]], game: Game) -> tuple[str, list[tuple[int, int, str]]]:
    """A matrix cell: the pattern most pairs follow (led card, other card, higher or lower rank),
    and the pairs that do not follow it."""
    patterns: dict[str, Callable[[int, int, str], bool]] = {
        "led card": lambda a, b, w: w == "led",
        "other card": lambda a, b, w: w == "other",
        "higher rank": lambda a, b, w: w in ("led", "other") and _higher(game, a, b, w),
        "lower rank": lambda a, b, w: w in ("led", "other") and _higher(game, b, a, "other" if w == "led" else "led"),
    }
    best, misses = "", outcomes
    for name, test in patterns.items():
        bad = [o for o in outcomes if not test(*o)]
        if len(bad) < len(misses):
            best, misses = name, bad
    if not best:
        kinds = sorted({w for _, _, w in outcomes})
        return "/".join(kinds), []
    return (best if not misses else f"{best} ({len(outcomes) - len(misses)} of {len(outcomes)})"), misses


def _higher(game: Game, a: int, b: int, w: str) -> bool:
    """The winner (``w``: led = a, other = b) has the higher rank."""
    ra, rb = _rank(game, a), _rank(game, b)
    if not isinstance(ra, int) or not isinstance(rb, int) or ra == rb:
        return False
    return (ra > rb) == (w == "led")


def winner_section(game: Game, doc: dict[str, Any], s: State, step: TrickStep, text: str) -> list[Block]:
    deck = game.rules.deck
    faces = list(range(len(deck.face_texts)))
    classes: dict[str, list[int]] = {}
    for f in faces:
        if deck.face_card[f] == deck.by_text[deck.texts[deck.face_card[f]]][0]:  # copies play alike: the first
            classes.setdefault(face_class(game, f), []).append(f)
    names = list(classes)
    blocks: list[Block] = [
        Heading(2, "Who wins a trick"),
        Para(
            "The winner rule `" + " ".join(text.split()) + "`, evaluated by the engine on every pair of cards: "
            "a led card and another card played after it. Rows: the group of the led card; columns: the group "
            "of the other card; a cell says which card takes the trick (how many pairs follow that, if not all)."
        ),
    ]
    other = (s.current + 1) % game.num_players
    saved_trick = s.trick
    for label, setup, restore in situations(game, doc, s, text):
        if setup is not None:
            setup[0](setup[1])
        cells: dict[tuple[str, str], str] = {}
        exceptions: list[str] = []
        try:
            for ra in names:
                for cb in names:
                    outcomes = []
                    for a in classes[ra]:
                        for b in classes[cb]:
                            if deck.face_card[a] == deck.face_card[b]:
                                continue
                            s.trick = [
                                (s.current, deck.face_card[a], a, 0),
                                (other, deck.face_card[b], b, 1),
                            ]
                            try:
                                w = evaluate(s, step.winner)
                            except Exception:
                                w = None
                                outcome = "error"
                            else:
                                outcome = "none" if w is None else "led" if w == s.trick[0] else "other"
                            outcomes.append((a, b, outcome))
                    if not outcomes:
                        cells[ra, cb] = ""
                        continue
                    cells[ra, cb], misses = _summary(outcomes, game)
                    for a, b, w in misses:
                        if len(exceptions) < MAX_EXCEPTIONS:
                            won = {"led": deck.face_texts[a], "other": deck.face_texts[b]}.get(w, w)
                            exceptions.append(
                                f"`{deck.face_texts[a]}` led, `{deck.face_texts[b]}` played: {won} "
                                f"({cells[ra, cb].split(' (')[0]} is the rule here)"
                            )
        finally:
            s.trick = saved_trick
            if restore is not None:
                restore[0](restore[1])
        if label:
            blocks.append(Heading(3, f"When {label}"))
        header = ("led \\ other", *names)
        rows = tuple((ra, *(cells[ra, cb] for cb in names)) for ra in names)
        blocks.append(Table(f"winner {label}".strip(), header, rows))
        always = []
        for x in names:
            beaten = [y for y in names if y != x and cells[x, y] == "led card" and cells[y, x] == "other card"]
            if beaten:
                always.append(f"`{x}` beats {', '.join(f'`{y}`' for y in beaten)}, whichever is led")
        if always:
            blocks.append(Bullets(tuple(always)))
        if exceptions:
            blocks.append(Para("Exceptions found:"))
            blocks.append(Bullets(tuple(exceptions)))
    return blocks


def duty_section(game: Game, s: State, step: TrickStep) -> list[Block]:
    """Worked examples of the follow duty: a hand of two cards of each group, against each lead."""
    deck = game.rules.deck
    by_class: dict[str, list[int]] = {}
    for c in range(len(deck)):
        if c == deck.by_text[deck.texts[c]][0]:
            by_class.setdefault(face_class(game, deck.card_faces[c][0]), []).append(c)
    per = max(2, HAND_SIZE // max(1, len(by_class)))
    hand = [c for cards in by_class.values() for c in _spread(cards, per)]
    held = set(hand)
    tricks: list[list[int]] = [[]]
    for cards in by_class.values():
        free = [c for c in cards if c not in held]
        if not free:
            continue
        lead = free[len(free) // 2]
        tricks.append([lead])
        if game.num_players > 2:  # a second card below and above the lead (a duty may read it)
            rank = game.rules.deck.attrs.get("rank")
            if rank is not None and isinstance(rank[lead], int):
                below = [c for c in free if isinstance(rank[c], int) and rank[c] < rank[lead]]
                above = [c for c in free if isinstance(rank[c], int) and rank[c] > rank[lead]]
                tricks += [[lead, x[len(x) // 2]] for x in (below, above) if x]
    zone = s.seat_zones[step.hand.index]
    seat = s.current
    saved_hand, saved_trick = zone[seat], s.trick
    rows = []
    try:
        zone[seat] = list(hand)
        n = game.num_players
        for plays in tricks:
            s.trick = [((seat - len(plays) + i) % n, c, deck.card_faces[c][0], i) for i, c in enumerate(plays)]
            try:
                able = playable_cards(s, step)
            except Exception as e:  # the duty needs more than this constructed trick
                rows.append((_lead(deck, plays), f"({type(e).__name__})", ""))
                continue
            barred = [c for c in hand if c not in able]
            why = ""
            if barred and step.reason is not None:
                try:
                    why = show(evaluate(s, step.reason, barred[0]))
                except Exception:
                    why = ""
            rows.append(
                (
                    _lead(deck, plays),
                    ", ".join(f"`{deck.texts[c]}`" for c in able) if len(able) < len(hand) else "any card",
                    why,
                )
            )
    finally:
        zone[seat], s.trick = saved_hand, saved_trick
    return [
        Heading(2, "Follow duties"),
        Para(
            "The duty `"
            + " ".join(str(getattr(step.must_play_if_able, "text", "")).split())
            + "` evaluated by the engine for a hand of "
            + ", ".join(f"`{deck.texts[c]}`" for c in hand)
            + " (the cards it may play, and the reason the rules give for the others)."
        ),
        Table("follow", ("trick so far", "may play", "reason for the others"), tuple(rows)),
    ]


def _lead(deck: Any, plays: list[int]) -> str:
    if not plays:
        return "nothing (leading)"
    return f"`{deck.texts[plays[0]]}` led" + "".join(f", then `{deck.texts[c]}`" for c in plays[1:])


def _spread(cards: list[int], k: int) -> list[int]:
    """``k`` cards spread evenly over ``cards`` (all of them if there are no more)."""
    if len(cards) <= k:
        return list(cards)
    return [cards[round(i * (len(cards) - 1) / (k - 1))] for i in range(k)] if k > 1 else cards[:1]
