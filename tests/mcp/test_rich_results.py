"""Commands that return content parts (`rata.content`), through every protocol version.

In process through `AgentClient`; on the raw wire of a real ``rata mcp serve`` child, every result
checked against the SDK's models (`mcp_types`) and, for the older versions, against the keys each
version's ``schema.ts`` defines; and through the official SDK client in its three modes.
"""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from mcp_types import methods as sdk_methods

from rata import Audio, EmbeddedResource, Image, ResourceLink
from rata.content import MAX_CONTENT_BYTES, MAX_PART_BYTES
from rata.dispatch import CommandRequest, Origin
from rata.mcp import wire
from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.mcp import test_versions
from tests.mcp.peers import MODERN, search_path
from tests.mcp.reports import NOTES, PNG, WAV, ZIP, rich_app
from tests.mcp.sdk_types import kind
from tests.mcp.test_sdk_wire import Wire, modern

RICH = Path(__file__).with_name("reports.py")
HANDSHAKE = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
B64_PNG = base64.b64encode(PNG).decode()
B64_WAV = base64.b64encode(WAV).decode()
MIXED_2025_11_25 = [
    {"type": "text", "text": "Q3 at a glance:"},
    {"type": "image", "data": B64_PNG, "mimeType": "image/png"},
    {"type": "resource", "resource": {"uri": "file:///reports/q3-notes.txt", "mimeType": "text/plain", "text": NOTES}},
    {"type": "resource_link", "uri": "file:///reports/q3.pdf", "name": "q3.pdf"},
    {"type": "audio", "data": B64_WAV, "mimeType": "audio/wav"},
]
LINK_AS_TEXT = {"type": "text", "text": "(a resource link, shown as text: protocol version {v} has no resource links) q3.pdf: file:///reports/q3.pdf"}
AUDIO_AS_TEXT = {"type": "text", "text": "(audio content left out: protocol version {v} has no audio content)"}


def mixed_for(version: str) -> list[dict[str, Any]]:
    """The `mixed` command's content as `version` has it (`rata.mcp.methods.VERSIONS`)."""
    expected = [dict(item) for item in MIXED_2025_11_25]
    if version < "2025-06-18":
        expected[3] = {"type": "text", "text": LINK_AS_TEXT["text"].format(v=version)}
    if version < "2025-03-26":
        expected[4] = {"type": "text", "text": AUDIO_AS_TEXT["text"].format(v=version)}
    return expected


def client(version: str) -> AgentClient:
    app = rich_app()
    return AgentClient(app) if version == MODERN else AgentClient(app, era="legacy", version=version)


# --- in process -------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [MODERN, *HANDSHAKE])
def test_mixed_content_keeps_its_order_and_each_version_gets_the_kinds_it_has(version):
    with client(version) as agent:
        result = agent.call("mixed")
    assert not result.is_error
    assert result.content == mixed_for(version)
    assert "structuredContent" not in result.raw


@pytest.mark.parametrize("version", [MODERN, *HANDSHAKE])
def test_typed_data_with_parts_has_its_schema_and_structured_content_where_the_version_has_them(version):
    with client(version) as agent:
        listed = {tool["name"]: tool for tool in agent.request("tools/list")["tools"]}
        result = agent.call("report", {"quarter": "Q2"})
    structured = version >= "2025-06-18"
    summary = {"quarter": "Q2", "total": 1200}
    assert ("outputSchema" in listed["report"]) is structured and "outputSchema" not in listed["mixed"]
    if structured:
        assert listed["report"]["outputSchema"]["properties"] == {"quarter": {"type": "string"}, "total": {"type": "integer"}}
        assert result.data == summary
    assert ("structuredContent" in result.raw) is structured
    assert result.content == [
        {"type": "text", "text": json.dumps(summary)},
        {"type": "image", "data": B64_PNG, "mimeType": "image/png"},
        {"type": "text", "text": "Amounts are in EUR."},
    ]


