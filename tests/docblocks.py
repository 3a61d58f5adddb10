"""The python code blocks of one section of a docs page, for tests that run the blocks the plain
documentation test cannot (they need an optional extra, and are marked ``<!-- no-test -->``)."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def section_blocks(page: str, heading: str) -> list[str]:
    """The ```` ```python ```` blocks under ``## heading`` of ``docs/page`` (up to the next ``## ``)."""
    text = (DOCS / page).read_text("utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end >= 0 else len(text)]
    return re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)


def run_blocks(page: str, heading: str) -> int:
    """Run every python block of the section in order (one namespace each); return how many ran."""
    blocks = section_blocks(page, heading)
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/{page}: {heading} block {i + 1}", "exec"), {"__name__": "__docs__"})
    return len(blocks)
