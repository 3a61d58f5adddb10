"""mkdocs hooks: refuse to build from stale generated pages.

The reference pages, the games lists and every game page's rulebook are generated into committed
files (`trickkit.cli.docsync`; regenerate them with ``python -m trickkit.cli.docsync --write``), so the
repository reads whole without building the site. A stale file is a warning, which ``--strict`` fails.
"""

from __future__ import annotations

import logging
from pathlib import Path

from trickkit.cli import docsync

log = logging.getLogger("mkdocs.hooks.docsync")


def on_pre_build(config) -> None:
    checkout = Path(config["config_file_path"]).resolve().parent  # mkdocs.yml's folder, installed or not
    for path in docsync.stale(checkout):
        log.warning(f"{path} is stale: run 'python -m trickkit.cli.docsync --write'")
