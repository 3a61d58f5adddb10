"""The checks on every state of a game: termination, conservation of cards, illegal actions,
determinism, clones and JSON round trips (hidden information is in `hidden`)."""

from __future__ import annotations

import functools
import json
from collections import Counter
from typing import Any

from trickkit.errors import IllegalActionError
from trickkit.lab.conformance.driver import _Run

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


PER_GAME = 12
"""Most states of one game at which the costlier checks (illegal texts, clones, JSON round
trips, swapped hidden cards) look closely: every state is checked for the cheap invariants,
a random tenth or so for these, up to this many (so a long game costs no more than a short one)."""


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


def card_places(state: Any) -> list[int]:
    """Every card id the state holds, zone by zone and in the trick (each card once, if conserved)."""
    ids = [c for zone in state.seat_zones for hand in zone for c in hand]
    ids += [c for zone in state.table_zones for c in zone]
    ids += [p[1] for p in state.trick]
    return ids


def _conservation(run: _Run) -> None:
    texts = run.game.cards
    everything = list(range(len(texts)))

    def check(s: Any) -> None:
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


def _play_texts(game: Any) -> list[str]:
    deck = game.rules.deck
    return sorted({f"play {deck.face_texts[f]}" for faces in deck.card_faces for f in faces})


def _refuses(run: _Run, s: Any, text: str, legal: set[str]) -> None:
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


def _held_by_others(s: Any) -> list[str]:
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
            run.guard(functools.partial(clone.apply_action, action), clone, f"a clone applying {action.text!r}")
            played.append(action.text)
        if (
            s.to_json() != before
            or s.observation_all() != before_obs
            or [a.text for a in s.legal_actions()] != before_legal
        ):
            run.fail(f"playing a clone ({played[:5]}...) changed the original", s)
        other = s.clone()
        for text in played:
            run.guard(functools.partial(other.apply_action, text), other, f"a second clone applying {text!r}")
        if other.to_json() != clone.to_json() or other.observation_all() != clone.observation_all():
            run.fail(f"two clones given the same actions {played[:5]}... differ", s)
        pending = (s.clone(), before)


def _json_ready(run: _Run, s: Any, obs: Any, seat: int) -> None:
    try:
        again = json.loads(json.dumps(obs))
    except (TypeError, ValueError) as e:
        run.fail(f"observation({seat}) is not JSON-ready: {e}", s)
    if again != obs:
        run.fail(f"observation({seat}) does not survive a JSON round trip", s)


def _json_round_trip(run: _Run) -> None:
    game = run.game

    def check(s: Any) -> Any:
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
        run.guard(
            functools.partial(restored.apply_action, str(action)),
            s,
            f"the restored state applying {str(action)!r}",
            action,
        )
        twin = s.clone()
        twin.apply_action(str(action))
        if restored.to_json() != twin.to_json() or restored.observation_all() != twin.observation_all():
            run.fail(f"the state read back from its JSON plays {str(action)!r} differently", s, action)
    if not run.exhausted:
        check(state)
