"""The engine through the public API: loading errors, illegal actions, deals, observations, saved states."""

import json
import re
from pathlib import Path

import pytest

import trickkit

SHIPPED = Path(trickkit.__file__).resolve().parent  # editable or installed, the rulesets come along


def write_variant(tmp_path, old, new, name="variant.yaml"):
    text = trickkit.engine.loader.ruleset_text("sarkophag")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


def test_list_games_and_load_from_any_directory(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert {"sarkophag", "skull_king"} <= set(trickkit.list_games())
    game = trickkit.load_game("skull_king", players=3, rounds=2)
    assert (game.num_players, game.params["rounds"]) == (3, 2)


def test_unknown_name_in_dsl_is_located(tmp_path):
    path = write_variant(tmp_path, 'winner: "if lower != broken then lowest', 'winner: "if lower != brokn then lowest')
    with pytest.raises(trickkit.RulesetError) as err:
        trickkit.load_game(path)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "brokn" in t)
    first = str(err.value).splitlines()[0]
    assert first == (f"{path}:{line}:15: $.round[1].tricks.winner: unknown name 'brokn' (did you mean 'broken'?)")


def test_schema_errors_are_all_collected(tmp_path):
    path = write_variant(
        tmp_path, "players: {min: 3, max: 6, default: 4}", "players: {min: three, max: 6, default: 4}\nnmae: x"
    )
    with pytest.raises(trickkit.RulesetError) as err:
        trickkit.load_game(path)
    messages = [p.message for p in err.value.problems]
    assert any("expected integer, got 'three'" in m for m in messages)
    assert any("unknown key 'nmae' (did you mean 'name'?)" in m for m in messages)


def test_bad_parameter_and_player_count():
    with pytest.raises(trickkit.RulesetError, match="unknown parameter 'limt' \\(did you mean 'limit'\\?\\)"):
        trickkit.load_game("sarkophag", limt=50)
    with pytest.raises(trickkit.RulesetError, match="sarkophag is for 3-6 players, not 7"):
        trickkit.load_game("sarkophag", players=7)
    with pytest.raises(trickkit.RulesetError, match=re.escape("parameter 'rounds' must be in 1..10, got 11")):
        trickkit.load_game("skull_king", rounds=11)
    # a bound that is not there is not printed as infinity, a fixed count not as a range
    with pytest.raises(trickkit.RulesetError, match=re.escape("parameter 'tokens' must be at least 0, got -1")):
        trickkit.load_game("love_letter", tokens=-1)
    with pytest.raises(trickkit.RulesetError, match="euchre is for 4 players, not 3"):
        trickkit.load_game("euchre", players=3)


def test_illegal_action_says_why_and_leaves_the_state_alone():
    game = trickkit.load_game("skull_king", players=3, rounds=2)
    state = game.new_initial_state(
        seed=1, deals=[[["Y9"], ["G2"], ["B5"]], [["Y4", "P5"], ["Y8", "pirate"], ["P1", "P2"]]]
    )
    # round 1: seat 1 bids first and leads; black (trump) B5 takes the trick
    for a in ["bid 0", "bid 1", "bid 0", "play G2", "play B5", "play Y9"]:  # seats 1, 2, 0 bid
        state.apply_action(a)
    assert state.scores() == [10, 10, 20]
    # round 2: seat 1 deals, so seat 2 bids first and leads
    assert state.current_player() == 2
    for a in ["bid 1", "bid 0", "bid 0", "play P1"]:
        state.apply_action(a)
    before = state.to_json()
    with pytest.raises(trickkit.IllegalActionError) as err:
        state.apply_action("play Y4")
    assert str(err.value) == "illegal action 'play Y4' for seat 0: must follow purple: you hold P5"
    assert state.to_json() == before
    with pytest.raises(trickkit.IllegalActionError) as err:
        state.apply_action("bid 2")
    assert str(err.value) == "illegal action 'bid 2' for seat 0: it is time to play a card: say 'play CARD'"
    assert state.to_json() == before
    assert [str(a) for a in state.legal_actions()] == ["play P5"]


