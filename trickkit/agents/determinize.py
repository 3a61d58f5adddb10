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
   see by its ``visibility``, ``public_when`` or ``seen_by``, the top of a ``top`` zone, the
   trick, a card a ``reveal`` showed it, a card-valued variable it may see, a card named in a
   public action) is *known* and stays where it is; which seat sees what is read from
   `trickkit.engine.visibility`, the model every view uses (through `trickkit.agents.seat_view`).
   A variable value the seat may not see is *unknown* too: samples start it at its initial
   value (the real one never enters a sample), moves are compared by the variables only as the
   seat sees them, and what reveals showed other seats follows the relabelled cards. The other
   cards are *unknown*: a sample is a permutation of the unknown cards over the places they
   occupy (hands of other seats, a hidden stock, face-down piles). Counts of every zone are
   therefore kept, and a card the seat passed to another stays in that hand. Places are named
   by what the seat knows, never by the card really there: the zone a card lay in at the start
   of the epoch and the zones it moved through since (cards with the same path are
   interchangeable), and a hand a deal just filled is put in deck order. A sample is thus a
   function of the seat's information set and the generator only.
3. **Constraints from the history.** For each public action of another seat, the sampler asks
   the rules which unknown cards that seat cannot have held: it exchanges the card with each
   unknown card of the seat's hidden zones in turn and checks whether the action it took would
   still be legal after any of them. A seat that did not follow suit is thereby void in that
   suit, a seat that played under the lead card where it had to play over it if able had no
   card over it, and so on, with no per-game code. When a public action moves a hidden card out
   of sight (a draw into a hidden hand), each unknown card is tried in its place, and the ones
   after which the game would have gone on differently (another seat to act, other counts or
   variables as the seat sees them) are excluded there. The permutation is drawn avoiding these
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
from typing import Any, cast

from trickkit.agents.seat_view import blank_hidden, hidden_locations, hidden_places, visible_cards
from trickkit.agents.worlds import (
    _card_choices,
    _cards_in_place_order,
    _generator_state,
    _locations,
    _relabel,
    _signature,
    _swap,
)
from trickkit.engine.privacy import seen_text
from trickkit.errors import TrickkitError

MAX_CONSTRAINT_TRIALS = 500
"""Most trial positions tried to learn from one observed action what the actor cannot hold (one per
hidden place; one clone per moved and hidden card for a hidden move); an action needing more is not
used (samples are still checked by replay). Decided on counts the seat sees, never on where cards lie."""

__all__ = ["InformationSetSampler"]


