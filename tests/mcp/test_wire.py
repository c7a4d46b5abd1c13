"""Line framing: every malformed line maps to the right JSON-RPC error."""

import pytest

from rata.mcp import wire


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
