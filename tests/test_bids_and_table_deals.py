"""Bid steps (a reason for refused bids, public bids, what options read, an unmade bid told
apart from a bid of 0) and deals that fix table zones (the stock order, the turned-up card)."""

import json

import pytest

import trickkit
from trickkit.engine.game import DealError
from trickkit.errors import IllegalActionError, RulesetError

GAME = """
format: 1
name: bids
title: Bids
players: {min: 3, max: 3, default: 3}
deck:
  - suit: {C: clubs, D: diamonds, H: hearts}
    rank: {from: 1, to: 5}
    text: "{suit}{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
  turnup: {owner: table, visibility: public}
seat_variables:
  bid: {initial: null, type: int, reset: round}
definitions:
  made: sum(bid[s] for s in seats if bid[s] != null)
  hooked(b): current_player == dealer and made + b == 2
round:
  - deal: {count: 2}
  - effect: |
      move(stock[-1], stock, turnup)
  - bid:
      variable: bid
      simultaneous: SIMULTANEOUS
      options: list(b for b in range(0, 3) if not hooked(b))
      REASON
  - tricks:
      count: 2
      must_play_if_able: len(trick) == 0 or card.suit == trick[0].suit
      winner: highest(p for p in trick if p.suit == trick[0].suit by p.rank)
game_over: round == 2
score: bid[seat] ?? 0
"""

REASON = "reason: \"if hooked(value) then 'the dealer may not make the total 2' else null\""


def load(tmp_path, simultaneous="false", reason=REASON):
    path = tmp_path / "bids.yaml"
    path.write_text(GAME.replace("SIMULTANEOUS", simultaneous).replace("REASON", reason), "utf-8")
    return trickkit.load_game(path)


def test_a_refused_bid_says_the_rulesets_reason(tmp_path):
    state = load(tmp_path).new_initial_state(seed=1)
    state.apply_action("bid 1")
    state.apply_action("bid 0")
    assert state.current_player() == state.dealer == 0
    before = state.to_json(), [a.text for a in state.legal_actions()]
    with pytest.raises(IllegalActionError, match="the dealer may not make the total 2 \\(a bid must be one of 0, 2\\)"):
        state.apply_action("bid 1")
    assert (state.to_json(), [a.text for a in state.legal_actions()]) == before  # left as it was
    # a number the reason does not cover (null) keeps the engine's own message
    with pytest.raises(IllegalActionError) as err:
        state.apply_action("bid 9")
    assert "dealer" not in str(err.value) and "a bid must be one of 0, 2" in str(err.value)
    with pytest.raises(IllegalActionError, match="a bid must be one of 0, 2"):
        state.apply_action("bid x")


def test_without_a_reason_the_engine_message_stays(tmp_path):
    state = load(tmp_path, reason="").new_initial_state(seed=1)
    state.apply_action("bid 1")
    state.apply_action("bid 0")
    with pytest.raises(IllegalActionError, match=r"illegal action 'bid 1' for seat 0: a bid must be one of 0, 2$"):
        state.apply_action("bid 1")


def test_a_bad_reason_is_a_located_load_error(tmp_path):
    with pytest.raises(RulesetError, match=r"\$\.round\[2\]\.bid\.reason"):
        load(tmp_path, reason="reason: nosuchname")


def test_public_bids_are_seen_at_once_and_unmade_bids_are_null(tmp_path):
    state = load(tmp_path).new_initial_state(seed=1)
    assert state.observation(2)["variables"]["bid"] == [None, None, None]  # nobody has bid: null, not 0
    assert state.action_seen_by("bid 0", 2) == "bid 0"
    state.apply_action("bid 0")
    assert state.observation(2)["variables"]["bid"] == [None, 0, None]  # a bid of 0, seen by every seat
    assert state.history_seen_by(0) == ["bid 0"]


def test_simultaneous_bids_stay_hidden_until_all_have_bid(tmp_path):
    state = load(tmp_path, simultaneous="true", reason="").new_initial_state(seed=1)
    assert state.action_seen_by("bid 0", 2) == "bid ?"
    state.apply_action("bid 0")
    assert state.observation(2)["variables"]["bid"] == [None, None, None]
    assert state.observation(1)["variables"]["bid"] == [None, 0, None]


