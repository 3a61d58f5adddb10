"""What a check reports: the names of the checks, a replayable game (`GameCase`), and the
`InvariantError` that names the check, the game and the command that replays it."""

from __future__ import annotations

import json
import shlex
from typing import Any

import attrs

from trickkit.errors import TrickkitError, did_you_mean, short_repr

CHECKS = (
    "termination",
    "conservation",
    "illegal_actions",
    "determinism",
    "clone",
    "json_round_trip",
    "hidden_information",
    "agent_samples",
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

        Everything is checked before anything is loaded or played: JSON within the limits of
        `trickkit.jsonsafe` (nesting, integer size), ``check`` one of `CHECKS`, ``players`` an
        int, ``seed`` a game seed (`trickkit.randomness.check_seed`), ``params`` a mapping of
        parameter values whose keys are not ``load_game``'s own arguments (`RESERVED_PARAMS`),
        ``actions`` a list of texts.

        Raises:
            ValueError: the text is not such a case; the message says what is wrong.
        """
        from trickkit import jsonsafe
        from trickkit.randomness import check_seed

        if not isinstance(text, str):
            raise ValueError(f"a test case is JSON text, got {type(text).__name__}")
        try:
            data = jsonsafe.loads(text)
        except ValueError as e:
            raise ValueError(f"a test case is JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != "trickkit-test-case":
            raise ValueError("not a trickkit test case (missing 'format': 'trickkit-test-case')")
        unknown = sorted(k for k in data if k not in _CASE_KEYS)
        if unknown:
            raise ValueError(
                f"a test case has no key {short_repr(unknown[0])}{did_you_mean(unknown[0], _CASE_KEYS)} "
                f"(keys: {', '.join(_CASE_KEYS)})"
            )
        check = data.get("check", "")
        if check not in CHECKS:
            raise ValueError(
                f"unknown check {short_repr(check)}"
                f"{did_you_mean(check, CHECKS) if isinstance(check, str) else ''} (checks: {', '.join(CHECKS)})"
            )
        actions = data.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ValueError(f"a test case's 'actions' is a list of action texts, got {short_repr(actions)}")
        players = data.get("players")
        if not isinstance(players, int) or isinstance(players, bool):
            raise ValueError(f"a test case's 'players' is an integer, got {short_repr(players)}")
        try:
            seed = check_seed(data.get("seed", 0), "a test case's 'seed'")
        except ValueError as e:
            raise ValueError(str(e)) from None
        ruleset, params = data.get("ruleset", ""), data.get("params", {})
        if not isinstance(ruleset, str):
            raise ValueError(f"a test case's 'ruleset' is a text, got {short_repr(ruleset)}")
        if not isinstance(params, dict):
            raise ValueError(f"a test case's 'params' is a mapping of parameter values, got {short_repr(params)}")
        for key in params:
            if key in RESERVED_PARAMS:
                raise ValueError(f"a test case's 'params' may not set {key!r}: {RESERVED_PARAMS[key]}")
        return cls(ruleset, players, dict(params), seed, tuple(actions), check)


_CASE_KEYS = ("format", "ruleset", "players", "params", "seed", "check", "actions")

RESERVED_PARAMS = {
    "players": "the seat count is the case's 'players'",
    "name_or_path": "the game is the case's 'ruleset'",
    "coverage": "it is an option of load_game, not a parameter of the game",
}
"""The keyword arguments of `trickkit.load_game` a case's ``params`` may not set, and why."""


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
