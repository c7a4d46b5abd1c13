"""The dual-era MCP server core: classify each message, route it through one method table (`rata.mcp.methods`), answer once.

    server = Server(info, methods, send=transport.send)
    server.receive(line)          # for each line read; never raises

Both eras on one process, as the specification allows:

- a request whose ``params._meta`` carries ``io.modelcontextprotocol/...`` keys is served
  statelessly under 2026-07-28 rules (envelope -> version -> method -> handler);
- ``initialize`` starts a session scoped to this process, in the handshake version the client
  asked for when it is served (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), else 2025-11-25;
  an ``initialize`` that carries the envelope is 2026-07-28 traffic, where it was removed (-32601).

Once a non-discover modern request has been served the connection is modern: a later
``initialize`` gets -32022. Once ``initialize`` has been answered, enveloped requests get
-32600. Light methods run on the reading thread. ``tools/call`` and ``resources/read`` run
on the reading thread too when nothing else runs and the transport can hand its reading on
(`rata.mcp.stdio.Relay`: after 2 ms another thread reads), else on worker threads; so a slow
command never holds up other requests or a listen stream for long, and responses may come out
of order. Every request is answered exactly once, unless the client cancelled it.

Hostile input: every line is untrusted (`wire.parse_line` refuses what JSON cannot carry
faithfully), only valid JSON is written (`wire.encode` turns an answer it cannot write into
-32603 for its id), and no exception leaves `receive`, a worker or `send`.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from rata._record import Record
from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.methods import METHODS, VERSIONS, Version
from rata.mcp.wire import McpError

log = LazyLogger("rata.mcp")

Handler = Callable[["Call"], dict[str, Any]]


class Method(Record):
    """A method as one server serves it: a row of `rata.mcp.methods.METHODS` with its handler bound to that server."""

    __slots__ = ("handler", "eras", "blocking")
    _defaults: ClassVar[dict[str, Any]] = {"eras": frozenset({"modern", "legacy"}), "blocking": False}
    handler: Handler
    eras: frozenset[str]
    blocking: bool


class Relay(Protocol):
    """A transport that can hand its reading to another thread (`rata.mcp.stdio.Relay`)."""

    def busy(self) -> bool: ...

    def run_here(self, call: Callable[[], None]) -> bool: ...

    def hand_on(self) -> None: ...

    def wait_for_calls(self, timeout: float) -> None: ...


class Call:
    """One request being served, in the protocol version (`rata.mcp.methods.Version`) it speaks."""

    __slots__ = ("server", "id", "method", "params", "version", "era", "capabilities", "client", "cancelled")

    def __init__(
        self, server: Server, id: Any, method: str, params: dict[str, Any], version: Version, capabilities: dict[str, Any], client: dict[str, Any] | None
    ) -> None:
        self.server = server
        self.id = id
        self.method = method
        self.params = params
        self.version = version
        self.era = version.era
        self.capabilities = capabilities
        self.client = client
        self.cancelled = False  # set by notifications/cancelled; a flag is enough (nothing waits on it)

    @property
    def client_name(self) -> str:
        name = (self.client or {}).get("name")
        return name if isinstance(name, str) and name else "unknown"

    def can_elicit(self, mode: str = "form") -> bool:
        """Whether the client declared elicitation in this mode (``{}`` means form only), in a version that has it."""
        if "elicitation" not in self.version.features:
            return False
        elicitation = self.capabilities.get("elicitation")
        if not isinstance(elicitation, dict):
            return False
        if not elicitation:
            return mode == "form"
        return isinstance(elicitation.get(mode), dict)

    def ask_client(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a request to a 2025-11-25 client and wait for its result (raises McpError on error or timeout)."""
        return self.server.request_client(method, params, timeout)


class _Worker:
    """A thread for blocking calls. Idle, it waits on `wake` (held while idle) for `call` to be set."""

    __slots__ = ("thread", "wake", "call")

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.wake = threading.Lock()
        self.wake.acquire()
        self.call: Call | None = None


