"""Subscriptions to live resources: ``subscriptions/listen`` (2026-07-28) and ``resources/subscribe`` (2025-11-25).

A listen is acknowledged first, with the part of its filter the server honours:
``resourceSubscriptions`` for known ``app://`` URIs, and ``toolsListChanged``,
``resourcesListChanged`` and ``promptsListChanged`` for each list whose capability says
``listChanged``. A list changes when the app's surface does (`rata.mcp.app_server.AppServer.refresh`)
and when a server that answered from the app's manifest finds the loaded app listing otherwise
(`rata.mcp.loading`). Every notification on a listen carries its subscription id. The client
ends it with ``notifications/cancelled``; nothing more is sent for it after that. A 2025-era
session hears a list change unsolicited, once it is initialized.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from rata.mcp import wire
from rata.mcp.methods import VERSIONS
from rata.mcp.methods.resources import Readable, find, live_key, not_found
from rata.mcp.server import DEFERRED
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.mcp.server import Call, Server

MAX_LISTENS = 1024
MAX_URIS = 10_000
"""Distinct URIs a session may subscribe to (a template has as many instances as values)."""


class Subscribed(Readable, Protocol):
    """What the subscription methods need: the app (its live registry), its resources and templates (`Readable`),
    the open subscriptions and the server that notifies."""

    subscriptions: Subscriptions
    server: Server


class Subscriptions:
    """Open listen streams and legacy subscriptions; notified by the app's live registry."""

    def __init__(self, ctx: Subscribed) -> None:
        self.ctx = ctx
        self.listens: dict[tuple[str, Any], tuple[Any, frozenset[str], frozenset[str]]] = {}
        """(listen id, subscribed URIs, lists whose changes it asked for and are honoured: "tools", "resources", "prompts")"""
        self.legacy: set[str] = set()
        self.keys: dict[str, str | None] = {}
        """Each subscribed URI's live key (`rata.mcp.methods.resources.live_key`): a template instance's is its command's."""
        self._lock = threading.Lock()

    def close(self) -> None:
        """The server is stopping: end every open listen with its result, as the specification asks."""
        with self._lock:
            listens = list(self.listens.values())
            self.listens.clear()
        for listen_id, _, _ in listens:
            self.ctx.server.send(wire.response(listen_id, self.ctx.server.shape({"_meta": {wire.META_SUBSCRIPTION: listen_id}}, VERSIONS[wire.MODERN])))

    def cancel(self, request_id: Any) -> bool:
        with self._lock:
            return self.listens.pop((type(request_id).__name__, request_id), None) is not None

    def tables_changed(self, written: frozenset[str]) -> None:
        live = self.ctx.app.live
        with self._lock:
            listens = list(self.listens.values())
            legacy = sorted(self.legacy)
        server = self.ctx.server
        keys = self.keys

        def affected(uri: str) -> bool:
            """Whether a write to these tables changes this resource (one no longer served changes no more)."""
            key = keys.get(uri)
            return key is not None and live.affects(key, written) and find(self.ctx, uri) is not None

        for listen_id, uris, _ in listens:
            for uri in sorted(uris):
                if affected(uri):
                    server.notify("notifications/resources/updated", {"_meta": {wire.META_SUBSCRIPTION: listen_id}, "uri": uri})
        for uri in legacy:
            if affected(uri):
                server.notify("notifications/resources/updated", {"uri": uri})

    def known(self, uri: str) -> bool:
        """Whether `uri` is a resource of this server (a template's instance too); it is remembered with its live key."""
        found = find(self.ctx, uri)
        if found is None:
            return False
        with self._lock:
            if uri not in self.keys and len(self.keys) < MAX_URIS:
                self.keys[uri] = live_key(found[0])
            return uri in self.keys

    def lists_changed(self, lists: frozenset[str]) -> None:
        """Tell the clients that these lists ("tools", "resources", "prompts") changed: each listen that asked, or a 2025-era session that said it is
        initialized.

        A 2025-era session hears only of the lists whose capability says ``listChanged``."""
        server = self.ctx.server
        with self._lock:
            listens = list(self.listens.values())
        for listen in listens:
            self._tell(listen, lists)
        if server.era == "legacy" and server.client_ready:
            for name in sorted(lists & honoured(server.capabilities)):
                server.notify(LIST_CHANGED[name])

    def list_changes_missed(self, listen_id: Any, lists: frozenset[str]) -> None:
        """Tell one listen, opened after these lists changed, what it would have heard."""
        with self._lock:
            listen = self.listens.get((type(listen_id).__name__, listen_id))
        if listen is not None:
            self._tell(listen, lists)

    def _tell(self, listen: tuple[Any, frozenset[str], frozenset[str]], lists: frozenset[str]) -> None:
        listen_id, _, wanted = listen
        for name in sorted(lists & wanted):
            self.ctx.server.notify(LIST_CHANGED[name], {"_meta": {wire.META_SUBSCRIPTION: listen_id}})