class _Step:
    """One action of the current epoch, as the sampling seat knows it."""

    __slots__ = ("actor", "cards", "choices", "face", "hidden", "obs", "seen", "text", "where")

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
            self._new_epoch(dealt=True)
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
        self._synced = (target, self._slots())

    def _new_epoch(self, dealt: bool = True) -> None:
        r = self._replay
        self._start = r.clone()
        # hands a deal just filled are in deck order, so their order tells nothing: a sample puts
        # them in deck order too (other hands keep the order of their places: a card drawn last
        # may be the one a rule asks for)
        self._sorted_zones = (
            {st.to.index for st in r.rules.steps if getattr(st, "kind", None) == "deal"}
            if dealt and r.deal_no
            else set()
        )
        # a sample's past is told as the seat saw it: private choices of earlier epochs stay hidden
        priv = r.game._privacy
        self._start._history = [(a, seen_text(priv, t, a, self.seat)) for a, t in r._history]
        blank_hidden(self._start, self.seat)  # values the seat cannot see are unknown in every sample
        self._steps: list[_Step] = []
        self._known = set(visible_cards(r, self.seat))
        self._forbidden = {}  # unknown card -> places (true cards) it cannot be
        # where every card lies at the epoch's start, and each later move (action index, zone):
        # cards with the same path are interchangeable to the seat (see `_slots`)
        self._where = _locations(r)
        self._paths: dict[int, list[Any]] = {c: [key] for c, key in self._where.items()}

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
        at = (r.round, r.step)
        before, deal_no = _generator_state(r), r.deal_no
        r.apply_action(text)
        if _generator_state(r) != before:  # chance: nothing hidden before it is known any more
            self._new_epoch(r.deal_no != deal_no)
            return
        if public:
            self._constrain_moves(pre, r, text)
        where = _locations(r)
        for c, key in where.items():
            if self._where.get(c) != key:
                self._paths.setdefault(c, []).append((len(self._steps), key))
        self._where = where
        self._steps.append(_Step(actor, text, seen, hidden, at, r.observation(me) if hidden else None, action, cards))
        self._known.update(visible_cards(r, me))

    def _constrain(self, r: Any, actor: int, text: str) -> None:
        """Record which unknown cards ``actor`` cannot hold, given that ``text`` was legal for it.

        An unknown card ``c`` elsewhere is exchanged in turn with each unknown card of
        ``actor``'s hidden places (the cards the action names stay): when the action is illegal
        after every such exchange, ``c`` is not in those places. Every unknown card is tried
        against every one of them, so what is recorded depends on the seat's information set,
        never on which hidden card the actor really holds where.
        """
        places = hidden_places(r, self.seat)
        if len(places) > MAX_CONSTRAINT_TRIALS:  # a count the seat sees: learning from this action costs too much
            return
        known = self._known
        words = set(text.replace(":", " ").split())
        texts = r.rules.deck.texts
        slots = [(zone, i) for owner, zone, i in places if owner == actor and zone[i] not in known]
        slots = [(zone, i) for zone, i in slots if texts[zone[i]] not in words]  # a card the action did not name
        if not slots:
            return
        held = {zone[i] for zone, i in slots}
        for _, czone, ci in places:
            c = czone[ci]
            if c in known or c in held:
                continue
            for zone, i in slots:
                u = zone[i]
                zone[i], czone[ci] = c, u  # actor holds c instead of u: would its action still be legal?
                r._legal = None
                try:
                    legal = any(a.text == text for a in r.legal_actions())
                except TrickkitError:
                    legal = False
                finally:
                    zone[i], czone[ci] = u, c
                    r._legal = None
                if legal:
                    break
            else:
                self._forbidden.setdefault(c, set()).update(held)

    def _constrain_moves(self, pre: Any, post: Any, text: str) -> None:
        """Record which cards could not be a hidden card that ``text`` moved out of sight (a card
        drawn from a hidden stock into a hidden hand): those after which the game would have gone
        on differently (another seat to act, other counts or variables), as when a drawn card that
        could be played ends the turn in one game and not in another."""
        me = self.seat
        where_pre = hidden_locations(pre, me)
        where_post = hidden_locations(post, me)
        moved = [u for u, z in where_post.items() if where_pre.get(u, z) != z]
        if not moved or len(moved) * len(where_pre) > MAX_CONSTRAINT_TRIALS:
            return
        texts = pre.rules.deck.texts
        real = _signature(post, me)
        for u in moved:
            for c in where_pre:
                if c == u or c in moved or texts[c] == texts[u]:
                    continue
                trial = pre.clone()
                _swap(trial, u, c)
                try:
                    trial.apply_action(text)
                    same = _signature(trial, me) == real
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
        target, (slot_members, cards, excluded) = self._synced
        if not cards and not any(st.hidden for st in self._steps):  # nothing to sample: the seat sees it all
            return self._reseed(self._told(blank_hidden(state.clone(), self.seat)))
        for _ in range(self.max_tries):
            self.stats["tries"] += 1
            chosen = self._permutation(list(range(len(cards))), cards, excluded)
            if chosen is not None:
                perm = {slot_members[slot]: c for slot, c in chosen.items()}
                world = self._replay_epoch(perm, target)
                if world is not None:
                    self.last_permutation = perm
                    return self._reseed(world)
            self.stats["rejected"] += 1
        self.stats["fallbacks"] += 1
        self.last_permutation = None
        # the cards the seat does not know, where they lie now, interchangeable zone by zone
        known = self._known
        now = _locations(state)
        members = [c for c in _cards_in_place_order(state) if c not in known]
        order = {key: k for k, key in enumerate(sorted({repr(now[c]) for c in members}))}
        members.sort(key=lambda c: order[repr(now[c])])  # stable: place order within a zone
        chosen = cast("dict[int, int]", self._permutation(list(range(len(members))), sorted(members), {}))
        world = _relabel(state, {members[slot]: c for slot, c in chosen.items()}, self._sorted_zones)
        return self._reseed(self._told(blank_hidden(world, self.seat)))

    def _slots(self) -> tuple[list[int], list[int], dict[int, set[int]]]:
        """The places of the unknown cards at the epoch's start, named by what the seat knows.

        Unknown cards that started in the same zone and moved the same way since (the same
        zones after the same actions) are interchangeable to the seat: their places form one
        class. Returns ``(slot_members, cards, excluded)``: one slot per unknown card, classes in
        a fixed order (the true card of each slot, used only to relabel the start state), the
        unknown cards in id order, and for each slot the cards it cannot take (by class). A
        sample drawn over these depends on the seat's information set and the generator only.
        """
        known = self._known
        position = {c: k for k, c in enumerate(_cards_in_place_order(self._start))}
        classes: dict[str, list[int]] = {}
        for c in position:
            if c not in known:
                classes.setdefault(repr(self._paths.get(c)), []).append(c)
        class_of: dict[int, int] = {}
        slot_members: list[int] = []
        slot_class: list[int] = []
        for k, key in enumerate(sorted(classes)):
            for c in classes[key]:  # in place order: the same in any world the seat cannot tell apart
                class_of[c] = k
                slot_members.append(c)
                slot_class.append(k)
        by_class: dict[int, set[int]] = {}
        for c, places in self._forbidden.items():
            for p in places:
                found = class_of.get(p)
                if found is not None:
                    by_class.setdefault(found, set()).add(c)
        excluded = {slot: by_class[k] for slot, k in enumerate(slot_class) if k in by_class}
        return slot_members, sorted(slot_members), excluded

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
        return _relabel(self._start, permutation or {}, self._sorted_zones)

    def _permutation(self, places: list[int], cards: list[int], excluded: dict[int, set[int]]) -> dict[int, int] | None:
        """A random map from each place (``places``, in a fixed order) to the card put there
        (``cards``, as many, in id order), no place taking a card of ``excluded[place]``; None
        when the constraints left a place no card."""
        rng = self.rng
        free = list(cards)
        if not excluded:
            rng.shuffle(free)
            return dict(zip(places, free))
        # places that exclude the most cards are filled first (ties in random order)
        order = [p for p in places if p in excluded]
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
        out.update(zip((p for p in places if p not in excluded), rest))
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
        world = _relabel(self._start, perm, self._sorted_zones)
        me, rng = self.seat, self.rng
        final_where = (self._replay.round, self._replay.step)
        texts, face_card, face_mode = world.rules.deck.texts, world.rules.deck.face_card, world.rules.deck.face_mode
        get = perm.get
        try:
            for st in self._steps:
                # the history names the seat whose turn it was (a tricks step's `actor` may choose for it)
                if world.is_terminal() or world.current != st.actor:
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
                    if st.face >= 0 and (
                        a.face < 0
                        or face_mode[a.face] != face_mode[st.face]
                        or texts[face_card[a.face]] != texts[get(face_card[st.face], face_card[st.face])]
                    ):
                        continue
                    if len(a.choices) != len(st.choices):
                        continue
                    # cards as a multiset (the relabelled cards need not come in the legal order)
                    if all(
                        is_card or x == v or not revealed for x, v, is_card in zip(a.choices, st.choices, st.cards)
                    ) and sorted(
                        texts[x] if isinstance(x, int) else "" for x, is_card in zip(a.choices, st.cards) if is_card
                    ) == sorted(texts[get(v, v)] for v, is_card in zip(st.choices, st.cards) if is_card):
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
