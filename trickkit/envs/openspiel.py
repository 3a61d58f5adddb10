"""Any trickkit ruleset as an OpenSpiel game (the ``openspiel`` extra, PyPI package ``open_spiel``).

::

    from trickkit.envs.openspiel import load_game

    game = load_game("skull_king", players=3, rounds=2)   # a pyspiel.Game
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    state.returns()

The game is registered through OpenSpiel's Python-game mechanism: `pyspiel.register_game` with a
`pyspiel.GameType` named ``python_trickkit_NAME`` whose parameters are ``players``, the
ruleset's own parameters and ``rng_seed``, so ``pyspiel.load_game("python_trickkit_skull_king",
{"rounds": 2})`` works too once the ruleset was loaded here. Actions are the ruleset's fixed
action ids (`trickkit.Game.num_distinct_actions`); observations are
`trickkit.State.observation_tensor` (``observation_tensor``) and the seat's observation dict as
JSON (``observation_string``); information states are the seat's perfect-recall
`trickkit.State.information_state_tensor` and `trickkit.State.information_state_string` (its
observation now and every action so far as it saw it, see `trickkit.engine.infostate`), so
OpenSpiel's CFR family and NFSP run on any ruleset. Returns: +1 for every winner, -1 for every
other seat, at the end.

**Chance: sampled, not explicit.** Every deal and random move of a trickkit game is drawn
from the state's seeded generator inside the engine, so the game is declared
``SAMPLED_STOCHASTIC`` (as OpenSpiel does for its own games whose chance is drawn inside the
state): there are no chance nodes; each ``new_initial_state()`` draws a new game seed from the
game's generator, seeded by ``rng_seed``, and a clone continues with the same generator (so two
clones deal the same next round). Explicit chance nodes would need the engine to hand each
dealt card to OpenSpiel, which it does not. Algorithms that search over clones (MCTS) thus see
the real future deals; an information-set search needs a resampler of hidden cards (see
`trickkit.agents`). Sampling algorithms (outcome- or external-sampling MCCFR, NFSP) draw a deal
per game, as they would sample chance. Full-tree algorithms (``cfr.CFRSolver``,
``exploitability``) start from several ``new_initial_state()`` calls that must agree: give
``same_deal=True`` and every new game is the game of seed ``rng_seed`` (one deal, which each seat
still sees only in part), whose tree they solve.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from trickkit.engine.game import Game
from trickkit.engine.loader import load_game as _load_trickkit
from trickkit.envs import action_id, missing_extra, seat_rewards
from trickkit.errors import TrickkitError
from trickkit.randomness import check_seed

try:
    import pyspiel
except ModuleNotFoundError as missing:  # the framework is an extra: say which
    raise missing_extra("trickkit.envs.openspiel", "openspiel", missing) from None

__all__ = ["TrickkitSpielGame", "TrickkitSpielState", "load_game", "register"]

SEED_PARAMETER = "rng_seed"
"""The OpenSpiel game parameter seeding the generator from which each new game's seed is drawn."""

SAME_DEAL_PARAMETER = "same_deal"
"""The OpenSpiel game parameter making every new game the same game (of seed ``rng_seed``)."""

_REGISTERED: dict[str, tuple[Any, ...]] = {}  # short name -> (ruleset source, content hash, GameType)


def load_game(game: Any, **params: Any) -> TrickkitSpielGame:
    """A trickkit ruleset as a `pyspiel.Game`, registered with OpenSpiel (see the module docstring).

    Args:
        game: a ruleset name (``"hearts"``), a path to a ruleset file, or a `trickkit.Game`
            (then give no parameters other than ``rng_seed``).
        **params: ``players``, the ruleset's parameters, ``rng_seed`` (default 0) and
            ``same_deal`` (default False; see the module docstring).

    Raises:
        trickkit.RulesetError: the ruleset does not load, or a parameter is unknown.
    """
    seed = params.pop(SEED_PARAMETER, 0)
    same = params.pop(SAME_DEAL_PARAMETER, False)
    if not isinstance(same, bool):
        raise TypeError(f"{SAME_DEAL_PARAMETER} must be True or False, got {same!r}")
    if isinstance(game, Game):
        if params:
            raise TypeError("parameters go with a ruleset name, not with a loaded Game")
        params = dict(game.params, players=game.num_players)
        source = game.path or game.name
    else:
        source = game
    short_name = register(source)
    loaded: TrickkitSpielGame = pyspiel.load_game(
        short_name, {**params, SEED_PARAMETER: seed, SAME_DEAL_PARAMETER: same}
    )
    return loaded


def register(source: Any) -> str:
    """Register the ruleset ``source`` (name or path) with OpenSpiel once; return its short name."""
    base = _load_trickkit(source)
    name = f"python_trickkit_{base.name}"
    known = _REGISTERED.get(name)
    if known is not None and known[1] != base.content_hash:  # same name, other content (a user's copy)
        name = f"{name}_{base.content_hash[:10]}"
        known = _REGISTERED.get(name)
    if known is not None:
        return name
    reserved = ("players", SEED_PARAMETER, SAME_DEAL_PARAMETER)
    if any(name in base.params for name in reserved):
        clash = next(name for name in reserved if name in base.params)
        raise TrickkitError(
            f"{base.name} has a parameter named {clash!r}, which OpenSpiel's game parameters keep for "
            f"the adapter: rename the parameter to play it through OpenSpiel"
        )
    spec = {"players": base.players_default, **base.params, SEED_PARAMETER: 0, SAME_DEAL_PARAMETER: False}
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"trickkit {base.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=base.players_max,
        min_num_players=base.players_min,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )
    _REGISTERED[name] = (source, base.content_hash, game_type)
    # one subclass per ruleset, registered as OpenSpiel's own Python games are (a class, not a closure)
    cls = type(f"TrickkitSpielGame_{len(_REGISTERED)}", (TrickkitSpielGame,), {"short_name": name})
    pyspiel.register_game(game_type, cls)
    return name


class TrickkitSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is an optional extra, Any to mypy
    """A trickkit `Game` as a `pyspiel.Game` (made by `load_game`)."""

    short_name = ""
    """The name it is registered under (set on the subclass made per ruleset)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        source, _, game_type = _REGISTERED[self.short_name]
        params = dict(params or {})
        seed = check_seed(params.pop(SEED_PARAMETER, 0), SEED_PARAMETER)
        same = params.pop(SAME_DEAL_PARAMETER, False)
        if not isinstance(same, bool):
            raise TypeError(f"{SAME_DEAL_PARAMETER} must be True or False, got {same!r}")
        self.trickkit_game = _load_trickkit(source, **params)
        g = self.trickkit_game
        info = pyspiel.GameInfo(
            num_distinct_actions=g.num_distinct_actions(),
            max_chance_outcomes=0,
            num_players=g.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            max_game_length=g.rules.max_actions,
        )
        super().__init__(
            game_type,
            info,
            {**dict(params, players=g.num_players), SEED_PARAMETER: seed, SAME_DEAL_PARAMETER: same},
        )
        self._seeds = random.Random(seed)
        self._same_deal = random.Random(seed).randrange(2**63) if same else None

    def new_initial_state(self) -> TrickkitSpielState:
        """A new game, dealt from the next seed of the game's generator (with ``same_deal``: the
        game of seed ``rng_seed``, every time)."""
        seed = self._seeds.randrange(2**63) if self._same_deal is None else self._same_deal
        return TrickkitSpielState(self, self.trickkit_game.new_initial_state(seed=seed))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The observer of a seat's observation (tensor and dict), or with a perfect-recall
        ``iig_obs_type`` (OpenSpiel's information-state type) of its information state.

        Raises:
            ValueError: observation parameters asked for, or a perfect-recall type other than
                OpenSpiel's information state (public and the seat's own private information).
        """
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            if not iig_obs_type.public_info or (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
                raise ValueError(
                    "trickkit games provide the perfect-recall information state of one seat (public "
                    "and its own private information), not other perfect-recall observations"
                )
            return TrickkitInformationStateObserver(self.trickkit_game)
        return TrickkitObserver(self.trickkit_game)


class TrickkitSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel is an optional extra, Any to mypy
    """A trickkit `State` as a `pyspiel.State`."""

    def __init__(self, game: TrickkitSpielGame, state: Any) -> None:
        super().__init__(game)
        self._held = _Held(state)

    @property
    def trickkit_state(self) -> Any:
        """The trickkit `State` this pyspiel state plays."""
        return self._held.state

    def current_player(self) -> int:
        """The seat to act, or ``pyspiel.PlayerId.TERMINAL``."""
        s = self.trickkit_state
        player: int = pyspiel.PlayerId.TERMINAL if s.is_terminal() else s.current_player()
        return player

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action ids of ``player`` (ascending), empty if not to act."""
        s = self.trickkit_state
        if s.is_terminal() or player != s.current_player():
            return []
        return sorted(s.legal_action_ids())

    def _apply_action(self, action: int) -> None:
        self.trickkit_state.apply_action(action_id(action))

    def _action_to_string(self, player: int, action: int) -> str:
        text: str = self.trickkit_state.game.action_to_string(int(action))
        return text

    def is_terminal(self) -> bool:
        """True once the game is over."""
        over: bool = self.trickkit_state.is_terminal()
        return over

    def returns(self) -> list[float]:
        """+1 for each winner and -1 for every other seat at the end, 0 before."""
        return seat_rewards(self.trickkit_state, "win")

    def __str__(self) -> str:
        # public facts only (no hidden card): OpenSpiel prints states in logs
        return repr(self.trickkit_state)


class _Held:
    """Holds the trickkit state. OpenSpiel clones a Python state by deep-copying its attributes:
    this copies the trickkit state with its own ``clone()`` (the immutable Game stays shared)."""

    __slots__ = ("state",)

    def __init__(self, state: Any) -> None:
        self.state = state

    def __deepcopy__(self, memo: Any) -> Any:
        return _Held(self.state.clone())


class TrickkitObserver:
    """OpenSpiel's Python observer interface: ``tensor``, ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.tensor = np.zeros(game.observation_tensor_shape(), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TrickkitSpielState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s observation tensor of ``state``."""
        state.trickkit_state.observation_tensor(player, out=self.tensor)

    def string_from(self, state: TrickkitSpielState, player: int) -> str:
        """``player``'s observation dict of ``state`` as JSON text."""
        return json.dumps(state.trickkit_state.observation(player), sort_keys=True)


class TrickkitInformationStateObserver:
    """OpenSpiel's Python observer of perfect-recall information states: ``tensor`` is the seat's
    `trickkit.State.information_state_tensor`, ``string_from`` its `trickkit.State.information_state_string`."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.tensor = np.zeros(game.information_state_tensor_shape(), np.float32)
        self.dict = {"info_state": self.tensor}

    def set_from(self, state: TrickkitSpielState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s information-state tensor of ``state``."""
        state.trickkit_state.information_state_tensor(player, out=self.tensor)

    def string_from(self, state: TrickkitSpielState, player: int) -> str:
        """``player``'s information-state string of ``state``."""
        text: str = state.trickkit_state.information_state_string(player)
        return text
