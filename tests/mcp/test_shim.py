"""`crm --mcp`, the shim, for real: the running app in the background, the official SDK client in front.

Every test runs over both endpoint transports (`endpoint_transport`): the Unix socket, and the TCP endpoint Windows uses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated

from rata.endpoint import MCP, address_path
from rata.folder import AppFolder
from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.mcp.peers import INDEX_URI, MODERN, TOOL_NAMES, Background, crm_command, crm_home, migrated_folder  # noqa: F401 - fixtures
from tests.mcp.test_sdk_peer import connected, index, server, store, text_of

pytestmark = [pytest.mark.subprocess, pytest.mark.usefixtures("endpoint_transport")]

ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}
GRACE = {"name": "Grace Hopper", "email": "grace@example.com"}
CONNECTED = "crm: connected to the running app; the agent works in it"
HEADLESS = "crm: no running app; serving MCP headless (no window)"


class Running(Background):
    """`crm --headless` in the background, as a user would leave it running."""

    def __init__(self, home: Path) -> None:
        self.home = home
        super().__init__([*crm_command()[:-1], "--headless"], subprocess_env(home), ready="is running headless")


@pytest.fixture
def running(crm_home: Path) -> Iterator[Running]:
    app = Running(crm_home)
    yield app
    app.stop()


class ShimClient(AgentClient):
    """The test client of `crm --mcp`, with what the process said on stderr once it stopped."""

    stderr = ""


@contextmanager
def shim(home: Path, era: str = "modern") -> Iterator[ShimClient]:
    """`crm --mcp` under the test client; its stderr is kept in `client.stderr` after the block."""
    client = ShimClient.spawn(crm_command(), env=subprocess_env(home), stderr=subprocess.PIPE, era=era)
    try:
        yield client
    finally:
        client._process.stdin.close()
        client._process.wait(10)
        client.stderr = client._process.stderr.read().decode()
        client._process.stderr.close()
        client._process.stdout.close()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", MODERN, "legacy"])
async def test_the_sdk_client_stores_a_customer_in_the_running_app_and_a_second_agent_hears_it(running, mode):
    with anyio.fail_after(30):
        async with connected(running.home, "auto") as watcher, watcher.listen(resource_subscriptions=[INDEX_URI]) as stream:
            async with connected(running.home, mode) as agent:
                assert sorted(tool.name for tool in (await agent.list_tools()).tools) == TOOL_NAMES
                stored = await store(agent)
                assert stored["email"] == ADA["email"]
            with anyio.fail_after(5):
                event = await anext(stream)
            assert event == ResourceUpdated(uri=INDEX_URI)
            assert [customer["name"] for customer in await index(watcher)] == ["Ada Lovelace"]


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:resources/subscribe is removed as of 2026-07-28")  # the legacy era is what this test is about
async def test_the_sdk_client_in_the_legacy_era_subscribes_through_the_shim(running):
    updates: list[str] = []
    heard = anyio.Event()

    async def on_message(message: Any) -> None:
        notification = getattr(message, "root", message)
        if isinstance(notification, types.ResourceUpdatedNotification):
            updates.append(str(notification.params.uri))
            heard.set()

    watcher = Client(server(running.home), mode="legacy", message_handler=on_message, read_timeout_seconds=10)
    with anyio.fail_after(30):
        async with watcher, connected(running.home, MODERN) as writer:
            await watcher.subscribe_resource(INDEX_URI)
            await store(writer, GRACE)
            with anyio.fail_after(5):
                await heard.wait()
            result = await writer.call_tool("customers_store", {"name": "Again", "email": GRACE["email"]})
    assert updates == [INDEX_URI]
    assert result.is_error and "has already been taken" in text_of(result)


def test_the_shim_says_on_stderr_that_it_connected_and_keeps_stdout_for_the_protocol(running):
    with shim(running.home) as agent:
        assert agent.call("customers_store", ADA).data["id"] == 1
    assert CONNECTED in agent.stderr
    assert HEADLESS not in agent.stderr


def test_the_agent_sees_the_same_tools_and_results_through_the_shim_and_headless(crm_home: Path, tmp_path: Path):
    import shutil

    alone = tmp_path / "alone"
    shutil.copytree(crm_home, alone)
    for era in ("modern", "legacy"):
        with shim(alone, era) as headless:
            tools_headless, stored_headless = headless.list_tools(), headless.call("customers_store", {**ADA, "email": f"{era}@example.com"}).raw
        assert HEADLESS in headless.stderr
        app = Running(crm_home)
        try:
            with shim(crm_home, era) as through:
                tools_through, stored_through = through.list_tools(), through.call("customers_store", {**ADA, "email": f"{era}@example.com"}).raw
            assert CONNECTED in through.stderr
        finally:
            app.stop()
        assert tools_through == tools_headless
        for result in (stored_headless, stored_through):
            result["structuredContent"].pop("created_at")
            result.pop("content")
        assert stored_through == stored_headless


def test_a_killed_app_leaves_a_stale_socket_the_shim_falls_back_and_the_next_start_recovers(crm_home: Path):
    first = Running(crm_home)
    first.stop(signal.SIGKILL)
    assert address_path(AppFolder(crm_home), MCP).exists()  # what a crash leaves behind: a socket, or a port file
    with shim(crm_home) as agent:
        assert [tool["name"] for tool in agent.list_tools()] == TOOL_NAMES
    assert HEADLESS in agent.stderr
    second = Running(crm_home)
    try:
        with shim(crm_home) as agent:
            assert agent.call("customers_store", ADA).data["email"] == ADA["email"]
        assert CONNECTED in agent.stderr
    finally:
        second.stop()


def test_stopping_the_app_ends_the_shim_and_removes_the_endpoint(crm_home: Path):
    app = Running(crm_home)
    client = AgentClient.spawn(crm_command(), env=subprocess_env(crm_home), stderr=subprocess.PIPE)
    try:
        assert client.list_tools()
        said = app.stop()
        assert client._process.wait(10) == 0
        assert "the running app closed the connection" in client._process.stderr.read().decode()
    finally:
        client._process.kill()
        client.close()
        client._process.stderr.close()
    assert "crm stopped" in said
    assert not address_path(AppFolder(crm_home), MCP).exists()


def test_a_second_headless_start_is_refused_while_the_first_runs(running):
    result = subprocess.run([*crm_command()[:-1], "--headless"], capture_output=True, text=True, env=subprocess_env(running.home), timeout=30)
    assert result.returncode == 1
    assert "Another running copy of this app already serves RATA-MCP/1" in result.stderr
    with shim(running.home) as agent:
        assert agent.list_tools()
    assert CONNECTED in agent.stderr


def test_a_shim_with_the_wrong_token_is_refused_by_the_app_and_falls_back(running, tmp_path: Path):
    (running.home / "instance.token").rename(running.home / "instance.token.real")
    (running.home / "instance.token").write_text("not-the-token\n")
    os.chmod(running.home / "instance.token", 0o600)
    try:
        with shim(running.home) as agent:
            assert agent.list_tools()
    finally:
        (running.home / "instance.token.real").replace(running.home / "instance.token")
    assert "crm: not using the running app: The running app at" in agent.stderr
    assert "refused the connection: wrong answer" in agent.stderr
    assert HEADLESS in agent.stderr
    log = (running.home / "logs").glob("*.log")
    entries = [json.loads(line) for file in log for line in file.read_text().splitlines()]
    assert any("wrong answer to the challenge" in entry["message"] for entry in entries if entry.get("logger") == "rata.endpoint")


def test_the_shim_writes_the_manifest_and_then_pipes_without_importing_the_app(running, tmp_path):
    """The manifest tells the shim where the app's folder is, so it connects before any of crm's code loads."""
    prefix = tmp_path / "pycache"
    env = subprocess_env(running.home, PYTHONPYCACHEPREFIX=str(prefix))
    with AgentClient.spawn(crm_command(), env=env, stderr=subprocess.DEVNULL) as first:
        first.list_tools()
    manifests = list(prefix.rglob("*.rata-mcp.json"))
    assert len(manifests) == 1  # written while the first shim piped
    traced = subprocess.run(crm_command(), input=b"", capture_output=True, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, timeout=30)
    said = traced.stderr.decode()
    assert CONNECTED in said
    imported = {line.rsplit("|", 1)[-1].strip() for line in said.splitlines() if line.startswith("import time:")}
    assert "rata.mcp.shim" in imported
    assert not {"crm.app", "rata.app", "sqlite3"} & imported