@pytest.mark.parametrize(("era", "structured"), [("modern", ["Q1", "Q2", "Q3"]), ("legacy", {"result": ["Q1", "Q2", "Q3"]})])
def test_data_that_is_not_an_object_is_wrapped_for_2025_11_25_beside_its_parts(era, structured):
    with AgentClient(rich_app(), era=era) as agent:
        result = agent.call("quarters")
        schema = next(tool for tool in agent.request("tools/list")["tools"] if tool["name"] == "quarters")["outputSchema"]
    assert result.raw["structuredContent"] == structured
    assert schema["type"] == ("array" if era == "modern" else "object")
    assert result.content[1:] == [{"type": "text", "text": "Q4 is not closed yet."}]


def test_the_tool_result_decodes_images_audio_resources_and_links():
    with AgentClient(rich_app()) as agent:
        mixed = agent.call("mixed")
        archive = agent.call("archive")
        link = agent.call("link")
    assert mixed.images == [Image(PNG, mime_type="image/png")]
    assert mixed.audio == [Audio(WAV, mime_type="audio/wav")]
    assert mixed.resources == [EmbeddedResource("file:///reports/q3-notes.txt", text=NOTES, mime_type="text/plain")]
    assert mixed.links == [ResourceLink("file:///reports/q3.pdf", "q3.pdf")]
    assert mixed.text == "Q3 at a glance:"
    assert archive.resources == [EmbeddedResource("file:///reports/q3.zip", blob=ZIP, mime_type="application/zip")]
    assert link.links == [ResourceLink("file:///reports/q3.pdf", "q3.pdf", title="Q3 report", mime_type="application/pdf", size=52_000)]


def test_a_string_result_is_its_own_text_and_still_structured():
    with AgentClient(rich_app()) as modern_agent, AgentClient(rich_app(), era="legacy") as legacy_agent:
        modern_result = modern_agent.call("greeting", {"name": "Ada"})
        legacy_result = legacy_agent.call("greeting", {"name": "Ada"})
    assert modern_result.content == legacy_result.content == [{"type": "text", "text": "Hello, Ada!"}]
    assert modern_result.raw["structuredContent"] == "Hello, Ada!"
    assert legacy_result.raw["structuredContent"] == {"result": "Hello, Ada!"}


def test_an_optional_part_may_be_nothing(tmp_path):
    with AgentClient(rich_app()) as agent:
        assert agent.call("maybe_chart", {"show": False}).content == []
        assert agent.call("maybe_chart", {"show": True}).images == [Image(PNG, mime_type="image/png")]


def test_an_image_file_is_read_and_its_type_taken_from_its_bytes(tmp_path):
    picture = tmp_path / "chart.bin"
    picture.write_bytes(PNG)
    with AgentClient(rich_app()) as agent:
        assert agent.call("chart_file", {"path": str(picture)}).images == [Image(PNG, mime_type="image/png")]
        missing = agent.call("chart_file", {"path": str(tmp_path / "nope.png")})
    assert missing.is_error
    assert "chart_file" in missing.text and "an Image at result reading" in missing.text and "Check the file exists" in missing.text


