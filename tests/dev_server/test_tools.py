"""The dev tools are listed once: the commands `rata.dev_server.tools` and `rata.dev_server.windows` declare.

What the server lists, how a result is shown, what the instructions name and what
`rata mcp install --dev` lints all come from those declarations, so adding a tool is one
`@command` and nothing else.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from rata.cli.main import app as cli
from rata.command_spec import command
from rata.context import Ctx
from rata.dev_server import tools, windows
from rata.dev_server.serve import dev_server
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.testing import AgentClient
from tests.conftest import CRM

FAKE = "fake_probe_that_reads_the_weather"


def instructions_of(agent: AgentClient) -> str:
    return agent.request("server/discover")["instructions"]


def named(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+(?:_[a-z]+)+", text))


def test_the_instructions_name_every_tool_the_server_lists(tmp_path):
    with AgentClient(dev_app(Target(str(CRM / "crm" / "app.py"), tmp_path))) as agent:
        listed = {tool["name"] for tool in agent.list_tools()}
        assert listed and named(instructions_of(agent)) == listed


def test_the_server_lists_every_declared_command_and_the_window_tools_among_them(tmp_path):
    declared = [fn.__name__ for fn in tools.dev_commands()]
    assert {"app_windows", "window_act", "window_screenshot"} <= set(declared)
    with AgentClient(dev_app(Target(None, tmp_path))) as agent:
        assert sorted(tool["name"] for tool in agent.list_tools()) == sorted(declared) == sorted(tools.tool_names())


def test_a_tool_with_a_presenter_lists_no_output_schema_and_the_others_do(tmp_path):
    with AgentClient(dev_app(Target(None, tmp_path))) as agent:
        without = {tool["name"] for tool in agent.list_tools() if "outputSchema" not in tool}
    assert without == {"window_snapshot", "window_act", "window_screenshot"}


def present_forecast(value: str) -> dict:
    return {"content": [{"type": "text", "text": f"forecast: {value}"}]}


@command(can=windows.ABILITY, read_only=True, present=present_forecast)
def fake_probe_that_reads_the_weather(ctx: Ctx) -> str:
    """A fake dev tool, declared by the test."""
    return "sunny"


@pytest.fixture
def one_more_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake command declared in the window tools' module, as a new dev tool would be: nothing else changes."""
    monkeypatch.setattr(windows, FAKE, fake_probe_that_reads_the_weather, raising=False)


def test_adding_a_dev_tool_is_one_command_declaration(one_more_tool, tmp_path, rata_home):
    with AgentClient(dev_server(None, tmp_path, lambda data: None).app) as agent:
        (listed,) = [tool for tool in agent.list_tools() if tool["name"] == FAKE]
        assert "outputSchema" not in listed and agent.call(FAKE).raw["content"] == [{"type": "text", "text": "forecast: sunny"}]
        assert FAKE in named(instructions_of(agent))
    # Claude Code shows mcp__<name>__<tool>, 64 characters at most: with a 30-character name only the new tool is too long.
    argv = ["mcp", "install", "--client", "claude-code", "--dev", "--name", "x" * 30, "--app", str(CRM)]
    result = CliRunner().invoke(cli, argv, env={"RATA_HOME": str(rata_home), "NO_COLOR": "1", "COLUMNS": "300"}, catch_exceptions=False)
    assert result.exit_code == 0 and FAKE in result.stderr


def test_the_package_docstring_says_a_dev_tool_is_one_declaration():
    assert "one command declaration" in " ".join((tools.__doc__ or "").split())
