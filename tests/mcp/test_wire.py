"""Line framing: every malformed line maps to the right JSON-RPC error."""

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.mcp import wire
from tests.mcp.hostile import app_values, lines
from tests.mcp.strict import strict_line


def frame_error(line: bytes) -> wire.FrameError:
    with pytest.raises(wire.FrameError) as caught:
        wire.parse_line(line)
    return caught.value


def test_a_request_a_notification_and_a_response_are_told_apart():
    assert wire.parse_line(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}').kind == "request"
    assert wire.parse_line(b'{"jsonrpc":"2.0","method":"notifications/cancelled"}').kind == "notification"
    assert wire.parse_line(b'{"jsonrpc":"2.0","id":"s1","result":{}}').kind == "response"


@pytest.mark.parametrize(
    ("line", "code", "has_id"),
    [
        (b"{not json", wire.PARSE_ERROR, False),
        (b"\xff\xfe{}", wire.PARSE_ERROR, False),
        (b"[1, 2]", wire.INVALID_REQUEST, False),
        (b'"just a string"', wire.INVALID_REQUEST, False),
        (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', wire.INVALID_REQUEST, False),
        (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', wire.INVALID_REQUEST, False),
        (b'{"jsonrpc":"1.0","id":3,"method":"tools/list"}', wire.INVALID_REQUEST, True),
        (b'{"jsonrpc":"2.0","id":3,"method":""}', wire.INVALID_REQUEST, True),
        (b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}', wire.INVALID_PARAMS, True),
        (b'{"jsonrpc":"2.0","id":3}', wire.INVALID_REQUEST, True),
    ],
)
def test_malformed_lines_get_the_right_code_and_an_id_only_when_known(line, code, has_id):
    error = frame_error(line)
    assert (error.error.code, error.has_id) == (code, has_id)
    message = wire.error_response(error.id, error.error, error.has_id)
    assert ("id" in message) is has_id


def test_encoded_messages_are_one_line_of_utf8():
    line = wire.encode({"jsonrpc": "2.0", "method": "x", "params": {"text": "héllo\nworld"}})
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and "héllo".encode() in line


# --- hostile input: what the parser lets through, and what the encoder writes ---


@pytest.mark.parametrize(
    ("line", "code", "has_id"),
    [
        (b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}', wire.INVALID_REQUEST, False),
        (b'{"jsonrpc":"2.0","id":"ok","method":"ping","params":{"\\ud800":1}}', wire.INVALID_REQUEST, True),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":NaN}}', wire.PARSE_ERROR, False),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":-Infinity}}', wire.PARSE_ERROR, False),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":1e400}}', wire.PARSE_ERROR, False),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":' + b"1" * 4301 + b"}}", wire.PARSE_ERROR, False),
        (b"[" * 50_000, wire.PARSE_ERROR, False),
    ],
    ids=["surrogate-id", "surrogate-key", "nan", "minus-infinity", "float-overflow", "huge-integer", "deep-nesting"],
)
def test_text_json_cannot_carry_faithfully_is_refused_with_a_message_naming_it(line, code, has_id):
    error = frame_error(line)
    assert (error.error.code, error.has_id) == (code, has_id)
    assert any(word in error.error.message for word in ("surrogate", "NaN", "Infinity", "64-bit", "digits", "deeply"))


def test_paired_surrogate_escapes_are_one_character_and_welcome():
    assert wire.parse_line(b'{"jsonrpc":"2.0","id":"\\ud83d\\ude00","method":"ping"}').id == "\U0001f600"
    assert wire.parse_line(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\\\\udfff"}}').params == {"a": "\\udfff"}


def test_a_broken_answer_from_the_client_is_marked_as_one_so_its_request_can_fail():
    error = frame_error(b'{"jsonrpc":"2.0","id":"rata-1","result":{"action":"\\udfff"}}')
    assert (error.id, error.has_id, error.response) == ("rata-1", True, True)


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (float("nan"), "NaN"),
        (float("-inf"), "NaN or infinite"),
        ("half \udfff", "lone surrogate"),
        ({1, 2}, "set"),
        (10**5000, "digits"),
        (b"bytes", "bytes"),
    ],
    ids=["nan", "infinity", "surrogate", "set", "huge-int", "bytes"],
)
def test_an_answer_that_cannot_be_written_becomes_an_internal_error_for_its_id(value, named):
    line = wire.encode(wire.response(7, {"value": value}))
    answer = strict_line(line)
    assert answer["id"] == 7 and answer["error"]["code"] == wire.INTERNAL_ERROR and named in answer["error"]["message"]


def test_a_notification_that_cannot_be_written_raises_instead_of_writing_invalid_json():
    with pytest.raises(wire.UnencodableError, match="NaN"):
        wire.encode(wire.notification("notifications/message", {"data": float("nan")}))


@given(lines())
def test_parse_line_either_gives_a_clean_message_or_a_frame_error_with_a_writable_answer(line):
    try:
        incoming = wire.parse_line(line)
    except wire.FrameError as problem:
        answer = strict_line(wire.encode(wire.error_response(problem.id, problem.error, problem.has_id)))
        assert answer["error"]["code"] in (wire.PARSE_ERROR, wire.INVALID_REQUEST, wire.INVALID_PARAMS)
        assert ("id" in answer) is problem.has_id
        return
    assert incoming.kind in ("request", "notification", "response")
    # Everything that got through can be written back as it came: Unicode text, finite numbers.
    strict_line(wire.encode({"jsonrpc": "2.0", "id": 1, "result": {"echo": [incoming.id, incoming.method, incoming.params, incoming.result, incoming.error]}}))


@given(st.binary(max_size=200))
def test_parse_line_never_raises_anything_but_frame_error_on_any_bytes(line):
    with contextlib.suppress(wire.FrameError):
        wire.parse_line(line)


@given(ids=st.one_of(st.integers(), st.text()), value=app_values())
def test_encode_writes_every_answer_as_strict_json_for_its_id_whatever_the_app_returned(ids, value):
    line = wire.encode(wire.response(ids, {"value": value}))
    answer = strict_line(line)
    assert answer["id"] == ids
    assert ("result" in answer) != ("error" in answer)
    if "error" in answer:
        assert answer["error"]["code"] == wire.INTERNAL_ERROR


@given(app_values())
def test_encode_of_a_notification_writes_strict_json_or_raises_unencodable(value):
    try:
        line = wire.encode(wire.notification("notifications/message", {"data": value}))
    except wire.UnencodableError:
        return
    strict_line(line)
