"""`rata new`'s CI pieces and rata's pre-commit hooks, run with the real pre-commit on a scratch app.

Every pre-commit and git call runs with a scratch HOME and PRE_COMMIT_HOME, never the user's, and with this venv's
`rata` first on PATH: the hooks run the `rata` of the app's own environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rata.scaffold import templates_dir
from tests.cli import template_files
from tests.conftest import ROOT, subprocess_env

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
HOOKS = ["rata-codegen-check", "rata-mcp-inspect"]
NOT_RUN_HERE = ("pip install",)
"""Workflow steps the tests do not run: the install (this venv already has rata and pytest; the app's folder is on
the import path through its pytest settings and rata's loader)."""

pytestmark = pytest.mark.subprocess


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of every child: scratch HOME and PRE_COMMIT_HOME, a fixed git identity, this venv's tools first."""
    home = tmp_path / "home"
    home.mkdir()
    env = subprocess_env(
        tmp_path / "rata-home",
        HOME=str(home),
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
    )
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    return env


def run(command: list[str], cwd: Path, env: dict[str, str], expect: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == expect, f"{command} exited {done.returncode}, not {expect}:\n{done.stdout}\n{done.stderr}"
    return done


def pre_commit(*args: str, cwd: Path, env: dict[str, str], expect: int = 0) -> str:
    return run([sys.executable, "-m", "pre_commit", *args], cwd, env, expect).stdout


def git_repo(folder: Path, env: dict[str, str]) -> None:
    """`git init` the folder and commit everything in it."""
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "init"]):
        run(["git", *command], folder, env)


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str]) -> Path:
    """A fresh app made by `rata new`, committed to a new git repository."""
    run([sys.executable, "-m", "rata", "new", "my-tasks"], tmp_path, env)
    folder = tmp_path / "my-tasks"
    git_repo(folder, env)
    return folder


def test_the_hooks_manifest_is_valid_for_pre_commit(tmp_path, env):
    pre_commit("validate-manifest", str(MANIFEST), cwd=tmp_path, env=env)
    hooks = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks] == HOOKS
    assert all(hook["language"] == "unsupported" and hook["pass_filenames"] is False for hook in hooks)


def test_the_new_app_s_config_is_valid_and_runs_the_manifest_s_hooks(project, env):
    pre_commit("validate-config", ".pre-commit-config.yaml", cwd=project, env=env)
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    [local] = config["repos"]
    assert local["repo"] == "local"
    for mine, shipped in zip(local["hooks"], yaml.safe_load(MANIFEST.read_text(encoding="utf-8")), strict=True):
        assert mine["entry"] == " ".join([shipped["entry"], *shipped.get("args", [])])
        same = ("id", "name", "language", "pass_filenames", "types_or")
        assert {key: mine[key] for key in same} == {key: shipped[key] for key in same}


def test_the_template_commits_a_current_catalog_and_surface():
    template = templates_dir() / "app"
    for name, text in template_files.expected().items():
        assert (template / name).read_text(encoding="utf-8") == text, f"templates/app/{name} is stale: run python -m tests.cli.template_files"


def test_a_new_app_passes_the_checks_whatever_its_name_and_identifier(tmp_path, env):
    made = run([sys.executable, "-m", "rata", "new", "my_app", "--identifier", "org.acme.my-app"], tmp_path, env).stdout
    assert "  .github/workflows/ci.yml" in made and "  .pre-commit-config.yaml" in made
    assert "  rata.catalog.json" in made and "  mcp-surface.json" in made
    project = tmp_path / "my_app"
    assert '"identifier": "org.acme.my-app"' in (project / "rata.catalog.json").read_text(encoding="utf-8")
    for check in (["codegen", "--check"], ["mcp", "inspect", "--strict", "--check", "mcp-surface.json"]):
        run([sys.executable, "-m", "rata", *check], project, env)


def test_pre_commit_passes_on_a_new_app_and_fails_with_the_finding_until_the_files_are_regenerated(project, env):
    passed = pre_commit("run", "--all-files", cwd=project, env=env)
    assert "rata codegen --check" in passed and "Passed" in passed and "Failed" not in passed

    app_py = project / "my_tasks" / "app.py"
    app_py.write_text(app_py.read_text(encoding="utf-8").replace('"""Add a task.', '"""Add a task to the list.'), encoding="utf-8")
    failed = pre_commit("run", "--all-files", cwd=project, env=env, expect=1)
    assert failed.count("- exit code: 4") == 2
    assert "changed: command tasks_add, tool tasks_add" in failed and "changed: tool tasks_add" in failed
    assert '+      "description": "Add a task to the list.",' in failed
    assert "Run `rata codegen` and commit the file." in failed

    run([sys.executable, "-m", "rata", "codegen"], project, env)
    surface = run([sys.executable, "-m", "rata", "mcp", "inspect", "--json"], project, env).stdout
    (project / "mcp-surface.json").write_text(surface, encoding="utf-8")
    assert "Failed" not in pre_commit("run", "--all-files", cwd=project, env=env)


