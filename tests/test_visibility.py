"""The information model (issue 29): zone ``seen_by``, the ``reveal`` effect, private variables,
each on a small ruleset of its own, and the conformance kit's hidden-information check on sound
rulesets and on leaky twins it must catch."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import trickkit
from trickkit.agents.determinize import InformationSetSampler
from trickkit.engine import visibility as V
from trickkit.errors import RulesetError
from trickkit.lab import conformance as testing

HERE = Path(__file__).resolve().parent / "visibility_rulesets"


def load(name: str, **kw):
    return trickkit.load_game(HERE / f"{name}.yaml", **kw)


def peeked_state():
    """GIVEN peek with seat 0 to act WHEN it peeks THEN it knows seat 1's hand."""
    game = load("peek")
    state = game.new_initial_state(seed=3, deals=[[["R3", "B4"], ["R1", "B2"]]])
    state.apply_action("peek")
    return game, state


# -- reveal ---------------------------------------------------------------------------------
def test_a_reveal_shows_the_cards_to_the_chosen_seat_only():
    _, state = peeked_state()
    assert state.observation(0)["revealed"] == [
        {"card": "R1", "zone": "hand", "seat": 1},
        {"card": "B2", "zone": "hand", "seat": 1},
    ]
    assert state.observation(1)["revealed"] == []
    assert state.observation(0)["zones"]["hand"][1] == {"count": 2}  # the zone itself stays hidden


def test_a_revealed_card_is_forgotten_when_it_moves_and_the_rest_is_kept():
    _, state = peeked_state()
    state.apply_action("play B4")
    state.apply_action("play B2")  # seat 1 plays a revealed card: it leaves the hand
    assert state.observation(0)["revealed"] == [{"card": "R1", "zone": "hand", "seat": 1}]
    state.apply_action("play R3")
    state.apply_action("play R1")
    assert state.observation(0)["revealed"] == []
    assert state.known is None  # nothing left to check after each action


def test_a_new_deal_forgets_every_reveal_even_of_a_card_dealt_back_to_the_same_hand(tmp_path):
    """GIVEN peek, whose round ends once seat 0's hand is empty, seat 0 knowing seat 1's R1
    WHEN the next round deals R1 to seat 1 again (within the same action)
    THEN seat 0 no longer knows it: the deal collected every card (knowledge is not checked only
    at the action's end, where R1 lies where it was seen)."""
    text = (
        (HERE / "peek.yaml")
        .read_text()
        .replace("until: all(len(hand[s]) == 0 for s in seats)", "until: len(hand[0]) == 0")
    )
    path = tmp_path / "short.yaml"
    path.write_text(text)
    deal = [["R3", "B4"], ["R1", "B2"]]
    state = trickkit.load_game(path).new_initial_state(seed=3, deals=[deal, deal])
    for action in ("peek", "play B4", "play B2"):
        state.apply_action(action)
    assert state.observation(0)["revealed"] == [{"card": "R1", "zone": "hand", "seat": 1}]
    state.apply_action("play R3")  # seat 0's hand is empty: round 2 deals R1 to seat 1 again
    assert state.round == 2 and "R1" in state.observation_all()["zones"]["hand"][1]["cards"]
    assert state.observation(0)["revealed"] == []
    assert state.known is None


def test_a_reveal_after_a_move_of_the_same_text_in_one_action_is_kept(tmp_path):
    """GIVEN peek with two copies of each card, seat 0 knowing seat 1's R1 R1
    WHEN seat 1 lays one R1 and, in the same action, shows its hand (the other R1) to seat 0
    THEN seat 0 knows that R1: the move forgot the older knowledge, not the reveal that came after it."""
    text = (HERE / "peek.yaml").read_text()
    text = text.replace('text: "{suit}{rank}"', 'text: "{suit}{rank}"\n    copies: 2')
    text = text.replace(
        "        pass:\n",
        "        show:\n"
        "          text: show\n"
        "          allowed: len(hand[me]) == 2\n"
        "          effect: |\n"
        "            move(hand[me][0], hand[me], pile)\n"
        "            reveal(hand[me], other)\n"
        "            end_turn()\n"
        "        pass:\n",
    )
    path = tmp_path / "show.yaml"
    path.write_text(text)
    state = trickkit.load_game(path).new_initial_state(seed=3, deals=[[["R3", "B4"], ["R1", "R1"]]])
    state.apply_action("peek")
    assert len(state.observation(0)["revealed"]) == 2
    state.apply_action("play B4")
    state.apply_action("show")
    assert state.observation(0)["revealed"] == [{"card": "R1", "zone": "hand", "seat": 1}]
    assert state.observation(1)["revealed"] == []


