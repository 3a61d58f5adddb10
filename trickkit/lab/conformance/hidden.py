"""The ``hidden_information`` check: what a seat sees of a game never depends on cards it cannot see."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, TypeAlias

from trickkit.errors import TrickkitError
from trickkit.lab.conformance.checks import PER_GAME
from trickkit.lab.conformance.driver import _Run, dealt_hands

Slot: TypeAlias = tuple[list[int], int]
"""A place in a state: one zone's list of card ids, and a position (or a count) in it."""


def visible_cards(state: Any, seat: int) -> set[str]:
    """Texts of the cards ``seat`` sees now: in zones, on top of stacks, in the trick, revealed to it."""
    obs = state.observation(seat)
    seen = {p["card"].split(":")[0] for p in obs["trick"]}
    for view in obs["zones"].values():
        for v in view if isinstance(view, list) else [view]:
            seen.update(v.get("cards", ()))
            if v.get("top"):
                seen.add(v["top"])
    seen.update(e["card"] for e in obs.get("revealed", ()))
    return seen


# -- the referee: what each seat may see, computed here from the ruleset's declarations alone (not
# through trickkit.engine.visibility, whose answers the checks below judge) ----------------------


def zone_shows(state: Any, zone: Any, viewer: int, owner: int | None) -> str:
    """How ``viewer`` may see ``zone`` of ``owner`` (None: a table zone) by the declarations:
    ``all``, ``top`` or ``count`` (``visibility``, ``public_when``, ``seen_by``, and a running
    simultaneous ``choose`` step's secret zone)."""
    if owner is not None and zone.index == secret_zone(state):
        return "all" if owner == viewer else "count"
    if zone.public_when is not None and zone.public_when(state):
        return "all"
    vis = zone.visibility
    if vis == "public" or (vis == "owner" and owner == viewer):
        return "all"
    if zone.seen_by is not None and zone.seen_by(state, viewer, -1 if owner is None else owner):
        return "all"
    return "top" if vis == "top" else "count"


def known_by(state: Any, viewer: int) -> dict[tuple[int, int], set[int]]:
    """The cards ``reveal`` showed ``viewer`` that it still knows, by place (``state.known``)."""
    out: dict[tuple[int, int], set[int]] = {}
    for v, place, card in state.known or ():
        if v == viewer:
            out.setdefault(place, set()).add(card)
    return out


def variable_shown(state: Any, var: Any, viewer: int, owner: int) -> bool:
    """May ``viewer`` see ``var``'s value of ``owner`` (a seat, a team, -1 for the table)?"""
    if var.visibility == "public":
        return True
    if var.visibility == "owner" and (state.rules.team_of[viewer] == owner if var.per_team else owner == viewer):
        return True
    return var.seen_by is not None and bool(var.seen_by(state, viewer, owner))


def _hidden_slots(state: Any, seat: int) -> list[Slot]:
    """``(cards, position)`` of every card ``seat`` cannot see: in zones it may not see (or under
    the top of a ``top`` zone), unless a reveal showed it that card where it lies."""
    rules = state.rules
    known = known_by(state, seat)
    out: list[Slot] = []

    def add(place: tuple[int, int], cards: list[int], how: str) -> None:
        if how == "all":
            return
        mine = known.get(place, set())
        stop = len(cards) - 1 if how == "top" else len(cards)
        out.extend((cards, i) for i in range(stop) if cards[i] not in mine)

    for z in rules.seat_zones:
        for q, cards in enumerate(state.seat_zones[z.index]):
            add((z.index, q), cards, zone_shows(state, z, seat, q))
    for z in rules.table_zones:
        how = zone_shows(state, z, seat, None)
        for i in range(max(z.count, 1)):
            add((-1, z.index + i), state.table_zones[z.index + i], how)
    return out


def hidden_places(state: Any, seat: int) -> list[Slot]:
    """``(cards, stop)`` for every zone with cards ``seat`` cannot see, ``stop`` being how many
    (see `_hidden_slots` for the positions themselves)."""
    counts: dict[int, tuple[list[int], int]] = {}
    for cards, _ in _hidden_slots(state, seat):
        counts[id(cards)] = (cards, counts.get(id(cards), (cards, 0))[1] + 1)
    return list(counts.values())


def _zone_lists(state: Any) -> list[list[int]]:
    return [hand for zone in state.seat_zones for hand in zone] + list(state.table_zones)


