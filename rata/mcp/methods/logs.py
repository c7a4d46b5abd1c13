"""``logging/setLevel`` (2025 era): the level from which a command's logs reach the client, for the session.

In 2026-07-28 there is no such method: each request carries its own level in
``_meta["io.modelcontextprotocol/logLevel"]``. Either way `rata.mcp.talking` sends the logs.
"""

from __future__ import annotations

from typing import Any

from rata.mcp import wire
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.mcp.server import Call


def set_level(ctx: object, call: Call) -> dict[str, Any]:
    level = call.params.get("level")
    if level not in wire.LOG_LEVELS:
        raise McpError(wire.INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(wire.LOG_LEVELS)}")
    call.server.log_level = level
    return {}
