"""The shim across a restart of the app, in-process and without a window: the endpoint closed while ``dev.restarting``
is there (as `rata dev` leaves it), a new app's endpoint opened, the client's session carried over in both eras."""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from rata import App, Mcp, command
from rata.endpoint import MCP, connect
from rata.folder import RESTARTING
from rata.mcp.endpoint_server import serve_agents
from rata.mcp.shim import pipe

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
pytestmark = pytest.mark.usefixtures("endpoint_transport")  # the Unix socket, and the TCP endpoint Windows uses
RELEASE = threading.Event()
STARTED = threading.Event()


@command(can="notes.view", read_only=True)
def notes_count() -> int:
    """Count the notes."""
    return 0


@command(can="notes.view", read_only=True)
def notes_wait() -> str:
    """Wait until the test lets it answer."""
    STARTED.set()
    RELEASE.wait(10)
    return "waited"


@command(can="notes.create")
def notes_add(text: str) -> str:
    """Add a note."""
    return text


def notes(*commands: Any) -> App:
    return App("notes", identifier="com.example.shim-restart").commands(*commands).mcp(Mcp().allow_abilities(["notes.*"]))


class Shim:
    """`pipe` on a thread between two OS pipes, connected to `app`'s endpoint; the client's side as JSON messages."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.endpoint = serve_agents(app)
        self.opened = [app]
        client_read, shim_write = os.pipe()
        shim_read, self._client_write = os.pipe()
        self._stdin, self._stdout = os.fdopen(shim_read, "rb"), os.fdopen(shim_write, "wb")
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ended: list[str] = []
        connection = connect(app.folder, MCP)
        assert connection is not None
        self.thread = threading.Thread(target=lambda: self.ended.append(pipe(connection, self._stdin, self._stdout, app.folder)), daemon=True)
        self.thread.start()
        self._reader = os.fdopen(client_read, "rb")
        self._reading = threading.Thread(target=lambda: [self.messages.put(json.loads(line)) for line in iter(self._reader.readline, b"")], daemon=True)
        self._reading.start()

    def send(self, message: dict[str, Any]) -> None:
        os.write(self._client_write, json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def answer(self, ident: Any) -> dict[str, Any]:
        while True:
            message = self.messages.get(timeout=10)
            if message.get("id") == ident and "method" not in message:
                return message

    def quiet(self, seconds: float = 0.3) -> list[dict[str, Any]]:
        found = []
        try:
            while True:
                found.append(self.messages.get(timeout=seconds))
        except queue.Empty:
            return found

    def restart(self, new: App | None) -> None:
        """What `rata dev` does: the marker, the old app's endpoint closed, the new one's opened, the marker gone."""
        marker = self.app.folder.path / RESTARTING
        marker.write_text("test")
        self.endpoint.close()
        try:
            if new is not None:
                self.endpoint = serve_agents(new)
                self.opened.append(new)
                self.app = new
        finally:
            marker.unlink()

    def close(self) -> None:
        os.close(self._client_write)
        self.thread.join(10)
        self.endpoint.close()
        RELEASE.set()
        for app in self.opened:
            app.close()
        self._stdin.close()
        self._stdout.close()  # the client's reader sees the end
        self._reading.join(10)
        self._reader.close()


@pytest.fixture
def shim() -> Iterator[Shim]:
    RELEASE.clear()
    STARTED.clear()
    made = Shim(notes(notes_count, notes_wait))
    yield made
    made.close()


def names(answer: dict[str, Any]) -> list[str]:
    return sorted(tool["name"] for tool in answer["result"]["tools"])


def test_a_2025_session_is_replayed_and_hears_only_the_list_that_changed(shim):
    shim.send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert shim.answer(1)["result"]["capabilities"]["tools"] == {"listChanged": True}
    shim.send({"method": "notifications/initialized"})
    shim.send({"id": 2, "method": "tools/list"})
    shim.send({"id": 3, "method": "prompts/list"})
    assert names(shim.answer(2)) == ["notes_count", "notes_wait"]
    assert shim.answer(3)["result"]["prompts"] == []
    shim.send({"id": 4, "method": "tools/call", "params": {"name": "notes_wait", "arguments": {}}})
    assert STARTED.wait(10)  # the call runs in the app
    shim.restart(notes(notes_count, notes_wait, notes_add))
    assert shim.answer(4) == {"jsonrpc": "2.0", "id": 4, "error": {"code": -32603, "message": "the app restarted; try again"}}
    assert shim.quiet() == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]  # no second initialize answer, no prompts
    shim.send({"id": 5, "method": "tools/call", "params": {"name": "notes_add", "arguments": {"text": "milk"}}})
    assert shim.answer(5)["result"]["structuredContent"] == {"result": "milk"}  # the new app, in the session's era


def test_a_2026_listen_is_opened_again_and_hears_the_change_tagged_with_its_id(shim):
    shim.send({"id": "watch", "method": "subscriptions/listen", "params": {"_meta": META, "notifications": {"toolsListChanged": True}}})
    assert shim.messages.get(timeout=10)["method"] == "notifications/subscriptions/acknowledged"
    shim.send({"id": 1, "method": "tools/list", "params": {"_meta": META}})
    assert names(shim.answer(1)) == ["notes_count", "notes_wait"]
    shim.restart(notes(notes_count, notes_add))
    assert shim.quiet() == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "watch"}}}
    ]
    shim.send({"id": 2, "method": "tools/list", "params": {"_meta": META}})
    assert names(shim.answer(2)) == ["notes_add", "notes_count"]
    shim.restart(notes(notes_count, notes_add))  # the same lists again: nothing to tell
    assert shim.quiet() == []
    shim.send({"method": "notifications/cancelled", "params": {"requestId": "watch"}})


def test_without_the_marker_the_shim_ends_with_the_app(shim):
    shim.endpoint.close()
    shim.thread.join(10)
    assert shim.ended == ["app closed"]


def test_a_restart_whose_app_never_comes_ends_the_shim_once_rata_dev_gives_up(shim):
    shim.send({"id": 1, "method": "tools/call", "params": {"_meta": META, "name": "notes_wait", "arguments": {}}})
    assert STARTED.wait(10)
    shim.restart(None)
    assert shim.answer(1)["error"]["code"] == -32603
    shim.thread.join(10)
    assert shim.ended == ["app closed"]
