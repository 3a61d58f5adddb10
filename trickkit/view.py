"""Renders an observation as a few short lines of text for a person at the terminal (``trickkit play``)."""

from __future__ import annotations

from typing import Any


def card_label(text: str, titles: dict[str, str]) -> str:
    """A card's text, with its title when the deck gives cards one (``T3 (The Empress)``)."""
    title = titles.get(text)
    return f"{text} ({title})" if title else text


def _zone(view: dict, titles: dict[str, str]) -> str:
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
    return str(v)


def render(obs: dict, me: int, titles: dict[str, str] | None = None, unit: str = "points") -> list[str]:
    """Lines describing observation ``obs`` (from `State.observation`) for seat ``me``.

    Args:
        obs: the observation dict.
        me: the seat of the person reading it.
        titles: card text -> title, for decks whose cards have a ``title`` attribute.
        unit: what scores count (e.g. ``"heads"``).
    """
    titles = titles or {}
    if not _KEYS <= set(obs):  # not an engine observation (a custom game object): show it as it is
        return [f"{k}: {_value(v) if not isinstance(v, dict) else v}" for k, v in obs.items()]
    n = len(obs["scores"])
    turn = "game over" if obs["terminal"] else (
        f"to act: seat {obs['current_player']}" + (" (you)" if obs["current_player"] == me else ""))
    lines = [f"round {obs['round']} · dealer seat {obs['dealer']} · {obs['phase']} · {turn}"]
    table, per_seat = [], {}
    for name, view in obs["zones"].items():
        if isinstance(view, dict):
            table.append(f"  {name}: {_zone(view, titles)}")
        elif len(view) == n and name in _seat_zone_names(obs):
            for seat, v in enumerate(view):
                per_seat.setdefault(seat, []).append(f"{name} {_zone(v, titles)}")
        else:  # a zone family: one line per member, numbered from 1
            for i, v in enumerate(view, start=1):
                table.append(f"  {name} {i}: {_zone(v, titles)}")
    seat_vars = {k: v for k, v in obs["variables"].items() if isinstance(v, list) and len(v) == n
                 and k in _seat_var_names(obs)}
    table_vars = {k: v for k, v in obs["variables"].items() if k not in seat_vars}
    if obs["trick"]:
        lines.append("trick: " + ", ".join(f"seat {p['seat']} {card_label(p['card'], titles)}" for p in obs["trick"]))
    if table:
        lines.append("table:")
        lines += table
    if table_vars:
        lines.append("  " + " · ".join(f"{k} {_value(v)}" for k, v in table_vars.items()))
    lines.append("seats:")
    for seat in range(n):
        parts = per_seat.get(seat, []) + [f"{k} {_value(v[seat])}" for k, v in seat_vars.items()]
        parts.append(f"score {obs['scores'][seat]} {unit}")
        you = " (you)" if seat == me else ""
        lines.append(f"  seat {seat}{you}: " + " · ".join(parts))
    return lines


_KEYS = {"zones", "variables", "scores", "round", "dealer", "phase", "terminal", "trick", "current_player"}


def _seat_zone_names(obs: dict) -> set:
    return set(obs.get("seat_zones", obs["zones"]))


def _seat_var_names(obs: dict) -> set:
    return set(obs.get("seat_variables", obs["variables"]))