def _rearranged(state: Any, slots: Sequence[Slot], cards: Sequence[int]) -> Any:
    """A clone of ``state`` whose ``slots`` (of ``state``) hold ``cards`` instead."""
    where = {id(z): i for i, z in enumerate(_zone_lists(state))}
    other = state.clone()
    zones = _zone_lists(other)
    for (place, i), c in zip(slots, cards):
        zones[where[id(place)]][i] = c
    other._legal = None
    return other


def _tensor(state: Any, seat: int) -> list[Any] | None:
    fn = getattr(state, "observation_tensor", None)
    if fn is None:
        return None
    try:
        t = fn(seat)
    except ImportError:  # an optional extra (numpy) that is not installed
        return None
    return t.tolist() if hasattr(t, "tolist") else list(t)


def _information_state(state: Any, seat: int) -> tuple[str, list[Any]] | None:
    """``seat``'s information state of ``state`` (string and tensor), None for a game without one
    (an engine without information states, or an action space too large to number)."""
    from trickkit.engine.spaces import ActionSpaceError

    fn = getattr(state, "information_state_string", None)
    if fn is None:
        return None
    try:
        return fn(seat), state.information_state_tensor(seat).tolist()
    except ActionSpaceError:
        return None


def secret_zone(state: Any) -> int:
    """The seat zone a running simultaneous ``choose`` step chooses into (-1 if none): until
    every seat has chosen, other seats see only its count."""
    if state.is_terminal():
        return -1
    step = state.rules.steps[state.step]
    return step.to.index if step.kind == "choose" and getattr(step, "simultaneous", False) else -1


def _zone_views(run: _Run, s: Any) -> None:
    """Each zone shows exactly what the declarations say, to every seat; each seat is shown the
    cards reveals showed it (and no other seat's), and no variable value it may not see."""
    game, n, texts = run.game, run.game.num_players, run.game.cards
    rules = game.rules
    reveals = bool(getattr(game, "reveals", False))
    for p in range(n):
        obs = s.observation(p)
        if (
            obs.get("seat") != p
            or obs.get("terminal") != s.is_terminal()
            or obs.get("current_player") != s.current_player()
        ):
            run.fail(f"observation({p}) misreports its seat, the current player or the end of the game", s)
        for z in rules.seat_zones:
            view = obs["zones"][z.name]
            for q in range(n):
                cards = [texts[c] for c in s.seat_zones[z.index][q]]
                _check_zone_view(run, s, p, f"{z.name} of seat {q}", view[q], cards, zone_shows(s, z, p, q))
        for z in rules.table_zones:
            how = zone_shows(s, z, p, None)
            for i in range(z.count) if z.count else [None]:
                view = obs["zones"][z.name] if i is None else obs["zones"][z.name][i]
                cards = [texts[c] for c in s.table_zones[z.index + (i or 0)]]
                _check_zone_view(run, s, p, f"table zone {z.name}", view, cards, how)
        if reveals:
            want = sorted((texts[c], place) for place, cards in known_by(s, p).items() for c in cards)
            got = sorted((e["card"], _place_of(rules, e)) for e in obs.get("revealed", ()))
            if got != want:
                run.fail(f"seat {p} is shown revealed cards {got} but was revealed {want}", s)
        elif obs.get("revealed"):
            run.fail(f"seat {p} is shown revealed cards in a game that reveals none: {obs['revealed']}", s)
        variables = obs["variables"]
        for v in rules.seat_vars:
            for q in range(n):
                if not variable_shown(s, v, p, q) and variables[v.name][q] is not None:
                    run.fail(f"seat {p} sees {v.name} of seat {q} ({v.visibility}): {variables[v.name][q]!r}", s)
        for v in rules.table_vars:
            if v.per_team:
                for t, x in enumerate(variables[v.name]):
                    if not variable_shown(s, v, p, t) and x is not None:
                        run.fail(f"seat {p} sees {v.name} of team {t} ({v.visibility}): {x!r}", s)
            elif not variable_shown(s, v, p, -1) and variables[v.name] is not None:
                run.fail(f"seat {p} sees the {v.visibility} variable {v.name}: {variables[v.name]!r}", s)


