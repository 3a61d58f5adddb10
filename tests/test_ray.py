"""The Ray backend plays the same games as one process (runs only where Ray is installed: CI does)."""

import json

import pytest

import trickkit

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("name", ["skull_king", "saqqara"])
def test_ray_backend_gives_identical_records(local_ray, tmp_path, name):
    game = trickkit.load_game(name, **({"rounds": 3} if name == "skull_king" else {}))
    one, many = tmp_path / "one.jsonl", tmp_path / "ray.jsonl"
    a = trickkit.simulate(game, games=9, seed=5, jobs=1, out=one)
    b = trickkit.simulate(game, games=9, seed=5, jobs=2, out=many, backend="ray")
    assert one.read_text() == many.read_text()
    assert (a.games, a.mean_score, a.win_rate) == (b.games, b.mean_score, b.win_rate)
    assert len([json.loads(line) for line in many.read_text().splitlines()]) == 9
