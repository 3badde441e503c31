"""``topograd playground``: serve the playground on 127.0.0.1 and open it in a browser."""

from __future__ import annotations

import argparse
from typing import Any

from .common import UsageError, port


def add(commands: Any) -> None:
    playground = commands.add_parser(
        "playground",
        help="a page on 127.0.0.1 to type an expression and step through backprop",
        description="Serve the playground on 127.0.0.1 and open it in the browser. The first "
        "line printed is its address. Ctrl-C stops it.",
    )
    playground.add_argument("--port", type=port, default=0, help="the port (default: a free one)")
    playground.add_argument("--no-browser", action="store_true", help="do not open a browser")
    playground.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..playground.server import serve  # the HTTP server, only for this command

    try:
        serve(args.port, open_browser=not args.no_browser)
    except OSError as error:
        raise UsageError(f"cannot serve on port {args.port}: {error.strerror}") from None
    return 0
