"""Runs the steps of a round on a State: deal, bid, tricks and effects (the engine's play rules).

Each step kind has four functions: ``enter`` (start it; return True if a seat must now
decide), ``legal`` (the current seat's actions), ``apply`` (perform a legal action; return
True when the step is finished) and ``explain`` (why a text is not a legal action).
``legal`` and ``apply`` take ``(game, step, state, ...)``, so `trickkit.Game` can bind the
first two once per step with `functools.partial`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trickkit.dsl.runtime import dsl_str
from trickkit.engine.actions import Action
from trickkit.engine.filters import NO_FRAME, filter_cards
from trickkit.engine.protocols import CardId, GameTables, located
from trickkit.engine.state import State
from trickkit.errors import DealError, DSLRuntimeError, did_you_mean
from trickkit.randomness import shuffle
from trickkit.rules.ruleset import BidStep, DealStep, EffectStep, TrickStep


# -- deal -------------------------------------------------------------------------------
def enter_deal(game: GameTables, s: State, step: DealStep) -> bool:
    """Collect every card into ``rest``, shuffle it with the state's generator, and deal.
    Every card leaves its place, so every seat forgets what ``reveal`` showed it.

    Dealing starts left of the dealer. A deal given to ``new_initial_state(deals=...)`` puts
    those exact hands in place; the other cards are shuffled into ``rest``.
    """
    return deal(game, s, step, step.count(s))


def deal(game: GameTables, s: State, step: DealStep, count: int) -> bool:
    """`enter_deal` with ``count`` (the step's ``count`` rule's value) given: the planned steps
    that enter the steps after them (`trickkit.engine.turnplan`) run the rule bare."""
    n = s._n
    cards = list(range(game._deck_size))
    shuffle(s._generator(), cards)
    for zone in s.seat_zones:
        for hand in zone:
            if hand:  # (most are empty at a deal: no call for those)
                hand.clear()
    for pile in s.table_zones:
        if pile:
            pile.clear()
    if s.known:  # every card left its place: what reveal() showed is forgotten, even of a card dealt back there
        s.known = None
    hands = s.seat_zones[step.to.index]
    given = s.deals[s.deal_no] if s.deals is not None and s.deal_no < len(s.deals) else None
    s.deal_no += 1
    if given.__class__ is dict:  # a deal that fixes table zones (and perhaps the hands)
        return _deal_fixed(game, s, step, given, cards, count)
    if given is not None:
        ids = game.resolve_deal(given, s.deal_no - 1, count)
        used = set()
        for seat, hand_ids in enumerate(ids):
            hands[seat].extend(sorted(hand_ids))
            used.update(hand_ids)
        s.table_zones[step.rest.index].extend(c for c in cards if c not in used)
        return False
    if count < 0 or count * n > len(cards):
        raise DSLRuntimeError(f"{located(step.count)}: cannot deal {count} cards to {n} seats from {len(cards)} cards")
    first, end = s.dealer + 1, 0
    for k in range(
        n if count else 0
    ):  # dealing starts left of the dealer: each hand (empty now) takes the next count cards, sorted
        hand = hands[(first + k) % n]
        start, end = end, end + count
        hand += cards[start:end]
        hand.sort()
    s.table_zones[step.rest.index].extend(cards[end:])
    return False


def _deal_fixed(
    game: GameTables, s: State, step: DealStep, given: dict[str, Any], cards: list[CardId], count: int
) -> bool:
    """Deal with table zones fixed by the deal entry: the listed cards of the ``rest`` zone lie
    on top of the shuffled undealt cards; any other listed table zone holds exactly its cards."""
    n = s._n
    fixed, taken = game.resolve_table_deal(given, s.deal_no - 1)
    used = {c for ids in fixed.values() for c in ids}
    hands = s.seat_zones[step.to.index]
    if "hands" in given:
        for seat, hand_ids in enumerate(game.resolve_deal(given["hands"], s.deal_no - 1, count, taken)):
            hands[seat].extend(sorted(hand_ids))
            used.update(hand_ids)
        free = [c for c in cards if c not in used]
    else:
        free = [c for c in cards if c not in used]
        if count < 0 or count * n > len(free):
            raise DealError(
                f"deal {s.deal_no - 1}: cannot deal {count} cards to {n} seats from the "
                f"{len(free)} cards the deal leaves free"
            )
        for k in range(n):
            seat = (s.dealer + 1 + k) % n
            hands[seat].extend(sorted(free[k * count : (k + 1) * count]))
        free = free[n * count :]
    s.table_zones[step.rest.index].extend(free)
    zones = {z.name: z.index for z in game.rules.table_zones}
    for name, ids in fixed.items():
        s.table_zones[zones[name]].extend(ids)  # on top of the rest zone's shuffled cards
    return False


# -- bid --------------------------------------------------------------------------------
def enter_bid(game: GameTables, s: State, step: BidStep) -> bool:
    s.acted = 0
    s.current = step.first(s) % s._n
    return True


def legal_bid(game: GameTables, step: BidStep, s: State) -> list[Action]:
    options = step.options(s)
    return [game.bid_action(v) for v in options]


def apply_bid(game: GameTables, step: BidStep, s: State, action: Action) -> bool:
    s.seat_vars[step.variable.index][s.current] = action.value
    s.acted += 1
    if s.acted == s._n:
        return True
    s.current = (s.current + 1) % s._n
    return False


def explain_bid(game: GameTables, s: State, step: BidStep, text: str) -> str:
    options = step.options(s)
    verb, _, arg = text.partition(" ")
    if verb != "bid":
        return f"it is time to bid: say 'bid N' with N in {_span(options)}"
    if step.reason is not None and _is_int_text(arg):  # the ruleset says why this number is refused
        why = step.reason(s, int(arg))
        if why is not None:
            return f"{dsl_str(why)} (a bid must be one of {_span(options)})"
    return f"a bid must be one of {_span(options)}"


def _is_int_text(text: str) -> bool:
    """True for a short decimal integer text (``-2``, ``13``), as a refused bid may be."""
    digits = text[1:] if text[:1] == "-" else text
    return 0 < len(digits) <= 18 and digits.isascii() and digits.isdigit()


def _span(values: Iterable[int]) -> str:
    values = list(values)
    if values and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return ", ".join(map(str, values))


# -- tricks -----------------------------------------------------------------------------
def enter_tricks(game: GameTables, s: State, step: TrickStep) -> bool:
    s.tricks_total = step.count(s)
    s.tricks_done = 0
    s.trick = []
    if s.tricks_total <= 0:
        return False
    leader = step.leader(s) % s._n
    if step.sits_out is None and step.actor is None:
        s.current = leader
    else:
        start_trick(s, leader)
    return True


def _tricks_step(s: State) -> TrickStep:
    step: TrickStep = s.rules.steps[s.step]
    return step


def start_trick(s: State, leader: int) -> None:
    """A trick starts, led by ``leader``, in a tricks step with ``sits_out`` or ``actor``: which
    seats sit out (a sitting leader passes the lead to the next playing seat on its left), and
    who chooses the leader's card. Generated step functions call it too (`trickkit.engine.fused`)."""
    step = _tricks_step(s)
    hook = step.sits_out
    if hook is not None:
        sitting = tuple([bool(hook(s, k)) for k in range(s._n)])
        seating = _SEATINGS.get(sitting)
        if seating is None:
            seating = _seating(sitting, hook)
        s.seating = seating
        if sitting[leader]:
            leader = seating[0][leader]
    s.current = leader
    if step.actor is not None:
        s.actor = actor_of(s)


