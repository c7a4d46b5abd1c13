"""The add commands `rata mcp install` prints, run by the real clients, register what `--write` writes.

Claude Code 2.1.328, OpenCode 1.18.33, Qwen Code 0.24.4, GitHub Copilot CLI 1.0.102, Gemini CLI
0.61.0 and Codex 0.169.0, pinned in
.ci/peers (`cd .ci/peers && npm install`; node 22 comes with them). Each runs with a scratch HOME
and XDG folders, in a scratch project, never the real ones. The entry the client's own `mcp add`
writes to its user file must be the entry `rata mcp install --write` writes to the project file.
Without the peers the tests skip, except in CI (CI=true) or with RATA_PEERS_REQUIRED=1, where
they fail.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CRM
from tests.mcp.peers import PEERS_BIN, peers_required

pytestmark = pytest.mark.subprocess

RATA = Path(os.path.abspath(sys.executable)).with_name("rata")


class Peer:
    """One client: its program, the user file its `mcp add` writes, its project file, and where servers sit in both."""

    def __init__(self, program: str, user_file: str, project_file: str, key: str) -> None:
        self.program, self.user_file, self.project_file, self.key = program, user_file, project_file, key

    def server(self, file: Path, name: str) -> dict[str, Any]:
        text = file.read_text()
        return (tomllib.loads(text) if file.suffix == ".toml" else json.loads(text))[self.key][name]


PEERS = {
    "claude-code": Peer("claude", ".claude.json", ".mcp.json", "mcpServers"),
    "opencode": Peer("opencode", ".config/opencode/opencode.jsonc", "opencode.json", "mcp"),
    "qwen": Peer("qwen", ".qwen/settings.json", ".qwen/settings.json", "mcpServers"),
    "copilot-cli": Peer("copilot", ".copilot/mcp-config.json", ".mcp.json", "mcpServers"),
    "gemini": Peer("gemini", ".gemini/settings.json", ".gemini/settings.json", "mcpServers"),
    "codex": Peer("codex", ".codex/config.toml", ".codex/config.toml", "mcp_servers"),
}


@pytest.fixture(params=sorted(PEERS))
def client(request: pytest.FixtureRequest) -> str:
    program = PEERS_BIN / PEERS[request.param].program
    if not (program.exists() and (PEERS_BIN / "node").exists()):
        message = f"{program.name} is not installed at {program} (run: cd .ci/peers && npm install --no-audit --no-fund)"
        if peers_required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)
    return request.param


@pytest.fixture
def scratch(tmp_path: Path) -> tuple[Path, Path]:
    """(HOME, project): an empty home and a project folder (a git checkout) for one client."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    return home, project


def client_env(home: Path, rata_home: Path) -> dict[str, str]:
    """The client's environment: the scratch HOME and XDG folders, node 22 first on PATH, no telemetry."""
    return {
        "PATH": os.pathsep.join([str(PEERS_BIN), os.environ.get("PATH", "")]),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "RATA_HOME": str(rata_home),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "NO_COLOR": "1",
    }


def run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, f"{shlex.join(argv)}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.parametrize("dev", [False, True], ids=["app", "dev"])
def test_the_printed_add_command_registers_what_write_writes(client, dev, scratch, rata_home):
    home, project = scratch
    env = client_env(home, rata_home)
    install = [str(RATA), "mcp", "install", "--client", client, "--app", str(CRM), *(["--dev"] if dev else [])]
    printed = json.loads(run([*install, "--json"], env, project).stdout)
    argv = shlex.split(printed["add_command"])
    assert f"RATA_HOME={rata_home}" in argv  # an environment variable: the case that broke `claude mcp add`
    peer = PEERS[client]
    assert argv[0] == peer.program
    run([str(PEERS_BIN / argv[0]), *argv[1:]], env, project)
    run([*install, "--write"], env, project)
    added = peer.server(home / peer.user_file, printed["name"])
    written = peer.server(project / peer.project_file, printed["name"])
    if client == "copilot-cli":
        # Copilot's `mcp add` says "local", rata says "stdio" (Claude Code reads the same .mcp.json and
        # knows only "stdio"); Copilot CLI takes both for one thing.
        assert (added.pop("type"), written.pop("type")) == ("local", "stdio")
    if "cwd" in written:
        # Gemini CLI and Codex have a working-folder field that their `mcp add` cannot set: the
        # printed command names the app with --app instead, which `rata mcp dev` takes the same way.
        assert dev
        written["args"] += ["--app", written.pop("cwd")]
    assert added == written


def test_copilot_cli_reads_the_written_entry_as_its_own(scratch, rata_home):
    """`copilot mcp list --json` shows the `--write` entry in .mcp.json as the one its `mcp add` makes."""
    program = PEERS_BIN / "copilot"
    if not program.exists():
        if peers_required():
            pytest.fail(f"copilot is not installed at {program}; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(f"copilot is not installed at {program} (run: cd .ci/peers && npm install --no-audit --no-fund)")
    home, project = scratch
    env = client_env(home, rata_home)
    install = [str(RATA), "mcp", "install", "--client", "copilot-cli", "--app", str(CRM)]
    run([*install, "--write"], env, project)
    argv = shlex.split(json.loads(run([*install, "--json", "--name", "crmuser"], env, project).stdout)["add_command"])
    run([str(program), *argv[1:]], env, project)
    (home / ".copilot" / "config.json").write_text(json.dumps({"trusted_folders": [str(project)]}))
    servers = json.loads(run([str(program), "mcp", "list", "--json"], env, project).stdout)["mcpServers"]
    ignore = ("type", "source", "sourcePath")
    workspace, user = ({k: v for k, v in servers[n].items() if k not in ignore} for n in ("crm", "crmuser"))
    assert servers["crm"]["source"] == "workspace" and servers["crmuser"]["source"] == "user"
    assert workspace == user and workspace["tools"] == ["*"] and workspace["enabled"] is True
