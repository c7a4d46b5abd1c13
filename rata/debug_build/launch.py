"""`rata dev`: the app's debug build, with its windows and the dev endpoint for `rata mcp dev`.

    run_dev(app)                  # the desktop window (pywebview)
    run_dev(app, headless=True)   # headless Chromium: containers, CI, agents without a screen

It is the app started normally (`rata.running_app.RunningApp`: migrations, the MCP endpoint for
`crm --mcp`) plus three things that exist only here, never in a normal start: the page
script (page.js) in every document of every window, this package's modules, and the dev
endpoint (``RATA-DEV/1`` on ``dev.sock`` in the app's folder) served by `DevBridge`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rata.debug_build import page_script
from rata.debug_build.bridge import DevBridge
from rata.endpoint import DEV, EndpointServer
from rata.running_app import RunningApp


def run_dev(app: Any, *, headless: bool = False, on_ready: Callable[[RunningApp, EndpointServer], None] | None = None) -> None:
    """Run `app` in dev mode until its main window closes or a stop signal comes (SIGTERM, SIGINT, SIGHUP: `rata.stopping`)."""
    with RunningApp(app) as running:

        def start(host: Any) -> None:
            endpoint = EndpointServer(app.folder, DEV, DevBridge(host).serve).open()
            running.endpoints.append(endpoint)
            if on_ready is not None:
                on_ready(running, endpoint)

        running.show_windows("browser" if headless else "desktop", headless=headless, scripts=[page_script()], on_start=start)
