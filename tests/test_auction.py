"""The ``auction`` step (issue 29): ordered calls, pass, double and redouble, the end after passes,
a passed-out auction, and the outputs (contract, caller, declarer, doubled), each on a tiny ruleset:
a four-seat auction with partnerships like Bridge's, Euchre-like making (the first call ends it,
an ``allowed`` filter), and a numbers auction without teams."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.engine.auction import DOUBLE, PASS, REDOUBLE
from trickkit.errors import DSLRuntimeError, IllegalActionError, RulesetError

BRIDGE = """
format: 1
name: minibridge
title: Mini bridge
players: {min: 4, max: 4, default: 4}
teams: [[0, 2], [1, 3]]
deck:
  - {suit: {C: clubs, D: diamonds, H: hearts, S: spades}, rank: {from: 2, to: 4}, text: "{suit}{rank}"}
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
table_variables:
  # kept from round to round (no reset): a passed-out auction must write its nulls
  contract: {initial: null, type: str}
  caller: {initial: null, type: seat}
  declarer: {initial: null, type: seat}
  doubled: {initial: 0}
  boards: {initial: 0}
definitions:
  strains: "['C', 'D', 'H', 'S', 'N']"
  all_calls: "['1C', '1D', '1H', '1S', '1N', '2C', '2D', '2H', '2S', '2N']"
  strain_of(c): strains[index_of(all_calls, c) % 5]
round:
  - deal: {count: 3}
  - auction:
      first: dealer
      calls: all_calls
      strain: strain_of(call)
      double: true
      ends_after_passes: 3
      passed_out_after: 4
      contract: contract
      caller: caller
      declarer: declarer
      doubled: doubled
  - effect: "boards += 1"
game_over: round == 2
score: "0"
"""

EUCHRE = """
format: 1
name: minieuchre
title: Mini euchre
players: {min: 4, max: 4, default: 4}
teams: [[0, 2], [1, 3]]
deck:
  - {suit: {C: clubs, D: diamonds, H: hearts, S: spades}, rank: {from: 9, to: 10}, text: "{suit}{rank}"}
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
table_variables:
  turned: {initial: null, type: str, reset: round}
  ordered: {initial: null, type: str, reset: round}
  orderer: {initial: null, type: seat, reset: round}
  named: {initial: null, type: str, reset: round}
  namer: {initial: null, type: seat, reset: round}
  maker: {initial: null, type: seat, reset: round}
definitions:
  second_calls: "['C', 'C alone', 'D', 'D alone', 'H', 'H alone', 'S', 'S alone']"
  call_suit(call): "['C', 'D', 'H', 'S'][index_of(second_calls, call) // 2]"
round:
  - deal: {count: 1}
  - effect: "turned = 'H'"
  - auction:
      first: left_of(dealer)
      calls: "['order', 'order alone']"
      text: "{call}"
      ends_after_passes: 0
      passed_out_after: 4
      contract: ordered
      caller: orderer
  - auction:
      first: left_of(dealer)
      calls: second_calls
      text: "call {call}"
      strain: call_suit(call)
      allowed: call_suit(call) != turned
      ends_after_passes: 0
      passed_out_after: 4
      contract: named
      caller: namer
      declarer: maker
game_over: "true"
score: "0"
"""

NUMBERS = """
format: 1
name: mininumbers
title: Mini numbers auction
players: {min: 3, max: 3, default: 3}
deck:
  - {rank: {from: 1, to: 9}, text: "{rank}"}
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
table_variables:
  value: {initial: null, type: int, reset: round}
  bidder: {initial: null, type: seat, reset: round}
round:
  - deal: {count: 2}
  - auction:
      calls: "[18, 20, 22, 23, 24]"
      text: "{call}"
      pass: pass
      contract: value
      caller: bidder
