"""The helpers generated rule code may call, and the limits it runs under.

Generated modules (see `trickkit.dsl.compiler`) run with no Python built-ins at all: the
only names they can reach are their own functions, constants and tables, and the helpers
in `HELPERS`. Everything that touches the game beyond reading it (moving cards, drawing
from the generator, ending the game) goes through a helper written here.
"""

from __future__ import annotations

import itertools as _itertools
import operator as _operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeAlias

from trickkit.randomness import shuffle as _shuffle

State: TypeAlias = Any
"""The engine's game state (`trickkit.engine.state.State`): a layer above this one, so named
here only by what generated code reads of it (``budget``, ``memo``, zones, variables...)."""


class GameEnded(Exception):
    """Raised by the ``end_game()`` effect: the game stops at once; the engine catches it."""


class EvaluationLimit(Exception):
    """A rule ran over its evaluation budget (too many items iterated) or built a huge range."""


EVALUATION_BUDGET = 5_000_000
"""Most list items all the rules may iterate over (aggregates, ``for``) while the engine
answers one call (an action, the legal actions, an observation): a runaway rule fails with
a located error instead of hanging."""

MAX_RANGE = 100_000
"""Longest list ``range(a, b)`` may build."""

MAX_INT_BITS = 4096
"""Largest number a rule may compute, in bits (about 1233 digits): a product past it fails."""

MAX_VALUE_LENGTH = 100_000
"""Longest text or list a rule may build by joining two (``+``)."""

MAX_STORED_SIZE = 100_000
"""Largest value a variable may hold, in list items counted through every nested list (a list
held twice counts twice, as copying, showing or saving the value walks it twice): ``l = [l, l]``
repeated stops here instead of building a value of 2^40 items that a clone, an observation, a
tensor or a transcript would never finish walking."""

MAX_STORED_DEPTH = 32
"""Deepest nesting of lists a variable may hold (``[[[1]]]`` is 3 deep): ``l = [l]`` repeated
stops here instead of building a value that copying, showing or saving would fail to walk."""

MISSING = object()
"""Marks a hoisted or memoised value not computed yet (``_MISS`` in generated code)."""


class Budget:
    """Stands for the state where a constant is computed at load time: it carries only the
    evaluation budget, so a runaway constant (nested aggregates over ranges) stops too."""

    __slots__ = ("budget", "memo")

    def __init__(self) -> None:
        self.budget = EVALUATION_BUDGET
        self.memo = None


def over_budget() -> NoReturn:
    raise EvaluationLimit(f"evaluation budget of {EVALUATION_BUDGET} items exceeded")


def null_iteration() -> NoReturn:
    raise TypeError("cannot iterate over null")


def dsl_range(a: int, b: int) -> list[int]:
    if b - a > MAX_RANGE:
        raise EvaluationLimit(f"range({a}, {b}) would hold {b - a} numbers (limit {MAX_RANGE})")
    return list(range(a, b))


def dsl_str(v: Any) -> str:
    return "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


def index(seq: Any, i: Any) -> Any:
    """``seq[i]``; null when either is null or ``i`` is out of range (negative counts from the end)."""
    if i is None or seq is None or not -len(seq) <= i < len(seq):
        return None
    return seq[i]


def charge_items(s: State, xs: Any) -> None:
    """Charge the items of list ``xs`` to the evaluation budget, lists within it counted too
    (an explicit stack: a rule can nest lists deeply). Work that walks a list inside one
    operation (``in``, ``==``, ``index_of``, ``str`` ...) costs its length like a loop does, so
    repeating it cannot run away."""
    s.budget -= len(xs)
    if s.budget < 0:
        over_budget()
    if list in map(type, xs):  # lists of lists (of zones, say): each found in C, then walked
        stack = [x for x in xs if x.__class__ is list]
        while stack:
            v = stack.pop()
            s.budget -= len(v)
            if s.budget < 0:
                over_budget()
            if list in map(type, v):
                stack.extend(x for x in v if x.__class__ is list)


def contains(s: State, x: Any, xs: Any) -> bool:
    """``x in xs``, charged: the items of ``xs`` (and, when ``x`` is a list, theirs too)."""
    s.budget -= len(xs)
    if s.budget < 0:
        over_budget()
    if x.__class__ is list:
        charge_items(s, xs)
    return x in xs


