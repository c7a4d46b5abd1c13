"""`rata mcp publish`: server.json written (--dry-run), checked (--check), never sent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from rata.shipping.registry import validate
from tests.conftest import CRM, subprocess_env


def copy_crm(tmp_path):
    target = tmp_path / "crm"
    shutil.copytree(CRM, target, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    return target


def test_without_dry_run_it_publishes_nothing_and_says_how_to_with_mcp_publisher(rata, tmp_path):
    project = copy_crm(tmp_path)
    (project / "server.json").unlink()
    result = rata("mcp", "publish", "--app", str(project))
    assert result.exit_code == 1
    assert "mcp-publisher" in result.stderr and "rata mcp publish --dry-run" in result.stderr
    assert not (project / "server.json").exists()


def test_dry_run_writes_server_json_prints_it_and_the_steps(rata, tmp_path):
    project = copy_crm(tmp_path)
    (project / "server.json").unlink()
    result = rata("mcp", "publish", "--dry-run", "--app", str(project))
    assert result.exit_code == 0, result.output
    written = (project / "server.json").read_text(encoding="utf-8")
    assert result.stdout == written
    assert validate(json.loads(written)) == []
    assert "Nothing was published." in result.stderr
    assert "warning: The namespace 'com.example' is an example domain" in result.stderr
    assert "mcp-publisher login dns --domain example.com" in result.stderr
    assert "mcp-publisher publish" in result.stderr
    again = rata("mcp", "publish", "--dry-run", "--app", str(project))
    assert again.exit_code == 0 and "Kept" in again.stderr


def test_check_passes_on_the_committed_file_and_exits_4_when_the_version_or_description_changes(rata, tmp_path):
    project = copy_crm(tmp_path)
    assert rata("mcp", "publish", "--check", "--app", str(project)).exit_code == 0
    pyproject = project / "pyproject.toml"
    original = pyproject.read_text(encoding="utf-8")
    for old, new, shown in (('version = "1.0.0"', 'version = "1.0.1"', '+  "version": "1.0.1"'), ("the example rata app.", "for agents.", "for agents.")):
        pyproject.write_text(original.replace(old, new), encoding="utf-8")
        stale = rata("mcp", "publish", "--check", "--app", str(project))
        assert stale.exit_code == 4
        assert "is stale against the project" in stale.stderr and shown in stale.stderr
    assert (project / "server.json").read_text(encoding="utf-8") == (CRM / "server.json").read_text(encoding="utf-8")


def test_check_without_a_file_says_how_to_make_it(rata, tmp_path):
    project = copy_crm(tmp_path)
    (project / "server.json").unlink()
    result = rata("mcp", "publish", "--check", "--app", str(project))
    assert result.exit_code == 1 and "rata mcp publish --dry-run" in result.stderr


def test_a_server_json_rata_did_not_write_is_kept_unless_forced(rata, tmp_path):
    project = copy_crm(tmp_path)
    mine = '{"name": "io.github.ada/crm", "description": "Mine.", "version": "1.0.0"}\n'
    (project / "server.json").write_text(mine, encoding="utf-8")
    refused = rata("mcp", "publish", "--dry-run", "--app", str(project))
    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert (project / "server.json").read_text(encoding="utf-8") == mine
    forced = rata("mcp", "publish", "--dry-run", "--force", "--app", str(project))
    assert forced.exit_code == 0
    assert (project / "server.json").read_text(encoding="utf-8") == (CRM / "server.json").read_text(encoding="utf-8")


def test_mcp_name_prints_only_the_readme_line(rata, tmp_path):
    result = rata("mcp", "publish", "--mcp-name", "--app", str(copy_crm(tmp_path)))
    assert result.exit_code == 0 and result.stdout == "<!-- mcp-name: com.example/crm -->\n"


def test_out_writes_elsewhere_and_options_that_clash_are_refused(rata, tmp_path):
    project = copy_crm(tmp_path)
    out = tmp_path / "entries" / "crm.json"
    assert rata("mcp", "publish", "--dry-run", "--out", str(out), "--app", str(project)).exit_code == 0
    assert out.read_text(encoding="utf-8") == (CRM / "server.json").read_text(encoding="utf-8")
    assert rata("mcp", "publish", "--dry-run", "--check", "--app", str(project)).exit_code == 1
    assert rata("mcp", "publish", "--force", "--app", str(project)).exit_code == 1


def test_a_hostile_pyproject_is_one_clear_error_not_a_traceback(rata, tmp_path):
    project = copy_crm(tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('version = "1.0.0"', "version = 1"), encoding="utf-8")
    result = rata("mcp", "publish", "--dry-run", "--app", str(project))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: [project] version in") and "Traceback" not in result.output


@pytest.mark.subprocess
def test_the_real_cli_writes_and_checks_the_entry_of_a_new_app(tmp_path):
    env = subprocess_env(tmp_path / "home")

    def rata(*args):
        return subprocess.run([sys.executable, "-m", "rata", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    assert rata("new", "notes", "--identifier", "io.github.ada.notes").returncode == 0
    written = rata("mcp", "publish", "--dry-run", "--app", "notes")
    assert written.returncode == 0, written.stderr
    entry = json.loads((tmp_path / "notes" / "server.json").read_text(encoding="utf-8"))
    assert json.loads(written.stdout) == entry
    assert validate(entry) == []
    assert (entry["name"], entry["packages"][0]["identifier"]) == ("io.github.ada/notes", "notes")
    assert "Wrote notes/server.json" in written.stderr and "mcp-publisher login github" in written.stderr
    assert rata("mcp", "publish", "--check", "--app", "notes").returncode == 0
    line = rata("mcp", "publish", "--mcp-name", "--app", "notes").stdout
    with (tmp_path / "notes" / "README.md").open("a", encoding="utf-8") as readme:
        readme.write("\n" + line)
    clean = rata("mcp", "publish", "--dry-run", "--app", "notes")
    assert clean.returncode == 0 and "warning" not in clean.stderr
    assert "1. Upload notes 0.1.0 to PyPI, with the README that holds <!-- mcp-name: io.github.ada/notes -->." in clean.stderr
    pyproject = tmp_path / "notes" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('version = "0.1.0"', 'version = "0.2.0"'), encoding="utf-8")
    assert rata("mcp", "publish", "--check", "--app", "notes").returncode == 4


MCP_PUBLISHER = os.environ.get("RATA_MCP_PUBLISHER") or shutil.which("mcp-publisher")


@pytest.mark.subprocess
@pytest.mark.skipif(MCP_PUBLISHER is None, reason="the registry's mcp-publisher is not installed (set RATA_MCP_PUBLISHER to its path)")
def test_the_registry_s_own_mcp_publisher_validates_the_crm_entry(tmp_path):
    """`mcp-publisher validate` runs the registry's schema and semantic checks locally (no login, nothing sent)."""
    assert MCP_PUBLISHER is not None
    shutil.copy(CRM / "server.json", tmp_path / "server.json")
    done = subprocess.run([MCP_PUBLISHER, "validate", "server.json"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
