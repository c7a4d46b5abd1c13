"""The real stdio server as a subprocess: stdout hygiene, framing limits, shutdown, start-up."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rata.mcp import wire
from rata.testing import AgentClient
from tests.conftest import subprocess_env

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
