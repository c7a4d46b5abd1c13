"""A tool result over the app's token limit (`Mcp.result_limit`) is refused whole: an error naming the tool, its size and the fix."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from rata import Mcp
from rata.errors import CodegenError
from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.mcp.sizes import sizes_app

SIZES = Path(__file__).with_name("sizes.py")
LIST_REFUSED = (
    "rows_list returned about 1,333,334 tokens (over the 25,000-token limit for one result); nothing was sent. "
    "Narrow it: limit (max 10000), search."
)
"""10,000 rows of 200 characters as JSON (2,000,000 bytes: 666,667 tokens), counted again as structuredContent."""
DUMP_REFUSED = (
    "rows_dump returned about 1,333,334 tokens (over the 25,000-token limit for one result); nothing was sent. "
    "It has no argument that narrows it; ask the user for a narrower request."
)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_2_mb_list_is_refused_whole_and_a_small_one_is_sent(era, caplog):
    agent = AgentClient(sizes_app(), era=era)
    with caplog.at_level(logging.WARNING, logger="rata.mcp"):
        refused = agent.call("rows_list", {})
    assert (refused.raw["content"], refused.raw["isError"]) == ([{"type": "text", "text": LIST_REFUSED}], True)
    assert [r.getMessage() for r in caplog.records if r.name == "rata.mcp"] == [
        "tool rows_list returned about 1333334 tokens, over the 25000-token limit for one result; sent an error instead"
    ]
    assert agent.call("rows_dump", {}).text == DUMP_REFUSED
    small = agent.call("rows_list", {"limit": 2})
    assert not small.is_error
    assert json.loads(small.text) == [f"0000{i} {'x' * 190}" for i in range(2)]


def test_the_limit_is_the_apps_setting_and_none_turns_it_off():
    app = sizes_app()
    assert app.mcp_config is not None
    app.mcp_config.result_limit(50)
    agent = AgentClient(app)
    assert agent.call("rows_list", {"limit": 1}).text.startswith("rows_list returned about 134 tokens (over the 50-token limit for one result)")
    assert not agent.call("rows_count", {}).is_error
    app.mcp_config.result_limit(None)
    assert len(agent.call("rows_list", {}).data) == 10_000


def test_a_result_just_under_the_limit_is_sent():
    app = sizes_app()
    assert app.mcp_config is not None
    app.mcp_config.result_limit(134)  # one row: 200 characters of JSON, 67 tokens, twice
    assert not AgentClient(app).call("rows_list", {"limit": 1}).is_error
    app.mcp_config.result_limit(133)
    assert AgentClient(app).call("rows_list", {"limit": 1}).is_error


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "25000"])
def test_a_limit_that_is_not_a_positive_whole_number_is_refused(bad):
    with pytest.raises(CodegenError, match="must be a whole number of tokens of at least 1"):
        Mcp().result_limit(bad)


@pytest.mark.subprocess
@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_real_server_refuses_a_2_mb_list_in_both_eras_and_says_so_in_its_log(era, rata_home, tmp_path):
    app_file = tmp_path / "sizes_app.py"
    app_file.write_text(SIZES.read_text())
    command = [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)]
    with AgentClient.spawn(command, env=subprocess_env(rata_home), stderr=subprocess.DEVNULL, era=era) as agent:
        refused = agent.call("rows_list", {})
        assert (refused.raw["content"], refused.raw["isError"]) == ([{"type": "text", "text": LIST_REFUSED}], True)
        small = agent.call("rows_list", {"limit": 3, "search": "0000"})
        assert not small.is_error
        assert len(json.loads(small.text)) == 3
    logged = (rata_home / "logs" / "sizes.log").read_text()  # the app's log (`rata.logs`)
    assert "tool rows_list returned about 1333334 tokens, over the 25000-token limit for one result" in logged


def test_the_docs_example_counts_its_twenty_orders_twice():
    """docs/mcp.md, Result size: "20 orders of 981 characters are 654 tokens" (the text, and structuredContent again)."""
    from rata.tokens import estimate

    text = json.dumps([f"order {n}: 3 bolts, 2 nuts, shipped to Lisbon" for n in range(1000, 980, -1)], ensure_ascii=False)
    assert (len(text), 2 * estimate(text)) == (981, 654)
