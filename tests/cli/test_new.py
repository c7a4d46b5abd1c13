"""`rata new`: the command's output, and the project it writes working end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.windows.shared import require_chromium

TOOLS = ["tasks_add", "tasks_delete", "tasks_done", "tasks_list"]


def test_it_lists_the_files_and_the_next_steps(rata, tmp_path):
    result = rata("new", "my-tasks", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Created the app my-tasks in my-tasks:"
    assert "  my_tasks/app.py" in lines and "  .mcp.json" in lines and "  tests/test_app.py" in lines
    assert lines[lines.index("Next steps (README.md says more):") + 1 :] == [
        "  cd my-tasks",
        "  python3 -m venv .venv",
        "  . .venv/bin/activate",
        "  pip install -r requirements-rata.txt",
        '  pip install -e ".[test]"',
        "  rata migrate",
        "  pytest",
        "  rata dev",
    ]
    assert (tmp_path / "my-tasks" / "my_tasks" / "app.py").is_file()


def test_dir_and_identifier_options(rata, tmp_path):
    result = rata("new", "tasks", "--dir", str(tmp_path / "elsewhere"), "--identifier", "org.acme.tasks", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["directory"] == str(tmp_path / "elsewhere") and "tasks/app.py" in report["files"]
    assert 'identifier="org.acme.tasks"' in (tmp_path / "elsewhere" / "tasks" / "app.py").read_text(encoding="utf-8")


def test_the_author_option_names_the_author_in_pyproject(rata, tmp_path):
    result = rata("new", "tasks", "--author", "Ada Lovelace <ada@example.com>", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert 'authors = [{ name = "Ada Lovelace", email = "ada@example.com" }]' in (tmp_path / "tasks" / "pyproject.toml").read_text(encoding="utf-8")


def test_a_bad_author_is_refused_and_nothing_is_written(rata, tmp_path):
    result = rata("new", "tasks", "--author", "Ada <nope>", cwd=tmp_path)
    assert result.exit_code == 1
    assert "not an email address" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_non_empty_folder_is_refused_with_a_hint(rata, tmp_path):
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "keep.txt").write_text("mine", encoding="utf-8")
    result = rata("new", "tasks", cwd=tmp_path)
    assert result.exit_code == 1
    assert "is not empty" in result.stderr and "--dir" in result.stderr
    assert [p.name for p in (tmp_path / "tasks").iterdir()] == ["keep.txt"]


def test_a_bad_name_is_refused_naming_the_rule(rata, tmp_path):
    result = rata("new", "My App", cwd=tmp_path)
    assert result.exit_code == 1
    assert "lowercase letters, digits, '-' or '_'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_new_app_lints_clean_under_strict(rata, tmp_path):
    assert rata("new", "todo", cwd=tmp_path).exit_code == 0
    result = rata("mcp", "inspect", "--strict", "--app", str(tmp_path / "todo"))
    assert result.exit_code == 0, result.output
    assert "Lint: no findings." in result.stdout
    assert "lint: 0 errors, 0 warnings, 0 notes" in result.stdout


@pytest.mark.subprocess
def test_the_new_project_works_without_edits(tmp_path):
    """rata new, then rata mcp inspect, rata migrate, the project's own tests, and `<app> --mcp`."""
    home = tmp_path / "home"
    env = subprocess_env(home)

    def run(*command: str, cwd: Path = tmp_path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(list(command), cwd=cwd, capture_output=True, text=True, env={**env, **(extra or {})}, timeout=120)
        assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
        return done

    rata = [sys.executable, "-m", "rata"]
    run(*rata, "new", "my-tasks")
    project = tmp_path / "my-tasks"

    surface = json.loads(run(*rata, "mcp", "inspect", "--app", str(project), "--json").stdout)
    assert [tool["name"] for tool in surface["tools"]] == TOOLS
    assert [resource["uri"] for resource in surface["resources"]] == ["app://tasks_list"]

    migrated = run(*rata, "migrate", "--app", str(project))
    assert "applied  0001_create_tasks.sql" in migrated.stdout

    on_path = {"PYTHONPATH": str(project), "RATA_HOME": str(tmp_path / "test-home")}
    require_chromium()  # the generated window tests skip without Chromium; here they must run
    tests = run(sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", cwd=project, extra=on_path)
    assert " passed" in tests.stdout and "failed" not in tests.stdout and "skipped" not in tests.stdout, tests.stdout

    server_env = {**env, "PYTHONPATH": str(project)}
    with AgentClient.spawn([sys.executable, "-m", "my_tasks.main", "--mcp"], env=server_env, stderr=subprocess.DEVNULL) as agent:
        assert [tool["name"] for tool in agent.list_tools()] == TOOLS
        assert agent.call("tasks_add", {"title": "Ship it"}).data["id"] == 1  # the database `rata migrate` made


def test_a_dangling_link_as_dir_and_a_packaging_tools_name_are_errors_not_tracebacks(rata, tmp_path):
    (tmp_path / "here").symlink_to(tmp_path / "gone")
    linked = rata("new", "tasks", "--dir", str(tmp_path / "here"))
    assert linked.exit_code != 0 and "which does not exist" in linked.output and "Traceback" not in linked.output
    tool = rata("new", "pip", "--dir", str(tmp_path / "pip"))
    assert tool.exit_code != 0 and "packaging tool's" in tool.output and not (tmp_path / "pip").exists()
