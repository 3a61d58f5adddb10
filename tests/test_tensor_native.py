"""The per-viewer writers typed for mypyc (`trickkit.engine.tensor_native`), which the opt-in
compiled build uses instead of the generated ones: here run interpreted (``force``), so the pure
build tests them too; the tests of tests/test_tensor*.py run them compiled against a compiled
install (tests/test_compiled_build.py). Their tensors must equal the dict view's encoding."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

import trickkit
from trickkit.engine import tensor_native
from trickkit.engine.tensor import ObservationEncoder

sys.path.insert(0, str(Path(__file__).parent))
from tensor_checks import reference, tensors_after_edits

GAMES = trickkit.list_games()


def native_game(name: str, monkeypatch: pytest.MonkeyPatch) -> trickkit.Game:
    """``name`` loaded, its encoder's writers the typed ones (where it has writers)."""
    game = trickkit.load_game(name)
    monkeypatch.setattr(
        "trickkit.engine.tensor_fast.native_writers", lambda enc: tensor_native.native_writers(enc, True)
    )
    monkeypatch.setitem(game.__dict__, "_observation_encoder", ObservationEncoder(game))
    return game


def test_only_a_compiled_module_gives_writers_unless_forced():
    encoder = trickkit.load_game("hearts")._observation_encoder
    assert tensor_native.__file__.endswith((".so", ".pyd")) == tensor_native.COMPILED
    assert (tensor_native.native_writers(encoder) is None) is not tensor_native.COMPILED
    assert len(tensor_native.native_writers(encoder, True)) == 4


@pytest.mark.parametrize("name", GAMES)
def test_every_seat_at_every_decision_and_on_clones_equals_the_dict_view(name, monkeypatch):
    """Every seat at every decision, a seat asked late, and clones: the dict view's encoding."""
    game = native_game(name, monkeypatch)
    encoder = game._observation_encoder
    if encoder._writers is None:
        pytest.skip("zones shown otherwise at times: the general loop")
    assert isinstance(encoder._writers[0], tensor_native._SeatWriter)
    assert (encoder._whole is not None) is encoder._plain
    n = game.num_players
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    for step in range(300):
        for p in range(n - 1 if step < 40 else n):  # the last seat first asked mid-game
            assert np.array_equal(state.observation_tensor(p), reference(state, p)), (step, p)
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        if rng.random() < 0.05:
            state = state.clone()


def test_zones_header_and_variables_edited_by_hand_are_rewritten(monkeypatch):
    """Zones edited in every way (a hidden hand's cards swapped at an equal count, a public zone
    reordered, emptied, a card in two zones), the round, the dealer, a score and a table
    variable changed by hand, the game over: each seat's tensor equals the dict view's."""
    game = native_game("hearts", monkeypatch)
    rng = random.Random(3)
    state = game.new_initial_state(seed=3)
    while len(state.seat_zones[2][0]) < 4 and not state.is_terminal():  # seat 0 took a trick
        state.apply_action(rng.choice(state.legal_actions()))
    taken, hand, other = state.seat_zones[2][0], state.seat_zones[0][1], state.seat_zones[0][2]

    def swap():
        hand[0], other[0] = other[0], hand[0]

    edits = [
        swap,  # seat 1's and seat 2's hands: the same counts, other cards
        lambda: taken.reverse(),
        lambda: taken.pop(0),
        lambda: hand.append(taken.pop()),
        lambda: hand.clear(),
        lambda: state.table_zones[0].append(taken.pop()),
        lambda: taken.extend(state.table_zones[0][-1:]),
        lambda: setattr(state, "round", state.round + 1),
        lambda: setattr(state, "dealer", (state.dealer + 1) % 4),
        lambda: setattr(state, "dealer", 9),  # a seat outside the game: no one
        lambda: state.seat_vars[0].__setitem__(1, 42),
        lambda: state.table_vars.__setitem__(0, 7),
        lambda: state.seat_vars[0].__setitem__(2, 10**20),  # beyond exact floats: checked, written as the engine
        lambda: state.seat_vars[0].__setitem__(2, -3),
        lambda: state.table_vars.__setitem__(1, None),
        lambda: state.table_vars.__setitem__(1, 2.5),
        lambda: state.table_vars.__setitem__(1, True),
        lambda: setattr(state, "_terminal", True),
        lambda: setattr(state, "_terminal", False),
    ]
    checked = list(tensors_after_edits(state, edits))
    assert len(checked) == 4 * len(edits) and all(same for _, _, same in checked), [c for c in checked if not c[2]]
