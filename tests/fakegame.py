"""A tiny stand-in game that follows trickkit's public Game/State API.

"Pile": a pile of ``pile`` tokens (default 7); players take turns taking 1 or
2 tokens ("take 1", "take 2"; never more than remain).  Whoever takes the last
token scores 1, everyone else 0.  The seed picks the starting seat
(``seed % players``); ``deals=[[n]]`` overrides the pile size.

Used to test simulate/scenarios/cli without the real engine.
"""

from __future__ import annotations

import json

from trickkit.errors import IllegalActionError, StateError

TERMINAL = -4


class Action:
    def __init__(self, n: int):
        self.n = n

    def __str__(self) -> str:
        return f"take {self.n}"

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"

    def __eq__(self, other):
        return isinstance(other, Action) and other.n == self.n

    def __hash__(self):
        return hash(self.n)


class PileState:
    def __init__(self, game: PileGame, pile: int, to_move: int):
        self.game = game
        self.pile = pile
        self.to_move = to_move
        self.last = None
        self._history: list[str] = []

    def current_player(self) -> int:
        return TERMINAL if self.pile == 0 else self.to_move

    def is_terminal(self) -> bool:
        return self.pile == 0

    def legal_actions(self) -> list[Action]:
        if self.is_terminal():
            return []
        return [Action(n) for n in (1, 2) if n <= self.pile]

    def apply_action(self, action) -> None:
        text = str(action)
        if self.is_terminal():
            raise IllegalActionError(f"{text!r}: the game is over")
        if not text.startswith("take ") or not text[5:].isdigit():
            raise IllegalActionError(f"{text!r} is not an action of this game")
        n = int(text[5:])
        if n not in (1, 2):
            raise IllegalActionError(f"{text!r}: you may take 1 or 2")
        if n > self.pile:
            raise IllegalActionError(f"{text!r}: only {self.pile} left")
        self.pile -= n
        self.last = self.to_move
        self._history.append(text)
        if self.pile:
            self.to_move = (self.to_move + 1) % self.game.num_players

    def scores(self) -> list[int]:
        return [1 if self.pile == 0 and seat == self.last else 0 for seat in range(self.game.num_players)]

    def winners(self) -> list[int]:
        return [self.last] if self.pile == 0 else []

    def observation(self, seat: int) -> dict:
        return {"seat": seat, "pile": self.pile, "to_move": self.current_player(), "history": list(self._history)}

    def clone(self) -> PileState:
        c = PileState(self.game, self.pile, self.to_move)
        c.last = self.last
        c._history = list(self._history)
        return c

    def history(self) -> list[str]:
        return list(self._history)

    def action_seen_by(self, action, seat) -> str:
        return str(action)

    def to_json(self) -> str:
        return json.dumps(
            {
                "game": self.game.name,
                "pile": self.pile,
                "to_move": self.to_move,
                "last": self.last,
                "history": self._history,
            }
        )


class PileGame:
    name = "pile"
    title = "Pile (fake test game)"
    players_min = 2
    players_max = 4
    players_default = 2

    def __init__(self, players: int = 2, pile: int = 7):
        from trickkit.errors import Problem, RulesetError

        if not self.players_min <= players <= self.players_max:
            raise RulesetError([Problem("pile", 0, 0, "$.players", f"players must be 2..4, got {players!r}")])
        self.num_players = players
        self.params = {"players": players, "pile": pile}

    def new_initial_state(self, seed: int = 0, deals=None) -> PileState:
        pile = deals[0][0] if deals else self.params["pile"]
        return PileState(self, pile, seed % self.num_players)

    def state_from_json(self, text: str) -> PileState:
        d = json.loads(text)
        if d.get("game") != self.name:
            raise StateError("wrong game")
        s = PileState(self, d["pile"], d["to_move"])
        s.last = d["last"]
        s._history = list(d["history"])
        return s


def load_game(name, **kwargs) -> PileGame:
    """Stand-in for trickkit.load_game that only knows "pile"."""
    from trickkit.errors import Problem, RulesetError

    if str(name) != "pile":
        raise RulesetError([Problem(str(name), 0, 0, "$", f"no game {str(name)!r}")])
    return PileGame(**kwargs)


def list_games() -> list[str]:
    return ["pile"]
