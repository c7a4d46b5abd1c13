"""The window tools end to end: `rata dev --headless` on the crm example, the official SDK client on `rata mcp dev`."""

from __future__ import annotations

import base64
import re
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import subprocess_env
from tests.mcp.peers import Background, crm_command, crm_home, migrated_folder, search_path  # noqa: F401 - fixtures
from tests.windows.shared import require_chromium

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

RATA = str(Path(sys.executable).parent / "rata")
APP = "crm.app:app"
SECONDS = 60


class DevBuild(Background):
    """`rata dev --headless` in the background."""

    def __init__(self, home: Path) -> None:
        super().__init__([RATA, "dev", "--headless", "--app", APP], subprocess_env(home), ready="is running in dev mode")


@pytest.fixture(autouse=True)
def chromium() -> str:
    """`rata dev --headless` needs Chromium: skipped locally without it, a failure in CI."""
    return require_chromium()


@pytest.fixture
def dev_build(crm_home: Path) -> Iterator[DevBuild]:
    build = DevBuild(crm_home)
    yield build
    build.stop()


def dev_server(home: Path) -> StdioServerParameters:
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    return StdioServerParameters(command=RATA, args=["mcp", "dev", "--app", APP], env=env)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def ref_of(snapshot: str, pattern: str) -> str:
    """The ref on the first line matching `pattern` (a regex), e.g. ref_of(s, r'button "New customer"')."""
    for line in snapshot.splitlines():
        if re.search(pattern, line):
            found = re.search(r"\[ref=(e\d+)\]", line)
            if found:
                return found.group(1)
    raise AssertionError(f"no line with a ref matches {pattern!r} in:\n{snapshot}")


async def tool(client: Client, name: str, **arguments: object) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def tool_error(client: Client, name: str, **arguments: object) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, text_of(result)
    return text_of(result)


async def test_an_agent_sees_and_uses_the_crm_window_through_rata_mcp_dev(dev_build, crm_home):
    with anyio.fail_after(SECONDS):
        async with Client(dev_server(crm_home), read_timeout_seconds=30) as client:
            listed = await client.call_tool("app_windows", {})
            main = {"label": "main", "title": "CRM", "route": "/", "width": 1024, "height": 720, "shown": True}
            assert listed.structured_content in ({"result": [main]}, [main])
            assert text_of(listed) == 'main "CRM" route / 1024x720 shown'

            first = await tool(client, "window_snapshot")
            assert first.startswith("window: main  route: /  title: CRM\n")
            assert 'heading "Customers" [level=1]' in first
            assert "customers_index" in first.split("showing (live queries, newest first):")[1]

            searched = await tool(client, "window_act", action="type", ref=ref_of(first, r'searchbox "Search"'), text="nobody")
            assert "Did: type" in searched
            assert re.search(r'customers_index \{[^\n]*"search":"nobody"', searched), searched
            cleared = await tool(client, "window_act", action="type", ref=ref_of(searched, r'searchbox "Search"'), text="")

            opened = await tool(client, "window_act", action="click", ref=ref_of(cleared, r'button "New customer"'))
            assert 'dialog "New customer"' in opened
            named = await tool(client, "window_act", action="type", ref=ref_of(opened, r'textbox "Name"'), text="Ada Lovelace")
            mailed = await tool(client, "window_act", action="type", ref=ref_of(named, r'textbox "Email"'), text="ada@example.com")
            save = ref_of(mailed, r'button "Add customer"')
            stored = await tool(client, "window_act", action="click", ref=save)
            assert re.search(r"Ran: .*customers_store \d+ ms ok", stored), stored
            assert 'row "Ada Lovelace ada@example.com' in stored or ("Ada Lovelace" in stored and "ada@example.com" in stored), stored
            assert "did not settle" not in stored

            calls = await client.call_tool("app_calls", {"window": "main"})
            rows = calls.structured_content["calls"]
            store = [row for row in rows if row["command"] == "customers_store"]
            assert len(store) == 1 and store[0]["ok"] is True and store[0]["args"] == [
                {"name": "name", "value": "Ada Lovelace"},
                {"name": "email", "value": "ada@example.com"},
            ]
            assert re.search(
                rf'^#{store[0]["seq"]} \d\d:\d\d:\d\d main customers_store\(name="Ada Lovelace", email="ada@example.com"\) \d+ ms ok$', text_of(calls), re.M
            )
            assert not text_of(calls).lstrip().startswith(("{", "["))

            every = (await client.call_tool("app_calls", {"limit": 200})).structured_content
            assert every["next_before"] is None and every["note"] == ""
            followed, arguments = [], {"limit": 2}
            while True:  # two at a time, older and older, until none is left
                part = (await client.call_tool("app_calls", arguments)).structured_content
                followed = part["calls"] + followed
                if part["next_before"] is None:
                    break
                assert f'Get them with app_calls {{"limit": 2, "before": {part["next_before"]}}}' in part["note"]
                arguments = {"limit": 2, "before": part["next_before"]}
            assert [row["seq"] for row in followed] == [row["seq"] for row in every["calls"]] and len(followed) > 4

            picture = await client.call_tool("window_screenshot", {})
            assert not picture.is_error
            image = next(block for block in picture.content if isinstance(block, types.ImageContent))
            png = base64.b64decode(image.data)
            assert image.mime_type == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", png[16:24])
            assert 0 < width <= 1280 and height > 0

            stale = await tool_error(client, "window_act", action="click", ref=save)  # the dialog's button is gone now
            assert "snapshot" in stale.lower()
            unknown = await tool_error(client, "window_snapshot", window="settings")
            assert "There is no window labelled 'settings'" in unknown and "Open windows: main" in unknown


