"""The official MCP Python SDK (mcp 2.3.0) as the client, against `crm --mcp` as a real subprocess.

Every test runs in the SDK's three modes: "auto" (probes server/discover, adopts 2026-07-28),
"2026-07-28" (pinned, no probe) and "legacy" (the 2025-11-25 initialize handshake). The SDK
validates every 2026 result strictly, and structured content against each tool's outputSchema.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated

from tests.mcp.peers import INDEX_URI, LEGACY, MODERN, TOOL_NAMES, crm_command, crm_home, migrated_folder, search_path  # noqa: F401 - fixtures
from tests.mcp.sdk_types import text

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

MODES = ["auto", MODERN, "legacy"]
TEST_SECONDS = 20
ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def modern(mode: str) -> bool:
    return mode != "legacy"


def server(home: Path) -> StdioServerParameters:
    """`crm --mcp` with an explicit environment: the SDK passes the child only a few variables of its own."""
    command = crm_command()
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


class Answers:
    """An elicitation callback that gives one fixed answer and remembers what it was asked."""

    def __init__(self, action: Literal["accept", "decline", "cancel"], content: dict[str, Any] | None = None) -> None:
        self.action: Literal["accept", "decline", "cancel"] = action
        self.content = content
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        return types.ElicitResult(action=self.action, content=self.content)


@asynccontextmanager
async def connected(home: Path, mode: str, elicit: Answers | None = None) -> AsyncIterator[Client]:
    client = Client(
        server(home),
        mode=mode,
        elicitation_callback=elicit,
        read_timeout_seconds=10,
        client_info=types.Implementation(name="rata-peer-tests", version="1.0"),
    )
    async with client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def store(client: Client, customer: dict[str, str] = ADA) -> dict[str, Any]:
    result = await client.call_tool("customers_store", customer)
    assert not result.is_error, text_of(result)
    return result.structured_content


async def index(client: Client) -> list[dict[str, Any]]:
    result = await client.read_resource(INDEX_URI)
    return json.loads(text(result.contents[0]))


async def test_the_client_settles_on_2026_07_28_unless_it_asks_for_legacy(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            assert client.protocol_version == (MODERN if modern(mode) else LEGACY)
            if mode != MODERN:  # a pinned client never hears from the server before its first call
                assert client.server_info is not None and client.server_info.name == "crm"


async def test_auto_mode_connects_well_under_the_discover_timeout(crm_home):
    with anyio.fail_after(TEST_SECONDS):
        started = time.monotonic()
        async with connected(crm_home, "auto") as client:
            connected_after = time.monotonic() - started
            assert client.protocol_version == MODERN
    assert connected_after < 3, f"auto mode took {connected_after:.1f} s: the server/discover probe went unanswered"


async def test_the_tools_are_the_four_granted_commands(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            listed = await client.list_tools()
    assert sorted(tool.name for tool in listed.tools) == TOOL_NAMES


async def test_storing_a_customer_returns_it_as_structured_content(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            result = await client.call_tool("customers_store", ADA)
    assert result.is_error is False, text_of(result)
    customer = result.structured_content
    assert customer == {"id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "created_at": customer["created_at"]}
    assert json.loads(text_of(result)) == customer


async def test_a_list_result_is_structured_content_as_is_and_wrapped_under_result_in_legacy(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            ada = await store(client)
            result = await client.call_tool("customers_index", {})
    assert result.is_error is False, text_of(result)
    assert result.structured_content == ([ada] if modern(mode) else {"result": [ada]})
    assert json.loads(text_of(result)) == [ada]


async def test_a_bad_email_is_a_tool_error_that_names_the_field(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            result = await client.call_tool("customers_store", {"name": "Ada", "email": "not an email"})
            assert await index(client) == []
    assert result.is_error is True
    assert "email:" in text_of(result)  # the field, by name, with its message


async def test_a_delete_the_user_accepts_removes_the_customer(crm_home, mode):
    answers = Answers("accept", {"confirm": True})
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode, answers) as client:
            ada = await store(client)
            result = await client.call_tool("customers_delete", {"id": ada["id"]})
            assert result.is_error is False, text_of(result)
            assert await index(client) == []
    assert len(answers.asked) == 1
    assert answers.asked[0].message


async def test_a_delete_the_user_declines_is_a_tool_error_and_keeps_the_customer(crm_home, mode):
    answers = Answers("decline")
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode, answers) as client:
            ada = await store(client)
            result = await client.call_tool("customers_delete", {"id": ada["id"]})
            assert await index(client) == [ada]
    assert len(answers.asked) == 1
    assert result.is_error is True
    assert "not confirmed" in text_of(result).lower()


async def test_a_client_that_cannot_elicit_cannot_delete(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            ada = await store(client)
            if modern(mode):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("customers_delete", {"id": ada["id"]})
                assert refused.value.code == -32021
                assert refused.value.data == {"requiredCapabilities": {"elicitation": {}}}
            else:
                result = await client.call_tool("customers_delete", {"id": ada["id"]})
                assert result.is_error is True
                assert "cannot ask" in text_of(result)
            assert await index(client) == [ada]


async def test_the_index_resource_reads_as_the_customer_list_in_json(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            resources = await client.list_resources()
            assert [str(resource.uri) for resource in resources.resources] == [INDEX_URI]
            ada = await store(client)
            read = await client.read_resource(INDEX_URI)
    (content,) = read.contents
    assert str(content.uri) == INDEX_URI and content.mime_type == "application/json"
    assert json.loads(text(content)) == [ada]


@pytest.mark.parametrize("mode", ["auto", MODERN])
async def test_a_listen_echoes_the_subscription_and_reports_a_write_to_the_index(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client, client.listen(resource_subscriptions=[INDEX_URI, "app://nope"]) as subscription:
            assert subscription.honored.resource_subscriptions == [INDEX_URI]
            await store(client)
            with anyio.fail_after(5):
                event = await anext(subscription)
    assert event == ResourceUpdated(uri=INDEX_URI)