def test_games_without_reveals_keep_their_observation_keys():
    obs = load("partner").new_initial_state(seed=1).observation(0)
    assert "revealed" not in obs
    assert load("peek").new_initial_state(seed=1).observation(0)["revealed"] == []


def test_knowledge_survives_clone_json_and_replay():
    game, state = peeked_state()
    clone = state.clone()
    again = game.state_from_json(state.to_json())
    for s in (clone, again):
        assert s.observation(0)["revealed"] == state.observation(0)["revealed"]
    clone.apply_action("play B4")
    clone.apply_action("play B2")
    assert len(state.observation(0)["revealed"]) == 2  # the clone's moves never touch the original


def test_a_reveal_is_in_the_viewers_tensor_only():
    game, state = peeked_state()
    layout = {s.name: s for s in game.observation_tensor_layout()}
    seg = layout["revealed hand +1"]
    t0, t1 = state.observation_tensor(0), state.observation_tensor(1)
    assert sum(t0[seg.start : seg.start + seg.size]) == 2.0
    assert all(v == 0 for n, s in layout.items() if n.startswith("revealed") for v in t1[s.start : s.start + s.size])


def test_a_reveal_is_told_in_the_viewers_transcript_and_screen_only():
    from trickkit.engine.view import render

    _, state = peeked_state()
    assert "you see seat 1's hand: R1 B2" in state.transcript(0)
    assert "you see" not in state.transcript(1)
    assert "you see seat 1's hand: R1 B2" in render(state.observation(0), 0)
    assert not any("you see" in line for line in render(state.observation(1), 1))


def test_reveal_arguments_are_checked_where_they_are_written(tmp_path):
    text = (HERE / "peek.yaml").read_text().replace("reveal(hand[other], me)", "reveal(hand[other], 'me')")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        trickkit.load_game(path)
    assert "reveal() needs a seat or a list of seats here, got str" in str(info.value)
    assert "bad.yaml:" in str(info.value)


def test_reveal_of_a_single_card_and_a_list_of_seats(tmp_path):
    text = (HERE / "peek.yaml").read_text().replace("reveal(hand[other], me)", "reveal(hand[other][0], [me, other])")
    path = tmp_path / "one.yaml"
    path.write_text(text)
    state = trickkit.load_game(path).new_initial_state(seed=3, deals=[[["R3", "B4"], ["R1", "B2"]]])
    state.apply_action("peek")
    assert state.observation(0)["revealed"] == [{"card": "R1", "zone": "hand", "seat": 1}]
    assert state.observation(1)["revealed"] == [{"card": "R1", "zone": "hand", "seat": 1}]


# -- zone seen_by ---------------------------------------------------------------------------
def test_a_hand_seen_by_the_partner():
    state = load("partner").new_initial_state(seed=1)
    hands = state.observation(0)["zones"]["hand"]
    assert "cards" in hands[0] and "cards" in hands[2]
    assert "cards" not in hands[1] and "cards" not in hands[3]
    assert "cards" in state.observation(3)["zones"]["hand"][1]


def test_a_table_zone_seen_by_one_seat_once_a_rule_holds():
    state = load("partner").new_initial_state(seed=1)
    assert "cards" not in state.observation(0)["zones"]["stock"]
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    assert "cards" in state.observation(0)["zones"]["stock"]
    assert "cards" not in state.observation(1)["zones"]["stock"]


def test_seen_by_errors_are_located(tmp_path):
    text = (HERE / "partner.yaml").read_text().replace("seat == (owner + 2) % num_players", "seat == partnr")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        trickkit.load_game(path)
    assert "$.zones.hand.seen_by" in str(info.value) and "partnr" in str(info.value)


