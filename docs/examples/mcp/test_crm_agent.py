"""Test what agents see of the crm app, with rata.testing.AgentClient. Run: pytest test_crm_agent.py"""

import os

import pytest
from crm.app import app as crm

from rata.mcp.wire import McpError
from rata.testing import AgentClient, ConfirmationRequested

ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}


@pytest.fixture
def app(tmp_path):
    crm.folder = tmp_path / "crm"  # a fresh app folder, and so a fresh database, for each test
    crm.migrate()
    yield crm
    crm.close()


def test_agents_get_four_tools_and_one_resource(app):
    with AgentClient(app) as agent:
        assert [tool["name"] for tool in agent.list_tools()] == ["customers_delete", "customers_index", "customers_show", "customers_store"]
        assert [resource["uri"] for resource in agent.list_resources()] == ["app://customers_index"]


def test_an_agent_adds_a_customer(app):
    with AgentClient(app) as agent:
        ada = agent.call("customers_store", ADA)
        assert not ada.is_error
        assert ada.data["id"] == 1
        assert [customer["name"] for customer in agent.read("app://customers_index")] == ["Ada Lovelace"]


def test_mistakes_come_back_as_text_the_model_can_act_on(app):
    with AgentClient(app) as agent:
        agent.call("customers_store", ADA)
        again = agent.call("customers_store", {"name": "Ada", "email": "ADA@example.com"})
        assert again.is_error
        assert again.text == "Invalid arguments for customers_store; fix these and call it again:\n- email: has already been taken"


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_commands_not_granted_to_agents_are_not_tools(app, era):
    with AgentClient(app, era=era) as agent, pytest.raises(McpError) as caught:
        agent.call("app_reset")
    assert caught.value.code == -32602


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_deleting_asks_the_user_first(app, era):
    with AgentClient(app, era=era) as agent:
        agent.call("customers_store", ADA)
        with pytest.raises(ConfirmationRequested, match="Delete customer #1, Ada Lovelace"):
            agent.call("customers_delete", {"id": 1})
        declined = agent.call("customers_delete", {"id": 1}, confirm=False)
        assert declined.is_error
        assert len(agent.read("app://customers_index")) == 1
        assert not agent.call("customers_delete", {"id": 1}, confirm=True).is_error
        assert agent.read("app://customers_index") == []


def test_listeners_hear_that_the_list_changed(app):
    with AgentClient(app) as agent, agent.listen("app://customers_index") as listen:
        agent.call("customers_store", ADA)
        listen.wait_for_update("app://customers_index")


def test_legacy_clients_get_lists_wrapped_in_an_object(app):
    with AgentClient(app, era="legacy") as agent:
        agent.call("customers_store", ADA)
        listed = agent.call("customers_index")
        assert [customer["name"] for customer in listed.data["result"]] == ["Ada Lovelace"]


def test_the_real_server_process(app):
    env = {**os.environ, "RATA_HOME": str(app.folder.path)}  # the process uses the migrated folder
    with AgentClient.spawn(["crm", "--mcp"], env=env, client="claude-desktop") as agent:
        assert agent.call("customers_store", ADA).data["id"] == 1
        assert agent.call("customers_show", {"id": 1}).data["email"] == "ada@example.com"
