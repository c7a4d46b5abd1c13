"""The official MCP Python SDK (mcp 2.3.0) as the client of commands that talk back, against a real subprocess.

The app is `tests.mcp.talkers` served on stdio (``python -m tests.mcp.talkers --mcp``), in
the SDK's three modes: "auto", "2026-07-28" (questions through input_required and retries)
and "legacy" (the 2025-11-25 handshake: elicitation/create, sampling/createMessage and
roots/list sent mid-call). The SDK validates every message it receives against its schema.
"""

from __future__ import annotations

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
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.mcp.peers import MODERN, search_path
from tests.mcp.test_sdk_peer import mode, text_of  # noqa: F401 - the three modes' fixture, shared

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

ROOT = Path(__file__).resolve().parents[2]
TEST_SECONDS = 30
SEAT = {"seat": "window", "meal": "veg", "bags": 2}


def child_env(home: Path) -> dict[str, str]:
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] += os.pathsep + os.environ["PYTHONPATH"]
    return env


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A migrated app folder for the talkers app, made by its own ``--migrate``."""
    folder = tmp_path / "rata-home"
    done = subprocess.run([sys.executable, "-m", "tests.mcp.talkers", "--migrate"], capture_output=True, text=True, env=child_env(folder), cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return folder


class Recorder:
    """The SDK's callbacks, answering from queues and remembering what they heard."""

    def __init__(self, answers: list[types.ElicitResult] | None = None) -> None:
        self.answers = list(answers or [])
        self.asked: list[Any] = []
        self.progress: list[tuple[float, float | None, str | None]] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.sampled: list[types.CreateMessageRequestParams] = []

    async def elicit(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0)

    async def sample(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.sampled.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="a short story"), model="sdk-model", stop_reason="endTurn"
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root.model_validate({"uri": "file:///home/ada/project", "name": "project"})])

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def report(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append((progress, total, message))


@asynccontextmanager
async def connected(home: Path, mode: str, recorder: Recorder, *, elicit: bool = True, log_level: types.LoggingLevel | None = None) -> AsyncIterator[Client]:
    client = Client(
        StdioServerParameters(command=sys.executable, args=["-m", "tests.mcp.talkers", "--mcp"], env=child_env(home), cwd=str(ROOT)),
        mode=mode,
        elicitation_callback=recorder.elicit if elicit else None,
        sampling_callback=recorder.sample,
        list_roots_callback=recorder.roots,
        logging_callback=recorder.log,
        log_level=log_level,
        read_timeout_seconds=20,
        client_info=types.Implementation(name="rata-talk-tests", version="1.0"),
    )
    async with client:
        yield client


async def bookings(client: Client) -> list[str]:
    return json.loads(text_of(await client.call_tool("bookings", {})))


async def test_progress_reaches_the_sdks_callback_growing_and_ending_at_the_total(home, mode):
    recorder = Recorder()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            result = await client.call_tool("count", {"n": 50}, progress_callback=recorder.report)
    assert not result.is_error, text_of(result)
    assert recorder.progress[-1] == (50, 50, "step 50 of 50")
    assert [p for p, _, _ in recorder.progress] == sorted({p for p, _, _ in recorder.progress})


async def test_logs_reach_the_sdks_callback_from_the_level_asked(home, mode):
    recorder = Recorder()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder, log_level="info") as client:
            if mode == "legacy":
                with pytest.warns(MCPDeprecationWarning):  # deprecated, but what a 2025-11-25 session has
                    await client.set_logging_level("info")
            result = await client.call_tool("shout", {"text": "hi"})
    assert not result.is_error, text_of(result)
    assert [(log.level, log.logger, log.data) for log in recorder.logs] == [
        ("info", "talkers", {"message": "saying hi", "length": 2}),
        ("warning", "talkers", {"message": "loudly HI"}),
    ]


async def test_without_a_level_no_logs_reach_the_client(home, mode):
    recorder = Recorder()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            await client.call_tool("shout", {"text": "hi"})
    assert recorder.logs == []


async def test_an_accepted_question_books_and_the_asking_round_leaves_nothing_behind(home, mode):
    recorder = Recorder([types.ElicitResult(action="accept", content=SEAT)])
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            result = await client.call_tool("book", {"city": "Oslo"})
            assert text_of(result) == "Booked window to Oslo.", text_of(result)
            assert await bookings(client) == ["Oslo/window/veg/2"]
    (asked,) = recorder.asked
    assert asked.message == "Where would you like to sit on the way to Oslo?"
    assert asked.requested_schema["required"] == ["seat"]


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_or_cancelled_question_leaves_the_database_unchanged(home, mode, action):
    recorder = Recorder([types.ElicitResult(action=action)])
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            result = await client.call_tool("book", {"city": "Oslo"})
            assert result.is_error and "nothing was done" in text_of(result)
            assert await bookings(client) == []


async def test_an_answer_of_the_wrong_type_is_asked_again(home, mode):
    recorder = Recorder([types.ElicitResult(action="accept", content={"seat": "roof"}), types.ElicitResult(action="accept", content=SEAT)])
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            result = await client.call_tool("book", {"city": "Oslo"})
    assert text_of(result) == "Booked window to Oslo."
    assert len(recorder.asked) == 2


async def test_two_rounds_of_questions_the_first_with_two(home, mode):
    recorder = Recorder([
        types.ElicitResult(action="accept", content={"seat": "aisle"}),
        types.ElicitResult(action="accept", content={"email": "ada@example.com", "newsletter": True}),
        types.ElicitResult(action="decline"),
    ])  # fmt: skip
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            result = await client.call_tool("survey", {})
    assert not result.is_error, text_of(result)
    assert json.loads(text_of(result))[1:] == ["Contact(email='ada@example.com', newsletter=True, topics=None)", "decline"]
    assert sorted(asked.message for asked in recorder.asked) == ["And on the way back?", "Contact?", "Seat?"]


