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
from tests.install.tool_calls import seeded_project, stand_in, text_of

pytestmark = pytest.mark.subprocess

LOAD, CALL = "call_load", "call_tool"
ANSWER = "The stand-in read the tool's result."
TOOL = "mcp__crm__customers_index"


class ChatModel:
    """The scripted model: find the deferred tool, call it once, then answer in text."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def respond(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[str]]:
        """POST /v1/chat/completions, streamed in chunks when the request asks."""
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no {path} here", "type": "invalid_request_error"}}
        message = self.reply(body)
        finish = "tool_calls" if "tool_calls" in message else "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not body.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            return 200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"), "choices": [choice], "usage": usage}
        delta = dict(message)
        if "tool_calls" in delta:
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
        chunks = [{"index": 0, "delta": delta, "finish_reason": None}, {"index": 0, "delta": {}, "finish_reason": finish}]
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": body.get("model")}
        events = [f"data: {json.dumps({**base, 'choices': [chunk]})}" for chunk in chunks]
        return 200, [*events, f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}", "data: [DONE]"]

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        results = {message.get("tool_call_id") for message in body["messages"] if message.get("role") == "tool"}
        tools = {tool["function"]["name"] for tool in body.get("tools", [])}
        if CALL in results:
            return {"role": "assistant", "content": ANSWER}
        if TOOL in tools:
            return call(CALL, TOOL, {})
        if LOAD in results:
            return call(CALL, "tool_call", {"name": TOOL, "arguments": {}})
        if "tool_search" in tools:
            return call(LOAD, "tool_search", {"query": f"select:{TOOL}"})
        return {"role": "assistant", "content": ANSWER}

    def result(self, id: str) -> str:
        """The text of the tool message the client sent back for the call `id`."""
        found = [m for _, body in self.requests for m in body["messages"] if m.get("role") == "tool" and m.get("tool_call_id") == id]
        assert found, f"no request carried a result for {id}"
        return text_of(found[-1]["content"])


def call(id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}],
    }


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
    output = ask_qwen(model := ChatModel(), project, env, [TOOL])
    declared = re.findall(r"<function>(.*?)</function>", model.result(LOAD), re.S)
    entry = json.loads((project / ".qwen" / "settings.json").read_text())["mcpServers"]["crm"]
    served = next(tool for tool in served_tools(entry, env) if tool["name"] == "customers_index")
    assert [json.loads(d)["parametersJsonSchema"] for d in declared] == [served["inputSchema"]]
    customers = [value for value in json_values(model.result(CALL)) if isinstance(value, list)]
    assert [[(c["name"], c["email"]) for c in found] for found in customers] == [
        [("Alan Turing", "alan@example.com"), ("Grace Hopper", "grace@example.com"), ("Ada Lovelace", "ada@example.com")]
    ]  # newest first, as seeded through the app's own customers_store
    assert (output["type"], output["result"], output["is_error"], output["permission_denials"]) == ("result", ANSWER, False, [])


@pytest.mark.parametrize("client", ["qwen"], indirect=True)
def test_a_tool_qwen_code_was_not_allowed_to_run_passes_no_customers_back(client, scratch, rata_home):
    """The check can fail: without --allowed-tools the one-shot mode declines the call and crm is never asked."""
    project, env = seeded_project(client, scratch, rata_home)
    output = ask_qwen(model := ChatModel(), project, env, [])
    assert "Ada Lovelace" not in model.result(CALL)
    assert [denial["tool_name"] for denial in output["permission_denials"]] == [TOOL], output
