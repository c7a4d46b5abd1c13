"""`@command(text=...)`: the text block a model reads is the command's own rendering; structuredContent keeps the JSON."""

from __future__ import annotations

import logging
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata import App, Ctx, Mcp, command
from rata.errors import CodegenError
from rata.testing import AgentClient
from tests.conftest import subprocess_env

APP = '''
from typing import Any, TypedDict

from rata import App, Ctx, Mcp, command


class Row(TypedDict):
    id: int
    name: str


def rows_text(rows: list[dict[str, Any]]) -> str:
    return "\\n".join(f"{row['id']} | {row['name']}" for row in rows)


@command(can="rows.view", read_only=True, text=rows_text)
def rows_list(ctx: Ctx, count: int = 2) -> list[Row]:
    """Rows."""
    return [{"id": i, "name": f"row {i}"} for i in range(count)]


def broken_text(value: Any) -> str:
    raise ValueError("no table today")


@command(can="rows.view", text=broken_text)
def rows_broken(ctx: Ctx) -> int:
    """A text that fails."""
    return 1


def not_a_string(value: Any) -> Any:
    return ["a", "list"]


@command(can="rows.view", text=not_a_string)
def rows_listed(ctx: Ctx) -> int:
    """A text that is no text."""
    return 1


def big_text(value: Any) -> str:
    return "tiny"


@command(can="rows.view", text=big_text)
def rows_big(ctx: Ctx) -> list[str]:
    """A short text over a big JSON."""
    return ["x" * 200] * 2_000


app = App("rows", "dev.rata.rows").commands(rows_list, rows_broken, rows_listed, rows_big).mcp(Mcp().allow_abilities(["rows.*"]))
'''


def rows_app() -> App:
    namespace: dict[str, Any] = {}
    exec(compile(APP, "rows_app.py", "exec"), namespace)
    return namespace["app"]


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_the_text_block_is_the_commands_rendering_and_structured_content_the_json(era):
    with AgentClient(rows_app(), era=era) as agent:
        result = agent.call("rows_list", {"count": 3})
    assert result.raw["content"] == [{"type": "text", "text": "0 | row 0\n1 | row 1\n2 | row 2"}]
    rows = [{"id": i, "name": f"row {i}"} for i in range(3)]
    assert result.raw["structuredContent"] == (rows if era == "modern" else {"result": rows})


def test_a_text_function_that_raises_fails_the_call_naming_the_tool_and_logs_its_traceback(caplog):
    with caplog.at_level(logging.ERROR, logger="rata.mcp"), AgentClient(rows_app()) as agent:
        result = agent.call("rows_broken")
    assert result.is_error and result.text == "rows_broken failed: its text= function raised ValueError: no table today"
    (record,) = [r for r in caplog.records if r.name == "rata.mcp"]
    assert record.getMessage() == "tool rows_broken: its text= function failed" and record.exc_info is not None


def test_a_text_function_that_returns_no_string_fails_the_call_saying_what_to_return():
    with AgentClient(rows_app()) as agent:
        result = agent.call("rows_listed")
    assert result.is_error
    assert result.text == "rows_listed failed: its text= function raised TypeError: it returned list, not str: return the text a model reads"


def test_the_result_limit_counts_the_json_of_structured_content_beside_a_short_text():
    app = rows_app()
    assert app.mcp_config is not None
    app.mcp_config.result_limit(10_000)  # 2,000 strings of 200 characters: about 137,000 tokens of JSON
    with AgentClient(app) as agent:
        result = agent.call("rows_big")
    assert result.is_error and result.text.startswith("rows_big returned about 13")


def test_text_and_present_together_are_refused_when_the_app_is_built():
    def shown(value: Any) -> dict[str, Any]:
        return {"content": []}

    @command(can="rows.view", text=str, present=shown)
    def rows_both(ctx: Ctx) -> int:
        """Both."""
        return 1

    with pytest.raises(CodegenError, match=r"command 'rows_both': text= must be a function value -> str, and present= replaces the whole result"):
        App("both", "dev.rata.both").commands(rows_both)


def test_a_text_that_is_not_callable_is_refused_when_the_app_is_built():
    @command(can="rows.view", text="a table")  # type: ignore[arg-type] - a text= that is not callable, on purpose
    def rows_named(ctx: Ctx) -> int:
        """Named."""
        return 1

    with pytest.raises(CodegenError, match=r"text= must be a function value -> str\.") as caught:
        App("named", "dev.rata.named").commands(rows_named)
    assert caught.value.hint == "Pass a function, e.g. text=render."


@pytest.mark.subprocess
@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_real_server_sends_the_commands_text_in_both_eras(era, rata_home, tmp_path):
    app_file = tmp_path / "rows_app.py"
    app_file.write_text(APP, encoding="utf-8")
    command_line = [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)]
    with AgentClient.spawn(command_line, env=subprocess_env(rata_home), stderr=subprocess.DEVNULL, era=era) as agent:
        result = agent.call("rows_list", {"count": 2})
        broken = agent.call("rows_broken")
    assert result.text == "0 | row 0\n1 | row 1"
    assert result.data == (
        [{"id": 0, "name": "row 0"}, {"id": 1, "name": "row 1"}] if era == "modern" else {"result": [{"id": 0, "name": "row 0"}, {"id": 1, "name": "row 1"}]}
    )
    assert broken.is_error and "its text= function raised ValueError" in broken.text


HIDDEN = "\x1b[2J\x07\u202eevil\u200b\U000e0041\u2028done"


@command(can="rows.view", read_only=True, text=lambda name: f"name: {name}")
def rows_named(ctx: Ctx, name: str) -> str:
    """Echo a name back."""
    return name


def test_a_text_functions_hidden_characters_never_reach_the_model_and_structured_content_keeps_the_value():
    app = App("rows", "dev.rata.rows").commands(rows_named).mcp(Mcp().allow_abilities(["rows.*"]))
    with AgentClient(app) as agent:
        result = agent.call("rows_named", {"name": HIDDEN})
    assert result.raw["content"] == [{"type": "text", "text": "name: [2Jevil\ndone"}]
    assert result.raw["structuredContent"] == HIDDEN


@given(st.text(max_size=200))
def test_whatever_a_text_function_returns_the_model_reads_it_cleaned(text):
    from rata.cleantext import clean_text

    app = App("rows", "dev.rata.rows").commands(rows_named).mcp(Mcp().allow_abilities(["rows.*"]))
    with AgentClient(app) as agent:
        result = agent.call("rows_named", {"name": text})
    assert result.raw["content"][0]["text"] == clean_text(f"name: {text}")
