"""An app as an MCP server: its catalog projected to tools and resources, behind the dual-era core.

server = AppServer(app, send=transport_write).server

The surface is listed again when the app says it changed (`rata.app.App.surface_changed`: a
command registered, a grant changed): `AppServer.refresh` builds the catalog anew, swaps the
server's `Index` whole and tells the clients which lists changed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from rata.app import App
from rata.codegen.catalog import Catalog, build_catalog
from rata.codegen.sanitize import clean_info, clean_instructions
from rata.logs import LazyLogger
from rata.mcp.methods import METHODS, subscriptions
from rata.mcp.methods.resources import template_matchers
from rata.mcp.server import Method, Server
from rata.mcp.surface import Index, tools_for
from rata.ratelimit import Limiter

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.mcp.confirm import Confirmer

log = LazyLogger("rata.mcp")

REFRESH_DELAY_S = 0.05
"""How long the server waits, after the app says its surface changed, before it lists again:
the changes of that moment (a burst of grant calls) make one refresh, and one notification per list."""


class AppServer:
    """Everything the method handlers of one app's server share: it serves every row of `rata.mcp.methods.METHODS`
    (it satisfies each handler module's protocol: `lifecycle.Described`, `listing.Offer`, `resources.Readable`,
    `tools.ToolHost`, `subscriptions.Subscribed`, `prompts.PromptHost`, `completion.Completable`)."""

    def __init__(
        self,
        app: App,
        *,
        send: Callable[[bytes], None],
        catalog: Catalog | Callable[[], Catalog] | None = None,
        server: Server | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        """`catalog`: the app's catalog, or the function that builds it now (each `refresh` calls it;
        the running app's clients share one build, `rata.mcp.endpoint_server`); by default
        `build_catalog` of the app.
        `server`: take over a server that is already serving (the one that answered from the
        app's manifest while the app loaded, `rata.mcp.loading`) instead of making one.
        `limiter`: the rate limits to count calls against, shared by every server of the running
        app (`rata.mcp.endpoint_server`); by default this server's own."""
        self.app = app
        self._build: Callable[[], Catalog] = catalog if callable(catalog) else partial(build_catalog, app)
        self.index = self._index(catalog if isinstance(catalog, Catalog) else self._build())
        """What the server lists and serves now; replaced whole by `refresh`."""
        self.manifest_ref: str | None = None
        """The app's reference (``"crm.app:app"``) when the server is ``crm --mcp``'s: `refresh` rewrites its manifest."""
        self._refreshing = threading.Lock()
        self._scheduling = threading.Lock()
        self._timer: threading.Timer | None = None
        self._closed = False
        mcp = app.mcp_config
        self.instructions = clean_instructions(mcp.instructions) if mcp is not None else ""  # the app's text, read by the model
        self.limiter = limiter if limiter is not None else Limiter(mcp.limit if mcp is not None else None)
        self._confirmer: Confirmer | None = None
        # listChanged: when the app's surface changes (`refresh`), and when a server that answered from the
        # app's manifest finds the loaded app listing otherwise (`rata.mcp.loading`).
        self.capabilities: dict[str, Any] = {
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": True},
            "completions": {},
            "logging": {},
        }
        self.subscriptions = subscriptions.Subscriptions(self)
        info = clean_info({"name": app.name, "version": app.version})
        if server is None:
            server = Server(info, self._methods(), send=send, capabilities=self.capabilities, instructions=self.instructions)
        else:
            server.info, server.capabilities, server.instructions = info, self.capabilities, self.instructions
            server.methods = self._methods()
        self.server = server
        self.server.on_cancel.append(self.subscriptions.cancel)
        stop = app.live.listen(self.subscriptions.tables_changed)
        self.server.on_close.append(stop)
        self.server.on_close.append(app.on_surface_change(self.surface_changed))
        self.server.on_close.append(self._close)
        self.server.on_close.append(self.subscriptions.close)

    def _index(self, catalog: Catalog) -> Index:
        """Every dict the handlers read that is made from the catalog, in one `Index`."""
        specs = dict(self.app.specs)
        index = Index()
        index.catalog = catalog
        index.specs = specs
        index.tools = {tool["name"]: tool for tool in catalog.tools}
        index.access = {name: self.app.agent_access(specs[name]) for name in index.tools}
        index.presenters = {name: spec.present for name, spec in specs.items() if spec.present is not None}
        index.texts = {name: spec.text for name, spec in specs.items() if spec.text is not None}
        index.resources = {resource["uri"]: resource for resource in catalog.resources}
        index.templates = {template["uriTemplate"]: template for template in catalog.templates}
        index.matchers = template_matchers(self.app, catalog)
        index.prompts = {prompt["name"]: prompt for prompt in catalog.prompts}
        index.legacy_tools = None
        return index

    # the index's parts, for the handlers' protocols (`tools/call` reads `index` once instead)
    @property
    def catalog(self) -> Catalog:
        return self.index.catalog

    @property
    def tools(self) -> dict[str, dict[str, Any]]:
        return self.index.tools

    @property
    def access(self) -> dict[str, str | None]:
        return self.index.access

    @property
    def presenters(self) -> dict[str, Any]:
        return self.index.presenters

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.index.resources

    @property
    def templates(self) -> dict[str, dict[str, Any]]:
        return self.index.templates

    @property
    def matchers(self) -> list[Any]:
        return self.index.matchers

    @property
    def prompts(self) -> dict[str, dict[str, Any]]:
        return self.index.prompts

    # --- when the surface changes ---

    def surface_changed(self) -> None:
        """The app says its surface may have changed: refresh in `REFRESH_DELAY_S`, once for every change until then."""
        with self._scheduling:
            if self._timer is not None or self._closed:
                return
            timer = self._timer = threading.Timer(REFRESH_DELAY_S, self._refresh_now)
            timer.name, timer.daemon = "rata-refresh", True
        timer.start()

    def _refresh_now(self) -> None:
        with self._scheduling:
            self._timer = None
        try:
            self.refresh()
        except Exception:  # noqa: BLE001 - nothing escapes the timer's thread
            log.exception("listing the app's surface again failed")

    def _close(self) -> None:
        with self._scheduling:
            self._closed = True
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def refresh(self) -> frozenset[str]:
        """List the app again; if a list changed, serve the new one and tell the clients. Returns the lists that changed.

        The catalog is built anew and the server's `index` replaced in one assignment, so a call
        running meanwhile sees the old surface or the new one. Lists are compared as the server
        answers them (`offer`); the names of those that differ (``"tools"``, ``"resources"``,
        ``"prompts"``) go to `Subscriptions.lists_changed`, and the manifest is rewritten. If the
        catalog cannot be built (a bad command), the old surface stays and the log says why."""
        with self._refreshing:
            if self._closed:
                return frozenset()
            old = self.offer()
            try:
                index = self._index(self._build())
            except Exception:  # noqa: BLE001 - whatever the app's code raised, the old surface keeps serving
                log.exception("the app's surface changed, but it cannot be listed again; the server keeps listing what it listed before")
                return frozenset()
            self.index = index
            mcp = self.app.mcp_config
            limit = mcp.limit if mcp is not None else None
            if self.limiter.limit != limit:
                self.limiter.limit = limit
            new = self.offer()
            changed = subscriptions.changed_lists(old, new)
            if not changed:
                return changed
            log.info("the app's surface changed (lists: %s)", ", ".join(sorted(changed)))
            if self.manifest_ref is not None:
                self._write_manifest(self.manifest_ref, new)
            self.subscriptions.lists_changed(changed)
            return changed

    def _write_manifest(self, ref: str, offer: dict[str, Any]) -> None:
        from rata.mcp import manifest

        try:
            manifest.write(ref, self.app, offer)
        except Exception:  # noqa: BLE001 - a manifest not rewritten costs the next start time, not this session
            log.exception("the manifest could not be rewritten")

    def _methods(self) -> dict[str, Method]:
        return {name: Method(partial(row.resolve(), self), row.eras, row.blocking) for name, row in METHODS.items() if row.handler is not None}

    @property
    def confirmer(self) -> Confirmer:
        """Signs and checks confirmation states; made on first use (most sessions never confirm anything)."""
        if self._confirmer is None:
            from rata.mcp.confirm import NONCES_FILE, Confirmer

            folder = self.app.folder.ensure()
            self._confirmer = Confirmer(folder.token(), nonces=folder.file(NONCES_FILE))
        return self._confirmer

    def tools_for(self, era: str) -> list[dict[str, Any]]:
        index = self.index
        if era == "modern":
            return index.catalog.tools
        if index.legacy_tools is None:
            index.legacy_tools = tools_for(index.catalog, "legacy")
        return index.legacy_tools

    def resources_for(self, era: str) -> list[dict[str, Any]]:
        return self.index.catalog.resources

    def prompts_for(self, era: str) -> list[dict[str, Any]]:
        return self.index.catalog.prompts

    def templates_for(self, era: str) -> list[dict[str, Any]]:
        return list(self.catalog.templates)

    def offer(self) -> dict[str, Any]:
        """Everything the server answers without running the app: what a manifest records (`rata.mcp.manifest`)."""
        index = self.index  # one surface, even while a refresh swaps it
        if index.legacy_tools is None:
            index.legacy_tools = tools_for(index.catalog, "legacy")
        return {
            "info": self.server.info,
            "capabilities": self.capabilities,
            "instructions": self.instructions,
            "tools": {"modern": index.catalog.tools, "legacy": index.legacy_tools},
            "resources": index.catalog.resources,
            "templates": list(index.catalog.templates),
            "prompts": index.catalog.prompts,
        }
