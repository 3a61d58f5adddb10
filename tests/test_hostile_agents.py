"""Round 3 of hostile input, agents and adapters: per-seat views that refuse what is not a seat,
adapters that pass actions and seeds to the engine's own checks, agent options, and the
information-set sampler that may use only what its seat has seen."""

from __future__ import annotations

import math
import random

import pytest

import trickkit
from trickkit import IllegalActionError, TrickkitError
from trickkit.agents import ISMCTSAgent, parse_agent_spec
from trickkit.randomness import MAX_SEED_DIGITS, check_seed

NOT_SEATS = [None, True, False, 1.0, 0.0, 99, 4, -1, "1", b"1", [0], math.nan]


def _views(state):
    """Every per-seat view of a state: name -> function of the seat."""
    return {
        "observation": state.observation,
        "observation_tensor": state.observation_tensor,
        "history_seen_by": state.history_seen_by,
        "action_seen_by": lambda seat: state.action_seen_by(state.legal_actions()[0], seat),
        "transcript": state.transcript,
    }


@pytest.mark.parametrize("name", trickkit.list_games())
def test_every_per_seat_view_refuses_what_is_not_a_seat(name):
    game = trickkit.load_game(name)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    for _ in range(5):
        state.apply_action(rng.choice(state.legal_actions()))
    before = state.to_json()
    n = game.num_players
    for fn in _views(state).values():
        for bad in [*NOT_SEATS, n, -n]:
            with pytest.raises(ValueError, match="seat"):
                fn(bad)
        first, again = fn(n - 1), fn(n - 1)  # a seat is answered, the same each time
        assert (first == again).all() if hasattr(first, "all") else first == again
    assert state.to_json() == before


def test_numpy_seats_are_seats():
    np = pytest.importorskip("numpy")
    state = trickkit.load_game("hearts").new_initial_state(seed=1)
    assert state.observation(np.int64(2)) == state.observation(2)
    assert state.history_seen_by(np.int32(1)) == state.history_seen_by(1)
    with pytest.raises(ValueError):
        state.observation(np.bool_(True))


# -- seeds ---------------------------------------------------------------------------------
def test_seeds_the_save_format_cannot_hold_are_refused_at_the_start():
    game = trickkit.load_game("sarkophag")
    biggest = 10**MAX_SEED_DIGITS - 1
    state = game.new_initial_state(seed=biggest)
    state.apply_action(state.legal_actions()[0])
    assert game.state_from_json(state.to_json()).to_json() == state.to_json()  # it reloads
    for bad in (biggest + 1, 10**500, -1, True, 1.5, "7", None.__class__):
        with pytest.raises(ValueError, match="seed"):
            game.new_initial_state(seed=bad)
    assert check_seed(7) == 7


@pytest.mark.parametrize("seed", ["-1", str(10**MAX_SEED_DIGITS), "1e3", "x"])
@pytest.mark.parametrize("command", ["simulate", "compare", "lint", "play"])
def test_cli_refuses_seeds_records_cannot_hold(command, seed, capsys, tmp_path):
    from trickkit.cli.main import main

    args = {
        "simulate": ["simulate", "sarkophag", "--games", "1"],
        "compare": ["compare", "sarkophag", "sarkophag", "--games", "1"],
        "lint": ["lint", "rulesets/sarkophag.yaml"],
        "play": ["play", "sarkophag"],
    }[command]
    assert main([*args, "--seed", seed]) == 2
    assert "--seed" in capsys.readouterr().err


# -- agents ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"exploration": math.nan},
        {"exploration": math.inf},
        {"exploration": -0.5},
        {"exploration": True},
        {"exploration": "1"},
        {"iterations": True},
        {"iterations": 2.0},
        {"rollout_limit": True},
        {"max_tries": 0},
        {"max_tries": 1.5},
        {"seed": 1.5},
    ],
)
def test_ismcts_refuses_options_it_cannot_use(options):
    with pytest.raises(TrickkitError, match="ismcts"):
        ISMCTSAgent(**options)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1"])
def test_ismcts_specs_refuse_non_finite_exploration(value):
    with pytest.raises(TrickkitError, match="exploration"):
        parse_agent_spec(f"ismcts:exploration={value}")


