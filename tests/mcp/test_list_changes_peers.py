"""A grant changed in the running server, heard by the official MCP Python SDK client, in both eras.

The app is a console-script server (`main_for(...) --mcp`, a real subprocess) whose agents can
unlock abilities themselves (`notes_unlock`, as a settings screen of the app would): a grant
change at run time. The 2025-era client hears ``notifications/tools/list_changed`` through its
message handler; the 2026-07-28 client on the listen stream it opened (`Client.listen`). Both
clients cache ``tools/list`` (its ``ttlMs``) and drop the cached list on the notification, so
listing again shows the new tool.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ToolsListChanged

from rata.mcp import manifest
from rata.testing import AgentClient
from tests.mcp.peers import MODERN, Heard, search_path

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

QUIET_S = 0.5  # what a server that was going to say something would have said by now (it waits 0.05 s)

NOTES_APP = textwrap.dedent(
    """
    from rata import App, Ctx, Mcp, command


    @command(can="notes.view", read_only=True)
    def notes_count(ctx: Ctx) -> int:
        \"\"\"How many notes there are.\"\"\"
        return 0


    @command(can="notes.unlock")
    def notes_unlock(ctx: Ctx, ability: str) -> list[str]:
        \"\"\"Let agents use one more ability; returns every ability they have.\"\"\"
        app.mcp_config.allow_abilities([ability])
        return app.mcp_config.grant.texts()


    @command(can="notes.purge")
    def notes_purge(ctx: Ctx) -> int:
        \"\"\"Delete every note.\"\"\"
        return 0


    app = App("notes", identifier="com.example.listing-peers").commands(notes_count, notes_unlock, notes_purge)
    app.mcp(Mcp().allow_abilities(["notes.view", "notes.unlock"]))
    """
)


@pytest.fixture
def notes(tmp_path: Path) -> StdioServerParameters:
    package = tmp_path / "src" / "listing_peers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text(NOTES_APP)
    env = {
        "RATA_HOME": str(tmp_path / "home"),
        "PATH": search_path(),
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache"),
        "PYTHONIOENCODING": "utf-8",
    }
    script = "from rata.cli.appmain import main_for; main_for('listing_peers.app:app')"
    return StdioServerParameters(command=sys.executable, args=["-c", script, "--mcp"], env=env)


@asynccontextmanager
async def connected(server: StdioServerParameters, mode: str, handler: Heard | None = None) -> AsyncIterator[Client]:
    client = Client(
        server, mode=mode, message_handler=handler, read_timeout_seconds=10, client_info=types.Implementation(name="rata-list-tests", version="1.0")
    )
    async with client:
        yield client


async def tool_names(client: Client) -> list[str]:
    return sorted(tool.name for tool in (await client.list_tools()).tools)


async def test_the_sdk_client_in_the_2025_era_hears_the_tools_changed_and_lists_the_new_one(notes):
    heard = Heard()
    with anyio.fail_after(30):
        async with connected(notes, "legacy", heard) as client:
            assert client.server_capabilities.tools.list_changed is True
            assert await tool_names(client) == ["notes_count", "notes_unlock"]
            assert not (await client.call_tool("notes_unlock", {"ability": "notes.purge"})).is_error
            with anyio.fail_after(5):
                await heard.event.wait()
            assert await tool_names(client) == ["notes_count", "notes_purge", "notes_unlock"]  # its cached list was dropped
            await anyio.sleep(QUIET_S)
    assert heard.lists == ["notifications/tools/list_changed"]


async def test_a_change_that_changes_no_list_is_not_announced(notes):
    heard = Heard()
    with anyio.fail_after(30):
        async with connected(notes, "legacy", heard) as client:
            assert not (await client.call_tool("notes_unlock", {"ability": "notes.view"})).is_error  # granted already
            assert not (await client.call_tool("notes_unlock", {"ability": "billing.view"})).is_error  # no such command
            await anyio.sleep(QUIET_S)
            assert await tool_names(client) == ["notes_count", "notes_unlock"]
    assert heard.lists == []


async def test_the_sdk_client_in_2026_07_28_hears_it_on_the_listen_that_asked_and_not_on_one_that_did_not(notes):
    with anyio.fail_after(30):
        async with connected(notes, MODERN) as client:
            assert await tool_names(client) == ["notes_count", "notes_unlock"]
            async with client.listen(tools_list_changed=True) as tools, client.listen(resources_list_changed=True) as resources:
                assert tools.honored.tools_list_changed is True
                assert resources.honored.resources_list_changed is True and not resources.honored.tools_list_changed
                assert not (await client.call_tool("notes_unlock", {"ability": "notes.purge"})).is_error
                with anyio.fail_after(5):
                    event = await anext(aiter(tools))
                assert event == ToolsListChanged()
                assert await tool_names(client) == ["notes_count", "notes_purge", "notes_unlock"]
                others: list[Any] = []
                with anyio.move_on_after(QUIET_S):
                    async for other in resources:
                        others.append(other)  # noqa: PERF401 - a comprehension would lose what came before the timeout cancels it
                assert others == []  # it asked for resource list changes, and the resources did not change


def test_on_the_wire_the_listen_hears_it_tagged_with_its_id_and_the_manifest_follows(notes):
    env = {**os.environ, **notes.env}
    with AgentClient.spawn([notes.command, *notes.args], env=env) as client, client.listen(lists=["tools", "resources", "prompts"]) as listen:
        assert listen.honored == {"toolsListChanged": True, "resourcesListChanged": True, "promptsListChanged": True, "resourceSubscriptions": []}
        client.call("notes_unlock", {"ability": "notes.purge"})
        listen.wait_for_list_change("tools")
        heard = [n for n in client.notifications_for(listen.id) if n["method"].endswith("list_changed")]
        assert heard == [
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": listen.id}}}
        ]
    prefix = Path(notes.env["PYTHONPYCACHEPREFIX"])
    written = list(prefix.rglob(f"*{manifest.SUFFIX}"))
    assert len(written) == 1
    offer = json.loads(written[0].read_text())["offer"]
    assert sorted(tool["name"] for tool in offer["tools"]["modern"]) == ["notes_count", "notes_purge", "notes_unlock"]  # what the server listed last
