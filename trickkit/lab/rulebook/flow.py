"""The rulebook's flow section: the steps of a round, their repeats and the end condition, as a Mermaid flowchart."""

from __future__ import annotations

from typing import Any

from trickkit.lab.rulebook.blocks import Block, Bullets, Flow, Heading, Para
from trickkit.rules.ruleset import step_parts

MAX_LABEL = 90


def _one_line(value: Any) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."


def _label(text: str) -> str:
    """A Mermaid node label: quoted, with the characters Mermaid reads replaced."""
    return '"' + text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;") + '"'


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


class _Chart:
    def __init__(self) -> None:
        self.lines = ["flowchart TD"]
        self.outline: list[str] = []
        self.count = 0

    def node(self, text: str, shape: str = "box") -> str:
        self.count += 1
        nid = f"n{self.count}"
        if shape == "round":
            self.lines.append(f"  {nid}([{_label(text)}])")
        elif shape == "choice":
            self.lines.append(f"  {nid}{{{_label(text)}}}")
        else:
            self.lines.append(f"  {nid}[{_label(text)}]")
        return nid

    def edge(self, a: str, b: str, text: str = "") -> None:
        self.lines.append(f"  {a} -->|{_label(text)}| {b}" if text else f"  {a} --> {b}")

    def steps(self, items: list[Any], prev: str, depth: int) -> str:
        """Chain the steps after ``prev``; returns the last node."""
        for item in items:
            kind, spec = step_parts(item)
            pad = "(in the repeat) " * depth
            if "when" in item:  # a conditional step: skipped unless its condition holds
                pad += f"(only when {_one_line(item['when'])}) "
            if kind == "repeat":
                how = (
                    f"{_one_line(spec['count'])} times" if "count" in spec else f"until {_one_line(spec.get('until'))}"
                )
                self.outline.append(f"{pad}repeat {how}:")
                head = self.node(f"{pad}repeat {how}" if "when" in item else f"repeat {how}", "choice")
                self.edge(prev, head)
                last = self.steps(spec.get("steps") or [], head, depth + 1)
                self.edge(last, head, "again")
                prev = head
                continue
            text = step_summary(kind, spec if isinstance(spec, dict) or kind == "effect" else {})
            self.outline.append(f"{pad}{text}")
            nid = self.node(f"(only when {_one_line(item['when'])}) {text}" if "when" in item else text)
            self.edge(prev, nid, "done" if prev.startswith("n") and self._is_repeat(prev) else "")
            prev = nid
        return prev

    def _is_repeat(self, nid: str) -> bool:
        return any(line.startswith(f"  {nid}{{") for line in self.lines)


def flow_section(doc: dict[str, Any]) -> list[Block]:
    chart = _Chart()
    start = chart.node("a round starts (round 1, then the next dealer)", "round")
    last = chart.steps(doc.get("round") or [], start, 0)
    over = chart.node(f"game over? {_one_line(doc.get('game_over'))}", "choice")
    chart.edge(last, over)
    chart.edge(over, start, "no: next round")
    best = "highest" if doc.get("winners", "highest") == "highest" else "lowest"
    end = chart.node(f"score: {_one_line(doc.get('score'))}; {best} {doc.get('score_unit', 'points')} win", "round")
    chart.edge(over, end, "yes")
    return [
        Heading(2, "The flow of a game"),
        Para("Each round runs these steps in order; the game ends when the end condition holds after a round."),
        Flow("\n".join(chart.lines)),
        Bullets(tuple(chart.outline)),
    ]
