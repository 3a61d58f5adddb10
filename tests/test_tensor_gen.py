"""The generated per-seat writers of the incremental observation-tensor encoder
(`trickkit.engine.tensor_gen`): which layouts get them, that they pass the allow-list, and that the
tensors they keep equal the dict view's encoding however the state changed."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

import trickkit
from trickkit.dsl import allowlist
from trickkit.engine.tensor_gen import _writer, zone_writers

sys.path.insert(0, str(Path(__file__).parent))
from tensor_checks import reference, tensors_after_edits


def test_zones_always_shown_the_same_way_get_a_generated_writer_per_seat():
    hearts = trickkit.load_game("hearts")._observation_encoder
    assert hearts._writers is not None and len(hearts._writers) == 4
    assert hearts._whole is hearts._writers  # every variable a number: they write the header too
    skull = trickkit.load_game("skull_king")._observation_encoder  # a hidden simultaneous bid
    assert skull._writers is not None and skull._whole is None
    trumps = trickkit.load_game("trumps")._observation_encoder  # a zone public_when: the general loop
    assert trumps._zone_overrides and trumps._writers is None


def test_the_writers_source_passes_the_allow_list_and_names_only_its_helpers(monkeypatch):
    encoder = trickkit.load_game("hearts")._observation_encoder
    seen = {}

    def keep(env, name, source):
        seen[name] = (source, env)
        return lambda *args: None

    monkeypatch.setattr("trickkit.engine.tensor_gen.load", keep)
    _writer(encoder, 1)
    source, env = seen["_e1"]
    allowlist.check(source, env)  # raises UnsafeCode on anything the generators never emit
    # seat 1's own hand (segment "zone hand +0" at 23) shows its cards; seat 2's (+1, at 77) its count
    assert "_all(a0, h2, q1[1], 23)" in source and "a0[23] = _len" not in source
    assert "a0[77] = _len(h2)" in source and "q1[2], 77)" not in source
    assert set(env) == {
        "_header",
        "_seats",
        "_number",
        "_len",
        "_one",
        "_all",
        "_all_anew",
        "_top",
        "_trick",
        "_trick_zeros",
        "_rel",
        "_face_at",
    }
    with pytest.raises(allowlist.UnsafeCode):  # the generated names only: nothing else passes
        allowlist.check(source.replace("_len(", "len("), env)


@pytest.mark.parametrize("name", ["hearts", "crazy_eights", "spades", "skull_king"])
def test_a_writer_started_late_or_on_a_clone_equals_the_dict_view(name):
    """A seat first asked mid-game (its writer starts from the blank tensor: every zone written
    from empty), then along the game, and on clones: the dict view's encoding."""
    game = trickkit.load_game(name)
    n = game.num_players
    rng = random.Random(11)
    state = game.new_initial_state(seed=11)
    for step in range(200):
        if state.is_terminal():
            break
        if step % 17 == 5:
            state = state.clone()
        seat = (step // 3) % n
        assert np.array_equal(state.observation_tensor(seat), reference(state, seat)), (step, seat)
        state.apply_action(rng.choice(state.legal_actions()))


def test_zones_edited_by_hand_in_every_way_are_rewritten():
    """A public zone (cards taken) and a hidden table zone edited by hand, a shown zone emptied and
    refilled: each seat's tensor still equals the dict view's encoding."""
    game = trickkit.load_game("hearts")
    rng = random.Random(3)
    state = game.new_initial_state(seed=3)
    while len(state.seat_zones[2][0]) < 4 and not state.is_terminal():  # seat 0 took a trick
        state.apply_action(rng.choice(state.legal_actions()))
    taken, hand = state.seat_zones[2][0], state.seat_zones[0][1]
    edits = [
        lambda: taken.reverse(),  # the same cards in another order
        lambda: taken.pop(0),  # one card left from the bottom
        lambda: hand.append(taken.pop()),  # one card moved from a public zone to a hidden hand
        lambda: hand.clear(),
        lambda: state.table_zones[0].append(taken.pop()),  # into the hidden stock: its count only
        lambda: taken.extend(state.table_zones[0][-1:]),  # now in two zones at once
    ]
    checked = list(tensors_after_edits(state, edits))
    assert len(checked) == 4 * len(edits) and all(same for _, _, same in checked), [c for c in checked if not c[2]]


def test_generated_again_the_writers_are_the_same_functions_text():
    """The source depends on the layout only (offsets, indices): a game loaded again reuses the
    compiled code (`trickkit.dsl.load` caches by source)."""
    a = zone_writers(trickkit.load_game("hearts")._observation_encoder)
    b = zone_writers(trickkit.load_game("hearts")._observation_encoder)
    assert [w.__code__ for w in a] == [w.__code__ for w in b]
