"""Agents that play any trickkit ruleset: random, first-legal and information-set MCTS.

**The agent protocol.** An agent is any object with ``step(state) -> action``: given a
`trickkit.State` that is not terminal, it returns one of ``state.legal_actions()`` (an
`trickkit.Action` or its text) for the seat to act, ``state.current_player()``. The agent
receives the whole state, as in OpenSpiel; a fair agent uses only what that seat may know
(``state.observation(seat)``, ``state.legal_actions()``, the actions as
``state.action_seen_by`` shows them). `ISMCTSAgent` keeps to that: it samples the hidden cards.

**Agent specs** name agents in text, for ``trickkit simulate --agents`` and
``trickkit.simulate(agents=[...])``: ``NAME[:KEY=VALUE[:KEY=VALUE...]]``, e.g. ``random``,
``first``, ``ismcts:iterations=100:exploration=0.5``. See `AGENTS` for the names.

May import: ``trickkit.engine``, ``trickkit.rules``, ``trickkit.dsl`` and the root modules; never
environments, the lab or the command line.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from trickkit.agents.basic import FirstLegalAgent, RandomAgent
from trickkit.agents.determinize import InformationSetSampler
from trickkit.agents.ismcts import ISMCTSAgent
from trickkit.errors import TrickkitError

__all__ = [
    "AGENTS",
    "Agent",
    "AgentSpec",
    "FirstLegalAgent",
    "ISMCTSAgent",
    "InformationSetSampler",
    "RandomAgent",
    "make_agent",
    "parse_agent_spec",
    "parse_agent_specs",
]


class Agent(Protocol):
    """What `trickkit.simulate` and the CLI call: ``step(state)`` returns a legal action."""

    def step(self, state: Any) -> Any:
        """Return one of ``state.legal_actions()`` for ``state.current_player()``."""
        ...


AGENTS = {
    "random": (RandomAgent, ()),
    "first": (FirstLegalAgent, ()),
    "ismcts": (ISMCTSAgent, ("iterations", "exploration", "seed", "rollout_limit", "max_tries")),
}
"""Agent names usable in specs -> (class, its options). ``random`` draws from the game's agent
generator; ``ismcts`` without ``seed`` is seeded from that generator, so a simulation's results
depend only on its master seed."""

_TYPES = {"iterations": int, "seed": int, "rollout_limit": int, "max_tries": int, "exploration": float}


class AgentSpec:
    """A parsed agent spec: a picklable recipe that builds a fresh agent per game.

    Args:
        name: a key of `AGENTS`.
        options: option name -> value (already converted to its type).
    """

    def __init__(self, name: str, options: dict[str, Any] | None = None) -> None:
        self.name = name
        self.options = dict(options or {})

    def __call__(self, rng: random.Random) -> Any:
        """A new agent; ``rng`` is the game's agent generator (see `trickkit.lab.simulation`)."""
        cls, _ = AGENTS[self.name]
        if cls is RandomAgent:
            return RandomAgent(rng)
        if cls is ISMCTSAgent:
            options = dict(self.options)
            options.setdefault("seed", rng.getrandbits(63))
            return ISMCTSAgent(**options)
        return cls(rng)

    def __repr__(self) -> str:
        return ":".join([self.name] + [f"{k}={v}" for k, v in self.options.items()])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentSpec) and (self.name, self.options) == (other.name, other.options)


def parse_agent_spec(text: str, extra: dict[str, str] | None = None) -> AgentSpec:
    """Parse ``NAME[:KEY=VALUE...]`` (e.g. ``'ismcts:iterations=50'``).

    Args:
        text: the spec.
        extra: options given apart (``--agent-option KEY=VALUE``); applied where the agent has
            such an option, a spec's own option wins.

    Raises:
        TrickkitError: an unknown agent name or option, or a value of the wrong type.
    """
    if not isinstance(text, str) or not text.strip():
        raise TrickkitError(f"an agent spec is a name such as 'random' or 'ismcts:iterations=100', got {text!r}")
    name, *parts = text.strip().split(":")
    name = name.strip().lower()
    if name not in AGENTS:
        raise TrickkitError(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})")
    allowed = AGENTS[name][1]
    options: dict[str, Any] = {}
    given = {k: v for k, v in (extra or {}).items() if k in allowed}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq:
            raise TrickkitError(f"agent {name!r}: option {part!r} must be KEY=VALUE")
        given[key.strip()] = value.strip()
    for key, value in given.items():
        if key not in allowed:
            raise TrickkitError(f"agent {name!r} has no option {key!r} (options: {', '.join(allowed) or 'none'})")
        try:
            options[key] = _TYPES[key](value)
        except ValueError:
            raise TrickkitError(f"agent {name!r}: option {key}={value!r} must be {_TYPES[key].__name__}") from None
    try:
        make_agent(AgentSpec(name, options), random.Random(0))  # check the values now, not in a worker
    except TypeError as e:
        raise TrickkitError(f"agent {name!r}: {e}") from None
    return AgentSpec(name, options)


def parse_agent_specs(text: str | Sequence[str], players: int, extra: dict[str, str] | None = None) -> list[AgentSpec]:
    """Parse one spec per seat: ``'ismcts,random,random,random'`` or a list of specs.

    A single spec is used for every seat.

    Raises:
        TrickkitError: a bad spec, an ``extra`` option no listed agent has, or a count that is
            neither 1 nor ``players``.
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    specs = [parse_agent_spec(t, extra) for t in items]
    if extra:
        known = {k for s in specs for k in AGENTS[s.name][1]}
        unused = sorted(set(extra) - known)
        if unused:
            raise TrickkitError(
                f"agent option {unused[0]!r} fits none of the agents {', '.join(sorted({s.name for s in specs}))}"
            )
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise TrickkitError(f"got {len(specs)} agents for a {players}-player game")
    return specs


def make_agent(spec: Any, rng: random.Random) -> Any:
    """An agent for one game from a spec: an `AgentSpec`, a spec text, an agent object (returned
    as is) or a factory ``factory(rng)``.

    Raises:
        TrickkitError: ``spec`` is none of these.
    """
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if isinstance(spec, (AgentSpec, type)) or not hasattr(spec, "step"):
        if not callable(spec):
            raise TrickkitError(f"an agent has a step() method, or is a spec or factory: got {spec!r}")
        return spec(rng)
    return spec
