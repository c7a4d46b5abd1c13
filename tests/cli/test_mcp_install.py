"""`rata mcp install` from the command line, and the servers its printed configs start."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from rata.install import clients
from rata.install.clients import ALL, Client, Launch
from rata.install.formats import JSON
from rata.mcp import wire
from tests.conftest import CRM

META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}


def test_list_shows_every_client_with_its_files(rata):
    result = rata("mcp", "install", "--list")
    assert result.exit_code == 0
    for text in ("claude-code", ".mcp.json", ".vscode/mcp.json", ".codex/config.toml", "~/.lmstudio/mcp.json", "(none: --write refuses)"):
        assert text in result.stdout


def test_list_json(rata):
    rows = json.loads(rata("mcp", "install", "--list", "--json").stdout)
    assert {r["client"] for r in rows} >= {"claude", "claude-code", "vscode", "codex", "zed", "goose", "warp"}
    assert next(r for r in rows if r["client"] == "claude")["project_file"] is None


def test_print_puts_the_snippet_on_stdout_and_the_rest_on_stderr(rata):
    result = rata("mcp", "install", "--client", "claude", "--app", str(CRM))
    assert result.exit_code == 0
    server = json.loads(result.stdout)["mcpServers"]["crm"]
    assert Path(server["command"]).is_absolute() and server["args"] == ["--mcp"]
    assert "claude_desktop_config.json" in result.stderr and "--write refuses" in result.stderr


def test_raw_prints_only_the_snippet(rata):
    result = rata("mcp", "install", "--client", "codex", "--app", str(CRM), "--raw")
    assert result.exit_code == 0 and result.stderr == ""
    assert tomllib.loads(result.stdout)["mcp_servers"]["crm"]["args"] == ["--mcp"]


def test_add_command_and_link_are_shown(rata):
    result = rata("mcp", "install", "--client", "cursor", "--app", str(CRM))
    assert "cursor://anysphere.cursor-deeplink/mcp/install?name=crm&config=" in result.stderr
    result = rata("mcp", "install", "--client", "claude-code", "--app", str(CRM))
    assert "claude mcp add crm --scope user --transport stdio -e RATA_HOME=" in result.stderr


def test_copilot_names_both_copilot_clients(rata):
    result = rata("mcp", "install", "--client", "copilot", "--app", str(CRM))
    assert result.exit_code == 1
    assert "--client vscode" in result.stderr and "--client copilot-cli" in result.stderr


def test_json_output(rata):
    data = json.loads(rata("mcp", "install", "--client", "goose", "--app", str(CRM), "--json").stdout)
    assert data["client"] == "goose" and yaml.safe_load(data["snippet"])["extensions"]["crm"]["cmd"] == data["entry"]["cmd"]


def test_write_merges_into_the_current_project_and_is_idempotent(rata, tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    result = rata("mcp", "install", "--client", "claude-code", "--app", str(CRM), "--write", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "Updated" in result.stdout and "approve" in result.stdout
    data = json.loads((tmp_path / ".mcp.json").read_text())
    assert set(data["mcpServers"]) == {"other", "crm"}
    before = (tmp_path / ".mcp.json").read_bytes()
    again = rata("mcp", "install", "--client", "claude-code", "--app", str(CRM), "--write", cwd=tmp_path)
    assert again.exit_code == 0 and "already up to date" in again.stdout
    assert (tmp_path / ".mcp.json").read_bytes() == before
    assert not (CRM / ".mcp.json").exists()


def test_write_refuses_a_user_scope_only_client_and_prints_the_snippet(rata, tmp_path):
    result = rata("mcp", "install", "--client", "claude", "--app", str(CRM), "--write", cwd=tmp_path)
    assert result.exit_code == 1
    assert "no project-scoped file" in result.stderr
    assert json.loads(result.stdout)["mcpServers"]["crm"]
    assert list(tmp_path.iterdir()) == []


def test_write_refuses_a_broken_file_and_leaves_it(rata, tmp_path):
    broken = b'{\n  "servers": {\n    "x": 1,,\n  }\n}\n'
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "mcp.json").write_bytes(broken)
    result = rata("mcp", "install", "--client", "vscode", "--app", str(CRM), "--write", cwd=tmp_path)
    assert result.exit_code == 1 and "cannot be parsed" in result.stderr
    assert (tmp_path / ".vscode" / "mcp.json").read_bytes() == broken


def test_unknown_client_and_bad_name_are_errors(rata):
    result = rata("mcp", "install", "--client", "claud", "--app", str(CRM))
    assert result.exit_code == 1 and "'claude'" in result.stderr
    assert rata("mcp", "install", "--client", "claude", "--name", "a b", "--app", str(CRM)).exit_code == 1
    assert rata("mcp", "install", "--app", str(CRM)).exit_code == 1


def test_a_long_name_warns(rata):
    result = rata("mcp", "install", "--client", "claude-code", "--name", "x" * 50, "--app", str(CRM))
    assert result.exit_code == 0 and "warning:" in result.stderr and "64" in result.stderr


# --- the printed configs really start the server -------------------------------------------------


def launch_of(client: str, snippet: str) -> tuple[list[str], dict[str, str], str | None]:
    """(argv, env, cwd) of the one server in a client's snippet."""
    if client == "codex":
        (server,) = tomllib.loads(snippet)["mcp_servers"].values()
        return [server["command"], *server["args"]], server.get("env", {}), server.get("cwd")
    data = json.loads(snippet)
    if client == "opencode":
        (server,) = data["mcp"].values()
        return server["command"], server.get("environment", {}), server.get("cwd")
    (server,) = data["servers" if client == "vscode" else "mcpServers"].values()
    return [server["command"], *server["args"]], server.get("env", {}), server.get("cwd")


