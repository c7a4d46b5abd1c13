"""Every schema rata emits, through the strict conversions real agent frameworks run on MCP tools.

The conversions are in tests/codegen/strict_conversions.py (openai-agents' and pydantic-ai's, pinned in
requirements-test.txt); tests/mcp/test_python_clients.py runs them over the schemas the servers serve.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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
# rata mcp dev's results that still carry free-form JSON (log entries, a call's arguments): strict mode
# cannot express an object with keys it does not list. lint says so.
NOT_YET_STRICT = {
    "rata-dev app_calls outputSchema",
    "rata-dev last_error outputSchema",
    "rata-dev read_log_entries outputSchema",
}


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


@pytest.mark.parametrize("name", sorted(NOT_YET_STRICT))
def test_what_strict_mode_cannot_take_yet_is_what_lint_reports(name: str):
    (schema,) = [s for n, s in SCHEMAS if n == name]
    server, tool, key = name.split()
    findings = [f for f in lint(CATALOGS[server]) if f.rule == "schema-not-strict" and f.tool == tool and f.path.startswith(f"/{key}")]
    assert findings
    assert refused_by_agents(schema), f"{name} converts now: remove it from NOT_YET_STRICT"


def test_lint_finds_nothing_strict_mode_refuses_in_the_other_schemas():
    flagged = {(f.tool, f.path.split("/")[1]) for catalog in CATALOGS.values() for f in lint(catalog) if f.rule == "schema-not-strict"}
    assert flagged == {(name.split()[1], name.split()[2]) for name in NOT_YET_STRICT}
