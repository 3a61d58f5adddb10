"""``python -m trickkit``: the ``trickkit`` command line."""

import sys

from trickkit.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
