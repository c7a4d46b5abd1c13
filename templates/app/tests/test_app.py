"""What the app does, called as the app itself (`app.call`) and as an agent (`AgentClient`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rata import ValidationErrors
from rata.testing import AgentClient, ConfirmationRequested

PROJECT = Path(__file__).resolve().parent.parent


def test_an_added_task_is_listed_until_it_is_done(app):
    task = app.call("tasks_add", title="Write the first test")
    assert (task["id"], task["title"], task["done"]) == (1, "Write the first test", False)
    assert [t["title"] for t in app.call("tasks_list")] == ["Write the first test"]
    assert app.call("tasks_done", id=1)["done"] is True
    assert app.call("tasks_list") == []
    assert [t["id"] for t in app.call("tasks_list", include_done=True)] == [1]


def test_a_blank_title_is_refused(app):
    with pytest.raises(ValidationErrors) as caught:
        app.call("tasks_add", title="   ")
    assert caught.value.to_dict() == {"title": ["must not be blank"]}


def test_agents_get_four_tools_and_one_resource(app):
    with AgentClient(app) as agent:
        assert [tool["name"] for tool in agent.list_tools()] == ["tasks_add", "tasks_delete", "tasks_done", "tasks_list"]
        assert [resource["uri"] for resource in agent.list_resources()] == ["app://tasks_list"]


def test_an_agent_adds_a_task_and_reads_the_list(app):
    with AgentClient(app) as agent:
        added = agent.call("tasks_add", {"title": "Ship it"})
        assert not added.is_error
        assert [task["title"] for task in agent.read("app://tasks_list")] == ["Ship it"]


def test_a_mistake_comes_back_as_text_the_model_can_act_on(app):
    with AgentClient(app) as agent:
        result = agent.call("tasks_done", {"id": 42})
        assert result.is_error
        assert "there is no task 42" in result.text


def test_deleting_asks_the_user_first(app):
    app.call("tasks_add", title="Ship it")
    with AgentClient(app) as agent:
        with pytest.raises(ConfirmationRequested, match="Delete task #1"):
            agent.call("tasks_delete", {"id": 1})
        assert agent.call("tasks_delete", {"id": 1}, confirm=False).is_error
        assert len(agent.read("app://tasks_list")) == 1
        assert not agent.call("tasks_delete", {"id": 1}, confirm=True).is_error
        assert agent.read("app://tasks_list") == []


def test_the_console_script_serves_agents(app):
    """`python -m __app_package__.main --mcp` is what `__app_name__ --mcp` runs."""
    env = {**os.environ, "RATA_HOME": str(app.folder.path), "PYTHONPATH": os.pathsep.join([str(PROJECT), os.environ.get("PYTHONPATH", "")])}
    with AgentClient.spawn([sys.executable, "-m", "__app_package__.main", "--mcp"], env=env) as agent:
        assert agent.call("tasks_add", {"title": "Ship it"}).data["id"] == 1
        assert [tool["name"] for tool in agent.list_tools()] == ["tasks_add", "tasks_delete", "tasks_done", "tasks_list"]