async def test_without_a_debug_build_the_window_tools_say_how_to_start_one(crm_home):
    with anyio.fail_after(SECONDS):
        async with Client(dev_server(crm_home), read_timeout_seconds=30) as client:
            calls = {"app_windows": {}, "window_snapshot": {}, "window_act": {"action": "click", "ref": "e1"}, "window_screenshot": {}, "app_calls": {}}
            for name, arguments in calls.items():
                message = await tool_error(client, name, **arguments)
                assert "No debug build of crm is running" in message and "`rata dev`" in message, message
            assert "crm" in await tool(client, "app_info")  # the other tools work as before


async def test_a_normal_start_has_no_dev_socket(crm_home):
    running = Background([*crm_command()[:-1], "--headless"], subprocess_env(crm_home), ready="is running headless")
    try:
        assert (crm_home / "mcp.sock").exists() or (crm_home / "mcp.port").exists()  # the .port: RATA_ENDPOINT=tcp, as on Windows
        assert not (crm_home / "dev.sock").exists() and not (crm_home / "dev.port").exists()
    finally:
        running.stop()


async def test_an_agent_writing_through_crm_mcp_updates_the_open_window(dev_build, crm_home):
    from rata.testing import AgentClient

    with AgentClient.spawn(crm_command(), env=subprocess_env(crm_home), stderr=subprocess.DEVNULL) as agent:
        stored = agent.call("customers_store", {"name": "Grace Hopper", "email": "grace@example.com"})
        assert not stored.is_error, stored.text
    with anyio.fail_after(SECONDS):
        async with Client(dev_server(crm_home), read_timeout_seconds=30) as client:
            for _ in range(50):  # the live re-delivery is asynchronous: give it a moment
                seen = await tool(client, "window_snapshot")
                if "Grace Hopper" in seen:
                    break
                await anyio.sleep(0.1)
    assert 'cell "Grace Hopper"' in seen and 'cell "grace@example.com"' in seen
    assert "An agent called customers_store" in seen  # the page heard it on the rata:mcp channel
