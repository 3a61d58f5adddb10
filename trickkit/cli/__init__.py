"""The ``trickkit`` command line (the top layer): one module per command group.

`main` builds the parser and dispatches; `common` holds what every command shares; `games`
(list, show, validate, diff, compile, replay), `checks` (check, test, lint), `play`, `runs`
(simulate, compare) and `lab` (the design-lab options) are the command groups; `docgen` writes
the generated reference pages. May import every layer below. Nothing imports this package.
"""

from trickkit.cli.main import main

__all__ = ["main"]
