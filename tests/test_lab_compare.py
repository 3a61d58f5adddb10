"""trickkit compare and the seat advantage of simulate (trickkit.lab.compare, trickkit.lab.play)."""

from __future__ import annotations

import csv
import itertools
import sys
from typing import ClassVar

import pytest

import trickkit
from trickkit.cli.main import main
from trickkit.lab import stats
from trickkit.lab.compare import compare
from trickkit.lab.play import play_measured
from trickkit.lab.simulation import play_game, simulate


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def short():
    return trickkit.load_game("skull_king", rounds=2), trickkit.load_game("skull_king", rounds=3)


def test_play_measured_plays_the_game_simulate_plays(short):
    game = short[1]
    for i in range(4):
        record, measured = play_game(game, 7, i), play_measured(game, 7, i)
        assert list(measured.scores) == record["scores"] and list(measured.winners) == record["winners"]
        assert measured.actions == len(record["actions"]) and measured.seed == record["seed"]
        assert measured.rounds == 3


def test_variants_share_seeds_and_deals(short):
    a, b = short
    comp = compare([("two", a), ("three", b)], 6, seed=3)
    assert [r.seed for r in comp.results[0]] == [r.seed for r in comp.results[1]]
    assert comp.differences[0].same_deal == (6, 6)  # same deck, same deal step: the same first deal
    other = compare([("sk", a), ("sk2021", trickkit.load_game("skull_king_2021", rounds=2))], 3, seed=3)
    assert other.differences[0].same_deal == (0, 3)  # the 2021 deck has other cards


def test_statistics_are_those_of_the_games(short):
    a, b = short
    comp = compare([("two", a), ("three", b)], 8, seed=1)
    va, vb = comp.variants
    ra, rb = comp.results
    for seat in range(4):
        wins = sum(1 for r in ra if seat in r.winners)
        assert va.win_rate[seat] == stats.wilson(wins, 8)
        assert va.mean_score[seat] == stats.mean_interval([r.scores[seat] for r in ra])
        d = comp.differences[0]
        assert d.mean_score[seat].estimate == pytest.approx(
            sum(y.scores[seat] - x.scores[seat] for x, y in zip(ra, rb)) / 8
        )
    assert va.rounds.estimate == 2 and vb.rounds.estimate == 3
    assert comp.differences[0].rounds == stats.Interval(1.0, 1.0, 1.0, 8)
    assert va.actions.estimate == 4 * (1 + 1) + 4 * (1 + 2)  # bids and cards of rounds 1 and 2


def test_jobs_do_not_change_the_results(short):
    a, b = short
    one = compare([("a", a), ("b", b)], 5, seed=9)
    two = compare([("a", a), ("b", b)], 5, seed=9, jobs=2)
    assert one.results == two.results and one.variants == two.variants


class _Scripted:
    """A stand-in game whose scores after each round follow a script (one action per round)."""

    name = "scripted"
    num_players = 2
    params: ClassVar[dict] = {}

    def __init__(self, script):
        self.script = script

    def new_initial_state(self, seed):
        return _ScriptedState(self.script)


class _ScriptedState:
    def __init__(self, script):
        self.script, self.round, self.done = script, 1, 0

    def is_terminal(self):
        return self.done == len(self.script)

    def current_player(self):
        return 0

    def legal_actions(self):
        return ["next"]

    def apply_action(self, action):
        self.done += 1
        if not self.is_terminal():
            self.round += 1

    def scores(self):
        return list(self.script[self.done - 1]) if self.done else [0, 0]

    def winners(self):
        s = self.scores()
        return [i for i, v in enumerate(s) if v == max(s)]


def test_lead_changes_count_rounds_whose_leaders_differ():
    # leaders after each round: {0}, {1}, {0}, {0, 1}, {0, 1}: three changes
    stats_ = play_measured(_Scripted([(1, 0), (1, 2), (3, 2), (3, 3), (4, 4)]), 0, 0)
    assert (stats_.lead_changes, stats_.rounds, stats_.actions) == (3, 5, 5)
    assert play_measured(_Scripted([(5, 0)]), 0, 0).lead_changes == 0


