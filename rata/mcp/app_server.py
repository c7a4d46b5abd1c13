"""An app as an MCP server: its catalog projected to tools and resources, behind the dual-era core.

server = AppServer(app, send=transport_write).server
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from rata.app import App
from rata.codegen.catalog import Catalog, build_catalog
from rata.codegen.sanitize import clean_info, clean_instructions
from rata.mcp.methods import METHODS, subscriptions
from rata.mcp.methods.resources import template_matchers
from rata.mcp.server import Method, Server
from rata.mcp.surface import tools_for
from rata.ratelimit import Limiter

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.mcp.confirm import Confirmer


class AppServer:
    """Everything the method handlers of one app's server share: it serves every row of `rata.mcp.methods.METHODS`
    (it satisfies each handler module's protocol: `lifecycle.Described`, `listing.Offer`, `resources.Readable`,
    `tools.ToolHost`, `subscriptions.Subscribed`)."""

    def __init__(
        self,
        app: App,
        *,
        send: Callable[[bytes], None],
        catalog: Catalog | None = None,
        server: Server | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        """`server`: take over a server that is already serving (the one that answered from the
        app's manifest while the app loaded, `rata.mcp.loading`) instead of making one.
        `limiter`: the rate limits to count calls against, shared by every server of the running
        app (`rata.mcp.endpoint_server`); by default this server's own."""
        self.app = app
        self.catalog = catalog if catalog is not None else build_catalog(app)
        self.presenters = {name: spec.present for name, spec in app.specs.items() if spec.present is not None}
        """Tools whose result is shown as content of their own (`@command(present=...)`), not as structured JSON; they list no outputSchema."""
        self.tools = {tool["name"]: tool for tool in self.catalog.tools}
        self.access = {name: app.agent_access(app.specs[name]) for name in self.tools}
        self.resources = {resource["uri"]: resource for resource in self.catalog.resources}
        self.templates = {template["uriTemplate"]: template for template in self.catalog.templates}
        self.matchers = template_matchers(app, self.catalog)
        """Each listed template with what it reads, for ``resources/read`` and subscriptions (`rata.mcp.methods.resources`)."""
        self._legacy_tools: list[dict[str, Any]] | None = None
        mcp = app.mcp_config
        self.instructions = clean_instructions(mcp.instructions) if mcp is not None else ""  # the app's text, read by the model
        self.limiter = limiter if limiter is not None else Limiter(mcp.limit if mcp is not None else None)
        self._confirmer: Confirmer | None = None
        # listChanged: a server that answered from the app's manifest says so if the loaded app lists otherwise.
        self.capabilities: dict[str, Any] = {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True}, "logging": {}}
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
        self.server.on_close.append(self.subscriptions.close)

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
        if era == "modern":
            return self.catalog.tools
        if self._legacy_tools is None:
            self._legacy_tools = tools_for(self.catalog, "legacy")
        return self._legacy_tools

    def resources_for(self, era: str) -> list[dict[str, Any]]:
        return self.catalog.resources

    def templates_for(self, era: str) -> list[dict[str, Any]]:
        return list(self.catalog.templates)

    def offer(self) -> dict[str, Any]:
        """Everything the server answers without running the app: what a manifest records (`rata.mcp.manifest`)."""
        return {
            "info": self.server.info,
            "capabilities": self.capabilities,
            "instructions": self.instructions,
            "tools": {"modern": self.tools_for("modern"), "legacy": self.tools_for("legacy")},
            "resources": self.resources_for("modern"),
            "templates": self.templates_for("modern"),
        }
