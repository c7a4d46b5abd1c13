"""The real stdio server as a subprocess: stdout hygiene, framing limits, shutdown, start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rata.mcp import wire
from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.mcp.gated import GatedServer

pytestmark = pytest.mark.subprocess
LAB = Path(__file__).with_name("lab.py")
META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}


def line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def lab_server(home: Path) -> subprocess.Popen:
    app_file = home.parent / "lab_app.py"
    app_file.write_text(LAB.read_text())
    return subprocess.Popen(
        [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(home),
    )


def test_what_the_app_prints_goes_to_stderr_and_stdout_carries_only_protocol_lines(tmp_path):
    server = lab_server(tmp_path / "home")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": META, "name": "chatty"}}
    out, err = server.communicate(line(call), timeout=30)
    lines = out.decode().splitlines()
    assert [json.loads(x)["id"] for x in lines] == [1]
    assert json.loads(lines[0])["result"]["structuredContent"] == "said hello"
    assert "hello from the app" in err.decode()


def test_an_oversized_line_is_refused_and_the_server_goes_on(tmp_path, crm_home):
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"' + b"a" * (wire.MAX_LINE_BYTES + 10) + b'"}}\n'
    follow = line({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}})
    out = crm(crm_home, big + b"\xff\xfe\n" + follow)
    answers = [json.loads(x) for x in out.splitlines()]
    assert answers[0]["error"]["code"] == -32600 and "longer than" in answers[0]["error"]["message"] and "id" not in answers[0]
    assert answers[1]["error"]["code"] == -32700
    assert answers[2]["id"] == 2 and answers[2]["result"]["tools"]


def test_eof_on_stdin_ends_the_server_promptly(crm_home):
    started = time.monotonic()
    result = subprocess.run(crm_command(), input=b"", capture_output=True, env=subprocess_env(crm_home), timeout=10)
    assert result.returncode == 0 and result.stdout == b""
    assert time.monotonic() - started < 5


def test_the_test_client_speaks_to_a_real_process_the_same_way(crm_home):
    with AgentClient.spawn(crm_command(), env=subprocess_env(crm_home)) as agent:
        assert [t["name"] for t in agent.list_tools()][0] == "customers_delete"
        assert agent.call("customers_store", {"name": "Ada", "email": "ada@example.com"}).data["id"] == 1
        assert agent.call("customers_delete", {"id": 1}, confirm=True).is_error is False
        assert agent.read("app://customers_index") == []


def test_the_server_path_imports_nothing_heavy(crm_home):
    code = (
        "import sys, runpy; sys.argv = ['crm', '--mcp']; "
        "import rata.mcp.stdio as s; orig = s.serve\n"
        "def probe(make, *a, **k):\n"
        "    heavy = sorted(m for m in ('typer', 'rich', 'pygments', 'jsonschema', 'click', 'pydantic', 'asyncio') if m in sys.modules)\n"
        "    sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n'); return orig(make, *a, **k)\n"
        "s.serve = probe\n"
        "from crm.main import main; main()"
    )
    result = subprocess.run([sys.executable, "-c", code], input=b"", capture_output=True, env=subprocess_env(crm_home), timeout=30)
    assert b"HEAVY=\n" in result.stderr, result.stderr


@pytest.fixture
def crm_home(tmp_path):
    home = tmp_path / "home"
    subprocess.run([*crm_command(), "--migrate"], check=True, capture_output=True, env=subprocess_env(home), timeout=60)
    return home


def crm_command() -> list[str]:
    script = Path(sys.executable).with_name("crm")
    return [str(script), "--mcp"] if script.exists() else [sys.executable, "-m", "crm.main", "--mcp"]


def crm(home: Path, data: bytes) -> str:
    return subprocess.run(crm_command(), input=data, capture_output=True, env=subprocess_env(home), timeout=30, check=True).stdout.decode()


def test_a_burst_of_pipelined_calls_is_answered_exactly_once_each(crm_home):
    """Calls go to worker threads (and, with the app's manifest, wait there for the app to load): none lost, none run twice."""
    calls = [
        line({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"_meta": META, "name": "customers_index", "arguments": {"limit": 1 + n % 5}}})
        for n in range(1, 301)
    ]
    listing = line({"jsonrpc": "2.0", "id": "list", "method": "tools/list", "params": {"_meta": META}})
    out = crm(crm_home, b"".join(calls[:150]) + listing + b"".join(calls[150:]))
    ids = [json.loads(x)["id"] for x in out.splitlines()]
    assert sorted(ids, key=str) == sorted([*range(1, 301), "list"], key=str)
    assert all("result" in json.loads(x) for x in out.splitlines())


