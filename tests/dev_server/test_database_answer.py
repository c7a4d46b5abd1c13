"""`database_query`'s answer on real SQLite files: within the token budget in both forms, cut at a row, and the next part named.

Following ``next_offset`` until there is none gives exactly the rows of the unbounded query, in
order, none twice. The text table keeps its shape (a header and one line a row, as many cells
as columns) whatever the cells hold. The real `rata mcp dev` process is in test_readonly.py.
"""

from __future__ import annotations

import re
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
from rata.dev_server.database_answer import cell_text, query_answer, query_text

WIDE = "SELECT a, b, c FROM wide ORDER BY id"
CELL = re.compile(r"(?:[^\\|]|\\.)*")  # a cell of the text table: anything but a bare | (an escape is a backslash and one character)


@pytest.fixture(scope="module")
def wide_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,000 rows of three 200-character columns (issue 17's worst case)."""
    path = tmp_path_factory.mktemp("wide") / "app.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE wide (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT)")
        conn.executemany("INSERT INTO wide VALUES (?, ?, ?, ?)", [(i, f"{i:04}" + "a" * 196, "b" * 200, "c" * 200) for i in range(1000)])
        conn.commit()
    return path


def sizes(answer: dict[str, Any]) -> tuple[int, int]:
    """The answer's tokens as text and as structured JSON."""
    return tokens.estimate(query_text(answer)), tokens.estimate(budget.compact_json(answer))


def unbounded(path: Path, sql: str) -> list[list[Any]]:
    with closing(database.connect_read_only(path)) as conn:
        return database.run_query(conn, sql, limit=database.MAX_ROWS, fetch_bytes=10**9).rows


def follow(path: Path, sql: str, limit: int, limit_tokens: int) -> list[dict[str, Any]]:
    """Every part of the answer, from offset 0, following next_offset until there is none."""
    parts, offset = [], 0
    while offset is not None:
        parts.append(query_answer(path, sql, limit, offset, limit_tokens, None))
        offset = parts[-1]["next_offset"]
        assert len(parts) < 200, "the continuation does not end"
    return parts


def cells(line: str) -> list[str]:
    """The cells of one line of the text table (split at each bare `` | ``)."""
    pieces = re.findall(r"((?:[^\\|]|\\.)*)(?:\||$)", line)[:-1]
    return [piece[1 if i else 0 : len(piece) - (1 if i < len(pieces) - 1 else 0)] for i, piece in enumerate(pieces)]


# --- the worst case of issue 17 ---------------------------------------------------------------------


def test_a_thousand_wide_rows_come_back_within_the_budget_in_both_forms_with_the_next_call(wide_db):
    answer = query_answer(wide_db, WIDE, 1000, 0, budget.DEFAULT_TOKENS, None)
    text_tokens, json_tokens = sizes(answer)
    assert max(text_tokens, json_tokens) <= budget.DEFAULT_TOKENS
    shown = answer["row_count"]
    assert 30 < shown < 1000 and answer["more_rows"] is True and answer["next_offset"] == shown
    assert f"Cut to fit the 10,000-token budget: this shows {shown} rows from offset 0; the rows after them did not fit." in answer["note"]
    assert f'Get them with database_query {{"sql": "{WIDE}", "limit": 1000, "offset": {shown}}}.' in answer["note"]
    assert "ORDER BY" not in answer["note"].replace(WIDE, "")  # the statement has one: the order is stable
    text = query_text(answer)
    assert text.splitlines()[0] == "a | b | c" and answer["note"] in text and f"more follow from offset {shown}" in text


def test_following_next_offset_gives_every_row_of_the_unbounded_query_once_in_order(wide_db):
    parts = follow(wide_db, WIDE, 1000, budget.DEFAULT_TOKENS)
    assert [row for part in parts for row in part["rows"]] == unbounded(wide_db, WIDE)
    assert all(max(sizes(part)) <= budget.DEFAULT_TOKENS for part in parts)
    assert parts[-1]["more_rows"] is False and parts[-1]["note"] == ""


def test_the_limit_still_caps_the_rows_and_the_next_call_keeps_it(wide_db):
    sql = "SELECT id FROM wide ORDER BY id"
    answer = query_answer(wide_db, sql, 7, 14, budget.DEFAULT_TOKENS, 2_000)
    assert answer["rows"] == [[i] for i in range(14, 21)] and answer["next_offset"] == 21
    assert (
        answer["note"]
        == "This shows 7 rows from offset 14 (limit 7); more follow. "
        f'Get them with database_query {{"sql": "{sql}", "limit": 7, "offset": 21, "budget_tokens": 2000}}.'
    )
    assert [row for part in follow(wide_db, sql, 300, 1_000) for row in part["rows"]] == [[i] for i in range(1000)]


