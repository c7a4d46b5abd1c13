"""`rata codegen [--check]`: the committed catalog file."""

import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import CRM, subprocess_env


def copy_project(tmp_path):
    target = tmp_path / "crm"
    shutil.copytree(CRM, target, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "rata.catalog.json"))
    return target


def test_codegen_writes_the_catalog_in_the_project_then_finds_it_up_to_date(rata, tmp_path):
    project = copy_project(tmp_path)
    first = rata("codegen", "--app", str(project))
    assert first.exit_code == 0 and "Wrote" in first.stdout
    catalog = json.loads((project / "rata.catalog.json").read_text())
    assert list(catalog) == ["app", "grants", "tools", "resources", "templates", "resourceDetails", "commands", "prompts", "promptDetails"]
    assert catalog["app"] == {"name": "crm", "identifier": "com.example.crm", "version": "1.0.0"}
    assert catalog["grants"] == {"frontend": ["customers.*"], "agent": ["customers.view", "customers.create"], "confirm": ["customers.delete"]}
    assert [c["name"] for c in catalog["commands"]] == [
        "app_reset", "customers_delete", "customers_index", "customers_show", "customers_store", "customers_update",
    ]
    assert [c["agent"] for c in catalog["commands"]] == [None, "confirm", "allow", "allow", "allow", None]
    again = rata("codegen", "--app", str(project))
    assert again.exit_code == 0 and "up to date" in again.stdout


@pytest.mark.subprocess
def test_check_passes_when_fresh_and_exits_4_with_a_diff_when_stale(tmp_path):
    project = copy_project(tmp_path)

    def rata(*args):
        command = [sys.executable, "-m", "rata", *args, "--app", str(project)]
        return subprocess.run(command, capture_output=True, text=True, env=subprocess_env(tmp_path / "home"), timeout=60)

    assert rata("codegen").returncode == 0
    assert rata("codegen", "--check").returncode == 0
    app_py = project / "crm" / "app.py"
    app_py.write_text(app_py.read_text().replace('"""Show one customer.', '"""Show one customer by id.'))
    stale = rata("codegen", "--check")
    assert stale.returncode == 4
    assert "changed: command customers_show, tool customers_show" in stale.stderr
    assert '+      "description": "Show one customer by id.",' in stale.stderr
    assert "is stale" in stale.stderr and "rata codegen" in stale.stderr


def test_check_without_a_catalog_says_how_to_write_one(rata, tmp_path):
    project = copy_project(tmp_path)
    result = rata("codegen", "--check", "--app", str(project))
    assert result.exit_code == 1 and "does not exist" in result.stderr and "rata codegen --out" in result.stderr


def test_out_and_stdout(rata, tmp_path):
    out = tmp_path / "elsewhere" / "catalog.json"
    assert rata("codegen", "--app", str(CRM), "--out", str(out)).exit_code == 0
    printed = rata("codegen", "--app", str(CRM), "--stdout")
    assert printed.stdout == out.read_text()
