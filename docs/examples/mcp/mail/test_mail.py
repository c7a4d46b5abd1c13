"""Test prompts and completions with rata.testing.AgentClient. Run: pytest test_mail.py"""

import pytest
from mail_app import app as mail

from rata.testing import AgentClient, McpError


@pytest.fixture
def app(tmp_path):
    mail.folder = tmp_path / "mail"
    return mail


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_prompt_takes_its_arguments_as_text(app, era):
    with AgentClient(app, era=era) as agent:
        assert [p["name"] for p in agent.list_prompts()] == ["follow_up", "reply_review"]
        drafted = agent.get_prompt("follow_up", customer_id="12", tone="brief")
        assert drafted["messages"] == [
            {"role": "user", "content": {"type": "text", "text": "Write a brief follow-up email to Alan Turing about their last order."}}
        ]
        with pytest.raises(McpError, match="customer_id: must be an integer, not a string"):
            agent.get_prompt("follow_up", customer_id="Ada")


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_prompt_that_asks(app, era):
    with AgentClient(app, era=era) as agent:
        review = agent.get_prompt("reply_review", draft="Thanks!", answers=[{"focus": "tone"}])
    assert [(m["role"], m["content"]["text"]) for m in review["messages"]][1:] == [("assistant", "I will review it."), ("user", "Look mostly at tone.")]


def test_arguments_complete(app):
    with AgentClient(app) as agent:
        assert agent.complete("follow_up", "customer_id", "1") == {"values": ["1", "12"], "total": 2, "hasMore": False}
        assert agent.complete("follow_up", "tone", "b") == {"values": ["brief"], "total": 1, "hasMore": False}
