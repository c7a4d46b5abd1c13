"""The dual-era server core, on the wire, in process (the same code `crm --mcp` runs)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.mcp import wire
from rata.mcp.server import Method, Server
from rata.testing import AgentClient
from tests.mcp.fixtures import crm, lab  # noqa: F401 - pytest fixtures
from tests.mcp.hostile import lines
from tests.mcp.lab import release
from tests.mcp.strict import read_json, strict_json, strict_line

META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}
SERVER_INFO = {"name": "crm", "version": "1.0.0"}

CAPABILITIES = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "prompts": {"listChanged": True},
    "completions": {},
    "logging": {},
}


def raw(client: AgentClient, line: bytes) -> dict:
    """Send a raw line and return the one answer that has no id (or the answer for id 99)."""
    client._responses.clear()
    client.send_line(line)
    client._wait(lambda: bool(client._responses), 5, "no answer")
    return next(iter(client._responses.values()))


def test_discover_describes_the_server_with_cache_hints_and_server_info(crm):
    with AgentClient(crm) as client:
        result = client.request("server/discover")
    assert result == {
        "supportedVersions": ["2026-07-28"],
        "capabilities": CAPABILITIES,
        "ttlMs": 3600000,
        "cacheScope": "public",
        "resultType": "complete",
        "_meta": {wire.META_SERVER: SERVER_INFO},
    }


def test_a_request_without_the_envelope_keys_is_invalid_params(crm):
    with AgentClient(crm) as client:
        answer = client.request_raw("tools/list", {"_meta": {wire.META_CAPABILITIES: {}}}, envelope=False)
    assert answer["error"]["code"] == wire.INVALID_PARAMS
    assert wire.META_VERSION in answer["error"]["message"]


def test_an_unsupported_version_names_the_supported_ones(crm):
    with AgentClient(crm) as client:
        answer = client.request_raw("tools/list", {"_meta": {**META, wire.META_VERSION: "1900-01-01"}}, envelope=False)
    assert answer["error"] == {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"}}


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"])
def test_methods_removed_in_2026_are_not_found_when_enveloped(crm, method):
    with AgentClient(crm) as client:
        assert client.request_raw(method)["error"]["code"] == wire.METHOD_NOT_FOUND


def test_unknown_methods_and_a_bad_log_level(crm):
    with AgentClient(crm) as client:
        assert client.request_raw("tasks/get", {"taskId": "t1"})["error"]["code"] == wire.METHOD_NOT_FOUND
        bad_level = client.request_raw("tools/list", {"_meta": {wire.META_LOG_LEVEL: "loud"}})
        assert bad_level["error"]["code"] == wire.INVALID_PARAMS


def test_every_modern_result_has_result_type_and_server_info(crm):
    with AgentClient(crm) as client:
        for method, params in [("tools/list", {}), ("resources/list", {}), ("resources/templates/list", {}), ("resources/read", {"uri": "app://customers_index"})]:
            result = client.request(method, params)
            assert result["resultType"] == "complete" and result["_meta"] == {wire.META_SERVER: SERVER_INFO}
            assert isinstance(result["ttlMs"], int) and result["cacheScope"] in ("public", "private")


def test_tools_list_is_deterministic_and_has_cache_hints(crm):
    with AgentClient(crm) as client:
        first, second = client.request("tools/list"), client.request("tools/list")
    assert first == second
    assert [t["name"] for t in first["tools"]] == ["customers_delete", "customers_index", "customers_show", "customers_store"]
    assert (first["ttlMs"], first["cacheScope"]) == (3600000, "public")


def test_a_cursor_is_refused_since_every_list_is_one_page(crm):
    with AgentClient(crm) as client:
        assert client.request_raw("tools/list", {"cursor": ""})["error"]["code"] == wire.INVALID_PARAMS


def test_the_legacy_handshake_answers_2025_11_25_even_to_2026(crm):
    with AgentClient(crm, era="legacy") as client:
        client._responses.clear()
        answer = client.request_raw("initialize", {"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
    assert answer["result"] == {
        "protocolVersion": "2025-11-25",
        "capabilities": CAPABILITIES,
        "serverInfo": SERVER_INFO,
    }


def test_legacy_results_carry_no_2026_keys(crm):
    with AgentClient(crm, era="legacy") as client:
        result = client.request("tools/list")
    assert set(result) == {"tools"}


def test_ping_works_before_initialize_and_other_methods_do_not(crm):
    with AgentClient(crm) as client:
        assert client.request_raw("ping", envelope=False) == {"jsonrpc": "2.0", "id": 1, "result": {}}
        early = client.request_raw("tools/list", envelope=False)
    assert early["error"]["code"] == wire.INVALID_PARAMS and "initialize" in early["error"]["message"]


def test_after_a_modern_request_initialize_gets_unsupported_version(crm):
    with AgentClient(crm) as client:
        client.request("tools/list")
        answer = client.request_raw("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
    assert answer["error"]["code"] == wire.UNSUPPORTED_VERSION
    assert answer["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-11-25"}


def test_discover_does_not_pin_so_a_client_can_still_fall_back_to_initialize(crm):
    with AgentClient(crm) as client:
        client.request("server/discover")
        answer = client.request_raw("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
    assert answer["result"]["protocolVersion"] == "2025-11-25"


def test_after_initialize_an_enveloped_request_is_invalid(crm):
    with AgentClient(crm, era="legacy") as client:
        answer = client.request_raw("tools/list", envelope=True)
    assert answer["error"]["code"] == wire.INVALID_REQUEST


def test_initialize_without_its_required_fields_is_invalid_params(crm):
    with AgentClient(crm) as client:
        answer = client.request_raw("initialize", {"protocolVersion": "2025-11-25"})
    assert answer["error"]["code"] == wire.INVALID_PARAMS


@pytest.mark.parametrize(
    ("line", "code"),
    [(b"{oops", -32700), (b"\xc3\x28", -32700), (b"[]", -32600), (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600), (b"42", -32600)],
)
def test_bad_lines_get_an_error_without_id_and_the_server_keeps_serving(crm, line, code):
    with AgentClient(crm) as client:
        answer = raw(client, line)
        assert answer == {"jsonrpc": "2.0", "error": answer["error"]} and answer["error"]["code"] == code
        assert client.request("tools/list")["tools"]


def test_notifications_are_never_answered(crm):
    with AgentClient(crm) as client:
        client.notify("notifications/initialized")
        client.notify("notifications/whatever", {"x": 1})
        client.notify("notifications/cancelled", {"requestId": 12345})
        client.request("tools/list")
        assert client._responses == {} and client.notifications == []


def test_a_slow_call_does_not_hold_up_others_and_answers_come_out_of_order(lab):
    with AgentClient(lab) as client:
        client.send_line(wire.encode({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"_meta": client._meta(), "name": "slow"}}))
        assert client.call("quick").data == "quick done"
        assert client.request("tools/list")["tools"]
        assert "slow" not in client._responses
        release.set()
        client._wait(lambda: "slow" in client._responses, 5, "no answer to the slow call")
        assert client._responses["slow"]["result"]["structuredContent"] == "slow done"


def test_a_cancelled_call_gets_no_answer(lab):
    with AgentClient(lab) as client:
        client.send_line(wire.encode({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"_meta": client._meta(), "name": "slow"}}))
        client.notify("notifications/cancelled", {"requestId": "slow", "reason": "changed my mind"})
        release.set()
        assert client.call("quick").data == "quick done"
        client._server.close()
        assert "slow" not in client._responses


def test_a_string_id_and_a_number_id_are_different_requests(crm):
    with AgentClient(crm) as client:
        for request_id in ("7", 7):
            client.send_line(wire.encode({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": client._meta()}}))
        client._wait(lambda: "7" in client._responses and 7 in client._responses, 5, "both answers")
        assert json.dumps(client._responses["7"]["id"]) == '"7"' and client._responses[7]["id"] == 7


# --- the worker threads of blocking calls ----------------------------------------------------------


def bare_server(handler, workers: int = 8) -> tuple[Server, list[dict]]:
    """A server whose only method, "work", is blocking and runs `handler`; the answers, parsed."""
    answers: list[dict] = []
    lock = threading.Lock()

    def send(data: bytes) -> None:
        with lock:
            answers.append(json.loads(data))

    methods = {"work": Method(lambda call: handler(call), blocking=True)}
    return Server({"name": "t", "version": "1"}, methods, send=send, capabilities={}, workers=workers), answers


def work_line(request_id: int) -> bytes:
    return wire.encode({"jsonrpc": "2.0", "id": request_id, "method": "work", "params": {"_meta": META}})


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 5
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.001)


def test_sequential_blocking_calls_reuse_one_idle_worker():
    server, answers = bare_server(lambda call: {"n": call.id})
    for n in range(20):
        server.receive(work_line(n))
        wait_for(lambda n=n: len(answers) == n + 1, f"no answer to call {n}")
    server.close()
    assert [a["id"] for a in answers] == list(range(20))
    assert len(server._workers) == 1


def test_calls_beyond_the_worker_limit_wait_in_order_and_each_is_answered_once():
    gate = threading.Event()
    started: list[int] = []

    def handler(call):
        started.append(call.id)
        gate.wait(5)
        return {"n": call.id}

    server, answers = bare_server(handler, workers=2)
    for n in range(6):
        server.receive(work_line(n))
    wait_for(lambda: len(started) == 2, "two calls running")
    assert answers == [] and len(server._workers) == 2
    gate.set()
    wait_for(lambda: len(answers) == 6, "every call answered")
    server.close()
    assert sorted(a["id"] for a in answers) == list(range(6)) and started[2:] == [2, 3, 4, 5]


def test_close_finishes_the_calls_still_waiting_then_stops_every_worker():
    gate = threading.Event()
    server, answers = bare_server(lambda call: gate.wait(5) and {"n": call.id}, workers=1)
    for n in range(3):
        server.receive(work_line(n))
    closing = threading.Thread(target=server.close)
    closing.start()
    wait_for(lambda: server._closing, "close() started")
    assert answers == [] and len(server._backlog) == 2
    gate.set()
    closing.join(5)
    assert sorted(a["id"] for a in answers) == [0, 1, 2]
    assert not any(worker.thread.is_alive() for worker in server._workers)


# --- hostile input: every request answered once, only valid JSON written, no thread lost ----------------


def hostile_server() -> tuple[Server, list[bytes]]:
    """A server with a method of each kind a hostile line can reach; every raw line it writes."""
    written: list[bytes] = []
    lock = threading.Lock()

    def send(data: bytes) -> None:
        with lock:
            written.append(data)

    def broken(call):
        return {"nan": float("nan"), "text": "half \udfff", "set": {1}}

    def fails(call):
        raise RuntimeError("a bug")

    methods = {
        "ping": Method(lambda call: {}, eras=frozenset({"legacy"})),
        "server/discover": Method(lambda call: {"supportedVersions": [wire.MODERN]}, eras=frozenset({"modern"})),
        "tools/list": Method(lambda call: {"tools": []}),
        "echo": Method(lambda call: {"echo": call.params}, blocking=True),
        "broken": Method(broken, blocking=True),
        "fails": Method(fails),
    }
    return Server({"name": "t", "version": "1"}, methods, send=send, capabilities={}, workers=2), written


def _key(value) -> tuple[str, object]:
    return (type(value).__name__, value)


def expected_answer(line: bytes) -> tuple[str, object] | None:
    """The id an answer to `line` must carry (exactly one answer), or None: the test's own reading of JSON-RPC."""
    try:
        message = read_json(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or "id" not in message:
        return None
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)) or not _unicode(request_id):
        return None  # an id that is not a string of Unicode text or an integer cannot be answered
    answered = "method" in message or message.get("jsonrpc") != "2.0" or not ("result" in message or "error" in message) or not _unicode_all(message)
    return _key(request_id) if answered else None


