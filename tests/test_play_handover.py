"""The play screen (and transcripts) say which cards arrived from which seat, and where a seat's own
cards went: derived from the engine's zones, for any ruleset (Hearts' pass is the example)."""

from __future__ import annotations

import random
import re

import trickkit
from trickkit.engine.view import Narrator


def _play_through_passes(hands: int, seed: int = 3):
    """A Hearts game played at random through the first trick of hand ``hands``; per hand, the
    cards each seat passed (from the full history), and the narrator's lines for every seat."""
    game = trickkit.load_game("hearts")
    state = game.new_initial_state(seed=seed)
    narrators = [Narrator(game, s) for s in range(4)]
    rng = random.Random(seed)
    told: dict[int, list[str]] = {s: [] for s in range(4)}
    passed: dict[int, dict[int, list[str]]] = {}
    while state.round <= hands and not state.is_terminal():
        seat = state.current_player()
        action = rng.choice(state.legal_actions())
        if action.text.startswith("pass "):
            passed.setdefault(state.round, {}).setdefault(seat, []).append(action.text.split()[1])
        befores = [n.snapshot(state) for n in narrators]
        state.apply_action(action)
        for s, n in enumerate(narrators):
            told[s] += [f"{state.round}|{line}" for line in n.tell(befores[s], state)]
    return game, passed, told


def _deck_order(game, cards):
    index = {t: i for i, t in enumerate(game.rules.deck.face_texts)}
    return sorted(cards, key=index.__getitem__)


def test_after_a_pass_each_seat_is_told_what_arrived_from_whom_and_where_its_cards_went():
    game, passed, told = _play_through_passes(4)
    sides = {1: "on your left", 3: "on your right", 2: "across"}
    for hand, offset in ((1, 1), (2, 3), (3, 2)):  # left, right, across (hand 4 keeps)
        for me in range(4):
            to, frm = (me + offset) % 4, (me - offset) % 4
            lines = [x.split("|", 1)[1] for x in told[me] if x.startswith(f"{hand}|") and " went to " in x]
            assert lines == [
                f"your {' '.join(_deck_order(game, passed[hand][me]))} went to seat {to} ({sides[offset]})"
            ], (hand, me, lines)
            got = [x.split("|", 1)[1] for x in told[me] if x.startswith(f"{hand}|") and " sent you " in x]
            assert len(got) == 1, (hand, me, got)
            m = re.fullmatch(
                rf"seat {frm} \({sides[(frm - me) % 4]}\) sent you (\S+ \S+ \S+) \(now in your hand\)", got[0]
            )
            assert m, got
            assert sorted(m.group(1).split()) == sorted(passed[hand][frm])
    assert 4 not in passed  # the keeping hand: nothing is handed over, nothing told
    assert not [x for s in range(4) for x in told[s] if x.startswith("4|") and (" sent you " in x or " went to " in x)]


def test_handover_lines_name_only_cards_the_seat_held_or_holds():
    _game, passed, told = _play_through_passes(1)
    for me in range(4):
        named = set()
        for line in told[me]:
            m = re.search(r"(?:your (.+) went to|sent you (.+) \(now)", line)
            if m:
                named |= set((m.group(1) or m.group(2)).split())
        # its own three passed cards and the three it received: never another seat's pass to a third seat
        received = passed[1][(me - 1) % 4]
        assert named == set(passed[1][me]) | set(received)


def test_play_screen_tells_the_pass(capsys, monkeypatch):
    import io
    import sys

    from trickkit.cli.main import main

    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3))
    code = main(["play", "hearts", "--seed", "7"])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"^your \S+ \S+ \S+ went to seat 1 \(on your left\)$", out, re.M), out
    assert re.search(r"^seat 3 \(on your right\) sent you \S+ \S+ \S+ \(now in your hand\)$", out, re.M), out
