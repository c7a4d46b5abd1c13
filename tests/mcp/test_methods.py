"""The method table (`rata.mcp.methods.METHODS`) and the version table (`VERSIONS`), over the wire through the real server."""

from __future__ import annotations

import pytest

from rata.mcp import methods, wire
from rata.mcp.app_server import AppServer
from rata.mcp.methods import BOTH, LEGACY_ONLY, METHODS, MODERN_ONLY, VERSIONS, Row
from rata.mcp.methods.listing import Offer
from rata.testing import AgentClient
from tests.mcp.fixtures import crm, era  # noqa: F401 - pytest fixtures


def count_tools(ctx: Offer, call) -> dict:
    """A handler written as a new method's would be: it takes the protocol of what it needs, not a server class."""
    return {"count": len(ctx.tools_for(call.era)), "asked": call.params.get("what"), "ttlMs": 5}


@pytest.fixture
def added(monkeypatch):
    """Three new methods, one row each (and one handler), and nothing else changed."""
    monkeypatch.setitem(METHODS, "tools/count", Row(BOTH, handler=count_tools))
    monkeypatch.setitem(METHODS, "tools/count-modern", Row(MODERN_ONLY, handler=count_tools))
    monkeypatch.setitem(METHODS, "tools/count-legacy", Row(LEGACY_ONLY, needs_app=True, blocking=True, handler=count_tools))


def test_a_new_row_and_handler_are_served_in_its_eras_and_refused_in_others(crm, era, added):
    tools = len(AppServer(crm, send=lambda data: None).tools_for(era))
    with AgentClient(crm, era=era) as client:
        answer = client.request_raw("tools/count", {"what": "tools"})
        own = client.request_raw(f"tools/count-{era}")
        other = client.request_raw("tools/count-" + ("legacy" if era == "modern" else "modern"))
    if era == "modern":  # shaped by the version row: the 2026-07-28 envelope, cache hints kept
        meta = {wire.META_SERVER: {"name": "crm", "version": "1.0.0"}}
        assert answer["result"] == {"count": tools, "asked": "tools", "ttlMs": 5, "resultType": "complete", "_meta": meta}
    else:  # 2025-11-25 has no cache hints
        assert answer["result"] == {"count": tools, "asked": "tools"}
    assert own["result"]["count"] == tools
    assert other["error"]["code"] == wire.METHOD_NOT_FOUND
    if era == "modern":
        assert other["error"]["message"] == "Method not found: tools/count-legacy does not exist in 2026-07-28"


def test_an_app_server_serves_every_row_that_has_a_handler(crm):
    server = AppServer(crm, send=lambda data: None).server
    assert set(server.methods) == {name for name, row in METHODS.items() if row.handler is not None}
    for name, method in server.methods.items():
        assert (method.eras, method.blocking) == (METHODS[name].eras, METHODS[name].blocking)


def test_the_methods_that_exist_only_before_2026_are_read_from_the_table():
    only_before = {"initialize", "notifications/initialized", "logging/setLevel", "ping", "resources/subscribe", "resources/unsubscribe"}
    assert methods.removed_in_modern() == only_before


def test_every_served_version_has_a_row_of_the_era_it_is_served_in():
    assert VERSIONS[wire.MODERN].era == "modern" and VERSIONS[wire.LEGACY].era == "legacy"
    assert all(version in VERSIONS for version in wire.MODERN_VERSIONS)


def test_a_version_without_elicitation_cannot_confirm_even_for_a_client_that_declares_it(crm, monkeypatch):
    """What a version has is data: the same client (elicitation declared), and a version row without the feature."""
    legacy = VERSIONS[wire.LEGACY]
    without = methods.Version(legacy.name, legacy.era, legacy.envelope, legacy.drops, legacy.features - {"elicitation"}, legacy.resource_not_found)
    monkeypatch.setitem(VERSIONS, wire.LEGACY, without)
    with AgentClient(crm, era="legacy") as client:
        client.call("customers_store", {"name": "Ada", "email": "ada@example.com"})
        result = client.call("customers_delete", {"id": 1})
    assert result.is_error and "cannot ask for it" in result.text
