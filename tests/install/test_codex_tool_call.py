"""Codex runs real calls of the tools of the servers `rata mcp install --write` wrote, with no model.

Codex's app server (`codex app-server`, JSON-RPC on stdio) has a request of its own for a tool
call: `mcpServer/tool/call` with a server, a tool and a thread, run on the thread's connection
to that server (see `codex_thread` in test_client_health.py). Codex asks for protocol version
2025-06-18, so the result carries `structuredContent` (crm's list under `result`, the shape an
array output takes in an object) next to the text.
"""

# ruff: noqa: F811 (client and scratch are the fixtures of test_real_clients.py, imported to be used)

from __future__ import annotations

import json

import pytest

from tests.install.test_client_health import codex_thread, dump, load
from tests.install.test_real_clients import client, scratch  # noqa: F401
from tests.install.tool_calls import NEWEST_FIRST, seeded_project

pytestmark = pytest.mark.subprocess

NAMES = ["crm", "rata"]


def call(server: str, tool: str, thread: str) -> dict:
    return {"server": server, "threadId": thread, "tool": tool, "arguments": {}}


@pytest.mark.parametrize("client", ["codex"], indirect=True)
def test_codex_app_server_runs_crm_customers_index_and_rata_mcp_dev_app_info(client, scratch, rata_home):
    project, env = seeded_project(client, scratch, rata_home)
    with codex_thread(project, env, NAMES) as (ask, thread):
        customers = ask("mcpServer/tool/call", call("crm", "customers_index", thread))["result"]
        info = ask("mcpServer/tool/call", call("rata", "app_info", thread))["result"]
    assert not customers.get("isError"), customers
    assert [(c["name"], c["email"]) for c in customers["structuredContent"]["result"]] == NEWEST_FIRST
    assert [(c["name"], c["email"]) for c in json.loads(customers["content"][0]["text"])] == NEWEST_FIRST
    assert (info["structuredContent"]["name"], info["structuredContent"]["folder"]) == ("crm", str(rata_home))


@pytest.mark.parametrize("client", ["codex"], indirect=True)
def test_a_call_to_a_broken_crm_server_is_an_error_and_the_dev_server_still_answers(client, scratch, rata_home, tmp_path):
    """The check can fail: crm's entry pointed at a program that is no server gives no customers."""
    project, env = seeded_project(client, scratch, rata_home)
    file = project / ".codex" / "config.toml"
    config = load(file)
    config["mcp_servers"]["crm"]["command"] = str(tmp_path / "no-such-server")
    dump(file, config)
    with codex_thread(project, env, NAMES) as (ask, thread):
        customers = ask("mcpServer/tool/call", call("crm", "customers_index", thread))
        info = ask("mcpServer/tool/call", call("rata", "app_info", thread))
    assert "result" not in customers and "MCP startup failed" in customers["error"]["message"], customers
    assert info["result"]["structuredContent"]["name"] == "crm", info
