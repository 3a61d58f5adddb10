"""Plays one game for one check: `_Run` (guarded moves, failure reports) and the `IndexChooser`
that picks the actions, by recorded index or at random."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeAlias, TypeVar

from trickkit.errors import TrickkitError
from trickkit.lab.conformance.case import GameCase, InvariantError

T = TypeVar("T")

Chooser: TypeAlias = Callable[[Any, list[Any]], Any]
"""``chooser(state, legal_actions) -> action``: an `trickkit.Action`, a replayed action text, or None
(no more actions: the game stops there). The kit drives any engine object (states, games and
actions of `trickkit` or a test's stand-ins) and reaches into their internals, so they are `Any`."""


class _Run:
    """One game played for one check: the chooser of actions, and the failure report."""

    def __init__(
        self,
        check: str,
        game: Any,
        ruleset: str,
        params: dict[str, Any],
        seed: int,
        chooser: Chooser,
        max_actions: int,
    ) -> None:
        self.check, self.game, self.ruleset, self.params, self.seed = check, game, ruleset, params, seed
        self.chooser, self.max_actions = chooser, max_actions
        self.exhausted = False  # a replay ran out of recorded actions before the game ended

    def fail(
        self, message: str, state: Any = None, action: Any = None, history: Sequence[str] | None = None
    ) -> NoReturn:
        actions = list(history if history is not None else state.history() if state is not None else [])
        if action is not None:
            actions.append(str(action))
        raise InvariantError(
            self.check,
            message,
            GameCase(self.ruleset, self.game.num_players, dict(self.params), self.seed, tuple(actions), self.check),
        )

    def extra(self, state: Any, salt: str = "") -> random.Random:
        """A generator for the check's own random picks at this point of the game: it depends only
        on the seed and the number of actions so far, so a replayed game repeats them."""
        return random.Random(f"trickkit-testing:{self.seed}:{len(state._history)}:{salt}")

    def new_state(self) -> Any:
        return self.guard(lambda: self.game.new_initial_state(seed=self.seed), None, "setting up the game")

    def guard(self, fn: Callable[[], T], state: Any, what: str, action: Any = None) -> T:
        """``fn()``; an error of the rules (or a raw exception) is a failure of this check."""
        try:
            return fn()
        except InvariantError:
            raise
        except TrickkitError as e:
            self.fail(f"{what}: {type(e).__name__}: {e}", state, action)
        except Exception as e:  # a raw Python exception must never escape the engine
            self.fail(f"{what}: a raw Python exception escaped: {type(e).__name__}: {e}", state, action)

    def legal(self, state: Any) -> list[Any]:
        return self.guard(state.legal_actions, state, "asking for the legal actions")

    def apply(self, state: Any, action: Any) -> None:
        self.guard(lambda: state.apply_action(action), state, f"applying {str(action)!r}", action)

    def choose(self, state: Any, legal: list[Any]) -> Any:
        action = self.chooser(state, legal)
        if action is None:
            self.exhausted = True
        return action

    def play(self, state: Any) -> Iterator[tuple[Any, Any]]:
        """Play the game to its end; yield ``(state, action)`` before each action is applied."""
        while not self.guard(state.is_terminal, state, "asking whether the game is over"):
            if len(state._history) >= self.max_actions:
                self.fail(
                    f"the game did not end within max_actions={self.max_actions} actions (a ruleset that never ends?)",
                    state,
                )
            legal = self.legal(state)
            if not legal:
                self.fail("no legal action, yet the game is not over", state)
            action = self.choose(state, legal)
            if action is None:
                return
            if isinstance(action, str):  # a replayed text: the legal action it names
                text, action = action, next((a for a in legal if a.text == action), None)
                if action is None:
                    self.apply(state, text)  # not legal: reported as such
                    return
            yield state, action
            self.apply(state, action)


class IndexChooser:
    """Picks each action by index into the legal actions: from ``indices`` while they last (modulo
    the number of legal actions), then from ``rng``, or the first legal action without one.
    ``taken`` records the index of every action picked."""

    def __init__(self, indices: Sequence[int] = (), rng: random.Random | None = None) -> None:
        self.indices, self.rng = list(indices), rng
        self.taken: list[int] = []

    def __call__(self, state: Any, legal: list[Any]) -> Any:
        k = len(self.taken)
        if k < len(self.indices):
            i = self.indices[k] % len(legal)
        elif self.rng is not None:
            i = self.rng.randrange(len(legal))
        else:
            i = 0
        self.taken.append(i)
        return legal[i]


class _DealOnly:
    """A game that stops after its first step: ``State(_DealOnly(game), seed)`` holds the cards
    exactly as the first deal left them, before any draw of the steps that follow it (a turn that
    starts with a draw runs before the first decision)."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def step_enter(self, state: Any, step: Any) -> bool:
        if step is not self._game.rules.steps[0]:
            return True  # stand still here, as if a seat were asked
        return bool(self._game.step_enter(state, step))


def dealt_hands(game: Any, seed: int, zone: int) -> list[list[str]]:
    """The texts of seat zone ``zone``'s cards, seat by seat, as the game's first step (a deal)
    leaves them with shuffle seed ``seed``: what ``new_initial_state(seed, deals=[hands])``
    deals again exactly."""
    from trickkit.engine.state import State

    state = State(_DealOnly(game), seed)
    return [[game.cards[c] for c in hand] for hand in state.seat_zones[zone]]