def _place_of(rules: Any, entry: dict[str, Any]) -> tuple[int, int] | None:
    """The place (see `known_by`) an observation's ``revealed`` entry names, or None if none."""
    name, seat = entry.get("zone"), entry.get("seat")
    for z in rules.seat_zones:
        if z.name == name and seat is not None:
            return (z.index, seat)
    for z in rules.table_zones:
        for i in range(max(z.count, 1)):
            if (z.name if not z.count else f"{z.name}[{i}]") == name and seat is None:
                return (-1, z.index + i)
    return None


def _check_zone_view(run: _Run, s: Any, p: int, what: str, view: Any, cards: list[str], how: str) -> None:
    if view.get("count") != len(cards):
        run.fail(f"seat {p} is shown a wrong count of {what}", s)
    if how == "all" and view.get("cards") != cards:
        run.fail(f"seat {p} is not shown {what} as it is", s)
    elif how == "count" and set(view) != {"count"}:
        run.fail(f"seat {p} sees {what}, which it may not see: {view}", s)
    elif how == "top" and (set(view) != {"count", "top"} or view["top"] != (cards[-1] if cards else None)):
        run.fail(f"seat {p} is shown more (or less) than the top card of {what}: {view}", s)


class CardText(str):
    """The text of a card an action names through a choice of type card (or the card it plays):
    a text choice that merely equals a card's text (a guess, "c5") is a plain `str`, never
    exchanged with the cards it names nor taken for a card."""

    __slots__ = ()


def _signature(game: Any, action: Any, state: Any) -> tuple[Any, ...]:
    """An action of ``state``'s step with the texts of the cards it names (copies are one card),
    as `CardText`; its other choices as they are."""
    texts = game.cards
    if action.face >= 0 and action.verb == "play":
        return ("play", CardText(game.rules.deck.face_texts[action.face]))
    kind = _kind_of(game, action, state)
    if kind is None:
        return (action.text,)
    return (action.verb,) + tuple(
        CardText(texts[x]) if t == "card" and x is not None else x for t, x in zip(kind.choice_types, action.choices)
    )


def _kind_of(game: Any, action: Any, state: Any) -> Any:
    """The action kind (of the current turns step or reaction window) ``action`` is of, or None."""
    step = game.rules.steps[state.step]
    if step.kind != "turns":
        return None
    kinds = step.windows[state.window].kinds if state.window >= 0 else step.kinds
    return next((k for k in kinds if k.name == action.verb and len(k.choice_types) == len(action.choices)), None)


def _swap(state: Any, a: Slot, b: Slot) -> Any:
    """A clone of ``state`` with the cards at slots ``a`` and ``b`` (of ``state``) exchanged."""
    return _rearranged(state, [a, b], [b[0][b[1]], a[0][a[1]]])


def _hidden_information(run: _Run) -> None:
    game = run.game
    n, texts = game.num_players, game.cards
    recalled: list[set[str]] = [set() for _ in range(n)]  # every card each seat has seen so far (perfect recall)
    tried = 0
    state = run.new_state()
    for s, action in run.play(state):
        for v in range(n):
            recalled[v] |= visible_cards(s, v)
        rng = run.extra(s, "hidden")
        if len(s._history) and (rng.random() > 0.07 or tried >= PER_GAME):
            continue
        tried += 1
        _zone_views(run, s)
        p = rng.randrange(n)
        # 1. the observation (and tensor) of p does not depend on the cards p cannot see
        slots = _hidden_slots(s, p)
        pool = [cards[i] for cards, i in slots]
        rng.shuffle(pool)
        other = _rearranged(s, slots, pool)
        if run.guard(functools.partial(other.observation, p), s, "observing a swapped state") != s.observation(p):
            diff = _first_difference(s.observation(p), other.observation(p))
            run.fail(
                f"seat {p}'s observation changes when cards it cannot see are swapped ({diff}): "
                f"it shows hidden information",
                s,
            )
        if _tensor(other, p) != _tensor(s, p):
            run.fail(f"seat {p}'s observation tensor changes when cards it cannot see are swapped", s)
        elif _information_state(other, p) != _information_state(s, p):
            run.fail(f"seat {p}'s information state changes when cards it cannot see are swapped", s)
        _same_action_views(run, s, other, p, action, "cards it cannot see are swapped")
        # 1b. nor on the values of variables p may not see
        varied = _varied(s, p)
        if varied is not None:
            seen = run.guard(
                functools.partial(varied.observation, p), s, "observing a state with hidden values changed"
            )
            if seen != s.observation(p):
                diff = _first_difference(s.observation(p), seen)
                run.fail(f"seat {p}'s observation changes when variables it may not see change ({diff})", s)
            elif _tensor(varied, p) != _tensor(s, p):
                run.fail(f"seat {p}'s observation tensor changes when variables it may not see change", s)
            elif _information_state(varied, p) != _information_state(s, p):
                run.fail(f"seat {p}'s information state changes when variables it may not see change", s)
            _same_action_views(run, s, varied, p, action, "variables it may not see change")
        # 2. what other seats are shown of an action does not name a card they never saw
        actor = s.current_player()
        for a in s.legal_actions() if len(s._history) % 25 == 0 else [action]:
            _check_action_view(run, s, a, actor, recalled, texts)
    _deal_swap(run, state.history())
    if run.exhausted:
        return
    for v in range(n):
        seen = state.history_seen_by(v)
        if len(seen) != len(state._history):
            run.fail(f"history_seen_by({v}) has {len(seen)} actions, the game {len(state._history)}", state)
        if v in range(n) and [t for (a, t), x in zip(state._history, seen) if a == v] != [
            x for (a, _), x in zip(state._history, seen) if a == v
        ]:
            run.fail(f"history_seen_by({v}) changes seat {v}'s own actions", state)


