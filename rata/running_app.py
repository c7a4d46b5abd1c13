"""The app running: started normally (`crm`, `crm --headless`), not just answering one call.

    running = RunningApp(app).start()     # migrations applied, the MCP endpoint open
    running.wait()                        # headless: until a stop signal (rata.stopping) or stop()
    running.show_windows("desktop")       # or: the app's windows, until the main one closes
    running.stop()

What makes an app "running" for agents is its private MCP endpoint (`rata.endpoint`): while it
is open, `crm --mcp` pipes the agent into this process instead of serving a headless copy, so
the agent's writes reach this process's live registry, events and windows. The endpoint opens
only when the app called ``.mcp(...)``.
"""

from __future__ import annotations

import threading
from typing import Any

from rata import stopping
from rata.app import App
from rata.folder import MCP_SOCKET


class RunningApp:
    def __init__(self, app: App) -> None:
        self.app = app
        self.endpoints: list[Any] = []
        self.applied: list[Any] = []
        self.started: Any = None
        """What the start did to the database (`rata.upgrade.Started`): migrations applied, the copy kept, or the problem every call answers."""
        self._stopped = threading.Event()

    @property
    def mcp_endpoint(self) -> Any:
        """The open MCP endpoint (an `EndpointServer`), or None when the app is not an MCP server."""
        return next((endpoint for endpoint in self.endpoints if endpoint.kind.socket_name == MCP_SOCKET), None)

    def start(self) -> RunningApp:
        """Bring the database up to date (`rata.upgrade.on_start`: a failure is kept, not raised), then open the endpoints the app asked for."""
        from rata.upgrade import on_start

        self.started = on_start(self.app)
        self.applied = list(self.started.applied)
        if self.app.mcp_config is not None:
            from rata.mcp.endpoint_server import serve_agents

            self.endpoints.append(serve_agents(self.app))
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Block until `stop` or a stop signal (SIGTERM, SIGINT, SIGHUP: see `rata.stopping`); True if stopped.

        Signals are handled here when called on the main thread, or anywhere once the process
        installed `rata.stopping`.
        """
        with stopping.graceful(self._stopped.set):
            return self._stopped.wait(timeout)

    def show_windows(self, backend: str = "desktop", *, headless: bool = False, scripts: Any = (), on_start: Any = None) -> None:
        """Show the app's frontend in its ``main`` window and block until it closes or a stop signal comes.

        Must run on the main thread for the desktop backend. See `rata.windows.run.run_windows`.
        """
        from rata.windows.run import run_windows

        run_windows(self.app, backend, headless, scripts=scripts, on_start=on_start)

    def stop(self) -> None:
        """Close the endpoints (their clients are disconnected) and the database (idempotent)."""
        self._stopped.set()
        while self.endpoints:
            self.endpoints.pop().close()
        self.app.close()

    def __enter__(self) -> RunningApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
