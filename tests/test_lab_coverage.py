"""Rule coverage (``simulate --coverage``): counters compiled in only on request, counts that add up."""

from __future__ import annotations

import textwrap

import pytest

import trickkit
from trickkit.cli.main import main
from trickkit.dsl import allowlist
from trickkit.lab.coverage import simulate_with_coverage
from trickkit.lab.simulation import play_game

MINI = textwrap.dedent("""\
    format: 1
    name: mini
    title: Mini
    players: {min: 2, max: 2, default: 2}
    parameters:
      bonus: {type: bool, default: false}
    deck:
      - rank: {from: 1, to: 6}
        text: "c{rank}"
    zones:
      stock: {owner: table, visibility: hidden}
      hand: {owner: seat, visibility: owner}
    seat_variables:
      points: {initial: 0}
    round:
      - deal: {count: 3}
      - tricks:
          count: 3
          winner: "highest(p for p in trick by p.rank)"
          after_trick: |
            if winner.seat == 0 {
              points[0] += 1
            } else {
              points[1] += (if winner.rank > 99 then 100 else 1)
            }
            if bonus {
              points[winner.seat] += 5
            }
    game_over: "true"
    score: points[seat]
    """)


@pytest.fixture
def mini(tmp_path):
    path = tmp_path / "mini.yaml"
    path.write_text(MINI)
    return str(path)


def test_counters_only_on_request_and_the_same_games():
    for name in trickkit.list_games():
        plain, counted = trickkit.load_game(name), trickkit.load_game(name, coverage=True)
        assert "_cov" not in plain.rules.generated_source and plain.coverage is None
        assert "_cov(s, " in counted.rules.generated_source and counted.coverage.sites
        for i in range(1):
            a, b = play_game(plain, 5, i), play_game(counted, 5, i)
            assert (a["actions"], a["scores"]) == (b["actions"], b["scores"]), name


def test_the_counter_is_a_generator_helper_under_the_allow_list():
    source = "def _r1(s, fr):\n    return _cov(s, 3, fr[0])\n"  # the shape the generator emits
    allowlist.check(source, {"_cov": None})
    with pytest.raises(allowlist.UnsafeCode):  # a namespace without counters does not know the name
        allowlist.check(source, {"_move": None})
    game = trickkit.load_game("sarkophag", coverage=True)
    assert (
        "_cov" in game.rules.generated_source and "_cov" not in trickkit.load_game("sarkophag").rules.generated_source
    )


def test_branch_counts_add_up_and_dead_branches_are_listed(mini):
    game = trickkit.load_game(mini, coverage=True)
    summary, report = simulate_with_coverage(game, 20, seed=3)
    by = {(s.site.kind, s.site.label, s.site.text): s for s in report.sites}
    then = by[("if", "then", "winner.seat == 0")]
    else_ = next(
        s
        for s in report.sites
        if s.site.kind == "if"
        and s.site.label == "else"
        and (s.site.where, s.site.line, s.site.column) == (then.site.where, then.site.line, then.site.column)
    )
    tricks = 20 * 3
    assert then.count + else_.count == tricks  # each trick takes one branch
    seat0_points = summary.mean_score[0] * 20  # seat 0 scores one point per trick it wins
    assert then.count == round(seat0_points)
    # the rule block ran once per trick; the if-expression's 'then' can never fire (rank > 99)
    assert by[("rule", "runs", "")].count == tricks
    assert by[("if-expression", "then", "winner.rank > 99")].count == 0
    assert by[("if-expression", "else", "winner.rank > 99")].count == else_.count
    never = report.never_fired()
    assert any("if-expression (then): winner.rank > 99" in line for line in never)
    assert any("if (then): bonus (decided when the game is loaded" in line for line in never)  # off
    assert report.action_kinds == (("play", 120, 120),)
    assert sum(n for _, n in report.cards) == 120
    # locations point into the file: the if statement's condition is on line 21, column 12
    assert then.location.startswith(f"{mini}:21:12: $.round[1].tricks.after_trick")
    assert by[("if-expression", "then", "winner.rank > 99")].location.startswith(f"{mini}:24:")


def test_worker_processes_count_the_same(mini):
    game = trickkit.load_game(mini, coverage=True)
    one, alone = simulate_with_coverage(game, 12, seed=5)
    two, shared = simulate_with_coverage(game, 12, seed=5, jobs=2)
    assert (one.wins, one.mean_score) == (two.wins, two.mean_score)
    assert alone.sites == shared.sites and alone.cards == shared.cards and alone.decisions == shared.decisions == 72


def test_an_action_kind_never_legal_is_listed(tmp_path):
    path = tmp_path / "never.yaml"
    path.write_text(
        textwrap.dedent("""\
        extends: sarkophag
        name: never
        round:
          - deal: {count: hand_size, to: hand, rest: stock}
          - turns:
              until: "all(len(hand[s]) == 0 for s in seats)"
              actions:
                drop:
                  text: drop {c}
                  choices: {c: "hand[current_player]"}
                  effect: |
                    move(c, hand[current_player], taken[current_player])
                    end_turn()
                hoard:
                  allowed: len(stock) > 1000
                  effect: end_turn()
        """)
    )
    game = trickkit.load_game(str(path), coverage=True)
    _, report = simulate_with_coverage(game, 3, seed=1)
    kinds = {k: (legal, chosen) for k, legal, chosen in report.action_kinds}
    assert kinds["hoard"] == (0, 0) and kinds["drop"][0] == kinds["drop"][1] > 0
    assert "action kind 'hoard': never legal" in report.never_fired()
    assert sum(n for _, n in report.cards) == kinds["drop"][1]


def test_simulate_coverage_cli(capsys, mini):
    code = main(["simulate", mini, "--games", "5", "--coverage", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "mini: action kinds over 5 games (30 decisions)" in out
    assert "never fired (" in out and "winner.rank > 99" in out
    assert "5 games in" in out  # the usual summary is still there