def _same_action_views(run: _Run, s: Any, other: Any, p: int, action: Any, why: str) -> None:
    """``p`` is shown the history and the coming ``action`` alike in ``s`` and its twin ``other``."""
    if s.history_seen_by(p) != other.history_seen_by(p):
        run.fail(f"seat {p}'s view of the history changes when {why}", s)
    if action is not None and s.action_seen_by(action, p) != other.action_seen_by(action, p):
        run.fail(f"seat {p} is shown {action.text!r} differently when {why}", s, action)


def _varied(s: Any, p: int) -> Any:
    """A clone of ``s`` with every variable value ``p`` may not see changed (a number plus one, a
    truth value negated, a text extended, a card replaced by another), or None if there is none."""
    rules = s.rules
    other = s.clone()
    changed = False
    deck = len(s.rules.deck.texts)

    def vary(value: Any, typ: str) -> Any:
        nonlocal changed
        if isinstance(value, bool):
            changed = True
            return not value
        if isinstance(value, int) and typ == "card":
            changed = True
            return (value + 1) % deck
        if isinstance(value, int):
            changed = True
            return value + 1
        if isinstance(value, str):
            changed = True
            return value + "'"
        return value  # null, lists, plays: kept (their type would be a guess)

    for v in rules.seat_vars:
        values = other.seat_vars[v.index] = list(other.seat_vars[v.index])
        for q in range(len(values)):
            if not variable_shown(s, v, p, q):
                values[q] = vary(values[q], v.type)
    for v in rules.table_vars:
        if v.per_team:
            values = other.table_vars[v.index] = list(other.table_vars[v.index])
            for t in range(len(values)):
                if not variable_shown(s, v, p, t):
                    values[t] = vary(values[t], v.type[5:-1] if v.type.startswith("list[") else "any")
        elif not variable_shown(s, v, p, -1):
            other.table_vars[v.index] = vary(other.table_vars[v.index], v.type)
    other._legal = None
    return other if changed else None


def _first_deal(game: Any) -> Any:
    for step in game.rules.steps:
        if step.kind == "deal":
            return step
    return None


