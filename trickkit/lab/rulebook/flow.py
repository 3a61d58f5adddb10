"""The rulebook's flow section: the steps of a round, their repeats and the end condition, as a diagram
(`trickkit.lab.rulebook.flowsvg`) and as a list."""

from __future__ import annotations

from typing import Any

from trickkit.lab.rulebook.blocks import Block, Bullets, Flow, Heading, Para
from trickkit.lab.rulebook.flowsvg import flow_svg
from trickkit.rules.ruleset import step_parts

MAX_LABEL = 90


def _one_line(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."


def step_summary(kind: str, spec: Any) -> str:
    """One line saying what a step does, from its ruleset text."""
    if kind == "deal":
        to, rest = spec.get("to", "hand"), spec.get("rest", "stock")
        return f"deal {_one_line(spec.get('count'))} cards to each {to}; the rest to {rest}"
    if kind == "bid":
        first = spec.get("first", "left_of(dealer)")
        how = "all at once, revealed together" if spec.get("simultaneous", True) else f"in turn from {first}"
        return f"bid {spec.get('variable')}: one of {_one_line(spec.get('options'))} ({how})"
    if kind == "auction":
        first = _one_line(spec.get("first", "left_of(dealer)"))
        ends = spec.get("ends_after_passes")
        how = "the first call ends it" if ends == 0 else f"until {ends if ends is not None else 'all but one'} passes"
        doubles = ", double, redouble" if spec.get("double") else ""
        return f"auction from {first}: call higher than the last call, pass{doubles} ({how})"
    if kind == "tricks":
        leader = _one_line(spec.get("leader", "left_of(dealer)"))
        return f"play {_one_line(spec.get('count'))} tricks, led first by {leader}"
    if kind == "turns":
        kinds = ", ".join(spec.get("actions") or {})
        first = _one_line(spec.get("first", "left_of(dealer)"))
        ends = [f"until {_one_line(spec['until'])}"] if spec.get("until") is not None else []
        if spec.get("until_after_turn") is not None:
            ends.append(f"until, after a turn, {_one_line(spec['until_after_turn'])}")
        return f"turns from {first}, actions: {kinds}; " + (" or ".join(ends) or "until false")
    if kind == "choose":
        verb, count = spec.get("verb", "choose"), _one_line(spec.get("count", 1))
        return f"each seat {verb}s {count} card(s) from {spec.get('from', 'hand')} to {spec.get('to')}"
    if kind == "effect":
        return f"effect: {_one_line(spec)}"
    return kind


def _outline(items: list[Any], depth: int, out: list[str]) -> None:
    """The steps as plain text lines (the diagram's text for screen readers and plain viewers)."""
    for item in items:
        if not isinstance(item, dict):
            continue
        kind, spec = step_parts(item)
        pad = "(in the repeat) " * depth
        if "when" in item:  # a conditional step: skipped unless its condition holds
            pad += f"(only when {_one_line(item['when'])}) "
        if kind == "repeat":
            spec = spec if isinstance(spec, dict) else {}
            how = f"{_one_line(spec['count'])} times" if "count" in spec else f"until {_one_line(spec.get('until'))}"
            out.append(f"{pad}repeat {how}:")
            _outline(spec.get("steps") or [], depth + 1, out)
            continue
        out.append(pad + step_summary(kind, spec if isinstance(spec, dict) or kind == "effect" else {}))


def flow_outline(doc: dict[str, Any]) -> list[str]:
    """The flow of a round as a plain text list: the steps, then the end of the round."""
    out: list[str] = []
    _outline(list(doc.get("round") or []), 0, out)
    best = "highest" if doc.get("winners", "highest") == "highest" else "lowest"
    out.append(
        f"the round ends; the game is over when {_one_line(doc.get('game_over', 'true'))} "
        f"(else the next round starts), and then the {best} {doc.get('score_unit', 'points')} win"
    )
    return out


def flow_section(doc: dict[str, Any], image: str | None = None) -> list[Block]:
    """The rulebook's flow section: the diagram (`flowsvg.flow_svg`), shown as ``image`` in Markdown
    when given (else carried in the page), and the same flow as a plain list of steps."""
    title = f"Flow of a round of {doc.get('title') or doc.get('name') or 'the game'}"  # as flow_diagram's
    return [
        Heading(2, "The flow of a game"),
        Para("Each round runs these steps in order; the game ends when the end condition holds after a round."),
        Flow(flow_svg(doc, title), "Flow of a round", image),
        Para("The same flow as a list:"),
        Bullets(tuple(flow_outline(doc))),
    ]