def test_without_order_by_the_note_says_the_order_may_change_between_calls(wide_db):
    first = query_answer(wide_db, "SELECT id FROM wide", 10, 0, budget.DEFAULT_TOKENS, None)
    later = query_answer(wide_db, "SELECT id FROM wide", 10, 990, budget.DEFAULT_TOKENS, None)
    for answer in (first, later):
        assert "no ORDER BY, so SQLite may return its rows in another order on the next call" in answer["note"]
    assert later["next_offset"] is None


def test_an_offset_past_the_end_says_how_many_rows_there_are(wide_db):
    answer = query_answer(wide_db, "SELECT id FROM wide ORDER BY id", 10, 5_000, budget.DEFAULT_TOKENS, None)
    assert answer["rows"] == [] and answer["next_offset"] is None
    assert answer["note"] == "The result has only 1000 rows: offset 5000 is past its end."


def test_a_sql_too_long_to_repeat_is_named_the_same_sql_in_the_next_call(wide_db):
    sql = "SELECT id FROM wide ORDER BY id /*" + "x" * 3_000 + "*/"
    answer = query_answer(wide_db, sql, 5, 0, budget.MIN_TOKENS, None)
    assert 'database_query {"sql": "<the same sql>", "limit": 5, "offset": 5, "budget_tokens"' not in answer["note"]
    assert 'database_query {"sql": "<the same sql>", "limit": 5, "offset": 5}' in answer["note"]
    assert max(sizes(answer)) <= budget.MIN_TOKENS


def test_one_row_wider_than_the_whole_budget_is_shortened_inside_and_the_note_says_so(wide_db):
    columns = ", ".join(f"printf('%.*c', 900, 'x') || char(10) AS c{n}" for n in range(100))
    answer = query_answer(wide_db, f"SELECT {columns} FROM wide ORDER BY id", 3, 0, budget.MIN_TOKENS, None)
    assert answer["row_count"] == 1 and answer["next_offset"] == 1
    assert "Row 1 is wider than the whole budget: its long cells (and column names) are shortened to fit." in answer["note"]
    assert max(sizes(answer)) <= budget.MIN_TOKENS


def test_column_names_wider_than_the_whole_budget_are_shortened_even_with_no_row(wide_db):
    names = ", ".join(f"1 AS \"{n:03}{'n' * 190}\"" for n in range(100))
    answer = query_answer(wide_db, f"SELECT {names} FROM wide WHERE id < 0", 10, 0, budget.MIN_TOKENS, None)
    assert answer["rows"] == [] and len(answer["columns"]) == 100 and max(sizes(answer)) <= budget.MIN_TOKENS
    assert answer["note"] == "The column names are wider than the whole budget: they are shortened to fit."


# --- the text table -----------------------------------------------------------------------------------


def test_cells_that_would_break_the_table_are_escaped_and_null_is_told_from_text():
    assert [cell_text(v) for v in (None, "NULL", "", '""', "a | b", "two\nlines", "back\\slash", "\x00\u2028", 3, 1.5)] == [
        "NULL", "\\NULL", '""', '\\""', "a \\| b", "two\\nlines", "back\\\\slash", "\\x00\\u2028", "3", "1.5",
    ]  # fmt: skip


HOSTILE = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(alphabet=st.sampled_from(["|", "\\", "\n", "\r", "\t", " ", '"', "\x00", "\x1b", "\u2028", "\x85", "é", "漢", "😀", "a"]), max_size=40),
    st.sampled_from(["NULL", "\\NULL", "\"\"", ""]),
    st.text(max_size=20),
    st.builds(lambda c, n: c * n, st.sampled_from(["|", "\n", "\x01", "é", "a"]), st.integers(min_value=1_000, max_value=20_000)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(HOSTILE, HOSTILE), min_size=1, max_size=30),
    offset=st.integers(min_value=0, max_value=40),
    limit_tokens=st.sampled_from([1_000, 2_500, 10_000]),
)
def test_hostile_cells_and_offsets_never_break_the_tables_shape_or_the_budget(tmp_path, rows, offset, limit_tokens):
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "app.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, "a|b\nc" TEXT, "" TEXT)')
        conn.executemany("INSERT INTO t VALUES (NULL, ?, ?)", rows)
        conn.commit()
    answer = query_answer(path, 'SELECT "a|b\nc", "" FROM t ORDER BY id', 1000, offset, limit_tokens, None)
    assert max(sizes(answer)) <= limit_tokens
    lines = query_text(answer).splitlines()
    table = lines[: 1 + answer["row_count"]]
    assert all(len(cells(line)) == 2 and all(CELL.fullmatch(cell) for cell in cells(line)) for line in table)
    assert table[0] == 'a\\|b\\nc | ""'
    assert answer["next_offset"] in (None, offset + answer["row_count"])
    if answer["row_count"] and not answer["note"].startswith("Row"):
        assert table[1:] == [" | ".join(cell_text(v) for v in row) for row in answer["rows"]]
