"""The flow of a round as a small self-contained SVG flowchart, drawn from the ruleset's round structure.

A vertical chart: the round starts, one box per step (its kind and a short label), ``when:``
conditions written on the arrow into their step, each ``repeat:`` block a dashed frame whose
back-arrow says how often (count or until), and the round's end box with the ``game_over`` test and
its arrow back to the start. No script, no font or file fetched; text is escaped for XML; the same
ruleset always gives the same bytes (the committed diagrams are checked for freshness).

Widths are estimated, not measured: labels are set in a monospace font whose advance is 0.6 em in
the common monospace faces, and wrapped or shortened to fit their box.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from html import escape
from typing import Any

import attrs

from trickkit.rules.ruleset import step_parts

__all__ = ["FlowItem", "flow_items", "flow_svg"]

SANS = "'DejaVu Sans', Arial, Helvetica, sans-serif"
MONO = "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace"
BOX_W = 400  # every step box
LABEL_PX = 12  # monospace label size; advance 0.6 em
NOTE_PX = 11  # conditions and loop labels
LINE = 15  # label line height
NOTE_LINE = 14
ARROW = 26  # a plain arrow between two boxes
PAD = 24  # a repeat frame's margin per nesting level
LANE = 22  # the game's loop lane, left of everything
TOP = 14
PILL_W = 230
PILL_H = 30

COLOURS = {  # kind -> (fill, stroke)
    "deal": ("#e6f0fa", "#4a78a8"),
    "bid": ("#fcf3da", "#a8841e"),
    "auction": ("#fcf3da", "#a8841e"),
    "tricks": ("#e5f3e5", "#3d8a3d"),
    "turns": ("#efe8f7", "#7652a3"),
    "choose": ("#efe8f7", "#7652a3"),
    "effect": ("#f1f1f1", "#777777"),
}
DEFAULT_COLOUR = ("#f1f1f1", "#777777")
END_COLOUR = ("#ffffff", "#444444")
INK = "#222222"
NOTE_INK = "#8a4b00"


def _one_line(value: Any) -> str:
    return " ".join(str(value).split())


def _chars(px: float, size: int) -> int:
    """How many monospace characters of ``size`` px fit in ``px``."""
    return max(8, int(px / (0.6 * size)))


def _wrap(text: str, width: int, lines: int) -> list[str]:
    """``text`` wrapped to ``width`` characters, at most ``lines`` lines (the last one shortened with …)."""
    out = textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: width - 1].rstrip() + "…"
    return out


def _effect_label(block: Any) -> str:
    """An effect block on one line: its statements joined by ``;``, comments left out."""
    rows = [r.strip() for r in str(block or "").splitlines()]
    text = "; ".join(r for r in rows if r and not r.startswith("#"))
    return text.replace("{; ", "{ ").replace("; }", " }")


def short_label(kind: str, spec: Any) -> str:
    """The short label of a step's box: what distinguishes it among steps of its kind."""
    if not isinstance(spec, dict):
        return _effect_label(spec) if kind == "effect" else ""
    if kind == "deal":
        return f"{_one_line(spec.get('count'))} cards to each {spec.get('to', 'hand')}"
    if kind == "bid":
        how = "at once" if spec.get("simultaneous", True) else "in turn"
        return f"into {spec.get('variable')}, {how}; options {_one_line(spec.get('options'))}"
    if kind == "auction":
        return f"into {spec.get('contract', 'contract')}; calls {_one_line(spec.get('calls'))}"
    if kind == "tricks":
        return f"{_one_line(spec.get('count'))} tricks, led by {_one_line(spec.get('leader', 'left_of(dealer)'))}"
    if kind == "turns":
        return f"actions {', '.join(spec.get('actions') or {})}; until {_one_line(spec.get('until'))}"
    if kind == "choose":
        verb, count = spec.get("verb", "choose"), _one_line(spec.get("count", 1))
        return f"each seat {verb}s {count} from {spec.get('from', 'hand')} to {spec.get('to')}"
    return ""


def repeat_label(spec: Any) -> str:
    """A repeat block's count or end test, as written on its back-arrow."""
    spec = spec if isinstance(spec, dict) else {}
    if "count" in spec:
        return f"repeat {_one_line(spec['count'])} times"
    return f"repeat until {_one_line(spec.get('until'))}"


@attrs.frozen
class FlowItem:
    """One step of the round as drawn: its kind, its label, its ``when:`` condition and, for a
    ``repeat``, the steps inside it."""

    kind: str
    label: str
    when: str | None = None
    steps: tuple[FlowItem, ...] = ()


def flow_items(steps: Iterable[Any]) -> tuple[FlowItem, ...]:
    """The drawn items of a list of round steps (ruleset text)."""
    out = []
    for item in steps:
        if not isinstance(item, dict):
            continue
        kind, spec = step_parts(item)
        when = _one_line(item["when"]) if "when" in item else None
        if kind == "repeat":
            inner = flow_items((spec or {}).get("steps") or []) if isinstance(spec, dict) else ()
            out.append(FlowItem("repeat", repeat_label(spec), when, inner))
        else:
            out.append(FlowItem(kind, short_label(kind, spec), when))
    return tuple(out)


