"""`crm --mcp`, the shim: pipe to the running app when there is one, else serve headless.

    connection = find_running_app(app.folder)     # None: nobody there; EndpointError: there but untrusted
    if connection: pipe(connection, stdin, stdout, folder=app.folder)
    else:          serve on stdio as before

Lines pass both ways unchanged (MCP's newline framing), so an agent sees exactly what the
running app's server says. When the client closes stdin the app is told (half-close) and the
shim exits once the app has answered what was in flight; when the app goes away first, the
shim ends too and the client sees its server exit.

Except when `rata dev` is restarting the app after an edit (it leaves ``dev.restarting`` in the
app's folder while it does, see `rata.debug_build.reload`): then the shim keeps its client.
Each request still unanswered gets -32603 "the app restarted; try again"; the shim connects to
the new app (for up to `RECONNECT_WAIT` seconds), replays what the new server must know of
this session (the 2025-era ``initialize`` handshake and ``resources/subscribe``s, the open
2026-07-28 ``subscriptions/listen`` streams, passing none of the answers to the client), asks
the new app again for each list the client was given (the client's own last request) and tells
the client which of them changed, as its era says: unasked once initialized (2025), or on each
listen that asked, tagged with its id (2026-07-28).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from typing import Any, BinaryIO

from rata.endpoint import MCP, Connection, connect
from rata.folder import RESTARTING, AppFolder

LINE = 1 << 20
RECONNECT_WAIT = 60.0
"""Seconds the shim waits for the restarted app's endpoint (a start with Chromium takes a few)."""
REPLAY_WAIT = 10.0
"""Seconds the new server has to answer the replayed ``initialize``."""
RESTARTED = "the app restarted; try again"
LISTS = ("tools", "resources", "prompts")
LISTED = {
    "tools/list": ("tools", "tools"),
    "resources/list": ("resources", "resources"),
    "resources/templates/list": ("resources", "resourceTemplates"),
    "prompts/list": ("prompts", "prompts"),
}
"""Each list method: the list it belongs to, and the result's key that holds the items."""
SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"


def find_running_app(folder: AppFolder) -> Connection | None:
    """An authenticated connection to the MCP endpoint of the app running with this folder, or None when it isn't running.

    Only the folder is needed (its socket and token), so `crm --mcp` can pipe to the running app
    without importing the app's code.
    """
    return connect(folder, MCP)


def pipe(connection: Connection, stdin: BinaryIO, stdout: BinaryIO, folder: AppFolder | None = None) -> str:
    """Copy stdin to the app and the app to stdout until both directions end; returns how it ended.

    With `folder`, the client's session outlives a `rata dev` restart of the app (see above).
    """
    return _Shim(connection, stdin.fileno(), stdout.fileno(), folder).run()


