"""``tools/list``, ``resources/list``, ``resources/templates/list``, ``prompts/list``: what the server offers.

These answer from lists made once (`Offer`), so they work the same over an app that is loaded
(`rata.mcp.app_server.AppServer`) and over its manifest while the app's code is still loading
(`rata.mcp.loading`). They import nothing of the app model.
"""

from __future__ import annotations

from typing import Any, Protocol

from rata.mcp import wire
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.mcp.server import Call

LIST_TTL_MS = 3_600_000


class Offer(Protocol):
    """What a server lists: its tools per era, its resources and its resource templates."""

    def tools_for(self, era: str) -> list[dict[str, Any]]: ...

    def resources_for(self, era: str) -> list[dict[str, Any]]: ...

    def prompts_for(self, era: str) -> list[dict[str, Any]]: ...
    def templates_for(self, era: str) -> list[dict[str, Any]]: ...


def check_cursor(call: Call) -> None:
    """Every list fits one page, so no cursor is valid (an empty string is a cursor too)."""
    if "cursor" in call.params and call.params["cursor"] is not None:
        raise McpError(wire.INVALID_PARAMS, "Invalid params: unknown cursor; every list here fits in one page")


def list_tools(ctx: Offer, call: Call) -> dict[str, Any]:
    check_cursor(call)
    return {"tools": call.version.tools(ctx.tools_for(call.era)), "ttlMs": LIST_TTL_MS, "cacheScope": "public"}


def list_resources(ctx: Offer, call: Call) -> dict[str, Any]:
    check_cursor(call)
    return {"resources": call.version.resources(ctx.resources_for(call.era)), "ttlMs": LIST_TTL_MS, "cacheScope": "public"}


def list_templates(ctx: Offer, call: Call) -> dict[str, Any]:
    check_cursor(call)
    return {"resourceTemplates": call.version.resources(ctx.templates_for(call.era)), "ttlMs": LIST_TTL_MS, "cacheScope": "public"}


def list_prompts(ctx: Offer, call: Call) -> dict[str, Any]:
    check_cursor(call)
    prompts = ctx.prompts_for(call.era)
    if "titles" not in call.version.features:  # a title is 2025-06-18's
        prompts = [{k: v for k, v in prompt.items() if k != "title"} for prompt in prompts]
    return {"prompts": prompts, "ttlMs": LIST_TTL_MS, "cacheScope": "public"}
