"""What one seat of a web table is sent: only what that seat may see.

`seat_view` builds a seat's payload from the engine's per-seat views and nothing else:
``state.observation(seat)`` (hidden cards appear there only as counts), the seat's own legal
actions when it is to act, the actions so far as ``state.history_seen_by(seat)`` shows them
(private choices and simultaneous bids as ``?``), and ``state.transcript(seat)``. The State
itself, the seed, the other seats' views and the seat tokens are never part of it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["seat_view", "visible_cards"]


def visible_cards(obs: Any) -> set[str]:
    """Every card text an observation shows (zones' ``cards`` and ``top``, the trick, and the cards a
    ``reveal`` showed this seat)."""
    seen: set[str] = set()

    def zone(view: Any) -> None:
        if isinstance(view, list):
            for v in view:
                zone(v)
        elif isinstance(view, dict):
            seen.update(view.get("cards") or ())
            if view.get("top") is not None:
                seen.add(view["top"])

    for view in obs["zones"].values():
        zone(view)
    seen.update(play["card"] for play in obs["trick"])
    seen.update(entry["card"] for entry in obs.get("revealed", ()))
    return seen


def _card_of(text: str, cards: set[str]) -> str | None:
    """The card an action text names among ``cards`` (its first word after the verb that is one,
    or whose part before a ``:`` mode is one), or None for an action that names no card."""
    for word in text.split()[1:]:
        if word in cards:
            return word
        if ":" in word and word.split(":")[0] in cards:
            return word.split(":")[0]
    return None


def seat_view(game: Any, state: Any, seat: int, actors: list[int]) -> dict[str, Any]:
    """The payload for ``seat``: what it sees of ``state`` and what it may do.

    Args:
        game: the `trickkit.Game`.
        state: the table's `trickkit.State` (read, never changed).
        seat: the viewing seat.
        actors: the seat that took each action so far (public: every seat sees whose turn it was).

    Returns:
        A JSON-ready dict: ``observation``, ``actions`` (``[{"text", "verb", "card"}]``, empty
        unless ``seat`` is to act), ``history`` (``[{"seat", "text"}]`` as ``seat`` saw them),
        ``transcript``, ``scores``, ``winners`` (once the game is over), ``titles`` (card titles of
        the cards shown), ``internal`` (bookkeeping variables not worth showing) and ``move``.
    """
    obs = state.observation(seat)
    terminal = bool(obs["terminal"])
    cards = visible_cards(obs)
    legal = state.legal_actions() if not terminal and state.current_player() == seat else []
    actions = [{"text": a.text, "verb": a.verb, "card": _card_of(a.text, cards)} for a in legal]
    history = [{"seat": actor, "text": text} for actor, text in zip(actors, state.history_seen_by(seat), strict=True)]
    rules = game.rules
    titles_all = rules.deck.attrs.get("title", ())
    titles = {t: str(v) for t, v in zip(game.cards, titles_all, strict=False) if v is not None and t in cards}
    internal = sorted(v.name for v in (*rules.seat_vars, *rules.table_vars) if v.internal)
    view: dict[str, Any] = {
        "seat": seat,
        "move": len(actors),
        "observation": obs,
        "actions": actions,
        "history": history,
        "transcript": state.transcript(seat),
        "scores": obs["scores"],
        "terminal": terminal,
        "winners": list(state.winners()) if terminal else None,
        "titles": titles,
        "internal": internal,
    }
    if len(game.teams) not in (0, game.num_players):
        view["teams"] = [list(t) for t in game.teams]
        view["team_scores"] = list(state.team_scores())
    return view
