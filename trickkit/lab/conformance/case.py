"""What a check reports: the names of the checks, a replayable game (`GameCase`), and the
`InvariantError` that names the check, the game and the command that replays it."""

from __future__ import annotations

import json
import shlex
from typing import Any

import attrs

from trickkit.errors import TrickkitError

CHECKS = (
    "termination",
    "conservation",
    "illegal_actions",
    "determinism",
    "clone",
    "json_round_trip",
    "hidden_information",
)
"""The names of the checks, in the order `check_ruleset` runs them."""


class MissingHypothesis(TrickkitError, ImportError):
    """`check_ruleset` needs hypothesis (a dependency of trickkit), which is missing (``pip install hypothesis``)."""


# ---------------------------------------------------------------- a replayable game
@attrs.frozen
class GameCase:
    """One replayable game: what a failure report gives, what ``--replay`` reads.

    Attributes:
        ruleset: the ruleset as given (a shipped name or a path).
        players: the seat count.
        params: parameter values passed to `trickkit.load_game`.
        seed: the shuffle seed of ``new_initial_state``.
        actions: the action texts, in order (the last one may be the one that failed).
        check: the check that failed (one of `CHECKS`), or ``""``.
    """

    ruleset: str
    players: int
    params: dict[str, Any] = attrs.field(factory=dict)
    seed: int = 0
    actions: tuple[str, ...] = ()
    check: str = ""

    def to_json(self) -> str:
        """The case as one line of JSON (``"format": "trickkit-test-case"``)."""
        return json.dumps(
            {
                "format": "trickkit-test-case",
                "ruleset": self.ruleset,
                "players": self.players,
                "params": self.params,
                "seed": self.seed,
                "check": self.check,
                "actions": list(self.actions),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> GameCase:
        """Read a case written by `to_json`.

        Raises:
            ValueError: the text is not such a case.
        """
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ValueError(f"a test case is JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != "trickkit-test-case":
            raise ValueError("not a trickkit test case (missing 'format': 'trickkit-test-case')")
        actions = data.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ValueError("a test case's 'actions' is a list of action texts")
        seed, players = data.get("seed", 0), data.get("players")
        if not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(players, int):
            raise ValueError("a test case needs an integer 'seed' and 'players'")
        if not isinstance(data.get("params", {}), dict) or not isinstance(data.get("ruleset", ""), str):
            raise ValueError("a test case's 'params' is a mapping and its 'ruleset' a text")
        return cls(
            data.get("ruleset", ""),
            players,
            dict(data.get("params", {})),
            seed,
            tuple(actions),
            str(data.get("check", "")),
        )


class InvariantError(AssertionError):
    """An invariant failed on a game; ``str()`` says which, on what game, and how to replay it.

    Attributes:
        check: the check's name (one of `CHECKS`).
        message: what went wrong, e.g. ``card B3 is in two places``.
        case: the `GameCase` that shows it (its actions end where it went wrong).
    """

    def __init__(self, check: str, message: str, case: GameCase):
        self.check, self.message, self.case = check, message, case
        super().__init__(self._text())

    def _text(self) -> str:
        c = self.case
        params = "".join(f" --param {shlex.quote(f'{k}={v}')}" for k, v in sorted(c.params.items()))
        shown = ", ".join(repr(a) for a in c.actions[:40]) + (", ..." if len(c.actions) > 40 else "")
        return (
            f"{self.check} failed: {self.message}\n"
            f"  game: {c.ruleset}, {c.players} players{', params ' + repr(c.params) if c.params else ''}, "
            f"seed {c.seed}\n"
            f"  actions ({len(c.actions)}): [{shown}]\n"
            f"  replay: trickkit test {shlex.quote(c.ruleset)} --players {c.players}{params} "
            f"--replay {shlex.quote(c.to_json())}"
        )
