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
    Ignore,
    bundle_files,
    bundle_name,
    entry_script,
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


def selected(root: Path, tmp_path: Path):
    return bundle_files(read_project(root / "pyproject.toml"), "{}\n", "notes", work=tmp_path / "work")


def names(root: Path, tmp_path: Path) -> list[str]:
    return [item.name for item in selected(root, tmp_path).files]


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
        ("notes/data/logs/notes.log.3", True),
        ("notes/data/instance.token", True),
        ("notes/data/mcp.sock", True),
        ("notes/.env.local", True),
        ("notes/app.py", False),
        ("notes/frontend/index.html", False),
        ("notes/environment.py", False),
        ("notes/catalog.py", False),
    ],
)
def test_caches_version_control_venvs_app_data_and_logs_are_left_out(path, left_out):
    assert (Ignore(IGNORED).why(PurePosixPath(path)) is not None) is left_out


def test_mcpbignore_has_gitignores_rules(tmp_path):
    (tmp_path / ".mcpbignore").write_text("# comment\n\n*.md\n!KEEP.md\n/notes/drafts/\nnotes/**/dev.js\n/top.txt\n", encoding="utf-8")
    ignore = Ignore(IGNORED, read_ignore_file(tmp_path))
    left_out = {path: ignore.why(PurePosixPath(path)) is not None for path in (
        "notes/README.md", "notes/KEEP.md", "notes/drafts/one.txt", "notes/frontend/deep/dev.js", "notes/frontend/app.js", "top.txt", "notes/top.txt",
    )}  # fmt: skip
    assert left_out == {
        "notes/README.md": True, "notes/KEEP.md": False, "notes/drafts/one.txt": True, "notes/frontend/deep/dev.js": True,
        "notes/frontend/app.js": False, "top.txt": True, "notes/top.txt": False,
    }  # fmt: skip
    assert ignore.why(PurePosixPath("notes/drafts"), folder=True) == "ignored"


def test_a_negation_in_mcpbignore_never_brings_back_rata_data():
    ignore = Ignore(IGNORED, ("!instance.token", "!*.db", "!*.log.1"), secrets=True)
    assert {ignore.why(PurePosixPath(path)) for path in ("notes/instance.token", "notes/app.db", "notes/logs/app.log.1")} == {"ignored"}


SECRET_LOOKING = [
    "notes/server.pem",
    "notes/tls/site.key",
    "notes/id_ed25519",
    "notes/.npmrc",
    "notes/.netrc",
    "notes/.envrc",
    "notes/prod.env",
    "notes/secrets.toml",
]


def test_files_that_look_secret_are_left_out_and_named_in_one_warning_and_a_negation_brings_one_back(tmp_path):
    root = project(tmp_path)
    for name in SECRET_LOOKING:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("secret", encoding="utf-8")
    found = selected(root, tmp_path)
    assert not {f"server/lib/{name}" for name in SECRET_LOOKING} & {item.name for item in found.files}
    (warning,) = found.warnings
    assert warning.startswith(f"left out {len(SECRET_LOOKING)} file(s) that look secret: ") and all(name in warning for name in SECRET_LOOKING)
    assert "!NAME in .mcpbignore" in warning
    (root / ".mcpbignore").write_text("!notes/secrets.toml\n", encoding="utf-8")
    again = selected(root, tmp_path)
    assert "server/lib/notes/secrets.toml" in {item.name for item in again.files} and "secrets.toml" not in again.warnings[0]


def test_an_app_data_folder_inside_the_package_is_left_out_whole_with_its_token_and_rotated_logs(tmp_path):
    """RATA_HOME=./notes/data: the per-install key behind the endpoint HMAC and requestState signing must never ship."""
    root = project(tmp_path)
    data = root / "notes" / "data"
    (data / "logs").mkdir(parents=True)
    for name in ("instance.token", "app.db", "app.db-wal", "confirm.db", "mcp.manifest.json", "logs/notes.log", "logs/notes.log.1"):
        (data / name).write_text("x", encoding="utf-8")
    found = selected(root, tmp_path)
    assert not [item.name for item in found.files if "/data/" in item.name]
    (warning,) = found.warnings
    assert warning.startswith("left out notes/data/: it is an app's data folder") and "RATA_HOME" in warning


@st.composite
def trees(draw) -> list[str]:
    part = st.sampled_from(["a", "b", "id_rsa", "x.pem", "secrets.yml", ".npmrc", "app.py", "instance.token", "n.log.2", "data", "k.key", "ok.txt"])
    return draw(st.lists(st.lists(part, min_size=1, max_size=3).map("/".join), min_size=1, max_size=8, unique=True))


@given(trees(), st.lists(st.sampled_from(["*.txt", "!ok.txt", "/notes/a", "**/b", "!*.pem", "data/", "!id_rsa"]), max_size=4))
def test_no_selection_ever_bundles_the_token_or_a_secret_looking_file_it_did_not_name(paths, lines):
    ignore = Ignore(IGNORED, tuple(lines), secrets=True)
    for path in paths:
        relative = PurePosixPath("notes") / path
        why = ignore.why(relative)
        if any(part in ("instance.token", "n.log.2") for part in relative.parts):
            assert why == "ignored"
        if why is None and any(part.endswith((".pem", ".key")) or part in ("id_rsa", "secrets.yml", ".npmrc") for part in relative.parts):
            assert any(line.startswith("!") for line in lines)  # only a negation the user wrote brings one back


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
    assert [call.args[0].value for call in literals if isinstance(call.args[0], ast.Constant)] == [target]
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
