"""Serving an app's first requests from its manifest while its code loads.

    server = LoadingServer(manifest, load, send=transport.send).server

A client's first requests (``server/discover`` or ``initialize``, then ``tools/list``) need
nothing the app computes at run time, so they are answered at once from the manifest
(`rata.mcp.manifest`) while a thread imports the app. Everything else (``tools/call``,
``resources/read``, subscriptions) waits for the app, then runs as it would have. When the app
is loaded its `AppServer` takes the same server over, so the session carries on unbroken.

If the loaded app lists other tools, resources or prompts than the manifest said (its tool list
depends on something besides its code, an environment variable say), the manifest is
rewritten and the clients are told: ``notifications/tools/list_changed`` and the like on the
listens that asked for them, or to a 2025-era session (`rata.mcp.methods.subscriptions.Subscriptions.lists_changed`). Later
changes of the app's surface are the `AppServer`'s (`AppServer.refresh`). If the app fails to load, every request that needs it gets an error that says why.
"""

from __future__ import annotations

import sys
import threading
from functools import partial

from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.methods import METHODS
from rata.mcp.server import DEFERRED, Method, Server
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from rata.app import App
    from rata.mcp.app_server import AppServer
    from rata.mcp.manifest import Manifest
    from rata.mcp.server import Call

log = LazyLogger("rata.mcp")

LOADING_SWITCH_INTERVAL_S = 0.0005
"""While the app loads, the thread that answers the client gets the interpreter back this soon (default: 5 ms)."""


class LoadingServer:
    """The server, answering from the manifest until the app it loads on a thread takes it over.

    It serves the rows of `rata.mcp.methods.METHODS` that do not need the app itself (it satisfies
    `lifecycle.Described` and `listing.Offer`) and holds the others until the app is loaded."""

    def __init__(self, manifest: Manifest, load: Callable[[], App], *, send: Callable[[bytes], None]) -> None:
        offer = manifest.offer
        self.manifest = manifest
        self.capabilities: dict[str, Any] = offer["capabilities"]
        self.instructions: str = offer["instructions"]
        self._load = load
        self._send = send
        self._done = threading.Event()
        self.app_server: AppServer | None = None
        self.failure: str | None = None
        """Why the app did not load, in one line: the exception's type and message (and, for an import, the module, file and line)."""
        self.fix = LOAD_FIX
        self.changed: frozenset[str] = frozenset()
        self._announcing = threading.Lock()
        self._announced = False  # the listens open when the lists were found changed have been told
        """The lists ("tools", "resources", "prompts") the loaded app gives otherwise than the manifest."""
        self.server = Server(offer["info"], self._methods(), send=send, capabilities=self.capabilities, instructions=self.instructions)
        # start-up: bench/run.py --only server (cold start, the first tools/call while the app loads)
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(LOADING_SWITCH_INTERVAL_S)
        self._thread = threading.Thread(target=self._run, name="rata-load-app", daemon=True)
        self._thread.start()

    # --- what the manifest answers ---

    def tools_for(self, era: str) -> list[dict[str, Any]]:
        return self.manifest.offer["tools"][era]

    def resources_for(self, era: str) -> list[dict[str, Any]]:
        return self.manifest.offer["resources"]

    def prompts_for(self, era: str) -> list[dict[str, Any]]:
        return self.manifest.offer["prompts"]

    def templates_for(self, era: str) -> list[dict[str, Any]]:
        return self.manifest.offer["templates"]

    def _methods(self) -> dict[str, Method]:
        methods = {}
        for name, row in METHODS.items():
            if row.handler is not None:
                handler = partial(self._when_loaded, name) if row.needs_app else partial(row.resolve(), self)
                methods[name] = Method(handler, row.eras, row.blocking)
        return methods

    # --- everything else waits for the app ---

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the app is loaded or failed to load; False on timeout."""
        return self._done.wait(timeout)

    def _when_loaded(self, name: str, call: Call) -> dict[str, Any]:
        self._done.wait()
        if call.cancelled:
            return DEFERRED  # cancelled while it waited: it never runs, and nothing is sent
        if self.app_server is None:
            return self._failed(name)
        handler = self.app_server.server.methods[name].handler
        if name != "subscriptions/listen":
            return handler(call)
        # Opened while the app loaded: told of the list change by the announcement if it was open
        # then, else here; the lock makes it one or the other, never both or neither.
        with self._announcing:
            result = handler(call)
            if result is DEFERRED and self._announced and self.changed:
                self.app_server.subscriptions.list_changes_missed(call.id, self.changed)
        return result

    def _failed(self, name: str) -> dict[str, Any]:
        """The answer to a request that needs the app when it failed to load: for ``tools/call`` a result with ``isError`` (what
        a model reads, as for any tool that fails), for the other methods a JSON-RPC internal error; each says why and the fix."""
        said = f"The app could not be loaded, so {name} cannot run: {self.failure}"
        said = f"{said}{'' if said.endswith('.') else '.'} {self.fix}"
        if name == "tools/call":
            return {"content": [{"type": "text", "text": said}], "isError": True}
        raise McpError(wire.INTERNAL_ERROR, said)

    def _run(self) -> None:
        try:
            from rata.mcp import manifest as manifests
            from rata.mcp.app_server import AppServer
            from rata.mcp.methods.subscriptions import changed_lists

            app = self._load()
            app_server = AppServer(app, send=self._send, server=self.server)  # the server's methods are now the app's
            app_server.manifest_ref = self.manifest.ref  # a later change of the app's surface rewrites it too
            offer = app_server.offer()
            old = self.manifest.offer
            self.changed = changed_lists(old, offer)
            self.app_server = app_server
        except BaseException as error:  # noqa: BLE001 - whatever the app's code raised, the client hears why
            self.failure, self.fix = _failure(error)
            log.exception("the app failed to load")
            sys.stderr.write(f"{self.manifest.name}: the app failed to load, and each request that needs it gets this error: {self.failure}\n")
            sys.stderr.flush()
            return
        finally:
            sys.setswitchinterval(self._switch_interval)
            self._done.set()
        if offer != old:
            log.info("the app answers otherwise than its manifest said (changed lists: %s); manifest rewritten", ", ".join(sorted(self.changed)) or "none")
            try:
                manifests.write(self.manifest.ref, app, offer)
            except Exception:  # noqa: BLE001 - a manifest not rewritten costs the next start time, not this session
                log.exception("the manifest could not be rewritten")
            with self._announcing:
                if self.changed:
                    app_server.subscriptions.lists_changed(self.changed)
                self._announced = True


LOAD_FIX = "Fix the app and restart the server."


def _failure(error: BaseException) -> tuple[str, str]:
    """Why loading failed and how to fix it: a `RataError`'s own message and hint (an import failure names the module, the
    exception and where it was raised), else the exception's type and message."""
    from rata.errors import RataError

    if isinstance(error, RataError):
        return _said(error.message), _said(error.hint or "") or LOAD_FIX
    said = _said(error)
    return (f"{type(error).__name__}: {said}" if said else type(error).__name__), LOAD_FIX


def _said(error: BaseException | str) -> str:
    """What an exception of the app's says, as Unicode text that can go on the wire (lone surrogates escaped)."""
    try:
        text = str(error).strip()
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails says nothing
        return ""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