def _deal_swap(run: _Run, actions: Sequence[str]) -> None:
    """Deal the first round again with two cards exchanged that seat ``p`` cannot see when it
    starts (from the hands of two other seats), replay the same actions
    (the exchanged cards exchanged in their texts too) and compare, action by action, what ``p``
    observes and is shown of each action. A difference means ``p`` learns something of cards it
    cannot see: a variable computed from a hidden hand, an action text naming a hidden card.
    The comparison stops where the worlds part for a reason ``p`` may know: one of the two cards
    shows, an action of another seat is not legal in the other world, or the round ends."""
    game = run.game
    step = _first_deal(game)
    if step is None or game.rules.steps[0] is not step:
        return
    base = run.new_state()
    if base.is_terminal():
        return
    n, texts = game.num_players, game.cards
    # the hands as the deal leaves them: a draw at the start of the first turn is no part of it
    hands = dealt_hands(game, run.seed, step.to.index)
    rng = run.extra(base, "deal-swap")
    p = rng.randrange(n)
    # the cards p sees at any point of the first round of the original game (a card played to a
    # trick is played face up: everyone sees it, even when the trick goes face down at once)
    original = game.new_initial_state(seed=run.seed, deals=[hands])
    seen: set[str] = set()
    states: list[tuple[Any, str | None, set[str]]] = []  # (state, the action applied to it next, cards p saw so far)
    for text in list(actions) + [None]:
        if original.is_terminal() or original.deal_no > 1:
            break
        seen = seen | visible_cards(original, p)
        states.append((original.clone(), text, seen))
        if text is None:
            break
        drawn = original._generator().getstate()
        try:
            action = next(a for a in original.legal_actions() if a.text == text)
            original.apply_action(action)
        except (TrickkitError, StopIteration):
            return  # another check reports it
        if action.face >= 0:
            seen = seen | {texts[game.face_play[action.face][0]]}
        if original._generator().getstate() != drawn:
            # a random draw (from a hand the exchange reordered) may pick another card: the
            # worlds may part here for a reason that is no leak: compare no further
            break
    if not states:
        return
    seen = states[0][2]  # the exchanged cards are hidden from p when the round starts
    others = [(q, i) for q in range(n) if q != p for i, t in enumerate(hands[q]) if t not in seen]
    if not others:
        return
    q, i = others[rng.randrange(len(others))]
    c = hands[q][i]
    partners = [(r, j) for r, j in others if r != q and hands[r][j] != c]
    swapped = [list(h) for h in hands]
    # only between two hands: the undealt rest stays exactly as it was (an exchange with it would
    # move its other cards, and a draw from it would then differ for no reason p may not know)
    if not partners:
        return
    r, j = partners[rng.randrange(len(partners))]
    d = hands[r][j]
    swapped[q][i], swapped[r][j] = d, c
    mapping = {c: d, d: c}
    twin = run.guard(
        lambda: game.new_initial_state(seed=run.seed, deals=[[sorted_hand(game, h) for h in swapped]]),
        None,
        "dealing a given deal",
    )
    for s, text, seen in states:
        if twin.is_terminal() or twin.deal_no > 1:
            return
        if {c, d} & (visible_cards(twin, p) | seen):
            return  # one of them shows (or showed): from here p may know more
        if s.current_player() != twin.current_player():
            # who acts is public: a rule may let a hidden card decide it (the holder of a given
            # card leads), and then everyone knows where that card is: the worlds part here
            return
        obs, twin_obs = s.observation(p), twin.observation(p)
        if obs != twin_obs or _tensor(s, p) != _tensor(twin, p):
            run.fail(
                f"seat {p} observes something of cards it cannot see: with {c} and {d} exchanged in the "
                f"deal, {_first_difference(obs, twin_obs)}",
                s,
            )
        if _information_state(s, p) != _information_state(twin, p):
            run.fail(
                f"seat {p}'s information state differs with {c} and {d}, cards it cannot see, exchanged "
                f"in the deal (the actions so far as it saw them, or its observation)",
                s,
            )
        if s.current_player() == p and sorted(a.text for a in s.legal_actions()) != sorted(
            a.text for a in twin.legal_actions()
        ):
            run.fail(f"seat {p}'s legal actions depend on cards it cannot see ({c} and {d} exchanged in the deal)", s)
        if text is None:
            return
        action = next(a for a in s.legal_actions() if a.text == text)
        if action.face >= 0 and texts[game.face_play[action.face][0]] in mapping:
            return  # played face up to a trick: from here everyone knows where it was
        want = _mapped(_signature(game, action, s), mapping)
        twins = [b for b in twin.legal_actions() if _signature(game, b, twin) == want]
        if not twins:
            return  # that seat could not do the same in the other world: the worlds part here
        if _shows_after(run, s, action, p) & set(mapping):
            return  # the action shows one of the two cards (played face up): p may know it now
        shown, twin_shown = s.action_seen_by(action, p), twin.action_seen_by(twins[0], p)
        if shown != twin_shown:
            run.fail(
                f"seat {p} is shown {shown!r} of seat {s.current_player()}'s action {text!r}, and "
                f"{twin_shown!r} when {c} and {d} are exchanged in the deal: the text names a card "
                f"seat {p} never sees (declare that choice private)",
                s,
                text,
            )
        twin.apply_action(twins[0])


