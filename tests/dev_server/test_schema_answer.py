"""`database_schema`'s answer on real SQLite files: within the token budget in both forms, cut between two objects, the next part named.

Following ``next_after`` until there is none gives exactly what the unbounded schema holds, in
order, nothing twice; the text keeps one block an object whatever the names hold.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rata import tokens
from rata.dev_server import budget, database
from rata.dev_server.schema_answer import one_line, schema_answer, schema_text
from rata.testing import AgentClient
from tests.dev_server.helpers import copy_crm, dev_command, dev_env

TABLES, COLUMNS = 400, 60


@pytest.fixture(scope="module")
def wide_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Issue 17's worst case: 400 tables of 60 columns, each with two indexes and a foreign key; a view and a trigger."""
    path = tmp_path_factory.mktemp("wide-schema") / "app.db"
    statements = ["PRAGMA synchronous = OFF", "BEGIN"]
    for t in range(TABLES):
        columns = ", ".join(f"column_{k:02} TEXT NOT NULL DEFAULT 'value {k}'" for k in range(COLUMNS - 2))
        statements.append(
            f"CREATE TABLE table_{t:03} (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES table_{max(t - 1, 0):03}(id) ON DELETE CASCADE, {columns})"
        )
        statements.append(f"CREATE INDEX table_{t:03}_pair ON table_{t:03} (column_01, column_02)")
        statements.append(f"CREATE UNIQUE INDEX table_{t:03}_one ON table_{t:03} (column_03)")
    statements.append("CREATE VIEW table_200_view AS SELECT id FROM table_200")
    statements.append("CREATE TRIGGER table_399 AFTER INSERT ON table_399 BEGIN SELECT 1; END")  # a trigger named like a table
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(";\n".join(statements) + ";\nCOMMIT;")
    return path


def sizes(answer: dict[str, Any]) -> tuple[int, int]:
    return tokens.estimate(schema_text(answer)), tokens.estimate(budget.compact_json(answer))


def follow(path: Path, limit_tokens: int, **arguments: Any) -> list[dict[str, Any]]:
    parts, after = [], ""
    while after is not None:
        parts.append(schema_answer(path, arguments.get("summary", False), arguments.get("filter", ""), after, limit_tokens, None))
        after = parts[-1]["next_after"]
        assert len(parts) < 500, "the continuation does not end"
    return parts


def unbounded(path: Path, **arguments: Any) -> dict[str, Any]:
    with closing(database.connect_read_only(path)) as conn:
        return database.schema(conn, **arguments)


def test_a_wide_schema_comes_back_within_the_budget_in_both_forms_with_the_next_call(wide_db):
    answer = schema_answer(wide_db, False, "", "", budget.DEFAULT_TOKENS, None)
    assert max(sizes(answer)) <= budget.DEFAULT_TOKENS
    shown = len(answer["tables"])
    assert shown >= 1 and answer["next_after"] == answer["tables"][-1]["name"] == f"table_{shown - 1:03}"
    assert f"Cut to fit the 10,000-token budget: this shows {shown} of 402 tables, views and triggers, up to 'table_{shown - 1:03}'" in answer["note"]
    assert f'Get them with database_schema {{"after": "table_{shown - 1:03}"}}.' in answer["note"]
    text = schema_text(answer)
    assert "table table_001: 0 rows\n  id INTEGER PK\n  parent_id INTEGER\n  column_00 TEXT NOT NULL = 'value 0'\n" in text
    assert "  index table_001_one UNIQUE (column_03)\n" in text and "  foreign key parent_id -> table_000.id ON DELETE CASCADE\n" in text
    assert "{" not in text.replace(answer["note"], "") and text.endswith(answer["note"])


@pytest.mark.parametrize("limit_tokens", [budget.DEFAULT_TOKENS, budget.MAX_TOKENS])
def test_following_next_after_gives_the_whole_schema_once_in_order(wide_db, limit_tokens):
    parts = follow(wide_db, limit_tokens)
    whole = unbounded(wide_db)
    for kind in ("tables", "views", "triggers"):
        assert [item for part in parts for item in part[kind]] == whole[kind], kind
    assert all(max(sizes(part)) <= limit_tokens for part in parts)
    assert parts[-1]["next_after"] is None and parts[-1]["note"] == ""


