"""Runs choose steps: every seat in turn chooses cards of its own zone, secretly when simultaneous.

A card player knows this as "everyone picks a card face down, then all are turned up
together" (a card for the rows of a placement game, cards passed before a hand). The
action interface is sequential, so the seats choose one after another from ``first``;
with ``simultaneous: true`` (the
default) the engine hides every choice from the other seats until all have chosen, the
same way it hides simultaneous bids (see `trickkit.engine.game.Game.observe`,
`trickkit.engine.game.Game.action_seen_by` and ``State.history_seen_by``):

- the ``to`` zone of every other seat shows only its count;
- the action text shows as ``VERB ?`` to every other seat, in the history too.

When the step ends the choices are revealed: each ``to`` zone shows as its visibility says.

The state's ``queue`` holds the decisions still to make, one seat per card (the current
seat first); ``acted`` counts the decisions made in this step.
"""

from __future__ import annotations

from trickkit.engine.actions import Action
from trickkit.engine.filters import filter_cards
from trickkit.engine.protocols import CardId, GameTables, Seat, located
from trickkit.engine.state import State
from trickkit.errors import DSLRuntimeError, did_you_mean
from trickkit.rules.ruleset import ChooseStep


def choosable(s: State, step: ChooseStep, seat: Seat) -> list[CardId]:
    """The cards ``seat`` may choose now: those of its ``from`` zone passing ``allowed``, in zone order."""
    cards = s.seat_zones[step.source.index][seat]
    if step.allowed is None or not cards:  # every card may be chosen
        return list(cards)
    opened = s.memo is None
    if opened:  # the state holds still while the cards are tested: memoise definitions
        s.memo = {}
    saved = s.current
    s.current = seat  # the test may name current_player
    try:
        return filter_cards(s, step.allowed, cards)
    finally:
        s.current = saved
        if opened:
            s.memo = None


def enter_choose(game: GameTables, s: State, step: ChooseStep) -> bool:
    """Queue ``count`` decisions for every seat from ``first``; True if a seat must choose now."""
    count = step.count(s)
    if count < 0:
        raise DSLRuntimeError(f"{located(step.count)}: a seat cannot choose {count} cards")
    first = step.first(s) % s._n
    s.queue = [(first + k) % s._n for k in range(s._n) for _ in range(count)]
    s.acted = 0
    return _next_chooser(s, step)


def _next_chooser(s: State, step: ChooseStep) -> bool:
    """Drop queued decisions of seats with nothing to choose; True if a seat is to choose."""
    queue = s.queue
    while queue:
        if choosable(s, step, queue[0]):
            s.current = queue[0]
            return True
        seat = queue[0]
        while queue and queue[0] == seat:  # that seat has nothing left to choose from
            queue.pop(0)
    return False


def _actions(game: GameTables, verb: str) -> tuple[Action, ...]:
    """For each card id, the action choosing it (``pick 55``), made once per Game and verb;
    copies of a card share the action of the first copy."""
    actions = game._choose_actions.get(verb)
    if actions is None:
        texts, first = game.rules.deck.texts, game.first_copy
        actions = game._choose_actions[verb] = tuple(
            Action(f"{verb} {texts[c]}", verb, choices=(first[c],)) for c in range(len(texts))
        )
    return actions


def legal_choose(game: GameTables, step: ChooseStep, s: State) -> list[Action]:
    cards = choosable(s, step, s.current)
    actions = _actions(game, step.verb)
    if game._has_copies:  # copies of a card are one action
        return list(dict.fromkeys(actions[c] for c in cards))
    return [actions[c] for c in cards]


def apply_choose(game: GameTables, step: ChooseStep, s: State, action: Action) -> bool:
    seat = s.current
    source = s.seat_zones[step.source.index][seat]
    card = action.choices[0]
    if game._has_copies:  # the first copy this seat may choose
        first = game.first_copy
        card = next(c for c in choosable(s, step, seat) if first[c] == card)
    source.remove(card)
    s.seat_zones[step.to.index][seat].append(card)
    s.acted += 1
    s.queue.pop(0)
    return not _next_chooser(s, step)


def explain_choose(game: GameTables, s: State, step: ChooseStep, text: str) -> str:
    deck = game.rules.deck
    verb, _, arg = text.partition(" ")
    if verb != step.verb:
        return f"it is time to choose a card: say '{step.verb} CARD'"
    if arg not in deck.by_text:
        return f"unknown card {arg!r}{did_you_mean(arg, deck.by_text)}"
    held = s.seat_zones[step.source.index][s.current]
    if not any(deck.texts[c] == arg for c in held):
        return f"seat {s.current} has no {arg} in its {step.source.name}"
    return f"seat {s.current} may not choose {arg} now"