def _shows_after(run: _Run, s: Any, action: Any, seat: int) -> set[str]:
    """The cards ``seat`` sees once ``action`` is done; when it ends the round (the next deal
    gathers every card), what it sees just after the action's effect."""
    after = s.clone()
    run.guard(functools.partial(after.apply_action, action), s, f"applying {action.text!r} to a copy", action)
    seen = set() if after.is_terminal() else visible_cards(after, seat)
    if after.is_terminal() or after.round != s.round:
        kind = _kind_of(run.game, action, s)
        if kind is not None:
            moment = s.clone()
            try:
                kind.effect(moment, *action.choices)
            except Exception:  # an effect that ends the game (end_game) or fails: nothing more to see
                return seen
            seen |= visible_cards(moment, seat)
    return seen


def sorted_hand(game: Any, hand: Sequence[str]) -> list[str]:
    """A hand's card texts in deck order (the order a deal leaves it in)."""
    order = {t: i for i, t in reversed(list(enumerate(game.cards)))}
    return sorted(hand, key=order.__getitem__)


def _mapped(signature: tuple[Any, ...], mapping: dict[str, str]) -> tuple[Any, ...]:
    out = [signature[0]]
    for x in signature[1:]:
        if isinstance(x, CardText):  # a card the action names, not a text that looks like one
            card, sep, mode = x.partition(":")
            x = mapping.get(card, card) + sep + mode if card in mapping else mapping.get(x, x)
        out.append(x)
    return tuple(out)


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b or a[k] != b[k]:
                return _first_difference(a[k], b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or 'the observation'}: {str(a)[:80]} then {str(b)[:80]}"


def _check_action_view(
    run: _Run, s: Any, action: Any, actor: int, recalled: Sequence[set[str]], texts: Sequence[str]
) -> None:
    """Seats other than ``actor`` must see ``action`` as they would see its twin with any card they
    never saw (and do not see afterwards) exchanged for another such card."""
    game = run.game
    n = game.num_players
    if action.face >= 0:  # a card played to a trick is played face up: everyone sees it
        return
    sig = _signature(game, action, s)
    named = [x for x in sig[1:] if isinstance(x, CardText) and x in game.rules.deck.by_text]
    if not named:
        return
    after = moment = None
    for viewer in range(n):
        if viewer == actor:
            continue
        for card in named:
            if card in recalled[viewer]:
                continue
            if after is None:
                after = s.clone()
                run.guard(
                    functools.partial(after.apply_action, action), s, f"applying {action.text!r} to a copy", action
                )
            if after.is_terminal() or card in visible_cards(after, viewer):
                continue  # the card shows once the action is done: naming it tells nothing more
            if after.round != s.round:  # the action ended the round and the next deal gathered the
                if moment is None:  # cards: judge by what it showed just after its effect
                    kind = _kind_of(game, action, s)
                    moment = s.clone()
                    if kind is not None:
                        run.guard(
                            functools.partial(kind.effect, moment, *action.choices), s, "running an action's effect"
                        )
                if card in visible_cards(moment, viewer):
                    continue
            slots = _hidden_slots(s, viewer)
            mine = [sl for sl in slots if texts[sl[0][sl[1]]] == card]
            partners = [
                sl for sl in slots if texts[sl[0][sl[1]]] not in recalled[viewer] and texts[sl[0][sl[1]]] not in named
            ]
            if not mine or not partners:
                continue
            partner = partners[run.extra(s, f"partner{viewer}").randrange(len(partners))]
            other_card = texts[partner[0][partner[1]]]
            twin_state = _swap(s, mine[0], partner)
            want = sig[:1] + tuple(other_card if x == card else x for x in sig[1:])
            twins = [
                b
                for b in run.guard(twin_state.legal_actions, s, "legal actions of a swapped state")
                if _signature(game, b, twin_state) == want
            ]
            if not twins:
                continue
            shown, twin_shown = s.action_seen_by(action, viewer), twin_state.action_seen_by(twins[0], viewer)
            if shown != twin_shown:
                run.fail(
                    f"seat {viewer} is shown {shown!r} of seat {actor}'s action {action.text!r}: it names "
                    f"{card}, which seat {viewer} never saw and does not see after it (declare the choice "
                    f"private, or move the card where the seat sees it)",
                    s,
                    action,
                )
