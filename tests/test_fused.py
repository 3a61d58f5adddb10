"""The fused step functions (trickkit.engine.fused): each tricks and bid step's legal actions and
apply as one generated function, the general path (trickkit.engine.steps) behind them.

They must be used for the shipped trick games, agree with the general path on every state a
random game reaches, and fail as the general path does: a located error, the state unchanged.
"""

import json
import random
import re
import sys
import textwrap
from pathlib import Path

import pytest

import trickkit
from trickkit.dsl import allowlist
from trickkit.dsl.allowlist import UnsafeCode
from trickkit.engine.actions import Action
from trickkit.errors import DSLRuntimeError, IllegalActionError

sys.path.insert(0, str(Path(__file__).parent))
from lockstep import general_twin

GAMES = trickkit.list_games()
TRICK_GAMES = ["hearts", "oh_hell", "sarkophag", "skull_king", "skull_king_2021", "spades"]


@pytest.mark.parametrize("name", TRICK_GAMES)
def test_the_shipped_trick_games_run_their_steps_on_generated_functions(name):
    game = trickkit.load_game(name)
    fused = [i for i, st in enumerate(game.rules.steps) if st.kind in ("tricks", "bid")]
    assert fused
    for i in fused:
        step = game.rules.steps[i]
        assert step.fused_legal is not None and step.fused_apply is not None, (name, step.kind)
        assert game._legal_fns[i] is step.fused_legal and game._apply_fns[i] is step.fused_apply
        assert step.fused_legal.__name__.startswith("_l") and step.fused_apply.__name__.startswith("_p")
        assert game._legal_general[i] is not step.fused_legal  # the general path stays behind them
    source = game.rules.generated_source
    assert f"def {game.rules.steps[fused[-1]].fused_apply.__name__}(s, act):" in source


def test_trickkit_compile_shows_the_fused_functions_with_their_yaml_lines(capsys):
    from trickkit.cli.main import main

    assert main(["compile", "sarkophag"]) == 0
    out = capsys.readouterr().out
    legal = out[out.index("\ndef _l") :]
    legal = legal[: legal.index("\n\n", 1)]
    assert re.search(r"# sarkophag\.yaml:\d+:\d+: \$\.round\[1\]\.tricks: the legal plays", legal)
    assert re.search(r"# sarkophag\.yaml:\d+:\d+: \$\.round\[1\]\.tricks\.must_play_if_able", legal)
    apply = out[out.index("\ndef _p") :]
    for part in ("winner", "after_trick"):
        assert re.search(rf"# sarkophag\.yaml:\d+:\d+: \$\.round\[1\]\.tricks\.{part}", apply)


@pytest.mark.parametrize("name", GAMES)
def test_fused_and_general_paths_agree_on_random_games(name):
    """Lockstep: the same actions on the generated functions and on the general path give the
    same legal actions (same order) and the same state at every decision."""
    game = trickkit.load_game(name)
    twin = general_twin(game)
    rng = random.Random(12)
    for seed in range(3):
        a, b = game.new_initial_state(seed=seed), twin.new_initial_state(seed=seed)
        steps = 0
        while not a.is_terminal() and steps < 400:
            legal = a.legal_actions()
            assert [x.text for x in legal] == [x.text for x in b.legal_actions()], (name, seed, a.history())
            choice = rng.choice(legal)
            a.apply_action(choice)
            b.apply_action(choice.text)
            assert (a.current, a.step, a.tricks_done, a.acted, a.last_trick, a.budget) == (
                b.current,
                b.step,
                b.tricks_done,
                b.acted,
                b.last_trick,
                b.budget,
            ), (name, seed, a.history())
            assert a.observation_all() == b.observation_all(), (name, seed, a.history())
            steps += 1
        assert a.is_terminal() == b.is_terminal()


