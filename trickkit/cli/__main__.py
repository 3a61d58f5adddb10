"""``python -m trickkit.cli``: the ``trickkit`` command line."""

import sys

from trickkit.cli.main import main

sys.exit(main())
