"""The target app: found like `rata mcp inspect` finds it, and reloaded when its code changes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.errors import AppLoadError
from rata.testing import AgentClient
from tests.dev_server.helpers import bump_mtime, isolated_imports, make_project, write_app


@pytest.fixture(autouse=True)
def _imports() -> Iterator[None]:
    with isolated_imports():
        yield


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    """(project folder, its app.py)."""
    root, package = make_project(tmp_path / "project")
    return root, root / package / "app.py"


def edit(app_file: Path, **changes) -> None:
    write_app(app_file, name="notes", **changes)
    bump_mtime(app_file)


def test_the_app_is_found_from_a_project_folder(project):
    root, _ = project
    target = Target(str(root), cwd=Path("/"))
    assert target.app().name == "notes"
    assert target.project == root
    assert sorted(target.app().specs) == ["notes_count"]


def test_without_app_the_nearest_pyproject_upward_from_the_working_folder_is_used(project):
    root, app_file = project
    target = Target(None, cwd=app_file.parent)  # inside the package, below the pyproject.toml
    assert target.app().name == "notes"
    assert target.project == root


def test_a_file_path_is_found_too(tmp_path):
    app_file = tmp_path / "single" / "notes_app.py"
    app_file.parent.mkdir()
    write_app(app_file, name="single")
    target = Target("notes_app.py", cwd=app_file.parent)
    assert target.app().name == "single"
    assert target.loaded().project is None


def test_nothing_is_reloaded_while_nothing_changes(project):
    root, _ = project
    target = Target(str(root), cwd=root)
    first = target.app()
    (root / "README.md").write_text("not code\n", encoding="utf-8")  # only Python files and pyproject.toml count
    assert target.app() is first
    assert target.app() is first


def test_an_edited_docstring_is_seen_on_the_next_call(project):
    root, app_file = project
    target = Target(str(root), cwd=root)
    assert target.app().specs["notes_count"].description == "Count the notes."
    edit(app_file, docstring="Count every note, archived ones too.")
    assert target.app().specs["notes_count"].description == "Count every note, archived ones too."


def test_an_added_command_is_seen_on_the_next_call(project):
    root, app_file = project
    target = Target(str(root), cwd=root)
    assert sorted(target.app().specs) == ["notes_count"]
    edit(
        app_file,
        extra='''
        @command(can="notes.create")
        def notes_store(ctx: Ctx, text: str) -> int:
            """Add a note."""
            return 1
        ''',
        commands="notes_count, notes_store",
    )
    app = target.app()
    assert sorted(app.specs) == ["notes_count", "notes_store"]
    assert app.specs["notes_store"].description == "Add a note."


def test_an_edit_to_another_module_of_the_project_is_seen_too(project):
    root, app_file = project
    helper = app_file.parent / "wording.py"
    helper.write_text('DESCRIPTION = "Notes, counted."\n', encoding="utf-8")
    package = app_file.parent.name
    addition = f"\nfrom {package}.wording import DESCRIPTION\napp.description = DESCRIPTION\n"
    app_file.write_text(app_file.read_text(encoding="utf-8") + addition, encoding="utf-8")
    target = Target(str(root), cwd=root)
    assert target.app().description == "Notes, counted."
    helper.write_text('DESCRIPTION = "Notes, all of them."\n', encoding="utf-8")
    bump_mtime(helper)
    assert target.app().description == "Notes, all of them."


def test_a_changed_pyproject_is_a_change_too(project):
    root, app_file = project
    other = app_file.parent / "other.py"
    write_app(other, name="other")
    target = Target(str(root), cwd=root)
    assert target.app().name == "notes"
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(".app:app", ".other:app"), encoding="utf-8")
    bump_mtime(pyproject)
    assert target.app().name == "other"


def test_a_syntax_error_is_reported_with_the_file_and_line_and_fixing_it_recovers(project):
    root, app_file = project
    target = Target(str(root), cwd=root)
    assert target.app().name == "notes"
    good = app_file.read_text(encoding="utf-8")
    lines = good.splitlines()
    broken_line = next(i for i, line in enumerate(lines, 1) if line.startswith("def notes_count"))
    lines[broken_line - 1] = "def notes_count(ctx: Ctx -> int:"
    app_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bump_mtime(app_file)

    with pytest.raises(AppLoadError) as failed:
        target.app()
    assert f"{app_file}:{broken_line}" in failed.value.message
    assert "syntax error" in failed.value.message
    with pytest.raises(AppLoadError):  # the same error again until the file changes; no crash, no stale app
        target.app()

    app_file.write_text(good.replace("Count the notes.", "Count the notes, fixed."), encoding="utf-8")
    bump_mtime(app_file, seconds=20)
    assert target.app().specs["notes_count"].description == "Count the notes, fixed."


def test_an_exception_while_importing_names_the_file_and_line(project):
    root, app_file = project
    target = Target(str(root), cwd=root)
    target.app()
    source = app_file.read_text(encoding="utf-8")
    app_file.write_text(source.replace("app = App(", "raise RuntimeError('no config')\napp = App("), encoding="utf-8")
    bump_mtime(app_file)
    line = app_file.read_text(encoding="utf-8").splitlines().index("raise RuntimeError('no config')") + 1
    with pytest.raises(AppLoadError) as failed:
        target.app()
    assert "RuntimeError: no config" in failed.value.message
    assert f"{app_file}:{line}" in failed.value.message


def test_through_the_tools_a_broken_app_is_a_tool_error_and_the_server_keeps_answering(project):
    root, app_file = project
    target = Target(str(root), cwd=root)
    good = app_file.read_text(encoding="utf-8")
    with AgentClient(dev_app(target)) as agent:
        listed = agent.call("list_commands")
        assert not listed.is_error and [c["name"] for c in listed.data["commands"]] == ["notes_count"]

        app_file.write_text(good.replace("return 0", "return 0 +"), encoding="utf-8")
        bump_mtime(app_file)
        broken = agent.call("list_commands")
        assert broken.is_error
        assert f"{app_file}:" in broken.text and "syntax error" in broken.text
        assert agent.call("app_info").is_error  # every tool that needs the app says so

        tags = '@command(can="notes.view")\ndef notes_tags(ctx: Ctx) -> list[str]:\n    """Tags."""\n    return []\n'
        edit(app_file, docstring="Count the notes again.", extra=tags, commands="notes_count, notes_tags")
        bump_mtime(app_file, seconds=20)
        recovered = agent.call("list_commands")
        assert not recovered.is_error, recovered.text
        assert [(c["name"], c["description"]) for c in recovered.data["commands"]] == [("notes_count", "Count the notes again."), ("notes_tags", "Tags.")]


def test_a_missing_project_is_an_error_that_says_what_to_pass(tmp_path):
    target = Target(None, cwd=tmp_path)
    with pytest.raises(AppLoadError) as failed:
        target.app()
    assert "pyproject.toml" in failed.value.message and "--app" in (failed.value.hint or "")
    assert target.project is None


def test_while_the_app_loads_only_its_modules_folders_and_pyproject_are_looked_at(project):
    """The per-call look costs the same however large the project's other folders are (data, assets, a 100,000-file tree)."""
    root, app_file = project
    target = Target(str(root), cwd=root)
    first = target.app()
    data = root / "aaa_data"
    data.mkdir()
    (data / "script.py").write_text("x = 1\n", encoding="utf-8")  # a Python file no module of the app imports
    assert target.app() is first
    edit(app_file, docstring="Seen although the data folder sorts first.")
    assert target.app().specs["notes_count"].description == "Seen although the data folder sorts first."
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text() + "\n", encoding="utf-8")
    bump_mtime(root / "pyproject.toml", seconds=30)
    assert target.app() is not first
