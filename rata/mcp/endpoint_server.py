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

from rata.app import App
from rata.endpoint import MCP, Connection, EndpointServer


def serve_agents(app: App, *, handshake_timeout: float | None = None) -> EndpointServer:
    """Open the app's MCP endpoint and serve each authenticated client until it disconnects."""
    from rata.codegen.catalog import build_catalog
    from rata.mcp.app_server import AppServer
    from rata.mcp.stdio import serve_lines
    from rata.ratelimit import Limiter

    catalog = build_catalog(app)  # once: every client sees the same surface
    mcp = app.mcp_config
    limiter = Limiter(mcp.limit if mcp is not None else None)  # once: one budget per tool for the whole app, not per connection

    def serve(connection: Connection) -> None:  # a client going away mid-line is the same as EOF
        serve_lines(lambda send: AppServer(app, send=send, catalog=catalog, limiter=limiter).server, connection.rfile, connection.send)

    options = {} if handshake_timeout is None else {"handshake_timeout": handshake_timeout}
    return EndpointServer(app.folder, MCP, serve, **options).open()
