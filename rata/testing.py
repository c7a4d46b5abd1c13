"""Test what an agent sees: an MCP client over the app's real server code.

    from rata.testing import AgentClient

    with AgentClient(app) as agent:                      # in-process, the same server code as `crm --mcp`
        assert [t["name"] for t in agent.list_tools()] == [...]
        ada = agent.call("customers_store", {"name": "Ada", "email": "ada@example.com"})
        assert ada.data["id"] == 1
        agent.call("customers_delete", {"id": 1}, confirm=True)   # answers the confirmation
        assert agent.read("app://customers_index") == []
        booked = agent.call("trips_book", {"city": "Oslo"}, answers=[{"seat": "window"}])  # answers ctx.ask
        assert agent.call("trips_import", {"cities": ["Oslo"]}, progress=True).progress[-1]["progress"] == 1
        assert agent.get_prompt("follow_up", customer_id=7)["messages"][0]["role"] == "user"  # arguments go as text
        assert agent.complete("follow_up", "tone", "w") == {"values": ["warm"], "total": 1, "hasMore": False}

    with AgentClient.spawn(["crm", "--mcp"], env=...) as agent:  # the same API through a real process
        ...

    with RunningApp(app), AgentClient.running(app) as agent:  # through the running app's endpoint
        ...

`era="legacy"` speaks 2025-11-25 (``initialize`` first). Every message goes through the JSON
line framing, so what a test sees is byte for byte what a client would.

And the app's window, in headless Chromium, as its user drives it:

    with open_window(app) as page:                       # chromium_missing() says why it cannot, to skip
        page.type("#title", "Ship it")
        page.click("#add")
        page.until("document.querySelectorAll('#tasks li').length", 1)
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Self

from rata.app import App
from rata.mcp import wire
from rata.mcp.methods.subscriptions import LIST_CHANGED, LIST_FILTERS
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.content import Audio, EmbeddedResource, Image, ResourceLink

__all__ = ["AgentClient", "ConfirmationRequested", "InputRequested", "Listen", "McpError", "ToolResult", "WindowPage", "chromium_missing", "open_window"]

DEFAULT_TIMEOUT = 10.0
MAX_ROUNDS = 20
"""Rounds of ``input_required`` one `AgentClient.call` answers before it gives up (2026-07-28)."""
_LIST_OF = {method: kind for kind, method in LIST_CHANGED.items()}  # notifications/tools/list_changed -> "tools"
_LIST_FILTER = {kind: key for key, kind in LIST_FILTERS.items()}  # "tools" -> toolsListChanged

Answers = Any
"""What `AgentClient.call` answers questions with: a list (one item per question, in order) or a function
``(message, requested_schema) -> item``. An item is ``"decline"``, ``"cancel"``, an elicitation result
(``{"action": ...}``), or the form's content as a dict (an accept)."""


class InputRequested(AssertionError):
    """The server asked the user something and the test did not say how to answer (pass answers=...)."""


class ConfirmationRequested(InputRequested):
    """The server asked the user to confirm and the test did not say how to answer (pass confirm=True/False)."""


