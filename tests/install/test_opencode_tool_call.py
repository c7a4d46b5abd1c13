"""OpenCode runs one real call of crm's customers_index, with a scripted OpenAI-compatible model.

The model is a stand-in for the chat completions API on 127.0.0.1, declared in the scratch
user's OpenCode config as a provider (`@ai-sdk/openai-compatible`, which OpenCode 1.18.33 carries
with it, with a `baseURL`): no network, no key. OpenCode offers MCP tools directly, as
`SERVER_TOOL` functions with the server's input schema as `parameters`, and runs them without
asking. The project's opencode.json is the one `rata mcp install --write` wrote.
"""

# ruff: noqa: F811 (client and scratch are the fixtures of test_real_clients.py, imported to be used)

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.install.test_client_health import served_tools
from tests.install.test_real_clients import PEERS_BIN, client, run, scratch  # noqa: F401
from tests.install.tool_calls import ANSWER, NEWEST_FIRST, ChatModel, seeded_project, stand_in

pytestmark = pytest.mark.subprocess

TOOL = "crm_customers_index"


def ask_opencode(model: ChatModel, home: Path, project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """`opencode run` in the project with the stand-in as its model; the events of its JSON output."""
    with stand_in(model) as url:
        provider = {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": f"{url}/v1", "apiKey": "sk-stand-in"}, "models": {"stand-in": {}}}
        (home / ".config" / "opencode").mkdir(parents=True, exist_ok=True)
        (home / ".config" / "opencode" / "opencode.jsonc").write_text(json.dumps({"provider": {"stand-in": provider}}))
        argv = [str(PEERS_BIN / "opencode"), "run", "--format", "json", "--model", "stand-in/stand-in", "Use the tool, then say what it returned."]
        done = run(argv, env, project)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("client", ["opencode"], indirect=True)
def test_opencode_calls_crm_customers_index_and_passes_the_customers_back(client, scratch, rata_home):
    project, env = seeded_project(client, scratch, rata_home)
    events = ask_opencode(model := ChatModel(TOOL), scratch[0], project, env)
    entry = json.loads((project / "opencode.json").read_text())["mcp"]["crm"]
    served = next(
        tool
        for tool in served_tools({"command": entry["command"][0], "args": entry["command"][1:], "env": entry["environment"]}, env)
        if tool["name"] == "customers_index"
    )
    assert model.offered() and all(parameters == served["inputSchema"] for parameters in model.offered()), model.offered()
    assert [(c["name"], c["email"]) for c in json.loads(model.result(ChatModel.CALL))] == NEWEST_FIRST
    assert [(e["part"]["tool"], e["part"]["state"]["status"]) for e in events if e["type"] == "tool_use"] == [(TOOL, "completed")]
    assert [e["part"]["text"] for e in events if e["type"] == "text"] == [ANSWER]


@pytest.mark.parametrize("client", ["opencode"], indirect=True)
def test_a_broken_crm_server_gives_opencode_no_tool_and_no_customers(client, scratch, rata_home, tmp_path):
    """The check can fail: crm's entry pointed at a program that is no server is never offered to the model."""
    project, env = seeded_project(client, scratch, rata_home)
    config = json.loads((project / "opencode.json").read_text())
    config["mcp"]["crm"]["command"][0] = str(tmp_path / "no-such-server")
    (project / "opencode.json").write_text(json.dumps(config))
    events = ask_opencode(model := ChatModel(TOOL), scratch[0], project, env)
    assert model.requests and model.offered() == []
    assert "Ada Lovelace" not in json.dumps([body for _, body in model.requests])
    assert [e for e in events if e["type"] == "tool_use"] == []
