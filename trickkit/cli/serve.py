"""``trickkit serve``: the web table server (lobby, tables, live play in the browser).

Needs the optional ``web`` extra (Starlette, uvicorn, websockets); without it the command
says how to install it and exits with 2.
"""

from __future__ import annotations

import argparse
import sys


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``trickkit serve`` on the command line's sub-parsers."""
    p = sub.add_parser("serve", help="play games in the browser: a web table server with a lobby, seat links and bots")
    p.add_argument(
        "games",
        nargs="*",
        metavar="GAME|FILE",
        help="ruleset files (or shipped names) to offer besides the shipped games",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--data",
        default=None,
        metavar="DIR",
        help="folder keeping every table's record, resumed at the next start "
        "(default: $XDG_DATA_HOME/trickkit/tables, i.e. ~/.local/share/trickkit/tables)",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        print(
            'trickkit serve: error: the web table needs the "web" extra: pip install "trickkit[web]"', file=sys.stderr
        )
        return 2
    from trickkit.web.app import MAX_MESSAGE, create_app
    from trickkit.web.store import Store, default_data_dir
    from trickkit.web.tables import Catalogue, Registry

    catalogue = Catalogue.from_sources(args.games)
    data = args.data or default_data_dir()
    registry = Registry(catalogue, Store(data))
    for problem in registry.resume():
        print(f"trickkit serve: {problem}", file=sys.stderr)
    print(
        f"trickkit serve: {len(catalogue.entries)} games, {len(registry.tables)} tables resumed from {data}\n"
        f"open http://{args.host}:{args.port}/ (stop with Ctrl-C)",
        flush=True,
    )
    uvicorn.run(create_app(registry), host=args.host, port=args.port, log_level="warning", ws_max_size=4 * MAX_MESSAGE)
    return 0
