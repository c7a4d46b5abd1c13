"""`rata.shipping.registry`: the MCP Registry entry, valid against the registry's committed schema."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from rata.errors import ConfigError
from rata.scaffold import scaffold
from rata.shipping.project import AppInfo, load_project, read_project
from rata.shipping.registry import (
    MARKER,
    PUBLISHER_KEY,
    SCHEMA_FILE,
    SCHEMA_URL,
    Entry,
    build_entry,
    plan_write,
    readme_declares,
    schema,
    validate,
)
from tests.conftest import CRM

APP = AppInfo(name="crm", identifier="com.example.crm", version="1.0.0", description="A small customer list.")


def project_at(tmp_path: Path, readme_file: str | None = None, registry: dict | None = None, **changes: object):
    project = {"name": "rata-example-crm", "version": "1.0.0", "description": "A small customer list.", "scripts": {"rata-example-crm": "crm.main:main"}}
    if readme_file is not None:
        (tmp_path / "README.md").write_text(readme_file, encoding="utf-8")
        project["readme"] = "README.md"
    project.update(changes)
    tool = {"app": "crm.app:app", **({"registry": registry} if registry is not None else {})}
    path = tmp_path / "pyproject.toml"
    path.write_text(tomli_w.dumps({"project": {k: v for k, v in project.items() if v is not None}, "tool": {"rata": tool}}), encoding="utf-8")
    return read_project(path, APP)


def test_the_committed_schema_is_the_published_file_its_readme_names():
    readme = (SCHEMA_FILE.parent / "README.md").read_text(encoding="utf-8")
    digest = re.search(r"SHA-256 of the file: `([0-9a-f]{64})`", readme).group(1)
    assert hashlib.sha256(SCHEMA_FILE.read_bytes()).hexdigest() == digest
    assert schema()["$id"] == SCHEMA_URL
    assert SCHEMA_URL in readme


def test_the_crm_entry_is_the_committed_server_json_and_valid():
    entry = build_entry(load_project(str(CRM)))
    assert validate(entry.server) == []
    assert (CRM / "server.json").read_text(encoding="utf-8") == entry.text
    assert entry.server == {
        "$schema": SCHEMA_URL,
        "_meta": {PUBLISHER_KEY: MARKER},
        "description": "A small customer list: the example rata app.",
        "name": "com.example/crm",
        "packages": [
            {
                "environmentVariables": [
                    {
                        "description": "The folder for the app's data (its database and logs). Default: the user data folder for com.example.crm.",
                        "format": "filepath",
                        "isRequired": False,
                        "isSecret": False,
                        "name": "RATA_HOME",
                    }
                ],
                "identifier": "rata-example-crm",
                "packageArguments": [{"type": "positional", "value": "--mcp"}],
                "registryBaseUrl": "https://pypi.org",
                "registryType": "pypi",
                "runtimeHint": "uvx",
                "transport": {"type": "stdio"},
                "version": "1.0.0",
            }
        ],
        "version": "1.0.0",
    }
    assert any("example domain" in note for note in entry.notes)
    assert any("no readme" in note for note in entry.notes)


def test_the_entry_text_is_sorted_two_space_json_with_a_final_newline():
    entry = build_entry(load_project(str(CRM)))
    assert entry.text == json.dumps(entry.server, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_a_new_app_gets_a_valid_entry_named_from_its_identifier(tmp_path):
    scaffold("shipit", tmp_path / "shipit", identifier="io.github.ada.shipit")
    entry = build_entry(load_project(str(tmp_path / "shipit")))
    assert validate(entry.server) == []
    assert entry.name == "io.github.ada/shipit"
    assert entry.server["packages"][0]["identifier"] == "shipit"
    (note,) = entry.notes
    assert "README.md lacks the line" in note and "<!-- mcp-name: io.github.ada/shipit -->" in note


def test_a_github_repository_names_the_entry_and_is_its_repository(tmp_path):
    project = project_at(tmp_path, urls={"Repository": "https://github.com/ada/crm.git", "Homepage": "https://crm.example.org/"})
    entry = build_entry(project)
    assert entry.name == "io.github.ada/crm"
    assert entry.server["repository"] == {"url": "https://github.com/ada/crm", "source": "github"}
    assert entry.server["websiteUrl"] == "https://crm.example.org/"
    assert not any("example domain" in note for note in entry.notes)


@pytest.mark.parametrize("homepage", ["http://crm.example.org", "https://crm example.org", "https://", "javascript:alert(1)"])
def test_a_homepage_that_is_not_a_plain_https_url_is_left_out(tmp_path, homepage):
    entry = build_entry(project_at(tmp_path, urls={"Homepage": homepage}))
    assert "websiteUrl" not in entry.server and validate(entry.server) == []


def test_a_repository_elsewhere_is_left_out_with_a_note(tmp_path):
    entry = build_entry(project_at(tmp_path, urls={"Source": "https://git.example.org/ada/crm"}))
    assert "repository" not in entry.server
    assert any("left out" in note for note in entry.notes)


def test_tool_rata_registry_overrides_the_name_description_and_title(tmp_path):
    entry = build_entry(project_at(tmp_path, registry={"name": "org.acme/crm", "description": "Customers, for agents.", "title": "Acme CRM"}))
    assert (entry.name, entry.server["description"], entry.server["title"]) == ("org.acme/crm", "Customers, for agents.", "Acme CRM")
    assert validate(entry.server) == []


def test_a_readme_with_the_ownership_line_leaves_no_note(tmp_path):
    entry = build_entry(project_at(tmp_path, readme_file="# crm\n\n<!-- mcp-name: org.acme/crm -->\n", registry={"name": "org.acme/crm"}))
    assert entry.notes == ()
    assert entry.ownership_line == "<!-- mcp-name: org.acme/crm -->"


def test_a_dynamic_readme_is_a_note_rata_cannot_check(tmp_path):
    entry = build_entry(project_at(tmp_path, dynamic=["readme"]))
    assert any("readme is dynamic" in note for note in entry.notes)
    assert not entry.readme_declares_name


def test_a_readme_given_as_text_is_checked(tmp_path):
    entry = build_entry(
        project_at(tmp_path, registry={"name": "org.acme/crm"}, readme={"text": "x\nmcp-name: org.acme/crm\n", "content-type": "text/markdown"})
    )
    assert entry.readme_declares_name and entry.notes == ()


def test_a_non_ascii_description_is_kept_and_valid(tmp_path):
    entry = build_entry(project_at(tmp_path, description="Kundenliste für Größen: 顧客"))
    assert entry.server["description"] == "Kundenliste für Größen: 顧客"
    assert "顧客" in entry.text
    assert validate(entry.server) == []


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"description": "x" * 101}, "101 characters long; the MCP Registry takes 1 to 100"),
        ({"description": "x" * 1_000_000}, "1,000,000 characters long"),
        ({"description": "", "registry": {"description": " "}}, "is empty"),
        ({"registry": {"description": 3}}, "must be a string"),
        ({"registry": {"name": "crm"}}, "not a registry name"),
        ({"registry": {"name": "io.github.ada/crm/extra"}}, "not a registry name"),
        ({"registry": {"name": "io.github.ädä/crm"}}, "not a registry name"),
        ({"registry": {"name": 7}}, "must be a string"),
        ({"registry": {"title": "t" * 101}}, "1 to 100"),
        ({"registry": {"nmae": "x/y"}}, "unknown keys"),
        ({"registry": "io.github.ada/crm"}, "must be a table"),
        ({"scripts": {"crm": "crm.main:main"}}, "no console script named 'rata-example-crm'"),
        ({"version": None, "dynamic": ["version"]}, "is dynamic"),
        ({"scripts": {"rata-example-crm": "elsewhere.main:main"}}, "no console script named 'rata-example-crm'"),
    ],
)
def test_what_the_registry_would_refuse_is_a_config_error_with_a_fix(tmp_path, changes, words):
    registry = changes.pop("registry", None)
    with pytest.raises(ConfigError) as raised:
        build_entry(project_at(tmp_path, registry=registry, **changes))
    assert words in raised.value.message
    assert raised.value.hint and len(raised.value.message) < 600


def test_a_missing_script_names_the_line_to_add(tmp_path):
    with pytest.raises(ConfigError) as raised:
        build_entry(project_at(tmp_path, scripts={"crm": "crm.main:main"}))
    assert raised.value.hint.startswith('Add it to [project.scripts]: "rata-example-crm" = "crm.main:main"')


def test_an_app_version_other_than_the_project_version_is_a_note(tmp_path):
    project = project_at(tmp_path, version="1.0.1")
    entry = build_entry(project)
    assert entry.server["version"] == entry.server["packages"][0]["version"] == "1.0.1"
    assert any("Give App(...) the same version" in note for note in entry.notes)


def test_declared_environment_variables_are_in_the_entry_as_the_schema_defines_them(tmp_path):
    env = {
        "CRM_TOKEN": {"title": "API token", "description": "Your CRM token.", "sensitive": True, "required": True},
        "CRM_LIMIT": {"description": "Rows a page.", "type": "number", "default": 50},
        "CRM_DRY_RUN": {"description": "Change nothing.", "type": "boolean", "default": False},
        "CRM_EXPORTS": {"description": "Where exports go.", "type": "directory", "default": "${HOME}/exports"},
        "CRM_REGION": {"description": "The CRM's region.", "default": "eu"},
    }
    path = tmp_path / "pyproject.toml"
    project = {"name": "rata-example-crm", "version": "1.0.0", "description": "A small customer list.", "scripts": {"rata-example-crm": "crm.main:main"}}
    path.write_text(tomli_w.dumps({"project": project, "tool": {"rata": {"app": "crm.app:app", "env": env}}}), encoding="utf-8")
    entry = build_entry(read_project(path, APP))
    assert validate(entry.server) == []
    variables = {var.pop("name"): var for var in entry.server["packages"][0]["environmentVariables"]}
    assert list(variables) == ["CRM_DRY_RUN", "CRM_EXPORTS", "CRM_LIMIT", "CRM_REGION", "CRM_TOKEN", "RATA_HOME"]
    assert variables["CRM_TOKEN"] == {"description": "Your CRM token.", "format": "string", "isRequired": True, "isSecret": True}
    assert variables["CRM_LIMIT"] == {"description": "Rows a page.", "format": "number", "isRequired": False, "isSecret": False, "default": "50"}
    assert variables["CRM_DRY_RUN"]["default"] == "false" and variables["CRM_DRY_RUN"]["format"] == "boolean"
    assert variables["CRM_REGION"]["default"] == "eu"
    # ${HOME} is MCPB's alone: registry clients would pass it on as written
    assert variables["CRM_EXPORTS"] == {"description": "Where exports go.", "format": "filepath", "isRequired": False, "isSecret": False}
    assert variables["RATA_HOME"]["format"] == "filepath"


def test_an_app_that_declares_rata_home_describes_it_itself(tmp_path):
    path = tmp_path / "pyproject.toml"
    project = {"name": "crm", "version": "1.0.0", "description": "Customers.", "scripts": {"crm": "crm.main:main"}}
    rata = {"app": "crm.app:app", "env": {"RATA_HOME": {"description": "Where the CRM keeps its data.", "type": "directory"}}}
    path.write_text(tomli_w.dumps({"project": project, "tool": {"rata": rata}}), encoding="utf-8")
    (variable,) = build_entry(read_project(path, APP)).server["packages"][0]["environmentVariables"]
    assert (variable["name"], variable["description"]) == ("RATA_HOME", "Where the CRM keeps its data.")


def test_the_validator_uses_the_schema_bounds():
    problems = validate({"name": "no slash", "description": "d" * 101, "version": "1", "packages": [{"registryType": "pypi"}]})
    assert any(p.startswith("description:") for p in problems)
    assert any(p.startswith("name:") for p in problems)
    assert any(p.startswith("packages/0:") and "identifier" in p for p in problems)


@pytest.mark.parametrize(
    ("text", "declared"),
    [
        ("<!-- mcp-name: io.github.ada/crm -->", True),
        ("mcp-name: io.github.ada/crm", True),
        ("mcp-name: io.github.ada/crm\nmore", True),
        ("mcp-name: io.github.ada/crm<br>", True),
        ("mcp-name: io.github.ada/crm-evil", False),
        ("mcp-name: io.github.ada/crm.", False),
        ("mcp-name: io.github.ada/crm-evil mcp-name: io.github.ada/crm", True),
        ("mcp-name:io.github.ada/crm", False),
        ("", False),
    ],
)
def test_readme_declares_matches_the_name_whole_as_the_registry_does(text, declared):
    assert readme_declares(text, "io.github.ada/crm") is declared


name_part = st.from_regex(r"[a-z0-9][a-z0-9.-]{0,20}[a-z0-9]", fullmatch=True)


@given(namespace=name_part, server=name_part, before=st.text(max_size=30), after=st.sampled_from(["", " ", "\n", " -->", "<", ")"]))
def test_the_ownership_line_is_found_in_any_readme_that_holds_it(namespace, server, before, after):
    name = f"{namespace}/{server}"
    assert readme_declares(f"{before}<!-- mcp-name: {name}{after}", name)
    assert not readme_declares(f"{before}mcp-name: {name}x{after}", name)


def test_plan_write_keeps_an_identical_file_and_rewrites_its_own(tmp_path):
    entry = build_entry(load_project(str(CRM)))
    path = tmp_path / "server.json"
    assert plan_write(path, entry) == "write"
    path.write_text(entry.text, encoding="utf-8")
    assert plan_write(path, entry) == "same"
    old = dict(entry.server, version="0.9.0")
    path.write_text(Entry(old).text, encoding="utf-8")
    assert plan_write(path, entry) == "write"


@pytest.mark.parametrize(
    "content", ['{"name": "io.github.ada/crm"}\n', "not json", '{"_meta": {"io.modelcontextprotocol.registry/publisher-provided": {"tool": "other"}}}']
)
def test_plan_write_refuses_a_file_rata_did_not_write_unless_forced(tmp_path, content):
    entry = build_entry(load_project(str(CRM)))
    path = tmp_path / "server.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        plan_write(path, entry)
    assert "--force" in (raised.value.hint or "")
    assert plan_write(path, entry, force=True) == "write"


@given(
    name=st.one_of(st.text(max_size=60), st.from_regex(r"[a-z][a-z0-9.-]{0,10}[a-z]/[a-z][a-z0-9._-]{0,10}[a-z]", fullmatch=True)),
    description=st.text(max_size=120),
    title=st.text(max_size=120),
    version=st.sampled_from(["1.0.0", "0.1", "2.0.0rc1", "1.0.post2", "3!1.0.dev4"]),
)
def test_every_entry_rata_builds_validates_or_the_project_is_refused(tmp_path_factory, name, description, title, version):
    folder = tmp_path_factory.mktemp("entry")
    try:
        entry = build_entry(project_at(folder, registry={"name": name, "description": description, "title": title}, version=version))
    except ConfigError as error:
        assert error.message and error.hint
    else:
        assert validate(entry.server) == []
        assert json.loads(entry.text) == entry.server


SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
SETTING = st.fixed_dictionaries(
    {"description": st.text(max_size=20)},
    optional={
        "type": st.sampled_from(["string", "number", "boolean", "directory", "file", "x"]),
        "sensitive": st.booleans(),
        "required": st.booleans(),
        "default": SCALAR,
    },
)


@given(env=st.dictionaries(st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True) | st.text(max_size=8), SETTING | SCALAR, max_size=3))
def test_any_declared_environment_gives_a_valid_entry_or_a_config_error(tmp_path_factory, env):
    path = tmp_path_factory.mktemp("env") / "pyproject.toml"
    project = {"name": "crm", "version": "1.0.0", "description": "Customers.", "scripts": {"crm": "crm.main:main"}}
    declared = {name: {k: v for k, v in s.items() if v is not None} if isinstance(s, dict) else s for name, s in env.items()}
    data = {"project": project, "tool": {"rata": {"app": "crm.app:app", "env": declared}}}
    try:
        path.write_text(tomli_w.dumps(data), encoding="utf-8")
    except (TypeError, ValueError):
        return  # not expressible in TOML
    try:
        entry = build_entry(read_project(path, APP))
    except ConfigError as error:
        assert error.message and error.hint
    else:
        assert validate(entry.server) == []