@given(st.lists(st.one_of(lines(), lines(requests_only=True)), min_size=1, max_size=6))
def test_receive_never_raises_answers_each_request_once_and_writes_only_strict_json(batch):
    server, written = hostile_server()
    for line in batch:
        server.receive(line)  # must not raise
    server.close()
    answers = [strict_line(raw) for raw in written]
    assert len(answers) <= len(batch)
    cancelled = {_key(a["params"]["requestId"]) for a in map(_try_json, batch) if _is_cancel(a)}
    expected = Counter(key for key in map(expected_answer, batch) if key is not None)
    got = Counter(_key(answer["id"]) for answer in answers if "id" in answer)
    for key in expected.keys() | got.keys():
        if key in cancelled:
            assert got[key] <= expected[key], key
        else:
            assert got[key] == expected[key], key
    assert all("error" in answer for answer in answers if "id" not in answer)
    assert not any(worker.thread.is_alive() for worker in server._workers)


def _unicode(value) -> bool:
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unicode_all(message) -> bool:
    try:
        strict_json(json.dumps(message))
    except UnicodeEncodeError:
        return False
    return True


def _try_json(line: bytes):
    try:
        return read_json(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def _is_cancel(message) -> bool:
    if not isinstance(message, dict) or message.get("method") != "notifications/cancelled" or "id" in message:
        return False
    params = message.get("params")
    request_id = params.get("requestId") if isinstance(params, dict) else None
    return isinstance(request_id, (str, int)) and not isinstance(request_id, bool)


def test_an_answer_the_app_cannot_have_written_is_an_internal_error_and_the_worker_lives_on():
    server, written = hostile_server()
    for n in range(10):  # more than the two workers: a worker killed by one would leave the rest unanswered
        server.receive(wire.encode({"jsonrpc": "2.0", "id": n, "method": "broken", "params": {"_meta": META}}))
    server.receive(wire.encode({"jsonrpc": "2.0", "id": "last", "method": "echo", "params": {"_meta": META}}))
    server.close()
    answers = {answer["id"]: answer for answer in map(strict_line, written)}
    assert all(answers[n]["error"]["code"] == wire.INTERNAL_ERROR for n in range(10))
    assert "result" in answers["last"]


def test_a_transport_that_raises_does_not_kill_the_worker():
    calls: list[bytes] = []

    def send(data: bytes) -> None:
        calls.append(data)
        raise RuntimeError("the pipe is gone")

    server = Server({"name": "t", "version": "1"}, {"work": Method(lambda call: {}, blocking=True)}, send=send, capabilities={}, workers=1)
    for n in range(3):
        server.receive(work_line(n))
    wait_for(lambda: len(calls) == 3, "all three calls were answered by the one worker")
    server.close()
    assert server._workers[0].thread is not None and not server._workers[0].thread.is_alive()


# --- server->client requests (2025-11-25 confirmations) -----------------------------------------------


def asking_server(timeout: float = 5.0) -> tuple[Server, list[dict]]:
    """A server whose "ask" call sends one server->client request and answers with what came back."""

    def ask(call):
        try:
            return {"answer": call.ask_client("elicitation/create", {"message": "Allow?"}, timeout)}
        except wire.McpError as error:
            return {"refused": error.code, "why": error.message}

    server, answers = bare_server(ask)
    return server, answers


def asked(server: Server, answers: list[dict]) -> str:
    server.receive(work_line(1))
    wait_for(lambda: answers and answers[-1].get("method") == "elicitation/create", "the request to the client")
    return answers[-1]["id"]


@pytest.mark.parametrize(
    "error",
    [{"code": "abc", "message": "x"}, {"code": 10**300, "message": "x"}, {"code": True}, {"code": 1.5, "message": ["x"]}, "not an object", None, []],
    ids=["string-code", "huge-code", "bool-code", "float-code", "string", "null", "array"],
)
def test_an_odd_error_from_the_client_fails_the_waiting_call_cleanly(error):
    server, answers = asking_server()
    request_id = asked(server, answers)
    reply = {"jsonrpc": "2.0", "id": request_id, "error": error}
    server.receive(json.dumps(reply).encode())
    wait_for(lambda: answers[-1].get("id") == 1, "the call's answer")
    server.close()
    result = answers[-1]["result"]
    if error is None:  # "error": null is no error: the result (absent) reads as empty
        assert result["answer"] == {}
    else:
        assert result["refused"] == wire.INTERNAL_ERROR and isinstance(result["why"], str)


def test_a_malformed_answer_from_the_client_fails_the_waiting_call_at_once():
    server, answers = asking_server(timeout=30)
    request_id = asked(server, answers)
    server.receive(b'{"jsonrpc":"2.0","id":"' + request_id.encode() + b'","result":{"action":"\\udfff"}}')
    wait_for(lambda: answers[-1].get("id") == 1, "the call's answer, long before the 30 s timeout")
    server.close()
    assert answers[-1]["result"]["refused"] == wire.INVALID_REQUEST and "surrogate" in answers[-1]["result"]["why"]


def test_eof_fails_the_waiting_call_at_once_and_no_request_is_sent_after_it():
    server, answers = asking_server(timeout=30)
    asked(server, answers)
    server.input_closed()
    wait_for(lambda: answers[-1].get("id") == 1, "the call's answer, long before the 30 s timeout")
    assert "closed" in answers[-1]["result"]["why"]
    server.receive(work_line(2))
    wait_for(lambda: answers[-1].get("id") == 2, "the second call refused at once")
    server.close()
    assert [a.get("method") for a in answers].count("elicitation/create") == 1


def test_answers_with_ids_the_server_never_used_are_ignored():
    server, answers = asking_server(timeout=30)
    request_id = asked(server, answers)
    for other in (1, 10**100, "rata-999", ["x"], request_id.upper()):
        server.receive(json.dumps({"jsonrpc": "2.0", "id": other, "result": {}}).encode())
    server.receive(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"action": "accept"}}).encode())
    wait_for(lambda: answers[-1].get("id") == 1, "the call's answer")
    server.close()
    assert answers[-1]["result"]["answer"] == {"action": "accept"}


