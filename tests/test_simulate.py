"""Tests of trickkit.simulate (with a fake game, and with the real engine when present)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import fakegame

import trickkit
import trickkit.engine.loader
from trickkit.errors import IllegalActionError, TrickkitError
from trickkit.lab import simulation as sim
from trickkit.lab.simulation import RandomAgent, SimulationSummary, agent_seed, game_seed, play_game, simulate


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


# ------------------------------------------------------------ seed derivation


def test_game_seed_is_the_documented_derivation():
    assert game_seed(0, 0) == random.Random("trickkit:game:0:0").getrandbits(63)
    assert game_seed(42, 17) == random.Random("trickkit:game:42:17").getrandbits(63)
    assert agent_seed(42, 17) == random.Random("trickkit:agents:42:17").getrandbits(63)


def test_seeds_differ_by_index_seed_and_kind():
    seeds = {game_seed(s, i) for s in range(5) for i in range(50)}
    assert len(seeds) == 250
    assert game_seed(3, 4) != agent_seed(3, 4)
    assert all(0 <= game_seed(1, i) < 2**63 for i in range(20))


# ------------------------------------------------------------ single games


def test_play_game_record_format():
    game = fakegame.PileGame(players=2)
    record = play_game(game, seed=5, index=3)
    assert list(record) == [
        "game",
        "params",
        "players",
        "seed",
        "actions",
        "scores",
        "winners",
        "ruleset_sha256",
        "trickkit_version",
    ]
    assert record["game"] == "pile"
    assert record["params"] == {"players": 2, "pile": 7}
    assert record["players"] == 2
    assert record["seed"] == game_seed(5, 3)
    # replaying the actions from the recorded seed reproduces the result
    state = game.new_initial_state(seed=record["seed"])
    for text in record["actions"]:
        state.apply_action(text)
    assert state.is_terminal()
    assert state.scores() == record["scores"]
    assert state.winners() == record["winners"]
    assert sum(int(a.split()[1]) for a in record["actions"]) == 7


def test_play_game_is_reproducible_alone():
    game = fakegame.PileGame(players=3, pile=20)
    assert play_game(game, 9, 11) == play_game(game, 9, 11)
    distinct = {tuple(play_game(game, 9, i)["actions"]) for i in range(30)}
    assert len(distinct) > 10


def test_random_agent_chooses_with_rng_choice():
    game = fakegame.PileGame()
    state = game.new_initial_state(seed=0)
    rng_a, rng_b = random.Random(1), random.Random(1)
    picks = [str(RandomAgent(rng_a).step(state)) for _ in range(20)]
    expected = [str(rng_b.choice(state.legal_actions())) for _ in range(20)]
    assert picks == expected
    assert set(picks) == {"take 1", "take 2"}


class TakeOne:
    """A deterministic agent: always takes one token (also usable as a factory)."""

    def __init__(self, rng=None):
        self.rng = rng

    def step(self, state):
        return "take 1"


def test_agents_objects_and_factories():
    game = fakegame.PileGame(players=2)
    # Always taking one: 7 moves, the starting seat (seed % 2) takes the last token.
    for agents in ([TakeOne(), TakeOne()], [TakeOne, TakeOne], [lambda rng: TakeOne(), TakeOne()]):
        for i in range(6):
            record = play_game(game, 1, i, agents)
            assert record["actions"] == ["take 1"] * 7
            assert record["winners"] == [record["seed"] % 2]
    # None entries are random agents; seat 0 still always takes one
    takes = set()
    for i in range(10):
        record = play_game(game, 1, i, [TakeOne(), None])
        start = record["seed"] % 2
        movers = [(start + k) % 2 for k in range(len(record["actions"]))]
        assert {a for a, m in zip(record["actions"], movers) if m == 0} == {"take 1"}
        takes |= {a for a, m in zip(record["actions"], movers) if m == 1}
    assert takes == {"take 1", "take 2"}


def test_wrong_number_of_agents_is_an_error():
    with pytest.raises(TrickkitError, match="got 1 agents for a 2-player game"):
        play_game(fakegame.PileGame(players=2), 0, 0, [TakeOne()])


def test_illegal_agent_move_propagates():
    class Greedy:
        def step(self, state):
            return "take 3"

    with pytest.raises(IllegalActionError):
        play_game(fakegame.PileGame(), 0, 0, [Greedy(), Greedy()])


def test_endless_game_is_reported(monkeypatch):
    monkeypatch.setattr(sim, "MAX_ACTIONS", 3)
    with pytest.raises(TrickkitError, match="did not end after 3 actions"):
        play_game(fakegame.PileGame(), 0, 0, [TakeOne(), TakeOne()])


# ------------------------------------------------------------ runs


def test_summary_matches_the_jsonl_file(tmp_path):
    game = fakegame.PileGame(players=3, pile=10)
    out = tmp_path / "games.jsonl"
    summary = simulate(game, 120, seed=4, out=out)
    records = read_jsonl(out)
    assert len(records) == 120
    assert [r["seed"] for r in records] == [game_seed(4, i) for i in range(120)]
    assert isinstance(summary, SimulationSummary)
    assert summary.game == "pile"
    assert summary.params == {"players": 3, "pile": 10}
    assert summary.players == 3
    assert summary.games == 120
    lengths = [len(r["actions"]) for r in records]
    assert summary.mean_length == pytest.approx(sum(lengths) / 120)
    for seat in range(3):
        assert summary.mean_score[seat] == pytest.approx(sum(r["scores"][seat] for r in records) / 120)
        assert summary.win_rate[seat] == pytest.approx(sum(seat in r["winners"] for r in records) / 120)
    assert sum(summary.win_rate) == pytest.approx(1.0)
    assert summary.seconds > 0
    assert summary.games_per_s == pytest.approx(120 / summary.seconds)
    assert summary.actions_per_s == pytest.approx(sum(lengths) / summary.seconds)
    # each line equals the game played on its own
    assert records[57] == play_game(game, 4, 57)


def test_same_seed_same_games_other_seed_other_games(tmp_path):
    game = fakegame.PileGame(players=2, pile=15)
    simulate(game, 40, seed=1, out=tmp_path / "a.jsonl")
    simulate(game, 40, seed=1, out=tmp_path / "b.jsonl")
    simulate(game, 40, seed=2, out=tmp_path / "c.jsonl")
    a, b, c = ((tmp_path / n).read_bytes() for n in ("a.jsonl", "b.jsonl", "c.jsonl"))
    assert a == b
    assert a != c


def test_jobs_give_identical_files_and_stats(tmp_path):
    game = fakegame.PileGame(players=3, pile=12)
    one = simulate(game, 301, seed=8, out=tmp_path / "one.jsonl")
    three = simulate(game, 301, seed=8, jobs=3, out=tmp_path / "three.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "three.jsonl").read_bytes()
    assert len(read_jsonl(tmp_path / "three.jsonl")) == 301
    for field in ("game", "params", "players", "games", "mean_length", "mean_score", "win_rate"):
        assert getattr(one, field) == getattr(three, field), field


def test_jobs_without_out_file():
    game = fakegame.PileGame(players=2)
    one = simulate(game, 50, seed=3)
    two = simulate(game, 50, seed=3, jobs=2)
    assert (one.mean_length, one.mean_score, one.win_rate) == (two.mean_length, two.mean_score, two.win_rate)


def test_progress_is_reported_per_game():
    calls = []
    simulate(fakegame.PileGame(), 5, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_shared_wins_count_for_every_winner():
    class SharedState(fakegame.PileState):
        def winners(self):
            return [0, 1] if self.is_terminal() else []

    class SharedGame(fakegame.PileGame):
        def new_initial_state(self, seed=0, deals=None):
            return SharedState(self, self.params["pile"], seed % self.num_players)

    summary = simulate(SharedGame(players=3), 10)
    assert summary.win_rate == (1.0, 1.0, 0.0)


def test_game_given_by_name_uses_load_game(monkeypatch):
    monkeypatch.setattr(trickkit, "load_game", fakegame.load_game, raising=False)
    monkeypatch.setattr(trickkit.engine.loader, "load_game", fakegame.load_game, raising=False)
    summary = simulate("pile", 7, seed=0)
    assert summary.game == "pile"
    assert summary.games == 7


def test_zero_games_and_bad_arguments():
    summary = simulate(fakegame.PileGame(), 0)
    assert summary.games == 0
    assert summary.mean_score == (0.0, 0.0)
    assert summary.mean_length == 0.0
    with pytest.raises(TrickkitError, match="games must be >= 0"):
        simulate(fakegame.PileGame(), -1)
    with pytest.raises(TrickkitError, match="jobs must be >= 1"):
        simulate(fakegame.PileGame(), 3, jobs=0)


def test_to_table_lists_every_seat():
    summary = SimulationSummary(
        game="pile",
        params={"players": 2, "pile": 7},
        players=2,
        games=10,
        seconds=2.0,
        games_per_s=5.0,
        actions_per_s=25.0,
        mean_length=5.0,
        mean_score=(0.25, 0.75),
        win_rate=(0.25, 0.75),
    )
    text = summary.to_text()
    assert "pile (players=2, pile=7)" in text
    assert "10 games in 2.00s" in text
    assert "5.0 games/s, 25 actions/s" in text
    assert "mean game length 5.0 actions" in text
    rows = [line for line in text.splitlines() if "%" in line]
    assert len(rows) == 2
    assert "0.25" in rows[0] and "25.0%" in rows[0]
    assert "0.75" in rows[1] and "75.0%" in rows[1]


def test_summary_text_keeps_each_title_and_caption_line_whole():
    """`print(summary.to_text())` (docs/getting-started.md) wrapped a long title and the caption to
    the table's width, centred ("... p = " and "0.266" on two lines); the CLI prints them whole."""
    summary = simulate(trickkit.load_game("sarkophag"), 20, seed=1)
    lines = summary.to_text().splitlines()
    assert lines[0].startswith("sarkophag (hand_size=10, limit=0,") and lines[0].endswith("free_after_break=False)")
    assert any(line.startswith("every seat equal? chi-square") and " p = 0." in line for line in lines)
    assert any(line.startswith("20 games in ") for line in lines)


