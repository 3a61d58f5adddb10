"""The "did you mean" suggestions of error messages (`trickkit.errors.did_you_mean`): a known
text that differs only in case is the suggestion, before any closer-looking spelling; a text in
the wrong case is still refused (the suggestion only names the right one)."""

from __future__ import annotations

import random

import pytest

import trickkit
from trickkit.errors import IllegalActionError, did_you_mean

GAMES = trickkit.list_games()


def test_a_candidate_differing_only_in_case_wins():
    assert did_you_mean("bid 1d", ["bid 1S", "bid 1D", "bid 1C"]) == " (did you mean 'bid 1D'?)"
    assert did_you_mean("Ab", ["x", "aB", "AB"]) == " (did you mean 'AB'?)"  # the closest of the case matches
    assert did_you_mean("ÉTÉ", ["etc", "été"]) == " (did you mean 'été'?)"
    # otherwise the closest spelling, as before, or nothing
    assert did_you_mean("contrakt", ["contract", "count"]) == " (did you mean 'contract'?)"
    assert did_you_mean("zzz", ["bid 1S"]) == ""


def test_the_bridge_call_in_the_wrong_case_is_refused_and_named():
    state = trickkit.load_game("bridge").new_initial_state(seed=1)
    before = state.history()
    with pytest.raises(IllegalActionError, match=r"unknown call 'bid 1d' \(did you mean 'bid 1D'\?\)"):
        state.apply_action("bid 1d")
    assert state.history() == before and "bid 1D" in [a.text for a in state.legal_actions()]


@pytest.mark.parametrize("name", GAMES)
def test_a_legal_action_in_the_wrong_case_is_refused_or_suggested_as_itself(name):
    """At random decisions of every shipped game, a legal action's text with its case changed is
    either accepted as before (the verb is read in any case) or refused leaving the state as it
    was, and a suggestion it makes is the right-cased part of that legal action."""
    game = trickkit.load_game(name)
    rng = random.Random(len(name))
    for g in range(4):
        state = game.new_initial_state(seed=g)
        for _ in range(40):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            action = rng.choice(legal).text
            for wrong in {action.lower(), action.upper(), action.swapcase()} - {action}:
                probe = state.clone()
                try:
                    probe.apply_action(wrong)
                except IllegalActionError as e:
                    assert probe.history() == state.history()
                    said = str(e).partition("(did you mean ")[2].partition("?)")[0]
                    if said:
                        suggested = said.strip("'\"")
                        assert suggested in action and suggested.casefold() in wrong.casefold(), (wrong, str(e))
                else:
                    assert probe.history()[-1] in [a.text for a in legal]  # the canonical text
            state.apply_action(rng.choice(legal))
