"""`rata dev` restarts the app when its code changes, and an agent connected through the shim keeps its session.

A real `rata dev --headless` on a scratch project, a real shim (`rata mcp serve --app ...`, what
`crm --mcp` runs) connected to it, driven by the official MCP SDK client in both eras and on the
raw wire. Adding a command to the app's file restarts the app; the client hears that the tool list
changed and lists the new tool. A broken edit is reported by `rata dev` and the old app serves on.
A call in flight when the app stops gets -32603. Every wait has a bound.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ToolsListChanged

from rata.folder import RESTARTING
from tests.mcp.peers import MODERN, Heard, project_env
from tests.windows.shared import require_chromium

pytestmark = [pytest.mark.subprocess]

RATA = str(Path(sys.executable).parent / "rata")
START_S = 60.0  # `rata dev` up, or restarted (Chromium included), on a loaded machine
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}

APP = '''\
"""A scratch app for the reload tests."""

import time

from rata import App, Mcp, command


@command(can="notes.view", read_only=True)
def notes_count() -> int:
    """Count the notes."""
    return 0


@command(can="notes.view", read_only=True)
def notes_wait(seconds: float) -> str:
    """Wait a while, then answer."""
    time.sleep(seconds)
    return "waited"

{extra}
app = App("notes", identifier="test.reload.{package}", version="1.0.0").commands({commands}).mcp(Mcp().allow_abilities(["notes.*"]))
'''

NOTES_ADD = '''
@command(can="notes.create")
def notes_add(text: str) -> str:
    """Add a note."""
    return f"added {text}"

'''


class Project:
    """A scratch project, its `rata dev --headless` (stderr collected as it comes) and what a shim needs to reach it."""

    def __init__(self, root: Path, package: str) -> None:
        self.root, self.package = root, package
        self.file = root / package / "app.py"
        self.home = root / "home"
        self.env = {**project_env(root, self.home), "TMPDIR": os.environ.get("TMPDIR", "/tmp")}
        self.said: list[str] = []
        self.dev: subprocess.Popen[bytes] | None = None

    def write(self, extra: str = "", commands: str = "notes_count, notes_wait") -> None:
        before = self.file.stat().st_mtime_ns if self.file.exists() else 0
        self.file.write_text(APP.format(extra=extra, commands=commands, package=self.package), encoding="utf-8")
        stat = self.file.stat()
        if stat.st_mtime_ns <= before:  # a coarse clock: make the change visible
            os.utime(self.file, ns=(stat.st_atime_ns, before + 1_000_000_000))

    def start(self) -> None:
        env = {**os.environ, **self.env}
        self.dev = subprocess.Popen([RATA, "dev", "--headless"], cwd=self.root, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stderr = self.dev.stderr
        assert stderr is not None
        self.reader = threading.Thread(target=lambda: self.said.extend(line.decode("utf-8", "replace") for line in iter(stderr.readline, b"")), daemon=True)
        self.reader.start()
        self.wait_for("is running in dev mode")

    def wait_for(self, text: str, count: int = 1) -> None:
        deadline = time.monotonic() + START_S
        while sum(text in line for line in self.said) < count:
            assert self.dev is not None and self.dev.poll() is None, "".join(self.said)
            assert time.monotonic() < deadline, f"never said {text!r}: {''.join(self.said)}"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.dev is not None and self.dev.stderr is not None and not self.dev.stderr.closed:
            self.dev.terminate()
            try:
                assert self.dev.wait(10) == 143, "".join(self.said)
            finally:
                if self.dev.poll() is None:
                    self.dev.kill()
                    self.dev.wait()
                self.reader.join(5)
                self.dev.stderr.close()
        assert not (self.home / RESTARTING).exists()

    def shim(self) -> list[str]:
        return [RATA, "mcp", "serve", "--app", f"{self.package}.app:app"]


@pytest.fixture
def project(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Project]:
    require_chromium()
    package = f"reloadnotes_{request.node.name.split('[')[-1].strip(']').replace('-', '_')}"
    root = tmp_path / "project"
    (root / package / "frontend").mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / "frontend" / "index.html").write_text("<!doctype html><title>notes</title><p>notes</p>\n")
    (root / "pyproject.toml").write_text(f'[project]\nname = "{package}"\nversion = "1.0.0"\n\n[tool.rata]\napp = "{package}.app:app"\n')
    made = Project(root, package)
    made.write()
    made.start()
    try:
        yield made
    finally:
        made.stop()


def client(project: Project, mode: str, handler: Heard | None = None) -> Client:
    command = project.shim()
    server = StdioServerParameters(command=command[0], args=command[1:], env=project.env, cwd=str(project.root))
    return Client(
        server, mode=mode, message_handler=handler, read_timeout_seconds=30, client_info=types.Implementation(name="rata-reload-tests", version="1.0")
    )


async def tool_names(client: Client) -> list[str]:
    return sorted(tool.name for tool in (await client.list_tools()).tools)


@pytest.mark.anyio
async def test_a_2025_client_hears_the_command_added_and_a_broken_edit_leaves_the_app_serving(project):
    heard = Heard()
    with anyio.fail_after(2 * START_S):
        async with client(project, "legacy", heard) as agent:
            assert await tool_names(agent) == ["notes_count", "notes_wait"]
            project.write(NOTES_ADD, "notes_count, notes_wait, notes_add")
            with anyio.fail_after(START_S):
                await heard.event.wait()
            assert heard.lists == ["notifications/tools/list_changed"]  # the shim asked again: only the tools changed
            assert await tool_names(agent) == ["notes_add", "notes_count", "notes_wait"]
            added = await agent.call_tool("notes_add", {"text": "milk"})
            assert (added.is_error, added.structured_content) == (False, {"result": "added milk"})

            project.file.write_text(project.file.read_text() + "\ndef broken(:\n")
            project.wait_for("does not load now")
            problem = "".join(project.said)
            assert "the previous version keeps running" in problem and f"{project.file}:" in problem and "syntax error" in problem, problem
            assert await tool_names(agent) == ["notes_add", "notes_count", "notes_wait"]  # the old app serves on, the session too
            assert (await agent.call_tool("notes_count", {})).structured_content == {"result": 0}
    assert project.said.count(next(line for line in project.said if "restarting" in line)) == 1


@pytest.mark.anyio
async def test_a_2026_client_hears_it_on_its_listen_and_lists_the_new_tool(project):
    with anyio.fail_after(2 * START_S):
        async with client(project, MODERN) as agent:
            assert await tool_names(agent) == ["notes_count", "notes_wait"]
            async with agent.listen(tools_list_changed=True) as tools:
                assert tools.honored.tools_list_changed is True
                project.write(NOTES_ADD, "notes_count, notes_wait, notes_add")
                with anyio.fail_after(START_S):
                    event = await anext(aiter(tools))
                assert event == ToolsListChanged()
                assert await tool_names(agent) == ["notes_add", "notes_count", "notes_wait"]
                added = await agent.call_tool("notes_add", {"text": "milk"})
                assert (added.is_error, added.structured_content) == (False, "added milk")  # 2026-07-28: the value as is


class Wire:
    """The shim on the raw wire: lines in, parsed messages out (a reader thread), every read with a timeout."""

    def __init__(self, project: Project) -> None:
        self.process = subprocess.Popen(
            project.shim(), cwd=project.root, env={**os.environ, **project.env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        stdout = self.process.stdout
        assert stdout is not None
        self.reader = threading.Thread(target=lambda: [self.messages.put(json.loads(line)) for line in iter(stdout.readline, b"")], daemon=True)
        self.reader.start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def next(self, timeout: float = START_S) -> dict[str, Any]:
        return self.messages.get(timeout=timeout)

    def answer(self, ident: Any) -> dict[str, Any]:
        while True:
            message = self.next()
            if message.get("id") == ident and "method" not in message:
                return message

    def quiet(self, seconds: float) -> list[dict[str, Any]]:
        found = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                found.append(self.next(left))
            except queue.Empty:
                break
        return found

    def close(self) -> None:
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.reader.join(5)
            assert self.process.stdout is not None
            self.process.stdout.close()


def test_on_the_wire_a_call_in_flight_gets_an_error_and_the_listen_hears_only_the_tools_tagged_with_its_id(project):
    wire = Wire(project)
    try:
        asked = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
        wire.send({"id": "watch", "method": "subscriptions/listen", "params": {"_meta": META, "notifications": asked}})
        ack = wire.next()
        assert ack["method"] == "notifications/subscriptions/acknowledged" and ack["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": "watch"}
        for ident, method in enumerate(("tools/list", "prompts/list", "resources/list"), start=1):
            wire.send({"id": ident, "method": method, "params": {"_meta": META}})
            assert "result" in wire.answer(ident)
        wire.send({"id": 9, "method": "tools/call", "params": {"_meta": META, "name": "notes_wait", "arguments": {"seconds": 30}}})
        time.sleep(0.5)  # the call is running in the app
        project.write(NOTES_ADD, "notes_count, notes_wait, notes_add")
        assert wire.answer(9) == {"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "the app restarted; try again"}}
        changed = wire.next()
        assert changed == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "watch"}},
        }
        assert wire.quiet(1.0) == []  # prompts and resources did not change; the new app's acknowledgement is not passed on
        wire.send({"id": 10, "method": "tools/list", "params": {"_meta": META}})
        assert sorted(tool["name"] for tool in wire.answer(10)["result"]["tools"]) == ["notes_add", "notes_count", "notes_wait"]
        wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "watch"}})
    finally:
        wire.close()


def test_without_a_restart_under_way_the_shim_ends_with_the_app(project):
    wire = Wire(project)
    try:
        wire.send({"id": 1, "method": "tools/list", "params": {"_meta": META}})
        assert "result" in wire.answer(1)
        project.stop()
        assert wire.process.wait(10) == 0  # the client sees its server exit, as before
    finally:
        wire.close()
