"""The teams primitive on its own: `teams:` (a list or a rule), team_of / partner /
team_members / num_teams, team variables, team_score, winners per team, simulate's team rows."""

import random

import pytest

import trickkit
from trickkit.errors import RulesetError
from trickkit.lab.simulation import simulate

BASE = """
format: 1
name: pairs
title: Pairs
players: {min: 2, max: 6, default: 4}
TEAMS
deck:
  - suit: {C: clubs, D: diamonds}
    rank: {from: 1, to: 12}
    text: "{suit}{rank}"
zones:
  stock: {owner: table, visibility: hidden}
  hand: {owner: seat, visibility: owner}
seat_variables:
  tricks: {initial: 0, reset: round}
TEAMVARS
round:
  - deal: {count: 2}
  - tricks:
      count: 2
      must_play_if_able: len(trick) == 0 or card.suit == trick[0].suit
      winner: highest(p for p in trick if p.suit == trick[0].suit by p.rank)
      after_trick: |
        tricks[winner.seat] += 1
        AFTER
game_over: round == ROUNDS
score: SCORE
EXTRA
"""


def write(
    tmp_path,
    teams="teams: [[0, 2], [1, 3]]",
    teamvars="team_variables:\n  won: {initial: 0}",
    after="won[team_of(winner.seat)] += 1",
    score="won[team_of(seat)]",
    extra="",
    rounds=2,
    name="g",
):
    text = (
        BASE.replace("TEAMVARS", teamvars)
        .replace("TEAMS", teams)
        .replace("AFTER", after)
        .replace("SCORE", score)
        .replace("EXTRA", extra)
        .replace("ROUNDS", str(rounds))
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, "utf-8")
    return path