# -- adapters --------------------------------------------------------------------------------
BAD_ACTIONS = [3.9, 3.0, True, False, "3", b"3", "pass", math.nan, math.inf, object(), [3], (3,), {3: 3}]


def _numpy_bad_actions(np):
    return [np.array([3]), np.array([[3]]), np.float64(3.0), np.float32(math.nan), np.bool_(True), np.array("3")]


def test_pettingzoo_passes_actions_to_the_engine_check():
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from trickkit.envs.pettingzoo import env

    e = env("hearts")
    e.reset(seed=np.int64(5))
    before = e.state.to_json()
    for bad in [*BAD_ACTIONS, *_numpy_bad_actions(np)]:
        with pytest.raises(IllegalActionError):
            e.step(bad)
        assert e.state.to_json() == before, repr(bad)
    ids = e.state.legal_action_ids()
    illegal = next(i for i in range(e.game.num_distinct_actions()) if i not in ids)
    for bad in (illegal, np.int64(illegal), -1, e.game.num_distinct_actions(), 10**30):
        with pytest.raises(IllegalActionError):
            e.step(bad)
        assert e.state.to_json() == before
    e.step(np.int16(ids[0]))  # numpy integers are ids
    assert e.state.history() == [e.game.action_to_string(ids[0])]


def test_gym_passes_actions_to_the_engine_check():
    np = pytest.importorskip("numpy")
    pytest.importorskip("gymnasium")
    from trickkit.envs.gym import SingleAgentEnv

    g = SingleAgentEnv("hearts")
    g.reset(seed=np.int64(3))
    before = g.state.to_json()
    for bad in [*BAD_ACTIONS, *_numpy_bad_actions(np)]:
        with pytest.raises(IllegalActionError):
            g.step(bad)
        assert g.state.to_json() == before, repr(bad)
    ended = SingleAgentEnv("hearts", on_illegal="end")
    ended.reset(seed=3)
    _, reward, terminated, _, info = ended.step("3")
    assert (reward, terminated) == (-1.0, True) and "action id" in info["illegal_action"]


@pytest.mark.parametrize("adapter", ["pettingzoo", "gym"])
def test_adapter_seeds(adapter):
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from trickkit.envs.gym import SingleAgentEnv
    from trickkit.envs.pettingzoo import env

    make = (lambda: env("sarkophag")) if adapter == "pettingzoo" else (lambda: SingleAgentEnv("sarkophag"))
    a, b = make(), make()
    a.reset(seed=5)
    b.reset(seed=np.int64(5))
    assert a.state.to_json() == b.state.to_json()
    for bad in (True, 1.5, "5", -1, 10**MAX_SEED_DIGITS, np.float64(5), [5]):
        with pytest.raises(ValueError, match="seed"):
            make().reset(seed=bad)


def _with_parameter(tmp_path, name):
    path = tmp_path / f"with_{name}.yaml"
    path.write_text(
        "extends: sarkophag\n"
        f"name: with_{name}\n"
        "parameters:\n"
        f"  {name}: {{type: int, default: 1, min: 0, max: 9, description: a parameter named like an option}}\n"
    )
    return path


@pytest.mark.parametrize("option", ["reward", "render_mode", "seat", "on_illegal"])
def test_a_ruleset_parameter_named_like_an_adapter_option_is_not_shadowed(tmp_path, option):
    pytest.importorskip("pettingzoo")
    from trickkit.envs.gym import SingleAgentEnv
    from trickkit.envs.pettingzoo import env

    path = _with_parameter(tmp_path, option)
    assert trickkit.load_game(path).params[option] == 1
    makers = [SingleAgentEnv] + ([env] if option in ("reward", "render_mode") else [])
    for make in makers:
        with pytest.raises(TrickkitError, match=f"parameter named '{option}'"):
            make(path)
        made = make(path, params={option: 7})
        assert made.game.params[option] == 7


# -- the information-set sampler -------------------------------------------------------------
def _swap_words(text: str, a: str, b: str) -> str:
    return " ".join(b if w == a else a if w == b else w for w in text.split(" "))


