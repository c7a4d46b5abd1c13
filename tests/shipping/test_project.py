"""`rata.shipping.project`: a project's metadata, read from hostile files with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from rata.errors import ConfigError
from rata.shipping.project import AppInfo, load_project, normalize, read_project
from tests.conftest import CRM

CRM_APP = AppInfo(name="crm", identifier="com.example.crm", version="1.0.0", description="A small customer list.")


def write(tmp_path: Path, project: dict, tool: dict | None = None) -> Path:
    data = {"project": project, "tool": {"rata": tool if tool is not None else {"app": "crm.app:app"}}}
    path = tmp_path / "pyproject.toml"
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


def base(**changes: object) -> dict:
    project = {"name": "rata-example-crm", "version": "1.0.0", "description": "A small customer list.", "scripts": {"rata-example-crm": "crm.main:main"}}
    project.update(changes)
    return {key: value for key, value in project.items() if value is not None}


def test_the_crm_example_reads_its_name_version_description_scripts_and_app():
    project = load_project(str(CRM))
    assert (project.name, project.version, project.description) == ("rata-example-crm", "1.0.0", "A small customer list: the example rata app.")
    assert project.requires_python == ">=3.11"
    assert project.app == CRM_APP
    assert project.package == "crm"
    assert project.server_scripts == ("crm", "rata-example-crm")
    assert project.server_script == "rata-example-crm"
    assert [var.name for var in project.environment] == ["RATA_HOME"]
    assert "com.example.crm" in project.environment[0].description


def test_the_server_script_is_the_one_named_like_the_distribution_else_the_app_else_the_only_one(tmp_path):
    scripts = {"other-tool": "elsewhere.cli:main", "crm": "crm.main:main", "Rata_Example.CRM": "crm.main:main"}
    assert read_project(write(tmp_path, base(scripts=scripts)), CRM_APP).server_script == "Rata_Example.CRM"
    assert read_project(write(tmp_path, base(scripts={"crm": "crm.main:main", "crm-admin": "crm.admin:main"})), CRM_APP).server_script == "crm"
    assert read_project(write(tmp_path, base(scripts={"customers": "crm.main:main"})), CRM_APP).server_script == "customers"
    assert read_project(write(tmp_path, base(scripts={"other": "elsewhere:main"})), CRM_APP).server_script is None


def test_authors_license_urls_and_readme_are_read(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("# crm\n", encoding="utf-8")
    project = read_project(
        write(
            tmp_path,
            base(
                authors=[{"name": "Ada"}, {"email": "grace@example.com"}],
                license="MIT",
                urls={"Source Code": "https://github.com/ada/crm", "Homepage": "https://crm.example.org"},
                readme="docs/README.md",
            ),
        )
    )
    assert [(a.name, a.email) for a in project.authors] == [("Ada", None), (None, "grace@example.com")]
    assert project.license == "MIT"
    assert project.repository == "https://github.com/ada/crm"
    assert project.url("home page") == "https://crm.example.org"
    assert project.readme == (tmp_path / "docs" / "README.md").resolve()


def test_a_non_ascii_description_is_kept_as_written(tmp_path):
    project = read_project(write(tmp_path, base(description="Kundenliste für Größen und Maße: 顧客")))
    assert project.description == "Kundenliste für Größen und Maße: 顧客"


def test_normalize_compares_names_as_pep_503_does():
    assert normalize("Rata_Example.CRM") == normalize("rata--example-crm") == "rata-example-crm"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"version": None}, "has no version"),
        ({"version": 1}, "must be a string"),
        ({"version": "v1.0"}, "PEP 440"),
        ({"version": "1.0.0-beta"}, "PEP 440"),
        ({"version": "1.0+local"}, "PEP 440"),
        ({"version": "latest"}, "PEP 440"),
        ({"name": None}, "has no name"),
        ({"name": "crm-ü"}, "not a valid package name"),
        ({"name": "-crm"}, "not a valid package name"),
        ({"name": ["crm"]}, "must be a string"),
        ({"description": 3}, "must be a string"),
        ({"description": "two\nlines"}, "a line break"),
        ({"description": "bell\x07"}, "control characters"),
        ({"description": "zero\u200bwidth"}, "control characters"),
        ({"authors": "Ada"}, "must be a list"),
        ({"authors": [{"nickname": "Ada"}]}, "neither name nor email"),
        ({"authors": [{"name": 7}]}, "must be a string"),
        ({"urls": ["https://x"]}, "must be a table"),
        ({"urls": {"Homepage": 3}}, "must be a string"),
        ({"scripts": {"crm": "not a reference"}}, "module:function"),
        ({"scripts": {"bad name": "crm.main:main"}}, "not a valid command name"),
        ({"readme": "../outside.md"}, "outside the project"),
        ({"readme": {"content-type": "text/markdown"}}, "neither file nor text"),
        ({"license": {"url": "x"}}, "neither text nor file"),
        ({"dynamic": "version"}, "list of strings"),
        ({"authors": [{"name": "Ada", "email": "not an email"}]}, "is not an email address"),
        ({"maintainers": [{"name": " "}]}, "is empty"),
        ({"maintainers": "Grace"}, "must be a list"),
        ({"requires-python": "python 3"}, "is not a version specifier"),
        ({"license": 3}, "must be an SPDX expression"),
        ({"keywords": "crm"}, "must be a list of strings"),
        ({"keywords": ["crm", 3]}, "must be a string"),
        ({"dependencies": "rata-toolkit"}, "must be a list of strings"),
        ({"version": "1.0 beta"}, "PEP 440"),
    ],
)
def test_a_hostile_value_is_a_config_error_that_names_it(tmp_path, changes, words):
    with pytest.raises(ConfigError) as raised:
        read_project(write(tmp_path, base(**changes)))
    assert words in raised.value.message
    assert raised.value.hint


@pytest.mark.parametrize(
    ("rata", "words"),
    [
        ({"env": {"lower": {"description": "x"}}}, "cannot be an environment variable"),
        ({"env": {"PYTHONPATH": {"description": "x"}}}, "cannot be an environment variable"),
        ({"env": {"KEY": "x"}}, "must be a table with a description"),
        ({"env": {"KEY": {}}}, "description is missing"),
        ({"env": {"KEY": {"description": " "}}}, "description is empty"),
        ({"env": {"KEY": {"description": "bell\x07"}}}, "control characters"),
        ({"env": {"KEY": {"description": "x", "type": "secret"}}}, "type must be one of"),
        ({"env": {"KEY": {"description": "x", "secret": True}}}, "unknown keys: 'secret'"),
        ({"env": {"KEY": {"description": "x", "required": "yes"}}}, "must be true or false"),
        ({"env": {"KEY": {"description": "x", "type": "number", "sensitive": True}}}, "only a string can be sensitive"),
        ({"env": {"KEY": {"description": "x", "sensitive": True, "default": "hunter2"}}}, "cannot have a default"),
        ({"env": {"KEY": {"description": "x", "type": "number", "default": "ten"}}}, "is not a number"),
        ({"env": "KEY"}, "must be a table"),
        ({"bundle": {"platforms": ["beos"]}}, "platforms in"),
        ({"bundle": {"platforms": []}}, "must be a non-empty list"),
        ({"bundle": "all"}, "[tool.rata.bundle] in"),
        ({"icon": 7}, "relative path"),
    ],
)
def test_a_hostile_tool_rata_value_is_a_config_error_that_names_it(tmp_path, rata, words):
    with pytest.raises(ConfigError) as raised:
        read_project(write(tmp_path, base(), {"app": "crm.app:app", **rata}))
    assert words in raised.value.message
    assert raised.value.hint


def test_declared_environment_variables_are_read_sorted_beside_rata_home(tmp_path):
    env = {
        "CRM_TOKEN": {"title": "API token", "description": "Your CRM token.", "sensitive": True, "required": True},
        "CRM_LIMIT": {"description": "Rows a page.", "type": "number", "default": 50},
    }
    project = read_project(write(tmp_path, base(), {"app": "crm.app:app", "env": env}), CRM_APP)
    assert [(var.name, var.title, var.type, var.sensitive, var.required, var.default) for var in project.env] == [
        ("CRM_LIMIT", "CRM_LIMIT", "number", False, False, 50),
        ("CRM_TOKEN", "API token", "string", True, True, None),
    ]
    assert [var.name for var in project.environment] == ["CRM_LIMIT", "CRM_TOKEN", "RATA_HOME"]
    assert project.environment[-1].format == "filepath"


def test_a_dynamic_version_is_read_as_none(tmp_path):
    assert read_project(write(tmp_path, base(version=None, dynamic=["version"]))).version is None


def test_the_author_is_the_first_of_authors_then_maintainers_with_a_name(tmp_path):
    project = read_project(write(tmp_path, base(authors=[{"email": "ada@example.com"}], maintainers=[{"name": "Grace", "email": "grace@example.com"}])))
    assert project.author is not None and (project.author.name, project.author.email) == ("Grace", "grace@example.com")
    assert read_project(write(tmp_path, base())).author is None


def test_a_huge_value_is_never_echoed_back_whole(tmp_path):
    with pytest.raises(ConfigError) as raised:
        read_project(write(tmp_path, base(version="9" * 100_000 + "x")))
    assert len(raised.value.message) < 400


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"[project\nname = 'x'", "not valid TOML"),
        (b"\xff\xfe[project]", "not UTF-8"),
        (b"[tool.rata]\napp = 'crm.app:app'\n", "no [project] table"),
        (b"project = 3\n", "must be a table"),
        (b"[project]\nname = 'x'\nversion = '1.0'\n" + b"# padding\n" * 120_000, "bytes"),
    ],
)
def test_a_broken_file_is_a_config_error(tmp_path, content, words):
    path = tmp_path / "pyproject.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as raised:
        read_project(path)
    assert words in raised.value.message


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError):
        read_project(tmp_path / "pyproject.toml")


def test_an_app_outside_a_project_folder_is_a_config_error(tmp_path):
    (tmp_path / "loose.py").write_text('from rata import App\napp = App("loose", identifier="com.example.loose")\n', encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_project(str(tmp_path / "loose.py"))
    assert "project folder" in raised.value.message


text = st.text(max_size=200)
value = st.one_of(text, st.integers(), st.booleans(), st.lists(text, max_size=3), st.dictionaries(text, text, max_size=3))


@given(name=value, version=value, description=value, urls=value, scripts=value, authors=value)
def test_any_values_are_read_or_refused_with_a_config_error(tmp_path_factory, name, version, description, urls, scripts, authors):
    folder = tmp_path_factory.mktemp("any")
    path = write(folder, {"name": name, "version": version, "description": description, "urls": urls, "scripts": scripts, "authors": authors})
    try:
        project = read_project(path)
    except ConfigError as error:
        assert error.message and error.hint
    else:
        assert isinstance(project.name, str) and isinstance(project.version, str)


@given(content=st.binary(max_size=500))
def test_any_bytes_are_read_or_refused_with_a_config_error(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("bytes") / "pyproject.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError):
        read_project(path)
