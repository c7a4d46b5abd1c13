"""Claude Code runs one real tool call of the servers `rata mcp install --write` wrote, with a scripted model.

The model is a stand-in for the Anthropic Messages API on 127.0.0.1 (`ANTHROPIC_BASE_URL`): no
network, no key. Like a model it reads the request and answers with content blocks. Claude Code
2.1.328 offers MCP tools as deferred tools (named in the conversation, their schemas loaded through
its ToolSearch tool), so the stand-in first asks ToolSearch for the tool unless the request
already carries it, then calls it, then answers in text once the tool's result comes back. The
client itself starts crm's server (or `rata mcp dev`) from the project's .mcp.json, runs the call
and hands the stand-in the result; the test reads that result from the request the client sent.
The client, its scratch HOME and the missing-peer rule are those of test_real_clients.py.
"""

# ruff: noqa: F811 (client and scratch are the fixtures of test_real_clients.py, imported to be used)

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.install.test_client_health import served_tools
from tests.install.test_real_clients import PEERS_BIN, client, run, scratch  # noqa: F401
from tests.install.tool_calls import ANSWER, NEWEST_FIRST, seeded_project, stand_in, text_of

pytestmark = pytest.mark.subprocess

LOAD, CALL = "toolu_load", "toolu_call"


def blocks_of(messages: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for message in messages:
        if isinstance(message.get("content"), list):
            yield from message["content"]


class Model:
    """The scripted model: load the tool if it is deferred, call it once, then answer in text."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def respond(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[str]]:
        """POST /v1/messages, streamed when the request asks; count_tokens if the client counts."""
        if path == "/v1/messages/count_tokens":
            return 200, {"input_tokens": len(json.dumps(body)) // 4}
        if path != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
        content = self.reply(body)
        message = {
            "id": f"msg_{len(self.requests)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": "tool_use" if content[-1]["type"] == "tool_use" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        if not body.get("stream"):
            return 200, message
        return 200, [f"event: {name}\ndata: {json.dumps(data)}" for name, data in events(message)]

    def reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        results = {block["tool_use_id"] for block in blocks_of(body["messages"]) if block.get("type") == "tool_result"}
        if CALL in results:
            return [{"type": "text", "text": ANSWER}]
        if LOAD in results or any(tool.get("name") == self.tool for tool in body.get("tools", [])):
            return [{"type": "tool_use", "id": CALL, "name": self.tool, "input": {}}]
        return [{"type": "tool_use", "id": LOAD, "name": "ToolSearch", "input": {"query": f"select:{self.tool}", "max_results": 1}}]

    def offered(self) -> list[dict[str, Any]]:
        """The definitions of the tool in the requests' `tools`, as the client sent them."""
        return [tool for _, body in self.requests for tool in body.get("tools", []) if tool.get("name") == self.tool]

    def result(self) -> dict[str, Any]:
        """The `tool_result` block the client sent back for the call."""
        found = [block for _, body in self.requests for block in blocks_of(body.get("messages", [])) if block.get("tool_use_id") == CALL]
        assert found, f"no request carried a result for {self.tool}: {[path for path, _ in self.requests]}"
        return found[-1]


def events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Messages API's stream of one message: each block's content in one delta."""
    yield "message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            start, delta = {**block, "input": {}}, {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 1}}
    yield "message_stop", {"type": "message_stop"}


def ask_claude(model: Model, project: Path, env: dict[str, str], allowed: list[str]) -> dict[str, Any]:
    """`claude -p` in the project against the stand-in; its JSON output."""
    with stand_in(model) as url:
        env = {**env, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-stand-in"}
        argv = [str(PEERS_BIN / "claude"), "-p", "Use the tool, then say what it returned.", "--output-format", "json"]
        done = run([*argv, *(["--allowedTools", *allowed] if allowed else [])], env, project)
    return json.loads(done.stdout)


@pytest.mark.parametrize("client", ["claude-code"], indirect=True)
@pytest.mark.parametrize(("server", "tool"), [("crm", "customers_index"), ("rata", "app_info")], ids=["app", "dev"])
def test_claude_code_runs_the_tool_and_passes_its_result_back(client, server, tool, scratch, rata_home):
    """crm's customers_index, and `rata mcp dev`'s app_info."""
    project, env = seeded_project(client, scratch, rata_home)
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"][server]
    model = Model(f"mcp__{server}__{tool}")
    output = ask_claude(model, project, env, [model.tool])
    served = next(listed for listed in served_tools(entry, env) if listed["name"] == tool)
    assert model.offered() and all(offer["input_schema"] == served["inputSchema"] for offer in model.offered()), model.offered()
    result = model.result()
    assert not result.get("is_error"), result
    value = json.loads(text_of(result["content"]))
    if server == "crm":
        assert [(c["name"], c["email"]) for c in value] == NEWEST_FIRST
    else:
        assert (value["name"], value["folder"], value["database_exists"]) == ("crm", str(rata_home), True)
    assert (output["result"], output["is_error"], output["permission_denials"]) == (ANSWER, False, []), output


@pytest.mark.parametrize("client", ["claude-code"], indirect=True)
def test_a_tool_the_user_did_not_allow_comes_back_as_an_error_without_customers(client, scratch, rata_home):
    """The check can fail: without --allowedTools the print mode refuses the call and crm is never asked."""
    project, env = seeded_project(client, scratch, rata_home)
    model = Model("mcp__crm__customers_index")
    output = ask_claude(model, project, env, [])
    result = model.result()
    assert result.get("is_error") is True, result
    assert "Ada Lovelace" not in text_of(result["content"])
    assert [denial["tool_name"] for denial in output["permission_denials"]] == ["mcp__crm__customers_index"], output


@pytest.mark.parametrize("client", ["claude-code"], indirect=True)
def test_a_broken_crm_server_is_not_offered_and_its_call_comes_back_as_an_error(client, scratch, rata_home, tmp_path):
    """The check can fail: crm's entry pointed at a program that is no server gives the model no tool and no customers."""
    project, env = seeded_project(client, scratch, rata_home)
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    servers["crm"]["command"] = str(tmp_path / "no-such-server")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    model = Model("mcp__crm__customers_index")
    ask_claude(model, project, env, ["mcp__crm__customers_index"])
    assert model.offered() == []
    result = model.result()
    assert result.get("is_error") is True, result
    assert "Ada Lovelace" not in text_of(result["content"])
