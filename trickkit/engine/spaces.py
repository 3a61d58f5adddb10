"""A fixed integer action space per Game: every action text that can be legal gets a stable id.

Reinforcement-learning frameworks (OpenSpiel, PettingZoo) want actions as integers in
``0..num_distinct_actions()-1`` and a mask of the legal ones. The ids are derived from the
ruleset alone, step by step in the order the round declares them:

- a ``tricks`` step: ``play FACE`` for every face of the deck, in face order (copies of a card
  share one text, so one id; a card played in modes has one id per mode);
- a ``choose`` step: ``VERB CARD`` for every card text of the deck, in deck order;
- a ``bid`` step: ``bid V`` for every value its ``options`` can offer, in increasing order;
- an ``auction`` step: the action of every call its ``calls`` can give (``bid 1C`` ... in the
  order of the calls), then its pass, then ``double`` and ``redouble`` if it offers them;
- a ``turns`` step: for every action kind (then every response of its reaction windows), the
  cross product of its choices' values, in the kind's choice order, and ``pass`` if the step
  has reaction windows.

A choice of type ``card`` ranges over every card text of the deck. Any other value list
(bid options, numbers, texts, seats) is computed by **probing**: its rule is evaluated on the
first decision of every round of a game shuffled with seed 0 (its deal and steps run as the
engine runs them, from round 1 to the first round at which ``game_over`` holds there, at most
`MAX_PROBED_ROUNDS`), with every seat in turn as the one deciding;
the union of the values found is the range (whole numbers completed to every number from
the smallest to the largest found). So ``range(0, round + 1)`` with ``game_over:
round == rounds`` gives the bids ``0..rounds``. A text that appears twice (two steps offering
``take 1``) keeps its first id. Nothing depends on the seed's cards except values computed
from dealt cards, which a rule would only offer in a card choice.

The ids are therefore the same in every process and on every run for the same ruleset,
seat count and parameter values. Should some legal action still fall outside the space
(a value list that probing cannot foresee, e.g. one computed from scores), asking for its
id raises `ActionSpaceError` naming it, instead of a wrong id.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from trickkit.dsl.compiler import EVALUATION_BUDGET
from trickkit.dsl.runtime import dsl_str
from trickkit.engine.actions import Action, quote_action
from trickkit.errors import IllegalActionError, TrickkitError, did_you_mean
from trickkit.rules.ruleset import Rules

MAX_PROBED_ROUNDS = 100
"""Most rounds probed for value lists that depend on the round (see the module docstring)."""

PROBE_BUDGET = EVALUATION_BUDGET
"""Items all the probing for one action space may iterate over, together (the rounds' deals and
steps, ``game_over`` and every value-list rule on every probe state): one engine call's worth of
evaluation budget, shared, not one per probe. Probing that runs over it stops with an
`ActionSpaceError` saying so; a rule that fails on a probe state for any other reason offers
nothing there."""

MAX_DISTINCT_ACTIONS = 200_000
"""Most ids an action space may hold; a ruleset whose choices multiply to more is refused."""

MAX_FILLED_SPAN = 10_000
"""Probed whole numbers are completed to the full range from the smallest to the largest
(bids 0, 1 and 3 seen give 0..3) when it spans at most this many values."""


class ActionSpaceError(TrickkitError, ValueError):
    """An action id or text is not in the game's action space, or the space cannot be built."""


