"""The web table: play any ruleset in the browser, with friends and bots (``trickkit serve``).

A layer between `trickkit.lab` and `trickkit.cli`. `trickkit.web.tables` keeps the tables
(game, seats, the record of actions; bots move on the server), `trickkit.web.views` builds
what one seat may be sent, `trickkit.web.store` keeps each table's record on disk, and
`trickkit.web.app` is the Starlette application (lobby, table page, JSON API, websockets).
Only `trickkit.web.app` needs the optional ``web`` extra (``pip install "trickkit[web]"``).

May import: the lab, environments, agents, engine, rules, dsl and the root modules; never the
command line. Only per-seat views leave this package for a browser.
"""

from __future__ import annotations
