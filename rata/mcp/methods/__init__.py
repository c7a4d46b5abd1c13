"""One module per method family; each handler is ``handler(app_server, call) -> result``.

`SHAPES` is the method table without its handlers: the eras each method exists in and
whether it may block (then it runs on a worker thread). `OFFER` holds the handlers that
answer from what the server offers, needing no app. An app's server
(`rata.mcp.app_server`) and the server that answers from its manifest while the app loads
(`rata.mcp.loading`) share both, so a method means the same before and after the app is loaded.
"""

from rata.mcp.methods import lifecycle, listing

BOTH = frozenset({"modern", "legacy"})
MODERN_ONLY = frozenset({"modern"})
LEGACY_ONLY = frozenset({"legacy"})

SHAPES = {
    "server/discover": (MODERN_ONLY, False),
    "ping": (LEGACY_ONLY, False),
    "tools/list": (BOTH, False),
    "tools/call": (BOTH, True),
    "resources/list": (BOTH, False),
    "resources/templates/list": (BOTH, False),
    "resources/read": (BOTH, True),
    "subscriptions/listen": (MODERN_ONLY, False),
    "resources/subscribe": (LEGACY_ONLY, False),
    "resources/unsubscribe": (LEGACY_ONLY, False),
}
"""method name -> (eras, blocking)"""

OFFER = {
    "server/discover": lifecycle.discover,
    "ping": lifecycle.ping,
    "tools/list": listing.list_tools,
    "resources/list": listing.list_resources,
    "resources/templates/list": listing.list_templates,
}
"""method name -> handler(ctx, call) that needs only ctx's capabilities, instructions, tools_for and resources_for"""
