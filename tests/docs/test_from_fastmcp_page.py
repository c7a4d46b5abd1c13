"""docs/from-fastmcp.md: the FastMCP server and its rata port serve the same tools, and the differences the page names
are real (FastMCP 4.1.6, pinned in requirements-test.txt, through its own in-memory client; rata through AgentClient)."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rata.testing import AgentClient, ConfirmationRequested

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "from-fastmcp.md").read_text(encoding="utf-8")
TOOLS = ["notes_add", "notes_delete", "notes_done", "notes_list"]


def load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fastmcp_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    pytest.importorskip("fastmcp", reason="FastMCP is a test dependency: pip install -r requirements-test.txt")
    monkeypatch.chdir(tmp_path)  # the FastMCP example keeps notes.db in the working folder
    module = load(ROOT / "docs" / "examples" / "fastmcp" / "notes_fastmcp.py", "notes_fastmcp")
    yield module.mcp
    module.db.close()


@pytest.fixture
def rata_app(tmp_path: Path) -> Any:
    app = load(ROOT / "docs" / "examples" / "first_app" / "app.py", "notes_rata").app
    app.folder = tmp_path / "data"
    app.migrate()
    yield app
    app.close()


def fastmcp_session(server: Any, *steps: tuple[str, dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """The tools FastMCP lists, and the result of each call, through its own in-memory client."""
    from fastmcp import Client

    async def run() -> tuple[list[Any], list[Any]]:
        async with Client(server) as client:
            tools = await client.list_tools()
            results = [await client.call_tool(name, arguments, raise_on_error=False) for name, arguments in steps]
            return tools, results

    return asyncio.run(run())


def schema_shape(schema: dict[str, Any]) -> dict[str, Any]:
    """What a port must keep of an inputSchema: each parameter's type, bounds, default and description, and which are required."""
    kept = ("type", "minimum", "maximum", "minLength", "maxLength", "default", "description")
    return {
        "properties": {name: {k: v for k, v in prop.items() if k in kept} for name, prop in schema.get("properties", {}).items()},
        "required": sorted(schema.get("required", [])),
    }


def test_both_servers_serve_the_same_four_tools_with_the_same_parameters(fastmcp_server, rata_app):
    theirs, _ = fastmcp_session(fastmcp_server)
    with AgentClient(rata_app) as client:
        ours = client.list_tools()
    assert sorted(tool.name for tool in theirs) == sorted(tool["name"] for tool in ours) == TOOLS
    by_name = {tool["name"]: tool for tool in ours}
    for tool in theirs:
        assert schema_shape(tool.input_schema) == schema_shape(by_name[tool.name]["inputSchema"]), tool.name
        assert tool.description.split("\n")[0] == by_name[tool.name]["description"].split("\n")[0]


def test_both_add_and_list_the_same_notes(fastmcp_server, rata_app):
    _, (added, listed) = fastmcp_session(fastmcp_server, ("notes_add", {"text": "Buy milk"}), ("notes_list", {}))
    with AgentClient(rata_app) as client:
        assert client.call("notes_add", {"text": "Buy milk"}).data == added.structured_content
        assert client.call("notes_list").data == listed.structured_content["result"]


def test_fastmcp_runs_a_destructive_tool_at_once_where_rata_asks_the_user(fastmcp_server, rata_app):
    theirs, (deleted,) = fastmcp_session(fastmcp_server, ("notes_delete", {"id": 1}))
    assert next(tool for tool in theirs if tool.name == "notes_delete").annotations.destructive_hint is True
    assert not deleted.is_error
    with AgentClient(rata_app) as client:
        assert next(tool for tool in client.list_tools() if tool["name"] == "notes_delete")["annotations"]["destructiveHint"] is True
        with pytest.raises(ConfirmationRequested):
            client.call("notes_delete", {"id": 1})
        assert client.call("notes_delete", {"id": 1}, confirm=False).text.startswith("Not confirmed")


def test_a_command_not_granted_is_no_tool_and_inspect_says_why(rata_app, tmp_path):
    from typer.testing import CliRunner

    from rata.cli.main import app

    with AgentClient(rata_app) as client:
        assert "notes_clear" not in [tool["name"] for tool in client.list_tools()]
    notes = str(ROOT / "docs" / "examples" / "first_app")
    shown = CliRunner().invoke(app, ["mcp", "inspect", "--app", notes], env={"RATA_HOME": str(tmp_path), "COLUMNS": "100"})
    assert shown.exit_code == 0, shown.output
    assert "Not exposed to agents:\n  notes_clear  notes.clear is not granted to agents" in shown.output


def test_errors_name_the_field_in_rata_and_carry_the_message_in_fastmcp(fastmcp_server, rata_app):
    _, (missing,) = fastmcp_session(fastmcp_server, ("notes_done", {"id": 9}))
    assert missing.is_error and "there is no note 9" in missing.content[0].text
    with AgentClient(rata_app) as client:
        result = client.call("notes_done", {"id": 9})
    assert result.is_error and "- id: there is no note 9" in result.text and "call it again" in result.text


def test_every_rata_command_the_page_names_exists():
    from typer.testing import CliRunner

    from rata.cli.main import app

    named = set(re.findall(r"`rata ((?:mcp )?[a-z]+)", PAGE))
    assert {"mcp inspect", "mcp install", "mcp pack", "mcp serve", "mcp dev", "dev"} <= named
    for command in sorted(named):
        result = CliRunner().invoke(app, [*command.split(), "--help"])
        assert result.exit_code == 0, f"rata {command}: {result.output}"


@pytest.mark.subprocess
def test_every_fastmcp_command_the_page_names_exists():
    pytest.importorskip("fastmcp", reason="FastMCP is a test dependency: pip install -r requirements-test.txt")
    named = sorted(set(re.findall(r"`fastmcp ((?:install |dev )?[a-z-]+)", PAGE)))
    named += [f"install {client.strip('`')}" for client in re.findall(r"`fastmcp install claude-code`((?:, `[a-z-]+`)+)", PAGE)[0].split(", ")[1:]]
    assert {"run", "inspect", "list", "call", "install claude-desktop", "install claude-code", "install mcp-json", "dev inspector"} <= set(named)
    probe = """
import sys
from fastmcp.cli.cli import app
for words in sys.argv[1:]:
    node = app
    for word in words.split():
        node = node[word]  # a KeyError names a command FastMCP does not have
"""
    done = subprocess.run([sys.executable, "-c", probe, *named], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_what_the_page_says_of_fastmcp_holds_for_the_pinned_version(fastmcp_server):
    """The page's claims about FastMCP 4.1.6: no resource subscriptions, no server-side sampling or roots in Context,
    and `ctx.elicit` unavailable on a 2026-07-28 connection."""
    from fastmcp import Client, Context

    assert "FastMCP 4.1.6 has no resource subscriptions" in PAGE and "no server-side sampling or roots in 4.1.6" in PAGE
    assert not any(hasattr(Context, name) for name in ("sample", "list_roots", "roots"))

    async def ask(ctx: Context) -> str:
        """Ask the user something."""
        return (await ctx.elicit("Go on?", response_type=bool)).action

    ask.__annotations__["ctx"] = Context  # FastMCP resolves annotations in the module's globals; this one is local
    fastmcp_server.tool(ask)

    async def run() -> tuple[Any, Any]:
        async with Client(fastmcp_server) as client:
            return client.server_capabilities, await client.call_tool("ask", {}, raise_on_error=False)

    capabilities, asked = asyncio.run(run())
    assert capabilities.resources.subscribe is False
    assert asked.is_error and "unavailable on 2026-07-28 connections" in asked.content[0].text
