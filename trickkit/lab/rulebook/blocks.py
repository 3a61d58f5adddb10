"""The rulebook's document model (headings, paragraphs, tables, lists, flows) and its Markdown and HTML forms."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence

import attrs


@attrs.frozen
class Heading:
    """A section title; ``level`` 1 is the rulebook's title."""

    level: int
    text: str


@attrs.frozen
class Para:
    """A paragraph of plain text (``code`` spans are written between backquotes)."""

    text: str


@attrs.frozen
class Bullets:
    """A bulleted list of plain-text items."""

    items: tuple[str, ...]


@attrs.frozen
class Table:
    """A table with a name (for `trickkit diff`), a header row and rows of text cells."""

    name: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@attrs.frozen
class Flow:
    """A flow diagram: SVG text (`trickkit.lab.rulebook.flowsvg`), shown in Markdown as an image of
    ``image`` (a path relative to the page; ``None``: the SVG itself as a ``data:`` address) and
    inlined in HTML."""

    svg: str
    alt: str
    image: str | None = None


Block = Heading | Para | Bullets | Table | Flow


def _md_text(text: str) -> str:
    """``text`` with square brackets outside code spans escaped: rule texts such as ``hand[s][0]``
    must not read as Markdown reference links."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # outside backticks
        parts[i] = parts[i].replace("[", "\\[").replace("]", "\\]")
    return "`".join(parts)


def _md_cell(text: str) -> str:
    return _md_text(text).replace("|", "\\|").replace("\n", " ") or " "


def to_markdown(blocks: Sequence[Block], base_level: int = 1) -> str:
    """The blocks as Markdown; headings shifted so that level 1 becomes ``base_level``."""
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append("#" * (b.level + base_level - 1) + " " + b.text)
        elif isinstance(b, Para):
            out.append(b.text)
        elif isinstance(b, Bullets):
            out.append("\n".join(f"- {_md_text(item)}" for item in b.items))
        elif isinstance(b, Table):
            lines = ["| " + " | ".join(_md_cell(h) for h in b.header) + " |"]
            lines.append("|" + "---|" * len(b.header))
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows]
            out.append("\n".join(lines))
        else:
            out.append(f"![{b.alt}]({b.image or _data_address(b.svg)})")
    return "\n\n".join(out) + "\n"


def _data_address(svg: str) -> str:
    """The SVG as a ``data:`` address (a page that carries its diagram in itself)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _inline_svg(svg: str) -> str:
    """SVG file text as an element of an HTML page: no XML declaration, no namespace (HTML knows ``svg``)."""
    body = svg.split("?>", 1)[1].lstrip() if svg.startswith("<?xml") else svg
    return body.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1).rstrip("\n")


def _inline_html(text: str) -> str:
    """Plain text with ``code`` spans as HTML."""
    parts = html.escape(text, quote=False).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


_STYLE = (
    "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}"
    "th{background:#eee}pre{background:#f6f6f6;padding:.5em;overflow:auto}code{background:#f3f3f3}"
    "figure.flow{margin:1em 0}figure.flow svg{max-width:100%;height:auto}"
)


def to_html(blocks: Sequence[Block], title: str) -> str:
    """The blocks as one self-contained HTML page (no scripts, no fonts fetched from elsewhere)."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
    ]
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"<h{b.level}>{_inline_html(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            out.append(f"<p>{_inline_html(b.text)}</p>")
        elif isinstance(b, Bullets):
            out.append("<ul>" + "".join(f"<li>{_inline_html(i)}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, Table):
            head = "".join(f"<th>{_inline_html(h)}</th>" for h in b.header)
            body = "".join("<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in row) + "</tr>" for row in b.rows)
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            out.append(f'<figure class="flow">{_inline_svg(b.svg)}</figure>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def diagram_fence(
    source: str, language: str, css_class: str, options: dict[str, object], md: object, **kwargs: object
) -> str:
    """A pymdownx.superfences formatter for ``mermaid`` fences: the flow as a preformatted block.

    The docs site works offline, so no Mermaid script is loaded: the flowchart text is shown as is
    (it reads as a list of steps and arrows)."""
    return f'<pre class="mermaid-flow"><code>{html.escape(source)}</code></pre>'