def test_must_follow_message_names_the_cards():
    game = trickkit.load_game("skull_king", players=3, rounds=1)
    state = game.new_initial_state(seed=1, deals=[[["Y9"], ["Y4"], ["B5"]]])
    for a in ["bid 0", "bid 0", "bid 0"]:
        state.apply_action(a)
    state = game.new_initial_state(seed=1, deals=[[["Y9"], ["G2"], ["B5"]]])
    for a in ["bid 0"] * 3:
        state.apply_action(a)
    state.apply_action("play G2")  # seat 1 leads (left of dealer 0)
    with pytest.raises(trickkit.IllegalActionError) as err:
        state.apply_action("play Y8")
    assert str(err.value) == "illegal action 'play Y8' for seat 2: seat 2 does not hold Y8"
    g2 = trickkit.load_game("skull_king", players=2, rounds=2)
    s2 = g2.new_initial_state(seed=1, deals=[[["Y9"], ["G2"]], [["Y4", "G1"], ["Y8", "tigress"]]])
    for a in ["bid 0", "bid 0", "play G2", "play Y9", "bid 0", "bid 0", "play Y4"]:
        s2.apply_action(a)
    before = s2.to_json()
    with pytest.raises(trickkit.IllegalActionError) as err:
        s2.apply_action("play tigress")
    assert str(err.value) == (
        "illegal action 'play tigress' for seat 1: say how 'tigress' is played: "
        "'play tigress:pirate' or 'play tigress:escape'"
    )
    s3 = s2.clone()
    s3.apply_action("play tigress:escape")
    assert s2.to_json() == before


def test_follow_suit_reason():
    game = trickkit.load_game("skull_king", players=2, rounds=2)
    state = game.new_initial_state(seed=1, deals=[[["Y9"], ["G2"]], [["Y4", "G1"], ["Y8", "G5"]]])
    for a in ["bid 0", "bid 0", "play G2", "play Y9", "bid 0", "bid 0", "play Y4"]:
        state.apply_action(a)
    with pytest.raises(trickkit.IllegalActionError) as err:
        state.apply_action("play G5")
    assert str(err.value) == "illegal action 'play G5' for seat 1: must follow yellow: you hold Y8"


def test_sarkophag_lead_restriction_reason():
    game = trickkit.load_game("sarkophag", players=3, hand_size=2)
    state = game.new_initial_state(seed=0, deals=[[["1", "2"], ["15", "30"], ["3", "4"]]])
    assert [str(a) for a in state.legal_actions()] == ["play 30"]
    with pytest.raises(trickkit.IllegalActionError) as err:
        state.apply_action("play 15")
    assert str(err.value) == "illegal action 'play 15' for seat 1: a card with 5 heads may not lead: you hold 30"


def test_deals_are_checked():
    game = trickkit.load_game("skull_king", players=2, rounds=1)
    with pytest.raises(trickkit.DealError, match="unknown card 'G14'"):
        game.new_initial_state(seed=0, deals=[[["G14"], ["G1"]]])
    with pytest.raises(trickkit.DealError, match="card 'mermaid' dealt 3 times; the deck has 2"):
        game.new_initial_state(seed=0, deals=[[["mermaid", "mermaid"], ["mermaid"]]])
    with pytest.raises(trickkit.DealError, match="expected one hand per seat"):
        game.new_initial_state(seed=0, deals=[[["G1"]]])


def test_simultaneous_bids_are_hidden_until_all_have_bid():
    game = trickkit.load_game("skull_king", players=3, rounds=1)
    state = game.new_initial_state(seed=4)
    first = state.current_player()
    assert first == 1
    assert state.action_seen_by("bid 1", 0) == "bid ?"
    assert state.action_seen_by("bid 1", first) == "bid 1"
    state.apply_action("bid 1")
    assert state.observation(0)["variables"]["bid"] == [None, None, None]
    assert state.observation(1)["variables"]["bid"] == [None, 1, None]
    state.apply_action("bid 0")
    state.apply_action("bid 1")
    assert state.observation(2)["variables"]["bid"] == [1, 1, 0]