def _levels(items: tuple[FlowItem, ...]) -> int:
    """How deeply repeats nest in ``items``."""
    return max((1 + _levels(i.steps) for i in items if i.kind == "repeat"), default=0)


def _attr(value: Any) -> str:
    """An attribute value written between double quotes."""
    return escape(str(value), quote=False).replace('"', "&quot;")


class _Canvas:
    """The SVG elements, laid out top to bottom along the column ``cx``."""

    def __init__(self, levels: int) -> None:
        self.out: list[str] = []
        self.lane = 10 + LANE / 2
        self.left = 10 + LANE + PAD * levels + 8
        self.cx = self.left + BOX_W / 2
        self.width = self.left + BOX_W + PAD * levels + 18

    def text(self, x: float, y: float, text: str, size: int, *, mono: bool, cls: str, **extra: str) -> None:
        family = MONO if mono else SANS
        attrs_ = "".join(f' {k.replace("_", "-")}="{_attr(v)}"' for k, v in extra.items())
        self.out.append(
            f'<text class="{cls}" x="{x:g}" y="{y:g}" font-family="{_attr(family)}" font-size="{size}"{attrs_}>'
            f"{escape(text, quote=False)}</text>"
        )

    def arrow(self, y0: float, y1: float, when: str | None, right: float) -> None:
        """The arrow down the column from ``y0`` to ``y1``, its condition beside it."""
        self.out.append(f'<path class="arrow" d="M{self.cx:g},{y0:g} V{y1 - 1:g}" marker-end="url(#tk-arrow)"/>')
        if when:
            lines = self._when_lines(when, right)
            y = y0 + (y1 - y0 - NOTE_LINE * len(lines)) / 2 + NOTE_PX
            self.out.append(f'<g class="when"><title>{escape("when: " + when, quote=False)}</title>')
            for i, line in enumerate(lines):
                self.text(self.cx + 8, y + i * NOTE_LINE, line, NOTE_PX, mono=True, cls="note", fill=NOTE_INK)
            self.out.append("</g>")

    def _when_lines(self, when: str, right: float) -> list[str]:
        return _wrap("when " + when, _chars(right - self.cx - 14, NOTE_PX), 3)

    def arrow_length(self, when: str | None, right: float) -> float:
        if not when:
            return ARROW
        return max(ARROW, NOTE_LINE * len(self._when_lines(when, right)) + 12)

    def box(self, y: float, item: FlowItem, cls: str = "step", colour: tuple[str, str] | None = None) -> float:
        """A step's box (or, with another ``cls``, a box like it) from ``y``; returns its bottom."""
        lines = _wrap(item.label, _chars(BOX_W - 20, LABEL_PX), 2) if item.label else []
        h = 28 + LINE * len(lines) + (4 if lines else -4)
        fill, stroke = colour or COLOURS.get(item.kind, DEFAULT_COLOUR)
        full = f"{item.kind}: {item.label}" if item.label else item.kind
        kind = f' data-kind="{_attr(item.kind)}"' if cls == "step" else ""
        self.out.append(f'<g class="{cls}"{kind}><title>{escape(full, quote=False)}</title>')
        self.out.append(
            f'<rect x="{self.left:g}" y="{y:g}" width="{BOX_W}" height="{h:g}" rx="6" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.4"/>'
        )
        self.text(self.left + 10, y + 19, item.kind, 13, mono=False, cls="kind", font_weight="bold", fill=stroke)
        for i, line in enumerate(lines):
            self.text(self.left + 10, y + 36 + i * LINE, line, LABEL_PX, mono=True, cls="label", fill=INK)
        self.out.append("</g>")
        return y + h

    def pill(self, y: float, text: str, cls: str) -> float:
        x = self.cx - PILL_W / 2
        self.out.append(f'<g class="{cls}">')
        self.out.append(
            f'<rect x="{x:g}" y="{y:g}" width="{PILL_W}" height="{PILL_H}" rx="{PILL_H / 2:g}" '
            f'fill="#ffffff" stroke="{INK}" stroke-width="1.4"/>'
        )
        self.text(self.cx, y + 19.5, text, 13, mono=False, cls="terminal", text_anchor="middle", fill=INK)
        self.out.append("</g>")
        return y + PILL_H

    def steps(self, items: tuple[FlowItem, ...], y: float, levels: int) -> float:
        """Draw ``items`` from ``y`` (the bottom of what precedes them) inside ``levels`` frame levels
        of margin; returns the bottom of the last."""
        right = self.left + BOX_W + PAD * levels
        for item in items:
            length = self.arrow_length(item.when, right)
            self.arrow(y, y + length, item.when, right)
            y += length
            y = self.repeat(y, item) if item.kind == "repeat" else self.box(y, item)
        return y

    def repeat(self, top: float, item: FlowItem) -> float:
        """A repeat frame from ``top`` with its steps and back-arrow; returns the frame's bottom."""
        inner = _levels(item.steps)
        margin = PAD * (inner + 1)
        x0, x1 = self.left - margin, self.left + BOX_W + margin
        lane = x0 + PAD / 2
        at = len(self.out)  # the frame goes under its contents
        join = top + 28
        self.out.append(f'<path class="arrow" d="M{self.cx:g},{top:g} V{join:g}"/>')
        last = self.steps(item.steps, join, inner)
        loop = last + 14
        lines = _wrap(item.label, _chars(self.cx - lane - 16, NOTE_PX), 3)
        bottom = loop + 10 + NOTE_LINE * len(lines)
        self.out.append(f'<path class="arrow" d="M{self.cx:g},{last:g} V{bottom:g}"/>')
        self.out.append(
            f'<path class="loop" d="M{self.cx:g},{loop:g} H{lane:g} V{join:g} H{self.cx - 1:g}" fill="none" '
            f'marker-end="url(#tk-arrow)"/>'
        )
        self.out.append(f'<g class="repeat-label"><title>{escape(item.label, quote=False)}</title>')
        for i, line in enumerate(lines):
            self.text(lane + 6, loop + 4 + NOTE_PX + i * NOTE_LINE, line, NOTE_PX, mono=True, cls="note", fill=NOTE_INK)
        self.out.append("</g>")
        frame = [
            '<g class="repeat">',
            f'<rect x="{x0:g}" y="{top:g}" width="{x1 - x0:g}" height="{bottom - top:g}" rx="8" fill="#fafafa" '
            'stroke="#8c8c8c" stroke-width="1.2" stroke-dasharray="5 3"/>',
        ]
        self.out[at:at] = frame
        self.text(x0 + 8, top + 17, "repeat", 13, mono=False, cls="kind", font_weight="bold", fill="#555555")
        self.out.append("</g>")
        return bottom