def _twins(game, seed: int, stop: int):
    """Pairs of states of ``game`` that look the same to the seat to act: the first deal given
    as hands, once as dealt and once with two cards exchanged between two other seats (and in
    every action text), with the same actions. Yields ``(state, twin, seat, (a, b))``."""
    rng = random.Random(seed)
    probe = game.new_initial_state(seed=seed)  # how long the first deal lasts with these moves
    while not probe.is_terminal() and probe.deal_no <= 1 and len(probe.history()) < 400:
        probe.apply_action(random.Random(len(probe.history()) * 7919 + seed).choice(probe.legal_actions()))
    stop = 1 + stop % max(len(probe.history()) - 1, 1)
    state = game.new_initial_state(seed=seed)
    dealt = None
    while not state.is_terminal() and len(state.history()) < stop:
        if dealt is None and state.deal_no == 1:
            dealt = [list(h["cards"]) for h in state.observation_all()["zones"]["hand"]]
        state.apply_action(random.Random(len(state.history()) * 7919 + seed).choice(state.legal_actions()))
    if dealt is None or state.is_terminal() or state.deal_no != 1:
        return
    me = state.current_player()
    real = game.new_initial_state(seed=seed, deals=[dealt])
    for text in state.history():
        real.apply_action(text)
    if real.observation_all() != state.observation_all():
        return  # a deal that the hands alone do not fix (a table zone dealt too)
    seen = real.history_seen_by(me)
    pairs = [
        (a, b)
        for s1 in range(game.num_players)
        for s2 in range(s1 + 1, game.num_players)
        if me not in (s1, s2)
        for a in dealt[s1]
        for b in dealt[s2]
        if a != b
    ]
    rng.shuffle(pairs)
    found = 0
    for a, b in pairs:
        if found >= 2:
            break
        swapped = [[_swap_words(t, a, b) for t in hand] for hand in dealt]
        twin = game.new_initial_state(seed=seed, deals=[swapped])
        again = game.new_initial_state(seed=seed, deals=[dealt])
        same = twin.observation(me) == again.observation(me)
        try:
            for text in real.history():
                if not same:
                    break
                twin.apply_action(_swap_words(text, a, b))
                again.apply_action(text)
                same = twin.observation(me) == again.observation(me)  # the seat's whole past, not its present only
        except IllegalActionError:
            continue
        if not same or twin.history_seen_by(me) != seen:
            continue  # one of the two cards shows (now, or at some time)
        if twin.observation_all() == real.observation_all():
            continue  # two copies of one card
        found += 1
        yield real, twin, me, (a, b)


def _sample_view(world):
    return world.observation_all()["zones"], world.history()


def _deals_cards(game, step) -> bool:
    """Does this deal step give each seat at least one card (Love Letter's deals none: seats draw)?"""
    state = game.new_initial_state(seed=1)
    try:
        return step.count(state) > 0
    except Exception:
        return True  # a count that needs the game under way: assume it deals


@pytest.mark.parametrize("name", trickkit.list_games())
def test_samples_depend_only_on_the_information_set(name):
    """For every shipped game: two real states that differ only in two hidden cards exchanged
    between two other seats give the deciding seat's sampler, with the same seed, the same
    samples, and ISMCTS the same move."""
    from trickkit.agents import InformationSetSampler

    game = trickkit.load_game(name)
    if not any(st.kind == "deal" and _deals_cards(game, st) for st in game.rules.steps):
        pytest.skip(f"{name} deals no hand: its twins cannot be dealt (its hands are filled by moves)")
    pairs = 0
    for seed in range(12):
        for real, twin, me, cards in _twins(game, seed, random.Random(seed).randrange(2, 60)):
            pairs += 1
            sa, sb = InformationSetSampler(me, random.Random(seed)), InformationSetSampler(me, random.Random(seed))
            for _ in range(4):
                wa, wb = sa.sample(real), sb.sample(twin)
                assert _sample_view(wa) == _sample_view(wb), (name, seed, cards)
                assert wa.observation(me) == real.observation(me)
            assert sa.stats == sb.stats
            if len(real.legal_actions()) > 1:
                agent_a = ISMCTSAgent(iterations=6, seed=seed, rollout_limit=8)
                agent_b = ISMCTSAgent(iterations=6, seed=seed, rollout_limit=8)
                assert str(agent_a.step(real)) == str(agent_b.step(twin)), (name, seed, cards)
    assert pairs > 0, name