class Server:
    """Routes lines to handlers and writes exactly one answer per request."""

    def __init__(
        self,
        info: dict[str, str],
        methods: dict[str, Method],
        *,
        send: Callable[[bytes], None],
        capabilities: dict[str, Any],
        instructions: str = "",
        workers: int = 8,
        waiting: int = 1000,
    ) -> None:
        """`workers`: threads for blocking calls; `waiting`: how many more calls may wait for one before the next is refused."""
        self.info = info
        self.methods = methods
        self.capabilities = capabilities
        self.instructions = instructions
        self._send_bytes = send
        self._max_workers = workers
        self._max_waiting = waiting
        self.era: str | None = None
        self.initialized = False
        self.client_ready = False
        """The 2025-era client said ``notifications/initialized``: from now on it may hear unsolicited notifications (a list changed)."""
        self.legacy_capabilities: dict[str, Any] = {}
        self.legacy_client: dict[str, Any] | None = None
        self.legacy_version: Version = VERSIONS[wire.LEGACY]
        """The version the ``initialize`` handshake settled on (``ping`` before it is answered in this one)."""
        self.log_level: str | None = None
        """The level ``logging/setLevel`` asked for (2025 era): a command's logs from it up reach the client (`rata.mcp.talking`)."""
        self._active: dict[tuple[str, Any], Call] = {}
        self._pending: dict[str, tuple[threading.Event, list[Any]]] = {}
        self._lock = threading.Lock()
        # Blocking calls go straight to an idle worker (one lock released: the cheapest handoff
        # between threads), else to a new one, up to `workers`; beyond that they wait in order.
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        self._backlog: deque[Call] = deque()
        self._closing = False
        self._input_closed = False
        self._ids = itertools.count(1)
        self.on_cancel: list[Callable[[Any], bool]] = []
        """Hooks for cancels of things that are not running calls (listen streams); return True if handled."""
        self.on_close: list[Callable[[], None]] = []
        self.relay: Relay | None = None
        """The transport's `rata.mcp.stdio.Relay`, if it can hand its reading to another thread: then a
        blocking call that finds no other running is run on the thread that read it."""

    # --- output ---

    def send(self, message: dict[str, Any]) -> None:
        """Write one message. An answer that cannot be written as JSON goes out as the -32603 error for
        its id (`wire.encode`); a notification that cannot is dropped and logged. Never raises."""
        try:
            data = wire.encode(message)
        except wire.UnencodableError as problem:
            log.error("a %s notification could not be written as JSON and was dropped: %s", wire.shown(message.get("method")), problem)
            return
        try:
            self._send_bytes(data)
        except Exception:  # noqa: BLE001 - a transport that fails is closed; the caller must not die of it
            log.exception("the transport failed to write a message")

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send(wire.notification(method, params))

    # --- input ---

    def receive(self, line: bytes) -> None:
        """Handle one line from the client. Never raises: every problem becomes the right answer or nothing."""
        if not line.strip():
            return
        try:
            incoming = wire.parse_line(line)
        except wire.FrameError as problem:
            if problem.response:  # a broken answer to a request of ours: that request fails, it does not wait
                self._release(problem.id, problem.error)
            self.send(wire.error_response(problem.id, problem.error, problem.has_id))
            return
        except Exception:  # noqa: BLE001 - the parser's contract is FrameError; anything else is a bug to log, not to die of
            log.exception("unexpected failure parsing a line")
            self.send(wire.error_response(None, McpError(wire.PARSE_ERROR, "Parse error: the line could not be read"), has_id=False))
            return
        try:
            if incoming.kind == "notification":
                self._notification(incoming)
            elif incoming.kind == "response":
                self._response(incoming)
            else:
                self._request(incoming)
        except McpError as error:
            if incoming.kind == "request":
                self.send(wire.error_response(incoming.id, error))
        except Exception:  # noqa: BLE001 - the top-level handler: log, answer, keep serving
            log.exception("unexpected failure handling %s", wire.shown(incoming.method) if incoming.method else "a response")
            if incoming.kind == "request":
                self.send(wire.error_response(incoming.id, McpError(wire.INTERNAL_ERROR, "Internal error")))

    def oversized(self) -> None:
        """The transport read a line over the size cap and dropped it."""
        self.send(
            wire.error_response(
                None,
                McpError(wire.INVALID_REQUEST, f"Invalid Request: the message is longer than {wire.MAX_LINE_BYTES} bytes and was skipped"),
                has_id=False,
            )
        )

    def _notification(self, incoming: wire.Incoming) -> None:
        params = incoming.params or {}
        if incoming.method == "notifications/initialized":
            self.client_ready = self.initialized
            return
        if incoming.method == "notifications/cancelled":
            request_id = params.get("requestId")
            if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
                return
            with self._lock:
                call = self._active.get(_key(request_id))
            if call is not None:
                call.cancelled = True
                return
            for hook in self.on_cancel:
                if hook(request_id):
                    return
        # every other notification is ignored, as the specification says

    def _response(self, incoming: wire.Incoming) -> None:
        if incoming.error is not None:
            self._release(incoming.id, _client_error(incoming.error))
        else:
            self._release(incoming.id, incoming.result if isinstance(incoming.result, dict) else {})

    def _release(self, request_id: Any, answer: dict[str, Any] | McpError) -> None:
        """Hand `answer` (a result, or an error to raise) to the server->client request `request_id`, if one waits."""
        if not isinstance(request_id, str):
            return  # ours are strings ("rata-N"): anything else answers nothing we sent
        with self._lock:
            pending = self._pending.pop(request_id, None)
        if pending is None:
            return
        event, holder = pending
        holder.append(answer)
        event.set()

    def input_closed(self) -> None:
        """The client will send nothing more (EOF): requests waiting for its answer fail now, and no new one is sent."""
        with self._lock:
            self._input_closed = True
            pending = list(self._pending)
        for request_id in pending:
            self._release(request_id, McpError(wire.INTERNAL_ERROR, "the client closed the connection before it answered"))

    def _request(self, incoming: wire.Incoming) -> None:
        params = incoming.params if isinstance(incoming.params, dict) else {}
        meta = params.get("_meta")
        enveloped = isinstance(meta, dict) and (wire.META_VERSION in meta or any(isinstance(k, str) and k.startswith("io.modelcontextprotocol/") for k in meta))
        if incoming.method == "initialize" and not enveloped:  # an enveloped one is 2026-07-28 traffic, where it was removed
            self._initialize(incoming, params)
            return
        if enveloped or self.era == "modern":
            self._modern(incoming, params, meta if isinstance(meta, dict) else None)
        else:
            self._legacy(incoming, params)

    # --- the two eras ---

    def _modern(self, incoming: wire.Incoming, params: dict[str, Any], meta: dict[str, Any] | None) -> None:
        if self.era == "legacy":
            raise_to = McpError(
                wire.INVALID_REQUEST, "Invalid Request: this connection negotiated 2025-11-25 with initialize; send requests without the 2026-07-28 envelope"
            )
            self.send(wire.error_response(incoming.id, raise_to))
            return
        try:
            version, capabilities, client = _check_envelope(meta)
            method = self.methods.get(incoming.method)
            if method is None or "modern" not in method.eras:
                raise _not_found(incoming.method, "modern")
        except McpError as error:
            self.send(wire.error_response(incoming.id, error))
            return
        if incoming.method != "server/discover":
            self.era = "modern"
        call = Call(self, incoming.id, incoming.method, params, version, capabilities, client)
        self._start(call, method)

    def _legacy(self, incoming: wire.Incoming, params: dict[str, Any]) -> None:
        method = self.methods.get(incoming.method)
        if incoming.method != "ping" and not self.initialized:
            error = McpError(
                wire.INVALID_PARAMS,
                f"Invalid params: {wire.shown(incoming.method)} before initialize; send initialize first, or put the {wire.MODERN} envelope in params._meta",
            )
            self.send(wire.error_response(incoming.id, error))
            return
        if method is None or "legacy" not in method.eras:
            self.send(wire.error_response(incoming.id, _not_found(incoming.method, "legacy")))
            return
        call = Call(self, incoming.id, incoming.method, params, self.legacy_version, self.legacy_capabilities, self.legacy_client)
        self._start(call, method)

    def _initialize(self, incoming: wire.Incoming, params: dict[str, Any]) -> None:
        requested = params.get("protocolVersion")
        if self.era == "modern":
            error = McpError(wire.UNSUPPORTED_VERSION, "Unsupported protocol version: this connection is using 2026-07-28", _unsupported(requested))
            self.send(wire.error_response(incoming.id, error))
            return
        capabilities = params.get("capabilities")
        client = params.get("clientInfo")
        if not isinstance(requested, str) or not isinstance(capabilities, dict) or not isinstance(client, dict):
            error = McpError(wire.INVALID_PARAMS, "Invalid params: initialize needs protocolVersion (string), capabilities (object) and clientInfo (object)")
            self.send(wire.error_response(incoming.id, error))
            return
        self.era = "legacy"
        self.initialized = True
        self.legacy_capabilities = capabilities
        self.legacy_client = client
        # The version asked for when it is a handshake version served here, else the newest (2026-07-28 included).
        version = VERSIONS.get(requested) if requested in wire.HANDSHAKE_VERSIONS else None
        self.legacy_version = version if version is not None and version.era == "legacy" else VERSIONS[wire.LEGACY]
        info = self.legacy_version.info(self.info)
        result: dict[str, Any] = {"protocolVersion": self.legacy_version.name, "capabilities": self.capabilities, "serverInfo": info}
        if self.instructions:
            result["instructions"] = self.instructions
        self.send(wire.response(incoming.id, result))

    # --- running calls ---

    def _start(self, call: Call, method: Method) -> None:
        key = _key(call.id)
        if not method.blocking:
            with self._lock:
                self._active[key] = call
            self._run(call)
            return
        relay = self.relay
        if relay is not None:
            with self._lock:
                alone = not self._backlog and len(self._idle) == len(self._workers) and not relay.busy()
                if alone:
                    self._active[key] = call
            # hot path: bench/run.py --only server (throughput): run where it was read, no hand-off to a worker
            if alone and relay.run_here(lambda: self._run(call)):
                return
        worker = None
        with self._lock:
            self._active[key] = call
            if self._idle:
                worker = self._idle.pop()
            elif len(self._workers) < self._max_workers:
                worker = _Worker()
                self._workers.append(worker)
            elif len(self._backlog) < self._max_waiting:
                self._backlog.append(call)
                return
            else:  # a bound on what a client can make the server hold: refused, not queued
                self._active.pop(key, None)
                raise McpError(
                    wire.INTERNAL_ERROR,
                    f"Server busy: {self._max_waiting} calls already wait for one of its {self._max_workers} threads; send this again once some are answered",
                )
        worker.call = call
        if worker.thread is None:
            thread = threading.Thread(target=self._work, args=(worker,), name=f"rata-mcp-{len(self._workers)}", daemon=True)
            try:
                thread.start()
            except RuntimeError as error:  # no thread to be had (a process limit): this call is refused, not lost
                with self._lock:
                    self._workers.remove(worker)
                    self._active.pop(key, None)
                raise McpError(wire.INTERNAL_ERROR, f"Internal error: the server could not start a thread for this call ({error}); try again") from None
            worker.thread = thread
        else:
            worker.wake.release()  # the last thing done here: this thread goes back to reading at once

    def _work(self, worker: _Worker) -> None:
        call = worker.call
        while call is not None:
            try:
                self._run(call)
            except Exception:  # noqa: BLE001 - _run answers every failure itself; a worker outlives even a bug there
                log.exception("unexpected failure running %s", wire.shown(call.method))
            with self._lock:
                if self._backlog:
                    call = self._backlog.popleft()
                    continue
                if self._closing:
                    return
                self._idle.append(worker)
            worker.wake.acquire()
            call = worker.call

    def _run(self, call: Call) -> None:
        answer: dict[str, Any] | None
        try:
            result = self.methods[call.method].handler(call)
            answer = None if result is DEFERRED else wire.response(call.id, self.shape(result, call.version))
        except McpError as error:
            answer = wire.error_response(call.id, error)
        except Exception:  # noqa: BLE001 - a handler fault must not take the server down
            log.exception("internal error in %s", wire.shown(call.method))
            answer = wire.error_response(call.id, McpError(wire.INTERNAL_ERROR, "Internal error"))
        with self._lock:
            self._active.pop(_key(call.id), None)
            cancelled = call.cancelled
        if cancelled or answer is None:
            return  # the client cancelled (nothing more is sent for it), or the handler answers later (a listen stream)
        self.send(answer)

    def shape(self, result: dict[str, Any], version: Version) -> dict[str, Any]:
        """A result as `version` has it: with the 2026-07-28 envelope (resultType and serverInfo) if it has one,
        without the keys it drops (and its content items without the keys and types it lacks)."""
        if version.envelope:
            shaped = dict(result)
            shaped.setdefault("resultType", "complete")
            meta = dict(shaped.get("_meta") or {})
            meta[wire.META_SERVER] = self.info
            shaped["_meta"] = meta
            return shaped
        drops = version.drops
        shaped = {k: v for k, v in result.items() if k not in drops}
        if version.item_drops or version.content_types is not _ALL_CONTENT:
            content = shaped.get("content")
            if isinstance(content, list):
                shaped["content"] = version.content(content)
        return shaped

    def request_client(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a server->client request (2025-11-25 only) and wait for the answer.

        Raises `McpError` when the client answers with an error, sends a malformed answer, does not
        answer within `timeout` seconds, or closes its input first (then at once)."""
        request_id = f"rata-{next(self._ids)}"
        try:
            data = wire.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        except wire.UnencodableError as problem:
            raise McpError(wire.INTERNAL_ERROR, f"{method} could not be sent: {problem}") from None
        event = threading.Event()
        holder: list[dict[str, Any] | McpError] = []
        with self._lock:
            if self._input_closed:
                raise McpError(wire.INTERNAL_ERROR, f"{method} could not be sent: the client closed the connection")
            self._pending[request_id] = (event, holder)
        if self.relay is not None:  # the answer comes on the input: if this thread reads it, another must, now
            self.relay.hand_on()
        try:
            self._send_bytes(data)
        except Exception:  # noqa: BLE001 - as in send: a failed transport is the same as no answer
            log.exception("the transport failed to write a message")
        if not event.wait(timeout):
            with self._lock:
                self._pending.pop(request_id, None)
            if not holder:
                raise McpError(wire.INTERNAL_ERROR, f"the client did not answer {method} within {timeout:g} s")
        answer = holder[0]
        if isinstance(answer, McpError):
            raise answer
        return answer

    def close(self, grace: float = 5.0) -> None:
        """Stop: let queued and running calls finish (up to `grace` seconds in all), answer those still
        unfinished with an error (nothing more is sent for them), then run the close hooks."""
        import time

        deadline = time.monotonic() + grace
        self.input_closed()  # whatever still waits for the client's answer stops waiting
        with self._lock:
            self._closing = True
            idle, self._idle = self._idle, []
            workers = list(self._workers)
        for worker in idle:
            worker.call = None
            worker.wake.release()
        for worker in workers:
            if worker.thread is not None:
                worker.thread.join(max(0.0, deadline - time.monotonic()))
        if self.relay is not None:
            self.relay.wait_for_calls(max(0.0, deadline - time.monotonic()))
        with self._lock:
            unfinished = [call for call in self._active.values() if not call.cancelled]
            for call in unfinished:
                call.cancelled = True  # if it ends after all, its answer is not sent: this one was
            self._active.clear()
            self._backlog.clear()
        for call in unfinished:
            why = f"Internal error: the server stopped before {wire.shown(call.method)} finished (it waited {grace:g} s for it after its input closed)"
            self.send(wire.error_response(call.id, McpError(wire.INTERNAL_ERROR, why)))
        for hook in self.on_close:
            try:
                hook()
            except Exception:  # noqa: BLE001 - every hook runs, and stopping never fails
                log.exception("a close hook failed")


_ALL_CONTENT = VERSIONS[wire.LEGACY].content_types

DEFERRED: dict[str, Any] = {}
"""Returned by a handler that will answer (or never answer) the request itself."""


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


MAX_CLIENT_CODE = 2**31
"""An error code from the client outside +-2**31 (or not an integer) is read as -32603."""


def _client_error(error: Any) -> McpError:
    """The error a client answered a server->client request with, as an `McpError`, whatever shape it came in."""
    if not isinstance(error, dict):
        return McpError(wire.INTERNAL_ERROR, "the client answered with a malformed error (not an object)")
    code = error.get("code")
    if isinstance(code, bool) or not isinstance(code, int) or not -MAX_CLIENT_CODE <= code < MAX_CLIENT_CODE:
        code = wire.INTERNAL_ERROR
    message = error.get("message")
    return McpError(code, wire.shown(message) if isinstance(message, str) and message else "the client answered with an error")


def _not_found(method: Any, era: str) -> McpError:
    """-32601 for `method`, saying so when it is a method of the other era only (`rata.mcp.methods.METHODS`)."""
    row = METHODS.get(method) if isinstance(method, str) else None
    if era == "modern" and row is not None and "modern" not in row.eras:
        return McpError(wire.METHOD_NOT_FOUND, f"Method not found: {wire.shown(method)} does not exist in {wire.MODERN}")
    return McpError(wire.METHOD_NOT_FOUND, f"Method not found: {wire.shown(method)}")


def _unsupported(requested: Any) -> dict[str, Any]:
    """The data of a -32022: the versions served, and the one asked for as the client wrote it (a string cut at
    `wire.SHOWN_CHARS`); no ``requested`` when the client sent no version string (the schema has it a string)."""
    data: dict[str, Any] = {"supported": list(wire.MODERN_VERSIONS)}
    if isinstance(requested, str):
        data["requested"] = wire.shown(requested)
    return data


def _check_envelope(meta: dict[str, Any] | None) -> tuple[Version, dict[str, Any], dict[str, Any] | None]:
    """Validate the 2026-07-28 per-request envelope; return (protocol version, client capabilities, client info)."""
    if meta is None:
        raise McpError(
            wire.INVALID_PARAMS, f"Invalid params: params._meta is missing; 2026-07-28 requests carry {wire.META_VERSION} and {wire.META_CAPABILITIES}"
        )
    missing = [key for key in (wire.META_VERSION, wire.META_CAPABILITIES) if key not in meta]
    if missing:
        raise McpError(wire.INVALID_PARAMS, f"Invalid params: params._meta is missing the required envelope key(s): {', '.join(missing)}")
    version = meta[wire.META_VERSION]
    if version not in wire.MODERN_VERSIONS:
        raise McpError(wire.UNSUPPORTED_VERSION, "Unsupported protocol version", _unsupported(version))
    capabilities = meta[wire.META_CAPABILITIES]
    if not isinstance(capabilities, dict):
        raise McpError(wire.INVALID_PARAMS, f"Invalid params: {wire.META_CAPABILITIES} must be an object")
    level = meta.get(wire.META_LOG_LEVEL)
    if level is not None and level not in wire.LOG_LEVELS:
        raise McpError(wire.INVALID_PARAMS, f"Invalid params: {wire.META_LOG_LEVEL} must be one of {', '.join(wire.LOG_LEVELS)}")
    client = meta.get(wire.META_CLIENT)
    return VERSIONS[version], capabilities, client if isinstance(client, dict) else None
