"""Every schema rata emits, through the strict conversions real agent frameworks run on MCP tools.

openai-agents (`convert_schemas_to_strict=True` calls `agents.strict_schema.ensure_strict_json_schema`,
refusing open objects) and pydantic-ai (`OpenAIJsonSchemaTransformer`, the OpenAI profile's strict mode).
The packages are pinned in requirements-test.txt: without them these tests skip, except in CI
(CI=true) or with RATA_PEERS_REQUIRED=1, where they fail.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from rata import App, JsonValue, Mcp, command
from rata.codegen.catalog import build_catalog
from rata.codegen.lint import lint


def _required() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1") or os.environ.get("RATA_PEERS_REQUIRED") == "1"


def _peer(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        message = f"{module} is not installed ({error}; pip install -r requirements-test.txt)"
        if _required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)


def _catalogs() -> dict[str, Any]:
    from crm.app import app as crm

    from rata.dev_server.target import Target
    from rata.dev_server.tools import dev_app

    return {"crm": build_catalog(crm), "rata-dev": build_catalog(dev_app(Target(None, Path.cwd())))}


CATALOGS = _catalogs()
SCHEMAS = [
    (f"{server} {tool['name']} {key}", tool[key])
    for server, catalog in CATALOGS.items()
    for tool in catalog.tools
    for key in ("inputSchema", "outputSchema")
    if key in tool
]
# Schemas strict mode cannot take yet (each must also be what lint reports): none since issue 14 gave
# rata mcp dev's log entries and call arguments a fixed shape (rata/dev_server/shapes.py).
NOT_YET_STRICT: set[str] = set()


def _agents_strict(schema: dict[str, Any]) -> dict[str, Any]:
    strict_schema = _peer("agents.strict_schema")
    return strict_schema.ensure_strict_json_schema(copy.deepcopy(schema), _reject_open_objects=schema != {})  # as agents.mcp.util does


def _pydantic_ai(schema: dict[str, Any], strict: bool | None) -> Any:
    openai_profile = _peer("pydantic_ai.profiles.openai")
    transformer = openai_profile.OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=strict)
    return transformer, transformer.walk()


def _untyped(schema: Any, path: str = "") -> list[str]:
    """Each part of a converted schema with no type: the OpenAI API refuses those in strict mode."""
    from rata.codegen.sanitize import subschemas

    if not isinstance(schema, dict):
        return [path]
    found = [] if {"type", "enum", "const", "anyOf", "$ref"} & set(schema) else [path]
    for suffix, sub in subschemas(schema):
        if not (suffix == "/additionalProperties" and sub is False):
            found += _untyped(sub, path + suffix)
    return found


def test_the_servers_have_the_tools_these_tests_cover():
    names = {name for name, _ in SCHEMAS}
    assert "crm customers_index inputSchema" in names and "rata-dev database_query outputSchema" in names
    assert names >= NOT_YET_STRICT
    assert len(SCHEMAS) >= 25


@pytest.mark.parametrize(("name", "schema"), [s for s in SCHEMAS if s[0] not in NOT_YET_STRICT], ids=[n for n, _ in SCHEMAS if n not in NOT_YET_STRICT])
def test_openai_agents_and_pydantic_ai_convert_the_schema_to_strict_mode_without_loss(name: str, schema: dict[str, Any]):
    converted = _agents_strict(schema)
    assert converted["additionalProperties"] is False if converted.get("type") == "object" else True
    assert _untyped(converted) == [], name
    _, walked = _pydantic_ai(schema, strict=True)
    assert _untyped(walked) == [], name
    assert "properties" in walked if walked.get("type") == "object" else True
    transformer, _ = _pydantic_ai(schema, strict=None)
    if transformer.is_strict_compatible is False:
        # pydantic-ai's own test for "strict as it stands": only optional parameters (strict mode wants
        # every property required) and their defaults may stop it, both meaning-preserving to convert.
        loose = _without_optional(schema)
        assert _pydantic_ai(loose, strict=None)[0].is_strict_compatible, name


def _without_optional(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_optional(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _without_optional(value) for key, value in schema.items() if key != "default"}
    if isinstance(out.get("properties"), dict) and out["properties"]:
        out["required"] = list(out["properties"])
    return out


def test_a_tool_without_parameters_is_strict_in_pydantic_ai_as_it_stands():
    (schema,) = [tool["inputSchema"] for tool in CATALOGS["rata-dev"].tools if tool["name"] == "app_info"]
    transformer, walked = _pydantic_ai(schema, strict=None)
    assert transformer.is_strict_compatible and walked["properties"] == {}


@command(can="notes.keep")
def remember(note: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """Keep a note, whatever it holds: free-form JSON in and out.

    Args:
        note: Anything.
    """
    return note


def _open_app_catalog() -> Any:
    app = App("open", identifier="com.example.open").commands(remember).allow_abilities(["notes.*"])
    return build_catalog(app.mcp(Mcp().allow_abilities(["notes.*"])))


@pytest.mark.parametrize("key", ["inputSchema", "outputSchema"])
def test_an_open_schema_is_reported_by_lint_and_refused_by_the_strict_conversion(key: str):
    """The check can fail: free-form JSON is what strict mode refuses, and lint names it."""
    catalog = _open_app_catalog()
    (tool,) = catalog.tools
    assert [f for f in lint(catalog) if f.rule == "schema-not-strict" and f.path.startswith(f"/{key}")]
    try:
        refused = _untyped(_agents_strict(tool[key])) != []
    except Exception:  # any refusal by the converter counts
        refused = True
    assert refused, f"the converter took {tool[key]}"


def test_lint_finds_nothing_strict_mode_refuses_in_the_other_schemas():
    flagged = {(f.tool, f.path.split("/")[1]) for catalog in CATALOGS.values() for f in lint(catalog) if f.rule == "schema-not-strict"}
    assert flagged == {(name.split()[1], name.split()[2]) for name in NOT_YET_STRICT}
