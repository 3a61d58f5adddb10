"""Regenerate ``parser_tables.py`` after a change of ``grammar.lark`` or of the lark version.

Usage: ``python -m trickkit.dsl.write_tables`` (writes into the package's source folder).
"""

from __future__ import annotations

from importlib import resources

from trickkit.dsl.parser import build_parser, table_source


def main() -> None:
    """Build the parser from the grammar and write its tables next to ``parser.py``."""
    target = resources.files("trickkit.dsl").joinpath("parser_tables.py")
    with open(str(target), "w", encoding="utf-8") as out:
        out.write(table_source(build_parser()))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
