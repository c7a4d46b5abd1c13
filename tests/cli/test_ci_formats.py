"""`--format github|sarif` on `rata mcp inspect --strict/--check` and `rata codegen --check`: findings CI can place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.test_mcp_inspect import LINTY
from tests.codegen.test_ci import parse_command, sarif_errors
from tests.conftest import CRM, subprocess_env

LONG = "list_every_single_thing_in_the_warehouse_with_all_their_details_please"


def run_rata(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """The real CLI, in a subprocess."""
    command = [sys.executable, "-m", "rata", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=subprocess_env(home), timeout=120)


def linty(tmp_path: Path) -> Path:
    path = tmp_path / "linty.py"
    path.write_text(textwrap.dedent(LINTY), encoding="utf-8")
    return path


def def_line(path: Path, name: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(f"def {name}("))


def test_a_clean_app_gives_no_github_lines_and_an_empty_sarif_run(rata):
    github = rata("mcp", "inspect", "--app", str(CRM), "--strict", "--format", "github")
    assert github.exit_code == 0 and github.stdout == ""
    sarif = rata("mcp", "inspect", "--app", str(CRM), "--strict", "--format", "sarif")
    assert sarif.exit_code == 0
    log = json.loads(sarif.stdout)
    assert sarif_errors(log) == [] and log["runs"][0]["results"] == []


@pytest.mark.subprocess
def test_the_real_cli_writes_a_valid_sarif_log_with_each_finding_at_its_def(tmp_path):
    path = linty(tmp_path)
    result = run_rata("mcp", "inspect", "--app", "linty.py", "--strict", "--format", "sarif", cwd=tmp_path, home=tmp_path / "home")
    assert result.returncode == 3 and "Lint found 3 error(s)" in result.stderr
    log = json.loads(result.stdout)
    assert sarif_errors(log) == []
    physical = [(r, r["locations"][0]["physicalLocation"]) for r in log["runs"][0]["results"]]
    places = {(r["ruleId"], r["level"], where["artifactLocation"]["uri"], where["region"]["startLine"]) for r, where in physical}
    assert ("name-too-long", "error", "linty.py", def_line(path, LONG)) in places
    assert ("name-collision", "error", "linty.py", def_line(path, "thing_get")) in places
    assert ("schema-not-strict", "error", "linty.py", def_line(path, "thing_get_dotted")) in places
    assert ("param-description", "note", "linty.py", def_line(path, "thing_get_dotted")) in places
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%" for r in log["runs"][0]["results"])
    again = run_rata("mcp", "inspect", "--app", "linty.py", "--strict", "--format", "sarif", cwd=tmp_path, home=tmp_path / "home")
    assert again.stdout == result.stdout


@pytest.mark.subprocess
def test_the_real_cli_writes_one_github_command_per_finding_and_keeps_the_exit_code(tmp_path):
    path = linty(tmp_path)
    result = run_rata("mcp", "inspect", "--app", "linty.py", "--strict", "--format", "github", cwd=tmp_path, home=tmp_path / "home")
    assert result.returncode == 3
    commands = [parse_command(line) for line in result.stdout.splitlines()]
    assert len(commands) == 9
    too_long = next(command for command in commands if command[1]["title"] == "rata name-too-long")
    assert too_long[:2] == ("error", {"file": "linty.py", "line": str(def_line(path, LONG)), "title": "rata name-too-long"})
    assert too_long[2].startswith(f"{LONG} /name: Claude Code and Codex call it")
    assert [name for name, _, _ in commands].count("error") == 3 and commands[-1][0] == "notice"


def test_without_strict_lint_errors_are_reported_but_do_not_fail(rata, tmp_path):
    linty(tmp_path)
    result = rata("mcp", "inspect", "--app", "linty.py", "--format", "github", cwd=tmp_path)
    assert result.exit_code == 0 and result.stdout.startswith("::error file=linty.py,")


def test_check_reports_each_drifted_tool_at_its_def_or_in_the_saved_file_and_exits_4(rata, tmp_path):
    path = linty(tmp_path)
    saved = tmp_path / "mcp-surface.json"
    surface = json.loads(rata("mcp", "inspect", "--app", "linty.py", "--json", cwd=tmp_path).stdout)
    surface["tools"] = [t for t in surface["tools"] if t["name"] != "thing_get"] + [{"name": "gone", "inputSchema": {}}]
    saved.write_text(json.dumps(surface, indent=2))
    gone = next(n for n, line in enumerate(saved.read_text().splitlines(), 1) if '"name": "gone"' in line)
    result = rata("mcp", "inspect", "--app", "linty.py", "--check", "mcp-surface.json", "--format", "github", cwd=tmp_path)
    assert result.exit_code == 4
    assert [parse_command(line)[:2] for line in result.stdout.splitlines()] == [
        ("error", {"file": "linty.py", "line": str(def_line(path, "thing_get")), "title": "rata surface-drift"}),
        ("error", {"file": "mcp-surface.json", "line": str(gone), "title": "rata surface-drift"}),
    ]
    assert "added: tool thing_get" in result.stderr and "drifted from 'mcp-surface.json'" in result.stderr
    both = rata("mcp", "inspect", "--app", "linty.py", "--check", "mcp-surface.json", "--strict", "--format", "sarif", cwd=tmp_path)
    assert both.exit_code == 4
    log = json.loads(both.stdout)
    assert sarif_errors(log) == []
    rules = [r["ruleId"] for r in log["runs"][0]["results"]]
    assert rules[-2:] == ["surface-drift", "surface-drift"] and "name-collision" in rules


def test_check_on_a_matching_surface_prints_only_the_format(rata, tmp_path):
    saved = tmp_path / "mcp-surface.json"
    saved.write_text(rata("mcp", "inspect", "--app", str(CRM), "--json").stdout)
    github = rata("mcp", "inspect", "--app", str(CRM), "--check", str(saved), "--format", "github")
    assert github.exit_code == 0 and github.stdout == ""
    sarif = rata("mcp", "inspect", "--app", str(CRM), "--check", str(saved), "--format", "sarif")
    assert sarif.exit_code == 0 and json.loads(sarif.stdout)["runs"][0]["results"] == []


def test_hostile_text_from_the_app_stays_on_its_line_and_reads_back_whole(rata, tmp_path):
    uri = "x://a%25::error,file=x.py::b,c"  # names and URIs cannot hold a line break; the escaping of those is in tests/codegen
    (tmp_path / "hostile.py").write_text(
        textwrap.dedent(
            f'''
            from rata import App, Mcp, Resource

            app = App("hostile", identifier="com.example.hostile").resources(
                Resource("{uri}", text="t", can="x.view")
            ).mcp(Mcp().allow_abilities(["x.*"]))
            '''
        )
    )
    result = rata("mcp", "inspect", "--app", "hostile.py", "--format", "github", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and "%2525" in lines[0]
    name, properties, message = parse_command(lines[0])
    assert (name, properties) == ("warning", {"file": "hostile.py", "line": "4", "title": "rata resource-description"})
    assert message.startswith(f"{uri} /resources/0/description: {uri} has no description")


def test_format_is_for_the_findings_not_for_a_view(rata):
    result = rata("mcp", "inspect", "--app", str(CRM), "--json", "--format", "sarif")
    assert result.exit_code == 1 and "--format sarif prints the lint findings" in result.stderr
    assert rata("mcp", "inspect", "--app", str(CRM), "--format", "xml").exit_code == 2


def copy_crm(tmp_path: Path) -> Path:
    target = tmp_path / "crm"
    shutil.copytree(CRM, target, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "rata.catalog.json"))
    return target


@pytest.mark.subprocess
def test_codegen_check_reports_a_stale_catalog_at_the_changed_commands_def(tmp_path):
    project = copy_crm(tmp_path)
    home = tmp_path / "home"
    assert run_rata("codegen", cwd=project, home=home).returncode == 0
    fresh = run_rata("codegen", "--check", "--format", "github", cwd=project, home=home)
    assert fresh.returncode == 0 and fresh.stdout == ""
    app_py = project / "crm" / "app.py"
    app_py.write_text(app_py.read_text().replace('"""Show one customer.', '"""Show one customer by id.'))
    stale = run_rata("codegen", "--check", "--format", "github", cwd=project, home=home)
    assert stale.returncode == 4 and "is stale" in stale.stderr
    line = def_line(app_py, "customers_show")
    assert [parse_command(text)[:2] for text in stale.stdout.splitlines()] == [
        ("error", {"file": "crm/app.py", "line": str(line), "title": "rata catalog-drift"}),
        ("error", {"file": "crm/app.py", "line": str(line), "title": "rata catalog-drift"}),
    ]
    assert [parse_command(text)[2].split(" differs")[0] for text in stale.stdout.splitlines()] == [
        "The command 'customers_show'",
        "The tool 'customers_show'",
    ]
    sarif = run_rata("codegen", "--check", "--format", "sarif", cwd=project, home=home)
    assert sarif.returncode == 4
    log = json.loads(sarif.stdout)
    assert sarif_errors(log) == [] and [r["ruleId"] for r in log["runs"][0]["results"]] == ["catalog-drift", "catalog-drift"]


def test_codegen_format_needs_check(rata):
    result = rata("codegen", "--app", str(CRM), "--format", "github")
    assert result.exit_code == 1 and "Add --check" in result.stderr


def test_on_github_actions_paths_are_relative_to_the_workspace_when_run_from_a_folder_inside_it(rata, tmp_path, monkeypatch):
    project = tmp_path / "services" / "warehouse"
    project.mkdir(parents=True)
    linty(project)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    inside = rata("mcp", "inspect", "--app", "linty.py", "--format", "github", cwd=project)
    assert {parse_command(line)[1]["file"] for line in inside.stdout.splitlines()} == {"services/warehouse/linty.py"}
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "elsewhere"))
    outside = rata("mcp", "inspect", "--app", "linty.py", "--format", "github", cwd=project)
    assert {parse_command(line)[1]["file"] for line in outside.stdout.splitlines()} == {"linty.py"}


WORKFLOW = "gone\n::error file=README.md,line=1::Security review passed, merge now"


def test_a_name_in_a_committed_surface_file_cannot_begin_a_line_on_either_stream(tmp_path):
    """GitHub's runner reads a line that begins with '::' on stdout or stderr as a workflow command: only rata's own may."""
    home = tmp_path / "home"
    saved = tmp_path / "mcp-surface.json"
    surface = json.loads(run_rata("mcp", "inspect", "--app", str(CRM), "--json", cwd=tmp_path, home=home).stdout)
    surface["tools"].append({**surface["tools"][0], "name": WORKFLOW})
    surface["tools"].append({**surface["tools"][0], "name": "esc\x1b[2J\u202e"})
    saved.write_text(json.dumps(surface), encoding="utf-8")
    for output_format in ("github", "sarif", "text"):
        result = run_rata("mcp", "inspect", "--app", str(CRM), "--check", str(saved), "--format", output_format, cwd=tmp_path, home=home)
        assert result.returncode == 4, result.stderr
        commands = [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("::")]
        assert len(commands) == (2 if output_format == "github" else 0), commands
        assert all(parse_command(line)[1]["title"] == "rata surface-drift" for line in commands)
        assert "\x1b" not in result.stdout + result.stderr
        assert 'removed: tool "esc\\u001b[2J\\u202e", tool "gone\\n::error file=README.md,line=1::Security review passed, merge now"' in result.stderr


def test_sarif_names_a_file_whose_name_is_not_utf_8_by_its_own_bytes(tmp_path):
    app_file = tmp_path / "bad\udcff\udcfename.py"  # the bytes b"bad\xff\xfename.py" as Python names them
    app_file.write_text(textwrap.dedent(LINTY), encoding="utf-8")
    result = run_rata("mcp", "inspect", "--app", str(app_file), "--format", "sarif", cwd=tmp_path, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    log = json.loads(result.stdout)
    assert sarif_errors(log) == []
    uris = {location["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"] for location in r.get("locations", [])}
    assert uris == {"bad%FF%FEname.py"}
    github = run_rata("mcp", "inspect", "--app", str(app_file), "--format", "github", cwd=tmp_path, home=tmp_path / "home")
    assert github.stdout and all(line.startswith("::") and "file=bad\\udcff\\udcfename.py," in line for line in github.stdout.splitlines())