# -- private variables ----------------------------------------------------------------------
def played_counter():
    state = load("private_counter").new_initial_state(seed=3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    return state


def test_a_counter_only_its_seat_sees():
    state = played_counter()
    everything = state.observation_all()["variables"]
    for p in range(4):
        seen = state.observation(p)["variables"]
        assert seen["counted"] == [everything["counted"][p] if q == p else None for q in range(4)]
        assert seen["total"] == (everything["total"] if p == 0 else None)  # hidden, seen_by seat 0
        team = state.game.team_of(p)
        assert seen["team_sum"] == [everything["team_sum"][t] if t == team else None for t in range(2)]
        assert seen["played"] == everything["played"]


def test_a_hidden_value_is_zeros_with_a_known_flag_in_the_tensor():
    state = played_counter()
    game = state.game
    layout = {s.name: s for s in game.observation_tensor_layout()}
    seg = layout["var total"]
    assert seg.size == 3  # value, is_null, known
    t0, t1 = state.observation_tensor(0).tolist(), state.observation_tensor(1).tolist()
    assert t0[seg.start : seg.start + 3] == [float(state.observation_all()["variables"]["total"]), 0.0, 1.0]
    assert t1[seg.start : seg.start + 3] == [0.0, 0.0, 0.0]
    assert layout["var played"].size == 2  # a public variable has no flag


def test_variable_visibility_owner_needs_an_owner(tmp_path):
    text = (
        (HERE / "private_counter.yaml")
        .read_text()
        .replace(
            'total: {initial: 0, visibility: hidden, seen_by: "seat == 0"}', "total: {initial: 0, visibility: owner}"
        )
    )
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        trickkit.load_game(path)
    assert "$.table_variables.total.visibility" in str(info.value) and "needs a seat or team variable" in str(
        info.value
    )


# -- agents ----------------------------------------------------------------------------------
def test_samples_keep_revealed_cards_and_never_carry_hidden_values():
    _, state = peeked_state()
    state.apply_action("play B4")
    sampler = InformationSetSampler(0, random.Random(1))
    for _ in range(5):
        world = sampler.sample(state)
        assert sorted(world.observation_all()["zones"]["hand"][1]["cards"]) == ["B2", "R1"]
    state = played_counter()  # seat 3 to act: it may not see the others' counters
    me = state.current_player()
    twin = state.clone()  # the same game, with the counters seat 3 may not see changed
    twin.seat_vars[0] = [v + 100 if q != me else v for q, v in enumerate(twin.seat_vars[0])]
    assert twin.observation(me) == state.observation(me)
    for s in (state, twin):
        worlds = [InformationSetSampler(me, random.Random(1)).sample(s) for _ in range(3)]
        if s is state:
            first = [w.observation_all() for w in worlds]
        else:
            assert [w.observation_all() for w in worlds] == first
        for w in worlds:
            assert w.observation(me) == state.observation(me)
            assert all(v < 100 for v in w.observation_all()["variables"]["counted"])


def test_the_visibility_model_is_what_the_observation_shows():
    state = load("partner").new_initial_state(seed=2)
    vis = state.game.visibility
    z = state.rules.seat_zones[0]
    assert vis.seat_zone(state, z, 1, -1) == [V.COUNT, V.ALL, V.COUNT, V.ALL]
    assert vis.seat_zone(state, z, None, -1) == [V.ALL] * 4


# -- the conformance kit ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["peek", "partner", "private_counter"])
def test_sound_rulesets_pass_the_hidden_information_check(name):
    testing.check_one(HERE / f"{name}.yaml", "hidden_information", examples=6, seed=2)


def kit_failure(name: str) -> testing.InvariantError:
    with pytest.raises(testing.InvariantError) as info:
        testing.check_one(HERE / f"{name}.yaml", "hidden_information", examples=8, seed=1)
    return info.value


def test_the_kit_catches_a_reveal_shown_to_everyone(monkeypatch):
    real = V.Visibility.known_cards
    monkeypatch.setattr(V.Visibility, "known_cards", lambda self, state, viewer: real(self, state, 1 - viewer))
    e = kit_failure("peek")
    assert "revealed" in e.message


def test_the_kit_catches_a_hidden_table_zone_leaked(monkeypatch):
    real = V.Visibility.table_zone
    monkeypatch.setattr(
        V.Visibility,
        "table_zone",
        lambda self, state, zone, viewer: V.ALL if zone.name == "stock" else real(self, state, zone, viewer),
    )
    e = kit_failure("partner")
    assert "table zone stock" in e.message


def test_the_kit_catches_a_private_variable_leaked_by_the_engine(monkeypatch):
    monkeypatch.setattr(V.Visibility, "sees_variable", lambda self, state, var, viewer, owner: True)
    e = kit_failure("private_counter")
    assert "counted" in e.message or "total" in e.message or "team_sum" in e.message


def test_the_kit_catches_a_private_variable_leaked_by_the_rules():
    e = kit_failure("scores_a_hidden_counter")
    assert "variables it may not see change" in e.message and "scores" in e.message
