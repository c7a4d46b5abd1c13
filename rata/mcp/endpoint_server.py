"""MCP inside the running app: every client of the ``RATA-MCP/1`` endpoint gets its own server.

    endpoint = serve_agents(app)      # opened when the app starts, if it called .mcp(...)
    ...
    endpoint.close()                  # when it stops

Each connection is one MCP client (its own era, capabilities, listen streams), served by the
same `AppServer` as `crm --mcp` on stdio; they all share the app, so its database, live
registry and events are the running app's own, and so is the rate limit: one budget per tool
for all of them, however many shims connect. The shim (`rata.mcp.shim`) is what connects.
"""

from __future__ import annotations

import threading

from rata.app import App
from rata.endpoint import MCP, Connection, EndpointServer

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.codegen.catalog import Catalog


def serve_agents(app: App, *, handshake_timeout: float | None = None) -> EndpointServer:
    """Open the app's MCP endpoint and serve each authenticated client until it disconnects."""
    from rata.mcp.app_server import AppServer
    from rata.mcp.stdio import serve_lines
    from rata.ratelimit import Limiter

    catalog = SharedCatalog(app)  # every client sees the same surface, built once per change
    mcp = app.mcp_config
    limiter = Limiter(mcp.limit if mcp is not None else None)  # once: one budget per tool for the whole app, not per connection

    def serve(connection: Connection) -> None:  # a client going away mid-line is the same as EOF
        serve_lines(lambda send: AppServer(app, send=send, catalog=catalog, limiter=limiter).server, connection.rfile, connection.send)

    if handshake_timeout is None:
        endpoint = EndpointServer(app.folder, MCP, serve).open()
    else:
        endpoint = EndpointServer(app.folder, MCP, serve, handshake_timeout=handshake_timeout).open()
    endpoint.on_close.append(catalog.stop)
    return endpoint


class SharedCatalog:
    """The app's catalog for every client of its endpoint: built once, and once again after each change of its
    surface (`rata.app.App.surface_changed`), however many clients' servers refresh (`AppServer.refresh`)."""

    def __init__(self, app: App) -> None:
        from rata.codegen.catalog import build_catalog

        self._app = app
        self._lock = threading.Lock()
        self._stale = False
        self._catalog = build_catalog(app)
        self.stop = app.on_surface_change(self._changed)
        """Stop hearing the app (the endpoint closed)."""

    def _changed(self) -> None:
        self._stale = True  # heard before any server's refresh runs: they refresh later, on a timer

    def __call__(self) -> Catalog:
        from rata.codegen.catalog import build_catalog

        with self._lock:
            if self._stale:
                self._stale = False  # first: a change heard while building makes the next call build again
                try:
                    self._catalog = build_catalog(self._app)
                except BaseException:
                    self._stale = True
                    raise
            return self._catalog