def test_a_slow_call_holds_up_neither_requests_nor_calls_read_after_it(tmp_path):
    server = GatedServer(tmp_path)
    server.call(1, "wait_for", path=str(server.gate))
    server.send({"id": 2, "method": "tools/list", "params": {"_meta": META}})
    server.call(3, "quick")
    started = time.monotonic()
    assert [server.answer()["id"], server.answer()["id"]] == [2, 3]
    assert time.monotonic() - started < 5
    server.open_gate()
    assert server.answer() == {"jsonrpc": "2.0", "id": 1, "result": server_result("waited")}
    assert server.finish() == []


def test_a_slow_call_can_be_cancelled_and_is_never_answered(tmp_path):
    server = GatedServer(tmp_path)
    server.call(1, "wait_for", path=str(server.gate))
    server.send({"method": "notifications/cancelled", "params": {"requestId": 1}})
    server.call(2, "quick")
    assert server.answer()["id"] == 2
    server.open_gate()
    server.call(3, "quick")
    assert server.answer()["id"] == 3
    assert server.finish() == []  # nothing for the cancelled call, ever


def test_eof_while_a_slow_call_runs_still_answers_it_before_exiting(tmp_path):
    server = GatedServer(tmp_path)
    server.call(1, "wait_for", path=str(server.gate))
    server.process.stdin.close()
    time.sleep(0.3)
    server.open_gate()
    assert [answer["id"] for answer in server.finish()] == [1]
    assert server.process.returncode == 0


def server_result(value: str) -> dict:
    return {
        "content": [{"type": "text", "text": value}],  # a string result is its own text, not JSON-quoted
        "structuredContent": value,
        "resultType": "complete",
        "_meta": {wire.META_SERVER: {"name": "waiter", "version": "0.0.0"}},
    }


def relay_over_a_pipe(handle, on_eof=None):
    """A Relay reading a pipe, run on a thread of its own; returns (relay, write end, the thread)."""
    from rata.mcp.stdio import Relay

    read_end, write_end = os.pipe()
    reading = os.fdopen(read_end, "rb")
    relay = Relay(reading, lambda line: handle(relay, line), lambda: None, on_eof)

    def run() -> None:
        with reading:
            relay.run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return relay, os.fdopen(write_end, "wb", buffering=0), thread


def test_calls_from_a_sequential_client_run_on_the_thread_that_read_them():
    ran_on = []
    done = threading.Event()

    def handle(relay, line):
        assert relay.run_here(lambda: ran_on.append(threading.get_ident()))
        if len(ran_on) == 50:
            done.set()

    relay, pipe, thread = relay_over_a_pipe(handle)
    for _ in range(50):
        pipe.write(b"call\n")
    assert done.wait(10)
    pipe.close()
    thread.join(10)
    assert set(ran_on) == {thread.ident}  # no hand-off between threads, not once
    assert not thread.is_alive()


def test_a_call_that_runs_long_hands_the_reading_to_another_thread_and_finishes_on_its_own():
    release, second = threading.Event(), threading.Event()
    ran_on = {}

    def handle(relay, line):
        name = line.strip().decode()
        if name == "slow":
            relay.run_here(lambda: (ran_on.setdefault(name, threading.get_ident()), release.wait(10)))
        else:
            ran_on[name] = threading.get_ident()
            second.set()

    relay, pipe, thread = relay_over_a_pipe(handle)
    pipe.write(b"slow\nnext\n")
    assert second.wait(5)  # read while "slow" still runs
    assert relay.busy()
    assert ran_on["slow"] == thread.ident and ran_on["next"] != thread.ident
    release.set()
    pipe.close()
    thread.join(10)
    assert not thread.is_alive() and not relay.busy()


def test_a_line_handler_that_raises_stops_the_reading_on_no_thread_and_eof_is_announced_once():
    """The first reader and the one a slow call handed the reading to both read on after a handler bug."""
    release, seen, ends = threading.Event(), [], []

    def handle(relay, line):
        name = line.strip().decode()
        seen.append((name, threading.get_ident()))
        if name == "slow":
            relay.run_here(lambda: release.wait(10))
        elif name.startswith("bad"):
            raise ValueError("a handler bug")

    relay, pipe, thread = relay_over_a_pipe(handle, on_eof=lambda: ends.append(threading.get_ident()))
    pipe.write(b"bad-1\nslow\nbad-2\nlast\n")
    deadline = time.monotonic() + 5
    while len(seen) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [name for name, _ in seen] == ["bad-1", "slow", "bad-2", "last"]
    assert seen[2][1] != thread.ident  # bad-2 was read by the thread that took over
    release.set()
    pipe.close()
    thread.join(10)
    assert not thread.is_alive() and len(ends) == 1 and ends[0] == seen[3][1]
