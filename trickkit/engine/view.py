"""Shows a game to a person: an observation as a few short lines (``trickkit play``), and
the game told as it goes from one seat's view (`Narrator`, ``State.transcript``).

Everything here is for eyes only: it never changes a state, and it shows only what the
viewing seat may see (its observation, the actions as that seat sees them, and completed
tricks, which were played face up).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

__all__ = ["Narrator", "card_label", "clean", "columns", "fit", "render", "revealed_lines", "transcript"]

Snapshot = tuple[int, int, Any, list[int], bool, int, Any, Any]
"""What `Narrator.tell` compares a state with: round, step, last trick, scores, game over, seats
acted, what reveals showed the viewing seat, and where the cards of the seats' zones lay."""

ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""The Unicode categories `clean` shows as escapes: controls (``Cc``), format characters
(``Cf``: bidirectional controls, zero-width and other invisible characters), lone surrogates
(``Cs``) and the line and paragraph separators (``Zl``, ``Zp``)."""


def clean(text: Any) -> str:
    """``text`` safe for a terminal: every character of `ESCAPED_CATEGORIES` (ESC, BEL,
    carriage return, C1 codes, bidirectional controls, invisible characters, line and
    paragraph separators, lone surrogates) becomes a visible escape such as ``\\x1b`` or
    ``\\u2028``, so a card or action text can neither move the cursor, reorder or hide what
    follows, nor crash the output."""
    shown = str(text)
    if shown.isascii() and shown.isprintable():
        return shown
    out = []
    for ch in shown:
        if unicodedata.category(ch) in ESCAPED_CATEGORIES:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def fit(line: str, width: int) -> list[str]:
    """``line`` broken at spaces into lines of at most ``width`` characters, continued with
    a hanging indent, so the terminal never wraps it in the middle of a word."""
    if len(line) <= width:
        return [line]
    import textwrap

    lead = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.wrap(
        line, width, initial_indent="", subsequent_indent=lead + "    ", break_on_hyphens=False, drop_whitespace=True
    ) or [line[:width]]


def columns(items: list[str], width: int, indent: int = 2) -> list[str]:
    """``items`` laid out in as many columns as fit in ``width`` (read down each column)."""
    if not items:
        return []
    cell = max(len(i) for i in items) + 2
    per_row = max(1, (width - indent) // cell)
    rows = -(-len(items) // per_row)
    lines = []
    for r in range(rows):
        row = [items[c * rows + r] for c in range(per_row) if c * rows + r < len(items)]
        lines.append(" " * indent + "".join(x.ljust(cell) for x in row).rstrip())
    return lines


def card_label(text: str, titles: dict[str, str]) -> str:
    """A card's text, with its title when the deck gives cards one (``T3 (The Empress)``)."""
    title = titles.get(text)
    return clean(f"{text} ({title})" if title else text)


def _zone(view: dict[str, Any], titles: dict[str, str]) -> str:
    if "cards" in view:
        cards = view["cards"]
        return " ".join(card_label(c, titles) for c in cards) if cards else "-"
    if "top" in view:
        top = view["top"]
        return f"{card_label(top, titles)} on top, {view['count']} in all" if top else "-"
    return f"{view['count']} hidden" if view["count"] else "-"


def _value(v: Any) -> str:
    if v is None:
        return "?"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return clean(v)


