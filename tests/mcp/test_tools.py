"""tools/call: the app's dispatch, errors the model can act on, confirmation, limits, visibility."""

from __future__ import annotations

import json
import logging
import time

import pytest

from rata import Mcp
from rata.events import MCP_CHANNEL, AgentCalled
from rata.mcp import wire
from rata.mcp.confirm import Confirmer
from rata.testing import AgentClient, ConfirmationRequested
from tests.mcp.fixtures import agent, crm, era, lab  # noqa: F401 - pytest fixtures

ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}


def test_a_call_returns_structured_content_and_the_same_json_as_text(agent):
    result = agent.call("customers_store", ADA)
    assert not result.is_error
    assert result.data == {"id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "created_at": result.data["created_at"]}
    assert json.loads(result.text) == result.data


def test_a_list_result_is_wrapped_under_result_only_for_legacy_clients(agent):
    agent.call("customers_store", ADA)
    result = agent.call("customers_index")
    if agent.era == "legacy":
        assert list(result.raw["structuredContent"]) == ["result"] and result.raw["structuredContent"]["result"][0]["name"] == "Ada Lovelace"
    else:
        assert result.raw["structuredContent"][0]["name"] == "Ada Lovelace"
    assert json.loads(result.text)[0]["name"] == "Ada Lovelace"


def test_arguments_that_fail_the_schema_are_a_tool_error_with_one_message_per_field(agent):
    result = agent.call("customers_store", {"name": 7, "mail": "x"})
    assert result.is_error
    assert result.text == (
        "Invalid arguments for customers_store; fix these and call it again:\n"
        "- email: is required\n"
        "- mail: is not a parameter (expected one of: email, name)\n"
        "- name: must be a string, not an integer"
    )


def test_validation_errors_from_the_command_are_a_tool_error(agent):
    agent.call("customers_store", ADA)
    result = agent.call("customers_store", {"name": "Ada again", "email": "ADA@example.com"})
    assert result.is_error and "- email: has already been taken" in result.text


def test_an_unknown_or_ungranted_tool_is_a_protocol_error(agent):
    for name in ("nope", "customers_update", "app_reset"):
        answer = agent.request_raw("tools/call", {"name": name, "arguments": {}})
        assert answer["error"] == {"code": -32602, "message": f"Unknown tool: {name}"}


def test_malformed_call_params_are_a_protocol_error(agent):
    assert agent.request_raw("tools/call", {"arguments": {}})["error"]["code"] == wire.INVALID_PARAMS
    assert agent.request_raw("tools/call", {"name": "customers_store", "arguments": [1]})["error"]["code"] == wire.INVALID_PARAMS


def test_a_failing_command_is_a_tool_error_with_its_message_and_the_traceback_goes_to_the_log(lab, era, caplog):
    with caplog.at_level(logging.ERROR, logger="rata.mcp"), AgentClient(lab, era=era) as client:
        result = client.call("boom")
    assert result.is_error and result.text == "boom failed: disk full"
    assert "Traceback" not in result.text
    assert any(record.exc_info and "disk full" in str(record.exc_info[1]) for record in caplog.records)


def test_delete_asks_for_confirmation_and_runs_only_when_accepted(agent):
    agent.call("customers_store", ADA)
    with pytest.raises(ConfirmationRequested) as asked:
        agent.call("customers_delete", {"id": 1})
    assert "customers_delete" in str(asked.value)
    declined = agent.call("customers_delete", {"id": 1}, confirm=False)
    assert declined.is_error and declined.text == "Not confirmed: the user did not allow customers_delete. Nothing was done."
    assert len(agent.read("app://customers_index")) == 1
    accepted = agent.call("customers_delete", {"id": 1}, confirm=True)
    assert not accepted.is_error
    assert agent.read("app://customers_index") == []


def test_the_modern_confirmation_is_an_input_required_elicitation_form(crm):
    with AgentClient(crm) as client:
        client.call("customers_store", ADA)
        result = client.request("tools/call", {"name": "customers_delete", "arguments": {"id": 1}})
    assert result["resultType"] == "input_required"
    assert "ttlMs" not in result and "cacheScope" not in result
    request = result["inputRequests"]["confirm"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    assert request["params"]["message"] == "Delete customer #1, Ada Lovelace?"
    assert request["params"]["requestedSchema"]["type"] == "object"
    assert isinstance(result["requestState"], str)


def test_a_tampered_foreign_or_expired_request_state_is_invalid_params(crm):
    with AgentClient(crm) as client:
        client.call("customers_store", ADA)
        first = client.request("tools/call", {"name": "customers_delete", "arguments": {"id": 1}})
        state = first["requestState"]
        body, signature = state.split(".")
        accept = {"confirm": {"action": "accept", "content": {"confirm": True}}}

        def retry(arguments, request_state):
            return client.request_raw(
                "tools/call", {"name": "customers_delete", "arguments": arguments, "inputResponses": accept, "requestState": request_state}
            )

        tampered = retry({"id": 1}, body + "." + ("0" * len(signature)))
        other_call = retry({"id": 2}, state)
        garbage = retry({"id": 1}, "not-a-state")
        expired_state = Confirmer(crm.folder.token(), clock=lambda: time.time() - 3600).issue("customers_delete", {"id": 1})
        expired = retry({"id": 1}, expired_state)
        for answer in (tampered, other_call, garbage, expired):
            assert answer["error"]["code"] == wire.INVALID_PARAMS and "requestState" in answer["error"]["message"]
        assert len(client.read("app://customers_index")) == 1


def test_a_retry_without_an_answer_asks_again(crm):
    with AgentClient(crm) as client:
        client.call("customers_store", ADA)
        first = client.request("tools/call", {"name": "customers_delete", "arguments": {"id": 1}})
        again = client.request(
            "tools/call",
            {"name": "customers_delete", "arguments": {"id": 1}, "requestState": first["requestState"], "inputResponses": {"confirm": {"nonsense": 1}}},
        )
    assert again["resultType"] == "input_required"


def test_a_client_without_elicitation_cannot_delete(crm, era):
    with AgentClient(crm, era=era, elicitation=False) as client:
        client.call("customers_store", ADA)
        if era == "modern":
            answer = client.request_raw("tools/call", {"name": "customers_delete", "arguments": {"id": 1}})
            assert answer["error"]["code"] == wire.MISSING_CAPABILITY
            assert answer["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
        else:
            result = client.call("customers_delete", {"id": 1})
            assert result.is_error and "cannot ask for it" in result.text
        assert len(client.read("app://customers_index")) == 1


def test_invalid_arguments_are_reported_before_anyone_is_asked_to_confirm(agent):
    result = agent.call("customers_delete", {"id": "one"})
    assert result.is_error and "- id: must be an integer" in result.text


def test_calls_over_the_rate_limit_are_a_tool_error_saying_when_to_retry(crm):
    crm.mcp_config.rate_limit(2, per=60)
    try:
        with AgentClient(crm) as client:
            assert not client.call("customers_index").is_error
            assert not client.call("customers_index").is_error
            limited = client.call("customers_index")
            assert not client.call("customers_show", {"id": 5}).text.startswith("Rate limit")  # per tool
    finally:
        crm.mcp_config.rate_limit(300, per=60)
    assert limited.is_error and limited.text.startswith("Rate limit for customers_index: 2 calls per 60 s. Try again in ")


def test_every_call_is_logged_without_its_arguments_and_announced(crm, caplog):
    events, messages = [], []
    crm.on(AgentCalled, events.append)
    stop = crm.subscribe(MCP_CHANNEL, messages.append)
    try:
        with caplog.at_level(logging.INFO, logger="rata.mcp"), AgentClient(crm, client="claude-code") as client:
            client.call("customers_store", ADA)
            client.call("customers_store", {"name": "x", "email": "bad"})
    finally:
        stop()
        crm.events._listeners.clear()
    assert [(e.tool, e.client, e.ok) for e in events] == [("customers_store", "claude-code", True), ("customers_store", "claude-code", False)]
    assert [(m["tool"], m["outcome"]) for m in messages] == [("customers_store", "ok"), ("customers_store", "invalid")]
    calls = [r for r in caplog.records if r.name == "rata.mcp" and r.getMessage() == "tool call"]
    assert [(r.tool, r.client, r.outcome) for r in calls] == [("customers_store", "claude-code", "ok"), ("customers_store", "claude-code", "invalid")]
    assert all(isinstance(r.duration_ms, float) for r in calls)
    assert not any("ada@example.com" in r.getMessage() or "ada@example.com" in str(vars(r)) for r in caplog.records)


def test_no_agent_grant_means_no_tools(crm):
    saved = crm.mcp_config
    crm.mcp(Mcp())
    try:
        with AgentClient(crm) as client:
            assert client.list_tools() == [] and client.list_resources() == []
    finally:
        crm.mcp(saved)
