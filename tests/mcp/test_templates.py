"""Live commands with required arguments as resource templates: listed, read with values, subscribed."""

from __future__ import annotations

import pytest

from rata.mcp import wire
from rata.testing import AgentClient
from tests.mcp.fixtures import agent, crm, era  # noqa: F401 - pytest fixtures

ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}
SHOW = "app://customers_show/{id}"


def test_a_live_command_with_a_required_argument_is_a_template(agent):
    assert agent.list_templates() == [
        {"uriTemplate": SHOW, "name": "customers_show", "description": "Show one customer.", "mimeType": "application/json"}
    ]
    assert [r["uri"] for r in agent.list_resources()] == ["app://customers_index"]  # a template is not a resource


def test_the_templates_list_is_cacheable_and_one_page(agent):
    answer = agent.request("resources/templates/list")
    if agent.era == "modern":
        assert (answer["ttlMs"], answer["cacheScope"]) == (3_600_000, "public")
    refused = agent.request_raw("resources/templates/list", {"cursor": "next"})
    assert refused["error"]["code"] == wire.INVALID_PARAMS


def test_reading_an_instance_runs_the_command_with_its_values(agent):
    ada = agent.call("customers_store", ADA).data
    read = agent.request("resources/read", {"uri": f"app://customers_show/{ada['id']}"})
    assert read["contents"][0]["uri"] == f"app://customers_show/{ada['id']}"
    assert read["contents"][0]["mimeType"] == "application/json"
    assert agent.read(f"app://customers_show/{ada['id']}") == ada
    assert ada["id"] == 1 and agent.read("app://customers_show/%31") == ada  # each value is percent-decoded


def test_a_value_the_argument_check_refuses_is_minus_32602_naming_the_field(agent):
    answer = agent.request_raw("resources/read", {"uri": "app://customers_show/abc"})
    error = answer["error"]
    assert error["code"] == wire.INVALID_PARAMS
    assert "id:" in error["message"] and "integer" in error["message"] and "percent-encoded" in error["message"]
    assert error["data"]["uri"] == "app://customers_show/abc" and list(error["data"]["errors"]) == ["id"]


def test_a_missing_row_is_resource_not_found_with_the_eras_code(agent):
    answer = agent.request_raw("resources/read", {"uri": "app://customers_show/99"})
    code = -32602 if agent.era == "modern" else -32002
    assert answer["error"]["code"] == code and answer["error"]["message"] == "Resource not found"
    assert answer["error"]["data"] == {"uri": "app://customers_show/99", "reason": "id: no customer has the id 99"}


@pytest.mark.parametrize(
    "uri",
    ["app://customers_show/", "app://customers_show/1/2", "app://customers_show/a%2Fb/c", "app://customers_show", "app://customers_show/%FF", "x" * 5000],
)
def test_a_uri_that_is_no_instance_is_not_found(agent, uri):
    answer = agent.request_raw("resources/read", {"uri": uri})
    assert answer["error"]["code"] == (-32602 if agent.era == "modern" else -32002)
    assert answer["error"]["message"] == "Resource not found"


def test_a_subscription_to_an_instance_fires_on_its_table_and_not_on_another(crm, era):
    crm.database().execute("CREATE TABLE IF NOT EXISTS notes (body TEXT)")
    crm.database().commit()
    with AgentClient(crm, era=era) as client:
        ada = client.call("customers_store", ADA).data
        uri = f"app://customers_show/{ada['id']}"
        client.read(uri)  # its reads are known once it ran
        with client.listen(uri) as listen:
            assert listen.honored["resourceSubscriptions"] == [uri]
            crm.live.changed({"notes"})  # a write to another table
            client.call("customers_store", {"name": "Grace Hopper", "email": "grace@example.com"})
            listen.wait_for_update(uri)
            assert listen.updates() == [uri]


def test_no_uri_string_raises_anything_but_a_clean_error(crm):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    segment = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(["1", "%31", "%", "%zz", "%FF", "%2F", "-0", "1e3", "null"])
    uris = st.text(max_size=40) | st.builds(lambda a, b: f"app://customers_show/{a}{b}", segment, st.sampled_from(["", "/", "/x", "?q", "#f"]))
    with AgentClient(crm) as client:

        @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(uris)
        def check(uri):
            answer = client.request_raw("resources/read", {"uri": uri})
            if "error" in answer:
                assert answer["error"]["code"] in (wire.INVALID_PARAMS, -32002) and answer["error"]["message"]
            else:
                assert answer["result"]["contents"][0]["uri"] == uri

        check()
