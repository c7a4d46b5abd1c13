"""Live commands as resources, and hearing when they change."""

from __future__ import annotations

import pytest

from rata.mcp import wire
from rata.testing import AgentClient
from tests.mcp.fixtures import agent, crm, era  # noqa: F401 - pytest fixtures

ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}
INDEX = "app://customers_index"


def test_resources_are_the_live_commands_with_all_defaults(agent):
    assert [r["uri"] for r in agent.list_resources()] == [INDEX]


def test_reading_a_resource_runs_its_query(agent):
    assert agent.read(INDEX) == []
    agent.call("customers_store", ADA)
    assert [c["name"] for c in agent.read(INDEX)] == ["Ada Lovelace"]


def test_a_missing_resource_is_minus_32602_modern_and_minus_32002_legacy(agent):
    answer = agent.request_raw("resources/read", {"uri": "app://nope"})
    code = -32602 if agent.era == "modern" else -32002
    assert answer["error"] == {"code": code, "message": "Resource not found", "data": {"uri": "app://nope"}}


def test_a_listen_is_acknowledged_first_with_only_what_the_server_honours(crm):
    with AgentClient(crm) as client:
        listen_id = "L1"
        params = {"_meta": client._meta(), "notifications": {"toolsListChanged": True, "promptsListChanged": True, "resourceSubscriptions": [INDEX, "app://nope"]}}
        client.send_line(wire.encode({"jsonrpc": "2.0", "id": listen_id, "method": "subscriptions/listen", "params": params}))
        first = client.notifications[0]
        assert listen_id not in client._responses  # a listen stays open: no response while it runs
    assert client._responses[listen_id]["result"]["_meta"][wire.META_SUBSCRIPTION] == listen_id  # ended with a result at close
    assert first == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "_meta": {wire.META_SUBSCRIPTION: listen_id},
            "notifications": {"toolsListChanged": True, "promptsListChanged": True, "resourceSubscriptions": [INDEX]},
        },
    }  # no such resource


def test_a_write_notifies_every_listen_that_watches_an_affected_resource_tagged_with_its_id(crm):
    with AgentClient(crm) as client, client.listen(INDEX) as first, client.listen(INDEX) as second, client.listen() as nothing:
        client.call("customers_store", ADA)
        first.wait_for_update(INDEX)
        second.wait_for_update(INDEX)
        assert nothing.updates() == []
        update = [n for n in client.notifications_for(first.id) if n["method"] == "notifications/resources/updated"][0]
        assert update["params"] == {"_meta": {wire.META_SUBSCRIPTION: first.id}, "uri": INDEX}


def test_a_numeric_listen_id_stays_a_number_in_the_tag(crm):
    with AgentClient(crm) as client:
        params = {"_meta": client._meta(), "notifications": {"resourceSubscriptions": [INDEX]}}
        client.send_line(wire.encode({"jsonrpc": "2.0", "id": 41, "method": "subscriptions/listen", "params": params}))
        assert client.notifications[0]["params"]["_meta"][wire.META_SUBSCRIPTION] == 41


def test_a_cancelled_listen_hears_nothing_more(crm):
    with AgentClient(crm) as client:
        listen = client.listen(INDEX)
        listen.close()
        client.call("customers_store", ADA)
        client.request("tools/list")
        assert listen.updates() == []
        assert listen.id not in client._responses


def test_reads_that_cannot_change_a_query_do_not_notify(crm):
    with AgentClient(crm) as client, client.listen(INDEX) as listen:
        client.read(INDEX)  # the registry learns which tables the query reads
        client.call("customers_show", {"id": 99})
        client.request("tools/list")
        assert listen.updates() == []


def test_a_failed_write_does_not_notify(crm):
    with AgentClient(crm) as client, client.listen(INDEX) as listen:
        client.call("customers_store", ADA)
        listen.wait_for_update(INDEX)
        before = len(listen.updates())
        assert client.call("customers_store", ADA).is_error  # duplicate email: rolled back
        assert len(listen.updates()) == before


def test_legacy_clients_subscribe_and_get_untagged_updates(crm):
    with AgentClient(crm, era="legacy") as client:
        assert client.request("resources/subscribe", {"uri": INDEX}) == {}
        client.call("customers_store", ADA)
        client._wait(lambda: any(n["method"] == "notifications/resources/updated" for n in client.notifications), 5, "an update")
        update = next(n for n in client.notifications if n["method"] == "notifications/resources/updated")
        assert update["params"] == {"uri": INDEX}
        client.request("resources/unsubscribe", {"uri": INDEX})
        count = len(client.notifications)
        client.call("customers_store", {"name": "Grace", "email": "grace@example.com"})
        assert len(client.notifications) == count


def test_legacy_subscribe_to_an_unknown_resource_is_not_found(crm):
    with AgentClient(crm, era="legacy") as client:
        assert client.request_raw("resources/subscribe", {"uri": "app://nope"})["error"]["code"] == -32002


def test_listen_needs_its_notifications_object(crm):
    with AgentClient(crm) as client:
        assert client.request_raw("subscriptions/listen", {})["error"]["code"] == wire.INVALID_PARAMS


@pytest.mark.parametrize("era", ["modern"])
def test_listen_is_a_2026_method(crm, era):
    with AgentClient(crm, era="legacy") as client:
        assert client.request_raw("subscriptions/listen", {"notifications": {}})["error"]["code"] == wire.METHOD_NOT_FOUND
