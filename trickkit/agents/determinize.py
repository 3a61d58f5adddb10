"""Determinization: sampling full states that agree with everything one seat has observed.

An information-set search (ISMCTS) needs, at each iteration, one *determinization*: a complete
state, hidden cards included, that the deciding seat cannot tell apart from the real one.
`InformationSetSampler` builds them from the rules alone, for any ruleset:

1. **Recall.** The sampler replays the game so far and records what its seat saw after every
   action (`trickkit.State.observation` views, the action texts as `trickkit.State.action_seen_by`
   shows them). Only the *current epoch* matters: the actions since the last chance event (a
   deal, a shuffle, a random draw; any draw from the state's generator). A deal gathers and
   reshuffles every card, so nothing hidden survives it.
2. **Known and unknown cards.** A card the seat saw at some point of the epoch (in a zone it may
   see, the top of a ``top`` zone, the trick, a card-valued variable, a card named in a public
   action) is *known* and stays where it is. The others are *unknown*: a sample is a
   permutation of the unknown cards over the places they occupy (hands of other seats, a
   hidden stock, face-down piles). Counts of every zone are therefore kept, and a card the
   seat passed to another stays in that hand.
3. **Constraints from the history.** For each public action of another seat, the sampler asks
   the rules which unknown cards that seat cannot have held: it puts the card in the seat's
   hidden zones and checks whether the action it took would still be legal. A seat that did not
   follow suit is thereby void in that suit, a seat that played under the lead card where it
   had to play over it if able had no card over it, and so on, with no per-game code. When a public action moves a hidden
   card out of sight (a draw into a hidden hand), each unknown card is tried in its place, and
   the ones after which the game would have gone on differently (another seat to act, other
   counts or variables) are excluded there. The permutation is drawn avoiding these
   (card, place) pairs: constrained places first, and an augmenting path (Kuhn's matching) when
   a place is left without a card, so a deal is found whenever one exists.
4. **Verification.** The sampled state is rebuilt at the start of the epoch and the epoch's
   actions are replayed through the engine: every public action must fall to the same seat and
   be legal under the sampled cards; an action the seat saw only in part (a private choice, a
   simultaneous card or bid) is replayed with its cards relabelled like all the others (a card
   the seat knows is itself), and what else it hid, while still secret, is drawn again among
   the legal actions that look the same to the seat; the seat's observation must match after
   such actions and at the end. A sample that fails is rejected and redrawn, up to
   ``max_tries``; after that the sampler falls back to an unconstrained permutation of the
   unknown cards and counts it in ``stats["fallbacks"]``.
5. **Chance ahead.** The sample gets a fresh generator drawn from the sampler's own, so future
   shuffles and draws in a search are not the real ones.

Chance inside the epoch (say, a draw from a stock that no deal since reshuffled) needs no code
of its own: the stock's unknown cards are permuted like any others, and a card the seat drew is
known. Limits, stated plainly: knowledge older than the last chance event (a card passed
before a random draw) is forgotten, which is safe but less informed; the constraints assume a
seat's legal actions depend on its own cards and public facts (the verification catches
anything else); the permutation is drawn by most-constrained-first random assignment, close to
but not exactly uniform over the consistent permutations; a card the seat knows that went out of
sight keeps its real place (known cards are never moved). OpenSpiel's Oh Hell resampler, by
contrast, ignores voids altogether (open_spiel issue #314).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, cast

from trickkit.engine.privacy import seen_text
from trickkit.errors import TrickkitError

MAX_CONSTRAINT_TRIALS = 500
"""Most trial positions tried to learn from one observed action what the actor cannot hold (one per
hidden place; one clone per moved and hidden card for a hidden move); an action needing more is not
used (samples are still checked by replay). Decided on counts the seat sees, never on where cards lie."""

__all__ = ["InformationSetSampler"]


class _Step:
    """One action of the current epoch, as the sampling seat knows it."""

    __slots__ = ("actor", "text", "seen", "hidden", "where", "obs", "face", "choices", "cards")

    def __init__(
        self,
        actor: int,
        text: str,
        seen: str,
        hidden: bool,
        where: tuple[int, int],
        obs: dict[str, Any] | None,
        action: Any,
        cards: tuple[int, ...],
    ) -> None:
        self.actor = actor
        self.text = text  # the real text: replayed as is only when `hidden` is False
        self.seen = seen  # how the seat saw it when it was taken
        self.hidden = hidden  # the seat saw a masked text (private choice, simultaneous bid or card)
        self.where = where  # (round, step index): a simultaneous choice is revealed when its step ends
        self.obs = obs  # after a hidden action: what the seat saw right after it
        self.face = action.face  # the real action's card (as played), or -1
        self.choices = action.choices  # and its choices
        self.cards = cards  # which choices are cards


class InformationSetSampler:
    """Samples states consistent with what ``seat`` has observed (see the module docstring).

    Args:
        seat: the seat whose information set is sampled.
        rng: the generator every sample is drawn from (a ``random.Random``).
        max_tries: samples drawn and checked per `sample` call before the fallback.

    Attributes:
        stats: counters: ``samples`` (calls of `sample`), ``tries`` (permutations checked),
            ``rejected`` (permutations that failed the replay), ``fallbacks`` (samples that are
            an unconstrained permutation because every try failed).
    """

    def __init__(self, seat: int, rng: random.Random, max_tries: int = 50) -> None:
        if max_tries < 1:
            raise TrickkitError(f"max_tries must be >= 1, got {max_tries}")
        self.seat = seat
        self.rng = rng
        self.max_tries = max_tries
        self.stats = {"samples": 0, "tries": 0, "rejected": 0, "fallbacks": 0}
        self._key: tuple[int, Any, str] | None = None
        self._replay: Any = None  # the game replayed from its start (a State), kept in step with the real one
        self._texts: list[str] = []
        self._synced: Any = None  # (the seat's observation now, unknown cards in place order) once in step
        self._forbidden: dict[int, set[int]] = {}  # unknown card -> places (true cards) it cannot be
        self.last_permutation: dict[int, int] | None = None
        """The permutation of unknown cards behind the last sample (None after a fallback)."""

    # -- recall ---------------------------------------------------------------------------
    def sync(self, state: Any) -> None:
        """Bring the recall up to date with ``state`` (the same game, later), or start over.

        Raises:
            TrickkitError: ``state`` is not a trickkit engine state.
        """
        from trickkit.engine.state import State

        game: Any = getattr(state, "game", None)
        if not isinstance(state, State) and not (hasattr(state, "seed") and hasattr(game, "rules")):
            raise TrickkitError("information-set sampling needs a trickkit State (from Game.new_initial_state)")
        history = state.history()
        key = (id(game), state.seed, repr(state.deals))
        if key == self._key and history == self._texts and self._synced is not None:
            return  # already there (a search samples the same decision many times)
        self._synced = None
        if key != self._key or history[: len(self._texts)] != self._texts:
            self._key = key
            self._replay = game.new_initial_state(seed=state.seed, deals=state.deals)
            self._texts = []
            self._new_epoch()
        try:
            for text in history[len(self._texts) :]:
                self._advance(text)
        except TrickkitError as e:
            self._key = None
            raise TrickkitError(
                f"cannot recall the game for seat {self.seat}: it does not replay from its seed "
                f"and deals ({e}); was its generator drawn from outside the engine?"
            ) from None
        self._texts = history
        target = state.observation(self.seat)
        if self._replay.observation(self.seat) != target:
            self._key = None
            raise TrickkitError(
                f"cannot recall the game for seat {self.seat}: replayed from its seed and deals it "
                f"does not reach this state (was its generator drawn from outside the engine?)"
            )
        known = self._known
        # places in the order of the zones (public structure), so that a sample depends only on
        # the generator and what the seat saw, never on which hidden card lies where
        self._synced = (target, [c for c in _cards_in_place_order(self._start) if c not in known])

    def _new_epoch(self) -> None:
        r = self._replay
        self._start = r.clone()
        # a sample's past is told as the seat saw it: private choices of earlier epochs stay hidden
        priv = r.game._privacy
        self._start._history = [(a, seen_text(priv, t, a, self.seat)) for a, t in r._history]
        self._steps: list[_Step] = []
        self._known = set(_visible_cards(r, self.seat))
        self._forbidden = {}  # unknown card -> places (true cards) it cannot be

    def _advance(self, text: str) -> None:
        r, me = self._replay, self.seat
        actor = r.current
        seen = r.action_seen_by(text, me)
        hidden = seen != text
        action = next((a for a in r.legal_actions() if a.text == text), None)
        if action is None:
            raise TrickkitError(f"action {text!r} is not legal in the replay")
        cards = _card_choices(r, action)
        public = actor != me and not hidden
        if public:
            self._constrain(r, actor, text)
            self._known.update(v for v, is_card in zip(action.choices, cards) if is_card)
            pre = r.clone()
        where = (r.round, r.step)
        before = _generator_state(r)
        r.apply_action(text)
        if _generator_state(r) != before:  # chance: nothing hidden before it is known any more
            self._new_epoch()
            return
        if public:
            self._constrain_moves(pre, r, text)
        self._steps.append(
            _Step(actor, text, seen, hidden, where, r.observation(me) if hidden else None, action, cards)
        )
        self._known.update(_visible_cards(r, me))

    def _constrain(self, r: Any, actor: int, text: str) -> None:
        """Record which hidden cards ``actor`` cannot hold, given that ``text`` was legal for it."""
        places = _hidden_places(r, self.seat)
        mine = [(zone, i) for owner, zone, i in places if owner == actor]
        if not mine or len(places) > MAX_CONSTRAINT_TRIALS:
            return
        texts = r.rules.deck.texts
        words = set(text.replace(":", " ").split())
        out = [zone[i] for zone, i in mine if texts[zone[i]] not in words]  # a card the action did not name
        if not out:
            return
        held = {zone[i] for zone, i in mine}
        u = out[-1]
        uzone, ui = next((zone, i) for zone, i in mine if zone[i] == u)
        for owner, zone, i in places:
            c = zone[i]
            if c in held or texts[c] == texts[u]:
                continue
            zone[i], uzone[ui] = u, c  # actor holds c instead of u: would its action still be legal?
            r._legal = None
            try:
                legal = any(a.text == text for a in r.legal_actions())
            except TrickkitError:
                legal = False
            finally:
                zone[i], uzone[ui] = c, u
                r._legal = None
            if not legal:
                self._forbidden.setdefault(c, set()).update(held)

    def _constrain_moves(self, pre: Any, post: Any, text: str) -> None:
        """Record which cards could not be a hidden card that ``text`` moved out of sight (a card
        drawn from a hidden stock into a hidden hand): those after which the game would have gone
        on differently (another seat to act, other counts or variables), as when a drawn card that
        could be played ends the turn in one game and not in another."""
        me = self.seat
        where_pre = _hidden_locations(pre, me)
        where_post = _hidden_locations(post, me)
        moved = [u for u, z in where_post.items() if where_pre.get(u, z) != z]
        if not moved or len(moved) * len(where_pre) > MAX_CONSTRAINT_TRIALS:
            return
        texts = pre.rules.deck.texts
        real = _signature(post)
        for u in moved:
            for c in where_pre:
                if c == u or c in moved or texts[c] == texts[u]:
                    continue
                trial = pre.clone()
                _swap(trial, u, c)
                try:
                    trial.apply_action(text)
                    same = _signature(trial) == real
                except TrickkitError:
                    same = False
                if not same:
                    self._forbidden.setdefault(c, set()).add(u)

    # -- sampling -------------------------------------------------------------------------
    def sample(self, state: Any) -> Any:
        """A state ``seat`` cannot tell from ``state``, hidden cards drawn at random.

        Args:
            state: the real state (the sampler reads from it only what ``seat`` observed).

        Returns:
            A new `trickkit.State` at the same decision, with its own fresh generator.
        """
        self.sync(state)
        self.stats["samples"] += 1
        known = self._known
        target, unknown = self._synced
        if not unknown and not any(st.hidden for st in self._steps):  # nothing to sample: the seat sees it all
            return self._reseed(self._told(state.clone()))
        for _ in range(self.max_tries):
            self.stats["tries"] += 1
            perm = self._permutation(unknown, constrained=True)
            if perm is not None:
                world = self._replay_epoch(perm, target)
                if world is not None:
                    self.last_permutation = perm
                    return self._reseed(world)
            self.stats["rejected"] += 1
        self.stats["fallbacks"] += 1
        self.last_permutation = None
        places = [c for c in _cards_in_place_order(state) if c not in known]
        world = _relabel(
            state, cast("dict[int, int]", self._permutation(places, constrained=False))
        )  # never None unconstrained
        return self._reseed(self._told(world))

    def _told(self, world: Any) -> Any:
        """``world`` with its history as the seat knows it (a copy of the real state's would tell
        other seats' private choices)."""
        final_where = (self._replay.round, self._replay.step)
        priv = world.game._privacy
        epoch = [
            (
                st.actor,
                st.seen
                if st.hidden and (seen_text(priv, st.text, st.actor, self.seat) != st.text or st.where == final_where)
                else st.text,
            )
            for st in self._steps
        ]
        world._history = list(self._start._history) + epoch
        return world

    def epoch_start(self, permutation: dict[int, int] | None = None) -> Any:
        """The state at the start of the current epoch (just after the last chance event), with
        the unknown cards relabelled by ``permutation`` (e.g. ``last_permutation``; None: as
        recalled). For tests and inspection: the sample is this state with the epoch replayed."""
        return _relabel(self._start, permutation or {})

    def _permutation(self, unknown: list[int], constrained: bool) -> dict[int, int] | None:
        """A random map from each unknown card's place (named by its true card, ``unknown`` in
        place order) to the card put there; None when the constraints left a place no card."""
        rng = self.rng
        free = sorted(unknown)
        if not constrained or not self._forbidden:
            rng.shuffle(free)
            return dict(zip(unknown, free))
        # places that exclude the most cards are filled first (ties in random order)
        excluded: dict[int, set[int]] = {}
        for c, places in self._forbidden.items():
            for p in places:
                excluded.setdefault(p, set()).add(c)
        order = [p for p in unknown if p in excluded]
        rng.shuffle(order)
        order.sort(key=lambda p: -len(excluded[p]))
        out: dict[int, int] = {}  # place -> card
        holder: dict[int, int] = {}  # card -> place
        left = dict.fromkeys(free)  # ordered: the draws depend on the generator only
        for p in order:
            bad = excluded[p]
            choices = [c for c in left if c not in bad]
            if choices:
                c = choices[rng.randrange(len(choices))]
            else:  # a dead end: take a card from a place that can give it up for another
                given = self._augment(p, excluded, out, holder, left, free, set(), 0)
                if given is None:
                    return None
                c = given
            left.pop(c, None)
            out[p], holder[c] = c, p
        # the places no constraint touches take the remaining cards uniformly
        rest = list(left)
        rng.shuffle(rest)
        out.update(zip((p for p in unknown if p not in excluded), rest))
        return out

    def _augment(
        self,
        p: int,
        excluded: dict[int, set[int]],
        out: dict[int, int],
        holder: dict[int, int],
        left: dict[int, None],
        free: list[int],
        seen: set[int],
        depth: int,
    ) -> int | None:
        """A card for place ``p``: a free one, or one whose place can take another card in turn
        (an augmenting path, as in Kuhn's matching). Returns it (still to be given to ``p``), or None."""
        if depth > 200:  # bounded: constraints no deal satisfies cost a rejection, not a hang
            return None
        bad = excluded.get(p, ())
        cards = [c for c in free if c not in bad and c not in seen]
        self.rng.shuffle(cards)
        for c in cards:
            if c in left:
                return c
        for c in cards:
            seen.add(c)
            q = holder.get(c)
            if q is None:
                continue
            other = self._augment(q, excluded, out, holder, left, free, seen, depth + 1)
            if other is not None:  # q gives up c and takes `other`
                left.pop(other, None)
                out[q], holder[other] = other, q
                return c
        return None

    def _replay_epoch(self, perm: dict[int, int], target: dict[str, Any]) -> Any | None:
        """The epoch replayed on the relabelled start; None when the sample contradicts the history."""
        world = _relabel(self._start, perm)
        me, rng = self.seat, self.rng
        final_where = (self._replay.round, self._replay.step)
        texts, face_card, face_mode = world.rules.deck.texts, world.rules.deck.face_card, world.rules.deck.face_mode
        get = perm.get
        try:
            for st in self._steps:
                if world.current_player() != st.actor:
                    return None  # the sample's game went another way (the same text, another seat)
                if not st.hidden:  # public: it must be legal under the sample
                    world.apply_action(st.text)
                    continue
                # The seat saw this action only in part. Its cards are the real ones relabelled like
                # every other unknown card (a card the seat knows is itself); anything else it hid
                # (a bid still secret) is drawn again among the actions that look the same.
                revealed = not (
                    seen_text(world.game._privacy, st.text, st.actor, me) != st.text or st.where == final_where
                )
                options = [a for a in world.legal_actions() if world.action_seen_by(a, me) == st.seen]
                fits = []
                for a in options:
                    if revealed and st.face < 0 and not any(st.cards) and a.text != st.text:
                        continue  # no card in it (a bid): once revealed, it is what it was
                    if st.face >= 0:
                        if (
                            a.face < 0
                            or face_mode[a.face] != face_mode[st.face]
                            or texts[face_card[a.face]] != texts[get(face_card[st.face], face_card[st.face])]
                        ):
                            continue
                    if len(a.choices) != len(st.choices):
                        continue
                    if all(
                        (texts[x] == texts[get(v, v)]) if is_card else (x == v or not revealed)
                        for x, v, is_card in zip(a.choices, st.choices, st.cards)
                    ):
                        fits.append(a)
                if not fits:
                    return None
                world.apply_action(fits[rng.randrange(len(fits))] if len(fits) > 1 else fits[0])
                if st.obs is not None and world.observation(me) != st.obs:
                    return None  # the action shows differently from the real one
            if world.observation(me) != target:
                return None
        except TrickkitError:
            return None
        return world

    def _reseed(self, world: Any) -> Any:
        # future chance (the next deal, a draw) must not be the real game's: a fresh generator,
        # and no scripted deals (a scenario's later hands)
        world.seed = self.rng.getrandbits(63)
        world.deals = None
        world._rng = random.Random(world.seed)
        world._rng_state = None
        world._rng_lent = False
        return world


# -- helpers on engine states -------------------------------------------------------------
def _generator_state(s: Any) -> Any:
    r = s._rng
    return r.getstate() if r is not None else s._rng_state


def _views(s: Any, me: int) -> Iterator[Any]:
    """``(owner seat or None, cards list, how me sees it, zone key)`` for every zone of ``s``.

    How a zone shows is read from ``s.observation(me)`` itself (``all``: its cards, ``top``: its
    top card, ``count``: nothing), so any visibility rule the engine has is followed exactly; a
    zone the observation leaves out counts as hidden.
    """
    rules = s.rules
    zones = s.observation(me)["zones"]
    for z in rules.seat_zones:
        views = zones.get(z.name)
        for seat, cards in enumerate(s.seat_zones[z.index]):
            view = views[seat] if isinstance(views, list) and seat < len(views) else None
            yield seat, cards, _how(view, cards), ("seat", z.index, seat)
    for z in rules.table_zones:
        views = zones.get(z.name)
        for i in range(max(z.count, 1)):
            view = (views[i] if isinstance(views, list) and i < len(views) else None) if z.count else views
            cards = s.table_zones[z.index + i]
            yield None, cards, _how(view, cards), ("table", z.index + i)


def _how(view: Any, cards: list[Any]) -> str:
    if isinstance(view, dict) and "cards" in view and len(view["cards"]) == len(cards):
        return "all"
    if isinstance(view, dict) and "top" in view:
        return "top"
    return "count"


def _visible_cards(s: Any, me: int) -> set[int]:
    """Card ids ``me`` can see in ``s``: its visible zones, tops, the trick, card-valued variables."""
    out: set[int] = set()
    for _, cards, how, _ in _views(s, me):
        if how == "all":
            out.update(cards)
        elif how == "top" and cards:
            out.add(cards[-1])
    out.update(p[1] for p in s.trick)
    if s.last_trick is not None:  # a trick's last card goes straight to its taker: it was seen
        out.update(p[1] for p in s.last_trick[1])
    rules = s.rules
    for specs, values, per_seat in ((rules.seat_vars, s.seat_vars, True), (rules.table_vars, s.table_vars, False)):
        for v in specs:
            if v.type in ("card", "play"):
                for x in values[v.index] if per_seat else [values[v.index]]:
                    if isinstance(x, int) and not isinstance(x, bool):
                        out.add(x)
                    elif isinstance(x, tuple) and len(x) > 1:
                        out.add(x[1])
    return out


def _hidden_places(s: Any, me: int) -> list[tuple[Any, ...]]:
    """``(owner, zone list, index)`` of every card position ``me`` cannot see."""
    out: list[tuple[Any, ...]] = []
    for owner, cards, how, _ in _views(s, me):
        if how == "all":
            continue
        last = len(cards) - 1 if how == "top" else len(cards)
        out.extend((owner, cards, i) for i in range(max(last, 0)))
    return out


def _card_choices(s: Any, action: Any) -> tuple[bool, ...]:
    """For each choice of ``action`` (taken in ``s``), whether it is a card: a card choice of a
    turns action kind, or the one choice of a step whose action names a card by its text."""
    if not action.choices:
        return ()
    step = s.rules.steps[s.step]
    kinds = list(getattr(step, "kinds", ()))
    for window in getattr(step, "windows", ()):
        kinds += list(window.kinds)
    if kinds:
        for kind in kinds:
            if kind.name == action.verb and len(kind.choice_types) == len(action.choices):
                return tuple(t == "card" and isinstance(v, int) for t, v in zip(kind.choice_types, action.choices))
        return (False,) * len(action.choices)
    texts = s.rules.deck.texts  # a step without action kinds (a card chosen): `verb CARD`
    words = action.text.split()[1:]
    return tuple(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(texts) and texts[v] in words
        for v in action.choices
    )


def _relabel(s: Any, perm: dict[int, int]) -> Any:
    """A copy of ``s`` in which card ``p`` is replaced by ``perm[p]`` wherever it lies."""
    c = s.clone()
    get = perm.get
    # a hand in deck order (as a deal leaves it) stays in deck order, as any real deal would be
    c.seat_zones = [[_in_order([get(x, x) for x in hand], hand) for hand in zone] for zone in c.seat_zones]
    c.table_zones = [[get(x, x) for x in zone] for zone in c.table_zones]
    c._legal = None
    return c


def _in_order(cards: list[int], was: list[int]) -> list[int]:
    if len(was) > 1 and all(was[i] < was[i + 1] for i in range(len(was) - 1)):
        cards.sort()
    return cards


def _cards_in_place_order(s: Any) -> list[int]:
    """Every card in a zone of ``s``, zone by zone (seat zones seat by seat, then table zones)."""
    out: list[int] = []
    for zone in s.seat_zones:
        for cards in zone:
            out.extend(cards)
    for cards in s.table_zones:
        out.extend(cards)
    return out


def _hidden_locations(s: Any, me: int) -> dict[int, tuple[Any, ...]]:
    """Each card ``me`` cannot see -> the zone it lies in."""
    out: dict[int, tuple[Any, ...]] = {}
    for _, cards, how, key in _views(s, me):
        if how != "all":
            for c in cards[:-1] if how == "top" else cards:
                out[c] = key
    return out


def _signature(s: Any) -> tuple[Any, ...]:
    """What the next decision looks like from outside: who acts, where, the zone sizes and the variables."""
    return (
        s.current_player(),
        s.round,
        s.step,
        s.turn_player,
        s.window,
        repr(s.trick),
        tuple(len(h) for zone in s.seat_zones for h in zone),
        tuple(len(z) for z in s.table_zones),
        repr(s.seat_vars),
        repr(s.table_vars),
    )


def _swap(s: Any, a: int, b: int) -> None:
    """Exchange the places of cards ``a`` and ``b`` in ``s``."""
    for zone in s.seat_zones:
        for cards in zone:
            for i, x in enumerate(cards):
                if x == a:
                    cards[i] = b
                elif x == b:
                    cards[i] = a
    for cards in s.table_zones:
        for i, x in enumerate(cards):
            if x == a:
                cards[i] = b
            elif x == b:
                cards[i] = a
    s._legal = None
