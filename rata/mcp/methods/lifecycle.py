"""``server/discover`` (2026-07-28) and ``ping`` (2025-11-25). ``initialize`` is in the server core."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rata.mcp import wire

if TYPE_CHECKING:
    from rata.mcp.app_server import AppServer
    from rata.mcp.server import Call

DISCOVER_TTL_MS = 3_600_000


def discover(ctx: AppServer, call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {"supportedVersions": list(wire.MODERN_VERSIONS), "capabilities": ctx.capabilities}
    if ctx.instructions:
        result["instructions"] = ctx.instructions
    result["ttlMs"] = DISCOVER_TTL_MS
    result["cacheScope"] = "public"
    return result


def ping(ctx: AppServer, call: Call) -> dict[str, Any]:
    return {}
