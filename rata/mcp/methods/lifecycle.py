"""``server/discover`` (2026-07-28) and ``ping`` (2025-11-25). ``initialize`` is in the server core."""

from __future__ import annotations

from typing import Any, Protocol

from rata.mcp import wire

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.mcp.server import Call

DISCOVER_TTL_MS = 3_600_000


class Described(Protocol):
    """What a server says of itself: its capabilities and its instructions (an app's server, or one loading it)."""

    capabilities: dict[str, Any]
    instructions: str


def discover(ctx: Described, call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {"supportedVersions": list(wire.MODERN_VERSIONS), "capabilities": ctx.capabilities}
    if ctx.instructions:
        result["instructions"] = ctx.instructions
    result["ttlMs"] = DISCOVER_TTL_MS
    result["cacheScope"] = "public"
    return result


def ping(ctx: object, call: Call) -> dict[str, Any]:
    return {}
