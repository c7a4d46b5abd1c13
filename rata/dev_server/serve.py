"""`rata mcp dev`: the dev tools served on stdio, through the same server core as every app.

Nothing is written to the project or the app's folder: the server opens the app's database
read-only, reads its logs, and keeps its docs index in the user's cache folder.
"""

from __future__ import annotations

from pathlib import Path

from rata.dev_server.budget import DEFAULT_TOKENS
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.mcp.app_server import AppServer
from rata.mcp.stdio import serve


def dev_server(app_spec: str | None, cwd: Path, send, budget_tokens: int = DEFAULT_TOKENS) -> AppServer:  # noqa: ANN001 - a transport's write function
    return AppServer(dev_app(Target(app_spec, cwd), budget_tokens), send=send)


def serve_dev(app_spec: str | None = None, cwd: Path | None = None, budget_tokens: int = DEFAULT_TOKENS) -> int:
    """Serve the dev tools for the app `app_spec` (found like `rata mcp inspect` finds it) until stdin closes,
    each answer within `budget_tokens` unless a call asks for another budget (`rata.dev_server.budget`)."""
    import sys

    from rata.dev_server.budget import checked

    checked(budget_tokens)  # before serving: a bad setting is an error at start, not at the first call
    sys.dont_write_bytecode = True  # importing the app must not leave __pycache__ folders in the project
    where = cwd or Path.cwd()
    return serve(lambda send: dev_server(app_spec, where, send, budget_tokens).server)