class _Shim:
    def __init__(self, connection: Connection, stdin: int, stdout: int, folder: AppFolder | None) -> None:
        self.connection: Connection | None = connection
        self.stdin, self.stdout, self.folder = stdin, stdout, folder
        self.cond = threading.Condition()
        self.client_done = False
        self.pending: dict[str, Any] = {}  # json(id) -> id: the client's requests the app has not answered
        self.initialize: bytes | None = None  # the 2025-era handshake, to replay
        self.initialized: bytes | None = None
        self.capabilities: dict[str, Any] = {}
        self.subscribed: dict[str, bytes] = {}  # uri -> the client's resources/subscribe line (2025 era)
        self.listens: dict[str, tuple[Any, bytes]] = {}  # json(id) -> (id, line): the open 2026-07-28 listens
        self.honoured: dict[str, dict[str, Any]] = {}  # json(id) -> the kinds its acknowledgement named
        self.swallow: set[str] = set()  # json(id)s of the replay's own requests
        self.replayed: set[str] = set()  # listens re-opened: their new acknowledgement is not the client's
        self.asked: dict[str, str] = {}  # json(id) -> list method, for the client's list requests in flight
        self.list_requests: dict[str, bytes] = {}  # list method -> the client's last request for it
        self.lists: dict[str, Any] = {}  # list method -> the items the client was last given

    def run(self) -> str:
        threading.Thread(target=self._upstream, name="rata-shim-upstream", daemon=True).start()
        while True:
            connection = self.connection
            assert connection is not None
            for line in _lines(connection.rfile):
                self._downstream(line)
            connection.close()
            with self.cond:
                if self.client_done or not self._restarting():
                    return "client closed" if self.client_done else "app closed"
                self.connection = None
            if not self._reconnect():
                with self.cond:
                    self.client_done = True  # nobody to send to any more
                    self.cond.notify_all()
                return "app closed"

    # the client's side -------------------------------------------------------------
    def _upstream(self) -> None:
        try:
            with os.fdopen(os.dup(self.stdin), "rb") as stdin:
                for line in _lines(stdin):
                    with self.cond:
                        while self.connection is None and not self.client_done:
                            self.cond.wait()
                        if self.connection is None:
                            return
                        self._note_request(line)
                        try:  # noqa: SIM105 - per line of the client's: a plain try costs nothing, suppress() a context manager
                            self.connection.sock.sendall(line)
                        except OSError:
                            pass  # the app is going away: a request among these is answered when the shim sees it gone
        except OSError:
            pass  # the client's side broke: as if it closed it
        with self.cond:
            self.client_done = True
            if self.connection is not None:
                with contextlib.suppress(OSError):
                    self.connection.sock.shutdown(socket.SHUT_WR)

    def _note_request(self, line: bytes) -> None:
        message = _parse(line)
        method, key = message.get("method"), _key(message)
        if not isinstance(method, str):
            return
        params = _dict(message.get("params"))
        if key is not None:
            self.pending[key] = message["id"]
            if method in LISTED and not params.get("cursor"):
                self.asked[key] = method
                self.list_requests[method] = line
        if method == "initialize":
            self.initialize = line
        elif method == "notifications/initialized":
            self.initialized = line
        elif method == "subscriptions/listen" and key is not None:
            self.listens[key] = (message["id"], line)
        elif method == "notifications/cancelled":
            self.listens.pop(json.dumps(params.get("requestId")), None)
        elif method in ("resources/subscribe", "resources/unsubscribe") and isinstance(params.get("uri"), str):
            if method == "resources/subscribe":
                self.subscribed[params["uri"]] = line
            else:
                self.subscribed.pop(params["uri"], None)

    # the app's side ----------------------------------------------------------------
    def _downstream(self, line: bytes) -> None:
        message = _parse(line)
        key = _key(message) if "method" not in message else None
        if key is not None:  # a response
            if key in self.swallow:
                self.swallow.discard(key)
                return
            if key in self.listens:
                if self._restarting():
                    return  # the old app ending the listen as it stops: the new one takes it over
                self.listens.pop(key, None)
            self.pending.pop(key, None)
            method = self.asked.pop(key, None)
            if method is not None and isinstance(message.get("result"), dict):
                self.lists[method] = message["result"].get(LISTED[method][1])
            if self.initialize is not None and "capabilities" in _dict(message.get("result")):
                self.capabilities = _dict(message["result"]["capabilities"])
        elif message.get("method") == "notifications/subscriptions/acknowledged":
            params = _dict(message.get("params"))
            listen = json.dumps(_dict(params.get("_meta")).get(SUBSCRIPTION))
            self.honoured[listen] = _dict(params.get("notifications"))
            if listen in self.replayed:
                self.replayed.discard(listen)
                return
        self._write(line)

    def _write(self, line: bytes) -> None:
        view = memoryview(line)
        while view:
            view = view[os.write(self.stdout, view) :]

    # a restart -----------------------------------------------------------------------
    def _restarting(self) -> bool:
        return self.folder is not None and os.path.exists(self.folder.file(RESTARTING))

    def _reconnect(self) -> bool:
        """Answer what was in flight, connect to the new app, replay the session, tell the client; False: it never came."""
        for key, ident in list(self.pending.items()):
            if key not in self.listens:
                self.pending.pop(key)
                self.asked.pop(key, None)
                self._write(_dump({"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": RESTARTED}}))
        assert self.folder is not None
        deadline = time.monotonic() + RECONNECT_WAIT
        connection = None
        while connection is None:
            restarting = self._restarting()  # looked at first: gone now, the new app (if any) was up before the try below
            with contextlib.suppress(Exception):  # a socket not yet there, or an app still starting: try again
                connection = connect(self.folder, MCP)
            if connection is None:
                if time.monotonic() > deadline or self.client_done or not restarting:
                    return False  # it never came back, or `rata dev` gave up on it
                time.sleep(0.1)
        changed = self._replay(connection)
        if changed is None:
            connection.close()
            return False
        with self.cond:
            self.connection = connection
            self.cond.notify_all()
        self._tell(changed)
        return True

    def _replay(self, connection: Connection) -> set[str] | None:
        """Bring the new server to where the old one was; the lists whose items changed, or None when it does not answer."""
        changed: set[str] = set()
        own: dict[str, str | None] = {}  # json(id) of each request whose answer the replay waits for -> its list method
        if self.initialize is not None:
            message = _parse(self.initialize)
            message["id"] = "rata-shim-initialize"
            own[json.dumps(message["id"])] = None
            connection.sock.sendall(_dump(message))
            if self._answers(connection, own) is None:
                return None
            if self.initialized is not None:
                connection.sock.sendall(self.initialized)
        for method, line in list(self.list_requests.items()):  # the client's own requests, in its era's shape
            message = _parse(line)
            message["id"] = f"rata-shim-{method}"
            own[json.dumps(message["id"])] = method
            connection.sock.sendall(_dump(message))
        answers = self._answers(connection, own)
        if answers is None:
            return None
        for method, items in answers.items():
            if method is not None and items != self.lists.get(method):
                self.lists[method] = items
                changed.add(LISTED[method][0])
        for number, line in enumerate(list(self.subscribed.values())):
            message = _parse(line)
            message["id"] = f"rata-shim-subscribe-{number}"
            self.swallow.add(json.dumps(message["id"]))
            connection.sock.sendall(_dump(message))
        for key, (_, line) in list(self.listens.items()):
            self.replayed.add(key)
            connection.sock.sendall(line)
        return changed

    def _answers(self, connection: Connection, own: dict[str, str | None]) -> dict[str | None, Any] | None:
        """Read until each request in `own` is answered (whatever else comes is dropped); method -> the listed items."""
        found: dict[str | None, Any] = {}
        if not own:
            return found
        connection.sock.settimeout(REPLAY_WAIT)
        try:
            for line in _lines(connection.rfile):
                message = _parse(line)
                key = _key(message) if "method" not in message else None
                if key in own:
                    method = own.pop(key)
                    found[method] = _dict(message.get("result")).get(LISTED[method][1]) if method is not None else None
                    if not own:
                        return found
        except OSError:
            return None
        finally:
            connection.sock.settimeout(None)
        return found if not own else None

    def _tell(self, changed: set[str]) -> None:
        """Tell the client which of the lists it was given changed, as its era says."""
        if self.initialize is not None:
            if self.initialized is not None:
                for kind in LISTS:
                    if kind in changed and _dict(self.capabilities.get(kind)).get("listChanged"):
                        self._write(_dump({"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"}))
            return
        for key, (ident, line) in list(self.listens.items()):
            asked = _dict(_dict(_parse(line).get("params")).get("notifications"))
            honoured = self.honoured.get(key, asked)
            for kind in LISTS:
                flag = f"{kind}ListChanged"
                if kind in changed and asked.get(flag) and honoured.get(flag):
                    self._write(_dump({"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed", "params": {"_meta": {SUBSCRIPTION: ident}}}))


def _lines(stream: Any) -> Any:
    """Lines (with their newline) from a binary stream until EOF, a longer one in `LINE`-sized pieces passed on as they come."""
    while True:
        line = stream.readline(LINE)
        if not line:
            return
        yield line


def _parse(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _key(message: dict[str, Any]) -> str | None:
    ident = message.get("id")
    return json.dumps(ident) if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None


def _dump(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"
