"""Every schema rata emits, through the strict conversions real agent frameworks run on MCP tools.

The conversions are in tests/codegen/strict_conversions.py (openai-agents' and pydantic-ai's, pinned in
requirements-test.txt); tests/mcp/test_python_clients.py runs them over the schemas the servers serve.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rata import App, JsonValue, Mcp, command
from rata.codegen.catalog import build_catalog
from rata.codegen.lint import lint
from tests.codegen.strict_conversions import assert_converts_to_strict, pydantic_ai, refused_by_agents


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


def test_the_servers_have_the_tools_these_tests_cover():
    names = {name for name, _ in SCHEMAS}
    assert "crm customers_index inputSchema" in names and "rata-dev database_query outputSchema" in names
    assert names >= NOT_YET_STRICT
    assert len(SCHEMAS) >= 25


@pytest.mark.parametrize(("name", "schema"), [s for s in SCHEMAS if s[0] not in NOT_YET_STRICT], ids=[n for n, _ in SCHEMAS if n not in NOT_YET_STRICT])
def test_openai_agents_and_pydantic_ai_convert_the_schema_to_strict_mode_without_loss(name: str, schema: dict[str, Any]):
    assert_converts_to_strict(name, schema)


def test_a_tool_without_parameters_is_strict_in_pydantic_ai_as_it_stands():
    (schema,) = [tool["inputSchema"] for tool in CATALOGS["rata-dev"].tools if tool["name"] == "app_info"]
    transformer, walked = pydantic_ai(schema, strict=None)
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
    assert refused_by_agents(tool[key]), f"the converter took {tool[key]}"


def test_lint_finds_nothing_strict_mode_refuses_in_the_other_schemas():
    flagged = {(f.tool, f.path.split("/")[1]) for catalog in CATALOGS.values() for f in lint(catalog) if f.rule == "schema-not-strict"}
    assert flagged == {(name.split()[1], name.split()[2]) for name in NOT_YET_STRICT}
