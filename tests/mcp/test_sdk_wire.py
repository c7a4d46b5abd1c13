"""Raw JSON lines to `crm --mcp`, every answer validated with the SDK's own per-version wire models.

The SDK client tolerates some shapes the schema forbids (a 2026 resources/read without ttlMs, say),
so these tests write the lines themselves and check each result against `mcp_types`: the
methods table for the method's result, and the exact union arm (complete or input_required)
where the table's union would accept anything with a resultType.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from mcp_types import jsonrpc, methods

from tests.conftest import subprocess_env
from tests.mcp.peers import INDEX_URI, LEGACY, MODERN, TOOL_NAMES, crm_command, crm_home, migrated_folder  # noqa: F401 - fixtures
from tests.mcp.sdk_types import kind

pytestmark = pytest.mark.subprocess

WAIT_SECONDS = 10
ELICITATION = {"elicitation": {"form": {}}}
ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}


class Wire:
    """`crm --mcp` on pipes: write one JSON line per message, read the answers as they come."""

    def __init__(self, home: Path) -> None:
        self.process = subprocess.Popen(crm_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=subprocess_env(home))
        self.incoming: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.ids = itertools.count(1)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.incoming.put(json.loads(line))
        self.incoming.put(None)

    def __enter__(self) -> Wire:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=WAIT_SECONDS)
        finally:
            self.process.kill()
            self.reader.join(WAIT_SECONDS)
            self.process.stdout.close()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def next_message(self) -> dict[str, Any]:
        try:
            message = self.incoming.get(timeout=WAIT_SECONDS)
        except queue.Empty:
            pytest.fail(f"the server said nothing for {WAIT_SECONDS} s")
        if message is None:
            pytest.fail("the server closed stdout")
        return message

    def ask(self, method: str, params: dict[str, Any] | None = None, request_id: Any = None) -> dict[str, Any]:
        """Send a request and return its response (result or error); anything else on the way is kept."""
        request_id = next(self.ids) if request_id is None else request_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            answer = self.next_message()
            if "method" not in answer and answer.get("id") == request_id:
                return answer
            self.notifications.append(answer)

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.ask(method, params)
        assert "error" not in answer, answer
        jsonrpc.JSONRPCResponse.model_validate(answer)
        return answer["result"]

    def notification(self, method: str) -> dict[str, Any]:
        """The next notification of this method (waiting for it if it has not come yet)."""
        while True:
            for index, message in enumerate(self.notifications):
                if message.get("method") == method:
                    return self.notifications.pop(index)
            self.notifications.append(self.next_message())


def modern(params: dict[str, Any] | None = None, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    """Request params with the 2026-07-28 envelope in `_meta`."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": ELICITATION if capabilities is None else capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "rata-wire-tests", "version": "1.0"},
    }
    return {**(params or {}), "_meta": meta}


def complete_call(result: dict[str, Any]) -> v2026.CallToolResult:
    methods.validate_server_result("tools/call", MODERN, result)
    assert result["resultType"] == "complete"
    return v2026.CallToolResult.model_validate(result)


def test_every_2026_result_validates_against_the_sdks_2026_07_28_models(crm_home):
    with Wire(crm_home) as wire:
        discovered = wire.result("server/discover", modern())
        methods.validate_server_result("server/discover", MODERN, discovered)
        assert discovered["supportedVersions"] == [MODERN]
        assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "crm"

        listed = wire.result("tools/list", modern())
        methods.validate_server_result("tools/list", MODERN, listed)
        assert sorted(tool["name"] for tool in listed["tools"]) == TOOL_NAMES

        stored = complete_call(wire.result("tools/call", modern({"name": "customers_store", "arguments": ADA})))
        assert stored.structured_content["email"] == ADA["email"] and not stored.is_error
        listing = complete_call(wire.result("tools/call", modern({"name": "customers_index", "arguments": {}})))
        assert listing.structured_content == [stored.structured_content]
        invalid = complete_call(wire.result("tools/call", modern({"name": "customers_store", "arguments": {"name": "X", "email": "nope"}})))
        assert invalid.is_error is True

        delete = {"name": "customers_delete", "arguments": {"id": 1}}
        asked = wire.result("tools/call", modern(delete))
        methods.validate_server_result("tools/call", MODERN, asked)
        assert asked["resultType"] == "input_required"
        question = v2026.InputRequiredResult.model_validate(asked)
        assert question.request_state and set(question.input_requests or {}) == {"confirm"}
        assert isinstance(question.input_requests["confirm"], v2026.ElicitRequest)
        retry = {**delete, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}}, "requestState": question.request_state}
        deleted = complete_call(wire.result("tools/call", modern(retry)))
        assert deleted.is_error is not True

        resources = wire.result("resources/list", modern())
        methods.validate_server_result("resources/list", MODERN, resources)
        assert [resource["uri"] for resource in resources["resources"]] == [INDEX_URI]

        read = wire.result("resources/read", modern({"uri": INDEX_URI}))
        methods.validate_server_result("resources/read", MODERN, read)
        assert read["resultType"] == "complete"
        contents = v2026.ReadResourceResult.model_validate(read).contents
        assert json.loads(kind(contents[0], v2026.TextResourceContents).text) == []