class ActionSpace:
    """The action texts of one Game, numbered from 0.

    Attributes:
        texts: the canonical action text of each id, e.g. ``('play B1', ..., 'bid 0', ...)``.
        ids: action text -> id.
    """

    __slots__ = ("game_name", "ids", "texts")

    def __init__(self, texts: Sequence[str], game_name: str):
        self.texts = tuple(texts)
        self.ids = {t: i for i, t in enumerate(self.texts)}
        self.game_name = game_name

    def __len__(self) -> int:
        return len(self.texts)

    def to_string(self, action_id: object) -> str:
        """The canonical text of ``action_id``.

        Raises:
            ActionSpaceError: ``action_id`` is not an int in ``0..len(self)-1``.
        """
        if isinstance(action_id, bool) or (not isinstance(action_id, int) and not _is_integer(action_id)):
            raise ActionSpaceError(f"an action id is an int, got {type(action_id).__name__}")
        try:
            i: int = int(action_id)  # type: ignore[call-overload]  # checked above: an int or has __index__
        except TypeError:  # an array of more than one dimension: numpy's "only 0-dimensional arrays ..."
            shape = getattr(action_id, "shape", None)
            raise ActionSpaceError(
                f"an action id is an int, got {type(action_id).__name__}" + (f" of shape {shape}" if shape else "")
            ) from None
        if not 0 <= i < len(self.texts):
            raise ActionSpaceError(f"unknown action id {i} for {self.game_name}: ids are 0..{len(self.texts) - 1}")
        return self.texts[i]

    def to_id(self, text: str | Action) -> int:
        """The id of an action text (spaces normalised, verb case-insensitive, like ``apply_action``).

        Raises:
            ActionSpaceError: no action of this game has that text.
        """

        if isinstance(text, Action):
            text = text.text
        if not isinstance(text, str):
            raise ActionSpaceError(f"an action text is a str, got {type(text).__name__}")
        i = self.ids.get(text)
        if i is not None:
            return i
        verb, _, rest = " ".join(text.split()).partition(" ")
        norm = f"{verb.lower()} {rest}" if rest else verb.lower()
        i = self.ids.get(norm)
        if i is None:
            shown = norm[:120]
            raise ActionSpaceError(
                f"no action {quote_action(text)} in the action space of {self.game_name}"
                f"{did_you_mean(shown, self.ids) if len(self.ids) < 5000 else ''}"
            )
        return i

    def ids_of(self, actions: Iterable[Action]) -> list[int]:
        """The ids of legal actions (`trickkit.Action` objects).

        Raises:
            ActionSpaceError: one of them has no id (see the module docstring).
        """
        ids = self.ids
        try:
            return [ids[a.text] for a in actions]
        except KeyError as e:
            raise ActionSpaceError(
                f"legal action {e.args[0]!r} of {self.game_name} has no id: its values were not found when the "
                f"action space was built (see trickkit.engine.spaces: value lists computed from the game's progress "
                f"beyond the round cannot be foreseen)"
            ) from None


def _is_integer(value: object) -> bool:
    # numpy integers (np.int64 from a policy's argmax) are ints too, without importing numpy
    return hasattr(value, "__index__") and not isinstance(value, (str, bytes, float))


def build_action_space(game: Any) -> ActionSpace:
    """Derive the action space of ``game`` (a `trickkit.engine.game.Game`, which imports this module)
    from its ruleset (see the module docstring).

    Raises:
        ActionSpaceError: the choices multiply to more than `MAX_DISTINCT_ACTIONS` actions.
    """
    rules = game.rules
    deck = rules.deck
    texts: dict[str, None] = {}  # ordered set
    probe = _Prober(game)
    card_texts = list(dict.fromkeys(deck.texts))
    for step in rules.steps:
        if step.kind == "tricks":
            for f in deck.face_texts:
                texts.setdefault(f"play {f}", None)
        elif step.kind == "choose":  # one action per card that may be chosen: 'pick 55'
            for t in card_texts:
                texts.setdefault(f"{step.verb} {t}", None)
        elif step.kind == "bid":
            values = probe.values(step.options)
            _check_size(rules, len(texts) + len(values), f"its bids alone have {len(values)} values")
            for v in values:
                texts.setdefault(f"bid {v}", None)
        elif step.kind == "auction":
            calls = auction_calls(probe, step)
            _check_size(rules, len(texts) + len(calls), f"its auction alone has {len(calls)} calls")
            for c in calls:
                texts.setdefault(step.template.replace("{call}", str(c)), None)
            texts.setdefault(step.pass_text, None)
            if step.double:
                texts.setdefault("double", None)
                texts.setdefault("redouble", None)
        elif step.kind == "turns":
            kinds = list(step.kinds) + [k for w in step.windows for k in w.kinds]
            for kind in kinds:
                domains: list[list[Any]] = []
                for hook, typ in zip(kind.domains, kind.choice_types):
                    domains.append(card_texts if typ == "card" else probe.values(hook))
                size = 1
                for d in domains:
                    size *= len(d)
                _check_size(rules, len(texts) + size, f"action {kind.name!r} alone has {size} combinations of choices")
                for combo in itertools.product(*domains):  # values as the engine writes them (null, true)
                    texts.setdefault(kind.template.format(**dict(zip(kind.choice_names, map(dsl_str, combo)))), None)
            if step.windows:
                texts.setdefault("pass", None)
    return ActionSpace(list(texts), rules.name)


def auction_calls(probe: _Prober, step: Any) -> list[Any]:
    """Every call an auction step (`trickkit.rules.model.AuctionStep`) can offer, in the order
    of its calls: the calls written in the ruleset, else those its ``calls`` rule gives on the
    probe states (first seen first)."""
    if step.fixed_calls is not None:
        return list(step.fixed_calls)
    found: dict[tuple[str, Any], Any] = {}
    for s in probe.states():
        s.budget = EVALUATION_BUDGET
        s.memo = None
        try:
            values = step.calls(s)
        except Exception:  # a rule that fails on a probe state offers nothing there
            continue
        if values.__class__ is list:
            for v in values:
                if v.__class__ in (str, int):
                    found.setdefault((type(v).__name__, v), v)
    return list(found.values())