_SEATINGS: dict[tuple[bool, ...], tuple[tuple[int, ...], int]] = {}
"""The seating of each pattern of sitting seats met so far (a pure function of the pattern)."""

MAX_SEATINGS = 4096
"""At most this many patterns are kept (the cache is emptied when full)."""


def _seating(sitting: tuple[bool, ...], hook: Any) -> tuple[tuple[int, ...], int]:
    """For seats sitting out as ``sitting`` says: the next playing seat on each seat's left, and
    how many seats play (`State.seating`); remembered in `_SEATINGS`."""
    n = len(sitting)
    if all(sitting):
        raise DSLRuntimeError(f"{located(hook)}: every seat sits out this trick: nobody can play it")
    following = tuple(next((k + d) % n for d in range(1, n + 1) if not sitting[(k + d) % n]) for k in range(n))
    if len(_SEATINGS) >= MAX_SEATINGS:
        _SEATINGS.clear()
    seating = _SEATINGS[sitting] = (following, n - sum(sitting))
    return seating


def actor_of(s: State) -> int:
    """The seat choosing the card now due from ``s.current`` (the step's ``actor`` rule), checked."""
    step = _tricks_step(s)
    hook = step.actor
    if hook is None:  # a step without an actor: each seat chooses its own card
        return s.current
    seat = hook(s, s.current)
    if seat.__class__ is not int or not 0 <= seat < s._n:
        raise DSLRuntimeError(f"{located(hook)}: the actor must be a seat 0..{s._n - 1}, got {seat!r}")
    chosen: int = seat
    return chosen