def test_a_close_hook_that_fails_does_not_stop_the_others_or_the_close():
    server, _ = bare_server(lambda call: {})
    ran = []

    def fails() -> None:
        raise ZeroDivisionError("a close hook's own bug")

    server.on_close.extend([fails, lambda: ran.append("second")])
    server.close()
    assert ran == ["second"]


def test_close_answers_a_call_that_outlives_the_grace_once_and_never_again():
    gate = threading.Event()
    server, answers = bare_server(lambda call: gate.wait(5) and {"late": True}, workers=1)
    server.receive(work_line(1))
    server.receive(work_line(2))  # waits behind it, never started
    server.close(grace=0.2)
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(1, wire.INTERNAL_ERROR), (2, wire.INTERNAL_ERROR)]
    gate.set()
    server._workers[0].thread.join(5)
    assert len(answers) == 2  # the late result of call 1 is not sent, and call 2 never ran


def test_calls_beyond_the_waiting_limit_are_refused_not_queued():
    gate = threading.Event()
    answers: list[dict] = []
    methods = {"work": Method(lambda call: gate.wait(5) and {}, blocking=True)}
    server = Server({"name": "t", "version": "1"}, methods, send=lambda data: answers.append(json.loads(data)), capabilities={}, workers=1, waiting=2)
    for n in range(5):  # one runs, two wait, two are refused at once
        server.receive(work_line(n))
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(3, wire.INTERNAL_ERROR), (4, wire.INTERNAL_ERROR)]
    assert "Server busy: 2 calls already wait" in answers[0]["error"]["message"]
    gate.set()
    wait_for(lambda: len(answers) == 5, "the three accepted calls answered")
    server.close()
    assert sorted(a["id"] for a in answers if "result" in a) == [0, 1, 2]


@pytest.mark.parametrize(
    "request_id",
    [[1], {"a": 1}, 1.5, True, None, 10**4000, "", "\U0001f600"],
    ids=["array", "object", "float", "bool", "null", "4001-digits", "empty", "emoji"],
)
def test_a_cancel_with_an_odd_request_id_is_ignored_and_the_server_serves_on(request_id):
    server, written = hostile_server()
    server.receive(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}).encode())
    server.receive(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    server.close()
    assert [strict_line(raw) for raw in written] == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