def render(
    obs: Mapping[str, Any],
    me: int,
    titles: dict[str, str] | None = None,
    unit: str = "points",
    hidden: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Lines describing observation ``obs`` (from `State.observation`) for seat ``me``.

    Args:
        obs: the observation dict.
        me: the seat of the person reading it.
        titles: card text -> title, for decks whose cards have a ``title`` attribute.
        unit: what scores count (e.g. ``"heads"``).
        hidden: variable names not to show (those declared ``internal: true``).

    Returns:
        Lines of text without line breaks; card texts have their control characters escaped.
    """
    titles = titles or {}
    if hidden:
        obs = dict(obs, variables={k: v for k, v in obs.get("variables", {}).items() if k not in hidden})
    if not set(obs) >= _KEYS:  # not an engine observation (a custom game object): show it as it is
        return [clean(f"{k}: {_value(v) if not isinstance(v, dict) else v}") for k, v in obs.items()]
    n = len(obs["scores"])
    turn = (
        "game over"
        if obs["terminal"]
        else (
            f"to act: seat {obs['current_player']}"
            + (" (you)" if obs["current_player"] == me else "")
            + (f", playing seat {obs['playing_for']}'s card" if obs.get("playing_for") is not None else "")
        )
    )
    lines = [f"round {obs['round']} · dealer seat {obs['dealer']} · {obs['phase']} · {turn}"]
    table: list[str] = []
    per_seat: dict[int, list[str]] = {}
    for name, view in obs["zones"].items():
        if isinstance(view, dict):
            table.append(f"  {name}: {_zone(view, titles)}")
        elif len(view) == n and name in _seat_zone_names(obs):
            for seat, v in enumerate(view):
                per_seat.setdefault(seat, []).append(f"{name} {_zone(v, titles)}")
        else:  # a zone family: one line per member, numbered from 1
            for i, v in enumerate(view, start=1):
                table.append(f"  {name} {i}: {_zone(v, titles)}")
    seat_vars = {
        k: v for k, v in obs["variables"].items() if isinstance(v, list) and len(v) == n and k in _seat_var_names(obs)
    }
    table_vars = {k: v for k, v in obs["variables"].items() if k not in seat_vars}
    if obs["trick"]:
        lines.append("trick: " + ", ".join(f"seat {p['seat']} {card_label(p['card'], titles)}" for p in obs["trick"]))
    if table:
        lines.append("table:")
        lines += table
    if table_vars:
        lines.append("  " + " · ".join(f"{k} {_value(v)}" for k, v in table_vars.items()))
    lines += revealed_lines(obs.get("revealed", ()), me, titles)
    lines.append("seats:")
    for seat in range(n):
        parts = per_seat.get(seat, []) + [f"{k} {_value(v[seat])}" for k, v in seat_vars.items()]
        parts.append(f"score {obs['scores'][seat]} {unit}")
        you = " (you)" if seat == me else ""
        lines.append(f"  seat {seat}{you}: " + " · ".join(parts))
    return lines


def revealed_lines(revealed: Any, me: int | None, titles: dict[str, str] | None = None) -> list[str]:
    """``you see seat 2's hand: Priest``: one line per place among ``revealed`` (the observation's
    ``revealed`` entries: the cards a reveal showed the viewing seat ``me``)."""
    titles = titles or {}
    places: dict[tuple[str, Any], list[str]] = {}
    for entry in revealed:
        places.setdefault((entry["zone"], entry["seat"]), []).append(card_label(entry["card"], titles))
    lines = []
    for (zone, seat), cards in places.items():
        whose = (
            f"the {clean(zone)}"
            if seat is None
            else (f"your {clean(zone)}" if seat == me else f"seat {seat}'s {clean(zone)}")
        )
        lines.append(f"you see {whose}: {' '.join(cards)}")
    return lines


_KEYS = {"zones", "variables", "scores", "round", "dealer", "phase", "terminal", "trick", "current_player"}


def _seat_zone_names(obs: Mapping[str, Any]) -> set[str]:
    return set(obs.get("seat_zones", obs["zones"]))


def _seat_var_names(obs: Mapping[str, Any]) -> set[str]:
    return set(obs.get("seat_variables", obs["variables"]))


def _seat(seat: int, me: int | None) -> str:
    return f"seat {seat} (you)" if seat == me else f"seat {seat}"


class Narrator:
    """Tells a game as it is played, from one seat's view, one short line per event.

    Use `snapshot` before each action and `tell` after it. The lines say who did what (as
    the viewing seat sees it), each completed trick (who played what, who took it, and
    why, when the ruleset's tricks step says why), the bids once all are in, and the
    scores at the end of each round.

    Args:
        game: the `trickkit.Game`.
        seat: the viewing seat.
    """

    def __init__(self, game: Any, seat: int):
        self.game, self.me = game, seat
        rules = game.rules
        self.rules = rules
        titles = rules.deck.attrs.get("title", ())
        self.titles = {t: str(v) for t, v in zip(game.cards, titles) if v is not None}
        self.unit = getattr(game, "score_unit", "points")
        self.hidden = frozenset(v.name for v in (*rules.seat_vars, *rules.table_vars) if v.internal)
        self.tricks_in_round = 0

    def snapshot(self, state: Any) -> Snapshot:
        """What `tell` compares against: call it just before applying an action."""
        return (
            state.round,
            state.step,
            state.last_trick,
            state.scores(),
            state.is_terminal(),
            state.acted,
            self._revealed(state),
            self._holdings(state),
        )

    def _holdings(self, state: Any) -> tuple[dict[int, str], dict[int, int]]:
        """Where the seats' cards lie, in their zones that are not public: the viewing seat's
        cards in its zones it sees (card id -> zone name), and every card in another seat's
        zones (card id -> that seat). The second
        is never shown; `_handed_lines` uses it only to say from or to whom a card the viewing
        seat sees (before or after) moved."""
        obs = state.observation(self.me)["zones"]
        mine: dict[int, str] = {}
        others: dict[int, int] = {}
        for spec in self.rules.seat_zones:
            if spec.visibility == "public":  # a face-up zone (tricks taken): every move there is seen anyway
                continue
            for seat, cards in enumerate(state.seat_zones[spec.index]):
                if seat != self.me:
                    others.update(dict.fromkeys(cards, seat))
                elif "cards" in obs[spec.name][seat]:  # a zone of its own the viewing seat sees
                    mine.update(dict.fromkeys(cards, spec.name))
        return mine, others

    def _handed_lines(self, before: Any, state: Any, played: frozenset[int] = frozenset()) -> list[str]:
        """``seat 3 (on your right) sent you C3 D7 HQ (now in your hand)`` and ``your D2 S7 HK went
        to seat 1 (on your left)``: the cards that moved between the viewing seat's zones it sees
        and another seat's zones (a pass, a gift, a card drawn from another hand) during one
        action and the automatic steps after it. Only cards the viewing seat sees are named: the
        ones it held, and the ones it holds now; cards ``played`` to a trick (told by the trick
        line) are left out."""
        mine_then, others_then = before
        mine_now, others_now = self._holdings(state)
        faces = self.rules.deck.face_texts
        arrived: dict[int, list[int]] = {}
        for card, seat in others_then.items():
            if card in mine_now and card not in played and card not in mine_then:
                arrived.setdefault(seat, []).append(card)
        went: dict[int, list[int]] = {}
        for card in mine_then:
            seat = others_now.get(card)
            if seat is not None and card not in mine_now and card not in played:
                went.setdefault(seat, []).append(card)
        lines = []
        order = {card: i for i, card in enumerate(mine_now)}  # as the cards now lie in the seat's zones
        for seat, cards in sorted(went.items()):
            cards.sort()  # in deck order
            shown = " ".join(card_label(faces[c], self.titles) for c in cards)
            lines.append(f"your {shown} went to seat {seat}{self._side(seat)}")
        for seat, cards in sorted(arrived.items()):
            cards.sort(key=order.__getitem__)
            shown = " ".join(card_label(faces[c], self.titles) for c in cards)
            zones = ", ".join(clean(z) for z in dict.fromkeys(mine_now[c] for c in cards))
            lines.append(f"seat {seat}{self._side(seat)} sent you {shown} (now in your {zones})")
        return lines

    def _side(self, seat: int) -> str:
        """Where ``seat`` sits from the viewing seat: `` (on your left)`` is the next seat
        clockwise (`left_of`), `` (on your right)`` the one before, `` (across)`` the seat
        opposite at an even table of four or more, else `` (k seats to your left)``."""
        n = self.game.num_players
        k = (seat - self.me) % n
        if n == 2:
            return ""
        if k == 1:
            return " (on your left)"
        if k == n - 1:
            return " (on your right)"
        if n % 2 == 0 and k == n // 2:
            return " (across)"
        return f" ({k} seats to your left)"

    def _revealed(self, state: Any) -> list[Any]:
        """The cards reveals showed the viewing seat and it still knows (empty in games without reveals)."""
        if not getattr(self.game, "reveals", False):
            return []
        return list(self.game.visibility.revealed(state, self.me))

    def _step(self, index: int) -> Any:
        steps = self.rules.steps
        return steps[index] if 0 <= index < len(steps) else None

    def action_line(self, seat: int, shown: str) -> str:
        """``seat 2: play G7`` (``shown`` as the viewing seat sees the action)."""
        return f"{_seat(seat, self.me)}: {clean(shown)}"

    def tell(self, before: Snapshot, state: Any) -> list[str]:
        """The events between snapshot ``before`` and ``state`` (after one action), besides the action itself."""
        rnd, step, last, scores, _, acted, known, held = before
        lines = []
        if state.round == rnd and not state.is_terminal():  # (a new deal is no hand-over between seats)
            trick = state.last_trick if state.last_trick is not last and state.last_trick is not None else None
            played = frozenset(p[2] for p in trick[1]) if trick is not None else frozenset()
            lines += self._handed_lines(held, state, played)
        if getattr(self.game, "reveals", False):
            left, new = list(known), []
            for e in self._revealed(state):  # what it did not know before (copies counted)
                if e in left:
                    left.remove(e)
                else:
                    new.append(e)
            lines += revealed_lines(new, self.me, self.titles)
        if state.last_trick is not last and state.last_trick is not None:
            self.tricks_in_round += 1
            lines.append(self._trick_line(state))
        old = self._step(step)
        if (
            old is not None
            and old.kind == "choose"
            and old.simultaneous
            and (state.step != step or state.round != rnd or state.is_terminal() or state.acted == 0)
        ):
            lines.append(self._reveal_line(state, acted + 1))
        if old is not None and old.kind == "bid" and (state.step != step or state.round != rnd or state.is_terminal()):
            lines.append(self._bids_line(state, old))
        if state.round != rnd or state.is_terminal():
            now = state.scores()
            parts = []
            for s, (a, b) in enumerate(zip(scores, now)):
                change = f" ({b - a:+d})" if isinstance(a, int) and isinstance(b, int) and a != b else ""
                parts.append(f"{_seat(s, self.me)} {b}{change}")
            lines.append(f"end of round {rnd}, {self.unit}: " + ", ".join(parts))
            self.tricks_in_round = 0
        return lines

    def _trick_line(self, state: Any) -> str:
        step_index, plays, winner = state.last_trick
        faces = self.rules.deck.face_texts
        played = ", ".join(f"{_seat(p[0], self.me)} {card_label(faces[p[2]], self.titles)}" for p in plays)
        if winner is None:
            return f"trick {self.tricks_in_round}: {played}; nobody takes it"
        why = self._why(state, step_index, plays, winner)
        return f"trick {self.tricks_in_round}: {played}; {_seat(winner[0], self.me)} takes it" + (
            f" ({clean(why)})" if why else ""
        )

    def _why(self, state: Any, step_index: int, plays: Any, winner: Any) -> str:
        step = self._step(step_index)
        hook = getattr(step, "why", None)
        if hook is None:
            return ""
        trial = state.clone()  # the trick as it lay on the table, on a copy: the game is untouched
        trial.trick = list(plays)
        try:
            text = hook(trial, winner)
        except Exception:  # an explanation that fails must not stop the game being shown
            return ""
        return "" if text is None else str(text)

    def _reveal_line(self, state: Any, count: int) -> str:
        """``revealed: seat 1 pick 14, seat 2 (you) pick 12``: the last ``count`` choices, as
        the viewing seat sees them now that every seat has chosen."""
        seen = state.history_seen_by(self.me)[-count:]
        actors = [seat for seat, _ in state._history[-count:]]
        return "revealed: " + ", ".join(f"{_seat(a, self.me)} {clean(t)}" for a, t in zip(actors, seen))

    def _bids_line(self, state: Any, step: Any) -> str:
        name = step.variable.name
        values = state.observation(self.me)["variables"].get(name, [])
        return f"{name}s: " + ", ".join(f"{_seat(s, self.me)} {_value(v)}" for s, v in enumerate(values))

    def meanings(self, actions: list[Any]) -> list[str]:
        """``take {pile}: Take the top artifact of a pile.`` for each kind among ``actions`` that has a description."""
        kinds: dict[str, Any] = {}
        for step in self.rules.steps:
            for kind in (*getattr(step, "kinds", ()), *(k for w in getattr(step, "windows", ()) for k in w.kinds)):
                if kind.description:
                    kinds.setdefault(kind.name, kind)
        verbs = dict.fromkeys(getattr(a, "verb", str(a).partition(" ")[0]) for a in actions)
        return [
            f"  {clean(kinds[v].template)}: {clean(' '.join(kinds[v].description.split()))}"
            for v in verbs
            if v in kinds
        ]

    def hand_line(self, state: Any) -> str:
        """The viewing seat's own cards, zone by zone (``your hand: G7 P3``)."""
        obs = state.observation(self.me)
        parts = []
        for name in obs.get("seat_zones", ()):
            view = obs["zones"][name][self.me]
            if view.get("cards"):
                parts.append(f"{name} " + " ".join(card_label(c, self.titles) for c in view["cards"]))
        return "you hold: " + (" · ".join(parts) if parts else "nothing")


def transcript(state: Any, seat: int) -> str:
    """The game so far told from ``seat``'s view: each round's cards in hand, the actions
    (hidden ones as that seat saw them), each trick and who took it, bids and scores.

    The game is replayed from its seed, given deals and history, so ``state`` is not changed.

    Args:
        state: a `trickkit.State`.
        seat: the viewing seat, ``0..n-1``.

    Returns:
        Lines of text joined by newlines, ending with the scores (and the winners once the game is over).

    Raises:
        ValueError: ``seat`` is not a seat of this game.
    """
    game = state.game
    state.observation(seat)  # checks the seat
    narrator = Narrator(game, seat)
    replay = game.new_initial_state(seed=state.seed, deals=state.deals)
    lines = [
        f"{clean(game.rules.title)}, told from seat {seat} of {state._n}",
        f"round {replay.round} (dealer seat {replay.dealer}): {narrator.hand_line(replay)}",
    ]
    from trickkit.errors import TrickkitError

    for text in state.history():
        actor = replay.current_player()
        shown = replay.action_seen_by(text, seat)
        before = narrator.snapshot(replay)
        try:
            replay.apply_action(text)
        except TrickkitError as exc:  # e.g. the caller drew from state.rng, so the deals differ now
            lines.append(f"(the rest cannot be told: replaying from the seed refused {clean(text)!r}: {clean(exc)})")
            return "\n".join(lines)
        lines.append(narrator.action_line(actor, shown))
        lines += narrator.tell(before, replay)
        if replay.round != before[0] and not replay.is_terminal():
            lines.append(f"round {replay.round} (dealer seat {replay.dealer}): {narrator.hand_line(replay)}")
    scores = ", ".join(f"{_seat(s, seat)} {v}" for s, v in enumerate(replay.scores()))
    teams = state.game.teams
    if teams and len(teams) < len(replay.scores()):  # partnerships: say each team's score too
        scores += "; teams: " + ", ".join(f"{'+'.join(map(str, m))} {v}" for m, v in zip(teams, replay.team_scores()))
    if replay.is_terminal():
        winners = ", ".join(_seat(s, seat) for s in replay.winners())
        lines.append(f"game over. {narrator.unit}: {scores}. won by {winners}")
    else:
        lines.append(f"so far, {narrator.unit}: {scores}")
    return "\n".join(lines)