def test_compare_cli_tables_and_csv(capsys, tmp_path):
    out_csv = tmp_path / "c.csv"
    code, out, err = run(
        capsys,
        "compare",
        "skull_king@rounds=2",
        "skull_king@rounds=3",
        "--games",
        "6",
        "--seed",
        "2",
        "--csv",
        str(out_csv),
    )
    assert code == 0, err
    assert "per seat: 6 games per variant, seed 2" in out
    assert "paired differences from skull_king@rounds=2" in out
    assert "6 of 6" in out  # same opening deal
    rows = list(csv.DictReader(out_csv.open()))
    stats_ = {(r["variant"], r["seat"], r["statistic"]) for r in rows}
    assert ("skull_king@rounds=2", "0", "win_rate") in stats_
    assert ("skull_king@rounds=3", "3", "diff_mean_score") in stats_
    rounds = next(r for r in rows if r["statistic"] == "diff_rounds")
    assert float(rounds["estimate"]) == 1.0 and rounds["games"] == "6"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["compare", "skull_king", "--games", "0"], "--games must be >= 1"),
        (["compare", "nope_game", "--games", "2"], "unknown game"),
        (["compare", "skull_king", "--agents", "clever"], "unknown agent 'clever'"),
        (["compare", "skull_king", "--agents", "random,first"], "2 agents for a 4-player game"),
        (["compare", "skull_king", "--csv", "/no/such/dir/x.csv"], "no such folder"),
    ],
)
def test_compare_cli_errors_are_one_line(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_compare_with_the_first_legal_action_agent(capsys):
    code, out, err = run(capsys, "compare", "sarkophag", "sarkophag@hand_size=5", "--games", "3", "--agents", "first")
    assert code == 0, err
    assert "sarkophag@hand_size=5" in out


def test_compare_with_an_agent_from_a_module(capsys, tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(
        "class Last:\n"
        "    def __init__(self, rng):\n"
        "        self.rng = rng\n"
        "    def step(self, state):\n"
        "        return state.legal_actions()[-1]\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, _, err = run(
        capsys, "compare", "sarkophag@hand_size=3", "--games", "2", "--agents", "my_agents:Last", "--csv", "last.csv"
    )
    assert code == 0, err
    first = run(capsys, "compare", "sarkophag@hand_size=3", "--games", "2", "--agents", "first", "--csv", "first.csv")
    assert first[0] == 0
    assert (tmp_path / "last.csv").read_text() != (tmp_path / "first.csv").read_text()


def test_simulate_reports_seat_advantage(capsys):
    summary = simulate(trickkit.load_game("sarkophag", hand_size=3), 40, seed=4)
    assert sum(summary.win_share) == pytest.approx(40)  # split credit adds up to the games
    assert summary.wins[0] >= summary.win_share[0]
    test = summary.seat_test()
    assert test == stats.chi_square_equal(summary.win_share)
    text = " ".join(summary.to_text().split())  # whitespace normalised
    assert f"every seat equal? chi-square {test.statistic:.2f} on 3 df, p = {test.p_value:.3g}" in text
    i = summary.win_interval(1)
    assert i == stats.wilson(summary.wins[1], 40)
    assert f"{i.low:.1%}-{i.high:.1%}" in text


def test_cli_reference_documents_the_lab():
    from trickkit.cli import docgen

    page = docgen.cli_reference()
    assert "## `trickkit compare`" in page
    for option in ("--coverage", "--report", "--csv", "--agents"):
        assert option in page


def test_lead_changes_of_real_games_match_a_replay(short):
    game = short[1]  # Skull King, 3 rounds: highest score leads
    for i in range(3):
        record = play_game(game, 11, i)
        state = game.new_initial_state(seed=record["seed"])
        leads = []
        for action in record["actions"]:
            before = state.round
            state.apply_action(action)
            if state.round != before or state.is_terminal():
                scores = state.scores()
                leads.append({s for s, v in enumerate(scores) if v == max(scores)})
        changes = sum(1 for a, b in itertools.pairwise(leads) if a != b)
        assert len(leads) == 3
        assert play_measured(game, 11, i).lead_changes == changes


class _TeamState(_ScriptedState):
    def team_scores(self):
        s = self.scores()
        return [s[0] + s[1], 0]


def test_team_scores_are_reported_when_the_state_has_them():
    class Teams(_Scripted):
        def new_initial_state(self, seed):
            return _TeamState(self.script)

    stats_ = play_measured(Teams([(1, 2), (3, 1)]), 0, 0)
    assert stats_.team_scores == (4, 0) and stats_.team_winners == (0,)
    comp = compare([("teams", Teams([(1, 2)]))], 3)
    assert comp.variants[0].team_mean_score[0].estimate == 3 and comp.variants[0].team_win_rate[0].estimate == 1.0


def test_simulate_tests_team_balance_per_team_in_team_games():
    # issue 30: in a partnership game only teams are meaningful: the chi-square is over the teams
    summary = simulate(trickkit.load_game("spades"), 6, seed=2)
    test = summary.seat_test()
    assert test.df == 1  # two teams
    assert test == stats.chi_square_equal([r * summary.games for r in summary.team_win_rate])
    text = " ".join(summary.to_text().split())
    assert f"every team equal? chi-square {test.statistic:.2f} on 1 df" in text
    assert "every seat equal?" not in text
    variant = compare([("spades", trickkit.load_game("spades"))], games=4, seed=1).variants[0]
    assert variant.seat_test.df == 1