@dataclass
class ToolResult:
    """A `tools/call` result: `data` is the structured content (or the text parsed as JSON); `images`, `audio`,
    `resources` and `links` are the content parts (`rata.content`), decoded."""

    raw: dict[str, Any]
    progress: list[dict[str, Any]] = field(default_factory=list)
    """The ``notifications/progress`` params the call sent (with ``progress=True``), in order."""
    logs: list[dict[str, Any]] = field(default_factory=list)
    """The ``notifications/message`` params that came while the call ran (with a `log_level` on the client)."""
    asked: list[dict[str, Any]] = field(default_factory=list)
    """The params of every question (``elicitation/create``) put to the user during the call, confirmations left out."""

    @property
    def is_error(self) -> bool:
        return bool(self.raw.get("isError"))

    @property
    def text(self) -> str:
        return "\n".join(block.get("text", "") for block in self.raw.get("content", []) if block.get("type") == "text")

    @property
    def content(self) -> list[dict[str, Any]]:
        """The content blocks, as the server sent them."""
        return list(self.raw.get("content", []))

    @property
    def images(self) -> list[Image]:
        """The image blocks, decoded: ``result.images[0].data`` is the bytes, ``.mime_type`` their type."""
        return self._parts("image")

    @property
    def audio(self) -> list[Audio]:
        """The audio blocks, decoded."""
        return self._parts("audio")

    @property
    def resources(self) -> list[EmbeddedResource]:
        """The embedded resources (``.text``, or ``.blob`` decoded), with their URIs and MIME types."""
        return self._parts("resource")

    @property
    def links(self) -> list[ResourceLink]:
        """The resource links."""
        return self._parts("resource_link")

    def _parts(self, kind: str) -> list[Any]:
        from rata.content import part_from_json

        return [part_from_json(block) for block in self.content if isinstance(block, dict) and block.get("type") == kind]

    @property
    def data(self) -> Any:
        if "structuredContent" in self.raw:
            return self.raw["structuredContent"]
        try:
            return json.loads(self.text)
        except json.JSONDecodeError:
            return None


