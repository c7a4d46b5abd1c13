"""The dev tools' token budget: records taken while both forms fit, a record shortened only when it alone is too big,
a note naming the exact next call, and the server-wide setting checked at start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rata import tokens
from rata.dev_server import budget
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.dev_server.helpers import write_app

records = st.lists(st.tuples(st.text(max_size=300), st.dictionaries(st.text(max_size=20), st.text(max_size=200), max_size=5)), max_size=60)


@settings(max_examples=200, deadline=None)
@given(records, st.integers(min_value=budget.RESERVE + 10, max_value=5_000))
def test_what_fit_takes_stays_within_the_budget_in_both_forms(found, limit):
    fit = budget.Fit(limit)
    taken = budget.take(found, fit, text=lambda record: record[0], value=lambda record: record[1])
    assert 0 <= taken <= len(found)
    text = "\n".join(record[0] for record in found[:taken])
    values = [record[1] for record in found[:taken]]
    assert tokens.estimate(text) <= limit - budget.RESERVE
    assert tokens.estimate(budget.compact_json(values)) <= limit - budget.RESERVE
    if taken < len(found):  # it stopped because the next record did not fit, not before
        assert not fit.fits(found[taken][0], found[taken][1])


def test_fit_counts_the_answers_fixed_parts_and_takes_nothing_once_one_record_does_not_fit():
    fit = budget.Fit(1_000, text="x" * 2_000, value={"note": "y" * 100})  # 667 tokens of fixed text
    assert fit.room() == 1_000 - budget.RESERVE - 667  # the larger form: the text
    assert fit.add("a" * 60, "b") and fit.taken == 1
    assert not fit.add("a" * 3_000, "b") and fit.taken == 1  # too big: nothing counted
    assert fit.add("a" * 3, "b") and fit.taken == 2  # a smaller one after it still fits (take() stops at the first miss)


@given(st.text(max_size=5_000), st.integers(min_value=0, max_value=3_000))
def test_shorten_keeps_the_start_and_the_end_and_says_how_much_it_left_out(text, chars):
    short = budget.shorten(text, chars)
    if len(text) <= chars:
        assert short == text
    else:
        assert len(short) <= max(chars, 42) + 60
        assert "characters left out" in short
        assert short.startswith(text[: max(chars - 40, 2) * 2 // 3])


@given(st.dictionaries(st.text(max_size=30), st.one_of(st.none(), st.integers(), st.text(max_size=50)), max_size=6))
def test_the_next_call_is_the_tool_and_its_arguments_as_json_leaving_out_the_defaults(arguments):
    call = budget.next_call("read_log_entries", arguments)
    name, _, given_json = call.partition(" ")
    assert name == "read_log_entries"
    assert json.loads(given_json) == {key: value for key, value in arguments.items() if value is not None}


def test_the_cut_note_names_what_it_shows_what_is_left_and_the_exact_call():
    note = budget.cut_note("the newest 412 entries", "older entries", 10_000, "read_log_entries", {"before": "c1", "limit": 500, "level": None})
    assert note == (
        "Cut to fit the 10,000-token budget: this shows the newest 412 entries; older entries did not fit. "
        'Get them with read_log_entries {"before": "c1", "limit": 500}.'
    )


@pytest.mark.parametrize("bad", [0, 999, 25_001, -1, True, 2.5, "10000"])
def test_a_server_budget_outside_the_bounds_is_refused_naming_them(bad, tmp_path):
    with pytest.raises(budget.BudgetError, match=r"outside 1,000 to 25,000"):
        dev_app(Target(None, tmp_path), bad)


def test_a_call_without_a_budget_gets_the_servers_and_one_with_a_budget_its_own(tmp_path):
    app = dev_app(Target(None, tmp_path), 4_000)
    assert budget.budget_of(type("Ctx", (), {"app": app})(), None) == 4_000
    assert budget.budget_of(type("Ctx", (), {"app": app})(), 20_000) == 20_000


def many_commands_app(path: Path, count: int) -> None:
    """An app of `count` commands with long docstrings: far more than one answer holds."""
    extra = "\n".join(
        f'@command(can="notes.view", read_only=True)\ndef notes_{i:04d}(ctx: Ctx, query: str = "", limit: int = 50) -> list[str]:\n'
        f'    """{"Look through the notes for what matches, newest first; " * 6}number {i}."""\n    return []\n'
        for i in range(count)
    )
    write_app(path, name="many", extra=extra, commands=", ".join(["notes_count", *(f"notes_{i:04d}" for i in range(count))]))


def test_list_commands_at_its_worst_fits_the_budget_and_its_next_parts_give_every_command_once(tmp_path):
    app_file = tmp_path / "many.py"
    many_commands_app(app_file, 2_000)
    with AgentClient(dev_app(Target(str(app_file), tmp_path))) as agent:
        seen: list[str] = []
        arguments: dict[str, object] = {}
        parts = 0
        while True:
            result = agent.call("list_commands", arguments)
            assert not result.is_error, result.text
            answer = result.raw["structuredContent"]
            assert tokens.estimate(result.text) <= budget.DEFAULT_TOKENS
            assert tokens.estimate(budget.compact_json(answer)) <= budget.DEFAULT_TOKENS
            assert "{" not in result.text.replace(answer["note"], "")  # no JSON but the next call's arguments
            seen += [command["name"] for command in answer["commands"]]
            parts += 1
            if answer["next_after"] is None:
                assert answer["note"] == ""
                break
            assert answer["note"].endswith(f'Get them with list_commands {{"after": "{answer["next_after"]}"}}.')
            assert answer["note"] in result.text
            arguments = {"after": answer["next_after"]}
    assert seen == sorted(["notes_count", *(f"notes_{i:04d}" for i in range(2_000))])  # each once, in order
    assert parts > 20


def test_a_smaller_budget_asked_by_the_call_gives_smaller_parts_and_the_note_repeats_it(tmp_path):
    app_file = tmp_path / "many.py"
    many_commands_app(app_file, 200)
    with AgentClient(dev_app(Target(str(app_file), tmp_path))) as agent:
        small = agent.call("list_commands", {"budget_tokens": 1_000})
        big = agent.call("list_commands", {"budget_tokens": 25_000})
    assert tokens.estimate(budget.compact_json(small.raw["structuredContent"])) <= 1_000
    assert len(small.data["commands"]) < len(big.data["commands"])
    assert '"budget_tokens": 1000' in small.data["note"]


def test_list_commands_after_the_last_name_says_nothing_sorts_after_it(tmp_path):
    app_file = tmp_path / "few.py"
    write_app(app_file, name="few")
    with AgentClient(dev_app(Target(str(app_file), tmp_path))) as agent:
        answer = agent.call("list_commands", {"after": "zzz"}).data
    assert answer == {"commands": [], "total": 1, "next_after": None, "note": "No command sorts after 'zzz'."}


@pytest.mark.subprocess
def test_rata_mcp_dev_takes_its_budget_from_the_command_line_and_refuses_one_out_of_bounds(tmp_path, rata_home):
    app_file = tmp_path / "many.py"
    many_commands_app(app_file, 300)
    command = [sys.executable, "-m", "rata", "mcp", "dev", "--app", str(app_file)]
    with AgentClient.spawn([*command, "--budget-tokens", "2000"], env=subprocess_env(rata_home), stderr=subprocess.DEVNULL) as agent:
        answer = agent.call("list_commands").raw["structuredContent"]
    assert tokens.estimate(budget.compact_json(answer)) <= 2_000 and answer["next_after"] is not None
    assert "2,000-token budget" in answer["note"] and "budget_tokens" not in answer["note"]  # the server's budget: not an argument
    refused = subprocess.run([*command, "--budget-tokens", "100"], env=subprocess_env(rata_home), input="", capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "--budget-tokens 100 is outside 1,000 to 25,000." in refused.stderr and "Pick a number in that range" in refused.stderr


def test_every_budgeted_tool_describes_budget_tokens_in_the_same_words_but_search_docs_with_its_own_default(tmp_path):
    with AgentClient(dev_app(Target(None, tmp_path))) as agent:
        described = {
            tool["name"]: tool["inputSchema"]["properties"]["budget_tokens"]["description"]
            for tool in agent.list_tools()
            if "budget_tokens" in tool["inputSchema"].get("properties", {})
        }
    assert sorted(described) == [
        "app_calls", "database_query", "database_schema", "list_commands", "migration_status", "read_log_entries", "search_docs",
        "window_act", "window_snapshot",
    ]  # fmt: skip
    assert {name: text for name, text in described.items() if text != budget.BUDGET_DOC} == {
        "search_docs": described["search_docs"]
    } and "default 2,000, or the server's budget when that is smaller" in described["search_docs"]