def flow_svg(doc: dict[str, Any], title: str = "", *, standalone: bool = True) -> str:
    """The flow of a round of the ruleset ``doc`` as SVG text.

    Args:
        doc: the resolved ruleset document (its ``round``, ``game_over``, ``winners``, ``score_unit``).
        title: the diagram's accessible title (default: "Flow of a round").
        standalone: a file of its own (XML declaration and namespace); ``False`` for inlining in HTML.
    """
    items = flow_items(doc.get("round") or [])
    levels = _levels(items)
    c = _Canvas(levels)
    y = c.pill(TOP, "a round starts", "terminal")
    start_mid = TOP + PILL_H / 2
    y = c.steps(items, y, levels)
    c.arrow(y, y + ARROW, None, c.width)
    y += ARROW
    over = doc.get("game_over", "true")
    over = "true" if over is True else _one_line(over)
    end = FlowItem("round ends", "game over when " + over if over != "true" else "the game is over (one round)")
    end_top = y
    y = c.box(y, end, "round-end", END_COLOUR)
    if over != "true":  # another round follows unless the game is over
        mid = (end_top + y) / 2
        c.out.append(
            f'<path class="loop" d="M{c.left:g},{mid:g} H{c.lane:g} V{start_mid:g} H{c.cx - PILL_W / 2 - 1:g}" '
            f'fill="none" marker-end="url(#tk-arrow)"/>'
        )
        c.text(c.lane + 6, start_mid - 5, "no: next round", NOTE_PX, mono=True, cls="note", fill=NOTE_INK)
    c.arrow(y, y + ARROW + 4, None, c.width)
    c.text(c.cx + 8, y + 18, "yes" if over != "true" else "", NOTE_PX, mono=True, cls="note", fill=NOTE_INK)
    y += ARROW + 4
    best = "highest" if doc.get("winners", "highest") == "highest" else "lowest"
    y = c.pill(y, f"game over: {best} {doc.get('score_unit', 'points')} win", "terminal")
    height = y + TOP
    name = title or "Flow of a round"
    head = [
        f"<svg{' xmlns=' + chr(34) + 'http://www.w3.org/2000/svg' + chr(34) if standalone else ''} "
        f'width="{c.width:g}" height="{height:g}" viewBox="0 0 {c.width:g} {height:g}" role="img" '
        f'aria-labelledby="tk-flow-title">',
        f'<title id="tk-flow-title">{escape(name, quote=False)}</title>',
        '<defs><marker id="tk-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#444444"/></marker></defs>',
        f'<rect class="background" width="{c.width:g}" height="{height:g}" fill="#ffffff"/>',
        '<g fill="none" stroke="#444444" stroke-width="1.3">',
    ]
    # the arrows and loops are stroked; boxes and texts set their own fill and stroke
    body = [e.replace("<text ", '<text stroke="none" ') if e.startswith("<text") else e for e in c.out]
    decl = ['<?xml version="1.0" encoding="UTF-8"?>'] if standalone else []
    return "\n".join([*decl, *head, *body, "</g>", "</svg>"]) + "\n"
