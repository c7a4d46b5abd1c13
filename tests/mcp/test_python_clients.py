"""Python agent frameworks as the client: openai-agents, pydantic-ai and fastmcp's `Client`.

Each spawns `crm --mcp` and `rata mcp dev` as real stdio subprocesses, lists their tools, converts
every served input and output schema as it would for an OpenAI model in strict mode, and calls a
tool whose answer carries the customers seeded in the app's database. openai-agents==0.24.0,
pydantic-ai-slim[mcp]==2.68.0 and fastmcp==4.1.6 are pinned in requirements-test.txt: without them
these tests skip, except in CI (CI=true) or with RATA_PEERS_REQUIRED=1, where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.codegen.strict_conversions import assert_converts_to_strict, peer, refused_by_agents, untyped
from tests.codegen.test_strict_converters import CATALOGS, NOT_YET_STRICT
from tests.dev_server.helpers import CUSTOMERS, seed_crm
from tests.mcp.peers import MODERN, crm_command, search_path

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

SECONDS = 60
NAMES = [customer["name"] for customer in reversed(CUSTOMERS)]  # newest first, as customers_index lists them


def rata_command() -> list[str]:
    script = shutil.which("rata", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "rata"]


@dataclass(frozen=True)
class Server:
    """A server to spawn, the tool to call on it and what the call's structured answer must hold."""

    label: str  # as in NOT_YET_STRICT: "crm" or "rata-dev"
    argv: list[str]
    tool: str
    arguments: dict[str, Any]

    def expect(self, structured: Any) -> None:
        if self.label == "crm":
            assert [customer["name"] for customer in structured] == NAMES
        else:
            assert structured["columns"] == ["name"] and structured["rows"] == [[name] for name in NAMES]

    def tool_names(self) -> set[str]:
        return {tool["name"] for tool in CATALOGS[self.label].tools}


SERVERS = {
    "crm": Server("crm", crm_command(), "customers_index", {"search": "", "limit": 50}),
    "rata-dev": Server(
        "rata-dev", [*rata_command(), "mcp", "dev", "--app", "crm.app:app"], "database_query", {"sql": "SELECT name FROM customers ORDER BY id DESC"}
    ),
}


@pytest.fixture(params=sorted(SERVERS))
def server(request: pytest.FixtureRequest) -> Server:
    return SERVERS[request.param]


