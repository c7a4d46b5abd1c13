"""The GitHub Actions workflow in docs/mcp-inspect.md#in-ci: its rata steps pass on the notes app, and its upload is wired."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.codegen.test_ci import sarif_errors

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "docs" / "examples" / "first_app"
WORKFLOW = APP / ".github" / "workflows" / "rata.yml"


def jobs() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]


def test_the_upload_job_may_write_security_events_and_uploads_what_rata_wrote():
    scanning = jobs()["code-scanning"]
    assert scanning["permissions"]["security-events"] == "write"
    steps = scanning["steps"]
    upload = next(step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    rata = next(step for step in steps if step.get("run", "").startswith("rata "))
    assert rata["run"].endswith(f"--format sarif > {upload['with']['sarif_file']}")
    assert rata.get("continue-on-error") is True  # lint errors (exit 3) must not skip the upload
    assert steps.index(rata) < steps.index(upload)


@pytest.mark.subprocess
def test_every_rata_step_passes_on_the_notes_app_with_its_committed_files(tmp_path):
    project = tmp_path / "notes"
    shutil.copytree(APP, project, ignore=shutil.ignore_patterns("__pycache__", "rata.catalog.json", "mcp-surface.json"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "RATA_HOME": str(tmp_path / "home")}

    def bash(command: str) -> subprocess.CompletedProcess[str]:
        # GitHub runs `run:` steps with bash --noprofile --norc -eo pipefail
        shell = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command]
        return subprocess.run(shell, cwd=project, env=env, capture_output=True, text=True, timeout=120)

    assert bash("rata mcp inspect --json > mcp-surface.json && rata codegen").returncode == 0
    steps = [step["run"] for job in jobs().values() for step in job["steps"] if step.get("run", "").startswith("rata ")]
    assert len(steps) == 3
    for command in steps:
        done = bash(command)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        assert "--format github" not in command or done.stdout == ""
    log = json.loads((project / "rata.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(log) == [] and log["runs"][0]["results"] == []