def equal(s: State, a: Any, b: Any) -> bool:
    """``a == b``, charged by the items of ``a`` when both are lists."""
    if a.__class__ is list and b.__class__ is list:
        charge_items(s, a)
    same: bool = a == b
    return same


def charged_call(s: State, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, a built-in that walks its list arguments, charged by their items first."""
    for a in args:
        if a.__class__ is list:
            charge_items(s, a)
    return function(*args)


def distinct_items(s: State, xs: list[Any]) -> list[Any]:
    """``distinct(xs)`` of a list of single values (numbers, texts, cards, true/false: no list
    within), charged its items as `charged_call` charges them: one call where that makes four."""
    s.budget -= len(xs)
    if s.budget < 0:
        over_budget()
    return list(dict.fromkeys(xs))


def stored(s: State, v: Any) -> Any:
    """``v``, about to be stored in a variable, measured first: its items, the items of the
    lists within it counted too (through shared lists), are charged to the evaluation budget,
    and a value past `MAX_STORED_SIZE` items or `MAX_STORED_DEPTH` levels is refused. The walk
    uses an explicit stack and stops at the first limit passed, so measuring costs at most about
    `MAX_STORED_SIZE` steps whatever the value."""
    if v.__class__ is not list:
        return v
    total = len(v)
    if list in map(type, v):
        stack = [(x, 2) for x in v if x.__class__ is list]
        while stack:
            x, depth = stack.pop()
            if depth > MAX_STORED_DEPTH:
                raise EvaluationLimit(f"a value nested more than {MAX_STORED_DEPTH} lists deep cannot be stored")
            total += len(x)
            if total > MAX_STORED_SIZE:
                break
            if list in map(type, x):
                stack.extend((y, depth + 1) for y in x if y.__class__ is list)
    if total > MAX_STORED_SIZE:
        raise EvaluationLimit(f"a value of more than {MAX_STORED_SIZE} items (nested lists counted) cannot be stored")
    s.budget -= total
    if s.budget < 0:
        over_budget()
    return v


_KEPT = {"int": int, "bool": bool, "str": str, "card": int, "play": tuple}


def kept_as(v: Any, want: str, nullable: bool) -> Any:
    """``v`` stored in a variable of type ``want``: checked when the value's type was known only
    at play (an ``if`` whose branches differ, say), so a variable keeps its type. A number is
    never a bool here, nor a bool a number."""
    if v is None:
        if nullable:
            return v
        raise TypeError(f"a variable of {want} values cannot be set to null")
    cls = _KEPT.get(want)
    if (cls is None and want.startswith("list")) or want == "zone":
        cls = list
    if cls is not None and v.__class__ is not cls:
        shown = repr(v) if v.__class__ is str else dsl_str(v)
        raise TypeError(f"a variable of {want} values cannot be set to {shown} ({type(v).__name__})")
    return v


def join_text(s: State, a: Any, b: Any) -> str:
    text = f"{a}{b}"  # each side is at most MAX_VALUE_LENGTH long: built, then charged
    if len(text) > 256:  # a short text costs about one item, like the rule's step that joins it
        s.budget -= len(text)
        if s.budget < 0:
            over_budget()
    if len(text) > MAX_VALUE_LENGTH:
        raise EvaluationLimit(f"a text of {len(text)} characters (limit {MAX_VALUE_LENGTH})")
    return text


def join_lists(s: State, a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
    s.budget -= len(a) + len(b)
    if s.budget < 0:
        over_budget()
    if len(a) + len(b) > MAX_VALUE_LENGTH:
        raise EvaluationLimit(f"a list of {len(a) + len(b)} items (limit {MAX_VALUE_LENGTH})")
    return list(a) + list(b)


def distinct_cards(values: Sequence[int | None], texts: Sequence[str]) -> list[int | None]:
    """``values`` with each card text kept once (its first copy); null stays: copies of a card
    are one action."""
    if len(values) < 3:  # the common small hands, without a set
        if len(values) < 2:
            return list(values)
        a, b = values
        return [a] if a is not None and b is not None and texts[a] == texts[b] else [a, b]
    seen: set[str] = set()
    # seen.add is there for its effect (None: the first copy is kept)
    return [c for c in values if c is None or not (texts[c] in seen or seen.add(texts[c]))]  # type: ignore[func-returns-value]


def distinct_values(values: Sequence[Any]) -> list[Any]:
    """A choice's values with repeats dropped, the first of equal values kept: two equal
    values would be two legal actions with one text. Raises TypeError on a value that is a
    list (a choice takes single values), which the engine reports, located."""
    return list(dict.fromkeys(values))


def product(domains: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """Every combination of one value per domain, in ``itertools.product`` order."""
    return list(_itertools.product(*domains))


def multiply(a: Any, b: Any) -> Any:
    """``a * b``, refused before it is computed when the product would pass `MAX_INT_BITS`."""
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise EvaluationLimit(f"a number of more than {MAX_INT_BITS} bits (about {MAX_INT_BITS * 3 // 10} digits)")
    return a * b


_first = _operator.itemgetter(0)


_second = _operator.itemgetter(1)


def sort_keyed(keyed: list[tuple[Any, Any]]) -> list[Any]:
    """The values of ``[(key, value), ...]`` ordered by key, null keys last, ties in order."""
    # map() with itemgetters, no comprehension: no Python frame beyond this one (a hot rule's sort)
    if None not in map(_first, keyed):  # (keys are DSL values: none equals null but null)
        # sorted() is stable: equal keys keep their order, with no per-item Python key function
        return [*map(_second, sorted(keyed, key=_first))]
    last = [v for k, v in keyed if k is None]
    keyed = [kv for kv in keyed if kv[0] is not None]
    return [*map(_second, sorted(keyed, key=_first)), *last]


def move(c: int, frm: list[int], to: list[int], front: bool, name: str) -> None:
    if c is None or frm is None or c not in frm:
        raise ValueError(f"{name}(): the card is not in the zone it is moved from")
    if to is None:
        raise ValueError(f"{name}(): no zone to move to")
    frm.remove(c)
    if front:
        to.insert(0, c)
    else:
        to.append(c)


def move_top(frm: list[int] | None, to: list[int] | None, name: str) -> None:
    """``move(frm[-1], frm, to)``: the top card of ``frm`` (a card lies in one place only, so
    it is the one `move` would search for and remove), with `move`'s errors."""
    if not frm:
        raise ValueError(f"{name}(): the card is not in the zone it is moved from")
    if to is None:
        raise ValueError(f"{name}(): no zone to move to")
    to.append(frm.pop())


def move_all(frm: list[int], to: list[int]) -> None:
    if frm is not to:
        to.extend(frm)
        frm.clear()


def sort_zone(zone: list[int]) -> None:
    """Put a zone's cards in deck order (card ids are deck positions)."""
    zone.sort()


def swap(a: list[int], b: list[int]) -> None:
    a[:], b[:] = list(b), list(a)


def draw_random(s: State, frm: list[int]) -> int:
    """Remove and return a card of the (non-empty) zone ``frm``, chosen by the state's generator."""
    return frm.pop(s._generator().randrange(len(frm)))


def shuffle_zone(s: State, zone: list[int]) -> None:
    """Shuffle ``zone`` in place with the state's generator (the deal's own Fisher-Yates walk).
    Each card is charged to the evaluation budget, so shuffles in a loop cannot run away."""
    s.budget -= len(zone)
    if s.budget < 0:
        over_budget()
    _shuffle(s._generator(), zone)


def insert_random(s: State, c: int, to: list[int]) -> None:
    """Take card ``c`` out of the zone that holds it and insert it into ``to`` at a uniformly random
    gap (``len(to) + 1`` of them), drawn from the state's generator."""
    if c is None:
        raise ValueError("insert_random(): no card (null) to insert")
    if to is None:
        raise ValueError("insert_random(): no zone to insert into")
    for zone in _zones(s):
        s.budget -= len(zone)  # the search is charged like a loop over the cards looked at
        if c in zone:
            zone.remove(c)
            break
    else:
        raise ValueError("insert_random(): the card is in no zone (a card on the trick cannot be inserted)")
    if s.budget < 0:
        over_budget()
    to.insert(s._generator().randrange(len(to) + 1), c)


def _zones(s: State) -> Iterator[list[int]]:
    yield from s.table_zones
    for zones in s.seat_zones:
        yield from zones


def reveal(s: State, cards: Any, seats: Any, place: tuple[int, int] | None = None) -> None:
    """``reveal(CARDS, SEATS)``: each seat of ``seats`` (a seat or a list of seats) learns each card
    of ``cards`` (a card id, a list of them, or a zone's list) at the place it lies now.
    ``place``: the place key of ``cards`` when the generated code knows it is that zone.

    The knowledge is kept in ``s.known``: a new dict (never changed in place, so clones may share
    it) whose keys are ``(viewer, place, card id)``, a place being ``(seat zone index, seat)`` or
    ``(-1, table zone index)``; `trickkit.engine.visibility` reads it and forgets what moved. A
    card on the trick or in no zone is public already or nowhere: nothing is learnt of it.

    Raises:
        ValueError: a seat that is not one of the game's, or a value that is not a card.
    """
    if cards is None:
        return
    n = s._n
    if place is not None and seats.__class__ is int and 0 <= seats < n:
        # a zone's cards shown to one seat, as most reveals are: what the general path below does, in short
        if cards:
            known = s.known
            if known:  # what moved earlier in this action is forgotten first (see below)
                seat_zones = s.seat_zones  # (`forget_moved`'s test inline: most often nothing moved)
                for _, (z, x), card in known:
                    if card not in (seat_zones[z][x] if z >= 0 else s.table_zones[x]):
                        forget_moved(s)
                        break
            known = dict(s.known) if s.known else {}
            for c in cards:
                known[(seats, place, c)] = None
            s.known = known
        return
    viewers = seats if isinstance(seats, list) else [seats]
    for v in viewers:
        if v.__class__ is not int or not 0 <= v < n:
            raise ValueError(f"reveal(): {v!r} is not a seat (seats are 0..{n - 1})")
    ids = cards if isinstance(cards, list) else [cards]
    at: dict[int, tuple[int, int]] = {}
    if place is None:
        place = _place_of(s, cards)
    if place is not None:  # a zone itself: every card lies there
        at = dict.fromkeys(cards, place)
    else:
        places = _places(s)
        wanted = set()
        for c in ids:
            if c.__class__ is not int or not 0 <= c < len(s.rules.deck.texts):
                raise ValueError(f"reveal(): {c!r} is not a card")
            wanted.add(c)
        for where, zone in places:
            s.budget -= len(zone)  # charged like a loop over the cards looked at
            for c in zone:
                if c in wanted:
                    at[c] = where
        if s.budget < 0:
            over_budget()
    if not at or not viewers:
        return
    if s.known:  # what moved earlier in this action is forgotten first, so it never takes the new knowledge with it
        forget_moved(s)
    known = dict(s.known) if s.known else {}
    for v in viewers:
        for c, where in at.items():
            known[(v, where, c)] = None
    s.known = known


def forget_moved(s: State) -> None:
    """Forget what ``reveal`` showed of cards that left their place: for each ``(place, text)``
    where some revealed card of that text is no longer at that place, every viewer's knowledge of
    that text there goes. The engine calls it after each action when ``s.known`` holds something,
    and `reveal` before it adds knowledge (so a move earlier in the same action forgets only what
    was known before it)."""
    known = s.known
    if not known:
        return
    seat_zones = s.seat_zones
    moved = None  # most calls find every card where it was: nothing built
    for _, (z, x), card in known:
        if card not in (seat_zones[z][x] if z >= 0 else s.table_zones[x]):
            if moved is None:
                moved = []
            moved.append(((z, x), card))
    if moved is not None:
        texts = s.rules.deck.texts
        gone = {(place, texts[card]) for place, card in moved}
        kept = {k: None for k in known if (k[1], texts[k[2]]) not in gone}
        s.known = kept or None


def _place_of(s: State, zone: Any) -> tuple[int, int] | None:
    """The place key of the zone list ``zone`` itself (see `reveal`), or None if it is no zone."""
    for t, pile in enumerate(s.table_zones):
        if pile is zone:
            return (-1, t)
    for z, zones in enumerate(s.seat_zones):
        for seat, pile in enumerate(zones):
            if pile is zone:
                return (z, seat)
    return None


def _places(s: State) -> list[tuple[tuple[int, int], list[int]]]:
    """Every zone of ``s`` with its place key (see `reveal`)."""
    out = [((-1, t), zone) for t, zone in enumerate(s.table_zones)]
    for z, zones in enumerate(s.seat_zones):
        out += [((z, seat), zone) for seat, zone in enumerate(zones)]
    return out


def put(to: list[int], c: int) -> None:
    to.append(c)


def end_game() -> None:
    raise GameEnded()


def end_turn(s: State, seat: int | None) -> None:
    """``end_turn(next=seat)``: the turn ends and the next one is ``seat``'s (null: the next seat clockwise)."""
    if seat is not None and (seat.__class__ is not int or not 0 <= seat < s._n):
        raise ValueError(f"end_turn(next=...): {seat!r} is not a seat (seats are 0..{s._n - 1})")
    s.turn_over = True
    s.next_turn = seat


def bad_seat(seat: object, name: str, n: int) -> NoReturn:
    """An assignment ``name[seat] = ...`` to a seat variable with no such seat (of ``n``)."""
    raise ValueError(f"{name}[{seat!r}] = ...: {seat!r} is not a seat (seats are 0..{n - 1})")


def bad_item(items: object, index: object, name: str) -> NoReturn:
    """An assignment ``name[index] = ...`` to a list item that does not exist."""
    size = len(items) if isinstance(items, list) else 0
    if not isinstance(items, list):
        raise ValueError(f"{name}[{index!r}] = ...: {name} holds {items!r}, not a list")
    raise ValueError(
        f"{name}[{index!r}] = ...: no item {index!r} in a list of {size} "
        f"(items are {'0..' + str(size - 1) if size else 'none: the list is empty'})"
    )


def can(s: State, kind: str) -> bool:
    allowed: bool = s.can(kind)
    return allowed


def attr_of_any(v: Any, card_table: Any, face_table: Any, field: Any) -> Any:
    """An attribute of a value whose type is known only at play time (a card or a play)."""
    if v is None:
        return None
    if isinstance(v, tuple):  # a play
        return v[field] if field is not None else face_table[v[2]] if face_table else None
    return card_table[v] if card_table is not None else None


def card_text(v: Any, texts: Sequence[str]) -> Any:
    """The text of a card (``C10``), of a play's card, or of each in a list; null stays null."""
    if v is None:
        return None
    if isinstance(v, tuple):  # a play: (seat, card, face, order)
        return texts[v[1]]
    if isinstance(v, list):
        return [card_text(x, texts) for x in v]
    return texts[v]


def no_winner() -> NoReturn:
    """A trick with no winner (or no next leader) where the rules need one: the engine's general
    path reports it, located (see `trickkit.engine.fused`)."""
    raise ValueError("the trick has no winner")


HELPERS = {
    "_MISS": MISSING,
    "_over_budget": over_budget,
    "_null_iter": null_iteration,
    "_len": len,
    "_index": index,
    "_cat": join_text,
    "_join": join_lists,
    "_sort_keyed": sort_keyed,
    "_move": move,
    "_move_all": move_all,
    "_swap": swap,
    "_sort_zone": sort_zone,
    "_draw_random": draw_random,
    "_put": put,
    "_shuffle": shuffle_zone,
    "_insert_random": insert_random,
    "_end_game": end_game,
    "_reveal": reveal,
    "_can": can,
    "_end_turn": end_turn,
    "_bad_seat": bad_seat,
    "_bad_item": bad_item,
    "_distinct_cards": distinct_cards,
    "_distinct_values": distinct_values,
    "_product": product,
    "_move_top": move_top,
    "_iproduct": _itertools.product,  # `out += _iproduct(...)`: combined in C, no list made in between
    "_attr_any": attr_of_any,
    "_mul": multiply,
    "_card_text": card_text,
    "_no_winner": no_winner,
    "_fromkeys": dict.fromkeys,
    "_in": contains,
    "_eq": equal,
    "_charged": charged_call,
    "_distinct_items": distinct_items,
    "_kept": kept_as,
    "_stored": stored,
}
"""The engine's helpers generated code may call, by name. The DSL's functions (``abs``,
``range`` ...) are added as ``_fn_<name>`` from `trickkit.dsl.builtins.FUNCTIONS`."""