def test_summary_and_filter_hold_across_the_parts(wide_db):
    parts = follow(wide_db, budget.MIN_TOKENS, summary=True, filter="_2")
    assert [t for part in parts for t in part["tables"]] == unbounded(wide_db, summary=True, name_filter="_2")["tables"]
    assert len(parts) > 1 and '"summary": true, "filter": "_2", "after": ' in parts[0]["note"]


def test_an_after_past_every_name_says_so(wide_db):
    answer = schema_answer(wide_db, False, "", "zzz", budget.DEFAULT_TOKENS, None)
    assert answer["tables"] == [] and answer["next_after"] is None and answer["note"] == "No table, view or trigger sorts after 'zzz'."


def test_one_table_wider_than_the_whole_budget_is_shortened_and_the_note_says_where_the_rest_is(tmp_path):
    path = tmp_path / "app.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE huge (" + ", ".join(f"c{k} TEXT DEFAULT '{'d' * 150}'" for k in range(400)) + ")")  # under SQLite's 100,000-byte SQL
        conn.execute("CREATE TABLE small (id INTEGER PRIMARY KEY)")
    answer = schema_answer(path, False, "", "", budget.MIN_TOKENS, None)
    assert max(sizes(answer)) <= budget.MIN_TOKENS
    (huge,) = answer["tables"]
    assert 0 < len(huge["columns"]) < 400 and answer["next_after"] == "huge"
    assert (
        f"Table 'huge' is larger than the whole budget: {len(huge['columns'])} of 400 columns shown" in answer["note"] and "PRAGMA table_info" in answer["note"]
    )


def test_names_that_would_break_a_block_are_kept_to_one_line():
    assert one_line("a\nb\\c\x00\u2028") == "a\\nb\\\\c\\x00\\u2028"


NAMES = st.text(alphabet=st.sampled_from(["a", "b", "\n", "\r", "\t", "\\", "|", '"', "\x00", "\x1b", "\u2028", "é", "😀", " "]), min_size=1, max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(NAMES, min_size=1, max_size=12, unique_by=str.lower),
    after=st.one_of(st.just(""), NAMES, st.text(max_size=50)),
    limit_tokens=st.sampled_from([1_000, 3_000]),
)
def test_hostile_names_and_afters_never_break_a_block_or_the_budget(tmp_path, names, after, limit_tokens):
    names = [n for n in names if "\x00" not in n and not n.lower().startswith("sqlite_")]
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "app.db"
    with closing(sqlite3.connect(path)) as conn:
        for name in names:
            quoted = '"' + name.replace('"', '""') + '"'
            conn.execute(f"CREATE TABLE {quoted} ({quoted} TEXT DEFAULT {database._quote(name).replace(chr(34), chr(39))}, x INTEGER)")
    answer = schema_answer(path, False, "", after, limit_tokens, None)
    assert max(sizes(answer)) <= limit_tokens
    lines = schema_text(answer).splitlines()
    heads = [line for line in lines[1:] if not line.startswith("  ")]
    assert heads[: len(answer["tables"])] == [f"table {one_line(t['name'])}: 0 rows" for t in answer["tables"]]
    assert all(t["name"] > after for t in answer["tables"])
    expected = sorted(n for n in names if n > after) if after else sorted(names)
    got = [t["name"] for t in answer["tables"]]
    assert got == expected[: len(got)]


@pytest.mark.subprocess
def test_through_the_real_server_the_wide_schema_comes_in_parts_within_the_budget(wide_db, tmp_path):
    home, cache = tmp_path / "home", tmp_path / "cache"
    home.mkdir()
    shutil.copyfile(wide_db, home / "app.db")
    with AgentClient.spawn(dev_command(copy_crm(tmp_path / "project")), env=dev_env(home, cache)) as agent:
        first = agent.call("database_schema", {"budget_tokens": 25_000})
        rest = agent.call("database_schema", {"after": "table_397", "budget_tokens": 25_000})
        refused = agent.call("database_schema", {"after": 3})
    assert not first.is_error and not rest.is_error, first.text + rest.text
    assert max(tokens.estimate(first.text), tokens.estimate(budget.compact_json(first.data))) <= budget.MAX_TOKENS
    assert first.text.startswith("Schema of ") and first.data["note"] in first.text and first.data["next_after"] in first.data["note"]
    assert [t["name"] for t in rest.data["tables"]] == ["table_398", "table_399"] and [t["name"] for t in rest.data["triggers"]] == ["table_399"]
    assert rest.data["next_after"] is None and "trigger table_399 on table_399\n  CREATE TRIGGER" in rest.text
    assert refused.is_error and "after" in refused.text