def acted_for(s: State) -> None:
    """The action just taken is the actor's: the history names the seat that chose it."""
    history = s._history
    history[-1] = (s.actor if s.actor is not None else s.current, history[-1][1])


def end_tricks(s: State) -> None:
    """The tricks step is over: nobody sits out or acts for another any more."""
    s.seating = None
    s.actor = None


def playable_cards(s: State, step: TrickStep) -> list[CardId]:
    """The cards the current seat may play now (the follow rules of the ruleset)."""
    hand = s.seat_zones[step.hand.index][s.current]
    s.memo = {}  # the state holds still while we test every card: memoise definitions
    try:
        able = filter_cards(s, step.must_play_if_able, hand)
        for test in step.fallback_duties:  # a layered duty: the first test some card passes decides
            if able:
                break
            able = filter_cards(s, test, hand)
        if not able:
            return list(hand)
        always = step.always_allowed
        if always is None or len(able) == len(hand):
            return able
        passed = set(able)
        extra = filter_cards(s, always, [c for c in hand if c not in passed])
        if not extra:
            return able
        passed.update(extra)
        return [c for c in hand if c in passed]
    finally:
        s.memo = None


def legal_tricks(game: GameTables, step: TrickStep, s: State) -> list[Action]:
    hand = s.seat_zones[step.hand.index][s.current]
    s.memo = {}  # the state holds still while the hand is tested: memoise definitions
    budget = s.budget
    try:  # the generated hand filters: one call for the whole hand
        # no filter (None) raises TypeError here: the general path below handles that test
        cards = step.must_play_if_able.filter(s, NO_FRAME, hand)  # type: ignore[misc]
        layer = 0
        for test in step.fallback_duties:  # a layered duty: the first test some card passes decides
            if cards:
                break
            cards = test.filter(s, NO_FRAME, hand)  # type: ignore[misc]  # None: as above
            layer += 1
        always = step.always_allowed
        if not cards:
            cards = hand
        elif always is not None and len(cards) < len(hand):  # the cards that must be played, or may always be
            # either_filter is "first test or always_allowed": a later test decided, so the general path
            cards = always.either_filter(s, NO_FRAME, hand) if layer == 0 else None  # type: ignore[misc]  # None: as above
    except Exception:  # no filter, or a rule failed: the general path reports it, located
        s.budget = budget  # charged as if the filters never ran (see filter_cards)
        cards = None
    finally:
        s.memo = None
    if cards is None:
        cards = playable_cards(s, step)
    if game._has_copies:  # copies of a card (five escapes) are one action
        first = game.first_copy
        cards = dict.fromkeys([first[c] for c in cards])
    single = game.single_play_action
    if single is not None:  # no card is played in modes: one action per card
        return [single[c] for c in cards]
    actions = game.play_actions
    return [a for c in cards for a in actions[c]]


def apply_tricks(game: GameTables, step: TrickStep, s: State, action: Action) -> bool:
    if step.actor is not None:
        acted_for(s)
    seat = s.current
    hand = s.seat_zones[step.hand.index][seat]
    card, mode_index = game.face_play[action.face]
    if game._has_copies:  # the first copy in the hand (copies can differ, e.g. in a `copy` attribute)
        first = game.first_copy
        card = next(c for c in hand if first[c] == card)
    hand.remove(card)
    trick = s.trick
    trick.append((seat, card, game.rules.deck.card_faces[card][mode_index], len(trick)))
    seating = s.seating if step.sits_out is not None else None
    if len(trick) < (s._n if seating is None else seating[1]):
        s.current = (seat + 1) % s._n if seating is None else seating[0][seat]
        if step.actor is not None:
            s.actor = actor_of(s)
        return False
    return _end_trick(game, s, step)


