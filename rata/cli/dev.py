"""`rata dev`: run the app's debug build (its windows plus the dev endpoint `rata mcp dev` drives)."""

from __future__ import annotations

import sys
from typing import Any, Optional

import typer

from rata import stopping
from rata.cli.appmain import say_applied
from rata.cli.console import edge
from rata.cli.options import AppOption
from rata.errors import RataError
from rata.loader import load_app


@edge
def dev(
    app: Optional[str] = AppOption,
    headless: bool = typer.Option(False, "--headless", help="Use headless Chromium instead of the desktop window (no screen needed)."),
) -> None:
    """Run the app in dev mode: its windows, and the dev endpoint through which `rata mcp dev` sees and drives them."""
    from rata.debug_build.launch import run_dev
    from rata.logs import configure_logging

    loaded = load_app(app)
    target = loaded.app
    configure_logging(target.folder, target.name)

    def ready(running: Any, endpoint: Any) -> None:
        say_applied(running.applied)
        where = "headless Chromium" if headless else "its window"
        sys.stderr.write(
            f"{target.name} is running in dev mode in {where}; `rata mcp dev` in this project sees it (endpoint {endpoint.path}). Ctrl-C stops it.\n"
        )
        sys.stderr.flush()

    try:
        run_dev(target, headless=headless, on_ready=ready)
    except RataError:
        if not stopping.requested():
            raise
    sys.stderr.write(f"{target.name} stopped\n")
    if stopping.requested():  # the exit status of a stop signal (rata.stopping): 128 + its number
        raise typer.Exit(stopping.exit_status(0))