def all_auction_calls(game: Any, step: Any) -> list[Any]:
    """Every call the auction step ``step`` of ``game`` can offer (see `auction_calls`)."""
    return auction_calls(_Prober(game), step)


def _check_size(rules: Rules, size: int, why: str) -> None:
    if size > MAX_DISTINCT_ACTIONS:
        raise ActionSpaceError(f"{rules.name}: the action space would exceed {MAX_DISTINCT_ACTIONS} actions ({why})")


class _Prober:
    """Evaluates value-list rules on probe states: every seat deciding, every round until the game ends.

    ``game`` is a `trickkit.engine.game.Game` and the probe states are its `trickkit.engine.state.State`
    objects (both modules import this one, so they are not named in its annotations)."""

    def __init__(self, game: Any):
        self.game = game
        self._states: list[Any] | None = None
        self.left = PROBE_BUDGET  # what is left of the budget all the probes share

    def _charge(self, s: Any) -> None:
        """Give ``s`` what is left of the shared budget (before running a rule on it)."""
        s.budget = self.left
        s.memo = None

    def _spent(self, s: Any, what: str) -> None:
        """Take back what the rule run on ``s`` left; stop probing once it is all spent."""
        self.left = min(self.left, s.budget)
        if self.left < 0:
            raise ActionSpaceError(
                f"{self.game.rules.name}: probing the rules for the action space ({what}) ran over its "
                f"evaluation budget of {PROBE_BUDGET} items (trickkit.engine.spaces.PROBE_BUDGET)"
            )

    def states(self) -> list[Any]:
        if self._states is None:
            self._states = self._make_states()
        return self._states

    def _make_states(self) -> list[Any]:

        game = self.game
        try:
            base = game.new_initial_state(seed=0)
        except Exception:  # a ruleset whose first deal fails has no probe state: plain ranges only
            return []
        out = []
        n = game.num_players
        for r in range(1, MAX_PROBED_ROUNDS + 1):
            start = base if r == 1 else _round_start(base, r, self)
            if start is None:  # this round's steps fail (e.g. too many cards to deal): no game gets further
                break
            for seat in range(n):
                s = start.clone()
                s.current = s.turn_player = seat
                s._terminal = False
                out.append(s)
            self._charge(start)
            try:
                over = game.rules.game_over(start)
            except Exception:  # a game_over that cannot be read here: keep probing to the cap
                over = False
            self._spent(start, f"game_over in round {r}")
            if over:
                break
        return out

    def values(self, hook: Any) -> list[Any]:
        """Every value ``hook`` gives on some probe state, sorted (numbers first, then texts)."""

        found: dict[tuple[str, Any], Any] = {}
        for s in self.states():
            self._charge(s)
            try:
                values = hook(s)
            except Exception:  # a rule that fails on a probe state offers nothing there
                values = ()
            self._spent(s, "a list of values")
            for v in values or ():
                if v.__class__ in (int, str, bool) or v is None:  # a list is no choice (legal_actions says so)
                    found.setdefault((type(v).__name__, v), v)
        values = sorted(found.values(), key=_order)
        if values and all(type(v) is int for v in values) and values[-1] - values[0] <= MAX_FILLED_SPAN:
            # numbers seen at the probes: the ones between them may be offered at other moments
            return list(range(values[0], values[-1] + 1))
        return values


def _round_start(base: Any, r: int, prober: _Prober) -> Any:
    """The first decision of round ``r`` as the engine would reach it from ``base``'s first round
    (variables kept per game stay at their first values), or None if its steps fail there. Its
    steps are charged to the prober's shared budget."""
    s = base.clone()
    s.round, s.dealer, s.step, s.trick = r, (r - 1) % s._n, 0, []
    s._legal = None
    prober._charge(s)
    try:
        s._reset_variables("per_round")
        s._enter_step()
        reached = True
    except Exception:
        reached = False
    prober._spent(s, f"the steps of round {r}")
    return s if reached else None


def _order(v: Any) -> tuple[int, int, str]:
    if isinstance(v, (bool, int)):
        return (0, int(v), "")
    return (1, 0, str(v))


def check_action_id(space: ActionSpace, action_id: object) -> str:
    """The text of ``action_id`` for ``State.apply_action`` (an unknown id is an illegal action)."""
    try:
        return space.to_string(action_id)
    except ActionSpaceError as e:
        raise IllegalActionError(str(e)) from None