def test_options_read_the_bidder_and_the_earlier_bids(tmp_path):
    game = load(tmp_path)
    for first, second, dealer_options in [
        (0, 0, ["bid 0", "bid 1"]),
        (1, 1, ["bid 1", "bid 2"]),
        (2, 0, ["bid 1", "bid 2"]),
        (1, 0, ["bid 0", "bid 2"]),
    ]:
        state = game.new_initial_state(seed=3)
        assert [a.text for a in state.legal_actions()] == ["bid 0", "bid 1", "bid 2"]
        state.apply_action(f"bid {first}")
        assert [a.text for a in state.legal_actions()] == ["bid 0", "bid 1", "bid 2"]  # not the dealer
        state.apply_action(f"bid {second}")
        assert [a.text for a in state.legal_actions()] == dealer_options


# -- deals that fix table zones ---------------------------------------------------------
HANDS = [["C1", "C2"], ["D1", "D2"], ["H1", "H2"]]


def test_a_deal_fixes_the_turned_up_card_and_the_stock_order(tmp_path):
    game = load(tmp_path)
    state = game.new_initial_state(seed=4, deals=[{"hands": HANDS, "stock": ["C5", "D5", "H5"]}])
    zones = state.observation_all()["zones"]
    assert zones["turnup"]["cards"] == ["H5"]  # the top card (listed last) is turned up
    assert zones["stock"]["cards"][-2:] == ["C5", "D5"]  # on top of the shuffled rest
    assert [z["cards"] for z in zones["hand"]] == HANDS
    assert sorted(zones["stock"]["cards"]) == sorted(set(game.cards) - {c for h in HANDS for c in h} - {"H5"})


def test_the_whole_stock_order_can_be_fixed(tmp_path):
    game = load(tmp_path)
    rest = [c for c in game.cards if c not in {x for h in HANDS for x in h}]
    rest.reverse()
    state = game.new_initial_state(seed=4, deals=[{"hands": HANDS, "stock": rest}])
    zones = state.observation_all()["zones"]
    assert zones["stock"]["cards"] + zones["turnup"]["cards"] == rest  # exactly, in order


def test_a_deal_without_hands_deals_them_from_the_other_cards(tmp_path):
    game = load(tmp_path)
    for seed in range(5):
        state = game.new_initial_state(seed=seed, deals=[{"stock": ["C3"]}])
        zones = state.observation_all()["zones"]
        assert zones["turnup"]["cards"] == ["C3"]
        dealt = [c for z in zones["hand"] for c in z["cards"]]
        assert len(dealt) == 6 and "C3" not in dealt


def test_a_deal_that_fixes_zones_replays_from_json(tmp_path):
    game = load(tmp_path)
    state = game.new_initial_state(seed=9, deals=[{"hands": HANDS, "stock": ["D4"]}])
    state.apply_action("bid 1")
    again = game.state_from_json(state.to_json())
    assert again.observation_all() == state.observation_all()
    assert json.loads(state.to_json())["deals"] == [{"hands": HANDS, "stock": ["D4"]}]


def test_another_table_zone_holds_exactly_its_cards(tmp_path):
    game = load(tmp_path)
    state = game.new_initial_state(seed=2, deals=[{"hands": HANDS, "turnup": ["H4"], "stock": ["C4"]}])
    # the effect then turns up the stock's top card on top of it
    assert state.observation_all()["zones"]["turnup"]["cards"] == ["H4", "C4"]


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ({"stok": ["C1"]}, "'stok' is neither 'hands' nor a table zone (did you mean 'stock'?)"),
        ({"stock": ["C9"]}, "unknown card 'C9'"),
        ({"stock": "C1"}, "a table zone is a list of card texts"),
        ({"hands": HANDS, "stock": ["C1"]}, "card 'C1' dealt 2 times"),
        ({"hands": [["C1"], ["D1"]]}, "expected one hand per seat"),
    ],
)
def test_bad_table_deals_say_why(tmp_path, deal, message):
    game = load(tmp_path)
    with pytest.raises(DealError) as err:
        game.new_initial_state(seed=0, deals=[deal])
    assert message in str(err.value)


def test_a_hand_of_the_wrong_size_in_a_table_deal_is_refused(tmp_path):
    game = load(tmp_path)
    with pytest.raises(DealError, match="this deal gives 2 cards, the hand lists 1"):
        game.new_initial_state(seed=0, deals=[{"hands": [["C1"], ["D1"], ["H1"]], "stock": []}])


def test_a_table_deal_that_leaves_too_few_cards_for_the_hands_is_refused(tmp_path):
    game = load(tmp_path)
    everything_but_five = list(game.cards)[5:]
    with pytest.raises(DealError, match="deal 0: cannot deal 2 cards to 3 seats from the 5 cards the deal leaves free"):
        game.new_initial_state(seed=0, deals=[{"stock": everything_but_five}])
