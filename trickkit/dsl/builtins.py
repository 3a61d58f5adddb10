"""The registry of DSL built-ins: every function and aggregate, with its signature, meaning and example.

The registry is the single source of truth: the compiler resolves names through it, and the
DSL reference page of the docs is generated from it (each example is parsed in a test).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from trickkit.dsl.runtime import MAX_VALUE_LENGTH, EvaluationLimit
from trickkit.dsl.runtime import dsl_range as _range
from trickkit.dsl.runtime import dsl_str as _str


@attrs.frozen
class Builtin:
    """A DSL function called with positional arguments, e.g. ``abs(x)``."""

    name: str
    """The name used in DSL text."""
    params: tuple[str, ...]
    """Parameter types, e.g. ``("int", "int")``; ``"any"`` accepts every type."""
    result: str
    """Result type; ``"arg0"`` means "the type of the first argument"."""
    impl: Callable[..., Any] = attrs.field(repr=False)
    """The Python function applied to the argument values."""
    doc: str
    """One line: what it computes."""
    example: str
    """A DSL expression using it."""


@attrs.frozen
class Aggregate:
    """A DSL aggregate over a collection: ``name(E for x in C [if P] [by K])``."""

    name: str
    """The name used in DSL text."""
    result: str
    """Result type: ``"int"``, ``"bool"``, ``"elem"`` (the type of E), ``"list"`` (a list of E)."""
    uses_by: bool
    """True when the aggregate needs a ``by K`` key (highest/lowest)."""
    doc: str
    """One line: what it computes."""
    example: str
    """A DSL expression using it."""


def _concat(xss: list[list[Any]]) -> list[Any]:
    """``concat``: the lists of ``xss`` joined, at most MAX_VALUE_LENGTH items (as ``l + l``):
    ``concat(list(big for i in range(0, 5000)))`` is charged 5,000 items but would build 500 million."""
    total = sum(map(len, xss))
    if total > MAX_VALUE_LENGTH:
        raise EvaluationLimit(f"a list of {total} items (limit {MAX_VALUE_LENGTH})")
    return [x for xs in xss for x in xs]


def _frozen(x: Any) -> Any:
    """A hashable stand-in for a DSL value: lists (a list of zones, of lists) become tuples."""
    return tuple(map(_frozen, x)) if x.__class__ is list else x


def _distinct(xs: list[Any]) -> list[Any]:
    """``distinct``: the items of ``xs`` without repeats, in first-seen order, in linear time;
    items that are lists themselves (``distinct(list(hand[s] for s in seats))``) compare by content."""
    try:
        return list(dict.fromkeys(xs))
    except TypeError:  # unhashable items (lists)
        seen: dict[Any, Any] = {}
        for x in xs:
            seen.setdefault(_frozen(x), x)
        return list(seen.values())


FUNCTIONS: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin("abs", ("int",), "int", abs, "absolute value", "abs(tricks[s] - bid[s])"),
        Builtin("min", ("int", "int"), "int", min, "the smaller of two numbers", "min(round, 8)"),
        Builtin("max", ("int", "int"), "int", max, "the larger of two numbers", "max(0, score[s])"),
        Builtin("len", ("list",), "int", len, "number of items in a list or zone", "len(hand[seat])"),
        Builtin(
            "range",
            ("int", "int"),
            "list[int]",
            lambda a, b: _range(a, b),
            "the integers a, a+1, ..., b-1",
            "range(0, round + 1)",
        ),
        Builtin(
            "str",
            ("any",),
            "str",
            _str,
            "text of a value, for reasons and messages; a card (or play, or list of them) gives its text, "
            "e.g. 'C10', and joining a card to a text with + does the same (where the value's type is known "
            "only at play time, e.g. a variable without a type, a card shows as its number)",
            "'must play lower than ' + str(trick[0].rank)",
        ),
        Builtin(
            "distinct",
            ("list",),
            "arg0",
            lambda xs: _distinct(xs),
            "the list without repeated values, in first-seen order",
            "sum(v for v in distinct([1, 3, 3]))",
        ),
        Builtin(
            "concat",
            ("list",),
            "concat",
            lambda xss: _concat(xss),
            "a list of lists (e.g. every seat's court) joined into one list",
            "concat(court)",
        ),
        Builtin(
            "index_of",
            ("list", "any"),
            "int",
            lambda xs, x: xs.index(x) if x in xs else None,
            "the position (from 0) of the first item equal to a value, or null",
            "index_of(['a', 'b'], 'b')",
        ),
        Builtin(
            "seat_holding",
            ("list", "card"),
            "int",
            lambda zones, card: next((i for i, z in enumerate(zones) if card in z), None),
            "the seat whose zone (of a seat zone such as court) holds the card, or null",
            "seat_holding(court, card)",
        ),
        Builtin(
            "card_named",
            ("str",),
            "card",
            lambda text: None,  # compiled to a constant: never called
            "the card with that text, e.g. the two of clubs; the text must be in quotes and name one card of "
            "the deck (checked at load; null if only other parameter values put it in the deck)",
            "card == card_named('C2')",
        ),
    ]
}
"""Plain functions, by name. Seat arithmetic (``left_of`` ...) is added by the compiler, which knows the seat count."""

SEAT_FUNCTIONS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "left_of": (("int",), "the next seat clockwise (the player to the left)", "left_of(dealer)"),
    "right_of": (("int",), "the previous seat clockwise (the player to the right)", "right_of(dealer)"),
    "seat_after": (("int", "int"), "the seat k places clockwise after a seat", "seat_after(dealer, 2)"),
    "team_of": (
        ("int",),
        "the team (numbered from 0) of a seat, from the ruleset's `teams:`; without `teams:` "
        "every seat is a team of its own and `team_of(s)` is `s`; null for a seat out of range",
        "points[team_of(seat)]",
    ),
    "partner": (
        ("int",),
        "the seat's partner: the next seat of its team clockwise (in teams of two, the other "
        "member; the seat itself when it plays alone); null for a seat out of range",
        "tricks[partner(seat)]",
    ),
    "team_members": (
        ("int",),
        "the seats of a team, in seat order (null for a team out of range)",
        "sum(tricks[s] for s in team_members(team_of(seat)))",
    ),
}
"""Seat arithmetic: seats are numbered 0..n-1 clockwise, so the left neighbour is ``(s + 1) % n``."""

AGGREGATES: dict[str, Aggregate] = {
    a.name: a
    for a in [
        Aggregate("any", "bool", False, "true if E holds for some item", "any(p.kind == 'joker' for p in trick)"),
        Aggregate(
            "all",
            "bool",
            False,
            "true if E holds for every item (true for none)",
            "all(p.kind == 'escape' for p in trick)",
        ),
        Aggregate(
            "count",
            "int",
            False,
            "number of items (that pass the if-filter)",
            "count(p for p in trick if p.kind == 'pirate')",
        ),
        Aggregate("sum", "int", False, "sum of E over the items", "sum(p.heads for p in trick)"),
        Aggregate("min", "elem", False, "smallest E (null if none)", "min(c.rank for c in hand[seat])"),
        Aggregate("max", "elem", False, "largest E (null if none)", "max(score[s] for s in seats)"),
        Aggregate(
            "first",
            "elem",
            False,
            "E of the first item (null if none)",
            "first(p.suit for p in trick if p.kind == 'suit')",
        ),
        Aggregate("last", "elem", False, "E of the last item (null if none)", "last(p for p in trick)"),
        Aggregate(
            "highest",
            "elem",
            True,
            "E of the item with the largest key K; the earliest wins ties (null if none)",
            "highest(p for p in trick if p.suit == 'black' by p.rank)",
        ),
        Aggregate(
            "lowest",
            "elem",
            True,
            "E of the item with the smallest key K; the earliest wins ties (null if none)",
            "lowest(p for p in trick by p.rank)",
        ),
        Aggregate("list", "list", False, "the list of E over the items", "list(c for c in hand[seat] if c.heads == 5)"),
        Aggregate(
            "sorted",
            "list",
            True,
            "the list of E ordered by the key K (ties keep their order)",
            "sorted(c for c in hand[seat] by -c.rank)",
        ),
    ]
}
"""Aggregates, by name: the only iteration in the DSL, always over a finite list, so evaluation always ends."""


@attrs.frozen
class StateName:
    """A name every ruleset can use, read from the game in progress (or fixed at load)."""

    name: str
    """The name used in DSL text."""
    type: str
    """Its DSL type."""
    doc: str
    """One line: what it holds."""
    example: str
    """A DSL expression using it."""


STATE_NAMES: dict[str, StateName] = {
    n.name: n
    for n in [
        StateName("seats", "list[int]", "every seat, 0..n-1 clockwise", "all(score[s] < 100 for s in seats)"),
        StateName("num_players", "int", "the number of seats", "num_players * round"),
        StateName(
            "num_teams",
            "int",
            "the number of teams (`teams:`; without it, every seat is a team and this is num_players)",
            "range(0, num_teams)",
        ),
        StateName(
            "deck_size",
            "int",
            "the number of cards in the deck (after optional card groups)",
            "min(round, deck_size // num_players)",
        ),
        StateName("round", "int", "the current round, counted from 1", "10 * round"),
        StateName(
            "dealer",
            "int",
            "this round's dealer: seat `first_dealer` (default 0) deals the first round, then the deal passes left",
            "left_of(dealer)",
        ),
        StateName("trick", "list[play]", "the plays of the current trick, in order", "len(trick) == 0"),
        StateName(
            "current_player", "int", "the seat to act (in a reaction window: the responder)", "hand[current_player]"
        ),
        StateName(
            "acting_player",
            "int",
            "the seat choosing now: differs from current_player (the seat whose card is due) in a tricks "
            "step whose `actor` has another seat choose (the declarer playing dummy's cards)",
            "acting_player == current_player",
        ),
        StateName(
            "turn_player",
            "int",
            "the seat whose turn it is (differs from current_player while others respond)",
            "court[turn_player]",
        ),
    ]
}
"""Names every ruleset can use besides its own parameters, zones, variables and definitions.

