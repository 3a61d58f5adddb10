"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012)."""

from __future__ import annotations

import math
import random
from typing import Any

from trickkit.agents.basic import _legal_or_raise
from trickkit.agents.determinize import InformationSetSampler
from trickkit.errors import TrickkitError

__all__ = ["ISMCTSAgent"]


class _Node:
    """A node of the search tree: reached by a sequence of actions from the decision."""

    __slots__ = ("avail", "children", "player", "reward", "visits")

    def __init__(self, player: int) -> None:
        self.player = player  # the seat that chose the action leading here
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.avail = 0  # times this action was legal when its parent was visited
        self.reward = 0.0  # sum of `player`'s rewards over the visits


class ISMCTSAgent:
    """An information-set MCTS agent for any ruleset.

    Each iteration draws a determinization (a full state consistent with what the seat has
    seen, from `InformationSetSampler`: voids and every public action are respected), walks one
    tree shared by all determinizations, choosing among the actions legal in that
    determinization by UCB1 with availability counts, adds one node, plays the rest of the game
    at random, and credits every seat on the path with its result: 1 for a win, ``1/k`` for a
    win shared by ``k`` seats, 0 otherwise. It plays the most visited action.

    Args:
        iterations: determinizations (and playouts) per decision (>= 1).
        exploration: the UCB1 constant ``c`` in ``mean + c * sqrt(ln(avail) / visits)``
            (rewards are in 0..1; default 0.7); a finite number >= 0 (nan and inf are refused).
        seed: seed of the agent's generator (samples, tie-breaks, playouts); the same seed and
            the same game give the same choices. None: seeded from the system.
        rollout_limit: most actions of a playout; at the limit the seats with the best scores so
            far count as the winners. None (default): play to the end of the game.
        max_tries: determinizations drawn and checked before the sampler falls back to one
            that ignores the history (counted in ``stats["fallbacks"]``).

    Attributes:
        stats: ``decisions`` and the sampler's counters (``samples``, ``tries``, ``rejected``,
            ``fallbacks``).

    Raises:
        TrickkitError: an option is out of range, or ``step`` is given a state that is not a
            trickkit engine state.
    """

    def __init__(
        self,
        iterations: int = 200,
        exploration: float = 0.7,
        seed: int | None = None,
        rollout_limit: int | None = None,
        max_tries: int = 50,
    ) -> None:
        if not _is_int(iterations) or iterations < 1:
            raise TrickkitError(f"ismcts: iterations must be an int >= 1, got {iterations!r}")
        if (
            isinstance(exploration, bool)
            or not isinstance(exploration, (int, float))
            or not math.isfinite(exploration)
            or exploration < 0
        ):
            raise TrickkitError(f"ismcts: exploration must be a finite number >= 0, got {exploration!r}")
        if rollout_limit is not None and (not _is_int(rollout_limit) or rollout_limit < 0):
            raise TrickkitError(f"ismcts: rollout_limit must be an int >= 0, got {rollout_limit!r}")
        if not _is_int(max_tries) or max_tries < 1:
            raise TrickkitError(f"ismcts: max_tries must be an int >= 1, got {max_tries!r}")
        if seed is not None and not _is_int(seed):
            raise TrickkitError(f"ismcts: seed must be an int or None, got {seed!r}")
        self.iterations = iterations
        self.exploration = float(exploration)
        self.rollout_limit = rollout_limit
        self.seed = seed
        self.rng = random.Random(seed) if seed is not None else random.Random()
        self.max_tries = max_tries
        self._samplers: dict[int, InformationSetSampler] = {}
        self._decisions = 0

    @property
    def stats(self) -> dict[str, int]:
        """Counters: ``decisions``, and the samplers' ``samples``, ``tries``, ``rejected``, ``fallbacks``."""
        out = {"decisions": self._decisions, "samples": 0, "tries": 0, "rejected": 0, "fallbacks": 0}
        for sampler in self._samplers.values():
            for k, v in sampler.stats.items():
                out[k] += v
        return out

    def sampler(self, seat: int) -> InformationSetSampler:
        """The sampler of ``seat``'s information set (one per seat this agent has played)."""
        s = self._samplers.get(seat)
        if s is None:
            s = self._samplers[seat] = InformationSetSampler(seat, self.rng, self.max_tries)
        return s

    def step(self, state: Any) -> Any:
        """Search from ``state`` for the current seat and return its chosen legal action.

        Raises:
            TrickkitError: the state is terminal, has no legal action, or is not an engine state.
        """
        if state.is_terminal():
            raise TrickkitError("ismcts: the game is over, there is no action to choose")
        legal = _legal_or_raise(state)
        self._decisions += 1
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        sampler = self.sampler(me)
        allowed = {a.text: a for a in legal}
        root = _Node(me)
        rng, c = self.rng, self.exploration
        for _ in range(self.iterations):
            world = sampler.sample(state)
            node, path = root, [root]
            # selection and expansion: descend while every legal action has a child
            while not world.is_terminal():
                actions = world.legal_actions()
                if node is root:
                    actions = [a for a in actions if a.text in allowed] or legal
                children = node.children
                untried = []
                for a in actions:
                    child = children.get(a.text)
                    if child is None:
                        untried.append(a)
                    else:
                        child.avail += 1
                if untried:
                    a = untried[rng.randrange(len(untried))]
                    child = children[a.text] = _Node(world.current_player())
                    child.avail = 1
                    world.apply_action(a)
                    path.append(child)
                    break
                best: Any = None  # the actions are not empty: one of them is best
                best_value = -1.0
                for a in actions:
                    child = children[a.text]
                    value = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                    if value > best_value:
                        best, best_value = a, value
                node = children[best.text]
                world.apply_action(best)
                path.append(node)
            rewards = self._playout(world)
            for n in path[1:]:
                n.visits += 1
                n.reward += rewards[n.player]
        best = max(legal, key=lambda a: root.children[a.text].visits if a.text in root.children else -1)
        return best

    def _playout(self, world: Any) -> list[float]:
        """Play at random to the end (or ``rollout_limit`` actions); each seat's reward."""
        rng = self.rng
        limit = self.rollout_limit
        done = 0
        while not world.is_terminal() and (limit is None or done < limit):
            actions = world.legal_actions()
            world.apply_action(actions[rng.randrange(len(actions))])
            done += 1
        return _rewards(world)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rewards(world: Any) -> list[float]:
    """Each seat's share of the other seats it beats on score (a tie counts half), in 0..1.

    Smoother than win or lose, so fewer playouts tell good actions from bad, and it is 1
    exactly for a sole winner; the direction (highest or lowest wins) is the ruleset's.
    """
    scores = world.scores()
    n = len(scores)
    if n < 2:
        return [1.0] * n
    sign = 1 if world.rules.winners_highest else -1
    keyed = [sign * v for v in scores]
    return [(sum(1.0 if k > o else 0.5 if k == o else 0.0 for o in keyed) - 0.5) / (n - 1) for k in keyed]