game_over: "true"
score: "0"
"""


CALLS = ["1C", "1D", "1H", "1S", "1N", "2C", "2D", "2H", "2S", "2N"]


def load(tmp_path: Path, text: str, name: str = "auction") -> trickkit.Game:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), "utf-8")
    return trickkit.load_game(path)


def play(state: trickkit.State, actions: str) -> None:
    for a in actions.split("|"):
        state.apply_action(a.strip())


def texts(state: trickkit.State) -> list[str]:
    return [a.text for a in state.legal_actions()]


def outputs(game: trickkit.Game, state: trickkit.State) -> dict[str, object]:
    return {v.name: state.table_vars[v.index] for v in game.rules.table_vars}


@pytest.fixture
def bridge(tmp_path: Path) -> trickkit.Game:
    return load(tmp_path, BRIDGE, "bridge")


# ------------------------------------------------------------------------------ bridge-like
def test_a_redoubled_contract_and_its_declarer(bridge):
    state = bridge.new_initial_state(seed=1)
    assert state.current_player() == 0 and state.observation(0)["phase"] == "auction"
    assert texts(state) == [f"bid {c}" for c in CALLS] + ["pass"]
    play(state, "bid 1C|pass|bid 1H")
    assert texts(state)[-2:] == ["pass", "double"] and texts(state)[0] == "bid 1S"
    play(state, "double")
    assert state.current_player() == 0 and texts(state)[-2:] == ["pass", "redouble"]
    play(state, "redouble|pass|pass")
    assert outputs(bridge, state)["contract"] is None  # not over yet: two passes
    play(state, "pass")
    got = outputs(bridge, state)
    assert (got["contract"], got["caller"], got["declarer"], got["doubled"]) == ("1H", 2, 2, 2)
    assert got["boards"] == 1 and state.round == 2


def test_the_declarer_is_the_first_of_the_side_to_name_the_strain(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 1H|bid 1S|bid 2H|pass|pass|pass")
    got = outputs(bridge, state)
    assert (got["contract"], got["caller"], got["declarer"], got["doubled"]) == ("2H", 2, 0, 0)


def test_a_double_of_the_partners_call_is_no_declarer_business(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 1C|double|pass|pass|pass")  # an undoubled call by the other side? no: doubled
    got = outputs(bridge, state)
    assert (got["contract"], got["caller"], got["declarer"], got["doubled"]) == ("1C", 0, 0, 1)


def test_a_new_call_after_a_double_clears_the_doubling(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 1C|double|bid 1D")
    assert "redouble" not in texts(state) and "double" in texts(state)
    play(state, "pass|pass|pass")
    assert outputs(bridge, state)["doubled"] == 0 and outputs(bridge, state)["contract"] == "1D"


def test_a_passed_out_auction(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "pass|pass|pass")
    assert state.round == 1
    play(state, "pass")
    got = outputs(bridge, state)
    assert state.round == 2 and got["boards"] == 1
    # round 2's auction starts afresh: the observation shows only this round's calls
    assert state.observation(1)["auction"] == []
    assert (got["contract"], got["caller"], got["declarer"], got["doubled"]) == (None, None, None, 0)


def test_passed_out_writes_null_over_an_earlier_contract(tmp_path):
    game = load(tmp_path, BRIDGE)
    state = game.new_initial_state(seed=1)
    play(state, "bid 2N|double|redouble|pass|pass|pass")
    assert outputs(game, state)["contract"] == "2N" and outputs(game, state)["doubled"] == 2
    play(state, "pass|pass|pass|pass")
    got = outputs(game, state)
    assert state.is_terminal() and (got["contract"], got["caller"], got["declarer"], got["doubled"]) == (
        None,
        None,
        None,
        0,
    )


def test_the_top_call_leaves_only_pass_and_double(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 2N")
    assert texts(state) == ["pass", "double"]


def test_every_seat_sees_the_same_public_auction(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 1C|pass|bid 1H|double|redouble")
    want = [
        {"seat": 0, "kind": "call", "call": "1C"},
        {"seat": 1, "kind": "pass", "call": None},
        {"seat": 2, "kind": "call", "call": "1H"},
        {"seat": 3, "kind": "double", "call": "1H"},
        {"seat": 0, "kind": "redouble", "call": "1H"},
    ]
    for seat in range(4):
        assert state.observation(seat)["auction"] == want
        assert state.history_seen_by(seat) == ["bid 1C", "pass", "bid 1H", "double", "redouble"]
    assert state.observation_all()["auction"] == want


def test_games_without_an_auction_have_no_auction_key():
    state = trickkit.load_game("hearts").new_initial_state(seed=0)
    assert "auction" not in state.observation(0)


def test_the_auction_tensor_segment(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 1C|pass|bid 1H|double|redouble|pass")
    (seg,) = [s for s in bridge.observation_tensor_layout() if s.name == "auction"]
    assert seg.size == 10 * 3 * 4 + 2
    t = state.observation_tensor(1)[seg.start : seg.start + seg.size].tolist()
    block = lambda i: t[12 * i : 12 * i + 12]  # noqa: E731  # call i: called by, doubled by, redoubled by
    assert block(0) == [0, 0, 0, 1] + [0] * 8  # 1C by seat 0: +3 from seat 1
    assert block(2) == [0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]  # 1H by 2 (+1), X by 3 (+2), XX by 0 (+3)
    assert sum(t[:-2]) == 4 and t[-2:] == [6.0, 1.0]  # six decisions, one pass in a row at the end
    assert len(state.observation_tensor(0)) == bridge.observation_tensor_shape()[0]


def test_the_action_space_lists_every_auction_action(bridge):
    space = bridge.action_space.texts
    want = [*(f"bid {c}" for c in CALLS), "pass", "double", "redouble"]
    assert list(space) == want
    state = bridge.new_initial_state(seed=3)
    play(state, "bid 1S|double")
    assert [space[i] for i in state.legal_action_ids()] == texts(state)
    state.apply_action(space.index("redouble"))
    assert state.history()[-1] == "redouble"


def test_actions_are_made_once(bridge):
    a, b = bridge.new_initial_state(seed=1), bridge.new_initial_state(seed=2)
    assert all(x is y for x, y in zip(a.legal_actions(), b.legal_actions(), strict=True))
    play(a, "bid 1D")
    assert a.legal_actions()[0] is b.legal_actions()[2]


def test_clones_and_saved_states(bridge):
    state = bridge.new_initial_state(seed=1)
    play(state, "bid 1C|double")
    copy = state.clone()
    play(copy, "redouble|pass|pass|pass")
    assert outputs(bridge, copy)["doubled"] == 2
    assert len(state.observation(0)["auction"]) == 2 and texts(state)[-1] == "redouble"
    again = bridge.state_from_json(copy.to_json())
    assert again.history() == copy.history() and outputs(bridge, again) == outputs(bridge, copy)


# ------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("before", "action", "why"),
    [
        ("bid 2H", "bid 1C", "bid 1C does not outrank 2H"),
        ("bid 2H", "bid 2H", "bid 2H does not outrank 2H"),
        ("bid 1C", "bid 9Z", "unknown call 'bid 9Z'"),
        ("", "double", "there is no call to double yet"),
        ("", "redouble", "there is no call to redouble yet"),
        ("bid 1C|pass", "double", "you may only double an opponent's call"),
        ("bid 1C|double", "double", "1C is already doubled"),
        ("bid 1C", "redouble", "1C is not doubled: only a doubled call may be redoubled"),
        ("bid 1C|double|pass", "redouble", "you may only redouble your own side's doubled call"),
        ("bid 1C|double|redouble", "redouble", "1C is already redoubled"),
        ("", "play C2", "unknown call 'play C2'"),
    ],
)
def test_refusals_say_why_and_change_nothing(bridge, before, action, why):
    state = bridge.new_initial_state(seed=1)
    if before:
        play(state, before)
    seen = state.to_json()
    with pytest.raises(IllegalActionError) as e:
        state.apply_action(action)
    assert why in str(e.value)
    assert state.to_json() == seen


def test_no_doubles_without_double_true(tmp_path):
    game = load(tmp_path, BRIDGE.replace("double: true", "double: false"))
    state = game.new_initial_state(seed=1)
    play(state, "bid 1C")
    assert "double" not in texts(state)
    with pytest.raises(IllegalActionError, match="this auction has no doubles"):
        state.apply_action("double")
    assert "double" not in game.action_space.texts


# --------------------------------------------------------------------------------- euchre-like
def test_the_first_call_ends_a_making_round(tmp_path):
    game = load(tmp_path, EUCHRE)
    state = game.new_initial_state(seed=1)
    assert state.current_player() == 1 and texts(state) == ["order", "order alone", "pass"]
    play(state, "pass|order alone")
    got = outputs(game, state)
    assert got["ordered"] == "order alone" and got["orderer"] == 2
    # the second auction runs (no `when:` here): its calls skip the turned suit
    assert texts(state) == ["call C", "call C alone", "call D", "call D alone", "call S", "call S alone", "pass"]
    with pytest.raises(IllegalActionError, match="call H is not allowed now"):
        state.apply_action("call H")
    play(state, "pass|call S alone")
    got = outputs(game, state)
    assert (got["named"], got["namer"], got["maker"]) == ("S alone", 2, 2)
    assert state.is_terminal()


def test_after_a_call_only_higher_calls_pass_the_filter(tmp_path):
    game = load(tmp_path, EUCHRE)
    state = game.new_initial_state(seed=1)
    play(state, "pass|pass|pass|pass")  # round 1 passed out
    assert outputs(game, state)["ordered"] is None and outputs(game, state)["orderer"] is None
    assert state.observation(0)["auction"] == []  # the second auction has begun
    play(state, "pass|pass|pass|pass")
    got = outputs(game, state)
    assert state.is_terminal() and (got["named"], got["namer"], got["maker"]) == (None, None, None)


def test_a_call_that_is_the_verb_itself(tmp_path):
    game = load(tmp_path, EUCHRE)
    assert game.action_space.texts[:3] == ("order", "order alone", "pass")
    state = game.new_initial_state(seed=1)
    state.apply_action("ORDER")  # the verb's case does not matter, as for every action
    assert outputs(game, state)["ordered"] == "order"


# ---------------------------------------------------------------------------------- numbers
def test_a_numbers_auction_without_teams(tmp_path):
    game = load(tmp_path, NUMBERS)
    state = game.new_initial_state(seed=1)
    assert state.current_player() == 1 and texts(state) == ["18", "20", "22", "23", "24", "pass"]
    play(state, "18|pass|20")  # seats 1, 2, 0
    with pytest.raises(IllegalActionError, match="20 does not outrank 20"):
        state.apply_action("20")
    play(state, "22|pass")  # seats 1, 2  # two passes after the last call (default: one fewer than the seats)
    assert not state.is_terminal()
    play(state, "pass")
    got = outputs(game, state)
    assert state.is_terminal() and got["value"] == 22 and got["bidder"] == 1
    assert state.observation(0)["auction"][0] == {"seat": 1, "kind": "call", "call": 18}


# ------------------------------------------------------------------------------- load errors
@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("contract: contract", "contract: contrakt", "unknown table variable 'contrakt' (did you mean 'contract'?)"),
        (
            "contract: contract",
            "contract: boards",
            "variable 'boards' is of type int; the auction's contract is a text",
        ),
        ("caller: caller", "caller: contract", "variable 'contract' is of type str; the auction's caller is"),
        (
            "contract: {initial: null, type: str}",
            "contract: {initial: '', type: str}",
            "variable 'contract' must be declared with initial: null",
        ),
        ("calls: all_calls", "calls: \"['1C', '1D', '1C']\"", "calls must be distinct: '1C' is listed twice"),
        ("calls: all_calls", "calls: \"['1C', 2]\"", "must be all texts (or all numbers)"),
        ("calls: all_calls", "calls: \"[' 1C']\"", "a call is a text without leading, trailing or repeated spaces"),
        ("calls: all_calls", 'calls: "[]"', "calls is empty"),
        ("calls: all_calls", "calls: hand", "calls must be a list of texts (or of numbers), got list[zone]"),
        (
            "calls: all_calls",
            "calls: \"['pass']\"\n      text: '{call}'",
            "the call text 'pass' is also the text of a pass",
        ),
        ("double: true", "double: true\n      text: bid", "text must hold {call} once"),
        ("double: true", "double: true\n      text: '{call} {call}'", "text must hold {call} once"),
        ("double: true", "double: true\n      pass: double", "the text of a pass may not be 'double'"),
        ("ends_after_passes: 3", "ends_after_passes: -1", "ends_after_passes must be at least 0, got -1"),
        ("passed_out_after: 4", "passed_out_after: 0", "passed_out_after must be at least 1, got 0"),
        ("strain: strain_of(call)", "strain: strain_of(cal)", "unknown name 'cal'"),
        ("strain: strain_of(call)", "strain: strain_of(call)\n      allowed: call + 1", ""),
    ],
)
def test_load_errors_are_located(tmp_path, old, new, message):
    assert old in BRIDGE
    with pytest.raises(RulesetError) as e:
        load(tmp_path, BRIDGE.replace(old, new, 1))
    text = str(e.value)
    assert "$.round[1].auction" in text and message in text


def test_a_team_variable_cannot_take_an_output(tmp_path):
    text = BRIDGE.replace("  boards: {initial: 0}\n", "  boards: {initial: 0}\nteam_variables:\n  side: {initial: 0}\n")
    with pytest.raises(RulesetError, match="'side' is a team variable; the auction's doubled must be a table variable"):
        load(tmp_path, text.replace("doubled: doubled", "doubled: side"))


def test_calls_computed_in_play_are_checked_when_the_auction_starts(tmp_path):
    text = BRIDGE.replace("calls: all_calls", "calls: \"if round == 2 then ['1C', '1D', '1C'] else all_calls\"")
    game = load(tmp_path, text)
    assert game.action_space.texts[0] == "bid 1C"
    state = game.new_initial_state(seed=1)
    with pytest.raises(DSLRuntimeError, match=r"\$\.round\[1\]\.auction\.calls: calls must be distinct"):
        play(state, "pass|pass|pass|pass")


def test_the_schema_describes_the_step():
    from trickkit.rules.schema_check import load_schema

    spec = load_schema()["$defs"]["auctionStep"]
    assert spec["required"] == ["calls"] and spec["examples"]
    for name, prop in spec["properties"].items():
        assert prop.get("description"), name


# ------------------------------------------------------------------------------ properties
STRAINS = {  # what each test ruleset's calls name (its `strain` rule, written again in Python)
    "bridge": lambda call: call[-1],
    "euchre": lambda call: call[0],
    "numbers": lambda call: call,
}


@pytest.mark.parametrize("which", ["bridge", "numbers", "euchre"])
def test_random_auctions_end_and_their_outputs_agree_with_the_calls(tmp_path, which):
    game = load(tmp_path, {"bridge": BRIDGE, "numbers": NUMBERS, "euchre": EUCHRE}[which])
    team, strain = game.rules.team_of, STRAINS[which]
    ended = 0
    for seed in range(150):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        record: list[tuple[int, int]] = []
        while not state.is_terminal() and state.round == 1:
            step, node = game.rules.steps[state.step], state.auction
            legal = state.legal_actions()
            assert len(legal) == len(set(texts(state))) > 0
            action = rng.choice(legal)
            record.append((state.current_player(), action.value))
            index = state.step
            state.apply_action(action)
            assert len(state.history()) < 100  # bounded: calls only rise, a call is doubled once
            if state.is_terminal() or state.round != 1 or state.step != index:
                ended += 1
                _check_outputs(game, state, step, node.table, record, team, strain)
                record = []
    assert ended >= 150


def _check_outputs(game, state, step, table, record, team, strain):
    """The outputs an auction wrote when it ended agree with its record of decisions."""
    values = table.values
    got = {v.index: state.table_vars[v.index] for v in game.rules.table_vars}
    calls = [(seat, code) for seat, code in record if code >= 0]
    assert [c for _, c in calls] == sorted({c for _, c in calls})  # every call outranks the last
    passes_at_end = len(record) - max((i + 1 for i, (_, c) in enumerate(record) if c != PASS), default=0)
    if not calls:
        assert passes_at_end == len(record) == table.out
        want = {"contract": None, "caller": None, "declarer": None, "doubled": 0}
    else:
        assert passes_at_end == table.ends
        seat, code = calls[-1]
        after = [c for _, c in record[record.index((seat, code)) + 1 :]]
        doubled = after.count(DOUBLE) + after.count(REDOUBLE)
        assert doubled <= 2 and after.count(REDOUBLE) <= after.count(DOUBLE)
        side = [s for s, c in calls if team[s] == team[seat] and strain(values[c]) == strain(values[code])]
        want = {"contract": values[code], "caller": seat, "declarer": side[0], "doubled": doubled}
    for key, value in want.items():
        var = getattr(step, key)
        if var is not None:
            assert got[var.index] == value, (key, record)


# --------------------------------------------------------------------------- lab tools
def test_the_rulebook_lists_the_calls(tmp_path):
    from trickkit.lab.rulebook import rulebook

    load(tmp_path, BRIDGE, "bridge")
    text = rulebook(str(tmp_path / "bridge.yaml"))
    assert "calls, lowest first: `bid 1C`, `bid 1D`" in text and "`bid 2N`; or `pass`, `double`, `redouble`" in text
    assert "auction from dealer: call higher than the last call, pass, double, redouble (until 3 passes)" in text


def test_lint_reports_a_call_the_allowed_rule_never_lets_through(tmp_path):
    from trickkit.lab.lint import lint

    load(tmp_path, BRIDGE.replace("double: true", "double: true\n      allowed: call != '1S'"), "bridge")
    found = [p for p in lint(str(tmp_path / "bridge.yaml"), games=20) if "allowed" in p.message]
    assert len(found) == 1 and "never let a seat make the call 1S in 20 random games" in found[0].message
    assert found[0].path.endswith("auction.allowed")
    load(tmp_path, EUCHRE, "euchre")  # every suit but the turned one (H) is offered in round 2
    assert [p.message for p in lint(str(tmp_path / "euchre.yaml"), games=20) if "allowed" in p.message] == [
        "the auction's 'allowed' rule never let a seat make the calls H, H alone in 20 random games "
        "(a dead call, or one random play cannot reach)"
    ]
