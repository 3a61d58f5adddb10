"""The ``trickkit`` command line (the top layer): one module per command group.

May import every layer below. Nothing imports this package.
"""

from trickkit.cli.main import main

__all__ = ["main"]