def test_saved_state_round_trip_and_tampering():
    game = trickkit.load_game("sarkophag")
    state = game.new_initial_state(seed=9)
    for _ in range(7):
        state.apply_action(state.legal_actions()[-1])
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text
    data = json.loads(text)
    bad = dict(data, actions=data["actions"] + ["play 999"])
    with pytest.raises(trickkit.StateError, match="does not replay: action 7 'play 999'"):
        game.state_from_json(json.dumps(bad))
    with pytest.raises(trickkit.StateError, match="different version of ruleset 'sarkophag'"):
        game.state_from_json(json.dumps(dict(data, ruleset_sha256="0" * 64)))
    with pytest.raises(trickkit.StateError, match="unknown fields: cheat"):
        game.state_from_json(json.dumps(dict(data, cheat=1)))
    other = trickkit.load_game("skull_king")
    with pytest.raises(trickkit.StateError, match="of game 'sarkophag', not 'skull_king'"):
        other.state_from_json(text)


def test_action_after_the_end_is_refused():
    game = trickkit.load_game("skull_king", players=2, rounds=1)
    state = game.new_initial_state(seed=0, deals=[[["G1"], ["G2"]]])
    for a in ["bid 1", "bid 0", "play G2", "play G1"]:  # seat 1 bids and leads first
        state.apply_action(a)
    assert state.is_terminal() and state.current_player() == trickkit.TERMINAL
    assert state.scores() == [10, 20]  # zero bid made in round 1: +10; bid 1 made: +20
    with pytest.raises(trickkit.IllegalActionError, match="the game is over"):
        state.apply_action("play G1")


def _variant(tmp_path, name, replacements, **params):
    text = trickkit.engine.loader.ruleset_text("sarkophag")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return trickkit.load_game(path, **params)


def test_definitions_reading_the_card_are_never_memoised(tmp_path):
    """GIVEN the same card test written inline and through nested definitions
    THEN both give the same legal actions at every step (a definition that reads `card`,
    even inside an aggregate or another definition, must be evaluated per card)."""
    rule = "all(card.rank > p.rank for p in trick)"
    inline = _variant(
        tmp_path,
        "inline.yaml",
        [
            (
                "must_play_if_able: >-\n        if len(trick) == 0 then card.heads != 5",
                f"must_play_if_able: >-\n        if len(trick) > 0 then {rule} "
                "else if len(trick) == 0 then card.heads != 5",
            )
        ],
    )
    named = _variant(
        tmp_path,
        "named.yaml",
        [
            ("definitions:\n", f"definitions:\n  above_all: {rule}\n  wrapper: above_all\n"),
            (
                "must_play_if_able: >-\n        if len(trick) == 0 then card.heads != 5",
                "must_play_if_able: >-\n        if len(trick) > 0 then wrapper "
                "else if len(trick) == 0 then card.heads != 5",
            ),
        ],
    )
    for seed in range(5):
        a, b = inline.new_initial_state(seed=seed), named.new_initial_state(seed=seed)
        while not a.is_terminal():
            assert a.legal_actions() == b.legal_actions()
            choice = a.legal_actions()[seed % len(a.legal_actions())]
            a.apply_action(choice)
            b.apply_action(choice)