LIST_CHANGED = {
    "tools": "notifications/tools/list_changed",
    "resources": "notifications/resources/list_changed",
    "prompts": "notifications/prompts/list_changed",
}
"""list -> the notification that says it changed"""
LIST_FILTERS = {"toolsListChanged": "tools", "resourcesListChanged": "resources", "promptsListChanged": "prompts"}
"""a listen's filter key -> the list it asks about"""
OFFER_LISTS = {"tools": "tools", "resources": "resources", "templates": "resources", "prompts": "prompts"}
"""a key of the server's offer (`rata.mcp.app_server.AppServer.offer`) -> the list whose notification tells of its change
(resource templates count as the resources list)"""


def changed_lists(old: dict[str, Any], new: dict[str, Any]) -> frozenset[str]:
    """The lists ("tools", "resources", "prompts") that two offers of the server give otherwise."""
    return frozenset(name for key, name in OFFER_LISTS.items() if old.get(key) != new.get(key))


def honoured(capabilities: dict[str, Any]) -> frozenset[str]:
    """The lists whose changes the server tells: those whose capability says ``listChanged``."""
    return frozenset(name for name in LIST_CHANGED if isinstance(capabilities.get(name), dict) and capabilities[name].get("listChanged") is True)



def listen(ctx: Subscribed, call: Call) -> dict[str, Any]:
    wanted = call.params.get("notifications")
    if not isinstance(wanted, dict):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "notifications" (an object) is required')
    requested = wanted.get("resourceSubscriptions")
    if requested is not None and (not isinstance(requested, list) or not all(isinstance(u, str) for u in requested)):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "resourceSubscriptions" must be a list of URIs')
    honored: dict[str, Any] = {}
    lists = []
    told = honoured(ctx.server.capabilities)
    for key, name in LIST_FILTERS.items():
        if wanted.get(key) is True and name in told:
            honored[key] = True
            lists.append(name)
    uris = frozenset(u for u in requested or [] if ctx.subscriptions.known(u))
    if requested is not None:
        honored["resourceSubscriptions"] = sorted(uris)
    subs = ctx.subscriptions
    with subs._lock:
        if len(subs.listens) >= MAX_LISTENS:
            raise McpError(wire.INTERNAL_ERROR, f"Too many open subscriptions (at most {MAX_LISTENS}); cancel one first")
        subs.listens[(type(call.id).__name__, call.id)] = (call.id, uris, frozenset(lists))
    ctx.server.notify("notifications/subscriptions/acknowledged", {"_meta": {wire.META_SUBSCRIPTION: call.id}, "notifications": honored})
    return DEFERRED


def subscribe(ctx: Subscribed, call: Call) -> dict[str, Any]:
    uri = call.params.get("uri")
    if not isinstance(uri, str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "uri" must be a string')
    if not ctx.subscriptions.known(uri):
        raise not_found(uri, call.version)
    with ctx.subscriptions._lock:
        ctx.subscriptions.legacy.add(uri)
    return {}


def unsubscribe(ctx: Subscribed, call: Call) -> dict[str, Any]:
    uri = call.params.get("uri")
    if not isinstance(uri, str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "uri" must be a string')
    with ctx.subscriptions._lock:
        ctx.subscriptions.legacy.discard(uri)
    return {}