Context names exist only inside certain rules: ``card`` (a card being tested, in
``must_play_if_able``, ``always_allowed``, ``reason``), ``winner`` (the winning play, in
``after_trick`` and ``next_leader``) and ``seat`` (in ``score``).
"""


@attrs.frozen
class Effect:
    """A DSL statement that changes the game beyond variables: ``move(card, from, to)``."""

    name: str
    """The name used in DSL text."""
    params: tuple[str, ...]
    """Parameter types: ``card``, ``zone`` (a zone name or a member of a zone family), ``cards``
    (a card, a list of cards or a zone), ``seats`` (a seat or a list of seats)."""
    doc: str
    """One line: what it does."""
    example: str
    """A statement using it."""
    keywords: tuple[tuple[str, str], ...] = ()
    """Optional named arguments and their types, e.g. ``(("next", "int"),)`` for ``end_turn(next=seat)``."""


EFFECTS: dict[str, Effect] = {
    e.name: e
    for e in [
        Effect(
            "move",
            ("card", "zone", "zone"),
            "move a card from one zone to the end of another (the top of a pile, the right end of a row)",
            "move(piles[pile - 1][-1], piles[pile - 1], hand[current_player])",
        ),
        Effect(
            "move_front",
            ("card", "zone", "zone"),
            "move a card from one zone to the front of another (the bottom of a pile, the left end of a row)",
            "move_front(card, hand[current_player], rows[0])",
        ),
        Effect(
            "move_all",
            ("zone", "zone"),
            "move every card of a zone, in order, to the end of another",
            "move_all(rows[0], discard)",
        ),
        Effect(
            "swap",
            ("zone", "zone"),
            "exchange the contents of two zones (e.g. two hands)",
            "swap(hand[turn_player], hand[other])",
        ),
        Effect(
            "sort",
            ("zone",),
            "put a zone's cards in deck order, as a player sorts a hand after receiving cards (a hand is dealt sorted)",
            "sort(hand[current_player])",
        ),
        Effect(
            "move_random",
            ("zone", "zone"),
            "move a card chosen at random (by the game's seeded generator) "
            "from one zone to the end of another; nothing if the first is empty",
            "move_random(hand[other], hand[turn_player])",
        ),
        Effect(
            "shuffle",
            ("zone",),
            "put the cards of a zone in a random order (drawn from the game's seeded generator)",
            "shuffle(stock)",
        ),
        Effect(
            "insert_random",
            ("card", "zone"),
            "take a card from the zone that holds it and put it at a random "
            "place in a zone (any of its len + 1 gaps, top and bottom included; by the game's seeded generator), "
            "e.g. to bury a card in the stock",
            "insert_random(discard[-1], stock)",
        ),
        Effect(
            "end_turn",
            (),
            "the current seat's turn ends when this effect finishes; the next seat clockwise "
            "plays, or with next=SEAT that seat (the decision passes to a named seat, e.g. the owner of a card "
            "being resolved); called in on_turn_start, the turn passes on before anyone decides",
            "end_turn(next=seat_holding(picked, card))",
            keywords=(("next", "int"),),
        ),
        Effect("end_game", (), "the game ends at once (the rest of the effect is skipped)", "end_game()"),
        Effect(
            "reveal",
            ("cards", "seats"),
            "show cards (a card, a list of cards, or a zone) to some seats only (a seat or a list of seats): "
            "each learns the text of each card at the place it lies now, until a card of that text leaves "
            "that place; shown in their observations (`revealed`) and in no other seat's",
            "reveal(hand[target], current_player)",
        ),
    ]
}
"""Effects, by name: statements that move cards or end a turn or the game."""

ENGINE_FUNCTIONS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "can": (("str",), "true if the current seat has a legal action of this kind now", "not can('place')"),
}
"""Functions that ask the engine about legal actions (the argument is an action kind of a turns step)."""

KEYWORDS = ("if", "then", "else", "elif", "for", "in", "by", "and", "or", "not", "true", "false", "null", "let")
"""Reserved words of the DSL."""
