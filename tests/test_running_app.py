"""The app running: a normal start has nothing of dev mode in it; `rata dev` has all of it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rata import App, Ctx, Mcp, command
from rata.running_app import RunningApp
from rata.testing import AgentClient
from tests.conftest import CRM, subprocess_env
from tests.windows.shared import require_chromium

pytestmark = [pytest.mark.subprocess, pytest.mark.usefixtures("endpoint_transport")]  # the Unix socket, and Windows' TCP


LOOK_AROUND = """
import json, sys
sys.path.insert(0, {crm!r})
from crm.app import app
from rata.running_app import RunningApp

seen = {{}}

def look(host):
    window = host.window("main")
    seen["page_script"] = window.eval_json("typeof window.__rata_dev")
    seen["runtime"] = window.eval_json("typeof window.rata")
    seen["dev_modules"] = sorted(name for name in sys.modules if name.startswith("rata.debug_build"))
    seen["dev_socket"] = (app.folder.path / "dev.sock").exists()
    seen["mcp_socket"] = (app.folder.path / "mcp.sock").exists() or (app.folder.path / "mcp.port").exists()
    seen["dev_socket"] = seen["dev_socket"] or (app.folder.path / "dev.port").exists()
    host.backend.stop()

with RunningApp(app) as running:
    running.show_windows("browser", headless=True, on_start=look)
print(json.dumps(seen))
"""


def test_a_normal_start_with_a_window_has_no_page_script_no_dev_modules_and_no_dev_socket(tmp_path):
    require_chromium()
    script = LOOK_AROUND.format(crm=str(CRM))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=subprocess_env(tmp_path / "home"), timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {"page_script": "undefined", "runtime": "object", "dev_modules": [], "dev_socket": False, "mcp_socket": True}


@command(can="notes.read")
def notes_count(ctx: Ctx) -> int:
    """How many notes there are."""
    return ctx.db.execute("SELECT count(*) FROM notes").fetchone()[0]


def test_a_start_whose_migration_fails_still_runs_and_its_agents_hear_the_failure_through_the_endpoint(tmp_path):
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "0001_broken.sql").write_text("CREATE TABLE notes (x);\nINSERT INTO nowhere VALUES (1);")
    app = App("notes", identifier="com.example.running-notes", root=tmp_path).commands(notes_count).mcp(Mcp().allow_abilities(["notes.*"]))
    with RunningApp(app) as running:
        assert "0001_broken.sql" in running.started.problem.message and running.mcp_endpoint is not None
        with AgentClient.running(app) as agent:
            result = agent.call("notes_count")
        assert result.is_error and "0001_broken.sql" in result.text and "no such table: nowhere" in result.text