@pytest.mark.parametrize("name", TRICK_GAMES)
def test_fused_legal_actions_equal_the_general_ones_on_many_states(name):
    """Every decision of several random games: the step's generated legal function and the
    general one give equal lists (the same Action objects, in the same order)."""
    game = trickkit.load_game(name)
    rng = random.Random(3)
    checked = 0
    for seed in range(6):
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal() and checked < 3000:
            i = s.step
            if game._legal_fns[i] is not game._legal_general[i]:
                fused = game._legal_fns[i](s)
                s.budget, s.memo = 5_000_000, None
                general = game._legal_general[i](s)
                s.memo = None
                assert fused == general and all(x is y for x, y in zip(fused, general)), (seed, s.history())
                checked += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 100


def variant(tmp_path, base: str, body: str):
    path = tmp_path / "v.yaml"
    path.write_text(f"extends: {base}\nname: v\n" + textwrap.dedent(body), "utf-8")
    return path


def play_until_trick_end(state):
    """Play first legal cards until one more card ends a trick; returns that card's action."""
    while True:
        legal = state.legal_actions()
        if legal[0].verb == "play" and len(state.trick) == state.game.num_players - 1:
            return legal[0]
        state.apply_action(legal[0])


def test_a_rule_failing_in_the_fused_apply_is_located_and_leaves_the_state_unchanged(tmp_path):
    path = variant(
        tmp_path,
        "sarkophag",
        """\
        round:
          $change:
            tricks:
                after_trick: heads[winner.seat] += 1 // (len(trick) - num_players)
        """,
    )
    game = trickkit.load_game(path)
    step = next(st for st in game.rules.steps if st.kind == "tricks")
    assert step.fused_apply is not None
    state = game.new_initial_state(seed=4)
    last = play_until_trick_end(state)
    before = (state.history(), state.observation_all(), state.current, list(state.trick), state.to_json())
    with pytest.raises(
        DSLRuntimeError, match=r"v\.yaml:\d+:\d+: \$\.round\[1\]\.tricks\.after_trick: ZeroDivisionError"
    ):
        state.apply_action(last)
    assert (state.history(), state.observation_all(), state.current, list(state.trick), state.to_json()) == before
    assert state.legal_actions()[0] == last  # still playable: nothing moved


def test_a_winner_rule_giving_nobody_is_the_general_paths_error(tmp_path):
    path = variant(
        tmp_path,
        "sarkophag",
        """\
        round:
          $change:
            tricks:
                winner: first(p for p in trick if p.rank > 100)
        """,
    )
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=1)
    last = play_until_trick_end(state)
    before = state.to_json()
    with pytest.raises(DSLRuntimeError, match=r"tricks\.winner: the trick has no winner"):
        state.apply_action(last)
    assert state.to_json() == before


def test_a_follow_duty_failing_in_the_fused_legal_is_located(tmp_path):
    path = variant(
        tmp_path,
        "sarkophag",
        """\
        round:
          $change:
            tricks:
                must_play_if_able: card.rank > 1 // (len(trick) - 1)
        """,
    )
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=2)
    state.apply_action(state.legal_actions()[0])  # one card in the trick: 1 // 0
    history = state.history()
    with pytest.raises(DSLRuntimeError, match=r"\$\.round\[1\]\.tricks\.must_play_if_able: ZeroDivisionError"):
        state.legal_actions()
    assert state.history() == history and state.memo is None


def test_a_part_the_fused_legal_computes_too_early_falls_back_to_the_general_answer(tmp_path):
    # the generated function computes 1 // len(trick) before the card loop, even for the lead,
    # where no card's test reaches it: the general path answers instead, the same as before
    path = variant(
        tmp_path,
        "sarkophag",
        """\
        round:
          $change:
            tricks:
                must_play_if_able: card.rank > 100 and 1 // len(trick) > 0
        """,
    )
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=2)
    i = state.step
    with pytest.raises(ZeroDivisionError):
        game._legal_fns[i](state)
    state.budget = 5_000_000
    assert state.legal_actions() == game._legal_general[i](state)
    assert len(state.legal_actions()) == 10