def test_a_part_that_cannot_be_sent_is_an_error_result_naming_the_command_the_part_and_the_fix(caplog):
    caplog.set_level(logging.WARNING, logger="rata")
    with AgentClient(rich_app()) as agent:
        mislabelled = agent.call("mislabelled")
        too_big = agent.call("oversized", {"size": MAX_PART_BYTES + 1})
        too_much = agent.call("oversized", {"size": MAX_CONTENT_BYTES // 3 + 1})
    assert mislabelled.is_error and mislabelled.text == (
        "mislabelled failed: The command 'mislabelled' returned an Image at result declared as 'image/jpeg', but its bytes are image/png.\n"
        "Pass mime_type='image/png', or convert the image to image/jpeg."
    )
    assert too_big.is_error and "an Image at result[0] whose data is 4.0 MiB, over the 4.0 MiB a part may hold" in too_big.text
    assert too_much.is_error and "in all by an Image at result[2], over the 8.0 MiB one result may hold" in too_much.text
    assert "ResourceLink" in too_big.text and "ResourceLink" in too_much.text
    logged = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert any(message.startswith("The command mislabelled returned an Image at result declared as 'image/jpeg'") for message in logged)


def test_the_frontend_gets_the_same_parts_as_json_and_internal_calls_too():
    app = rich_app()
    frontend = app.dispatch(CommandRequest("report", {"quarter": "Q1"}, Origin.frontend()))
    assert frontend == {
        "data": {"quarter": "Q1", "total": 1200},
        "content": [{"type": "image", "data": B64_PNG, "mimeType": "image/png"}, {"type": "text", "text": "Amounts are in EUR."}],
    }
    assert app.call("mixed") == MIXED_2025_11_25
    assert app.call("chart") == {"type": "image", "data": B64_PNG, "mimeType": "image/png"}
    assert app.call("maybe_chart", show=False) is None


# --- the raw wire of a real process, per protocol version ------------------------------------------------


class RichWire(Wire):
    """`rata mcp serve` of the rich app on pipes (the `crm --mcp` `Wire`, another app)."""

    def __init__(self, home: Path) -> None:
        import itertools
        import queue
        import threading

        app_file = home.parent / "rich_app.py"
        app_file.write_text(RICH.read_text())
        command = [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=subprocess_env(home))
        self.incoming: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.ids = itertools.count(1)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()


CONTENT_KEYS = {
    "2024-11-05": {"EmbeddedResource": {"type", "resource", "annotations"}, "ResourceContents": {"uri", "mimeType", "text", "blob"}, "ResourceLink": None},
    "2025-03-26": {"EmbeddedResource": {"type", "resource", "annotations"}, "ResourceContents": {"uri", "mimeType", "text", "blob"}, "ResourceLink": None},
    "2025-06-18": {
        "EmbeddedResource": {"type", "resource", "annotations", "_meta"},
        "ResourceContents": {"uri", "mimeType", "text", "blob", "_meta"},
        "ResourceLink": {"type", "uri", "name", "title", "description", "mimeType", "annotations", "size", "_meta"},
    },
}
"""The keys of the content types `test_versions.SCHEMA_KEYS` does not list, from each version's schema.ts."""
CONTENT_KEYS["2025-11-25"] = {**CONTENT_KEYS["2025-06-18"], "ResourceLink": CONTENT_KEYS["2025-06-18"]["ResourceLink"] | {"icons"}}
INTERFACES = {"text": "TextContent", "image": "ImageContent", "audio": "AudioContent", "resource": "EmbeddedResource", "resource_link": "ResourceLink"}


def check_content(result: dict[str, Any], version: str) -> None:
    """Only the keys and content types `version` defines, and the SDK's models accept it."""
    test_versions.has_only(result, version, "CallToolResult")
    sdk_methods.validate_server_result("tools/call", version, result)
    v2025.CallToolResult.model_validate(result)
    for item in result["content"]:
        interface = INTERFACES[item["type"]]
        allowed = CONTENT_KEYS[version].get(interface, False)
        allowed = test_versions.SCHEMA_KEYS[version][interface] if allowed is False else allowed
        assert allowed is not None, f"{version} has no {interface}, yet it was sent"
        assert set(item) <= allowed
        if item["type"] == "resource":
            assert set(item["resource"]) <= CONTENT_KEYS[version]["ResourceContents"]


@pytest.mark.subprocess
@pytest.mark.parametrize("version", HANDSHAKE)
def test_each_handshake_version_gets_content_its_schema_defines_on_the_wire(rata_home, version):
    with RichWire(rata_home) as wire_:
        assert test_versions.hello(wire_, version)["protocolVersion"] == version
        results = {name: wire_.result("tools/call", {"name": name, "arguments": args}) for name, args in CALLS.items()}
    for result in results.values():
        check_content(result, version)
    assert results["mixed"]["content"] == mixed_for(version)
    assert results["chart"]["content"] == [{"type": "image", "data": B64_PNG, "mimeType": "image/png"}]
    assert results["archive"]["content"][0]["resource"]["blob"] == base64.b64encode(ZIP).decode()
    assert ("structuredContent" in results["report"]) is (version >= "2025-06-18")
    assert results["greeting"]["content"] == [{"type": "text", "text": "Hello, Ada!"}]
    assert results["caption"]["content"] == [{"type": "text", "text": "Shown to the user.", "annotations": {"audience": ["user"], "priority": 0.8}}]


CALLS = {
    "chart": {},
    "chime": {},
    "notes": {},
    "archive": {},
    "link": {},
    "mixed": {},
    "report": {},
    "quarters": {},
    "caption": {},
    "greeting": {"name": "Ada"},
}


@pytest.mark.subprocess
def test_2026_07_28_gets_every_kind_and_the_sdks_2026_models_accept_each_result(rata_home):
    with RichWire(rata_home) as wire_:
        results = {name: wire_.result("tools/call", modern({"name": name, "arguments": args})) for name, args in CALLS.items()}
        refused = wire_.result("tools/call", modern({"name": "mislabelled", "arguments": {}}))
    for result in [*results.values(), refused]:
        sdk_methods.validate_server_result("tools/call", MODERN, result)
        v2026.CallToolResult.model_validate(result)
    assert results["mixed"]["content"] == MIXED_2025_11_25
    assert results["report"]["structuredContent"] == {"quarter": "Q3", "total": 1200}
    assert results["quarters"]["structuredContent"] == ["Q1", "Q2", "Q3"]
    assert results["link"]["content"] == [
        {"type": "resource_link", "uri": "file:///reports/q3.pdf", "name": "q3.pdf", "title": "Q3 report", "mimeType": "application/pdf", "size": 52000}
    ]
    assert refused["isError"] is True and "mime_type='image/png'" in refused["content"][0]["text"]


# --- the official SDK client ----------------------------------------------------------------------------


def sdk_server(home: Path) -> StdioServerParameters:
    app_file = home.parent / "rich_app.py"
    app_file.write_text(RICH.read_text())
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    return StdioServerParameters(command=sys.executable, args=["-m", "rata", "mcp", "serve", "--app", str(app_file)], env=env)


@pytest.mark.anyio
@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["auto", MODERN, "legacy"])
async def test_the_sdk_client_receives_each_part_as_its_own_content_type(rata_home, mode):
    with anyio.fail_after(30):
        async with Client(sdk_server(rata_home), mode=mode, read_timeout_seconds=10) as sdk:
            mixed = await sdk.call_tool("mixed", {})
            report = await sdk.call_tool("report", {"quarter": "Q4"})
            quarters = await sdk.call_tool("quarters", {})
            archive = await sdk.call_tool("archive", {})
            listed = {tool.name: tool for tool in (await sdk.list_tools()).tools}
    assert [type(block) for block in mixed.content] == [types.TextContent, types.ImageContent, types.EmbeddedResource, types.ResourceLink, types.AudioContent]
    _, image, notes, link, audio = mixed.content
    image, notes = kind(image, types.ImageContent), kind(notes, types.EmbeddedResource)
    link, audio = kind(link, types.ResourceLink), kind(audio, types.AudioContent)
    assert base64.b64decode(image.data) == PNG and image.mime_type == "image/png"
    assert base64.b64decode(audio.data) == WAV and audio.mime_type == "audio/wav"
    assert isinstance(notes.resource, types.TextResourceContents) and notes.resource.text == NOTES
    assert str(link.uri) == "file:///reports/q3.pdf" and link.name == "q3.pdf"
    blob = kind(archive.content[0], types.EmbeddedResource).resource
    assert isinstance(blob, types.BlobResourceContents) and base64.b64decode(blob.blob) == ZIP
    # the SDK checks structured content against the outputSchema it listed
    assert report.structured_content == {"quarter": "Q4", "total": 1200} and not report.is_error
    assert quarters.structured_content == (["Q1", "Q2", "Q3"] if mode != "legacy" else {"result": ["Q1", "Q2", "Q3"]})
    assert listed["mixed"].output_schema is None and listed["report"].output_schema is not None
    assert wire.MODERN == MODERN