@dataclass
class Listen:
    """An open ``subscriptions/listen`` stream (or, in the legacy era, the session's updates)."""

    client: AgentClient
    id: Any
    honored: dict[str, Any] = field(default_factory=dict)

    def updates(self) -> list[str]:
        """The URIs reported updated on this stream so far."""
        return [n["params"]["uri"] for n in self.client.notifications_for(self.id) if n["method"] == "notifications/resources/updated"]

    def wait_for_update(self, uri: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.client._wait(lambda: uri in self.updates(), timeout, f"no notifications/resources/updated for {uri}")

    def list_changes(self) -> list[str]:
        """The lists ("tools", "resources", "prompts") reported changed on this stream so far, in order
        (in the legacy era: the session's unsolicited ``notifications/*/list_changed``)."""
        with self.client._cond:
            heard = list(self.client.notifications)
        changes = []
        for note in heard:
            kind = _LIST_OF.get(note.get("method", ""))
            if kind is not None and note.get("params", {}).get("_meta", {}).get(wire.META_SUBSCRIPTION) == self.id:
                changes.append(kind)
        return changes

    def wait_for_list_change(self, kind: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until this stream hears that the list `kind` ("tools", "resources", "prompts") changed."""
        self.client._wait(lambda: kind in self.list_changes(), timeout, f"no notifications/{kind}/list_changed")

    def close(self) -> None:
        if self.client.era == "modern":
            self.client.notify("notifications/cancelled", {"requestId": self.id})
        else:
            for uri in self.honored.get("resourceSubscriptions", []):
                self.client.request("resources/unsubscribe", {"uri": uri})

    def __enter__(self) -> Listen:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AgentClient:
    """A small MCP client for tests, speaking either era, in-process or to a subprocess."""

    def __init__(
        self,
        app: App | None = None,
        *,
        era: str = "modern",
        client: str = "rata-testing",
        elicitation: bool = True,
        sampling: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        roots: list[dict[str, Any]] | None = None,
        log_level: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        version: str = wire.LEGACY,
        _transport: Callable[[AgentClient], Callable[[bytes], None]] | None = None,
    ) -> None:
        if era not in ("modern", "legacy"):
            raise ValueError(f"era must be 'modern' or 'legacy', not {era!r}")
        self.era = era
        self.version = version
        """The protocol version asked for in ``initialize`` (the legacy era: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)."""
        self.client_info = {"name": client, "version": "1.0"}
        self.capabilities: dict[str, Any] = {"elicitation": {"form": {}}} if elicitation else {}
        self.sampling = sampling
        """Answers ``sampling/createMessage``: ``(params) -> result`` (``{"role", "content", "model"}``); None: no sampling capability."""
        if sampling is not None:
            self.capabilities["sampling"] = {}
        self.roots = roots
        """The roots ``roots/list`` answers with (``[{"uri": "file:///...", "name": ...}]``); None: no roots capability."""
        if roots is not None:
            self.capabilities["roots"] = {}
        self.log_level = log_level
        """The level from which the server's ``notifications/message`` are asked for (per request in 2026-07-28, ``logging/setLevel`` in 2025)."""
        self.timeout = timeout
        self.notifications: list[dict[str, Any]] = []
        self._responses: dict[Any, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._answer: bool | None = None
        self._unanswered: str | None = None
        self._answers: Answers = None
        self._asked: list[dict[str, Any]] = []
        self._server: Any = None
        self._process: subprocess.Popen[bytes] | None = None
        """The server process of a client made by `spawn`."""
        self._connection: Any = None
        """The app's endpoint connection of a client made by `running`."""
        if _transport is not None:
            self._write = _transport(self)
        else:
            if app is None:
                raise ValueError("AgentClient needs an app (or use AgentClient.spawn)")
            from rata.mcp.app_server import AppServer

            self._server = AppServer(app, send=self._on_bytes).server
            self._write = self._server.receive
        if era == "legacy":
            self.server_info = self.request("initialize", {"protocolVersion": version, "capabilities": self.capabilities, "clientInfo": self.client_info})
            self.notify("notifications/initialized")
            if log_level is not None:
                self.request("logging/setLevel", {"level": log_level})

    @classmethod
    def spawn(cls, command: Sequence[str], *, env: dict[str, str] | None = None, stderr: Any = None, **options: Any) -> Self:
        """A client talking to a server process over its stdin and stdout (its stderr goes where `stderr` says: inherited by default)."""
        process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env)

        def transport(client: AgentClient) -> Callable[[bytes], None]:
            def pump() -> None:
                assert process.stdout is not None
                for line in process.stdout:
                    client._on_bytes(line)

            threading.Thread(target=pump, daemon=True).start()
            client._process = process

            def write(data: bytes) -> None:
                assert process.stdin is not None
                process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
                process.stdin.flush()

            return write

        return cls(None, _transport=transport, **options)

    @classmethod
    def running(cls, app: App, **options: Any) -> Self:
        """A client connected to the running app's MCP endpoint, the way `crm --mcp` connects (see `rata.running_app`)."""
        from rata.endpoint import MCP, connect

        connection = connect(app.folder, MCP)
        if connection is None:
            raise ConnectionError(f"{app.name} is not running here: no MCP endpoint in {app.folder.path}")

        def transport(client: AgentClient) -> Callable[[bytes], None]:
            def pump() -> None:
                for line in connection.rfile:
                    client._on_bytes(line)

            threading.Thread(target=pump, daemon=True).start()
            client._connection = connection
            return lambda data: connection.send(data if data.endswith(b"\n") else data + b"\n")

        return cls(None, _transport=transport, **options)

    # --- plumbing ---

    def _on_bytes(self, data: bytes) -> None:
        message = json.loads(data)
        if "method" in message and "id" in message:
            self._answer_server_request(message)
            return
        with self._cond:
            if "method" in message:
                self.notifications.append(message)
            else:
                self._responses[message.get("id")] = message
            self._cond.notify_all()

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        method, params = message["method"], message.get("params") or {}
        if method in ("elicitation/create", "sampling/createMessage", "roots/list"):
            reply = wire.response(message["id"], self._input(method, params))
        else:
            reply = wire.error_response(message["id"], McpError(wire.METHOD_NOT_FOUND, f"the test client does not answer {method}"))
        self._write(wire.encode(reply))

    def _input(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request for input, in either era (never raises: a question the test left unanswered is
        declined and reported when the call returns)."""
        if method == "sampling/createMessage":
            return self.sampling(params) if self.sampling is not None else {}
        if method == "roots/list":
            return {"roots": list(self.roots or [])}
        from rata.mcp.confirm import REQUESTED_SCHEMA

        if params.get("requestedSchema") == REQUESTED_SCHEMA:  # a confirmation
            if self._answer is None:
                self._unanswered = params.get("message", "")
            return {"action": "accept", "content": {"confirm": True}} if self._answer else {"action": "decline"}
        self._asked.append(params)
        answers = self._answers
        if callable(answers):
            item = answers(params.get("message", ""), params.get("requestedSchema", {}))
        elif answers:
            item = answers.pop(0)
        else:
            self._unanswered = self._unanswered or params.get("message", "")
            return {"action": "decline"}
        if item in ("decline", "cancel"):
            return {"action": item}
        if isinstance(item, dict) and "action" in item:
            return item
        return {"action": "accept", "content": item}

    def _wait(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(ready, timeout):
                raise TimeoutError(f"{what} within {timeout:g} s")

    def _meta(self) -> dict[str, Any]:
        meta = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: self.capabilities, wire.META_CLIENT: self.client_info}
        if self.log_level is not None:
            meta[wire.META_LOG_LEVEL] = self.log_level
        return meta

    def send_line(self, line: bytes) -> None:
        """Write one raw line to the server (for wire-level tests)."""
        self._write(line)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._write(wire.encode(wire.notification(method, params)))

    def request_raw(self, method: str, params: dict[str, Any] | None = None, *, envelope: bool | None = None) -> dict[str, Any]:
        """Send a request and return the whole response message (result or error)."""
        request_id = next(self._ids)
        params = dict(params or {})
        if envelope if envelope is not None else (self.era == "modern" and method != "initialize"):
            params["_meta"] = {**self._meta(), **params.get("_meta", {})}
        self._write(wire.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
        self._wait(lambda: request_id in self._responses, self.timeout, f"no answer to {method}")
        with self._cond:
            return self._responses.pop(request_id)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and return its result; a JSON-RPC error raises `McpError`."""
        message = self.request_raw(method, params)
        if "error" in message:
            error = message["error"]
            raise McpError(error["code"], error["message"], error.get("data"))
        return message["result"]

    def notifications_for(self, subscription: Any) -> list[dict[str, Any]]:
        with self._cond:
            if self.era == "legacy":
                return [n for n in self.notifications if "params" in n and wire.META_SUBSCRIPTION not in n.get("params", {}).get("_meta", {})]
            return [n for n in self.notifications if n.get("params", {}).get("_meta", {}).get(wire.META_SUBSCRIPTION) == subscription]

    # --- what a test calls ---

    def list_tools(self) -> list[dict[str, Any]]:
        return self.request("tools/list")["tools"]

    def list_resources(self) -> list[dict[str, Any]]:
        return self.request("resources/list")["resources"]

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, confirm: bool | None = None, answers: Answers = None, progress: bool = False
    ) -> ToolResult:
        """Call a tool. If the user must confirm, `confirm` is the answer (True: accept, False: decline).

        `answers` answers the questions the command asks (`Ctx.ask`): a list, one item per question
        in the order asked, or a function ``(message, requested_schema) -> item``; see `Answers`.
        `progress` sends a progress token: the reports come back in `ToolResult.progress`.
        In 2026-07-28 the call retries with the answers until the result is complete."""
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        token = f"progress-{next(self._ids)}" if progress else None
        if token is not None:
            params["_meta"] = {"progressToken": token}
        with self._cond:
            heard = len(self.notifications)
        result = self._asking("tools/call", params, name, confirm, answers)
        with self._cond:
            heard_now = self.notifications[heard:]
        reports = [n["params"] for n in heard_now if n.get("method") == "notifications/progress" and n.get("params", {}).get("progressToken") == token]
        logs = [n["params"] for n in heard_now if n.get("method") == "notifications/message"]
        return ToolResult(result, reports if token is not None else [], logs, self._asked)

    def _asking(self, method: str, params: dict[str, Any], name: str, confirm: bool | None, answers: Answers) -> dict[str, Any]:
        """The result of a request that may ask (``tools/call``, ``prompts/get``): mid-call questions answered as they
        come (2025 era), ``input_required`` rounds retried with the answers (2026-07-28)."""
        self._answer = confirm
        self._unanswered = None
        self._answers = list(answers) if isinstance(answers, (list, tuple)) else answers
        self._asked = []
        try:
            result = self._rounds(method, params, name)
            if self._unanswered is not None:
                if confirm is None and not self._asked:
                    raise ConfirmationRequested(f"{name} asks the user: {self._unanswered!r}; pass confirm=True or False (it was declined)")
                raise InputRequested(f"{name} asks the user: {self._unanswered!r}; pass answers=[...] (it was declined)")
        finally:
            self._answer = None
            self._answers = None
        return result

    def list_prompts(self) -> list[dict[str, Any]]:
        return self.request("prompts/list")["prompts"]

    def get_prompt(self, name: str, /, *, answers: Answers = None, **arguments: Any) -> dict[str, Any]:
        """Get a prompt: ``{"description"?, "messages": [{"role", "content"}]}``. Each argument goes as text, as MCP
        carries it (a value that is not a str as JSON: ``customer_id=42`` sends ``"42"``). `answers` answers the
        questions the prompt asks, as for `call`; a JSON-RPC error raises `McpError`."""
        texts = {key: value if isinstance(value, str) else json.dumps(value) for key, value in arguments.items()}
        return self._asking("prompts/get", {"name": name, "arguments": texts}, name, None, answers)

    def complete(self, ref: dict[str, Any] | str, argument: str, value: str, context: dict[str, str] | None = None) -> dict[str, Any]:
        """``completion/complete`` for `argument` typed so far as `value`: ``{"values", "total"?, "hasMore"}``.
        `ref` is a ``ref`` object, or a prompt's name (``ref/prompt``); `context` the other arguments, as text."""
        reference = {"type": "ref/prompt", "name": ref} if isinstance(ref, str) else ref
        params: dict[str, Any] = {"ref": reference, "argument": {"name": argument, "value": value}}
        if context is not None:
            params["context"] = {"arguments": context}
        return self.request("completion/complete", params)["completion"]

    def _rounds(self, method: str, params: dict[str, Any], name: str) -> dict[str, Any]:
        """The request's result, retried with the answers while it is input_required (2026-07-28)."""
        result = self.request(method, params)
        rounds = 0
        while result.get("resultType") == "input_required":
            rounds += 1
            if rounds > MAX_ROUNDS:
                raise AssertionError(f"{name} kept asking for input ({MAX_ROUNDS} rounds)")
            requests = result.get("inputRequests", {})
            responses = {key: self._input(request["method"], request.get("params") or {}) for key, request in requests.items()}
            result = self.request(method, {**params, "inputResponses": responses, "requestState": result["requestState"]})
        return result

    def list_templates(self) -> list[dict[str, Any]]:
        return self.request("resources/templates/list")["resourceTemplates"]

    def read(self, uri: str, *, answers: Answers = None) -> Any:
        """Read a resource (a template's instance too): its JSON value for ``application/json`` text, else its text
        (str) or its blob (bytes, decoded). `answers` answers what a resource's function asks (as for `call`)."""
        self._answers = list(answers) if isinstance(answers, (list, tuple)) else answers
        self._unanswered = None
        self._asked = []
        try:
            content = self._rounds("resources/read", {"uri": uri}, uri)["contents"][0]
            if self._unanswered is not None:
                raise InputRequested(f"{uri} asks the user: {self._unanswered!r}; pass answers=[...] (it was declined)")
        finally:
            self._answers = None
        if "blob" in content:
            return base64.b64decode(content["blob"])
        if content.get("mimeType", "application/json").split(";")[0].strip() == "application/json":
            return json.loads(content["text"])
        return content["text"]

    def listen(self, *uris: str, lists: Sequence[str] = ()) -> Listen:
        """Subscribe to updates of these resources (a listen stream, or resources/subscribe in the legacy era),
        and to changes of these `lists` ("tools", "resources", "prompts"; the legacy era hears them unasked)."""
        if self.era == "legacy":
            for uri in uris:
                self.request("resources/subscribe", {"uri": uri})
            return Listen(self, None, {"resourceSubscriptions": list(uris)})
        listen_id = f"listen-{next(self._ids)}"
        wanted: dict[str, Any] = {"resourceSubscriptions": list(uris)}
        for kind in lists:
            if kind not in _LIST_FILTER:
                raise ValueError(f"lists: {kind!r} is no list; name some of {', '.join(_LIST_FILTER)}")
            wanted[_LIST_FILTER[kind]] = True
        params = {"_meta": self._meta(), "notifications": wanted}
        self._write(wire.encode({"jsonrpc": "2.0", "id": listen_id, "method": "subscriptions/listen", "params": params}))
        acks = lambda: [n for n in self.notifications_for(listen_id) if n["method"] == "notifications/subscriptions/acknowledged"]  # noqa: E731
        self._wait(lambda: bool(acks()) or listen_id in self._responses, self.timeout, "no acknowledgement of subscriptions/listen")
        with self._cond:
            if listen_id in self._responses:
                error = self._responses.pop(listen_id).get("error", {})
                raise McpError(error.get("code", wire.INTERNAL_ERROR), error.get("message", "listen failed"), error.get("data"))
        return Listen(self, listen_id, acks()[0]["params"]["notifications"])

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
        connection = getattr(self, "_connection", None)
        if connection is not None:
            connection.close()
        process = getattr(self, "_process", None)
        if process is not None:
            process.stdin.close()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WindowPage:
    """One window of the app, driven from a test through JavaScript in its page (`open_window`)."""

    def __init__(self, window: Any) -> None:
        self.window = window

    def js(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        return self.window.eval_json(expression)

    def until(self, expression: str, expected: Any, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until `expression` gives `expected` (a live list arrives a moment after the write).

        Raises:
            AssertionError: it still gives something else after `timeout` seconds.
        """
        deadline = time.monotonic() + timeout
        while (value := self.js(expression)) != expected:
            if time.monotonic() > deadline:
                raise AssertionError(f"{expression} stayed {value!r}, not {expected!r}")
            time.sleep(0.02)

    def type(self, selector: str, text: str) -> None:
        """Put `text` in the field `selector` finds, as typing does (an ``input`` event follows)."""
        self.js(
            f"(field => {{ field.focus(); field.value = {json.dumps(text)}; field.dispatchEvent(new Event('input', {{bubbles: true}})); }})"
            f"(document.querySelector({json.dumps(selector)})), 0"
        )

    def click(self, selector: str) -> None:
        """Click what `selector` finds (a button, a link)."""
        self.js(f"document.querySelector({json.dumps(selector)}).click(), 0")


def chromium_missing() -> str | None:
    """Why `open_window` cannot start Chromium here, with how to get it, or None when it can (to skip a test with)."""
    from rata.errors import WindowError
    from rata.windows.cdp import find_chromium

    try:
        find_chromium()
    except WindowError as error:
        return " ".join(part for part in (error.message, error.hint) if part)
    return None


@contextmanager
def open_window(app: App, label: str = "main") -> Iterator[WindowPage]:
    """The app's frontend in a window of its own headless Chromium, closed (with Chromium) on leaving.

    Its commands run in this process, as the frontend, with the app's database (migrate it first).

    Raises:
        WindowError: Chromium is missing (the message says how to install one or name it with
            ``RATA_CHROMIUM``), or the app has no ``frontend/index.html``.
    """
    from rata.windows.adapter import WindowSpec
    from rata.windows.chromium import ChromiumBackend
    from rata.windows.host import WindowHost

    backend = ChromiumBackend(app.name)
    host = WindowHost(app, backend)
    try:
        yield WindowPage(host.open(WindowSpec(label, title=app.name)))
    finally:
        host.close()
        backend.stop()
