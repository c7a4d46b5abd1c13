"""The real stdio server against hostile lines: it answers each with a well-formed error, goes on serving, and exits at EOF.

Every line the server writes must be JSON that a strict reader accepts: UTF-8, no NaN or
Infinity, no lone surrogates.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from rata.mcp import wire
from tests.conftest import subprocess_env
from tests.mcp.gated import GatedServer
from tests.mcp.strict import strict_json
from tests.mcp.test_stdio import crm_command, crm_home  # noqa: F401 - crm_home is a pytest fixture

pytestmark = pytest.mark.subprocess
META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}


def line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def call(id: int | str, name: str, **arguments: object) -> bytes:
    return line({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"_meta": META, "name": name, "arguments": arguments}})


FOLLOW_UPS = (
    line({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
    + line({"jsonrpc": "2.0", "id": "list", "method": "tools/list", "params": {"_meta": META}})
    + call("call", "customers_index", limit=1)
)

HOSTILE = {
    "a lone surrogate in the id": (b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}', wire.INVALID_REQUEST, None),
    "a lone surrogate in params": (b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"x":"\\ud800 left"}}', wire.INVALID_REQUEST, 5),
    "a lone surrogate as a key": (b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"\\udc00":1}}', wire.INVALID_REQUEST, 5),
    "an integer of 5,000 digits": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"n":' + b"9" * 5000 + b"}}", wire.PARSE_ERROR, None),
    "an id of 5,000 digits": (b'{"jsonrpc":"2.0","id":' + b"1" * 5000 + b',"method":"ping"}', wire.PARSE_ERROR, None),
    "NaN as the version asked for": (b'{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":NaN}}', wire.PARSE_ERROR, None),
    "Infinity": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":Infinity}}', wire.PARSE_ERROR, None),
    "-Infinity": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":-Infinity}}', wire.PARSE_ERROR, None),
    "a float that overflows": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":1e999}}', wire.PARSE_ERROR, None),
    "nesting 100,000 deep": (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}}", wire.PARSE_ERROR, None),
    "an envelope version that is an object": (
        line({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {**META, wire.META_VERSION: {"a": [1]}}}}).strip(),
        wire.UNSUPPORTED_VERSION,
        5,
    ),
}


def serve_crm(home: Path, data: bytes) -> tuple[list[dict], float]:
    """Run `crm --mcp` on `data` (then EOF); every answer, strictly parsed, and how long the process lived."""
    started = time.monotonic()
    result = subprocess.run(crm_command(), input=data, capture_output=True, env=subprocess_env(home), timeout=30)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return [strict_json(text) for text in result.stdout.decode("utf-8").splitlines()], time.monotonic() - started


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_line_gets_a_well_formed_error_and_the_server_serves_on_and_exits_at_eof(crm_home, name):  # noqa: F811 - the fixture
    hostile, code, answer_id = HOSTILE[name]
    answers, lived = serve_crm(crm_home, hostile + b"\n" + FOLLOW_UPS)
    first = answers[0]
    assert first["error"]["code"] == code and first["error"]["message"]
    assert first.get("id") == answer_id and ("id" in first) is (answer_id is not None)
    assert [answer.get("id") for answer in answers[1:]] == ["ping", "list", "call"]
    assert all("result" in answer for answer in answers[1:])
    assert lived < 20


def test_the_version_asked_for_is_echoed_as_short_text_never_as_raw_json(crm_home):  # noqa: F811 - the fixture
    asked = {**META, wire.META_VERSION: "9" * 10_000}
    answers, _ = serve_crm(crm_home, line({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": asked}}))
    requested = answers[0]["error"]["data"]["requested"]
    assert isinstance(requested, str) and len(requested) < 200


@pytest.mark.parametrize(
    "hostile",
    [b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"n":' + b"9" * 5000 + b"}}", b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}', b"[" * 100_000],
    ids=["huge integer", "surrogate id", "deep nesting"],
)
def test_a_hostile_line_read_by_the_thread_that_took_over_reading_does_not_stop_the_reading(tmp_path, hostile):
    """A slow call keeps the first reader busy, so the watchdog hands reading to a new thread, which meets the line."""
    server = GatedServer(tmp_path)
    server.write(call(1, "wait_for", path=str(tmp_path / "gate")))
    time.sleep(0.2)  # the slow call has started, and reading has moved on
    server.write(hostile + b"\n" + call(2, "quick"))
    answers = server.answers(2)
    assert "id" not in answers["-"] and answers["-"]["error"]["code"] in (wire.PARSE_ERROR, wire.INVALID_REQUEST)
    assert answers[2]["result"]["structuredContent"] == "quick done"
    server.gate.write_text("")
    assert server.answer()["id"] == 1
    assert server.finish() == []


def test_answers_that_cannot_be_written_become_errors_and_never_use_up_the_workers(tmp_path):
    """While a slow call holds the reader, every other call runs on a worker; 20 unwritable answers kill none of them."""
    server = GatedServer(tmp_path)
    server.write(call("slow", "wait_for", path=str(tmp_path / "gate")))
    time.sleep(0.2)
    server.write(b"".join(call(n, "half_a_character") for n in range(20)) + call("quick", "quick"))
    answers = server.answers(21)
    for n in range(20):
        error = answers[n]["error"]
        assert error["code"] == wire.INTERNAL_ERROR and "lone surrogate" in error["message"]
    assert answers["quick"]["result"]["structuredContent"] == "quick done"
    server.gate.write_text("")
    assert server.answer()["id"] == "slow"
    assert server.finish() == []


def test_eof_while_a_legacy_confirmation_waits_for_the_client_ends_the_process_at_once(crm_home):  # noqa: F811 - the fixture
    """The elicitation/create the server sent can no longer be answered: the call is refused and the process exits."""
    process = subprocess.Popen(crm_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=subprocess_env(crm_home))
    client = {"name": "hostile", "version": "1"}
    handshake = {"protocolVersion": wire.LEGACY, "capabilities": {"elicitation": {}}, "clientInfo": client}
    process.stdin.write(line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": handshake}))
    process.stdin.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    process.stdin.write(line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "customers_delete", "arguments": {"id": 1}}}))
    process.stdin.flush()
    assert strict_json(process.stdout.readline().decode())["id"] == 1
    asked = strict_json(process.stdout.readline().decode())
    assert asked["method"] == "elicitation/create"
    started = time.monotonic()
    process.stdin.close()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError("the server waited for an answer that could never come") from None
    assert time.monotonic() - started < 15 and process.returncode == 0
    answer = strict_json(process.stdout.readline().decode())
    process.stdout.close()
    assert answer["id"] == 2 and answer["result"]["isError"] is True and "Not confirmed" in answer["result"]["content"][0]["text"]


def test_eof_ends_the_process_after_the_grace_even_if_a_call_never_returns_and_that_call_still_gets_an_answer(tmp_path):
    """The call runs on the thread that read it; the process must not wait for it beyond the 5 s grace."""
    server = GatedServer(tmp_path)
    server.write(call(1, "wait_for", path=str(tmp_path / "never")))  # runs 20 s
    time.sleep(0.2)
    started = time.monotonic()
    [answer] = server.finish(within=15)
    assert time.monotonic() - started < 12
    assert answer["id"] == 1 and answer["error"]["code"] == wire.INTERNAL_ERROR and "stopped before tools/call finished" in answer["error"]["message"]


def request(id: str, method: str, params: dict) -> bytes:
    return line({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": META, **params}})


def test_client_text_of_a_megabyte_and_a_half_is_echoed_cut_to_a_hundred_characters_in_every_error(crm_home):  # noqa: F811 - the fixture
    """A name, URI or argument a client made huge comes back cut (message and data), never whole: the answer stays small."""
    huge = "x" * 1_500_000
    template = {"type": "ref/resource", "uri": "app://customers_show/{id}"}
    asked = {
        "tool name": request("tool name", "tools/call", {"name": huge, "arguments": {}}),
        "prompt name": request("prompt name", "prompts/get", {"name": huge}),
        "completion prompt": request(
            "completion prompt", "completion/complete", {"ref": {"type": "ref/prompt", "name": huge}, "argument": {"name": "a", "value": ""}}
        ),
        "completion uri": request(
            "completion uri", "completion/complete", {"ref": {"type": "ref/resource", "uri": huge}, "argument": {"name": "a", "value": ""}}
        ),
        "completion ref type": request("completion ref type", "completion/complete", {"ref": {"type": huge}, "argument": {"name": "a", "value": ""}}),
        "completion argument": request("completion argument", "completion/complete", {"ref": template, "argument": {"name": huge, "value": ""}}),
        "resource uri": request("resource uri", "resources/read", {"uri": "app://" + huge}),
    }
    answers, _ = serve_crm(crm_home, b"".join(asked.values()) + FOLLOW_UPS)
    by_id = {answer.get("id"): answer for answer in answers}
    for name in asked:
        error = by_id[name]["error"]
        assert error["code"] == wire.INVALID_PARAMS, (name, error)
        assert len(json.dumps(by_id[name])) < 1_000, name
        assert "x" * 90 + "..." in json.dumps(error) and "x" * 101 not in json.dumps(error), name
    assert [("result" in by_id[follow], by_id[follow].get("error")) for follow in ("list", "call")] == [(True, None)] * 2
