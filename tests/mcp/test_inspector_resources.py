"""The MCP Inspector v2 CLI (a TypeScript client) on resource templates: `crm --mcp`'s `app://customers_show/{id}`.

The Inspector checks the 2026 cache fields and resultType itself; see test_inspector_peer.py for how it is run.
"""

from __future__ import annotations

import json

import pytest

from tests.mcp.peers import crm_home, migrated_folder  # noqa: F401 - fixtures
from tests.mcp.test_inspector_peer import ADA, ERAS, inspect, inspector, store  # noqa: F401 - fixtures

pytestmark = pytest.mark.subprocess


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return request.param


def test_the_inspector_lists_the_template(inspector, crm_home, era):
    run = inspect(inspector, crm_home, era, "resources/templates/list")
    assert run.rc == 0, run
    assert run.json["result"]["resourceTemplates"] == [
        {"uriTemplate": "app://customers_show/{id}", "name": "customers_show", "description": "Show one customer.", "mimeType": "application/json"}
    ]


def test_the_inspector_reads_a_template_instance(inspector, crm_home, era):
    stored = store(inspector, crm_home, era, ADA)
    assert stored.rc == 0, stored
    run = inspect(inspector, crm_home, era, "resources/read", "--uri", "app://customers_show/1")
    assert run.rc == 0, run
    (content,) = run.json["result"]["contents"]
    assert content["uri"] == "app://customers_show/1" and content["mimeType"] == "application/json"
    assert json.loads(content["text"]) == stored.json["result"]["structuredContent"]


def test_the_inspector_hears_resource_not_found_for_a_missing_row(inspector, crm_home, era):
    run = inspect(inspector, crm_home, era, "resources/read", "--uri", "app://customers_show/99")
    assert run.rc != 0, run
    assert "Resource not found" in run.stdout + run.stderr, run
