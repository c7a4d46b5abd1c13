"""The dual-era server core, on the wire, in process (the same code `crm --mcp` runs)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from rata.mcp import wire
from rata.mcp.server import Method, Server
from rata.testing import AgentClient
from tests.mcp.lab import release
from tests.mcp.fixtures import crm, lab  # noqa: F401 - pytest fixtures

META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}
SERVER_INFO = {"name": "crm", "version": "1.0.0"}


def raw(client: AgentClient, line: bytes) -> dict:
    """Send a raw line and return the one answer that has no id (or the answer for id 99)."""
    client._responses.clear()
    client.send_line(line)
    client._wait(lambda: client._responses, 5, "no answer")
    return next(iter(client._responses.values()))


def test_discover_describes_the_server_with_cache_hints_and_server_info(crm):
    with AgentClient(crm) as client:
        result = client.request("server/discover")
    assert result == {
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True}},
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
        assert client.request_raw("prompts/list")["error"]["code"] == wire.METHOD_NOT_FOUND
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
        "capabilities": {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True}},
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
        wait_for(lambda: len(answers) == n + 1, f"no answer to call {n}")
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
