"""rata.scaffold: the files `rata new` writes, and what it refuses."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.cleantext import clean_text
from rata.errors import ConfigError
from rata.scaffold import Author, git_author, parse_author, rata_requirement, render, requirement_from, scaffold, templates_dir, validate_name

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40) | st.sampled_from(["file:///src/rata", "https://x.org/r.git", "git", "file:///a%0Ab"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["url", "vcs", "commit_id", "editable"]), inner, max_size=3),
    max_leaves=8,
)

FILES = [
    ".github/workflows/ci.yml",
    ".gitignore",
    ".mcp.json",
    ".pre-commit-config.yaml",
    "README.md",
    "docs/index.md",
    "mcp-surface.json",
    "my_tasks/__init__.py",
    "my_tasks/app.py",
    "my_tasks/frontend/app.css",
    "my_tasks/frontend/app.js",
    "my_tasks/frontend/index.html",
    "my_tasks/main.py",
    "my_tasks/migrations/0001_create_tasks.sql",
    "pyproject.toml",
    "rata.catalog.json",
    "requirements-rata.txt",
    "tests/conftest.py",
    "tests/test_app.py",
    "tests/test_window.py",
]


@pytest.mark.parametrize(("name", "package"), [("tasks", "tasks"), ("my-tasks", "my_tasks"), ("crm2", "crm2"), ("a_b-c", "a_b_c"), ("x", "x")])
def test_a_valid_name_gives_its_package(name, package):
    assert validate_name(name) == package


@pytest.mark.parametrize(
    "name",
    ["", "Tasks", "2tasks", "-tasks", "_tasks", "tasks-", "tasks_", "my tasks", "my.tasks", "täsks", "tasks/x", "../x"],
)
def test_a_name_breaking_the_rule_is_refused(name):
    with pytest.raises(ConfigError) as caught:
        validate_name(name)
    assert "lowercase letters, digits, '-' or '_', starting with a letter" in caught.value.message
    assert caught.value.hint


@pytest.mark.parametrize("name", ["class", "import", "def"])
def test_a_python_keyword_is_refused(name):
    with pytest.raises(ConfigError, match="keyword"):
        validate_name(name)


@pytest.mark.parametrize("name", ["test", "json", "email", "sqlite3", "rata", "tests", "typing"])
def test_a_name_that_would_shadow_a_module_is_refused(name):
    with pytest.raises(ConfigError, match="would shadow"):
        validate_name(name)


def test_a_bad_identifier_is_refused():
    for identifier in ["tasks", "com/example", "../evil.x", "com..x", ""]:
        with pytest.raises(ConfigError, match="identifier"):
            render("tasks", identifier)


def test_it_writes_the_template_files_and_returns_them(tmp_path):
    written = scaffold("my-tasks", tmp_path / "project")
    assert written == [PurePosixPath(f) for f in FILES]
    on_disk = sorted(p.relative_to(tmp_path / "project").as_posix() for p in (tmp_path / "project").rglob("*") if p.is_file())
    assert on_disk == sorted(FILES)


def test_an_empty_existing_folder_is_fine(tmp_path):
    assert scaffold("tasks", tmp_path)[0] == PurePosixPath(".github/workflows/ci.yml")


def test_a_non_empty_folder_is_refused_and_left_unchanged(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ConfigError, match="not empty") as caught:
        scaffold("tasks", tmp_path)
    assert caught.value.hint
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_file_as_target_is_refused(tmp_path):
    (tmp_path / "tasks").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="is a file"):
        scaffold("tasks", tmp_path / "tasks")


def test_a_bad_name_writes_nothing(tmp_path):
    with pytest.raises(ConfigError):
        scaffold("Bad Name", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_output_is_deterministic():
    assert render("my-tasks") == render("my-tasks")


def test_every_placeholder_is_filled():
    for path, content in render("my-tasks", "org.acme.tasks"):
        assert "__app_" not in str(path) and b"__app_" not in content, path


def test_pyproject_names_the_app_the_script_and_rata(tmp_path):
    scaffold("my-tasks", tmp_path)
    project = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "my-tasks"
    assert project["project"]["dependencies"] == ["rata-toolkit"]
    assert project["project"]["scripts"] == {"my-tasks": "my_tasks.main:main"}
    assert project["tool"]["rata"] == {"app": "my_tasks.app:app"}
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["my_tasks"]


def test_the_author_is_the_one_given_else_the_app_s_authors(tmp_path):
    scaffold("tasks", tmp_path / "a")
    assert tomllib.loads((tmp_path / "a" / "pyproject.toml").read_text(encoding="utf-8"))["project"]["authors"] == [{"name": "The tasks authors"}]
    scaffold("tasks", tmp_path / "b", author=Author('Ada "A." Lovelace \\ Byron', "ada@example.com"))
    authors = tomllib.loads((tmp_path / "b" / "pyproject.toml").read_text(encoding="utf-8"))["project"]["authors"]
    assert authors == [{"name": 'Ada "A." Lovelace \\ Byron', "email": "ada@example.com"}]


def test_an_author_named_like_a_placeholder_is_kept_as_written(tmp_path):
    scaffold("tasks", tmp_path, author=Author("__app_name__ Ünal"))
    assert tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))["project"]["authors"] == [{"name": "__app_name__ Ünal"}]


@pytest.mark.parametrize(
    ("text", "author"),
    [("Ada Lovelace", Author("Ada Lovelace")), ("Ada Lovelace <ada@example.com>", Author("Ada Lovelace", "ada@example.com")), ("  Ada  ", Author("Ada"))],
)
def test_an_author_is_a_name_with_an_email_in_angle_brackets(text, author):
    assert parse_author(text) == author


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "is not a name"),
        ("<ada@example.com>", "is not a name"),
        ("Ada <not mail>", "not an email"),
        ("Ada\x07", "is not a name"),
        ("A" * 300, "is not a name"),
    ],
)
def test_a_bad_author_is_refused_with_the_form_to_write(text, words):
    with pytest.raises(ConfigError) as caught:
        parse_author(text)
    assert words in caught.value.message and "--author" in (caught.value.hint or "")


def test_git_s_identity_is_the_default_author_when_it_has_one(tmp_path, monkeypatch):
    config = tmp_path / "gitconfig"
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    assert git_author(tmp_path) is None
    config.write_text("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n", encoding="utf-8")
    assert git_author(tmp_path) == Author("Ada Lovelace", "ada@example.com")
    config.write_text("[user]\n\tname = Ada Lovelace\n\temail = not-an-address\n", encoding="utf-8")
    assert git_author(tmp_path) == Author("Ada Lovelace")


def test_mcp_json_registers_rata_mcp_dev_from_the_project_s_venv(tmp_path):
    scaffold("tasks", tmp_path)
    dev = {"type": "stdio", "command": ".venv/bin/rata", "args": ["mcp", "dev"]}
    assert json.loads((tmp_path / ".mcp.json").read_text(encoding="utf-8")) == {"mcpServers": {"rata": dev}}


def test_the_app_uses_the_name_and_identifier(tmp_path):
    scaffold("my-tasks", tmp_path, identifier="org.acme.tasks")
    app_py = (tmp_path / "my_tasks" / "app.py").read_text(encoding="utf-8")
    assert 'App("my-tasks", identifier="org.acme.tasks"' in app_py
    assert 'main_for("my_tasks.app:app")' in (tmp_path / "my_tasks" / "main.py").read_text(encoding="utf-8")
    assert "from my_tasks.app import app" in (tmp_path / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert 'identifier="com.example.tasks"' in dict(render("tasks"))[PurePosixPath("tasks/app.py")].decode()


def test_the_generated_app_loads_and_exposes_its_tools(tmp_path):
    from rata.loader import load_app
    from rata.mcp.inspection import inspect_app

    scaffold("scaffolded-tasks", tmp_path)
    loaded = load_app(str(tmp_path))
    try:
        result = inspect_app(loaded.app, "modern")
        assert [tool["name"] for tool in result.surface["tools"]] == ["tasks_add", "tasks_delete", "tasks_done", "tasks_list"]
        assert result.errors == [] and loaded.app.identifier == "com.example.scaffolded-tasks"
    finally:
        loaded.app.close()


def test_templates_are_found_in_a_source_checkout():
    assert templates_dir() == Path(__file__).resolve().parent.parent / "templates"


# --- the rata a new app installs first ------------------------------------------------------------


def test_the_rata_running_now_is_the_requirement_a_new_app_installs_first(tmp_path):
    scaffold("tasks", tmp_path)
    lines = (tmp_path / "requirements-rata.txt").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == rata_requirement() and all(line.startswith("# ") for line in lines[:-1])
    assert "requirements-rata.txt" in (tmp_path / ".gitignore").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(
    ("record", "requirement"),
    [
        ('{"url": "file:///src/rata", "dir_info": {"editable": true}}', "-e /src/rata"),
        ('{"url": "file:///src/rata", "dir_info": {}}', "/src/rata"),
        ('{"url": "file:///dl/rata_toolkit-0.1.0-py3-none-any.whl", "archive_info": {}}', "/dl/rata_toolkit-0.1.0-py3-none-any.whl"),
        ('{"url": "file:///my%20code/rata", "dir_info": {"editable": true}}', "-e file:///my%20code/rata"),
        ('{"url": "https://github.com/o/rata.git", "vcs_info": {"vcs": "git", "commit_id": "4f2a"}}', "rata-toolkit @ git+https://github.com/o/rata.git@4f2a"),
        ('{"url": "https://example.com/rata_toolkit-0.1.0.tar.gz", "archive_info": {}}', "rata-toolkit @ https://example.com/rata_toolkit-0.1.0.tar.gz"),
        (None, "rata-toolkit==0.1.0"),
        ("not json", "rata-toolkit==0.1.0"),
        ('{"url": "file:///a\\nb", "dir_info": {}}', "rata-toolkit==0.1.0"),
        ('{"url": "file:///-e", "dir_info": {}}', "/-e"),
    ],
)
def test_the_requirement_follows_how_rata_was_installed(record, requirement):
    assert requirement_from(record, "0.1.0") == requirement


records = st.dictionaries(st.sampled_from(["url", "dir_info", "vcs_info", "archive_info"]), json_values, max_size=4).map(json.dumps)


@given(st.one_of(st.none(), st.text(max_size=200), records))
def test_any_install_record_gives_one_requirement_line(record):
    line = requirement_from(record, "0.1.0")
    assert line and "\n" not in line and "\r" not in line and clean_text(line) == line
    assert line.startswith(("rata-toolkit", "-e ", "/", "file:"))


@pytest.mark.parametrize("name", ["pip", "setuptools", "wheel", "uv", "python3", "build", "twine"])
def test_a_packaging_tools_name_is_refused_because_installing_the_app_would_replace_it(tmp_path, name):
    with pytest.raises(ConfigError, match="packaging tool's") as refused:
        scaffold(name, tmp_path / name)
    assert "my-" + name in refused.value.hint and not (tmp_path / name).exists()


@pytest.mark.parametrize(
    ("name", "holder"), [("click", "click"), ("mcp", "mcp"), ("hypothesis", "hypothesis"), ("yaml", "PyYAML"), ("typing-extensions", "typing_extensions")]
)
def test_a_name_an_installed_distribution_holds_is_refused_naming_it(tmp_path, name, holder):
    """`rata new click` then `pip install -e .` would uninstall click, which rata's own CLI needs."""
    with pytest.raises(ConfigError, match="installed in this Python environment") as refused:
        scaffold(name, tmp_path / name)
    assert holder.lower().replace("_", "-") in refused.value.message.lower().replace("_", "-")


@given(st.from_regex(r"[a-z](?:[a-z0-9_-]{0,12}[a-z0-9])?", fullmatch=True))
def test_any_accepted_name_is_no_installed_distribution_packaging_tool_or_stdlib_module(name):
    from rata.scaffold import PACKAGING_TOOLS, installed_names

    try:
        package = validate_name(name)
    except ConfigError:
        return
    taken = installed_names()
    assert package not in taken and name not in taken and name not in PACKAGING_TOOLS and package not in __import__("sys").stdlib_module_names


def test_a_command_of_the_same_name_on_the_path_is_a_warning_not_a_refusal(tmp_path, monkeypatch):
    from rata.scaffold import name_warnings

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tasks").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "tasks").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    (warning,) = name_warnings("tasks")
    assert warning.startswith("A command named 'tasks' is already on your PATH") and str(tmp_path / "bin" / "tasks") in warning
    assert name_warnings("nosuchcommand") == []


def test_a_dangling_link_as_the_folder_is_refused_naming_where_it_points(tmp_path):
    (tmp_path / "here").symlink_to(tmp_path / "gone")
    with pytest.raises(ConfigError, match="which does not exist"):
        scaffold("tasks", tmp_path / "here")
    assert not (tmp_path / "gone").exists()
