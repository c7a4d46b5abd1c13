"""Prompts and completions through real peers: the official MCP Python SDK (mcp 2.3.0) in its three modes, and raw
lines to the same subprocess for the exact shapes and error codes of both eras (`tests/mcp/prompts_app.py`)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters

from tests.conftest import subprocess_env
from tests.mcp.peers import LEGACY, MODERN, search_path
from tests.mcp.sdk_types import kind, text

pytestmark = [pytest.mark.subprocess]

APP = Path(__file__).resolve().parent / "prompts_app.py"
MODES = ["auto", MODERN, "legacy"]
TEST_SECONDS = 20
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@asynccontextmanager
async def connected(home: Path, mode: str, elicit: Any = None) -> AsyncIterator[Client]:
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=sys.executable, args=[str(APP), "--mcp"], env=env)
    client = Client(
        params, mode=mode, elicitation_callback=elicit, read_timeout_seconds=10, client_info=types.Implementation(name="rata-peer-tests", version="1.0")
    )
    async with client:
        yield client


@pytest.mark.anyio
async def test_the_sdk_lists_gets_and_completes_prompts(rata_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(rata_home, mode) as client:
            listed = await client.list_prompts()
            got = await client.get_prompt("follow_up", {"customer_id": "42", "tone": "brief"})
            pictured = await client.get_prompt("pictured")
            ids = await client.complete(types.PromptReference(type="ref/prompt", name="follow_up"), {"name": "customer_id", "value": "14"})
            tones = await client.complete(types.PromptReference(type="ref/prompt", name="follow_up"), {"name": "tone", "value": "b"})
            with pytest.raises(MCPError) as unknown:
                await client.get_prompt("hidden")
            with pytest.raises(MCPError) as bad:
                await client.get_prompt("follow_up", {"customer_id": "forty-two"})
    assert [p.name for p in listed.prompts] == ["context_first", "follow_up", "pictured"]
    follow_up = listed.prompts[1]
    assert follow_up.title == "Follow-up email" and follow_up.description == "Draft a follow-up email to one customer."
    assert [(a.name, a.required) for a in follow_up.arguments or []] == [("customer_id", True), ("tone", False)]
    assert got.description == "Draft a follow-up email to one customer."
    assert [(m.role, text(m.content)) for m in got.messages] == [("user", "Write a brief follow-up email to customer #42.")]
    image, said = pictured.messages
    picture = kind(image.content, types.ImageContent)
    assert (image.role, picture.type, picture.data, picture.mime_type) == ("user", "image", PNG, "image/png")
    assert (said.role, text(said.content)) == ("assistant", "It is one pixel.")
    assert (ids.completion.values, ids.completion.total, ids.completion.has_more) == (
        ["14", "140", "141", "142", "143", "144", "145", "146", "147", "148", "149"],
        11,
        False,
    )
    assert tones.completion.values == ["brief"]
    assert unknown.value.code == -32602 and "Unknown prompt: hidden" in str(unknown.value)
    assert bad.value.code == -32602 and "customer_id: must be an integer, not a string" in str(bad.value)


@pytest.mark.anyio
async def test_a_prompt_that_asks_is_answered_through_the_sdks_elicitation(rata_home, mode):
    asked: list[Any] = []

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"topic": "the Q3 plan"})

    with anyio.fail_after(TEST_SECONDS):
        async with connected(rata_home, mode, elicit) as client:
            got = await client.get_prompt("context_first")
    assert [text(m.content) for m in got.messages] == ["Write a note about the Q3 plan."]
    assert [params.message for params in asked] == ["What should the note be about?"]


# --- the exact lines, both eras ---

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}


def exchange(home: Path, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send these messages to the app's server process, close its input, and return what it answered, in order."""
    data = "".join(json.dumps(line) + "\n" for line in lines)
    done = subprocess.run([sys.executable, str(APP), "--mcp"], input=data, capture_output=True, text=True, env=subprocess_env(home), timeout=30)
    return [json.loads(line) for line in done.stdout.splitlines()]


def request(id_: int, method: str, params: dict[str, Any], era: str) -> dict[str, Any]:
    if era == "modern":
        params = {**params, "_meta": ENVELOPE}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def session(era: str, *requests: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    lines = [request(i + 1, method, params, era) for i, (method, params) in enumerate(requests)]
    if era == "legacy":
        start = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
        lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": start}, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *lines]
    return lines


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_the_exact_shapes_and_error_codes_on_the_wire(rata_home, era):
    answers = exchange(
        rata_home,
        session(
            era,
            ("prompts/list", {}),
            ("prompts/get", {"name": "follow_up", "arguments": {"customer_id": "7"}}),
            ("prompts/get", {"name": "nope"}),
            ("prompts/get", {"name": "follow_up", "arguments": {}}),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "tone", "value": "w"}}),
            ("completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "color", "value": ""}}),
            ("prompts/list", {"cursor": "next"}),
        ),
    )
    by_id = {answer.get("id"): answer for answer in answers}
    envelope = {"resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "notes", "version": "1.0.0"}}} if era == "modern" else {}
    cache = {"ttlMs": 3_600_000, "cacheScope": "public"} if era == "modern" else {}
    listed = by_id[1]["result"]
    assert [p["name"] for p in listed["prompts"]] == ["context_first", "follow_up", "pictured"]
    assert {k: v for k, v in listed.items() if k != "prompts"} == {**cache, **envelope}
    message = {"role": "user", "content": {"type": "text", "text": "Write a warm follow-up email to customer #7."}}
    assert by_id[2]["result"] == {"description": "Draft a follow-up email to one customer.", "messages": [message], **envelope}
    assert by_id[3]["error"] == {"code": -32602, "message": "Unknown prompt: nope", "data": {"name": "nope"}}
    assert by_id[4]["error"]["code"] == -32602 and "customer_id: is required" in by_id[4]["error"]["message"]
    assert by_id[5]["result"] == {"completion": {"values": ["warm"], "total": 1, "hasMore": False}, **envelope}  # no cache hints
    assert by_id[6]["error"]["code"] == -32602 and "has no argument 'color'" in by_id[6]["error"]["message"]
    assert by_id[7]["error"]["code"] == -32602


def test_a_prompt_that_asks_answers_input_required_on_the_wire_and_the_retry_completes(rata_home):
    first = exchange(rata_home, session("modern", ("prompts/get", {"name": "context_first"})))[0]["result"]
    assert first["resultType"] == "input_required" and "ttlMs" not in first
    assert list(first["inputRequests"]) == ["topic"] and first["inputRequests"]["topic"]["method"] == "elicitation/create"
    retry = {"name": "context_first", "inputResponses": {"topic": {"action": "accept", "content": {"topic": "tea"}}}, "requestState": first["requestState"]}
    done = exchange(rata_home, session("modern", ("prompts/get", retry)))[0]["result"]
    assert done["messages"] == [{"role": "user", "content": {"type": "text", "text": "Write a note about tea."}}]
    tampered = {**retry, "requestState": first["requestState"][:-4] + "AAAA"}
    assert exchange(rata_home, session("modern", ("prompts/get", tampered)))[0]["error"]["code"] == -32602


def test_the_image_is_base64_in_both_eras(rata_home):
    for era in ("modern", "legacy"):
        answers = exchange(rata_home, session(era, ("prompts/get", {"name": "pictured"})))
        content = next(a for a in answers if a.get("id") == 1)["result"]["messages"][0]["content"]
        assert base64.b64decode(content["data"]).startswith(b"\x89PNG") and content["mimeType"] == "image/png"
