"""The real clients' own offline health checks connect to the servers `rata mcp install --write` writes.

Gemini CLI, Claude Code, Qwen Code and OpenCode each spawn every server of the project's file in
their `mcp list` (no model, no network) and report whether the MCP handshake succeeded. Codex's
`mcp list` only reads its config; its app server (`codex app-server`, JSON-RPC on stdio) starts the
servers of a thread and reports each one's connection and tools (`mcpServerStatus/list`). The
scratch project gets crm's server (`--app`) and `rata mcp dev` (`--dev`); both must be reported
connected, and a broken server command must not be. The clients, their scratch HOME and the
missing-peer rule are the ones of test_real_clients.py.
"""

# ruff: noqa: F811 (client and scratch are the fixtures of test_real_clients.py, imported to be used)

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from tests.conftest import CRM
from tests.install.test_real_clients import (  # noqa: F401
    PEERS,
    PEERS_BIN,
    RATA,
    client,
    client_env,
    run,
    scratch,
)
from tests.mcp.peers import TOOL_NAMES

pytestmark = pytest.mark.subprocess

CLIENTS = ["gemini", "claude-code", "qwen", "opencode", "codex"]
Ask = Callable[[str, dict[str, Any]], dict[str, Any]]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def write_both(client: str, project: Path, env: dict[str, str]) -> list[str]:
    """Write crm's server and the dev server into the project; their names."""
    names = []
    for dev in (False, True):
        install = [str(RATA), "mcp", "install", "--client", client, "--app", str(CRM), *(["--dev"] if dev else [])]
        names.append(json.loads(run([*install, "--json"], env, project).stdout)["name"])
        run([*install, "--write"], env, project)
    return names