@pytest.fixture
def env(rata_home: Path) -> dict[str, str]:
    """The servers' environment, explicit (the SDKs pass a child only a few variables of their own), over a seeded crm folder."""
    seed_crm(rata_home)
    found = {"RATA_HOME": str(rata_home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    if "PYTHONPATH" in os.environ:
        found["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return found


def loose(label: str, key: str) -> set[str]:
    """The tools of `label` whose `key` schema strict mode cannot take yet (tests/codegen/test_strict_converters.py)."""
    return {name.split()[1] for name in NOT_YET_STRICT if name.split()[0] == label and name.split()[2] == key}


def check_served(label: str, tool: str, key: str, schema: dict[str, Any] | None) -> None:
    """A schema as a client received it converts to strict mode, or is one of those known not to, and refused."""
    if schema is None:
        return
    name = f"{label} {tool} {key}"
    if name in NOT_YET_STRICT:
        assert refused_by_agents(schema), f"{name} converts now: remove it from NOT_YET_STRICT"
    else:
        assert_converts_to_strict(name, schema)


async def agents_tools(mcp: Any, agents: Any, stdio: Any) -> list[Any]:
    """The function tools an openai-agents Agent makes of a server's tools, converting their schemas to strict mode."""
    agent = agents.Agent(name="rata-test", mcp_servers=[stdio])
    return await mcp.MCPUtil.get_function_tools(stdio, True, agents.RunContextWrapper(context=None), agent)


async def test_openai_agents_converts_every_served_tool_to_strict_mode_and_calls_one(server: Server, env: dict[str, str]):
    mcp, agents = peer("agents.mcp"), peer("agents")
    params = {"command": server.argv[0], "args": server.argv[1:], "env": env}
    with anyio.fail_after(SECONDS):
        async with mcp.MCPServerStdio(params, name=server.label, use_structured_content=True, client_session_timeout_seconds=SECONDS) as stdio:
            tools = await agents_tools(mcp, agents, stdio)
            listed = {tool.name: tool for tool in await stdio.list_tools()}
            output = await mcp.MCPUtil.invoke_mcp_tool(stdio, listed[server.tool], agents.RunContextWrapper(context=None), json.dumps(server.arguments))
            result = await stdio.call_tool(server.tool, server.arguments)
            version = stdio.session.protocol_version
    assert version == MODERN
    assert {tool.name for tool in tools} == set(listed) == server.tool_names()
    # openai-agents falls back to a non-strict tool, silently, when the conversion fails.
    assert {tool.name for tool in tools if not tool.strict_json_schema} == loose(server.label, "inputSchema")
    for tool in tools:
        assert untyped(tool.params_json_schema) == [] if tool.strict_json_schema else True, tool.name
    for name, tool in listed.items():
        check_served(server.label, name, "inputSchema", tool.input_schema)
        check_served(server.label, name, "outputSchema", tool.output_schema)
    assert not result.is_error
    server.expect(result.structured_content)
    server.expect(json.loads(output))  # use_structured_content: what the model gets is the structured answer, as JSON


async def test_pydantic_ai_agent_sends_every_served_tool_strict_and_calls_one(server: Server, env: dict[str, str]):
    pydantic_ai, pydantic_mcp = peer("pydantic_ai"), peer("pydantic_ai.mcp")
    function, messages, openai = peer("pydantic_ai.models.function"), peer("pydantic_ai.messages"), peer("pydantic_ai.profiles.openai")
    capabilities, transports = peer("pydantic_ai.capabilities"), peer("fastmcp.client.transports")
    seen: dict[str, Any] = {}

    def model(history: list[Any], info: Any) -> Any:
        """A scripted model: call the server's tool once, then answer with what it returned."""
        seen["tools"] = info.function_tools
        returned = [part for message in history for part in message.parts if isinstance(part, messages.ToolReturnPart)]
        if not returned:
            return messages.ModelResponse(parts=[messages.ToolCallPart(server.tool, server.arguments)])
        return messages.ModelResponse(parts=[messages.TextPart(json.dumps(returned[0].content))])

    def strict(ctx: Any, tool_defs: list[Any]) -> list[Any]:
        return [replace(tool_def, strict=True) for tool_def in tool_defs]  # as pydantic-ai's docs turn strict mode on

    transport = transports.StdioTransport(server.argv[0], server.argv[1:], env=env, keep_alive=False)
    toolset = pydantic_mcp.MCPToolset(transport, tool_error_behavior="error")
    agent = pydantic_ai.Agent(
        function.FunctionModel(model, profile=openai.openai_model_profile("gpt-5")),
        toolsets=[toolset],
        capabilities=[capabilities.PrepareTools(strict)],
    )
    with anyio.fail_after(SECONDS):
        async with toolset:
            run = await agent.run("Go.")
            listed = await toolset.list_tools()
            version = toolset.client.protocol_version
    assert version == MODERN
    server.expect(json.loads(run.output))
    sent = {tool_def.name: tool_def for tool_def in seen["tools"]}
    assert set(sent) == server.tool_names()
    for name, tool_def in sent.items():
        # What the OpenAI model would get: each schema through the profile's strict transformer.
        if name in loose(server.label, "inputSchema"):
            continue
        assert tool_def.strict is True, name
        assert tool_def.parameters_json_schema.get("additionalProperties") is False, name
        assert untyped(tool_def.parameters_json_schema) == [], name
    for tool in listed:  # the agent sends no return schemas unless asked to: check them as pydantic-ai received them
        check_served(server.label, tool.name, "inputSchema", tool.input_schema)
        check_served(server.label, tool.name, "outputSchema", tool.output_schema)


async def test_fastmcp_client_lists_and_calls_and_reads_the_structured_answer(server: Server, env: dict[str, str]):
    fastmcp, transports = peer("fastmcp"), peer("fastmcp.client.transports")
    transport = transports.StdioTransport(server.argv[0], server.argv[1:], env=env, keep_alive=False)
    with anyio.fail_after(SECONDS):
        async with fastmcp.Client(transport) as client:
            listed = await client.list_tools()
            result = await client.call_tool(server.tool, server.arguments)
            version = client.protocol_version
    assert version == MODERN
    assert {tool.name for tool in listed} == server.tool_names()
    for tool in listed:
        check_served(server.label, tool.name, "inputSchema", tool.input_schema)
        check_served(server.label, tool.name, "outputSchema", tool.output_schema)
    assert not result.is_error
    server.expect(result.structured_content)
    # `.data`: the answer as the Python type fastmcp built from the tool's output schema.
    if server.label == "crm":
        assert [customer.name for customer in result.data] == NAMES
    else:
        assert result.data.rows == [[name] for name in NAMES] and result.data.row_count == len(NAMES)


OPEN_APP = '''
from rata import App, Ctx, Mcp, command
from rata.cli.appmain import main_for


@command(can="notes.view", read_only=True)
def notes_tally(ctx: Ctx, tags: dict[str, str]) -> dict[str, int]:
    """Count the words of each tagged note."""
    return {tag: len(text.split()) for tag, text in tags.items()}


app = App("notes", identifier="com.example.notes").commands(notes_tally).mcp(Mcp().allow_abilities(["notes.view"]))

if __name__ == "__main__":
    main_for(app)
'''


async def test_an_open_schema_served_by_an_app_is_refused_by_the_strict_check(tmp_path: Path, env: dict[str, str]):
    """The check can fail: an app whose tool takes and returns free-form maps, which strict mode cannot express."""
    mcp, agents = peer("agents.mcp"), peer("agents")
    script = tmp_path / "notes.py"
    script.write_text(textwrap.dedent(OPEN_APP), encoding="utf-8")
    own_home = {**env, "RATA_HOME": str(tmp_path / "notes-home")}  # not crm's folder: its database records migrations notes does not have
    params = {"command": sys.executable, "args": [str(script), "--mcp"], "env": own_home, "cwd": str(tmp_path)}
    with anyio.fail_after(SECONDS):
        async with mcp.MCPServerStdio(params, name="notes", use_structured_content=True, client_session_timeout_seconds=SECONDS) as stdio:
            (tool,) = await agents_tools(mcp, agents, stdio)
            (listed,) = await stdio.list_tools()
            result = await stdio.call_tool("notes_tally", {"tags": {"todo": "buy milk"}})
    assert result.structured_content == {"todo": 2}  # the server works; only its schemas are open
    assert tool.strict_json_schema is False
    for key, schema in (("inputSchema", listed.input_schema), ("outputSchema", listed.output_schema)):
        assert refused_by_agents(schema), key
        with pytest.raises(AssertionError):
            check_served("notes", "notes_tally", key, schema)
