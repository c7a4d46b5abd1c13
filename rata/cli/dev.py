"""`rata dev`: run the app's debug build (its windows plus the dev endpoint `rata mcp dev` drives), restarted when its code changes."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from rata import stopping
from rata.cli.appmain import say_started
from rata.cli.console import edge
from rata.cli.options import AppOption
from rata.errors import RataError
from rata.loader import load_app


@edge
def dev(
    app: Optional[str] = AppOption,
    headless: bool = typer.Option(False, "--headless", help="Use headless Chromium instead of the desktop window (no screen needed)."),
    reload: bool = typer.Option(True, "--reload/--no-reload", help="Restart the app when its Python files or pyproject.toml change."),
    check: bool = typer.Option(False, "--check", hidden=True, help="Only load the app and build its catalog (what the reloader runs)."),
) -> None:
    """Run the app in dev mode: its windows, and the dev endpoint through which `rata mcp dev` sees and drives them.

    Saving a change to the app's code restarts it on the new code, once the new code loads.
    """
    loaded = load_app(app)
    target = loaded.app
    if check:
        from rata.codegen.catalog import build_catalog

        build_catalog(target)
        return
    parent = os.environ.pop("RATA_DEV_PARENT", None)
    if reload and parent is None:
        raise typer.Exit(_watch(loaded, app, headless))
    if parent is not None:
        from rata.debug_build.reload import watch_parent

        watch_parent(int(parent))
    _run(target, headless)


def _watch(loaded: Any, app: Optional[str], headless: bool) -> int:
    """The watcher: the app in a child process, restarted on each change that loads (`rata.debug_build.reload`)."""
    from rata.debug_build.reload import Reloader

    args = [*(["--app", app] if app is not None else []), *(["--headless"] if headless else [])]
    command = [sys.executable, "-m", "rata", "dev"]
    root = loaded.project or Path(loaded.app.root)

    def say(line: str) -> None:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    return Reloader([*command, *args], [*command, *args, "--check"], root, loaded.app, say).run()


def _run(target: Any, headless: bool) -> None:
    from rata.debug_build.launch import run_dev
    from rata.logs import configure_logging

    configure_logging(target.folder, target.name)

    def ready(running: Any, endpoint: Any) -> None:
        say_started(target, running.started)
        where = "headless Chromium" if headless else "its window"
        sys.stderr.write(
            f"{target.name} is running in dev mode in {where}; `rata mcp dev` in this project sees it (endpoint {endpoint.where}). Ctrl-C stops it.\n"
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