def approve(client: str, names: list[str], home: Path, project: Path, env: dict[str, str]) -> None:
    """Give the client the approval or trust it needs before it starts the project's servers."""
    program = str(PEERS_BIN / PEERS[client].program)
    if client == "gemini":
        (home / ".gemini").mkdir(exist_ok=True)
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    elif client == "claude-code":
        (home / ".claude").mkdir(exist_ok=True)
        (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    elif client == "qwen":
        for name in names:
            run([program, "mcp", "approve", name], env, project)
    elif client == "codex":
        (home / ".codex").mkdir(exist_ok=True)
        (home / ".codex" / "config.toml").write_text(tomli_w.dumps({"projects": {str(project): {"trust_level": "trusted"}}}))


@contextmanager
def codex_thread(project: Path, env: dict[str, str], names: list[str]) -> Iterator[tuple[Ask, str]]:
    """`codex app-server` on stdio with a thread in the project whose servers have started: (ask, the thread's id).

    Starting a thread (`thread/start`, ephemeral) starts the project's MCP servers, each one's
    progress announced in `mcpServer/startupStatus/updated`; no turn is started, so no model is
    asked. `ask(method, params)` sends one request and returns its answer (a `result` or an `error`).
    """
    said: list[str] = []
    started: dict[str, str] = {}
    ids = itertools.count(1)

    def read_until(done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        for line in codex.stdout:
            said.append(line)
            message = json.loads(line)
            if message.get("method") == "mcpServer/startupStatus/updated":
                started[message["params"]["name"]] = message["params"]["status"]
            if done(message):
                return message
        raise AssertionError(f"codex app-server ended early:\n{''.join(said)}")

    def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
        id = next(ids)
        codex.stdin.write(json.dumps({"id": id, "method": method, "params": params}) + "\n")
        codex.stdin.flush()
        return read_until(lambda message: message.get("id") == id and "method" not in message)

    argv = [str(PEERS_BIN / "codex"), "app-server"]
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=project) as codex:
        assert codex.stdin is not None and codex.stdout is not None
        watchdog = threading.Timer(60, codex.kill)
        watchdog.start()
        try:
            ask("initialize", {"clientInfo": {"name": "rata-tests", "version": "0"}})
            codex.stdin.write(json.dumps({"method": "initialized"}) + "\n")
            thread = ask("thread/start", {"cwd": str(project), "ephemeral": True})["result"]["thread"]["id"]
            if not all(started.get(name) in ("ready", "failed") for name in names):
                read_until(lambda _: all(started.get(name) in ("ready", "failed") for name in names))
            yield ask, thread
        finally:
            watchdog.cancel()
            codex.kill()


def codex_servers(project: Path, env: dict[str, str], names: list[str]) -> list[dict[str, Any]]:
    """Each server's status as `codex app-server` reports it for a thread in the project
    (`mcpServerStatus/list`): `runtimeStatus` and the `tools` listed."""
    with codex_thread(project, env, names) as (ask, thread):
        return ask("mcpServerStatus/list", {"threadId": thread})["result"]["data"]


def health(client: str, names: list[str], home: Path, project: Path, env: dict[str, str]) -> str:
    """What the client's offline list command prints, after the approval or trust it needs."""
    approve(client, names, home, project, env)
    if client == "codex":
        return "".join(f"{server['name']}: {server['runtimeStatus']}\n" for server in codex_servers(project, env, names))
    done = run([str(PEERS_BIN / PEERS[client].program), "mcp", "list"], env, project)
    return ANSI.sub("", done.stdout + done.stderr)


def served_tools(entry: dict[str, Any], env: dict[str, str]) -> list[dict[str, Any]]:
    """The tools the server of a config entry lists itself (initialize, then tools/list, on its stdio)."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    done = subprocess.run(
        [entry["command"], *entry.get("args", [])],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        env={**env, **entry.get("env", {})},
        cwd=entry.get("cwd"),
        timeout=60,
    )
    listed = next((message for message in map(json.loads, done.stdout.splitlines()) if message.get("id") == 2), None)
    assert listed is not None, f"{entry}: no answer to tools/list\n{done.stdout}\n{done.stderr}"
    return listed["result"]["tools"]


def load(file: Path) -> dict[str, Any]:
    return tomllib.loads(file.read_text()) if file.suffix == ".toml" else json.loads(file.read_text())


def dump(file: Path, config: dict[str, Any]) -> None:
    file.write_text(tomli_w.dumps(config) if file.suffix == ".toml" else json.dumps(config, indent=2))


def connected(output: str, name: str) -> bool:
    """The client's line for `name` says connected (not "disconnected", not "failed")."""
    return re.search(rf"(?mi)^\W*{re.escape(name)}\b[^\n]*(?<![a-z])connected\b", output) is not None


@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_the_client_reports_both_written_servers_connected(client, scratch, rata_home):
    home, project = scratch
    env = client_env(home, rata_home)
    names = write_both(client, project, env)
    assert names == ["crm", "rata"]
    output = health(client, names, home, project, env)
    for name in names:
        assert connected(output, name), f"{client} does not report {name} connected:\n{output}"


@pytest.mark.parametrize("client", ["codex"], indirect=True)
def test_codex_app_server_has_the_tools_both_written_servers_list_with_their_schemas(client, scratch, rata_home):
    home, project = scratch
    env = client_env(home, rata_home)
    names = write_both(client, project, env)
    approve(client, names, home, project, env)
    reported = {server["name"]: server for server in codex_servers(project, env, names)}
    assert {name: reported[name]["runtimeStatus"] for name in names} == {"crm": "connected", "rata": "connected"}
    assert sorted(reported["crm"]["tools"]) == TOOL_NAMES
    entries = load(project / ".codex" / "config.toml")["mcp_servers"]
    for name in names:
        served = {tool["name"]: tool["inputSchema"] for tool in served_tools(entries[name], env)}
        assert {tool: listed["inputSchema"] for tool, listed in reported[name]["tools"].items()} == served
        assert reported[name]["toolsError"] is None


@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_a_broken_server_command_is_not_reported_connected(client, scratch, rata_home, tmp_path):
    """The check can fail: crm's entry pointed at a program that is no server is not connected."""
    home, project = scratch
    env = client_env(home, rata_home)
    names = write_both(client, project, env)
    file = project / PEERS[client].project_file
    config = load(file)
    entry = config[PEERS[client].key]["crm"]
    broken = str(tmp_path / "no-such-server")
    if isinstance(entry["command"], list):  # OpenCode: the command and its arguments in one list
        entry["command"][0] = broken
    else:
        entry["command"] = broken
    dump(file, config)
    output = health(client, names, home, project, env)
    assert "crm" in output, f"{client} does not list crm at all:\n{output}"
    assert not connected(output, "crm"), f"{client} reports a broken crm connected:\n{output}"
    assert connected(output, "rata"), f"{client} does not report rata connected:\n{output}"


# The shim between the client and crm: it copies each line the client writes to a log and to crm.
SHIM = """\
import subprocess, sys
log = open(sys.argv[1], "ab")
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE)
for line in sys.stdin.buffer:
    log.write(line)
    log.flush()
    child.stdin.write(line)
    child.stdin.flush()
child.stdin.close()
sys.exit(child.wait())
"""

ASKS_FOR = {"gemini": "2025-06-18", "claude-code": "2026-07-28", "qwen": "2025-11-25", "opencode": "2025-11-25", "codex": "2025-06-18"}


@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_the_protocol_version_the_client_asks_for(client, scratch, rata_home, tmp_path):
    """The version in the client's first message to crm (initialize, or Claude Code's 2026-07-28 envelope),
    read from the wire through a shim that logs what the client writes; docs/install.md lists them."""
    home, project = scratch
    env = client_env(home, rata_home)
    names = write_both(client, project, env)
    shim, log = tmp_path / "shim.py", tmp_path / "wire.jsonl"
    shim.write_text(SHIM)
    file = project / PEERS[client].project_file
    config = load(file)
    entry = config[PEERS[client].key]["crm"]
    if isinstance(entry["command"], list):
        entry["command"] = [sys.executable, str(shim), str(log), *entry["command"]]
    else:
        entry["args"] = [str(shim), str(log), entry["command"], *entry.get("args", [])]
        entry["command"] = sys.executable
    dump(file, config)
    output = health(client, names, home, project, env)
    assert connected(output, "crm"), f"{client} does not report crm connected through the shim:\n{output}"
    messages = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    first = messages[0]["params"]
    asked = first.get("protocolVersion") or first["_meta"]["io.modelcontextprotocol/protocolVersion"]
    assert asked == ASKS_FOR[client], f"{client}'s first message: {messages[0]}"