def test_a_rule_failing_mid_action_leaves_the_state_as_it_was(tmp_path):
    """GIVEN a variant whose after_trick divides by zero for a trick of 7 heads
    WHEN the last card of such a trick is played
    THEN a located DSLRuntimeError is raised and the state is exactly as before."""
    game = _variant(
        tmp_path,
        "divide.yaml",
        [
            (
                "after_trick: heads[winner.seat] += sum(p.heads for p in trick)",
                "after_trick: heads[winner.seat] += 60 // (sum(p.heads for p in trick) - 7)",
            )
        ],
        hand_size=2,
    )
    state = game.new_initial_state(seed=0, deals=[[["4", "1"], ["22", "2"], ["20", "3"], ["14", "15"]]])
    for a in ["play 22", "play 20", "play 14"]:
        state.apply_action(a)
    before, legal = state.to_json(), state.legal_actions()
    with pytest.raises(
        trickkit.DSLRuntimeError, match=r"divide.yaml:\d+:\d+: \$.round\[1\].tricks.after_trick: ZeroDivisionError"
    ):
        state.apply_action("play 4")  # 22, 20, 14, 4 hold 2+3+0+2 = 7 heads
    assert state.to_json() == before
    assert state.legal_actions() == legal == ["play 1", "play 4"]
    state.apply_action("play 1")  # 2+3+0+0 = 5 heads: 60 // -2
    assert state.scores() == [-30, 0, 0, 0]


def test_observation_needs_a_real_seat_and_verbs_ignore_case():
    game = trickkit.load_game("skull_king", players=3, rounds=1)
    state = game.new_initial_state(seed=2)
    for bad in [3, -1, True, "0", 1.0]:
        with pytest.raises(ValueError, match=re.escape("seat must be an int in 0..2")):
            state.observation(bad)
    state.apply_action("BID  1")
    assert state.history() == ["bid 1"]
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        game.new_initial_state(seed=-5)
    with pytest.raises(trickkit.DealError, match="a card is its text"):
        game.new_initial_state(seed=0, deals=[[[["G1"]], ["G2"], ["G3"]]])


def test_running_past_max_actions_leaves_the_state_as_it_was(tmp_path):
    text = trickkit.engine.loader.ruleset_text("skull_king").replace("max_actions: 1000", "max_actions: 5")
    path = tmp_path / "short.yaml"
    path.write_text(text)
    state = trickkit.load_game(path).new_initial_state(seed=1)
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    before = state.to_json()
    with pytest.raises(trickkit.DSLRuntimeError, match="exceeded its declared max_actions=5"):
        state.apply_action(state.legal_actions()[0])
    assert state.to_json() == before and len(state.history()) == 5


def test_observations_share_no_lists_with_the_state():
    game = trickkit.load_game("skull_king_2021")
    state = game.new_initial_state(seed=3)
    state.observation(0)["variables"]["loot_with"][0].append(2)
    assert state.observation(0)["variables"]["loot_with"] == [[], [], [], []]
    assert game.new_initial_state(seed=9).observation(0)["variables"]["loot_with"] == [[], [], [], []]
    other = state.clone()
    assert other.observation(1)["variables"]["loot_with"] == [[], [], [], []]


def test_a_zone_cannot_be_a_choice(tmp_path):
    text = trickkit.engine.loader.ruleset_text("saqqara")
    old = '''          choices: {pile: "range(1, len(piles) + 1)"}
          allowed: len(piles[pile - 1]) > 0
          reason: "'pile ' + str(pile) + ' is empty'"'''
    assert old in text
    path = tmp_path / "zone_choice.yaml"
    path.write_text(
        text.replace(
            old,
            """          choices: {pile: "piles"}
          allowed: len(pile) > 0""",
        )
    )
    with pytest.raises(trickkit.RulesetError, match=r"choices.pile: a choice cannot be a zone; offer its number"):
        trickkit.load_game(path)


@pytest.mark.parametrize("name", trickkit.list_games())
def test_game_info_reads_what_load_game_compiles(name):
    info, game = trickkit.game_info(name), trickkit.load_game(name)
    assert (info.name, info.title, info.players_min, info.players_max, info.players_default) == (
        game.name,
        game.title,
        game.players_min,
        game.players_max,
        game.rules.players_default,
    )


def test_game_info_of_a_broken_ruleset_is_a_located_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("format: 1\nname: bad\ntitle: 3\nplayers: {min: two, max: 4}\n", "utf-8")
    with pytest.raises(trickkit.RulesetError, match=r"bad\.yaml:\d+:\d+: \$\.players\.min"):
        trickkit.game_info(path)
