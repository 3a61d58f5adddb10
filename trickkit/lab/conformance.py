"""The engine's invariants, checked with hypothesis on any ruleset: ``trickkit test`` and an author's tests.

A rule author's ``test_my_game.py`` is three lines::

    from trickkit.lab.conformance import check_ruleset

    def test_my_game():
        check_ruleset("my_game.yaml")

`check_ruleset` plays many random games (hypothesis draws the seat count, the shuffle seed
and the seed of the random choices among the legal actions) and checks, at every decision, the invariants
every ruleset must keep (`CHECKS`):

- ``termination``: a seat always has a legal action until the game ends, and it ends within
  ``max_actions`` actions, with a score per seat and at least one winner;
- ``conservation``: every card of the deck is in exactly one place (a zone or the trick);
- ``illegal_actions``: texts that are not legal now (garbage, other cards, actions legal
  earlier) raise `trickkit.IllegalActionError` and leave the state exactly as it was;
- ``determinism``: the same seed and the same actions give the same game;
- ``clone``: a clone plays on without changing the original, and like it;
- ``json_round_trip``: ``game.state_from_json(state.to_json())`` is the same state;
- ``hidden_information``: swapping cards a seat cannot see leaves its observation, its
  observation tensor (if the state has one), and its view of the actions unchanged; a zone
  shows its cards exactly as its ``visibility`` says.

A failure is made smaller by `shrink` (a counted number of replays) and reported as an `InvariantError`
naming the check, the seat count, parameters, seed and the actions up to the failure,
with a ``trickkit test ... --replay JSON`` command that replays exactly that game (see
`GameCase`, `replay_case`).

hypothesis is needed at run time (it draws and shrinks the games): it is in the ``test``
extra, ``pip install "trickkit[test]"``. Without it `check_ruleset` raises
`MissingHypothesis` saying so; `replay_case` does not need it.
"""

from __future__ import annotations

import functools
import json
import os
import random
import shlex
from collections import Counter
from typing import Any, Callable, Iterator, Sequence

import attrs

from trickkit.errors import IllegalActionError, TrickkitError

__all__ = [
    "CHECKS",
    "GameCase",
    "InvariantError",
    "MissingHypothesis",
    "check_ruleset",
    "ruleset_tests",
    "replay_case",
    "run_check",
    "check_one",
    "shrink",
    "IndexChooser",
]

CHECKS = (
    "termination",
    "conservation",
    "illegal_actions",
    "determinism",
    "clone",
    "json_round_trip",
    "hidden_information",
)
"""The names of the checks, in the order `check_ruleset` runs them."""

GARBAGE = (
    "",
    "   ",
    "fly away",
    "play",
    "play ZZ99",
    "bid",
    "bid -1",
    "bid 9999",
    "pass",
    "take",
    "stop now please",
    "play " + "x" * 300,
)
"""Action texts no ruleset should accept (each is tried only where it is not legal)."""

DEFAULT_EXAMPLES = 20
"""Games per check by default (hypothesis examples)."""

PER_GAME = 12
"""Most states of one game at which the costlier checks (illegal texts, clones, JSON round
trips, swapped hidden cards) look closely: every state is checked for the cheap invariants,
a random tenth or so for these, up to this many (so a long game costs no more than a short one)."""


class MissingHypothesis(TrickkitError, ImportError):
    """`check_ruleset` needs hypothesis, which is not installed (``pip install "trickkit[test]"``)."""


