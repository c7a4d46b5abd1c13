"""MCP inside the running app: agents connected through the endpoint share its database, live registry and events.

Every test runs over both endpoint transports (`endpoint_transport`): the Unix socket, and the TCP endpoint Windows uses."""

from __future__ import annotations

import json
import threading

import pytest

from rata.endpoint import MCP, address_path, connect
from rata.events import AgentCalled
from rata.running_app import RunningApp
from rata.testing import AgentClient
from tests.mcp.fixtures import crm, era  # noqa: F401 - fixtures

ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}
INDEX = "app://customers_index"

pytestmark = pytest.mark.usefixtures("endpoint_transport")


@pytest.fixture
def running(crm):
    with RunningApp(crm) as running:
        yield running


def test_a_running_app_that_is_an_mcp_server_opens_its_endpoint(running, crm):
    assert running.mcp_endpoint is not None
    named = "mcp.port" if running.mcp_endpoint.transport == "tcp" else "mcp.sock"
    assert running.mcp_endpoint.path == address_path(crm.folder, MCP) == crm.folder.path / named


def test_the_endpoint_is_gone_when_the_app_stops(crm):
    with RunningApp(crm):
        assert address_path(crm.folder, MCP).exists()
    assert not address_path(crm.folder, MCP).exists()
    assert connect(crm.folder, MCP) is None


def test_an_app_without_mcp_opens_no_endpoint(lab_without_mcp):
    with RunningApp(lab_without_mcp) as running:
        assert running.mcp_endpoint is None
        assert not address_path(lab_without_mcp.folder, MCP).exists()


@pytest.fixture
def lab_without_mcp():
    from rata import App

    app = App("plain", identifier="com.example.plain")
    yield app
    app.close()


def test_an_agent_writes_into_the_running_apps_database_and_live_registry(running, crm, era):
    heard: list[frozenset[str]] = []
    crm.live.listen(heard.append)
    calls: list[AgentCalled] = []
    crm.on(AgentCalled, calls.append)
    with AgentClient.running(crm, era=era, client="through-the-endpoint") as agent:
        stored = agent.call("customers_store", ADA)
        assert not stored.is_error, stored.text
    assert heard == [frozenset({"customers"})]
    assert [c["name"] for c in crm.call("customers_index")] == ["Ada Lovelace"]
    assert [(c.tool, c.client, c.ok) for c in calls] == [("customers_store", "through-the-endpoint", True)]


def test_another_agents_subscription_hears_a_write_made_through_the_endpoint(running, crm, era):
    with AgentClient.running(crm, era=era) as watcher, AgentClient.running(crm) as writer:
        with watcher.listen(INDEX) as stream:
            writer.call("customers_store", ADA)
            stream.wait_for_update(INDEX)
        assert stream.updates() == [INDEX]


def test_a_write_by_the_app_itself_reaches_a_connected_agent(running, crm):
    with AgentClient.running(crm) as watcher, watcher.listen(INDEX) as stream:
        crm.call("customers_store", **ADA)
        stream.wait_for_update(INDEX)


def test_each_connection_is_its_own_client_with_its_own_era(running, crm):
    with AgentClient.running(crm, era="legacy") as old, AgentClient.running(crm, era="modern") as new:
        assert old.server_info["protocolVersion"] == "2025-11-25"
        assert [t["name"] for t in old.list_tools()] == [t["name"] for t in new.list_tools()]


def test_the_tools_through_the_endpoint_are_those_of_the_headless_server(running, crm, era):
    with AgentClient.running(crm, era=era) as through, AgentClient(crm, era=era) as headless:
        assert through.list_tools() == headless.list_tools()
        assert through.list_resources() == headless.list_resources()


def test_a_connection_dying_mid_request_leaves_the_app_and_the_others_serving(running, crm):
    survivor = AgentClient.running(crm)
    doomed = connect(crm.folder, MCP)
    assert doomed is not None
    doomed.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.model')  # half a line, then gone
    doomed.close()
    with survivor:
        assert not survivor.call("customers_store", ADA).is_error
    assert json.loads(json.dumps(crm.call("customers_index")))[0]["email"] == ADA["email"]


def test_many_agents_at_once_each_get_their_own_answers(running, crm):
    errors: list[BaseException] = []

    def agent_stores(n: int) -> None:
        try:
            with AgentClient.running(crm, client=f"agent-{n}") as agent:
                result = agent.call("customers_store", {"name": f"Customer {n}", "email": f"c{n}@example.com"})
                assert result.data["email"] == f"c{n}@example.com"
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=agent_stores, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert len(crm.call("customers_index")) == 6


def test_every_connection_of_the_running_app_shares_one_rate_limit_budget(crm):
    """Three shims are one app: 2 calls a minute means 2 in all, not 2 each."""
    crm.mcp_config.rate_limit(2, per=60)
    try:
        with RunningApp(crm):
            agents = [AgentClient.running(crm, client=f"shim-{i}") for i in range(3)]
            try:
                results = [agent.call("customers_index") for agent in agents for _ in range(2)]
            finally:
                for agent in agents:
                    agent.close()
    finally:
        crm.mcp_config.rate_limit(300, per=60)
    assert [r.is_error for r in results] == [False, False, True, True, True, True]
    assert results[-1].text.startswith("Rate limit for customers_index: 2 calls per 60 s.")
