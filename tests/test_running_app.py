"""The app running: a normal start has nothing of dev mode in it; `rata dev` has all of it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import CRM, subprocess_env
from tests.windows.shared import require_chromium

pytestmark = pytest.mark.subprocess


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
    seen["mcp_socket"] = (app.folder.path / "mcp.sock").exists()
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