@pytest.mark.parametrize(
    "duty",
    [
        "if len(trick) == 0 then card.rank > 30 else card.rank < trick[0].rank",
        "len(trick) == 0 or card.heads != 5 and card.rank > trick[0].rank",
        "len(trick) > 1 and (card.rank % 2 == 0 or lower)",
        "not (len(trick) == 2) and (if free_after_break then card.rank > 5 else card.heads < 3)",
        ["card.rank > 50", "len(trick) == 1 and card.heads == 0", "card.rank % 3 == 0"],
    ],
)
def test_a_follow_duty_split_on_its_card_free_parts_agrees_with_the_general_path(tmp_path, duty):
    """The generated legal function computes the parts of a duty that read no card once and
    picks the test to run by them: the lists must be those of the general path."""
    path = variant(
        tmp_path,
        "sarkophag",
        f"""\
        round:
          $change:
            tricks:
              must_play_if_able: {json.dumps(duty)}
              always_allowed: card.rank == 60
        """,
    )
    game = trickkit.load_game(path)
    twin = general_twin(game)
    rng = random.Random(5)
    for seed in range(4):
        a, b = game.new_initial_state(seed=seed), twin.new_initial_state(seed=seed)
        while not a.is_terminal():
            legal = a.legal_actions()
            assert [x.text for x in legal] == [x.text for x in b.legal_actions()], (duty, a.history())
            choice = rng.choice(legal)
            a.apply_action(choice)
            b.apply_action(choice.text)


def test_an_action_object_from_an_older_legal_list_is_checked_by_its_text():
    game = trickkit.load_game("sarkophag")
    state = game.new_initial_state(seed=0)
    first = state.legal_actions()[0]
    state.apply_action(first)
    with pytest.raises(IllegalActionError):
        state.apply_action(first)  # no longer in the hand: refused, by its text
    again = state.legal_actions()[0]
    state.apply_action(Action(again.text, "play", face=again.face))  # an equal action, not the same object
    assert state.history()[-1] == again.text


def test_the_allow_list_lets_only_the_action_argument_show_its_payload():
    ok = "def _p0(s, act):\n    s.seat_vars[0][s.current] = act.value\n    return act.face"
    allowlist.check(ok, set())
    for bad in (
        "def _p0(s, act):\n    return s.face",
        "def _p0(s, fr):\n    return fr.value",
        "def _p0(s, act):\n    act.face = 1",
        "def _p0(s, act):\n    return act.text",
        "def _p0(s, act):\n    return act._payload",
    ):
        with pytest.raises(UnsafeCode):
            allowlist.check(bad, set())


def test_bid_options_of_a_range_are_the_general_paths_actions_made_once_per_range():
    game = trickkit.load_game("skull_king")
    i = next(i for i, st in enumerate(game.rules.steps) if st.kind == "bid")
    assert "_bid_range(" in game.rules.generated_source
    s = game.new_initial_state(seed=1)
    while s.step != i:
        s.apply_action(s.legal_actions()[0])
    for _ in range(2):  # the second time from the table of ranges: equal, a new list
        fused = game._legal_fns[i](s)
        assert fused == game._legal_general[i](s) and all(x is y for x, y in zip(fused, game._legal_general[i](s)))
    assert fused is not game._legal_fns[i](s)
    tables = game._tables
    assert tables.bid_range(2, 5) == tables.bid_actions([2, 3, 4]) and tables.bid_range(3, 1) == []
    with pytest.raises(Exception, match="range"):
        tables.bid_range(0, 10**9)


def test_always_allowed_tested_in_the_duty_loop_falls_back_where_the_general_path_never_tests_it(tmp_path):
    # the fused loop tests always_allowed on every card the duty refuses, even when no card
    # passes the duty (where the general path offers the whole hand without testing it): the
    # error it meets there sends the engine to the general answer
    path = variant(
        tmp_path,
        "sarkophag",
        """\
        round:
          $change:
            tricks:
              must_play_if_able: card.rank > 100
              always_allowed: 1 // (card.rank - card.rank) > 0
        """,
    )
    game = trickkit.load_game(path)
    state = game.new_initial_state(seed=3)
    i = state.step
    with pytest.raises(ZeroDivisionError):
        game._legal_fns[i](state)
    state.budget = 5_000_000
    assert state.legal_actions() == game._legal_general[i](state)
    assert len(state.legal_actions()) == 10
