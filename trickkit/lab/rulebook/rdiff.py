"""Differences between two rulebooks: the changed rows of their rule tables (deck, trick winners and
what each seat sees), as sentences for `trickkit diff`."""

from __future__ import annotations

import os
from typing import Any

from trickkit.lab.rulebook.blocks import Table

RULE_TABLES = ("deck", "winner", "seats")
"""Tables compared: those that follow from the rules alone (not from a played game or the defaults)."""


def _rows(table: Table) -> dict[str, dict[str, str]]:
    return {row[0]: dict(zip(table.header[1:], row[1:], strict=False)) for row in table.rows}


def _plain(text: str) -> str:
    return text.replace("`", "") or "''"


def diff_tables(a: dict[str, Table], b: dict[str, Table]) -> list[str]:
    """Sentences for the rows added, removed and changed between two rulebooks' rule tables."""
    out: list[str] = []
    names = [n for n in dict.fromkeys([*a, *b]) if n.split(" ", 1)[0] in RULE_TABLES]
    for name in names:
        label = f"rulebook {name.replace('`', '')}"
        if name not in a or name not in b:
            out.append(f"{label}: only in {'the second' if name not in a else 'the first'} rulebook")
            continue
        ra, rb = _rows(a[name]), _rows(b[name])
        for key in ra:
            if key not in rb:
                out.append(f"{label}: removed {_plain(key)}")
        for key in rb:
            if key not in ra:
                cells = ", ".join(f"{h} {_plain(v)}" for h, v in rb[key].items() if v.strip())
                out.append(f"{label}: added {_plain(key)}" + (f" ({cells})" if cells else ""))
        for key in ra:
            if key in rb and ra[key] != rb[key]:
                cols = dict.fromkeys([*ra[key], *rb[key]])
                changes = [
                    f"{h} {_plain(ra[key].get(h, ''))} -> {_plain(rb[key].get(h, ''))}"
                    for h in cols
                    if ra[key].get(h, "") != rb[key].get(h, "")
                ]
                if changes:  # a column only one table has, empty in this row, is no change
                    out.append(f"{label}: {_plain(key)}: " + "; ".join(changes))
    return out


def diff_rulebooks(a: str | os.PathLike[str], b: str | os.PathLike[str], **params: Any) -> list[str]:
    """The changed rows of the rule tables from the rulebook of ruleset ``a`` to that of ``b``."""
    from trickkit.lab.rulebook import build, tables

    return diff_tables(tables(build(a, **params)), tables(build(b, **params)))
