"""``resources/read``: live commands as resources (``resources/list`` is in `listing`)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from rata.dispatch import CommandRequest, Origin
from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App
    from rata.mcp.methods import Version
    from rata.mcp.server import Call

log = LazyLogger("rata.mcp")


class Readable(Protocol):
    """What ``resources/read`` needs: the app, and its resources by URI."""

    app: App
    resources: dict[str, dict[str, Any]]


def not_found(uri: Any, version: Version) -> McpError:
    return McpError(version.resource_not_found, "Resource not found", {"uri": uri})


def read_resource(ctx: Readable, call: Call) -> dict[str, Any]:
    uri = call.params.get("uri")
    if not isinstance(uri, str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "uri" must be a string')
    resource = ctx.resources.get(uri)
    if resource is None:
        raise not_found(uri, call.version)
    try:
        value = ctx.app.dispatch(CommandRequest(resource["name"], {}, Origin.agent(call.client_name)))
    except Exception as error:  # noqa: BLE001 - the reader learns what failed; the traceback goes to the log
        log.exception("reading %s failed", uri)
        raise McpError(wire.INTERNAL_ERROR, f"Reading {uri} failed: {str(error).strip() or type(error).__name__}") from None
    content = {"uri": uri, "mimeType": "application/json", "text": json.dumps(value, ensure_ascii=False)}
    # Live data: stale at once, and it is this user's data.
    return {"contents": [content], "ttlMs": 0, "cacheScope": "private"}
