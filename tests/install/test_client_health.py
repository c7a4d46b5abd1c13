"""The real clients' own offline health checks connect to the servers `rata mcp install --write` writes.

Gemini CLI, Claude Code, Qwen Code and OpenCode each spawn every server of the project's file in
their `mcp list` (no model, no network) and report whether the MCP handshake succeeded. The
scratch project gets crm's server (`--app`) and `rata mcp dev` (`--dev`); both must be reported
connected, and a broken server command must not be. The clients, their scratch HOME and the
missing-peer rule are the ones of test_real_clients.py.
"""

# ruff: noqa: F811 (client and scratch are the fixtures of test_real_clients.py, imported to be used)

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

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

pytestmark = pytest.mark.subprocess

CLIENTS = ["gemini", "claude-code", "qwen", "opencode"]
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


def health(client: str, names: list[str], home: Path, project: Path, env: dict[str, str]) -> str:
    """What the client's offline list command prints, after the approval or trust it needs."""
    approve(client, names, home, project, env)
    done = run([str(PEERS_BIN / PEERS[client].program), "mcp", "list"], env, project)
    return ANSI.sub("", done.stdout + done.stderr)


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


@pytest.mark.parametrize("client", CLIENTS, indirect=True)
def test_a_broken_server_command_is_not_reported_connected(client, scratch, rata_home, tmp_path):
    """The check can fail: crm's entry pointed at a program that is no server is not connected."""
    home, project = scratch
    env = client_env(home, rata_home)
    names = write_both(client, project, env)
    file = project / PEERS[client].project_file
    config = json.loads(file.read_text())
    entry = config[PEERS[client].key]["crm"]
    broken = str(tmp_path / "no-such-server")
    if isinstance(entry["command"], list):  # OpenCode: the command and its arguments in one list
        entry["command"][0] = broken
    else:
        entry["command"] = broken
    file.write_text(json.dumps(config, indent=2))
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

ASKS_FOR = {"gemini": "2025-06-18", "claude-code": "2026-07-28", "qwen": "2025-11-25", "opencode": "2025-11-25"}


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
    config = json.loads(file.read_text())
    entry = config[PEERS[client].key]["crm"]
    if isinstance(entry["command"], list):
        entry["command"] = [sys.executable, str(shim), str(log), *entry["command"]]
    else:
        entry["args"] = [str(shim), str(log), entry["command"], *entry.get("args", [])]
        entry["command"] = sys.executable
    file.write_text(json.dumps(config, indent=2))
    output = health(client, names, home, project, env)
    assert connected(output, "crm"), f"{client} does not report crm connected through the shim:\n{output}"
    messages = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    first = messages[0]["params"]
    asked = first.get("protocolVersion") or first["_meta"]["io.modelcontextprotocol/protocolVersion"]
    assert asked == ASKS_FOR[client], f"{client}'s first message: {messages[0]}"
