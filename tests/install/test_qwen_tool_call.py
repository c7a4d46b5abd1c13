"""Qwen Code runs one real call of crm's customers_index, with a scripted OpenAI-compatible model.

The model is a stand-in for the chat completions API on 127.0.0.1 (`--auth-type openai
--openai-base-url`): no network, no key. Qwen Code 0.24.4 streams every request and, like Claude
Code, offers MCP tools as deferred tools: it names them in its system prompt and offers two tools
of its own, `tool_search` (which answers with the tool's declaration) and `tool_call` (which runs a
deferred tool). The stand-in uses them as a model would: search, call, then answer in text once
the call's result comes back. The client starts crm's server from the project's
.qwen/settings.json (written by `rata mcp install --write`, approved with `qwen mcp approve`).
"""

# ruff: noqa: F811 (client and scratch are the fixtures of test_real_clients.py, imported to be used)

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.install.test_client_health import served_tools
from tests.install.test_real_clients import PEERS_BIN, client, run, scratch  # noqa: F401
from tests.install.tool_calls import ANSWER, NEWEST_FIRST, ChatModel, seeded_project, stand_in

pytestmark = pytest.mark.subprocess

TOOL = "mcp__crm__customers_index"


def json_values(text: str) -> list[Any]:
    """The JSON values written one after another in a text (Qwen Code passes on a result's parts in a row)."""
    decoder, values, rest = json.JSONDecoder(), [], text.strip()
    while rest:
        value, end = decoder.raw_decode(rest)
        values.append(value)
        rest = rest[end:].lstrip()
    return values


def ask_qwen(model: ChatModel, project: Path, env: dict[str, str], allowed: list[str]) -> dict[str, Any]:
    """`qwen` with a one-shot prompt in the project against the stand-in; the result event of its JSON output."""
    with stand_in(model) as url:
        # The prompt first: --allowed-tools takes every value after it.
        argv = [str(PEERS_BIN / "qwen"), "Use the tool, then say what it returned.", "--model", "stand-in", "--output-format", "json"]
        argv += ["--auth-type", "openai", "--openai-base-url", f"{url}/v1", "--openai-api-key", "sk-stand-in"]
        done = run([*argv, *(["--allowed-tools", *allowed] if allowed else [])], env, project)
    return json.loads(done.stdout)[-1]


@pytest.mark.parametrize("client", ["qwen"], indirect=True)
def test_qwen_code_calls_crm_customers_index_and_passes_the_customers_back(client, scratch, rata_home):
    project, env = seeded_project(client, scratch, rata_home)
    output = ask_qwen(model := ChatModel(TOOL), project, env, [TOOL])
    declared = re.findall(r"<function>(.*?)</function>", model.result(ChatModel.LOAD), re.S)
    entry = json.loads((project / ".qwen" / "settings.json").read_text())["mcpServers"]["crm"]
    served = next(tool for tool in served_tools(entry, env) if tool["name"] == "customers_index")
    assert [json.loads(d)["parametersJsonSchema"] for d in declared] == [served["inputSchema"]]
    customers = [value for value in json_values(model.result(ChatModel.CALL)) if isinstance(value, list)]
    assert [[(c["name"], c["email"]) for c in found] for found in customers] == [NEWEST_FIRST]
    assert (output["type"], output["result"], output["is_error"], output["permission_denials"]) == ("result", ANSWER, False, [])


@pytest.mark.parametrize("client", ["qwen"], indirect=True)
def test_a_tool_qwen_code_was_not_allowed_to_run_passes_no_customers_back(client, scratch, rata_home):
    """The check can fail: without --allowed-tools the one-shot mode declines the call and crm is never asked."""
    project, env = seeded_project(client, scratch, rata_home)
    output = ask_qwen(model := ChatModel(TOOL), project, env, [])
    assert "Ada Lovelace" not in model.result(ChatModel.CALL)
    assert [denial["tool_name"] for denial in output["permission_denials"]] == [TOOL], output
