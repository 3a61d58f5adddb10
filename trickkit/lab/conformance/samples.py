"""The ``agent_samples`` check: an agent's determinizations depend only on the seat's information set.

At a few decisions of a game the check builds a *twin* of the real state: the same game with two
cards that the deciding seat ``p`` never sees (up to now) exchanged between two other seats' hands
in the first deal, and the same actions replayed (those two cards exchanged in their texts too).
The twin is kept only if ``p`` cannot tell the two games apart at any point: the same seat acts,
``p`` observes the same and is shown the same of every action. Two `trickkit.agents.InformationSetSampler`
of seat ``p`` with the same seed must then draw the same samples from the real state and from the
twin (a sample is a function of the information set and the generator only, as the agents page
says), every sample must look to ``p`` exactly like the real state, and no sample may fail.

Only the public API of the sampler is used: ``InformationSetSampler(seat, rng)`` and ``sample(state)``.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from trickkit.errors import TrickkitError
from trickkit.lab.conformance.driver import _Run, dealt_hands
from trickkit.lab.conformance.hidden import (
    _first_deal,
    _first_difference,
    _mapped,
    _shows_after,
    _signature,
    sorted_hand,
    visible_cards,
)

PER_GAME = 1
"""Decisions of one game at which the samples are compared (sampling replays the game: it is costly)."""

SAMPLES = 2
"""Samples drawn from each of the two states at such a decision."""

PAIRS = 3
"""Pairs of hidden cards tried per decision before giving up on finding a twin."""


def _seen_until(run: _Run, hands: list[list[str]], actions: list[str], p: int) -> set[str] | None:
    """The cards ``p`` sees at some point of the game dealt ``hands`` and played ``actions``, or
    None where the replay leaves the first round or a random draw happens (no twin is built then)."""
    game = run.game
    state = game.new_initial_state(seed=run.seed, deals=[hands])
    seen: set[str] = set()
    for text in actions:
        if state.is_terminal() or state.deal_no > 1:
            return None
        seen |= visible_cards(state, p)
        action = next((a for a in state.legal_actions() if a.text == text), None)
        if action is None:
            return None
        drawn = state._generator().getstate()
        seen |= _shows_after(run, state, action, p)
        state.apply_action(action)
        if state._generator().getstate() != drawn:
            return None  # a random draw may pick another card in the twin: it may part for a fair reason
    if state.deal_no > 1:
        return None
    return seen | visible_cards(state, p)


def _twin(run: _Run, s: Any, p: int, rng: random.Random) -> tuple[Any, str, str] | None:
    """A state ``p`` cannot tell from ``s`` whose first deal has two cards ``p`` never saw exchanged
    (with the exchanged cards): None when there is none to be had in a few tries."""
    game = run.game
    step = _first_deal(game)
    if step is None or game.rules.steps[0] is not step:
        return None
    hands = dealt_hands(game, run.seed, step.to.index)
    actions = s.history()
    seen = _seen_until(run, hands, actions, p)
    if seen is None:
        return None
    n = game.num_players
    others = [(q, i) for q in range(n) if q != p for i, t in enumerate(hands[q]) if t not in seen]
    for _ in range(PAIRS):
        if not others:
            return None
        q, i = others[rng.randrange(len(others))]
        partners = [(r, j) for r, j in others if r != q and hands[r][j] != hands[q][i]]
        if not partners:
            return None
        r, j = partners[rng.randrange(len(partners))]
        c, d = hands[q][i], hands[r][j]
        twin = _replayed_twin(run, hands, actions, p, (q, i), (r, j))
        if twin is not None:
            return twin, c, d
    return None


def _replayed_twin(
    run: _Run, hands: list[list[str]], actions: list[str], p: int, a: tuple[int, int], b: tuple[int, int]
) -> Any:
    """The game with the cards at ``a`` and ``b`` of the deal exchanged, played like ``actions``
    step by step; None where ``p`` could tell the two apart."""
    game = run.game
    swapped = [list(h) for h in hands]
    c, d = hands[a[0]][a[1]], hands[b[0]][b[1]]
    swapped[a[0]][a[1]], swapped[b[0]][b[1]] = d, c
    mapping = {c: d, d: c}
    try:
        real = game.new_initial_state(seed=run.seed, deals=[hands])
        twin = game.new_initial_state(seed=run.seed, deals=[[sorted_hand(game, h) for h in swapped]])
    except TrickkitError:
        return None
    for text in actions:
        if (
            real.current_player() != twin.current_player()
            or real.observation(p) != twin.observation(p)
            or real.history_seen_by(p) != twin.history_seen_by(p)
        ):
            return None
        action = next(x for x in real.legal_actions() if x.text == text)
        want = _mapped(_signature(game, action, real), mapping)
        twins = [x for x in twin.legal_actions() if _signature(game, x, twin) == want]
        if len(twins) != 1 or real.action_seen_by(action, p) != twin.action_seen_by(twins[0], p):
            return None
        real.apply_action(action)
        twin.apply_action(twins[0])
    if real.observation(p) != twin.observation(p) or real.history_seen_by(p) != twin.history_seen_by(p):
        return None
    return twin


def _world(sample: Any) -> Any:
    """What two samples are compared by: every card and value of the sampled state."""
    seen = sample.observation_all()
    return {k: v for k, v in seen.items() if k != "history"}


def _agent_samples(run: _Run) -> None:
    import trickkit.agents as agents  # looked up at run time: the kit's own tests put a leaky sampler there

    tried = 0
    state = run.new_state()
    for s, _action in run.play(state):
        rng = run.extra(s, "samples")
        if tried >= PER_GAME or rng.random() > 0.1:
            continue
        p = s.current_player()
        found = _twin(run, s, p, rng)
        if found is None:
            continue
        tried += 1
        twin, c, d = found
        seed = rng.getrandbits(32)
        sa = agents.InformationSetSampler(p, random.Random(seed))
        sb = agents.InformationSetSampler(p, random.Random(seed))
        for k in range(SAMPLES):
            here = run.guard(functools.partial(sa.sample, s), s, f"seat {p}'s sampler drawing a determinization")
            there = run.guard(
                functools.partial(sb.sample, twin),
                s,
                f"seat {p}'s sampler drawing a determinization of the same information set ({c} and {d} "
                f"exchanged in the deal)",
            )
            for world, name in ((here, "the real state"), (there, f"the state with {c} and {d} exchanged")):
                if world.current_player() != s.current_player() or world.observation(p) != s.observation(p):
                    diff = _first_difference(s.observation(p), world.observation(p))
                    run.fail(f"a determinization of {name} for seat {p} does not look like it to seat {p} ({diff})", s)
            if _world(here) != _world(there):
                run.fail(
                    f"seat {p}'s sampler (same seed) draws sample {k + 1} differently from two states with the "
                    f"same information set for seat {p} (they differ only in {c} and {d}, cards it never saw, "
                    f"exchanged in the deal): {_first_difference(_world(here), _world(there))}; the samples "
                    f"learn something seat {p} did not see",
                    s,
                )