def hooks_repository(tmp_path: Path, env: dict[str, str], *, this_checkout: bool = True) -> Path:
    """This checkout when git tracks its .pre-commit-hooks.yaml (pre-commit clones it); else a git repository of that file alone."""
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", MANIFEST.name], cwd=ROOT, env=env, capture_output=True, check=False)
    if this_checkout and tracked.returncode == 0:
        return ROOT
    copy = tmp_path / "rata-hooks"
    copy.mkdir()
    (copy / MANIFEST.name).write_bytes(MANIFEST.read_bytes())
    git_repo(copy, env)
    return copy


def test_the_hooks_of_this_repository_run_on_a_new_app_with_try_repo(project, tmp_path, env):
    """`pre-commit try-repo` with this repository as a local path (offline), as a user's `repo:` would name it."""
    hooks_repo = hooks_repository(tmp_path, env)
    tried = pre_commit("try-repo", str(hooks_repo), "--all-files", cwd=project, env=env)
    assert "rata codegen --check...." in tried and "rata mcp inspect --strict --check...." in tried
    assert "Failed" not in tried

    (project / "rata.catalog.json").write_text("{}\n", encoding="utf-8")
    stale = pre_commit("try-repo", str(hooks_repo), "rata-codegen-check", "--all-files", cwd=project, env=env, expect=1)
    assert "is stale" in stale


def test_a_config_naming_rata_s_repository_with_a_rev_checks_an_app_in_a_folder(tmp_path, env):
    """The hooks as a user's config names them (`repo:` and `rev:`), with `args` for an app in `api/` of a larger repository."""
    hooks_repo = hooks_repository(tmp_path, env, this_checkout=False)  # the committed manifest: a clone at `rev`
    rev = run(["git", "rev-parse", "HEAD"], hooks_repo, env).stdout.strip()
    repository = tmp_path / "monorepo"
    run([sys.executable, "-m", "rata", "new", "api-app", "--dir", str(repository / "api")], tmp_path, env)
    config = {
        "repos": [
            {
                "repo": str(hooks_repo),
                "rev": rev,
                "hooks": [
                    {"id": "rata-codegen-check", "args": ["--app", "api"]},
                    {"id": "rata-mcp-inspect", "args": ["api/mcp-surface.json", "--app", "api"]},
                ],
            }
        ]
    }
    (repository / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git_repo(repository, env)
    assert "Failed" not in pre_commit("run", "--all-files", cwd=repository, env=env)

    surface = repository / "api" / "mcp-surface.json"
    surface.write_text(surface.read_text(encoding="utf-8").replace('"tasks_add"', '"tasks_create"'), encoding="utf-8")
    drifted = pre_commit("run", "--all-files", cwd=repository, env=env, expect=1)
    assert "added: tool tasks_add" in drifted and "removed: tool tasks_create" in drifted


def test_the_workflow_installs_the_app_and_runs_its_tests_and_rata_s_checks(project, env):
    workflow = yaml.safe_load((project / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    assert set(workflow[True]) == {"push", "pull_request"}  # YAML 1.1 reads the key `on` as true
    steps = workflow["jobs"]["test"]["steps"]
    assert [step["uses"] for step in steps if "uses" in step] == ["actions/checkout@v7", "actions/setup-python@v7"]
    commands = [step["run"] for step in steps if "run" in step]
    assert commands == [
        'pip install -e ".[test]"',
        "pytest",
        "rata codegen --check --format github",
        "rata mcp inspect --check mcp-surface.json --format github",
        "rata mcp inspect --strict --format github",
    ]
    for command in commands:
        if not any(skipped in command for skipped in NOT_RUN_HERE):
            done = run(["bash", "-c", command], project, env)
            assert "::error" not in done.stdout, command
            if "--format github" in command:
                assert all(line.startswith("::") for line in done.stdout.splitlines()), command  # workflow commands only


def test_the_workflow_s_checks_annotate_the_command_that_drifted(project, env):
    steps = yaml.safe_load((project / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))["jobs"]["test"]["steps"]
    checks = [step["run"] for step in steps if "--check" in step.get("run", "")]
    app_py = project / "my_tasks" / "app.py"
    app_py.write_text(app_py.read_text(encoding="utf-8").replace('"""Add a task.', '"""Add a task to the list.'), encoding="utf-8")
    line = next(number for number, text in enumerate(app_py.read_text(encoding="utf-8").splitlines(), 1) if text.startswith("def tasks_add"))
    for command in checks:
        done = run(["bash", "-c", command], project, env, expect=4)
        assert f"::error file=my_tasks/app.py,line={line}," in done.stdout, command
        assert "tasks_add" in done.stdout and '+      "description": "Add a task to the list.",' in done.stderr
