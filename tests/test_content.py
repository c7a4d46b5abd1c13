"""Content parts (`rata.content`): the return types that may hold them, their JSON form and its schema, and the checks on what a command returns."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Annotated, Any, Optional, cast
from unittest import mock

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata import App, Audio, Content, Ctx, EmbeddedResource, Image, Mcp, Part, ResourceLink, Text, command
from rata import content as content_module
from rata.codegen.catalog import build_catalog
from rata.command_spec import inspect_command
from rata.content import PART_SCHEMAS, PartError, part_from_json, part_json, sniff
from rata.convert import Mismatch, to_json
from rata.errors import CodegenError
from rata.typemodel import Analyzer, ContentNode, ObjectNode, PartsNode
from tests.mcp.reports import PNG, WAV, rich_app

LIMIT = 64  # the per-part bound while a property runs (the real one is megabytes)
TOTAL = 150


def node(hint):
    return Analyzer().analyze_result(hint, "command 'x', return type")


@dataclass
class Summary:
    total: int


# --- which return types hold parts -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "kinds", "many", "optional"),
    [
        (Image, {"image"}, False, False),
        (Image | Audio, {"image", "audio"}, False, False),
        (Optional[EmbeddedResource], {"resource"}, False, True),  # noqa: UP045 - the spelling under test
        (list[Part], {"text", "image", "audio", "resource", "resource_link"}, True, False),
        (list[Image | Text], {"image", "text"}, True, False),
        (tuple[ResourceLink, ...], {"resource_link"}, True, False),
        (Annotated[Image, "the chart"], {"image"}, False, False),
    ],
)
def test_a_part_a_union_of_parts_or_a_list_of_them_is_a_parts_return_type(hint, kinds, many, optional):
    parts = node(hint)
    assert isinstance(parts, PartsNode)
    assert (parts.kinds, parts.many, parts.optional) == (kinds, many, optional)


def test_content_of_t_is_typed_data_with_parts():
    found = node(Content[Summary])
    assert isinstance(found, ContentNode) and isinstance(found.data, ObjectNode) and found.data.name == "Summary"


@pytest.mark.parametrize(
    "hint",
    [Summary | Image, list[Summary | Image], dict[str, Image], list[Optional[Image]], Content, Content[Image]],  # noqa: UP045
    ids=["data or part", "list of data or parts", "dict of parts", "list of optional parts", "bare Content", "Content of a part"],
)
def test_parts_anywhere_but_the_return_type_itself_are_refused_when_the_app_is_built(hint):
    with pytest.raises(CodegenError) as raised:
        node(hint)
    assert "command 'x', return type" in raised.value.message


@dataclass
class Holder:
    picture: Image


def test_a_part_as_a_parameter_or_a_field_is_refused_with_the_fix():
    def takes(ctx: Ctx, picture: Image) -> str:
        return ""

    def holds(ctx: Ctx) -> Holder:
        return Holder(Image(PNG))

    for fn, where in ((takes, "parameter 'picture'"), (holds, "Holder.picture")):
        with pytest.raises(CodegenError) as raised:
            inspect_command(command(can="x.y")(fn), Analyzer(), Ctx)
        assert where in raised.value.message and "can only be its return type" in raised.value.message
        assert "Content[T]" in (raised.value.hint or "")


# --- the schemas: the tool's, and the JSON form a frontend gets --------------------------------------------


def test_the_tools_output_schema_is_the_datas_and_the_catalog_describes_the_json_form():
    catalog = build_catalog(rich_app())
    tools = {tool["name"]: tool for tool in catalog.tools}
    commands = {entry["name"]: entry for entry in catalog.commands}
    assert "outputSchema" not in tools["mixed"] and "outputSchema" not in tools["chart"]
    assert tools["report"]["outputSchema"]["properties"] == {"quarter": {"type": "string"}, "total": {"type": "integer"}}
    assert commands["mixed"]["content"] == ["text", "image", "audio", "resource", "resource_link"]
    assert commands["report"]["content"] == ["text", "image", "audio", "resource", "resource_link"]
    assert commands["chart"]["content"] == ["image"] and "content" not in commands["greeting"]
    assert commands["chart"]["outputSchema"] == PART_SCHEMAS["image"]


@pytest.mark.parametrize(
    ("name", "args"), [("mixed", {}), ("report", {}), ("quarters", {}), ("chart", {}), ("archive", {}), ("link", {}), ("maybe_chart", {"show": False})]
)
def test_every_json_form_a_frontend_gets_validates_against_the_catalogs_output_schema(name, args):
    app = rich_app()
    schema = next(entry for entry in build_catalog(app).commands if entry["name"] == name)["outputSchema"]
    jsonschema.Draft202012Validator(schema).validate(app.call(name, **args))


def test_the_json_form_is_the_mcp_content_block_and_reads_back_as_the_same_part():
    parts = [
        Text("hi"),
        Image(PNG, mime_type="image/png"),
        Audio(WAV, mime_type="audio/wav"),
        EmbeddedResource("app://notes/1", text="n", mime_type="text/markdown"),
        EmbeddedResource("app://blob/1", blob=b"\x00\x01", mime_type="application/octet-stream"),
        ResourceLink("https://example.com/r.pdf", "r.pdf", title="R", description="d", mime_type="application/pdf", size=3),
    ]
    for part in parts:
        block = part_json(part)
        jsonschema.Draft202012Validator(PART_SCHEMAS[block["type"]]).validate(block)
        assert part_from_json(block) == part


# --- the checks --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "problem", "fix"),
    [
        (Image(PNG, mime_type="audio/wav"), "'audio/wav', which is not image/*", "Return Audio for it"),
        (Audio(PNG, mime_type="audio/wav"), "declared as 'audio/wav', but its bytes are image/png", "Pass mime_type='image/png'"),
        (Image(b"\x00" * 10), "without a MIME type, and its bytes are not a format rata recognizes", "(e.g. 'image/png')"),
        (Image(cast(Any, "aGk="), mime_type="image/png"), "with data of type str", "not text or base64"),
        (Image(PNG, path="x.png"), "with both data and a path", "Give one"),
        (Image(PNG, mime_type="png"), "the MIME type 'png', which is not one", "type/subtype"),
        (EmbeddedResource("notes.txt", text="x"), "the URI 'notes.txt', which is not one", "absolute URI"),
        (EmbeddedResource("app://x"), "neither text nor a blob", "Give one"),
        (ResourceLink("app://x", ""), "an empty name", "Give the link a name"),
        (ResourceLink("app://x", "x", size=-1), "the size -1", "whole number"),
    ],
)
def test_a_part_that_cannot_be_sent_says_which_why_and_the_fix(part, problem, fix):
    with pytest.raises(PartError) as raised:
        part_json(part, "result[1]")
    assert problem in str(raised.value) and "at result[1]" in str(raised.value)
    assert fix in raised.value.hint


def test_a_file_is_read_no_further_than_the_bound(tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(PNG + b"\x00" * 100)
    with mock.patch.object(content_module, "MAX_PART_BYTES", LIMIT), mock.patch("builtins.open", wraps=open) as opened, pytest.raises(PartError) as raised:
        part_json(Image(path=big))
    assert "the file is over the 64 bytes a part may hold" in str(raised.value)
    assert opened.call_count == 1
    assert part_json(Image(path=str(tmp_path / "big.png"), mime_type="image/png"))["data"] == base64.b64encode(big.read_bytes()).decode()


def test_a_file_without_a_type_in_its_bytes_takes_it_from_its_suffix(tmp_path):
    drawing = tmp_path / "logo.svg"
    drawing.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert part_json(Image(path=drawing))["mimeType"] == "image/svg+xml"


def test_a_wrong_value_for_the_return_type_is_a_mismatch_with_a_hint():
    with pytest.raises(Mismatch) as raised:
        to_json(node(Image), Audio(WAV, mime_type="audio/wav"))
    assert "Audio at result, not Image" in str(raised.value) and raised.value.hint
    with pytest.raises(Mismatch):
        to_json(node(Content[Summary]), Summary(1))
    with pytest.raises(Mismatch) as data_mismatch:
        to_json(node(Content[Summary]), Content("no", []))
    assert data_mismatch.value.hint is None  # the data is checked as any result is


@given(st.binary(max_size=LIMIT * 2), st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"]))
def test_an_image_passes_exactly_when_it_fits_and_its_bytes_do_not_contradict_its_type(data, mime_type):
    sniffed = sniff(data)
    fits = len(data) <= LIMIT
    agrees = sniffed is None or mime_type in content_module._SAME.get(sniffed, {sniffed})
    with mock.patch.object(content_module, "MAX_PART_BYTES", LIMIT):
        try:
            block = part_json(Image(data, mime_type=mime_type))
        except PartError as error:
            assert not (fits and agrees), error
            assert error.hint
        else:
            assert fits and agrees
            assert base64.b64decode(block["data"]) == data and block["mimeType"] == mime_type


@given(st.lists(st.integers(min_value=0, max_value=LIMIT + 8), max_size=8))
def test_a_result_passes_exactly_when_each_part_and_all_of_them_fit(sizes):
    parts = [Image(b"\x00" * size, mime_type="image/png") for size in sizes]
    with mock.patch.object(content_module, "MAX_PART_BYTES", LIMIT), mock.patch.object(content_module, "MAX_CONTENT_BYTES", TOTAL):
        try:
            to_json(node(list[Image]), parts)
        except Mismatch as error:
            assert any(size > LIMIT for size in sizes) or sum(sizes) > TOTAL, error
        else:
            assert all(size <= LIMIT for size in sizes) and sum(sizes) <= TOTAL


@given(st.text(max_size=80))
def test_a_mime_type_is_accepted_only_when_well_formed_and_of_the_parts_kind(mime_type):
    try:
        block = part_json(Audio(b"\x00\x00", mime_type=mime_type))
    except PartError:
        return
    assert block["mimeType"] == mime_type
    assert re.fullmatch(r"audio/[A-Za-z0-9][^\s/;]*(\s*;.*)?", mime_type, re.IGNORECASE | re.DOTALL)
    assert not any(ord(ch) < 32 or ord(ch) == 127 for ch in mime_type)


@given(st.binary(max_size=64))
def test_sniffing_any_bytes_names_a_known_type_or_nothing(data):
    found = sniff(data)
    assert found is None or found in {
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/bmp",
        "image/avif",
        "image/heic",
        "audio/wav",
        "audio/mpeg",
        "audio/ogg",
        "audio/flac",
        "audio/mp4",
        "audio/aac",
    }


@pytest.mark.parametrize(
    ("data", "mime_type"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 30, "image/jpeg"),
        (b"GIF89a" + b"\x00" * 30, "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (WAV, "audio/wav"),
        (b"ID3\x04" + b"\x00" * 30, "audio/mpeg"),
        (b"OggS" + b"\x00" * 30, "audio/ogg"),
        (b"fLaC" + b"\x00" * 30, "audio/flac"),
    ],
)
def test_common_formats_are_recognized_by_their_first_bytes(data, mime_type):
    assert sniff(data) == mime_type


@given(
    st.one_of(
        st.builds(Text, st.text(max_size=20)),
        st.builds(lambda data: Image(data, mime_type="image/x-test"), st.binary(max_size=20).filter(lambda data: sniff(data) is None)),
        st.builds(lambda text: EmbeddedResource("app://r", text=text), st.text(max_size=20)),
        st.builds(lambda blob: EmbeddedResource("app://r", blob=blob), st.binary(max_size=20)),
        st.builds(lambda name, size: ResourceLink("app://r", name, size=size), st.text(min_size=1, max_size=20), st.none() | st.integers(0, 2**40)),
    )
)
def test_every_part_reads_back_from_its_json_form(part):
    assert part_from_json(part_json(part)) == part


def test_an_app_with_a_content_command_builds_and_serves_like_any_other():
    @command(can="a.b")
    def picture(ctx: Ctx) -> Image:
        return Image(PNG)

    app = App("pics", identifier="com.example.pics").commands(picture).allow_abilities(["a.*"]).mcp(Mcp().allow_abilities(["a.*"]))
    assert app.call("picture")["mimeType"] == "image/png"


def test_parts_from_a_generator_that_never_ends_are_read_no_further_than_the_bound():
    import itertools

    endless = (Text("again") for _ in itertools.count())
    with pytest.raises(Mismatch) as raised:
        to_json(node(list[Text]), endless)
    assert f"more than {content_module.MAX_PARTS} content parts at result" in str(raised.value)
    assert next(endless) == Text("again")  # the generator is still there: nothing drained it


def test_a_text_part_over_the_bound_is_refused_by_its_size_in_utf8():
    with mock.patch.object(content_module, "MAX_PART_BYTES", 8):
        assert part_json(Text("12345678"))["text"] == "12345678"
        with pytest.raises(PartError, match="whose text is 9 bytes, over the 8 bytes"):
            part_json(Text("éééé5"))  # 5 characters, 9 bytes
        with pytest.raises(PartError, match="whose text is 9 bytes"):
            part_json(Text("123456789"))


def test_format_is_short_for_the_mime_type_as_in_fastmcp_and_the_sdk():
    assert part_json(Image(PNG, format="png"))["mimeType"] == "image/png"
    assert Image(b"x", format="jpg").mime_type == "image/jpeg" and Audio(b"x", format="mp3").mime_type == "audio/mpeg"
    assert Image(PNG, format="jpeg", mime_type="image/png").mime_type == "image/png"  # the explicit type wins


def test_audience_and_priority_are_sent_as_the_parts_annotations():
    block = part_json(Image(PNG, mime_type="image/png", audience=["user"], priority=1))
    assert block["annotations"] == {"audience": ["user"], "priority": 1}
    assert "annotations" not in part_json(Text("plain"))
    for bad, fix in ((Text("x", audience="user"), "Give a list"), (Text("x", audience=["model"]), "'user' and 'assistant'"), (Text("x", priority=2), "from 0")):
        with pytest.raises(PartError) as raised:
            part_json(bad)
        assert fix in raised.value.hint


@given(st.none() | st.lists(st.sampled_from(["user", "assistant"]), max_size=2), st.none() | st.floats(0, 1))
def test_annotations_read_back_from_the_json_form(audience, priority):
    part = ResourceLink("app://r", "r", audience=audience, priority=priority)
    assert part_from_json(part_json(part)) == part