def _play_text(s: State, play: Any) -> str:
    """A play as a reader knows it: the card's text and the seat that played it."""
    try:
        return f"{s.rules.deck.texts[play[1]]} played by seat {play[0]}"
    except (TypeError, IndexError, KeyError):
        return repr(play)


def _end_trick(game: GameTables, s: State, step: TrickStep) -> bool:
    """Every seat has played: the winner takes the trick and leads next. True when the step ends."""
    winner = step.winner(s)
    if winner is None and step.no_winner_to is None:
        raise DSLRuntimeError(
            f"{located(step.winner)}: the trick has no winner (give the step a "
            f"'no_winner_to' zone if a trick may be won by nobody)"
        )
    if winner is not None and winner not in s.trick:
        raise DSLRuntimeError(
            f"{located(step.winner)}: the winner must be a play of this trick, got {_play_text(s, winner)}"
        )
    if step.after_trick is not None:
        step.after_trick(s, winner)
    if step.next_leader is not None:
        leader = step.next_leader(s, winner)
    elif winner is not None:
        leader = winner[0]
    else:
        leader = None
    if leader is None:
        raise DSLRuntimeError(f"{located(step.winner)}: nobody won the trick and 'next_leader' names no seat")
    if winner is None:  # a trick won by nobody (destroyed, discarded)
        s.table_zones[step.no_winner_to.index].extend(p[1] for p in s.trick)  # type: ignore[union-attr]  # checked above
    elif step.taken_to is not None:
        s.seat_zones[step.taken_to.index][winner[0]].extend(p[1] for p in s.trick)
    else:
        s.table_zones[game.pool_zone].extend(p[1] for p in s.trick)
    s.last_trick = (s.step, s.trick, winner)  # for transcripts: the plays, and who took them
    s.trick = []
    s.tricks_done += 1
    if s.tricks_done >= s.tricks_total or not any(s.seat_zones[step.hand.index]):
        if step.sits_out is not None or step.actor is not None:
            end_tricks(s)
        return True
    if step.sits_out is None and step.actor is None:
        s.current = leader % s._n
    else:
        start_trick(s, leader % s._n)
    return False


def explain_tricks(game: GameTables, s: State, step: TrickStep, text: str) -> str:
    deck = game.rules.deck
    verb, _, arg = text.partition(" ")
    if verb != "play":
        return "it is time to play a card: say 'play CARD'"
    if arg in deck.by_text and len(deck.card_faces[deck.by_text[arg][0]]) > 1:
        faces = [deck.face_texts[f] for f in deck.card_faces[deck.by_text[arg][0]]]
        return f"say how {arg!r} is played: " + " or ".join(f"'play {f}'" for f in faces)
    if arg not in deck.face_by_text:
        return f"unknown card {arg!r}{did_you_mean(arg, deck.face_by_text)}"
    want = deck.texts[deck.face_card[deck.face_by_text[arg]]]
    hand = s.seat_zones[step.hand.index][s.current]
    if not any(deck.texts[c] == want for c in hand):
        return f"seat {s.current} does not hold {want}"
    card = next(c for c in hand if deck.texts[c] == want)
    able = [c for c in hand if step.must_play_if_able(s, c)]
    for test in step.fallback_duties:  # the test of a layered duty that decides now
        if able:
            break
        able = [c for c in hand if test(s, c)]
    why = step.reason(s, card) if step.reason is not None else None
    why = "the follow rules forbid it" if why is None else dsl_str(why)  # null: the rules say nothing more
    return f"{why}: you hold {', '.join(deck.texts[c] for c in able)}"


# -- effect -----------------------------------------------------------------------------
def enter_effect(game: GameTables, s: State, step: EffectStep) -> bool:
    step.block(s)
    return False
