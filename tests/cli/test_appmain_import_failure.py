"""An app whose code raises at import, started as MCP clients start it: its console script with ``--mcp``, as a real process.

Without a manifest nothing can answer, so the process says why in one line on stderr (the line `rata mcp serve` gives) and
exits 1; with one, the client's first requests are answered from it and each request that needs the app says why.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rata.mcp import wire
from rata.testing import AgentClient
from tests.conftest import subprocess_env

BROKEN_APP = textwrap.dedent(
    '''
    import os

    from rata import App, Ctx, Mcp, command

    failure = os.environ.get("BROKEN")
    if failure == "ImportError":
        import a_package_that_is_not_installed  # noqa: F401
    elif failure == "Exception":
        raise RuntimeError("the settings file is missing")
    elif failure == "SystemExit":
        raise SystemExit(3)
    elif failure == "KeyboardInterrupt":
        raise KeyboardInterrupt


    @command(can="notes.read")
    def notes_count(ctx: Ctx) -> int:
        """How many notes there are."""
        return 0


    app = App("broken", identifier="com.example.broken-import").commands(notes_count).mcp(Mcp().allow_abilities(["notes.*"]))
    '''
)

RAISED = {
    "ImportError": "ModuleNotFoundError: No module named 'a_package_that_is_not_installed'",
    "Exception": "RuntimeError: the settings file is missing",
    "SystemExit": "SystemExit: 3",
    "KeyboardInterrupt": "KeyboardInterrupt",
}

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


@pytest.fixture
def broken(tmp_path):
    """A package whose app raises at import when BROKEN names a kind of failure, and how to start it as its console script would."""
    package = tmp_path / "src" / "broken_app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text(BROKEN_APP)
    script = "from rata.cli.appmain import main_for; main_for('broken_app.app:app')"

    def env(failure: str | None = None) -> dict[str, str]:
        extra = {"BROKEN": failure} if failure else {}
        return subprocess_env(tmp_path / "home", PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"), PYTHONPATH=str(tmp_path / "src"), **extra)

    return {"command": [sys.executable, "-c", script, "--mcp"], "env": env, "source": package / "app.py", "cwd": tmp_path}


def rata_command() -> list[str]:
    script = Path(sys.executable).with_name("rata")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rata"]


@pytest.mark.parametrize("failure", list(RAISED))
def test_without_a_manifest_the_console_script_says_why_in_one_line_as_rata_mcp_serve_does(broken, failure):
    line = (json.dumps(INITIALIZE) + "\n").encode()
    started = subprocess.run(broken["command"], input=line, capture_output=True, env=broken["env"](failure), cwd=broken["cwd"], timeout=60)
    said = started.stderr.decode()
    assert started.returncode == 1 and started.stdout == b""
    assert said.count("\n") == 1 and "Traceback" not in said
    assert said.startswith(f"error: Importing the app 'broken_app.app:app' failed: {RAISED[failure]}")
    assert f"(at {broken['source']}:" in said and "Fix that error in the app's code" in said
    served = subprocess.run(
        [*rata_command(), "mcp", "serve", "--app", "broken_app.app:app"],
        input=line, capture_output=True, env=broken["env"](failure), cwd=broken["cwd"], timeout=60,
    )
    assert served.returncode == 1 and served.stderr.decode() == said


@pytest.mark.parametrize("failure", list(RAISED))
def test_with_a_manifest_the_client_is_answered_and_each_request_that_needs_the_app_says_why(broken, failure):
    with AgentClient.spawn(broken["command"], env=broken["env"](), stderr=subprocess.DEVNULL) as first:  # a good start writes the manifest
        assert [tool["name"] for tool in first.list_tools()] == ["notes_count"]
    client = AgentClient.spawn(broken["command"], env=broken["env"](failure), era="legacy", stderr=subprocess.PIPE)
    with client:
        assert [tool["name"] for tool in client.list_tools()] == ["notes_count"]  # from the manifest
        called = client.call("notes_count")
        read = client.request_raw("resources/read", {"uri": "app://notes_count"})
        again = client.call("notes_count")
    with client._process.stderr as stderr:
        said = stderr.read().decode()
    assert called.is_error and again.is_error and called.text == again.text
    assert called.text.startswith(f"The app could not be loaded, so tools/call cannot run: Importing the app 'broken_app.app:app' failed: {RAISED[failure]}")
    assert f"(at {broken['source']}:" in called.text and called.text.endswith("then run it again.")
    assert read["error"]["code"] == wire.INTERNAL_ERROR and read["error"]["message"] == called.text.replace("tools/call", "resources/read")
    failed = [line for line in said.splitlines() if "failed" in line]
    assert len(failed) == 1 and RAISED[failure] in failed[0] and "Traceback" not in said
