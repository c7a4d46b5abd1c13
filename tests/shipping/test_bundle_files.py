"""What goes in a bundle: the app's package, rata, the entry script; never caches, app data or files outside the project."""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.errors import ConfigError
from rata.shipping.bundle_files import (
    IGNORED,
    BundleFile,
    bundle_files,
    bundle_name,
    entry_script,
    ignored_path,
    other_dependencies,
    read_ignore_file,
    write_bundle,
)
from rata.shipping.project import read_project

PYPROJECT = """\
[project]
name = "notes"
version = "0.1.0"
description = "Notes."
authors = [{ name = "Ada" }]
dependencies = ["rata-toolkit>=0.1", "Rata_Toolkit[desktop]"]

[tool.rata]
app = "notes.app:app"
"""


def project(tmp_path: Path, layout: str = "") -> Path:
    root = tmp_path / "notes"
    package = root / layout / "notes"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "app.py").write_text("app = None\n", encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return root


def names(root: Path, tmp_path: Path) -> list[str]:
    return [item.name for item in bundle_files(read_project(root / "pyproject.toml"), "{}\n", "notes", work=tmp_path / "work")]


def test_the_bundle_holds_the_manifest_the_entry_the_app_package_and_rata(tmp_path):
    found = names(project(tmp_path), tmp_path)
    assert found == sorted(found)
    assert {"manifest.json", "server/main.py", "server/lib/notes/__init__.py", "server/lib/notes/app.py", "server/lib/rata/cli/appmain.py"} <= set(found)
    assert not any(name.startswith(("server/lib/rata/_docs/", "server/lib/rata/_templates/")) for name in found)


def test_an_app_package_under_src_is_found(tmp_path):
    assert "server/lib/notes/app.py" in names(project(tmp_path, "src"), tmp_path)


def test_a_missing_app_package_names_where_it_looked(tmp_path):
    root = project(tmp_path)
    (root / "pyproject.toml").write_text(PYPROJECT.replace("notes.app:app", "elsewhere.app:app"), encoding="utf-8")
    with pytest.raises(ConfigError, match="The app's package 'elsewhere'"):
        names(root, tmp_path)


def test_a_link_out_of_the_project_is_refused(tmp_path):
    root = project(tmp_path)
    (tmp_path / "secret.txt").write_text("key", encoding="utf-8")
    (root / "notes" / "secret.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(ConfigError, match="links outside"):
        names(root, tmp_path)


def test_rata_itself_is_not_a_dependency_to_install():
    assert other_dependencies(["rata-toolkit>=0.1", "Rata_Toolkit[desktop]", "rata.toolkit ; python_version>'3'"]) == []
    assert other_dependencies(["rata-toolkit", "httpx>=0.27", "rata-toolkit-extras"]) == ["httpx>=0.27", "rata-toolkit-extras"]
    with pytest.raises(ConfigError, match="is not a requirement"):
        other_dependencies([">=1.0"])


@pytest.mark.parametrize(
    ("path", "left_out"),
    [
        ("notes/__pycache__/app.cpython-311.pyc", True),
        ("notes/.git/HEAD", True),
        ("notes/.venv/lib/x.py", True),
        ("notes/data/notes.db", True),
        ("notes/notes.sqlite-wal", True),
        ("notes/debug.log", True),
        ("notes/.env.local", True),
        ("notes/app.py", False),
        ("notes/frontend/index.html", False),
        ("notes/environment.py", False),
    ],
)
def test_caches_version_control_venvs_app_data_and_logs_are_left_out(path, left_out):
    assert ignored_path(PurePosixPath(path), IGNORED) is left_out


def test_mcpbignore_names_files_folders_and_paths(tmp_path):
    (tmp_path / ".mcpbignore").write_text("# comment\n\n*.md\n/notes/drafts/\nnotes/frontend/dev.js\n", encoding="utf-8")
    patterns = read_ignore_file(tmp_path)
    assert patterns == ("*.md", "notes/drafts", "notes/frontend/dev.js")
    assert ignored_path(PurePosixPath("notes/README.md"), patterns)
    assert ignored_path(PurePosixPath("notes/drafts/one.txt"), patterns)
    assert ignored_path(PurePosixPath("notes/frontend/dev.js"), patterns)
    assert not ignored_path(PurePosixPath("notes/frontend/app.js"), patterns)


def test_an_unreadable_mcpbignore_is_a_config_error(tmp_path):
    (tmp_path / ".mcpbignore").write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="cannot be read"):
        read_ignore_file(tmp_path)


def test_the_entry_script_starts_the_apps_mcp_server_from_the_bundled_packages():
    script = entry_script("notes", "notes.app:app")
    compile(script, "server/main.py", "exec")
    assert 'sys.argv[:] = [\'notes\', "--mcp"]' in script and "main_for('notes.app:app')" in script
    assert script.index("sys.path.insert(0,") < script.index("from rata.cli.appmain import main_for")


@given(name=st.text(), target=st.text())
def test_any_app_name_and_target_are_plain_string_literals_in_the_entry_script(name, target):
    tree = ast.parse(entry_script(name, target))
    literals = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "main_for"]
    assert [call.args[0].value for call in literals] == [target]
    (argv,) = [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript)]
    assert ast.literal_eval(argv) == [name, "--mcp"]


def test_the_bundle_is_named_like_mcpb_pack_names_it():
    assert bundle_name({"name": "Rata Example CRM", "version": "1.0.0"}) == "rata-example-crm-1.0.0.mcpb"
    assert bundle_name({"name": "x", "version": "../../../etc/1.0"}) == "x-......etc1.0.mcpb"


@given(st.dictionaries(st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}\.[a-z]{1,3}", fullmatch=True), st.binary(max_size=64), min_size=1, max_size=6))
def test_a_bundle_is_a_zip_of_exactly_its_files_with_the_same_bytes_every_time(tmp_path_factory, contents):
    folder = tmp_path_factory.mktemp("zip")
    files = [BundleFile(name, data=data) for name, data in sorted(contents.items())]
    write_bundle(files, folder / "a.mcpb")
    write_bundle(files, folder / "b.mcpb")
    assert (folder / "a.mcpb").read_bytes() == (folder / "b.mcpb").read_bytes()
    with zipfile.ZipFile(folder / "a.mcpb") as archive:
        assert {info.filename: archive.read(info) for info in archive.infolist()} == contents
        assert {info.external_attr >> 16 for info in archive.infolist()} == {0o100644}
    assert sorted(path.name for path in folder.iterdir()) == ["a.mcpb", "b.mcpb"]  # no partial file left
