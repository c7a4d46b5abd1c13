"""Shared by the real clients' tool-call tests: a scripted model API on 127.0.0.1 and a seeded scratch project.

A model script answers each request the client sends (`respond`) and keeps them all
(`requests`), so a test reads what the client passed back. Test modules import what they use
(``from tests.install.tool_calls import stand_in``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from tests.dev_server.helpers import CUSTOMERS, seed_crm
from tests.install.test_client_health import approve, write_both
from tests.install.test_real_clients import client_env

ANSWER = "The stand-in read the tool's result."
# What customers_index returns for the seeded database: (name, email), newest first.
NEWEST_FIRST = [(customer["name"], customer["email"]) for customer in reversed(CUSTOMERS)]


class Script(Protocol):
    requests: list[tuple[str, dict[str, Any]]]

    def respond(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[str]]:
        """The status and a JSON body, or 200 and the server-sent events of a streamed answer."""
        ...


def handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class ModelApi(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            script.requests.append((self.path, body))
            status, reply = script.respond(self.path.split("?")[0], body)
            if isinstance(reply, dict):
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write("".join(event + "\n\n" for event in reply).encode())
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args: Any) -> None:  # the tests read script.requests instead
            pass

    return ModelApi


@contextmanager
def stand_in(script: Script) -> Iterator[str]:
    """The script's API on a free port of 127.0.0.1; its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(script))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def seeded_project(client: str, scratch: tuple[Path, Path], rata_home: Path) -> tuple[Path, dict[str, str]]:
    """crm's database with three customers stored by the app itself, and crm's server and `rata mcp dev`
    written into the project by `rata mcp install --write` and approved; the project and the client's env."""
    home, project = scratch
    env = client_env(home, rata_home)
    seed_crm(rata_home)
    names = write_both(client, project, env)
    approve(client, names, home, project, env)
    return project, env


def text_of(content: str | list[dict[str, Any]]) -> str:
    """A tool result's text: a string, or the text of its parts."""
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


class ChatModel:
    """A scripted model behind the OpenAI chat completions API: call the tool once, then answer in text.

    A tool the request offers is called directly; a deferred one (Qwen Code's) is found with the
    client's `tool_search` and run through its `tool_call`.
    """

    LOAD, CALL = "call_load", "call_tool"

    def __init__(self, tool: str) -> None:
        self.tool = tool
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
        if self.CALL in results:
            return {"role": "assistant", "content": ANSWER}
        if self.tool in tools:
            return call(self.CALL, self.tool, {})
        if self.LOAD in results:
            return call(self.CALL, "tool_call", {"name": self.tool, "arguments": {}})
        if "tool_search" in tools:
            return call(self.LOAD, "tool_search", {"query": f"select:{self.tool}"})
        return {"role": "assistant", "content": ANSWER}

    def offered(self) -> list[dict[str, Any]]:
        """The tool's parameters in the requests' `tools`, as the client sent them."""
        return [tool["function"]["parameters"] for _, body in self.requests for tool in body.get("tools", []) if tool["function"]["name"] == self.tool]

    def result(self, id: str) -> str:
        """The text of the tool message the client sent back for the call `id`."""
        found = [m for _, body in self.requests for m in body["messages"] if m.get("role") == "tool" and m.get("tool_call_id") == id]
        assert found, f"no request carried a result for {id} ({self.tool})"
        return text_of(found[-1]["content"])


def call(id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}],
    }
