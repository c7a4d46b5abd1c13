"""The handshake versions: each `initialize` is answered with the version asked for when rata has it
(2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), and every result carries only what that version defines.

`SCHEMA_KEYS` is each version's key whitelist, read from its ``schema/<version>/schema.ts`` in
modelcontextprotocol/modelcontextprotocol @ b0f60ba5409db7a6582440a7b473cc0398890f15 (the fields of
each interface, those it extends included). The SDK's `mcp_types` has models for 2025-11-25 only
(older versions validate against them, and they allow extra keys), so the whitelist is what proves an
older result has nothing its version lacks; `mcp_types` still checks each result's types.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp.client import session as sdk_session
from mcp_types import methods as sdk_methods

from rata.mcp import wire
from rata.mcp.methods import FEATURE_KEYS, VERSIONS
from rata.mcp.server import Server
from rata.testing import AgentClient
from tests.mcp import test_sdk_peer as sdk_peer
from tests.mcp.fixtures import crm  # noqa: F401 - pytest fixture
from tests.mcp.peers import INDEX_URI, TOOL_NAMES, crm_home, migrated_folder  # noqa: F401 - fixtures
from tests.mcp.test_loading import Gate, answers, connect, recorded  # noqa: F401 - recorded is a fixture
from tests.mcp.test_sdk_wire import ADA, ELICITATION, Wire

OLDER = ["2025-06-18", "2025-03-26", "2024-11-05"]
HANDSHAKE = ["2025-11-25", *OLDER]

_RESULT = {"_meta"}
_TOOL_2024 = {"name", "description", "inputSchema"}
_RESOURCE_2024 = {"uri", "name", "description", "mimeType", "annotations", "size"}
_IMPLEMENTATION_2024 = {"name", "version"}
_ANNOTATIONS_2025 = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

SCHEMA_KEYS: dict[str, dict[str, set[str] | None]] = {
    "2024-11-05": {
        "InitializeResult": _RESULT | {"protocolVersion", "capabilities", "serverInfo", "instructions"},
        "Implementation": _IMPLEMENTATION_2024,
        "ListToolsResult": _RESULT | {"tools", "nextCursor"},
        "Tool": _TOOL_2024,
        "ToolAnnotations": None,
        "CallToolResult": _RESULT | {"content", "isError"},
        "TextContent": {"type", "text", "annotations"},
        "ImageContent": {"type", "data", "mimeType", "annotations"},
        "AudioContent": None,
        "ListResourcesResult": _RESULT | {"resources", "nextCursor"},
        "Resource": _RESOURCE_2024,
        "ReadResourceResult": _RESULT | {"contents"},
        "TextResourceContents": {"uri", "mimeType", "text"},
        "ElicitRequestParams": None,
    },
}
SCHEMA_KEYS["2025-03-26"] = {
    **SCHEMA_KEYS["2024-11-05"],
    "Tool": _TOOL_2024 | {"annotations"},
    "ToolAnnotations": _ANNOTATIONS_2025,
    "AudioContent": {"type", "data", "mimeType", "annotations"},
}
SCHEMA_KEYS["2025-06-18"] = {
    **SCHEMA_KEYS["2025-03-26"],
    "Implementation": _IMPLEMENTATION_2024 | {"title"},
    "Tool": _TOOL_2024 | {"annotations", "title", "outputSchema", "_meta"},
    "CallToolResult": _RESULT | {"content", "isError", "structuredContent"},
    "TextContent": {"type", "text", "annotations", "_meta"},
    "ImageContent": {"type", "data", "mimeType", "annotations", "_meta"},
    "AudioContent": {"type", "data", "mimeType", "annotations", "_meta"},
    "Resource": _RESOURCE_2024 | {"title", "_meta"},
    "TextResourceContents": {"uri", "mimeType", "text", "_meta"},
    "ElicitRequestParams": {"_meta", "message", "requestedSchema"},
}
SCHEMA_KEYS["2025-11-25"] = {
    **SCHEMA_KEYS["2025-06-18"],
    "Implementation": _IMPLEMENTATION_2024 | {"title", "icons", "description", "websiteUrl"},
    "Tool": _TOOL_2024 | {"annotations", "title", "outputSchema", "_meta", "icons", "execution"},
    "Resource": _RESOURCE_2024 | {"title", "_meta", "icons"},
    "ElicitRequestParams": {"_meta", "task", "mode", "message", "requestedSchema"},
}
CONTENT = {"text": "TextContent", "image": "ImageContent", "audio": "AudioContent"}


def has_only(value: dict[str, Any], version: str, interface: str) -> None:
    allowed = SCHEMA_KEYS[version][interface]
    assert allowed is not None, f"{version} has no {interface}, yet it was sent: {value}"
    assert set(value) <= allowed, f"{version} {interface} has no {sorted(set(value) - allowed)}"


def check_tools(listed: dict[str, Any], version: str) -> None:
    has_only(listed, version, "ListToolsResult")
    sdk_methods.validate_server_result("tools/list", version, listed)
    for tool in listed["tools"]:
        has_only(tool, version, "Tool")
        if "annotations" in tool:
            has_only(tool["annotations"], version, "ToolAnnotations")


def check_call(result: dict[str, Any], version: str) -> None:
    has_only(result, version, "CallToolResult")
    sdk_methods.validate_server_result("tools/call", version, result)
    for item in result["content"]:
        has_only(item, version, CONTENT[item["type"]])


def check_resources(listed: dict[str, Any], read: dict[str, Any], version: str) -> None:
    has_only(listed, version, "ListResourcesResult")
    for resource in listed["resources"]:
        has_only(resource, version, "Resource")
    has_only(read, version, "ReadResourceResult")
    for contents in read["contents"]:
        has_only(contents, version, "TextResourceContents")


def hello(wire_: Wire, version: str, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    capabilities = ELICITATION if capabilities is None else capabilities
    params = {"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "rata-versions", "version": "1"}}
    answered = wire_.result("initialize", params)
    wire_.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return answered


# --- through the real `crm --mcp` ---


@pytest.mark.subprocess
@pytest.mark.parametrize("version", HANDSHAKE)
def test_crm_answers_each_handshake_version_with_exactly_its_keys(crm_home, version):
    newer = {name: version >= since for name, since in (("structured", "2025-06-18"), ("annotations", "2025-03-26"))}
    with Wire(crm_home) as wire_:
        answered = hello(wire_, version)
        assert answered["protocolVersion"] == version
        has_only(answered, version, "InitializeResult")
        has_only(answered["serverInfo"], version, "Implementation")
        sdk_methods.validate_server_result("initialize", version, answered)

        listed = wire_.result("tools/list")
        check_tools(listed, version)
        assert sorted(tool["name"] for tool in listed["tools"]) == TOOL_NAMES
        assert any("outputSchema" in tool for tool in listed["tools"]) is newer["structured"]
        assert any("annotations" in tool for tool in listed["tools"]) is newer["annotations"]

        stored = wire_.result("tools/call", {"name": "customers_store", "arguments": ADA})
        check_call(stored, version)
        assert json.loads(stored["content"][0]["text"])["email"] == ADA["email"]
        assert ("structuredContent" in stored) is newer["structured"]
        invalid = wire_.result("tools/call", {"name": "customers_store", "arguments": {"name": "X", "email": "nope"}})
        check_call(invalid, version)
        assert invalid["isError"] is True

        check_resources(wire_.result("resources/list"), wire_.result("resources/read", {"uri": INDEX_URI}), version)
        assert wire_.result("ping") == {}


@pytest.mark.subprocess
@pytest.mark.parametrize("asked", ["2099-01-01", "2026-07-28", "2024-10-07"])
def test_crm_answers_an_unknown_or_modern_handshake_version_with_2025_11_25(crm_home, asked):
    with Wire(crm_home) as wire_:
        assert hello(wire_, asked)["protocolVersion"] == "2025-11-25"
        listed = wire_.result("tools/list")
    assert any("outputSchema" in tool for tool in listed["tools"])


@pytest.mark.subprocess
@pytest.mark.parametrize("version", ["2025-03-26", "2024-11-05"])
def test_a_confirmed_command_under_a_version_without_elicitation_is_refused_with_is_error(crm_home, version):
    with Wire(crm_home) as wire_:
        hello(wire_, version)  # the client declares elicitation, which its version does not have
        wire_.result("tools/call", {"name": "customers_store", "arguments": ADA})
        refused = wire_.result("tools/call", {"name": "customers_delete", "arguments": {"id": 1}})
        check_call(refused, version)
        assert refused["isError"] is True
        assert refused["content"][0]["text"] == (
            f"customers_delete needs the user's confirmation, and this client cannot ask for it (protocol version {version} has no elicitation). "
            "Ask the user to do this in the app, or use a client that supports elicitation."
        )
        assert not any(message.get("method") == "elicitation/create" for message in wire_.notifications)
        left = wire_.result("resources/read", {"uri": INDEX_URI})
    assert [customer["email"] for customer in json.loads(left["contents"][0]["text"])] == [ADA["email"]]  # nothing was deleted


@pytest.mark.subprocess
def test_a_2025_06_18_confirmation_is_an_elicitation_request_without_the_2025_11_25_mode(crm_home):
    with Wire(crm_home) as wire_:
        hello(wire_, "2025-06-18", {"elicitation": {}})
        wire_.result("tools/call", {"name": "customers_store", "arguments": ADA})
        wire_.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "customers_delete", "arguments": {"id": 1}}})
        request = wire_.next_message()
        assert request["method"] == "elicitation/create"
        has_only(request["params"], "2025-06-18", "ElicitRequestParams")
        sdk_methods.parse_server_request("elicitation/create", "2025-06-18", request["params"])
        wire_.send({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"confirm": True}}})
        answer = wire_.next_message()
        assert answer["id"] == 99 and answer["result"].get("isError") is not True, answer
        check_call(answer["result"], "2025-06-18")
        assert json.loads(wire_.result("resources/read", {"uri": INDEX_URI})["contents"][0]["text"]) == []


# --- in process: the version table, every result shape, the manifest ---


FULL_RESULT = {
    "content": [
        {"type": "text", "text": "t", "annotations": {"priority": 1}, "_meta": {"k": 1}},
        {"type": "image", "data": "AA==", "mimeType": "image/png", "_meta": {"k": 1}},
        {"type": "audio", "data": "AA==", "mimeType": "audio/wav", "_meta": {"k": 1}},
    ],
    "structuredContent": {"a": 1},
    "isError": False,
    "resultType": "complete",
    "ttlMs": 1,
    "cacheScope": "public",
    "_meta": {"k": 1},
}
"""A tools/call result with every key rata could put in one (2026-07-28 ones included)."""
FULL_TOOL = {
    "name": "t",
    "title": "T",
    "description": "d",
    "inputSchema": {"type": "object", "properties": {}},
    "outputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True, "title": "T"},
    "icons": [{"src": "https://example.com/i.png"}],
    "execution": {"taskSupport": "forbidden"},
    "_meta": {"k": 1},
}
FULL_RESOURCE = {"uri": "app://t", "name": "t", "title": "T", "description": "d", "mimeType": "application/json", "icons": [], "_meta": {"k": 1}}
FULL_INFO = {"name": "crm", "version": "1", "title": "CRM", "description": "d", "websiteUrl": "https://example.com", "icons": []}


@pytest.mark.parametrize("version", HANDSHAKE)
def test_every_result_shape_of_a_version_has_only_keys_its_schema_defines(version):
    row = VERSIONS[version]
    shaped = Server({"name": "crm", "version": "1"}, {}, send=lambda data: None, capabilities={}).shape(FULL_RESULT, row)
    check_call(shaped, version)
    assert [item["type"] for item in shaped["content"]][:2] == ["text", "image"]
    check_tools({"tools": row.tools([FULL_TOOL])}, version)
    has_only(row.resources([FULL_RESOURCE])[0], version, "Resource")
    has_only(row.info(FULL_INFO), version, "Implementation")
    if "elicitation" in row.features:
        has_only(row.elicitation({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}), version, "ElicitRequestParams")
    else:
        assert SCHEMA_KEYS[version]["ElicitRequestParams"] is None
    # and nothing more is dropped than the schema lacks: every key the version defines survives
    tool_keys, result_keys, info_keys = (SCHEMA_KEYS[version][name] for name in ("Tool", "CallToolResult", "Implementation"))
    assert tool_keys is not None and result_keys is not None and info_keys is not None
    assert set(row.tools([FULL_TOOL])[0]) == set(FULL_TOOL) & tool_keys
    assert set(shaped) == set(FULL_RESULT) & result_keys
    assert set(row.info(FULL_INFO)) == set(FULL_INFO) & info_keys


def test_audio_content_under_2024_11_05_is_told_in_text_not_sent():
    shaped = Server({"name": "crm", "version": "1"}, {}, send=lambda data: None, capabilities={}).shape(FULL_RESULT, VERSIONS["2024-11-05"])
    assert shaped["content"][2] == {"type": "text", "text": "(audio content left out: protocol version 2024-11-05 has no audio content)"}


def test_the_version_rows_are_the_features_and_nothing_else():
    """Each handshake row differs from 2025-11-25 only by what its missing features bring (`FEATURE_KEYS`)."""
    newest = VERSIONS["2025-11-25"]
    assert newest.features == frozenset(FEATURE_KEYS) and not newest.tool_drops and not newest.item_drops
    assert VERSIONS["2025-06-18"].features == newest.features - {"icons", "toolExecution", "implementationDetails", "elicitationModes"}
    assert "elicitation" not in VERSIONS["2025-03-26"].features and "toolAnnotations" in VERSIONS["2025-03-26"].features
    assert not {"toolAnnotations", "audio"} & VERSIONS["2024-11-05"].features
    assert all(VERSIONS[version].era == "legacy" and VERSIONS[version].resource_not_found == -32002 for version in HANDSHAKE)
    assert set(wire.HANDSHAKE_VERSIONS) == set(HANDSHAKE)


@pytest.mark.parametrize("version", OLDER)
def test_the_manifest_fast_path_answers_each_version_as_the_loaded_app_does(crm, recorded, version):
    gate = Gate(crm)
    client, loading = connect(recorded, gate, "legacy", version)
    with client:
        before = answers(client)
        assert not loading.wait(0)  # answered while the app was still loading
        gate.open()
        assert loading.wait(10)
        after = answers(client)
    with AgentClient(crm, era="legacy", version=version) as plain:
        assert before == after == answers(plain)
    assert before[0]["protocolVersion"] == version
    check_tools(before[1], version)


# --- the official SDK client, made to ask for an older version ---
# mcp 2.3.0's `Client` always asks for `LATEST_HANDSHAKE_VERSION` in initialize (no option chooses
# another), so these tests set that module constant of its session: the rest is the SDK as shipped.


@pytest.mark.anyio
@pytest.mark.subprocess
@pytest.mark.parametrize("version", OLDER)
async def test_the_sdk_client_asking_an_older_version_gets_it_and_lists_and_calls(crm_home, version, monkeypatch):
    monkeypatch.setattr(sdk_session, "LATEST_HANDSHAKE_VERSION", version)
    elicit = sdk_peer.Answers("accept", {"confirm": True})
    with anyio.fail_after(sdk_peer.TEST_SECONDS):
        async with sdk_peer.connected(crm_home, "legacy", elicit) as client:
            assert client.protocol_version == version
            listed = await client.list_tools()
            stored = await client.call_tool("customers_store", ADA)
            deleted = await client.call_tool("customers_delete", {"id": 1})
    assert sorted(tool.name for tool in listed.tools) == TOOL_NAMES
    assert all((tool.output_schema is not None) is (version == "2025-06-18") for tool in listed.tools if tool.name != "customers_delete")
    assert stored.is_error is not True and json.loads(sdk_peer.text_of(stored))["email"] == ADA["email"]
    assert (stored.structured_content is not None) is (version == "2025-06-18")
    if version == "2025-06-18":
        assert deleted.is_error is not True and len(elicit.asked) == 1
    else:
        assert deleted.is_error is True and f"protocol version {version} has no elicitation" in sdk_peer.text_of(deleted) and not elicit.asked


@pytest.mark.anyio
@pytest.mark.subprocess
@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05"])
async def test_rata_mcp_dev_answers_an_older_version_too(tmp_path, rata_home, version, monkeypatch):
    from tests.dev_server import test_dev_server as dev

    monkeypatch.setattr(sdk_session, "LATEST_HANDSHAKE_VERSION", version)
    world = dev.World(tmp_path, rata_home)
    world.seed()
    with anyio.fail_after(dev.TEST_SECONDS):
        async with dev.connected(world.server(), "legacy") as client:
            assert client.protocol_version == version
            listed = await client.list_tools()
            info = await client.call_tool("app_info", {})
    assert sorted(tool.name for tool in listed.tools) == dev.TOOLS
    newest = version == "2025-06-18"
    assert all((tool.annotations is not None) is newest for tool in listed.tools)
    assert any(tool.output_schema is not None for tool in listed.tools) is newest
    assert info.is_error is False
    # without structuredContent (before 2025-06-18) the text written for a model carries every fact
    assert "\nidentifier: com.example.crm\n" in dev.text_of(info) and "\ncommands: 6\ntools: 4\n" in dev.text_of(info)
    assert (info.structured_content is not None) is newest