def tools_list(argv: list[str], env: dict[str, str], cwd: str | None, elsewhere: Path) -> list[str]:
    """Start the server as the client would (from a foreign folder, unless the entry names one) and ask for tools/list (2026-07-28)."""
    base = {k: v for k, v in os.environ.items() if k != "RATA_HOME"}
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}) + "\n"
    done = subprocess.run(argv, input=request.encode(), capture_output=True, env={**base, **env}, cwd=cwd or elsewhere, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    (answer,) = [json.loads(line) for line in done.stdout.splitlines()]
    return [tool["name"] for tool in answer["result"]["tools"]]


@pytest.fixture
def migrated(rata_home):
    from tests.conftest import subprocess_env

    subprocess.run(
        [str(Path(os.path.abspath(sys.executable)).with_name("rata")), "migrate", "--app", str(CRM)],
        check=True,
        capture_output=True,
        env=subprocess_env(rata_home),
        timeout=60,
    )
    return rata_home


@pytest.mark.subprocess
@pytest.mark.parametrize("client", ["claude", "vscode", "codex", "opencode"])
def test_the_printed_config_starts_the_app_server(rata, migrated, tmp_path, client):
    snippet = rata("mcp", "install", "--client", client, "--app", str(CRM), "--raw").stdout
    argv, env, cwd = launch_of(client, snippet)
    assert env == {"RATA_HOME": str(migrated)}
    tools = tools_list(argv, env, cwd, tmp_path)
    assert tools == ["customers_delete", "customers_index", "customers_show", "customers_store"]


@pytest.mark.subprocess
@pytest.mark.parametrize("client", ["claude-code", "codex"])
def test_the_printed_dev_config_starts_rata_mcp_dev(rata, migrated, tmp_path, client):
    snippet = rata("mcp", "install", "--client", client, "--dev", "--app", str(CRM), "--raw").stdout
    argv, env, cwd = launch_of(client, snippet)
    assert (cwd == str(CRM)) if client == "codex" else (argv[-2:] == ["--app", str(CRM)])
    tools = tools_list(argv, env, cwd, tmp_path)
    assert {"database_query", "app_info", "search_docs"} <= set(tools)


def test_install_dev_lints_the_window_tools_too(rata):
    # Claude Code shows mcp__<name>__<tool>, 64 characters at most: with a 41-character name
    # read_log_entries is exactly 64 and window_screenshot one more.
    result = rata("mcp", "install", "--client", "claude-code", "--dev", "--name", "x" * 41, "--app", str(CRM))
    assert result.exit_code == 0
    assert "window_screenshot" in result.stderr and "read_log_entries" not in result.stderr


# --- a new client is one row ---------------------------------------------------------------------


def _fake_add(client: Client, name: str, launch: Launch) -> str:
    return shlex.join(["fake", "mcp", "add", name, "--", launch.command, *launch.argv(False)])


FAKE = Client("fake", "Fake Client", JSON, ((ALL, "~/.fake/servers.json"),), ".fake/servers.json", server_key="fakeServers", add=_fake_add)


def test_a_new_client_row_reaches_every_part_of_rata_mcp_install(rata, monkeypatch, tmp_path):
    monkeypatch.setattr(clients, "CLIENTS", (*clients.CLIENTS, FAKE))
    shown = rata("mcp", "install", "--client", "fake", "--app", str(CRM))
    assert shown.exit_code == 0, shown.output
    snippet = json.loads(shown.stdout)
    assert snippet["fakeServers"]["crm"]["args"] == ["--mcp"]
    assert "Fake Client: the crm app's MCP server, as 'crm' under 'fakeServers' (json):" in shown.stderr
    assert f"fake mcp add crm -- {snippet['fakeServers']['crm']['command']} --mcp" in shown.stderr
    assert ".fake/servers.json" in shown.stderr and "~/.fake/servers.json" in shown.stderr

    (tmp_path / "pyproject.toml").write_text("")
    written = rata("mcp", "install", "--client", "fake", "--app", str(CRM), "--write", cwd=tmp_path)
    assert written.exit_code == 0 and "Created" in written.stdout and "Fake Client" in written.stdout
    assert json.loads((tmp_path / ".fake" / "servers.json").read_text()) == snippet

    listed = rata("mcp", "install", "--list")
    assert "Fake Client" in listed.stdout and ".fake/servers.json" in listed.stdout
    row = next(r for r in json.loads(rata("mcp", "install", "--list", "--json").stdout) if r["client"] == "fake")
    assert row["key"] == "fakeServers" and row["write"] == "merges into .fake/servers.json"


@pytest.mark.subprocess
def test_the_client_option_s_help_is_written_from_the_rows(tmp_path):
    """`--help` is built when the command line is imported, so the row is added first, as a row in the table would be."""
    code = (
        "from rata.install import clients, formats; "
        "clients.CLIENTS += (clients.Client('fakeclient', 'Fake Client', formats.JSON, ()),); "
        "from rata.cli.main import main; main()"
    )
    env = {**os.environ, "COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-c", code, "mcp", "install", "--help"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    help_line = next(line for line in done.stdout.splitlines() if "--client" in line)
    assert ", ".join(c.key for c in clients.CLIENTS) + ", fakeclient (see --list)." in help_line