# ------------------------------------------------------------ real engine


def _replay_all(game, path):
    records = read_jsonl(path)
    for record in records:
        state = game.new_initial_state(seed=record["seed"])
        for text in record["actions"]:
            state.apply_action(text)
        assert state.is_terminal()
        assert list(state.scores()) == record["scores"]
        assert sorted(state.winners()) == sorted(record["winners"])
        assert state.history() == record["actions"]
    return records


@pytest.mark.parametrize("name,players", [("skull_king", 4), ("sarkophag", None)])
def test_real_game_runs_replay_and_jobs_agree(tmp_path, name, players):
    kwargs = {"players": players} if players else {}
    game = trickkit.load_game(name, **kwargs)
    summary = simulate(game, 12, seed=3, out=tmp_path / "one.jsonl")
    records = _replay_all(game, tmp_path / "one.jsonl")
    assert len(records) == 12
    assert summary.game == game.name
    assert summary.players == game.num_players
    assert len(summary.mean_score) == game.num_players
    for seat in range(game.num_players):
        assert summary.win_rate[seat] == pytest.approx(sum(seat in r["winners"] for r in records) / 12)
        assert summary.mean_score[seat] == pytest.approx(sum(r["scores"][seat] for r in records) / 12)
    simulate(game, 12, seed=3, jobs=2, out=tmp_path / "two.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_unpicklable_game_is_reloaded_in_workers(tmp_path, monkeypatch):
    loads = []

    def load_game(name, **kwargs):
        loads.append((name, kwargs))
        return fakegame.PileGame(**kwargs)

    monkeypatch.setattr(trickkit, "load_game", load_game, raising=False)

    monkeypatch.setattr(trickkit.engine.loader, "load_game", load_game, raising=False)
    game = fakegame.PileGame(players=3, pile=9)
    game.hook = lambda: None  # lambdas cannot be pickled
    assert sim._game_spec(game) == ("load", "pile", {"players": 3, "pile": 9})
    simulate(game, 40, seed=6, out=tmp_path / "one.jsonl")
    simulate(game, 40, seed=6, jobs=2, out=tmp_path / "two.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert sim._game_spec(fakegame.PileGame())[0] == "pickle"


def test_unknown_backend_is_refused():
    with pytest.raises(TrickkitError, match="unknown backend 'spark'"):
        simulate("sarkophag", games=1, backend="spark")