def test_a_confirmation_the_client_cannot_give_is_a_valid_minus_32021_error(crm_home):
    with Wire(crm_home) as wire:
        answer = wire.ask("tools/call", modern({"name": "customers_delete", "arguments": {"id": 1}}, capabilities={}))
    v2026.MissingRequiredClientCapabilityError.model_validate(answer)
    assert answer["error"]["code"] == -32021


def test_the_listen_ack_and_its_update_validate_as_2026_notifications(crm_home):
    with Wire(crm_home) as wire:
        listen = modern({"notifications": {"resourceSubscriptions": [INDEX_URI]}})
        wire.send({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": listen})
        ack = wire.notification("notifications/subscriptions/acknowledged")
        wire.result("tools/call", modern({"name": "customers_store", "arguments": ADA}))
        update = wire.notification("notifications/resources/updated")
    for message in (ack, update):
        jsonrpc.JSONRPCNotification.model_validate(message)
        methods.parse_server_notification(message["method"], MODERN, message["params"])
        assert message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"
    assert ack["params"]["notifications"] == {"resourceSubscriptions": [INDEX_URI]}
    assert update["params"]["uri"] == INDEX_URI


def test_every_legacy_result_validates_against_the_sdks_2025_11_25_models(crm_home):
    with Wire(crm_home) as wire:
        hello = wire.result("initialize", {"protocolVersion": LEGACY, "capabilities": ELICITATION, "clientInfo": {"name": "rata-wire-tests", "version": "1.0"}})
        methods.validate_server_result("initialize", LEGACY, hello)
        assert hello["protocolVersion"] == LEGACY and hello["serverInfo"]["name"] == "crm"
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

        listed = wire.result("tools/list")
        methods.validate_server_result("tools/list", LEGACY, listed)
        assert sorted(tool["name"] for tool in listed["tools"]) == TOOL_NAMES
        assert all(tool["outputSchema"]["type"] == "object" for tool in listed["tools"] if "outputSchema" in tool)

        stored = wire.result("tools/call", {"name": "customers_store", "arguments": ADA})
        methods.validate_server_result("tools/call", LEGACY, stored)
        listing = wire.result("tools/call", {"name": "customers_index", "arguments": {}})
        methods.validate_server_result("tools/call", LEGACY, listing)
        assert v2025.CallToolResult.model_validate(listing).structured_content == {"result": [stored["structuredContent"]]}

        read = wire.result("resources/read", {"uri": INDEX_URI})
        methods.validate_server_result("resources/read", LEGACY, read)
        assert json.loads(read["contents"][0]["text"]) == [stored["structuredContent"]]
        for result in (hello, listed, stored, listing, read):
            assert not {"resultType", "ttlMs", "cacheScope"} & set(result)


def test_the_legacy_confirmation_is_a_valid_elicitation_request_to_the_client(crm_home):
    with Wire(crm_home) as wire:
        wire.result("initialize", {"protocolVersion": LEGACY, "capabilities": ELICITATION, "clientInfo": {"name": "rata-wire-tests", "version": "1.0"}})
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        wire.result("tools/call", {"name": "customers_store", "arguments": ADA})
        wire.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "customers_delete", "arguments": {"id": 1}}})
        request = wire.next_message()
        jsonrpc.JSONRPCRequest.model_validate(request)
        assert request["method"] == "elicitation/create"
        methods.parse_server_request("elicitation/create", LEGACY, request["params"])
        wire.send({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"confirm": True}}})
        answer = wire.next_message()
        assert answer["id"] == 99, answer
        methods.validate_server_result("tools/call", LEGACY, answer["result"])
        assert answer["result"].get("isError") is not True
        assert json.loads(wire.result("resources/read", {"uri": INDEX_URI})["contents"][0]["text"]) == []