# ---------------------------------------------------------------- a replayable game
@attrs.frozen
class GameCase:
    """One replayable game: what a failure report gives, what ``--replay`` reads.

    Attributes:
        ruleset: the ruleset as given (a shipped name or a path).
        players: the seat count.
        params: parameter values passed to `trickkit.load_game`.
        seed: the shuffle seed of ``new_initial_state``.
        actions: the action texts, in order (the last one may be the one that failed).
        check: the check that failed (one of `CHECKS`), or ``""``.
    """

    ruleset: str
    players: int
    params: dict = attrs.field(factory=dict)
    seed: int = 0
    actions: tuple = ()
    check: str = ""

    def to_json(self) -> str:
        """The case as one line of JSON (``"format": "trickkit-test-case"``)."""
        return json.dumps(
            {
                "format": "trickkit-test-case",
                "ruleset": self.ruleset,
                "players": self.players,
                "params": self.params,
                "seed": self.seed,
                "check": self.check,
                "actions": list(self.actions),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> "GameCase":
        """Read a case written by `to_json`.

        Raises:
            ValueError: the text is not such a case.
        """
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ValueError(f"a test case is JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != "trickkit-test-case":
            raise ValueError("not a trickkit test case (missing 'format': 'trickkit-test-case')")
        actions = data.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ValueError("a test case's 'actions' is a list of action texts")
        seed, players = data.get("seed", 0), data.get("players")
        if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(players, int):
            raise ValueError("a test case needs an integer 'seed' and 'players'")
        if not isinstance(data.get("params", {}), dict) or not isinstance(data.get("ruleset", ""), str):
            raise ValueError("a test case's 'params' is a mapping and its 'ruleset' a text")
        return cls(
            data.get("ruleset", ""),
            players,
            dict(data.get("params", {})),
            seed,
            tuple(actions),
            str(data.get("check", "")),
        )


class InvariantError(AssertionError):
    """An invariant failed on a game; ``str()`` says which, on what game, and how to replay it.

    Attributes:
        check: the check's name (one of `CHECKS`).
        message: what went wrong, e.g. ``card B3 is in two places``.
        case: the `GameCase` that shows it (its actions end where it went wrong).
    """

    def __init__(self, check: str, message: str, case: GameCase):
        self.check, self.message, self.case = check, message, case
        super().__init__(self._text())

    def _text(self) -> str:
        c = self.case
        params = "".join(f" --param {shlex.quote(f'{k}={v}')}" for k, v in sorted(c.params.items()))
        shown = ", ".join(repr(a) for a in c.actions[:40]) + (", ..." if len(c.actions) > 40 else "")
        return (
            f"{self.check} failed: {self.message}\n"
            f"  game: {c.ruleset}, {c.players} players{', params ' + repr(c.params) if c.params else ''}, "
            f"seed {c.seed}\n"
            f"  actions ({len(c.actions)}): [{shown}]\n"
            f"  replay: trickkit test {shlex.quote(c.ruleset)} --players {c.players}{params} "
            f"--replay {shlex.quote(c.to_json())}"
        )


# ---------------------------------------------------------------- one run of one check
class _Run:
    """One game played for one check: the chooser of actions, and the failure report."""

    def __init__(
        self,
        check: str,
        game,
        ruleset: str,
        params: dict,
        seed: int,
        chooser: Callable[[Any, list], Any],
        max_actions: int,
    ):
        self.check, self.game, self.ruleset, self.params, self.seed = check, game, ruleset, params, seed
        self.chooser, self.max_actions = chooser, max_actions
        self.exhausted = False  # a replay ran out of recorded actions before the game ended

    def fail(self, message: str, state=None, action=None, history=None):
        actions = list(history if history is not None else state.history() if state is not None else [])
        if action is not None:
            actions.append(str(action))
        raise InvariantError(
            self.check,
            message,
            GameCase(self.ruleset, self.game.num_players, dict(self.params), self.seed, tuple(actions), self.check),
        )

    def extra(self, state, salt: str = "") -> random.Random:
        """A generator for the check's own random picks at this point of the game: it depends only
        on the seed and the number of actions so far, so a replayed game repeats them."""
        return random.Random(f"trickkit-testing:{self.seed}:{len(state._history)}:{salt}")

    def new_state(self):
        return self.guard(lambda: self.game.new_initial_state(seed=self.seed), None, "setting up the game")

    def guard(self, fn, state, what: str, action=None):
        """``fn()``; an error of the rules (or a raw exception) is a failure of this check."""
        try:
            return fn()
        except InvariantError:
            raise
        except TrickkitError as e:
            self.fail(f"{what}: {type(e).__name__}: {e}", state, action)
        except Exception as e:  # a raw Python exception must never escape the engine
            self.fail(f"{what}: a raw Python exception escaped: {type(e).__name__}: {e}", state, action)

    def legal(self, state) -> list:
        return self.guard(state.legal_actions, state, "asking for the legal actions")

    def apply(self, state, action) -> None:
        self.guard(lambda: state.apply_action(action), state, f"applying {str(action)!r}", action)

    def choose(self, state, legal):
        action = self.chooser(state, legal)
        if action is None:
            self.exhausted = True
        return action

    def play(self, state) -> Iterator[tuple[Any, Any]]:
        """Play the game to its end; yield ``(state, action)`` before each action is applied."""
        while not self.guard(state.is_terminal, state, "asking whether the game is over"):
            if len(state._history) >= self.max_actions:
                self.fail(
                    f"the game did not end within max_actions={self.max_actions} actions (a ruleset that never ends?)",
                    state,
                )
            legal = self.legal(state)
            if not legal:
                self.fail("no legal action, yet the game is not over", state)
            action = self.choose(state, legal)
            if action is None:
                return
            if isinstance(action, str):  # a replayed text: the legal action it names
                text, action = action, next((a for a in legal if a.text == action), None)
                if action is None:
                    self.apply(state, text)  # not legal: reported as such
                    return
            yield state, action
            self.apply(state, action)


# ---------------------------------------------------------------- the checks
def _termination(run: _Run) -> None:
    game = run.game
    n = game.num_players
    state = run.new_state()
    for s, _ in run.play(state):
        seat = s.current_player()
        if not (isinstance(seat, int) and 0 <= seat < n):
            run.fail(f"current_player() is {seat!r} in a game that is not over", s)
    if run.exhausted:
        return
    if state.legal_actions() != []:
        run.fail("a finished game still offers legal actions", state)
    from trickkit.engine.state import TERMINAL

    if state.current_player() != TERMINAL:
        run.fail(f"a finished game's current_player() is {state.current_player()}, not TERMINAL", state)
    scores = run.guard(state.scores, state, "scoring the finished game")
    if len(scores) != n:
        run.fail(f"scores() gives {len(scores)} values for {n} seats", state)
    winners = run.guard(state.winners, state, "naming the winners")
    if not winners or not set(winners) <= set(range(n)):
        run.fail(f"winners() is {winners!r}", state)
    teams = getattr(game, "teams", None)
    if teams is not None and hasattr(state, "team_scores"):  # winners are whole teams, the best by team score
        if sorted(s for team in teams for s in team) != list(range(n)):
            run.fail(f"the teams {teams!r} do not hold every seat once", state)
        team_scores = run.guard(state.team_scores, state, "scoring the teams")
        best = max(team_scores) if game.rules.winners_highest else min(team_scores)
        if winners != sorted(s for t, team in enumerate(teams) if team_scores[t] == best for s in team):
            run.fail(f"winners() {winners} are not the best team(s) by team_scores() {team_scores}", state)


def card_places(state) -> list[int]:
    """Every card id the state holds, zone by zone and in the trick (each card once, if conserved)."""
    ids = [c for zone in state.seat_zones for hand in zone for c in hand]
    ids += [c for zone in state.table_zones for c in zone]
    ids += [p[1] for p in state.trick]
    return ids


def _conservation(run: _Run) -> None:
    texts = run.game.cards
    everything = list(range(len(texts)))

    def check(s):
        ids = card_places(s)
        if sorted(ids) != everything:
            twice = sorted(texts[c] for c, k in Counter(ids).items() if k > 1)
            missing = sorted(texts[c] for c in set(everything) - set(ids))
            unknown = sorted({c for c in ids if not 0 <= c < len(texts)})
            run.fail(
                "cards are not conserved: "
                + "; ".join(
                    part
                    for part in (
                        f"in two places or more: {twice}" if twice else "",
                        f"missing: {missing}" if missing else "",
                        f"not cards of the deck: {unknown}" if unknown else "",
                    )
                    if part
                ),
                s,
            )

    state = run.new_state()
    check(state)
    for s, _ in run.play(state):
        check(s)
    check(state)


def _play_texts(game) -> list[str]:
    deck = game.rules.deck
    return sorted({f"play {deck.face_texts[f]}" for faces in deck.card_faces for f in faces})


def _refuses(run: _Run, s, text: str, legal: set) -> None:
    before, before_obs, history = s.to_json(), s.observation_all(), s.history()
    try:
        s.apply_action(text)
    except IllegalActionError:
        pass
    except Exception as e:
        run.fail(
            f"the illegal action {text[:80]!r} raised {type(e).__name__} ({e}), not IllegalActionError", history=history
        )
    else:
        run.fail(
            f"the action {text[:80]!r}, not among the legal actions {sorted(legal)[:20]}, was accepted",
            action=text,
            history=history,
        )
    if s.to_json() != before or s.observation_all() != before_obs:
        run.fail(f"refusing the illegal action {text[:80]!r} changed the state", history=history)
    if {a.text for a in s.legal_actions()} != legal:
        run.fail(f"refusing the illegal action {text[:80]!r} changed the legal actions", s)


def _held_by_others(s) -> list[str]:
    """``play`` texts of the cards in other seats' ``owner`` zones."""
    deck, me = s.rules.deck, s.current_player()
    return sorted(
        {
            f"play {deck.face_texts[f]}"
            for z in s.rules.seat_zones
            if z.visibility == "owner"
            for q, cards in enumerate(s.seat_zones[z.index])
            if q != me
            for c in cards
            for f in deck.card_faces[c]
        }
    )


def _illegal_actions(run: _Run) -> None:
    every_play = _play_texts(run.game)
    seen: set[str] = set()  # texts legal in some earlier state
    tried = 0
    state = run.new_state()
    for s, _ in run.play(state):
        legal = {a.text for a in s._legal or s.legal_actions()}
        seen |= legal
        rng = run.extra(s, "illegal")
        if len(s._history) and (rng.random() > 0.1 or tried >= PER_GAME):
            continue
        tried += 1
        others = [t for t in every_play if t not in legal]
        earlier = sorted(seen - legal)
        held = _held_by_others(s)  # cards in other seats' hands: legal for them, maybe, not here
        candidates = (
            [t for t in GARBAGE if t not in legal]
            + rng.sample(others, min(4, len(others)))
            + rng.sample(earlier, min(4, len(earlier)))
            + [t for t in rng.sample(held, min(4, len(held))) if t not in legal]
        )
        for text in candidates:
            _refuses(run, s, text, legal)
    if run.exhausted:
        return
    for text in list(GARBAGE) + sorted(seen)[:5] + every_play[:3]:
        _refuses(run, state, text, set())


def _determinism(run: _Run) -> None:
    a = run.new_state()
    b = run.new_state()
    if a.observation_all() != b.observation_all() or a.to_json() != b.to_json():
        run.fail("two states made from the same seed differ before any action", a)
    for s, action in run.play(a):
        if [x.text for x in run.legal(b)] != [x.text for x in s.legal_actions()]:
            run.fail("the same seed and actions give other legal actions", s)
        run.apply(b, str(action))
    for what, x, y in (
        ("histories", a.history(), b.history()),
        ("scores", a.scores(), b.scores()),
        ("winners", a.winners() if a.is_terminal() else None, b.winners() if b.is_terminal() else None),
        ("terminal", a.is_terminal(), b.is_terminal()),
        ("observations", a.observation_all(), b.observation_all()),
        ("records", a.to_json(), b.to_json()),
    ):
        if x != y:
            run.fail(f"the same seed and actions give other {what}: {str(x)[:200]} and {str(y)[:200]}", a)


def _clone(run: _Run) -> None:
    state = run.new_state()
    pending = None  # (an unplayed clone, its record) made before the original's last action
    tried = 0
    for s, _ in run.play(state):
        if pending is not None:
            twin, record = pending
            if twin.to_json() != record:
                run.fail("playing the original changed a clone made before", s)
            pending = None
        rng = run.extra(s, "clone")
        if len(s._history) and (rng.random() > 0.03 or tried >= PER_GAME):
            continue
        tried += 1
        before, before_obs = s.to_json(), s.observation_all()
        before_legal = [a.text for a in s.legal_actions()]
        clone = s.clone()
        if clone.to_json() != before or clone.observation_all() != before_obs:
            run.fail("a clone differs from its original", s)
        played = []
        for _ in range(12):  # the clone plays on a little, by the check's own choices
            if clone.is_terminal():
                break
            action = rng.choice(run.guard(clone.legal_actions, clone, "a clone's legal actions"))
            run.guard(lambda: clone.apply_action(action), clone, f"a clone applying {action.text!r}")
            played.append(action.text)
        if (
            s.to_json() != before
            or s.observation_all() != before_obs
            or [a.text for a in s.legal_actions()] != before_legal
        ):
            run.fail(f"playing a clone ({played[:5]}...) changed the original", s)
        other = s.clone()
        for text in played:
            run.guard(lambda: other.apply_action(text), other, f"a second clone applying {text!r}")
        if other.to_json() != clone.to_json() or other.observation_all() != clone.observation_all():
            run.fail(f"two clones given the same actions {played[:5]}... differ", s)
        pending = (s.clone(), before)


def _json_ready(run: _Run, s, obs, seat) -> None:
    try:
        again = json.loads(json.dumps(obs))
    except (TypeError, ValueError) as e:
        run.fail(f"observation({seat}) is not JSON-ready: {e}", s)
    if again != obs:
        run.fail(f"observation({seat}) does not survive a JSON round trip", s)


def _json_round_trip(run: _Run) -> None:
    game = run.game

    def check(s):
        text = s.to_json()
        restored = run.guard(lambda: game.state_from_json(text), s, "state_from_json(to_json())")
        for what, x, y in (
            ("record", restored.to_json(), text),
            ("legal actions", [a.text for a in restored.legal_actions()], [a.text for a in s.legal_actions()]),
            ("current player", restored.current_player(), s.current_player()),
            ("terminal", restored.is_terminal(), s.is_terminal()),
            ("scores", restored.scores(), s.scores()),
            ("observation_all", restored.observation_all(), s.observation_all()),
        ):
            if x != y:
                run.fail(f"the state read back from its JSON has another {what}", s)
        for p in range(game.num_players):
            obs = s.observation(p)
            _json_ready(run, s, obs, p)
            if restored.observation(p) != obs:
                run.fail(f"the state read back from its JSON shows seat {p} something else", s)
        return restored

    state = run.new_state()
    check(state)
    tried = 0
    for s, action in run.play(state):
        if len(s._history) and (run.extra(s, "json").random() > 0.03 or tried >= PER_GAME // 2):
            continue
        tried += 1
        restored = check(s)
        run.guard(lambda: restored.apply_action(str(action)), s, f"the restored state applying {str(action)!r}", action)
        twin = s.clone()
        twin.apply_action(str(action))
        if restored.to_json() != twin.to_json() or restored.observation_all() != twin.observation_all():
            run.fail(f"the state read back from its JSON plays {str(action)!r} differently", s, action)
    if not run.exhausted:
        check(state)


# ---------------------------------------------------------------- hidden information
def visible_cards(state, seat: int) -> set[str]:
    """Texts of the cards ``seat`` sees now: in zones, on top of stacks, in the trick."""
    obs = state.observation(seat)
    seen = {p["card"].split(":")[0] for p in obs["trick"]}
    for view in obs["zones"].values():
        for v in view if isinstance(view, list) else [view]:
            seen.update(v.get("cards", ()))
            if v.get("top"):
                seen.add(v["top"])
    return seen


def hidden_places(state, seat: int) -> list[tuple[list, int]]:
    """``(cards, stop)`` for every place whose cards ``seat`` cannot see: the first ``stop`` cards of
    ``cards`` (a zone's list in ``state``) are hidden from it. These are other seats' ``owner`` zones,
    every ``hidden`` zone, and every card under the top of a ``top`` zone, unless ``public_when``
    lays the zone open."""
    rules = state.rules
    places = []
    secret = secret_zone(state)
    for z in rules.seat_zones:
        if z.index == secret:  # cards other seats chose in secret, not revealed yet
            places += [(cards, len(cards)) for q, cards in enumerate(state.seat_zones[z.index]) if q != seat]
            continue
        if z.visibility == "public" or (z.public_when is not None and z.public_when(state)):
            continue
        for q, cards in enumerate(state.seat_zones[z.index]):
            if z.visibility == "top":
                places.append((cards, len(cards) - 1))
            elif q != seat or z.visibility == "hidden":
                places.append((cards, len(cards)))
    for z in rules.table_zones:
        if z.visibility in ("public", "owner") or (z.public_when is not None and z.public_when(state)):
            continue
        for i in range(max(z.count, 1)):
            cards = state.table_zones[z.index + i]
            places.append((cards, len(cards) - 1 if z.visibility == "top" else len(cards)))
    return [(cards, stop) for cards, stop in places if stop > 0]


def _hidden_slots(state, seat: int) -> list[tuple[list, int]]:
    """``(cards, position)`` of every card ``seat`` cannot see."""
    return [(cards, i) for cards, stop in hidden_places(state, seat) for i in range(stop)]


def _zone_lists(state) -> list[list]:
    return [hand for zone in state.seat_zones for hand in zone] + list(state.table_zones)


def _rearranged(state, slots, cards) -> Any:
    """A clone of ``state`` whose ``slots`` (of ``state``) hold ``cards`` instead."""
    where = {id(z): i for i, z in enumerate(_zone_lists(state))}
    other = state.clone()
    zones = _zone_lists(other)
    for (place, i), c in zip(slots, cards):
        zones[where[id(place)]][i] = c
    other._legal = None
    return other


def _tensor(state, seat):
    fn = getattr(state, "observation_tensor", None)
    if fn is None:
        return None
    try:
        t = fn(seat)
    except ImportError:  # an optional extra (numpy) that is not installed
        return None
    return t.tolist() if hasattr(t, "tolist") else list(t)


def secret_zone(state) -> int:
    """The seat zone a running simultaneous ``choose`` step chooses into (-1 if none): until
    every seat has chosen, other seats see only its count."""
    if state.is_terminal():
        return -1
    step = state.rules.steps[state.step]
    return step.to.index if step.kind == "choose" and getattr(step, "simultaneous", False) else -1


def _zone_views(run: _Run, s) -> None:
    """Each zone shows exactly what its visibility says, to every seat."""
    game, n, texts = run.game, run.game.num_players, run.game.cards
    secret = secret_zone(s)
    for p in range(n):
        obs = s.observation(p)
        if (
            obs.get("seat") != p
            or obs.get("terminal") != s.is_terminal()
            or obs.get("current_player") != s.current_player()
        ):
            run.fail(f"observation({p}) misreports its seat, the current player or the end of the game", s)
        for z in game.rules.seat_zones:
            view = obs["zones"][z.name]
            opened = z.public_when is not None and z.public_when(s)
            for q in range(n):
                cards = [texts[c] for c in s.seat_zones[z.index][q]]
                if view[q].get("count") != len(cards):
                    run.fail(f"seat {p} is shown a wrong count of {z.name} of seat {q}", s)
                if z.index == secret and q != p:  # chosen in secret, not revealed yet
                    if set(view[q]) != {"count"}:
                        run.fail(f"seat {p} sees seat {q}'s {z.name} before the reveal", s)
                elif z.visibility == "public" or opened or (z.visibility == "owner" and q == p):
                    if view[q].get("cards") != cards:
                        run.fail(f"seat {p} is not shown {z.name} of seat {q} as it is", s)
                elif z.visibility in ("owner", "hidden") and set(view[q]) != {"count"}:
                    run.fail(f"seat {p} sees {z.name} of seat {q} ({z.visibility}): {view[q]}", s)
        for z in game.rules.table_zones:
            opened = z.public_when is not None and z.public_when(s)
            for i in range(z.count) if z.count else [None]:
                view = obs["zones"][z.name] if i is None else obs["zones"][z.name][i]
                cards = [texts[c] for c in s.table_zones[z.index + (i or 0)]]
                if view.get("count") != len(cards):
                    run.fail(f"seat {p} is shown a wrong count of table zone {z.name}", s)
                if opened:
                    continue
                if z.visibility == "hidden" and set(view) != {"count"}:
                    run.fail(f"seat {p} sees the hidden table zone {z.name}: {view}", s)
                if z.visibility == "top" and (
                    set(view) != {"count", "top"} or view["top"] != (cards[-1] if cards else None)
                ):
                    run.fail(f"seat {p} is shown more (or less) than the top card of {z.name}: {view}", s)


def _signature(game, action, state) -> tuple:
    """An action of ``state``'s step with the texts of the cards it names (copies are one card)."""
    texts = game.cards
    if action.face >= 0 and action.verb == "play":
        return ("play", game.rules.deck.face_texts[action.face])
    kind = _kind_of(game, action, state)
    if kind is None:
        return (action.text,)
    return (action.verb,) + tuple(
        texts[x] if t == "card" and x is not None else x for t, x in zip(kind.choice_types, action.choices)
    )


def _kind_of(game, action, state):
    """The action kind (of the current turns step or reaction window) ``action`` is of, or None."""
    step = game.rules.steps[state.step]
    if step.kind != "turns":
        return None
    kinds = step.windows[state.window].kinds if state.window >= 0 else step.kinds
    return next((k for k in kinds if k.name == action.verb and len(k.choice_types) == len(action.choices)), None)


def _swap(state, a: tuple[list, int], b: tuple[list, int]):
    """A clone of ``state`` with the cards at slots ``a`` and ``b`` (of ``state``) exchanged."""
    return _rearranged(state, [a, b], [b[0][b[1]], a[0][a[1]]])


def _hidden_information(run: _Run) -> None:
    game = run.game
    n, texts = game.num_players, game.cards
    recalled = [set() for _ in range(n)]  # every card each seat has seen so far (perfect recall)
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
        if run.guard(lambda: other.observation(p), s, "observing a swapped state") != s.observation(p):
            diff = _first_difference(s.observation(p), other.observation(p))
            run.fail(
                f"seat {p}'s observation changes when cards it cannot see are swapped ({diff}): "
                f"it shows hidden information",
                s,
            )
        if _tensor(other, p) != _tensor(s, p):
            run.fail(f"seat {p}'s observation tensor changes when cards it cannot see are swapped", s)
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


def _first_deal(game):
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
    hands = [[texts[c] for c in hand] for hand in base.seat_zones[step.to.index]]
    rng = run.extra(base, "deal-swap")
    p = rng.randrange(n)
    # the cards p sees at any point of the first round of the original game (a card played to a
    # trick is played face up: everyone sees it, even when the trick goes face down at once)
    original = game.new_initial_state(seed=run.seed, deals=[hands])
    seen, states = set(), []  # (state, the action applied to it next, cards p saw so far)
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


def _shows_after(run: _Run, s, action, seat: int) -> set[str]:
    """The cards ``seat`` sees once ``action`` is done; when it ends the round (the next deal
    gathers every card), what it sees just after the action's effect."""
    after = s.clone()
    run.guard(lambda: after.apply_action(action), s, f"applying {action.text!r} to a copy", action)
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


def sorted_hand(game, hand: Sequence[str]) -> list[str]:
    """A hand's card texts in deck order (the order a deal leaves it in)."""
    order = {t: i for i, t in reversed(list(enumerate(game.cards)))}
    return sorted(hand, key=order.__getitem__)


def _mapped(signature: tuple, mapping: dict) -> tuple:
    out = [signature[0]]
    for x in signature[1:]:
        if isinstance(x, str):
            card, sep, mode = x.partition(":")
            x = mapping.get(card, card) + sep + mode if card in mapping else mapping.get(x, x)
        out.append(x)
    return tuple(out)


def _first_difference(a, b, path="") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b or a[k] != b[k]:
                return _first_difference(a[k], b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or 'the observation'}: {str(a)[:80]} then {str(b)[:80]}"


def _check_action_view(run: _Run, s, action, actor: int, recalled, texts) -> None:
    """Seats other than ``actor`` must see ``action`` as they would see its twin with any card they
    never saw (and do not see afterwards) exchanged for another such card."""
    game = run.game
    n = game.num_players
    if action.face >= 0:  # a card played to a trick is played face up: everyone sees it
        return
    sig = _signature(game, action, s)
    named = [x for x in sig[1:] if isinstance(x, str) and x in game.rules.deck.by_text]
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
                run.guard(lambda: after.apply_action(action), s, f"applying {action.text!r} to a copy", action)
            if after.is_terminal() or card in visible_cards(after, viewer):
                continue  # the card shows once the action is done: naming it tells nothing more
            if after.round != s.round:  # the action ended the round and the next deal gathered the
                if moment is None:  # cards: judge by what it showed just after its effect
                    kind = _kind_of(game, action, s)
                    moment = s.clone()
                    if kind is not None:
                        run.guard(lambda: kind.effect(moment, *action.choices), s, "running an action's effect")
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


_CHECK_FUNCTIONS: dict[str, Callable[[_Run], None]] = {
    "termination": _termination,
    "conservation": _conservation,
    "illegal_actions": _illegal_actions,
    "determinism": _determinism,
    "clone": _clone,
    "json_round_trip": _json_round_trip,
    "hidden_information": _hidden_information,
}


# ---------------------------------------------------------------- running checks
def run_check(
    check: str,
    game,
    seed: int,
    chooser: Callable[[Any, list], Any],
    *,
    ruleset: str | None = None,
    params: dict | None = None,
    max_actions: int | None = None,
) -> None:
    """Play one game of ``game`` and check one invariant at every decision.

    Args:
        check: one of `CHECKS`.
        game: a loaded `trickkit.Game`.
        seed: the shuffle seed.
        chooser: ``chooser(state, legal_actions) -> action`` picks each action; returning None
            stops the game there (a replay that ran out of actions).
        ruleset: how to name the ruleset in a report (default ``game.path``).
        params: the parameters the game was loaded with, for the report.
        max_actions: a game longer than this fails (default the ruleset's ``max_actions``).

    Raises:
        InvariantError: the invariant does not hold; its `GameCase` replays the game.
        ValueError: ``check`` is not one of `CHECKS`.
    """
    if check not in _CHECK_FUNCTIONS:
        raise ValueError(f"unknown check {check!r} (checks: {', '.join(CHECKS)})")
    limit = game.rules.max_actions if max_actions is None else min(max_actions, game.rules.max_actions)
    _CHECK_FUNCTIONS[check](_Run(check, game, ruleset or game.path, dict(params or {}), seed, chooser, limit))


def replay_case(case: GameCase | str, game=None) -> None:
    """Replay a reported game (a `GameCase` or its JSON) and run its check on it again.

    Args:
        case: the case, e.g. the JSON printed after ``replay:`` in a failure report.
        game: the game to play (default: load ``case.ruleset`` with its players and params).

    Raises:
        InvariantError: the check still fails on that game.
        ValueError: the case is malformed or names no check.
        trickkit.RulesetError: the ruleset does not load.
    """
    from trickkit.engine.loader import load_game

    if isinstance(case, str):
        case = GameCase.from_json(case)
    if game is None:
        game = load_game(case.ruleset, players=case.players, **case.params)
    actions = list(case.actions)

    def chooser(state, legal):
        if not actions:
            return None
        return actions.pop(0)

    run_check(case.check, game, case.seed, chooser, ruleset=case.ruleset, params=case.params)


def _hypothesis():
    try:
        import hypothesis
        from hypothesis import strategies
    except ImportError:
        raise MissingHypothesis(
            "trickkit.lab.conformance needs hypothesis, which is not installed: "
            'pip install "trickkit[test]" (or pip install hypothesis)'
        ) from None
    return hypothesis, strategies


def check_ruleset(
    ruleset: str | os.PathLike,
    players: int | None = None,
    params: dict | None = None,
    *,
    checks: Sequence[str] | None = None,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    max_actions: int | None = None,
) -> None:
    """Check the engine's invariants (`CHECKS`) on a ruleset with hypothesis.

    Args:
        ruleset: a shipped game name or a ruleset path. A relative path that does not exist
            from the working directory is looked up beside the calling test file.
        players: the seat count; default: every count the ruleset allows (hypothesis picks).
        params: parameter values, as for `trickkit.load_game`.
        checks: which checks to run (default all of `CHECKS`, in that order).
        examples: random games per check (hypothesis examples).
        seed: makes the run repeatable (hypothesis' seed); default a fresh random run.
        max_actions: a game longer than this fails (default the ruleset's ``max_actions``).

    Raises:
        InvariantError: the first check that fails, with the smallest failing game found
            (seat count, seed, actions) and a command that replays it.
        MissingHypothesis: hypothesis is not installed.
        trickkit.RulesetError: the ruleset does not load.
        ValueError: an unknown check name.
    """
    for check in checks or CHECKS:
        if check not in _CHECK_FUNCTIONS:
            raise ValueError(f"unknown check {check!r} (checks: {', '.join(CHECKS)})")
    for check in checks or CHECKS:
        check_one(
            ruleset, check, players, params, examples=examples, seed=seed, max_actions=max_actions, _caller_depth=2
        )


def _resolve(ruleset, depth: int) -> str:
    """``ruleset`` as given, or beside the calling file when it is a relative path not found here."""
    import inspect

    text = os.fspath(ruleset)
    if os.path.isabs(text) or os.path.exists(text) or not (text.endswith((".yaml", ".yml")) or os.sep in text):
        return text
    frame = inspect.currentframe()
    for _ in range(depth + 1):
        frame = frame.f_back if frame is not None else None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("trickkit.lab.conformance"):
        frame = frame.f_back
    caller = frame.f_globals.get("__file__") if frame is not None else None
    if caller:
        beside = os.path.join(os.path.dirname(os.path.abspath(caller)), text)
        if os.path.exists(beside):
            return beside
    return text


def check_one(
    ruleset: str | os.PathLike,
    check: str,
    players: int | None = None,
    params: dict | None = None,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int | None = None,
    max_actions: int | None = None,
    _caller_depth: int = 1,
) -> None:
    """Run one check of `CHECKS` on a ruleset with hypothesis (see `check_ruleset`).

    Raises:
        InvariantError: the check fails (on the smallest failing game found).
        MissingHypothesis: hypothesis is not installed.
        trickkit.RulesetError: the ruleset does not load.
    """
    from trickkit.engine.loader import game_info

    hypothesis, st = _hypothesis()
    ruleset = _resolve(ruleset, _caller_depth)
    params = dict(params or {})
    info = game_info(ruleset)
    games: dict[int, Any] = {}

    def game_for(n: int):
        if n not in games:
            key = tuple(sorted(params.items()))
            try:
                hash(key)
            except TypeError:  # a parameter value that cannot be a cache key: load it afresh
                return _load.__wrapped__(os.fspath(ruleset), n, key, ())
            games[n] = _load(os.fspath(ruleset), n, key, _stamp(ruleset))
        return games[n]

    if players is not None:
        game_for(players)  # a bad seat count or parameter fails here, not inside hypothesis
        counts = st.just(players)
    else:
        game_for(info.players_default)
        counts = st.integers(info.players_min, info.players_max)

    found: list[tuple[InvariantError, int, int, list[int]]] = []

    @hypothesis.settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(hypothesis.HealthCheck),
        report_multiple_bugs=False,
        verbosity=hypothesis.Verbosity.quiet,
        print_blob=False,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.generate],
    )
    # hypothesis draws the seat count, the shuffle seed and the seed of the choices; its own
    # shrinking is off (a draw per decision costs more than the decision): `shrink` does it
    @hypothesis.given(counts, st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
    def run(n, game_seed, choice_seed):
        chooser = IndexChooser(rng=random.Random(choice_seed))
        try:
            run_check(
                check,
                game_for(n),
                game_seed,
                chooser,
                ruleset=os.fspath(ruleset),
                params=params,
                max_actions=max_actions,
            )
        except InvariantError as e:
            found.append((e, n, game_seed, chooser.taken))
            raise

    if seed is not None:
        run = hypothesis.seed(seed)(run)
    try:
        run()
    except InvariantError:
        pass
    if found:
        error, n, game_seed, taken = found[0]
        raise shrink(
            error,
            check,
            game_for,
            n,
            game_seed,
            taken,
            lo=info.players_min if players is None else n,
            ruleset=os.fspath(ruleset),
            params=params,
            max_actions=max_actions,
        ) from None


def _stamp(ruleset) -> tuple:
    """What tells one version of a ruleset file from the next (for the cache of loaded games)."""
    try:
        st = os.stat(ruleset)
    except (OSError, ValueError):
        return ()
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=32)
def _load(ruleset: str, players: int, params: tuple, stamp: tuple):
    """A loaded game, kept while its file is unchanged: every check (and every test calling
    `check_ruleset`) of one ruleset shares it."""
    from trickkit.engine.loader import load_game

    return load_game(ruleset, players=players, **dict(params))


class IndexChooser:
    """Picks each action by index into the legal actions: from ``indices`` while they last (modulo
    the number of legal actions), then from ``rng``, or the first legal action without one.
    ``taken`` records the index of every action picked."""

    def __init__(self, indices: Sequence[int] = (), rng: random.Random | None = None):
        self.indices, self.rng, self.taken = list(indices), rng, []

    def __call__(self, state, legal):
        k = len(self.taken)
        if k < len(self.indices):
            i = self.indices[k] % len(legal)
        elif self.rng is not None:
            i = self.rng.randrange(len(legal))
        else:
            i = 0
        self.taken.append(i)
        return legal[i]


SHRINK_BUDGET = 60
"""Most games `shrink` replays to make a failing game smaller (a counted limit)."""


def shrink(
    error: InvariantError,
    check: str,
    game_for,
    n: int,
    seed: int,
    taken: Sequence[int],
    *,
    lo: int,
    ruleset: str,
    params: dict,
    max_actions: int | None = None,
    budget: int = SHRINK_BUDGET,
) -> InvariantError:
    """A smaller failing game than ``error``'s, found in at most ``budget`` replays.

    Tries, in order: fewer seats with the first legal action every time (seeds 0-2 and the
    failing seed); the failing seat count and seed with the first legal action every time;
    then sets runs of the failing game's choices to the first legal action, halving the runs.
    Keeps the failure with the fewest actions (of the same check).
    """
    best, best_taken = error, list(taken)
    tries = [0]

    def attempt(players: int, game_seed: int, indices: Sequence[int]) -> bool:
        nonlocal best, best_taken
        if tries[0] >= budget:
            return False
        tries[0] += 1
        chooser = IndexChooser(indices)  # after the indices: the first legal action
        try:
            run_check(
                check, game_for(players), game_seed, chooser, ruleset=ruleset, params=params, max_actions=max_actions
            )
        except InvariantError as e:
            smaller = (len(e.case.actions), players) < (len(best.case.actions), best.case.players)
            if smaller:
                best, best_taken = e, chooser.taken
            return smaller
        except TrickkitError:
            return False
        return False

    for players in range(lo, n + 1):
        for game_seed in dict.fromkeys((0, 1, 2, seed)):
            attempt(players, game_seed, ())
    players, game_seed = best.case.players, best.case.seed
    size = max(len(best_taken) // 2, 1)
    while size >= 1 and tries[0] < budget:
        start = 0
        while start < len(best_taken) and tries[0] < budget:
            candidate = list(best_taken)
            if any(candidate[start : start + size]):
                candidate[start : start + size] = [0] * len(candidate[start : start + size])
                if attempt(players, game_seed, candidate):
                    continue  # best_taken changed: try the same run again
            start += size
        size //= 2
    return InvariantError(best.check, best.message, best.case)


def ruleset_tests(
    ruleset: str | os.PathLike,
    players: int | None = None,
    params: dict | None = None,
    *,
    checks: Sequence[str] | None = None,
    examples: int = DEFAULT_EXAMPLES,
    max_actions: int | None = None,
) -> dict[str, Callable[[], None]]:
    """One pytest test function per check, to put in a test module's namespace::

        from trickkit.lab.conformance import ruleset_tests
        globals().update(ruleset_tests("my_game.yaml"))   # test_termination, test_conservation, ...

    pytest then reports each check on its own line.

    Returns:
        ``{"test_<check>": function}`` for each check.
    """
    path = _resolve(ruleset, 1)
    tests = {}
    for check in checks or CHECKS:

        def test(check=check) -> None:
            check_one(path, check, players, params, examples=examples, max_actions=max_actions)

        test.__name__ = test.__qualname__ = f"test_{check}"
        test.__doc__ = f"trickkit.lab.conformance: the {check} invariant holds on {os.fspath(ruleset)}."
        tests[test.__name__] = test
    return tests
