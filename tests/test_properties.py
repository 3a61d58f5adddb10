"""Property tests of the engine, run on EVERY shipped game (random seeds, seat counts, legal play).

Each test draws a seat count in the game's range, a shuffle seed and a seed for the random
choices of legal actions, plays a game and checks an invariant at every step.
"""

from __future__ import annotations

import functools
import json
import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit import IllegalActionError
from trickkit.privacy import history_seen_by, privacy_table, seen_text

GAMES = trickkit.list_games()
SEEDS = st.integers(0, 2**32)
# modest by default (the file runs in seconds); TRICKKIT_PROPERTY_EXAMPLES=500 for a long hunt
EXAMPLES = int(os.environ.get("TRICKKIT_PROPERTY_EXAMPLES", "20"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GARBAGE = ["", "   ", "fly away", "play", "play ZZ99", "bid", "bid -1", "bid 9999", "pass", "play G7 G8"]


@functools.lru_cache(maxsize=None)
def load(name: str, players: int, **params) -> trickkit.Game:
    return trickkit.load_game(name, players=players, **params)


@functools.lru_cache(maxsize=None)
def player_range(name: str) -> tuple[int, int]:
    g = trickkit.load_game(name)
    return g.players_min, g.players_max


SHORTER = {"oh_hell": {"max_cards": 4}, "spades": {"target": 200, "floor": -200}, "crazy_eights": {"target": 0},
           "six_nimmt": {"limit": 20}}
"""Parameters that shorten a game whose default is long (Oh Hell's full game is up to 33 hands,
random Spades about four, Crazy Eights several hands of long random play, 6 nimmt! several hands
of up to 10 seats: one hand reaches every rule), so that every property runs over many whole games
in seconds. Their full-length games are played by the lockstep tests against the independent
models and by the golden playthroughs."""


def draw_game(data, name: str, **params) -> trickkit.Game:
    lo, hi = player_range(name)
    players = data.draw(st.integers(lo, hi), label="players")
    return load(name, players, **{**SHORTER.get(name, {}), **params})


def random_playout(state: trickkit.State, rng: random.Random):
    """Play random legal actions until the game ends; yield ``(state, action)`` before each is applied."""
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        yield state, action
        state.apply_action(action)


def play_choices(state: trickkit.State, choices: list[int]) -> None:
    """Apply actions by index into the legal actions (index taken modulo their number)."""
    for i in choices:
        if state.is_terminal():
            return
        legal = state.legal_actions()
        state.apply_action(legal[i % len(legal)])


def card_ids(state: trickkit.State) -> list[int]:
    ids = [c for zone in state.seat_zones for hand in zone for c in hand]
    ids += [c for zone in state.table_zones for c in zone]
    ids += [p[1] for p in state.trick]
    return ids


def all_play_texts(game) -> set[str]:
    """Every ``play`` action text that some state of this game could allow."""
    deck = game.rules.deck
    return {f"play {deck.face_texts[f]}" for faces in deck.card_faces for f in faces}


def setup(data, name: str, **params):
    game = draw_game(data, name, **params)
    seed = data.draw(SEEDS, label="seed")
    rng = random.Random(data.draw(SEEDS, label="choice seed"))
    return game, seed, rng


# ---------------------------------------------------------------- 1, 2, 3: liveness, bound, conservation
@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_legal_actions_nonempty_until_terminal_and_game_ends_in_bound(name, data):
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    steps = 0
    for s, _ in random_playout(state, rng):
        assert not s.is_terminal()
        assert s.legal_actions(), f"no legal action in a live state after {s.history()}"
        assert s.current_player() != trickkit.TERMINAL and 0 <= s.current_player() < game.num_players
        steps += 1
        assert steps <= game.rules.max_actions, "game exceeds its declared max_actions"
    assert state.is_terminal()
    assert state.legal_actions() == []
    assert state.current_player() == trickkit.TERMINAL
    assert trickkit.TERMINAL < 0
    assert len(state.history()) == steps <= game.rules.max_actions
    assert len(state.scores()) == game.num_players
    assert state.winners() and set(state.winners()) <= set(range(game.num_players))
    # winners are whole teams (every seat is a team of its own without `teams:`), the best by team score
    assert sorted(s for team in game.teams for s in team) == list(range(game.num_players))
    team_scores = state.team_scores()
    assert len(team_scores) == len(game.teams)
    best = max(team_scores) if game.rules.winners_highest else min(team_scores)
    assert state.winners() == sorted(s for t, team in enumerate(game.teams) if team_scores[t] == best for s in team)


@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_cards_are_conserved(name, data):
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    everything = list(range(len(game.cards)))
    assert sorted(card_ids(state)) == everything
    for s, _ in random_playout(state, rng):
        ids = card_ids(s)
        assert sorted(ids) == everything, (
            f"cards not conserved after {s.history()}: "
            f"duplicates {[c for c, k in Counter(ids).items() if k > 1]}, missing {sorted(set(everything) - set(ids))}")
    assert sorted(card_ids(state)) == everything


# ---------------------------------------------------------------- 4: illegal actions
@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_illegal_actions_raise_and_leave_state_untouched(name, data):
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    every_play = all_play_texts(game)
    seen: set[str] = set()  # texts legal in some earlier state
    last_legal = None
    for s, _ in random_playout(state, rng):
        legal = {a.text for a in s.legal_actions()}
        last_legal = sorted(legal)
        seen |= legal
        if rng.random() > 0.15:
            continue
        before = s.to_json()
        before_obs = s.observation_all()
        # legal in some other state (another card of the deck, e.g. in another seat's hand) but not here
        others = sorted(every_play - legal)
        earlier = sorted(seen - legal)
        candidates = ([t for t in GARBAGE if t not in legal] + rng.sample(others, min(4, len(others)))
                      + rng.sample(earlier, min(4, len(earlier))))
        for text in candidates:
            with pytest.raises(IllegalActionError):
                s.apply_action(text)
            assert s.to_json() == before, f"illegal {text!r} changed the state"
            assert s.observation_all() == before_obs
            assert {a.text for a in s.legal_actions()} == legal
    assert state.is_terminal()
    before = state.to_json()
    for text in GARBAGE + (last_legal or []) + sorted(seen)[:5] + sorted(every_play)[:3]:
        with pytest.raises(IllegalActionError):
            state.apply_action(text)
        assert state.to_json() == before
    assert state.is_terminal() and state.legal_actions() == []


@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_playing_a_card_not_in_hand_is_illegal(name, data):
    """A card held by another seat (legal for that seat) is illegal for the current seat."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    deck = game.rules.deck
    hand_zone = [z for z in game.rules.seat_zones if z.visibility == "owner"]
    for s, _ in random_playout(state, rng):
        legal = {a.text for a in s.legal_actions()}
        if not any(t.startswith("play ") for t in legal) or not hand_zone:
            continue
        me = s.current_player()
        mine = {game.cards[c] for z in hand_zone for c in s.seat_zones[z.index][me]}
        for z in hand_zone:
            for other in range(game.num_players):
                if other == me:
                    continue
                for c in s.seat_zones[z.index][other][:2]:
                    if game.cards[c] in mine:
                        continue
                    text = f"play {deck.face_texts[deck.card_faces[c][0]]}"
                    before = s.to_json()
                    with pytest.raises(IllegalActionError):
                        s.apply_action(text)
                    assert s.to_json() == before


# ---------------------------------------------------------------- 5: determinism
@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_same_seed_and_choices_replay_identically(name, data):
    game, seed, rng = setup(data, name)
    choices = [rng.randrange(1000) for _ in range(game.rules.max_actions)]
    a = game.new_initial_state(seed=seed)
    b = game.new_initial_state(seed=seed)
    assert a.observation_all() == b.observation_all()
    play_choices(a, choices)
    play_choices(b, choices)
    assert a.is_terminal() and b.is_terminal()
    assert a.history() == b.history()
    assert a.scores() == b.scores()
    assert a.winners() == b.winners()
    assert a.observation_all() == b.observation_all()
    assert a.to_json() == b.to_json()


# ---------------------------------------------------------------- 6: clone
@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_clone_is_independent(name, data):
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    cut = rng.randrange(game.rules.max_actions // 2 + 1)
    play_choices(state, [rng.randrange(1000) for _ in range(cut)])
    before_json, before_obs = state.to_json(), state.observation_all()
    before_legal = [a.text for a in state.legal_actions()]

    clone = state.clone()
    assert clone.to_json() == before_json and clone.observation_all() == before_obs
    rest = [rng.randrange(1000) for _ in range(game.rules.max_actions)]
    play_choices(clone, rest)
    assert clone.is_terminal()
    assert state.to_json() == before_json, "playing the clone changed the original"
    assert state.observation_all() == before_obs
    assert [a.text for a in state.legal_actions()] == before_legal

    play_choices(state, rest)
    assert state.history() == clone.history()
    assert state.scores() == clone.scores()
    assert state.observation_all() == clone.observation_all()
    assert state.to_json() == clone.to_json()


# ---------------------------------------------------------------- 7: JSON round trip
@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_to_json_round_trips(name, data):
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)

    def check(s):
        text = s.to_json()
        restored = game.state_from_json(text)
        assert restored.to_json() == text
        assert [a.text for a in restored.legal_actions()] == [a.text for a in s.legal_actions()]
        assert restored.current_player() == s.current_player()
        assert restored.is_terminal() == s.is_terminal()
        assert restored.scores() == s.scores()
        assert restored.observation_all() == s.observation_all()
        for p in range(game.num_players):
            assert restored.observation(p) == s.observation(p)
        return restored

    check(state)
    for s, action in random_playout(state, rng):
        if rng.random() < 0.03:
            restored = check(s)
            # the restored state plays on exactly like the original
            restored.apply_action(action)
            twin = s.clone()
            twin.apply_action(action)
            assert restored.to_json() == twin.to_json()
            assert restored.observation_all() == twin.observation_all()
    check(state)


# ---------------------------------------------------------------- 8: observations hide hidden cards
def secret_zone(state) -> int:
    """The seat zone a running simultaneous choose step chooses into (-1 if none): until every
    seat has chosen, other seats see only its count."""
    if state.is_terminal():
        return -1
    step = state.rules.steps[state.step]
    return step.to.index if step.kind == "choose" and step.simultaneous else -1


@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_observation_hides_other_seats_cards(name, data):
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    n = game.num_players
    texts = game.cards

    def check(s):
        for p in range(n):
            obs = s.observation(p)
            assert json.loads(json.dumps(obs)) == obs
            assert obs["seat"] == p and obs["game"] == game.name and obs["terminal"] == s.is_terminal()
            assert obs["current_player"] == s.current_player()
            secret = secret_zone(s)
            for z in game.rules.seat_zones:
                view = obs["zones"][z.name]
                assert len(view) == n
                for q in range(n):
                    cards = [texts[c] for c in s.seat_zones[z.index][q]]
                    assert view[q]["count"] == len(cards)
                    opened = z.public_when is not None and z.public_when(s)  # e.g. open hands
                    if z.index == secret and q != p:  # chosen in secret, not revealed yet
                        assert set(view[q]) == {"count"}, f"seat {p} sees seat {q}'s {z.name} before the reveal"
                    elif z.visibility == "public" or opened or (z.visibility == "owner" and q == p):
                        assert view[q]["cards"] == cards
                    elif z.visibility in ("owner", "hidden"):
                        assert set(view[q]) == {"count"}, f"seat {p} sees {z.name} of seat {q}: {view[q]}"
            for z in game.rules.table_zones:
                # a zone family (count > 0) is shown as one view per member
                members = range(z.count) if z.count else [None]
                for i in members:
                    view = obs["zones"][z.name] if i is None else obs["zones"][z.name][i]
                    cards = [texts[c] for c in s.table_zones[z.index + (i or 0)]]
                    assert view["count"] == len(cards)
                    if z.visibility == "hidden":
                        assert set(view) == {"count"}, f"hidden table zone {z.name} shows {view}"
                    elif z.visibility == "public":
                        assert view["cards"] == cards
                    elif z.visibility == "top":
                        assert set(view) == {"count", "top"}
                        assert view["top"] == (cards[-1] if cards else None)
            assert [t["seat"] for t in obs["trick"]] == [t[0] for t in s.trick]
        full = s.observation_all()
        json.dumps(full)

    check(state)
    for s, _ in random_playout(state, rng):
        check(s)
    check(state)


# ---------------------------------------------------------------- 8b: action texts hide hidden cards
def visible_cards(state, seat) -> set:
    """Texts of the cards ``seat`` sees now (in zones, on top of stacks, in the trick)."""
    obs = state.observation(seat)
    seen = {p["card"].split(":")[0] for p in obs["trick"]}
    views = []
    for view in obs["zones"].values():
        views += view if isinstance(view, list) else [view]
    for view in views:
        seen.update(view.get("cards", []))
        if view.get("top"):
            seen.add(view["top"])
    return seen


def seen_by(table, state, action, viewer) -> str:
    """What ``viewer`` is shown of ``action`` (the engine's bid masking, then the private choices)."""
    return seen_text(table, state.action_seen_by(action, viewer), state.current_player(), viewer)


@pytest.mark.parametrize("name", [g for g in GAMES if any(st_.kind == "turns" for st_ in trickkit.load_game(g).rules.steps)])
@FAST
@given(data=st.data())
def test_action_texts_hide_cards_hidden_from_the_viewer(name, data):
    """Issue 18 (the High Priestess): an action's text, as another seat sees it, names no card
    that seat has never seen so far and does not see after the action (``priestess W2 2`` ->
    ``priestess ? 2``). "Seen so far" is perfect recall: a face-down court card that seat saw
    face up before (``lovers CK CQ``) may be named.

    Every legal action of every turns step is checked at every tenth state (each one tried on
    a copy to learn what becomes visible), the applied action at every state.
    """
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    table = privacy_table(game.rules)
    texts = game.cards
    n = game.num_players
    recalled = [set() for _ in range(n)]  # every card each seat has seen so far
    for i, (s, applied) in enumerate(random_playout(state, rng)):
        for v in range(n):
            recalled[v] |= visible_cards(s, v)
        step = game.rules.steps[s.step]
        if step.kind != "turns":
            continue
        kinds = {k.name: k for k in (step.windows[s.window].kinds if s.window >= 0 else step.kinds)}
        actor = s.current_player()
        before = {v: recalled[v] for v in range(n) if v != actor}
        for action in (s.legal_actions() if i % 10 == 0 else [applied]):
            kind = kinds.get(action.verb)
            if kind is None:  # pass
                continue
            after = moment = None
            for choice, typ, value in zip(kind.choice_names, kind.choice_types, action.choices):
                if typ != "card" or value is None:
                    continue
                card = texts[value]
                others = [str(texts[x] if t == "card" and x is not None else x)
                          for c, t, x in zip(kind.choice_names, kind.choice_types, action.choices) if c != choice]
                for viewer, seen_before in before.items():
                    if card in seen_before:
                        continue
                    if after is None:
                        after = s.clone()
                        after.apply_action(action)
                    if after.is_terminal() or card in visible_cards(after, viewer):
                        continue
                    if after.round != s.round:  # the action ended the round, and the next deal
                        if moment is None:      # gathered every card: look just after its effect
                            moment = s.clone()
                            kind.effect(moment, *action.choices)
                        if card in visible_cards(moment, viewer):
                            continue
                    words = seen_by(table, s, action, viewer).split()
                    allowed = others.count(card) + kind.template.split().count(card)
                    assert words.count(card) <= allowed, (
                        f"seat {viewer} learns hidden card {card} from {action.text!r} by seat {actor}: "
                        f"it is shown {' '.join(words)!r}")
    # history views agree with the per-action views
    for viewer in range(n):
        assert history_seen_by(table, state._history, viewer) == [
            seen_text(table, t, actor, viewer) for actor, t in state._history]
        assert history_seen_by(table, state._history, None) == state.history()


# ---------------------------------------------------------------- 8c: simultaneous choices stay secret
def _has_simultaneous_step(name) -> bool:
    return any(getattr(step, "simultaneous", False) for step in trickkit.load_game(name).rules.steps)


@pytest.mark.parametrize("name", [g for g in GAMES if _has_simultaneous_step(g)])
@FAST
@given(data=st.data())
def test_simultaneous_choices_stay_secret_until_all_have_chosen(name, data):
    """A bid or a card chosen in a simultaneous step: until the step is over, every other
    seat sees its text as ``verb ?`` (as it is made, and in the history), and a chosen card's
    zone only as a count; once every seat has chosen, the history shows the texts, except
    cards chosen into a zone that is not public."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    n = game.num_players
    log: list[tuple[int, str]] = []  # (actor, text), kept by this test
    running = None  # ((round, step index, repeat passes), history index where that step began, the step)

    def check_revealed(start, step):
        if rng.random() > 0.3 and start > 0:  # the first step always, then some
            return
        for viewer in range(n):
            seen = state.history_seen_by(viewer)
            for i in range(start, len(log)):
                actor, text = log[i]
                hidden = step.kind == "choose" and step.to.visibility != "public" and actor != viewer
                assert seen[i] == (f"{text.split()[0]} ?" if hidden else text), (viewer, i, seen[i])

    for s, action in random_playout(state, rng):
        step = game.rules.steps[s.step]
        key = (s.round, s.step, tuple(s.passes))  # a step played again by a repeat block is a new instance
        if running is not None and running[0] != key:  # the step is over: revealed
            check_revealed(running[1], running[2])
            running = None
        if getattr(step, "simultaneous", False):
            if running is None:
                running = (key, len(log), step)
            actor = s.current_player()
            deep = len(log) - running[1] < 2 or rng.random() < 0.2  # the history costs its length: not always
            for viewer in range(n):
                if viewer != actor:
                    assert s.action_seen_by(action, viewer) == f"{action.verb} ?"
                if not deep:
                    continue
                seen = s.history_seen_by(viewer)
                for i in range(running[1], len(log)):
                    who, text = log[i]
                    assert seen[i] == (text if who == viewer else f"{text.split()[0]} ?"), (viewer, i, seen)
                if step.kind == "choose":
                    views = s.observation(viewer)["zones"][step.to.name]
                    assert all(set(views[q]) == {"count"} for q in range(n) if q != viewer)
        log.append((s.current_player(), action.text))
    if running is not None:
        check_revealed(running[1], running[2])


# ---------------------------------------------------------------- 9: Sarkophag
@pytest.mark.parametrize("name", [g for g in GAMES if g == "sarkophag"])
@FAST
@given(data=st.data())
def test_sarkophag_heads_and_leader_never_takes(name, data):
    # default limit=0: a single deal, so 'taken' is never cleared by a later deal and the
    # trick's taker is the one seat whose 'taken' zone grew
    free = data.draw(st.booleans(), label="free_after_break")
    game, seed, rng = setup(data, name, free_after_break=free)
    n = game.num_players
    heads = game.rules.deck.attrs["heads"]
    taken = next(z for z in game.rules.seat_zones if z.name == "taken")
    stock = next(z for z in game.rules.table_zones if z.name == "stock")
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        # each seat's score is the heads of the cards it took so far
        assert state.scores() == [sum(heads[c] for c in state.seat_zones[taken.index][q]) for q in range(n)]
        action = rng.choice(state.legal_actions())
        completes = len(state.trick) == n - 1
        leader = state.trick[0][0] if state.trick else None
        sizes = [len(h) for h in state.seat_zones[taken.index]]
        state.apply_action(action)
        if completes:
            grew = [q for q in range(n) if len(state.seat_zones[taken.index][q]) != sizes[q]]
            assert len(grew) == 1 and len(state.seat_zones[taken.index][grew[0]]) == sizes[grew[0]] + n
            assert grew[0] != leader, f"leader {leader} took the trick: {state.history()}"
    assert state.is_terminal()
    dealt = [c for c in range(len(game.cards)) if c not in state.table_zones[stock.index]]
    assert len(dealt) == n * game.params["hand_size"]
    in_taken = [c for h in state.seat_zones[taken.index] for c in h]
    assert sorted(in_taken) == sorted(dealt)
    assert sum(state.scores()) == sum(heads[c] for c in in_taken) == sum(heads[c] for c in dealt)



@pytest.mark.parametrize("name", GAMES)
@FAST
@given(data=st.data())
def test_observation_does_not_depend_on_hidden_cards(name, data):
    """Reshuffling the cards seat p cannot see (other seats' owner-only zones, hidden table
    zones) among those places, counts kept, leaves observation(p) unchanged."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    n = game.num_players
    for s, _ in random_playout(state, rng):
        if rng.random() > 0.1:
            continue
        p = rng.randrange(n)
        other = s.clone()
        secret = secret_zone(s)  # cards other seats chose in secret, not revealed yet
        places = [hand for z in game.rules.seat_zones if z.visibility in ("owner", "hidden") or z.index == secret
                  if z.index == secret or not (z.public_when is not None and z.public_when(other))  # laid open
                  for q, hand in enumerate(other.seat_zones[z.index]) if q != p or z.visibility == "hidden"]
        places += [other.table_zones[z.index + i] for z in game.rules.table_zones if z.visibility == "hidden"
                   for i in range(max(z.count, 1))]
        pool = [c for place in places for c in place]
        rng.shuffle(pool)
        for place in places:
            k = len(place)
            place[:] = sorted(pool[:k])
            del pool[:k]
        other._legal = None
        assert other.observation(p) == s.observation(p)
        assert other.observation_tensor(p) == s.observation_tensor(p)  # the tensor hides them too


# ---------------------------------------------------------------- 10: Skull King
@pytest.mark.parametrize("name", [g for g in GAMES if g == "skull_king"])
@FAST
@given(data=st.data())
def test_skull_king_bids_are_secret_until_all_have_bid(name, data):
    game, seed, rng = setup(data, name)
    n = game.num_players
    bid_var = next(v for v in game.rules.seat_vars if v.name == "bid")
    state = game.new_initial_state(seed=seed)
    bid_phases = 0
    was_bidding = False
    for s, action in random_playout(state, rng):
        phase = s.observation(0)["phase"]
        true_bids = s.seat_vars[bid_var.index]
        if phase == "bid":
            bid_phases += not was_bidding
            done = {(s.current_player() - k - 1) % n for k in range(s.acted)}
            for p in range(n):
                bids = s.observation(p)["variables"]["bid"]
                assert len(bids) == n
                for q in range(n):
                    if q != p:
                        assert bids[q] is None, f"seat {p} sees seat {q}'s bid during bidding: {bids}"
                assert bids[p] == (true_bids[p] if p in done else None)
            assert len(done) == s.acted < n
            assert action.text.startswith("bid ")
        else:
            # once all have bid, every bid is public and true
            for p in range(n):
                assert s.observation(p)["variables"]["bid"] == list(true_bids)
        was_bidding = phase == "bid"
    assert bid_phases == game.params["rounds"]


# ---------------------------------------------------------------- 12: action ids and observation tensors
# every action of a game is checked, so fewer games suffice (TRICKKIT_PROPERTY_EXAMPLES scales them too)
LIGHT = settings(FAST, max_examples=max(2, EXAMPLES // 4))


@pytest.mark.parametrize("name", GAMES)
@LIGHT
@given(data=st.data())
def test_every_legal_action_has_an_id_that_maps_back(name, data):
    """Each legal action has one id in the game's fixed space, its text maps back to it, the
    mask marks exactly those ids, and applying the id does what applying the text does."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    size = game.num_distinct_actions()
    while not state.is_terminal():
        legal = state.legal_actions()
        ids = state.legal_action_ids()
        assert len(ids) == len(set(ids)) == len(legal)
        assert all(0 <= i < size for i in ids)
        assert [game.action_to_string(i) for i in ids] == [a.text for a in legal]
        assert [game.string_to_action(a.text) for a in legal] == ids
        mask = state.legal_action_mask()
        assert len(mask) == size and [i for i, m in enumerate(mask) if m] == sorted(ids)
        k = rng.randrange(len(ids))
        by_text = state.clone()
        by_text.apply_action(legal[k].text)
        state.apply_action(ids[k])
        assert state.history() == by_text.history()
        if rng.random() < 0.05:
            assert state.observation_all() == by_text.observation_all()
    assert state.legal_action_ids() == [] and not any(state.legal_action_mask())


@pytest.mark.parametrize("name", GAMES)
@LIGHT
@given(data=st.data())
def test_observation_tensor_shows_what_the_seat_sees(name, data):
    """The tensor has the game's shape; each zone block counts the cards of the zone, shows the
    cards exactly when the dict view shows them (all zero otherwise), for every seat."""
    game, seed, rng = setup(data, name)
    state = game.new_initial_state(seed=seed)
    n = game.num_players
    layout = {seg.name: seg for seg in game.observation_tensor_layout()}
    distinct = list(dict.fromkeys(game.cards))

    def check(s):
        for p in range(n):
            tensor = s.observation_tensor(p)
            assert len(tensor) == game.observation_tensor_shape()[0]
            assert all(isinstance(x, float) for x in tensor)
            obs = s.observation(p)
            views = []
            for z in game.rules.seat_zones:
                views += [(f"zone {z.name} +{k}", obs["zones"][z.name][(p + k) % n]) for k in range(n)]
            for z in game.rules.table_zones:
                v = obs["zones"][z.name]
                views += [(f"zone {z.name}[{i}]", m) for i, m in enumerate(v)] if z.count else [(f"zone {z.name}", v)]
            for seg_name, view in views:
                seg = layout[seg_name]
                block = tensor[seg.start:seg.start + seg.size]
                assert block[0] == view["count"]
                shown = view.get("cards", [view["top"]] if view.get("top") is not None else [])
                assert block[2:] == [float(shown.count(t)) for t in distinct], seg_name
            assert tensor[layout["scores"].start] == s.scores()[p]

    check(state)
    for s, _ in random_playout(state, rng):
        if rng.random() < 0.1:
            check(s)
    check(state)