async def test_a_client_without_elicitation_hears_why(home, mode):
    recorder = Recorder()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder, elicit=False) as client:
            if mode == "legacy":
                result = await client.call_tool("book", {"city": "Oslo"})
                assert result.is_error and "did not declare the elicitation capability" in text_of(result)
            else:
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("book", {"city": "Oslo"})
                assert refused.value.code == -32021
            assert await bookings(client) == []


async def test_sampling_and_roots_go_through_the_sdks_callbacks(home, mode):
    recorder = Recorder()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(home, mode, recorder) as client:
            summary = await client.call_tool("summarize", {"text": "once upon a time"})
            folders = await client.call_tool("folders", {})
    assert text_of(summary) == "sdk-model: a short story", text_of(summary)
    assert recorder.sampled[0].max_tokens == 50 and recorder.sampled[0].system_prompt == "Be brief."
    assert json.loads(text_of(folders)) == ["file:///home/ada/project"]


# --- the exact messages, on the wire of the real process ----------------------------------------

META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
SERVER = {"io.modelcontextprotocol/serverInfo": {"name": "talkers", "version": "0.0.0"}}


class Wire:
    """The app's process, spoken to line by line."""

    def __init__(self, home: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.mcp.talkers", "--mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env(home),
            cwd=ROOT,
        )

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(10)
        self.process.stdout.close()


@pytest.fixture
def wire(home: Path):
    line = Wire(home)
    yield line
    line.close()


def test_modern_progress_and_logs_come_before_the_response_on_the_wire(wire):
    meta = {**META, "progressToken": "p-1", "io.modelcontextprotocol/logLevel": "warning"}
    wire.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": meta, "name": "count", "arguments": {"n": 2, "pause": 0.06}}})
    assert wire.read() == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "p-1", "progress": 1, "total": 2, "message": "step 1 of 2"},
    }
    assert wire.read() == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "p-1", "progress": 2, "total": 2, "message": "step 2 of 2"},
    }
    assert wire.read() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": "2"}], "structuredContent": 2, "resultType": "complete", "_meta": SERVER},
    }
    wire.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": meta, "name": "shout", "arguments": {"text": "hi"}}})
    assert wire.read() == {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "warning", "logger": "talkers", "data": {"message": "loudly HI"}},
    }
    assert wire.read()["id"] == 2


def test_modern_question_is_an_input_required_result_and_the_retry_carries_the_answer(wire):
    wire.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": META, "name": "book", "arguments": {"city": "Oslo"}}})
    asked = wire.read()
    state = asked["result"].pop("requestState")
    assert asked == {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required",
        "inputRequests": {"ask-0": {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Where would you like to sit on the way to Oslo?",
            "requestedSchema": {"type": "object", "properties": {
                "seat": {"title": "Seat", "type": "string", "enum": ["window", "aisle"]},
                "meal": {"title": "Meal", "type": "string", "oneOf": [{"const": "std", "title": "Standard"}, {"const": "veg", "title": "Vegetarian"}],
                         "default": "std"},
                "bags": {"title": "Bags", "type": "integer", "minimum": 0, "maximum": 3, "description": "Checked bags", "default": 0},
            }, "required": ["seat"]},
        }}},
        "_meta": SERVER,
    }}  # fmt: skip
    retry = {
        "_meta": META,
        "name": "book",
        "arguments": {"city": "Oslo"},
        "inputResponses": {"ask-0": {"action": "accept", "content": SEAT}},
        "requestState": state,
    }
    wire.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry})
    assert wire.read() == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "content": [{"type": "text", "text": "Booked window to Oslo."}],
            "structuredContent": "Booked window to Oslo.",
            "resultType": "complete",
            "_meta": SERVER,
        },
    }


def test_legacy_question_is_an_elicitation_request_mid_call(wire):
    wire.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}},
        }
    )
    assert wire.read()["result"]["capabilities"]["logging"] == {}
    wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    wire.send({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}})
    assert wire.read() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    wire.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "book", "arguments": {"city": "Oslo"}}})
    request = wire.read()
    assert request["method"] == "elicitation/create" and isinstance(request["id"], str)
    assert request["params"]["mode"] == "form" and request["params"]["message"] == "Where would you like to sit on the way to Oslo?"
    wire.send({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"seat": "aisle"}}})
    assert wire.read() == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"content": [{"type": "text", "text": "Booked aisle to Oslo."}], "structuredContent": {"result": "Booked aisle to Oslo."}},
    }


# --- AgentClient, spawned ------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_agent_client_answers_questions_and_records_progress_and_logs_of_a_real_process(home, era):
    from rata.testing import AgentClient

    command = [sys.executable, "-m", "tests.mcp.talkers", "--mcp"]
    env = {**os.environ, **child_env(home)}
    with AgentClient.spawn(command, env=env, era=era, log_level="info", roots=[{"uri": "file:///srv"}], stderr=subprocess.DEVNULL) as agent:
        booked = agent.call("book", {"city": "Oslo"}, answers=[SEAT])
        assert booked.text == "Booked window to Oslo." and booked.asked[0]["message"].endswith("to Oslo?")
        counted = agent.call("count", {"n": 30}, progress=True)
        assert counted.progress[-1]["progress"] == 30
        assert [log["data"]["message"] for log in agent.call("shout", {"text": "hi"}).logs] == ["saying hi", "loudly HI"]
        assert agent.call("folders").text == '["file:///srv"]'
