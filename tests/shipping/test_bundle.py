"""The bundle manifest: made from the catalog and pyproject.toml, in the shape the MCPB validator's schema takes.

The schema is the one `@anthropic-ai/mcpb` 2.1.2 ships (.ci/peers); the real CLI's checks are in
tests/cli/test_mcp_pack.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from rata.errors import ConfigError
from rata.shipping.bundle import GENERATOR, MANIFEST_VERSION, build_manifest, manifest_json, written_by_rata
from rata.shipping.project import read_project
from tests.mcp.peers import PEERS_BIN, peers_required

SCHEMA = PEERS_BIN.parent / "@anthropic-ai" / "mcpb" / "dist" / f"mcpb-manifest-v{MANIFEST_VERSION}.schema.json"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
CATALOG: dict[str, Any] = {
    "app": {"name": "crm", "identifier": "com.example.crm", "version": "2.0.0"},
    "tools": [
        {"name": "customers_index", "description": "List customers.", "inputSchema": {"type": "object"}},
        {"name": "quiet", "inputSchema": {"type": "object"}},
    ],
    "prompts": [{"name": "summary", "description": "Summarise a customer.", "arguments": [{"name": "id", "required": True}]}],
}
PROJECT: dict[str, Any] = {
    "project": {
        "name": "crm-app",
        "version": "1.0.0",
        "description": "A small customer list.",
        "authors": [{"name": "Ada", "email": "ada@example.com"}],
        "requires-python": ">=3.11",
        "dependencies": ["rata-toolkit"],
    },
    "tool": {"rata": {"app": "crm.app:app"}},
}


@pytest.fixture(scope="module")
def validator():
    if not SCHEMA.is_file():
        message = f"the MCPB manifest schema is not at {SCHEMA} (run: cd .ci/peers && npm install --no-audit --no-fund)"
        if peers_required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)
    from jsonschema import Draft7Validator, FormatChecker

    return Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")), format_checker=FormatChecker())


def project_at(folder: Path, data: dict[str, Any]):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    return read_project(folder / "pyproject.toml")


def with_changes(**tables: dict[str, Any]) -> dict[str, Any]:
    data = json.loads(json.dumps(PROJECT))
    data["project"].update(tables.get("project", {}))
    data["tool"]["rata"].update(tables.get("rata", {}))
    return data


def test_the_manifest_names_the_project_its_author_tools_prompts_and_python(tmp_path, validator):
    manifest = build_manifest(CATALOG, project_at(tmp_path, PROJECT))
    assert list(validator.iter_errors(manifest)) == []
    assert manifest["manifest_version"] == "0.3"
    assert (manifest["name"], manifest["display_name"], manifest["version"]) == ("crm-app", "crm", "1.0.0")
    assert manifest["author"] == {"name": "Ada", "email": "ada@example.com"}
    assert manifest["tools"] == [{"name": "customers_index", "description": "List customers."}, {"name": "quiet"}]
    assert manifest["prompts"] == [{"name": "summary", "description": "Summarise a customer.", "arguments": ["id"], "text": "Summarise a customer."}]
    assert manifest["compatibility"] == {"platforms": ["darwin", "linux", "win32"], "runtimes": {"python": ">=3.11"}}
    assert manifest["server"] == {
        "type": "python",
        "entry_point": "server/main.py",
        "mcp_config": {"command": "python3", "args": ["${__dirname}/server/main.py"], "platform_overrides": {"win32": {"command": "python"}}},
    }
    assert manifest["_meta"] == GENERATOR


def test_the_same_project_gives_the_same_bytes(tmp_path):
    first = manifest_json(build_manifest(CATALOG, project_at(tmp_path / "a", PROJECT)))
    assert first == manifest_json(build_manifest(CATALOG, project_at(tmp_path / "b", PROJECT)))
    assert first.endswith("}\n")


def test_a_dynamic_version_is_the_apps_version(tmp_path):
    data = with_changes(project={"dynamic": ["version"]})
    del data["project"]["version"]
    assert build_manifest(CATALOG, project_at(tmp_path, data))["version"] == "2.0.0"


def test_a_dynamic_version_that_is_no_version_is_refused(tmp_path):
    data = with_changes(project={"dynamic": ["version"]})
    del data["project"]["version"]
    with pytest.raises(ConfigError, match="is not a version"):
        build_manifest({**CATALOG, "app": {**CATALOG["app"], "version": "../1.0"}}, project_at(tmp_path, data))


def test_declared_environment_variables_become_user_config_with_sensitive_ones_masked(tmp_path, validator):
    env = {
        "CRM_API_KEY": {"title": "API key", "description": "The key of your CRM account.", "sensitive": True, "required": True},
        "CRM_EXPORTS": {"description": "Where exports go.", "type": "directory", "default": "${HOME}/Documents"},
    }
    manifest = build_manifest(CATALOG, project_at(tmp_path, with_changes(rata={"env": env})))
    assert list(validator.iter_errors(manifest)) == []
    assert manifest["user_config"] == {
        "crm_api_key": {"type": "string", "title": "API key", "description": "The key of your CRM account.", "required": True, "sensitive": True},
        "crm_exports": {"type": "directory", "title": "CRM_EXPORTS", "description": "Where exports go.", "required": False, "default": "${HOME}/Documents"},
    }
    assert manifest["server"]["mcp_config"]["env"] == {"CRM_API_KEY": "${user_config.crm_api_key}", "CRM_EXPORTS": "${user_config.crm_exports}"}


def test_urls_license_and_keywords_come_from_the_project(tmp_path, validator):
    urls = {"Homepage": "https://example.com/crm", "Repository": "https://github.com/example/crm", "Issues": "https://github.com/example/crm/issues"}
    manifest = build_manifest(CATALOG, project_at(tmp_path, with_changes(project={"urls": urls, "license": "MIT", "keywords": ["crm"]})))
    assert list(validator.iter_errors(manifest)) == []
    assert manifest["homepage"] == "https://example.com/crm" and manifest["support"] == "https://github.com/example/crm/issues"
    assert manifest["repository"] == {"type": "git", "url": "https://github.com/example/crm"}
    assert (manifest["license"], manifest["keywords"]) == ("MIT", ["crm"])


def test_an_icon_is_a_png_file_in_the_project(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "icon.png").write_bytes(PNG)
    assert build_manifest(CATALOG, project_at(tmp_path, with_changes(rata={"icon": "assets/icon.png"})))["icon"] == "assets/icon.png"


@pytest.mark.parametrize(
    ("icon", "message"),
    [
        ("icon.jpg", "is not a PNG file"),
        ("missing.png", "is not a file"),
        ("../icon.png", "inside the project"),
        ("/etc/icon.png", "inside the project"),
        (7, "relative path"),
    ],
)
def test_a_bad_icon_is_refused_naming_it(tmp_path, icon, message):
    (tmp_path / "icon.jpg").write_bytes(b"\xff\xd8\xff")
    with pytest.raises(ConfigError, match=message):
        project_at(tmp_path / "p" if icon == "../icon.png" else tmp_path, with_changes(rata={"icon": icon}))


def test_a_project_without_an_author_is_told_how_to_name_one(tmp_path):
    data = with_changes()
    del data["project"]["authors"]
    with pytest.raises(ConfigError, match="needs an author") as raised:
        build_manifest(CATALOG, project_at(tmp_path, data))
    assert raised.value.hint == 'Add authors = [{ name = "Your Name" }] to [project] in pyproject.toml.'


@pytest.mark.parametrize(
    ("project", "rata", "message"),
    [
        ({}, {"app": "app.py"}, "package.module:attribute"),
        ({}, {"app": "crm.app:app; import os"}, "package.module:attribute"),
        ({}, {"app": None}, "package.module:attribute"),
        ({"urls": {"Homepage": "javascript:alert(1)"}}, {}, "is not an http(s) URL"),
        ({"urls": {"Issues": "https://exa mple.com"}}, {}, "is not an http(s) URL"),
        ({"description": ""}, {}, "needs a description"),
        ({"authors": [{"email": "ada@example.com"}]}, {}, "needs an author"),
    ],
)
def test_what_a_bundle_needs_on_top_of_a_readable_project_is_refused_naming_the_key(tmp_path, project, rata, message):
    """The project is read (rata.shipping.project, whose hostile-value tests are in test_project.py); the bundle asks for more."""
    data = with_changes(project=project, rata=rata)
    data["tool"]["rata"] = {key: value for key, value in data["tool"]["rata"].items() if value is not None}
    with pytest.raises(ConfigError, match=re.escape(message)) as raised:
        build_manifest(CATALOG, project_at(tmp_path, data))
    assert raised.value.hint


def test_only_a_manifest_with_rata_s_mark_counts_as_written_by_rata(tmp_path):
    path = tmp_path / "manifest.json"
    for text, ours in [("{}", False), ("not json", False), (json.dumps({"_meta": GENERATOR}), True), ("\xff", False)]:
        path.write_text(text, encoding="utf-8")
        assert written_by_rata(path) is ours
    assert written_by_rata(tmp_path / "missing.json") is False


SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
FLAT = SCALARS | st.lists(SCALARS, max_size=3) | st.dictionaries(st.text(max_size=6), SCALARS, max_size=3)
PLAUSIBLE = st.sampled_from(["1.0.0", ">=3.11", "MIT", "crm", "A CRM.", "https://example.com", ["crm"], [{"name": "Ada"}], [{"email": "a@b.co"}]])
ENV = st.fixed_dictionaries(
    {"description": st.text(max_size=12)}, optional={"type": st.sampled_from(["string", "number", "file", "x"]), "sensitive": st.booleans(), "default": SCALARS}
)
JSONISH = FLAT | PLAUSIBLE | st.lists(FLAT, max_size=2) | st.dictionaries(st.text(max_size=6), FLAT, max_size=3)
FIELDS = ["name", "version", "description", "authors", "maintainers", "license", "keywords", "urls", "requires-python", "dependencies", "dynamic"]


@given(
    changes=st.dictionaries(st.sampled_from(FIELDS), JSONISH, max_size=4),
    env=st.dictionaries(st.from_regex(r"[A-Z][A-Z_]{0,6}", fullmatch=True) | st.text(max_size=8), ENV | JSONISH, max_size=2),
)
def test_any_pyproject_gives_a_manifest_the_schema_accepts_or_a_config_error(tmp_path_factory, validator, changes, env):
    folder = tmp_path_factory.mktemp("p")
    data = with_changes(project={key: value for key, value in changes.items() if value is not None}, rata={"env": env})
    try:
        (folder / "pyproject.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    except (TypeError, ValueError):
        return  # not expressible in TOML
    try:
        manifest = build_manifest(CATALOG, read_project(folder / "pyproject.toml"))
    except ConfigError as error:
        assert error.message and error.hint
        return
    assert list(validator.iter_errors(manifest)) == []
    assert json.loads(manifest_json(manifest)) == manifest