def play_out(state, seed=0):
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_fixed_partnerships_share_team_variables_and_scores(tmp_path):
    game = trickkit.load_game(write(tmp_path))
    assert game.teams == ((0, 2), (1, 3))
    assert [game.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    state = play_out(game.new_initial_state(seed=3))
    won = state.observation(0)["variables"]["won"]
    assert len(won) == 2 and sum(won) == 4  # 2 rounds x 2 tricks, one count per team
    assert state.team_scores() == won
    assert state.scores() == [won[0], won[1], won[0], won[1]]
    best = max(won)
    assert state.winners() == [s for s in range(4) if won[s % 2] == best]


def test_both_partners_win_and_a_tie_makes_everyone_win(tmp_path):
    game = trickkit.load_game(write(tmp_path))
    outcomes = set()
    for seed in range(40):
        state = play_out(game.new_initial_state(seed=seed), seed)
        a, b = state.team_scores()
        want = [0, 1, 2, 3] if a == b else [0, 2] if a > b else [1, 3]
        assert state.winners() == want
        outcomes.add(tuple(want))
    assert len(outcomes) == 3  # both teams won some games, and some were ties


def test_a_teams_rule_and_the_team_functions(tmp_path):
    path = write(tmp_path, teams='teams: "seat % 3"')
    game = trickkit.load_game(path, players=6)
    assert game.teams == ((0, 3), (1, 4), (2, 5))
    assert [game.team_of(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    path2 = write(
        tmp_path,
        teams="teams: [[0, 2, 4], [1, 3, 5]]",
        name="h",
        after="won[team_of(winner.seat)] += partner(winner.seat) * 0 + 1\n"
        "        last = [team_of(0), team_of(5), partner(0), partner(2), partner(4), num_teams, len(team_members(1)), "
        "team_members(0)[2]]",
        extra="table_variables:\n  last: {initial: [], type: list}",
    )
    state = play_out(trickkit.load_game(path2, players=6).new_initial_state(seed=1))
    assert state.observation_all()["variables"]["last"] == [0, 1, 2, 4, 0, 2, 3, 4]


def test_without_teams_every_seat_is_a_team(tmp_path):
    path = write(
        tmp_path,
        teams="",
        teamvars="team_variables:\n  won: {initial: 0}",
        after="won[team_of(winner.seat)] += 1\n        flag = partner(winner.seat) == winner.seat and num_teams == 3",
        extra="table_variables:\n  flag: {initial: false}",
    )
    game = trickkit.load_game(path, players=3)
    assert game.teams == ((0,), (1,), (2,))
    state = play_out(game.new_initial_state(seed=2))
    assert state.team_scores() == state.scores()
    assert state.observation_all()["variables"]["flag"] is True
    best = max(state.scores())
    assert state.winners() == [s for s, v in enumerate(state.scores()) if v == best]


def test_team_score_rule_decides_the_winners(tmp_path):
    # per-seat scores differ inside a team; team_score sums them, and both partners win
    path = write(
        tmp_path,
        teamvars="",
        after="",
        score="tricks[seat] * 0 + seat",
        extra="team_score: sum(s for s in team_members(team))",
        rounds=1,
    )
    state = trickkit.load_game(path).new_initial_state(seed=0)
    assert state.team_scores() == [2, 4]
    assert state.winners() == [1, 3]
    assert state.scores() == [0, 1, 2, 3]


def test_team_variables_reset_and_copy_independently(tmp_path):
    path = write(tmp_path, teamvars="team_variables:\n  won: {initial: 0, reset: round}", rounds=3)
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=5)
    rng = random.Random(1)
    while state.round == 1:
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.observation(0)["variables"]["won"] == [0, 0]  # reset at the start of round 2
    clone = state.clone()
    while clone.round == 2:
        clone.apply_action(rng.choice(clone.legal_actions()))
    assert state.observation(0)["variables"]["won"] == [0, 0]  # the clone's trick counts stay its own


@pytest.mark.parametrize(
    ("teams", "message"),
    [
        ("teams: [[0, 2], [1]]", "no team lists seat 3"),
        ("teams: [[0, 2], [1, 3, 2]]", "seat 2 is in two teams"),
        ("teams: [[0, 2], [1, 7]]", "a team lists seats 0..3, got 7"),
        ('teams: "seat // 0"', "ZeroDivisionError"),
        ('teams: "if seat == 1 then null else seat"', "gives seat 1 no team"),
        ('teams: "round"', "unknown name 'round'"),
    ],
)
def test_bad_teams_are_located_errors(tmp_path, teams, message):
    with pytest.raises(RulesetError) as err:
        trickkit.load_game(write(tmp_path, teams=teams))
    assert message in str(err.value)
    assert "$.teams" in str(err.value)


def test_team_variable_misuse_is_a_load_error(tmp_path):
    with pytest.raises(RulesetError, match="is a team variable: write won\\[team_of\\(seat\\)\\]"):
        trickkit.load_game(write(tmp_path, after="won = 1"))
    with pytest.raises(RulesetError, match="team_score needs teams"):
        trickkit.load_game(write(tmp_path, teams="", extra="team_score: team"))


def test_a_team_function_of_a_seat_out_of_range_is_null(tmp_path):
    path = write(
        tmp_path,
        after="won[team_of(winner.seat)] += 1\n"
        "        flag = team_of(9) == null and partner(-1) == null and team_members(5) == null "
        "and team_of(first(s for s in [] if s > 0)) == null",
        extra="table_variables:\n  flag: {initial: false}",
    )
    state = play_out(trickkit.load_game(path).new_initial_state(seed=0))
    assert state.observation_all()["variables"]["flag"] is True


def test_simulate_summarises_teams_and_shares_ties(tmp_path):
    game = trickkit.load_game(write(tmp_path))
    summary = simulate(game, 60, seed=2)
    assert summary.teams == ((0, 2), (1, 3))
    assert sum(summary.team_win_rate) == pytest.approx(1.0)
    assert sum(summary.win_rate) > 1.0  # per seat both partners count a win
    assert 0 < summary.tie_rate < 1
    # seat 0 wins alone or in a tie; a tie gives its team half a win
    assert summary.team_win_rate[0] == pytest.approx(summary.win_rate[0] - summary.tie_rate / 2)
    text = summary.to_text()
    assert "team 0 (0+2)" in text and "team 1 (1+3)" in text and "ties" in text


def test_simulate_without_teams_has_one_team_per_seat():
    summary = simulate(trickkit.load_game("skull_king", players=3, rounds=2), 20, seed=1)
    assert summary.teams == ((0,), (1,), (2,))
    assert sum(summary.team_win_rate) == pytest.approx(1.0)
    assert "team 0" not in summary.to_text()


def test_the_transcript_tells_team_scores(tmp_path):
    state = play_out(trickkit.load_game(write(tmp_path)).new_initial_state(seed=3))
    a, b = state.team_scores()
    assert state.transcript(1).splitlines()[-1].split("; teams: ")[1].startswith(f"0+2 {a}, 1+3 {b}.")


def test_more_teams_than_seats_is_one_error(tmp_path):
    with pytest.raises(RulesetError) as err:
        trickkit.load_game(write(tmp_path, teams="teams: " + str([[0]] * 5000)))
    assert len(err.value.problems) == 1 and "5000 teams, the largest of 1 seats, for a table of 4" in str(err.value)


def test_replay_confirms_team_scores_of_simulated_games(tmp_path):
    import json

    from trickkit.engine.records import replay_records

    out = tmp_path / "games.jsonl"
    simulate(trickkit.load_game("spades", target=100, floor=-100), 3, seed=4, out=out)
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert all(len(r["team_scores"]) == 2 and r["scores"][0] == r["team_scores"][0] for r in records)
    records[1]["team_scores"] = [records[1]["team_scores"][1] + 1, 0]
    out.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    results = list(replay_records(out))
    assert [r.status for r in results] == ["confirmed", "diverged", "confirmed"]
    assert "team scores expected" in results[1].message
