"""Hostile queries on a real SQLite file: every answer comes back in time, small, and says what was cut or why it stopped.

Each class of issue 12 (few but expensive steps, huge values, wide and long results, one
SQLite step that never looks at the clock) runs through `run_query` on a read-only
connection, and through `run_query_isolated`, the process of its own that `database_query`
uses. The tests through the real `rata mcp dev` process are in test_readonly.py.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rata.dev_server import database
from rata.dev_server.database import QueryRefused, connect_read_only, run_query, run_query_isolated

ROWS = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < {n}) "
NEAR_CAP = "printf('%.*c', 999000, 'a')"  # a text just under the length limit
GRACE_S = database.GRACE_MS / 1000


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "app.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript("PRAGMA journal_mode = WAL; CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, photo BLOB);")
        conn.executemany("INSERT INTO notes (body) VALUES (?)", [(f"note {i}",) for i in range(1, 51)])
        conn.commit()
    return path


@pytest.fixture
def conn(db: Path) -> Iterator[database.ReadOnlyConnection]:
    with closing(connect_read_only(db)) as connection:
        yield connection


def fetched_bytes(result: database.QueryResult) -> int:
    """The rows as compact JSON, all but the last (the fetch stops at the row that takes it past `FETCH_BYTES`)."""
    return len(json.dumps(result.rows[:-1], ensure_ascii=False, separators=(",", ":")).encode())


# --- values -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        "length(randomblob(50000000))",
        "length(zeroblob(50000000))",
        "length(replace(hex(zeroblob(400000)), '0', 'abc'))",
        "length(substr(zeroblob(2000000), 1, 10))",
        "length(hex(randomblob(600000)))",
    ],
    ids=["randomblob", "zeroblob", "replace", "substr-of-big", "hex"],
)
def test_a_value_past_the_length_limit_stops_the_query_at_once_and_names_the_limit(conn, expression):
    started = time.monotonic()
    with pytest.raises(QueryRefused) as refused:
        run_query(conn, ROWS.format(n=40) + f"SELECT {expression} FROM r")
    assert time.monotonic() - started < 0.5
    assert "longer than the limit of 1,000,000 bytes" in refused.value.message
    assert refused.value.hint and "length(x)" in refused.value.hint


def test_printf_past_the_limit_gives_null_at_once(conn):
    started = time.monotonic()
    assert run_query(conn, ROWS.format(n=40) + "SELECT printf('%.*c', 50000000, 'x') FROM r").rows[0] == [None]
    assert time.monotonic() - started < 0.5


def test_a_group_concat_that_grows_past_the_limit_is_stopped(conn):
    with pytest.raises(QueryRefused, match="1,000,000 bytes"):
        run_query(conn, ROWS.format(n=100_000) + "SELECT length(group_concat(hex(randomblob(50)))) FROM r")


def test_values_under_the_limit_are_fetched_one_row_at_a_time_and_cut_as_they_come(conn):
    result = run_query(conn, ROWS.format(n=1000) + f"SELECT i, {NEAR_CAP} AS big, zeroblob(999000) AS blob FROM r", limit=1000)
    assert result.rows[0] == [1, "a" * database.CELL_CHARS + "... (999000 chars)", "<999000 bytes>"]
    assert fetched_bytes(result) <= database.FETCH_BYTES
    assert result.more_rows is True and result.row_count < 1000


def test_text_that_is_not_utf8_is_shown_not_an_error(db):
    with closing(sqlite3.connect(db)) as writer:
        writer.execute("UPDATE notes SET body = CAST(x'41ff42' AS TEXT) WHERE id = 1")
        writer.commit()
    with closing(connect_read_only(db)) as conn:
        assert run_query(conn, "SELECT body FROM notes WHERE id = 1").rows == [["A\ufffdB"]]


# --- the answer's size ------------------------------------------------------------------------------


def test_a_thousand_columns_show_the_first_hundred_and_say_so(conn):
    columns = ", ".join(f"hex(zeroblob(100)) AS c{n}" for n in range(1000))
    result = run_query(conn, ROWS.format(n=1000) + f"SELECT {columns} FROM r", limit=1000)
    assert result.columns == [f"c{n}" for n in range(database.MAX_COLUMNS)]
    assert all(len(row) == database.MAX_COLUMNS for row in result.rows)
    assert result.columns_total == 1000
    assert fetched_bytes(result) <= database.FETCH_BYTES
    assert result.more_rows is True


def test_a_long_column_name_is_cut_like_a_cell(conn):
    name = "n" * 5_000
    result = run_query(conn, f'SELECT 1 AS "{name}"')
    assert result.columns == ["n" * database.CELL_CHARS + "... (5000 chars)"]


def test_rows_past_the_limit_are_not_fetched_and_the_result_says_more_follow(conn):
    result = run_query(conn, "SELECT id FROM notes", limit=10)
    assert result.row_count == 10 and result.more_rows is True


# --- the statement's size ---------------------------------------------------------------------------


def test_sql_longer_than_the_limit_is_refused_before_it_runs(conn):
    with pytest.raises(QueryRefused) as refused:
        run_query(conn, "SELECT 1 /*" + " " * database.SQL_BYTES + "*/")
    assert "the limit is 100,000" in refused.value.message


def test_deeply_nested_expressions_are_refused_by_sqlite_with_a_hint(conn):
    with pytest.raises(QueryRefused) as refused:
        run_query(conn, "SELECT " + "abs(" * 200 + "1" + ")" * 200)
    assert "parser stack overflow" in refused.value.message and "fewer terms" in (refused.value.hint or "")


def test_sql_with_a_lone_surrogate_is_refused_not_a_crash(conn):
    with pytest.raises(QueryRefused, match="not valid Unicode"):
        run_query(conn, "SELECT '\udfff'")


# --- in a process of its own ------------------------------------------------------------------------


def test_one_step_that_never_looks_at_the_clock_is_killed_just_past_the_limit(db):
    # instr() on two values near the length limit is one SQLite step of seconds; ten of them ran 73 s in process.
    sql = f"WITH v(a, b) AS (SELECT {NEAR_CAP}, substr({NEAR_CAP}, 1, 499000) || 'b') SELECT " + ", ".join("instr(a, b)" for _ in range(10)) + " FROM v"
    started = time.monotonic()
    with pytest.raises(QueryRefused) as refused:
        run_query_isolated(db, sql, time_limit_ms=500)
    assert time.monotonic() - started < 0.5 + GRACE_S + 1.0
    assert "ran longer than 500 ms and was stopped" in refused.value.message


HEAP_PROBE = """
import resource, sys
from rata.dev_server.database import QueryRefused, run_query_isolated
sql = "SELECT " + ", ".join(f"randomblob(999999) AS c{n}" for n in range(300))
try:
    run_query_isolated(sys.argv[1], sql)
except QueryRefused as refused:
    print(refused.message)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def test_a_query_holding_many_big_values_at_once_hits_the_heap_cap_in_its_own_process(db):
    pytest.importorskip("resource")  # where there is one (not on Windows)
    # Run from a fresh interpreter, so that its children's peak RSS is the query process's alone
    # (this test process has had other children: Chromium, servers).
    probe = subprocess.run([sys.executable, "-c", HEAP_PROBE, str(db)], capture_output=True, text=True, timeout=60, check=True)
    *message, peak_kib = probe.stdout.strip().splitlines()
    assert "memory cap of 64 MiB" in "\n".join(message)
    assert int(peak_kib) < 300 * 1024  # the query process never grew past 300 MB


def test_the_isolated_query_answers_like_the_one_in_process(db, conn):
    sql = "SELECT id, body FROM notes ORDER BY id"
    isolated, direct = run_query_isolated(db, sql, limit=5, offset=7), run_query(conn, sql, limit=5, offset=7)
    assert (isolated.columns, isolated.rows, isolated.more_rows, isolated.skipped) == (direct.columns, direct.rows, direct.more_rows, direct.skipped)
    assert isolated.rows[0] == [8, "note 8"]
    with pytest.raises(QueryRefused, match="read-only"):
        run_query_isolated(db, "DELETE FROM notes")


def test_a_wal_without_its_shm_is_refused_and_nothing_is_created(db):
    (db.parent / "app.db-wal").write_bytes(b"")
    before = sorted(p.name for p in db.parent.iterdir())
    with pytest.raises(QueryRefused) as refused:
        run_query_isolated(db, "SELECT 1")
    assert "app.db-wal is there but app.db-shm is not" in refused.value.message
    assert sorted(p.name for p in db.parent.iterdir()) == before


# --- generated: expressions that build large values --------------------------------------------------

LEAVES = st.sampled_from(["'x'", "x'00'", "i", "hex(i)", "'abc'"])
SIZES = st.sampled_from([10, 1_000, 100_000, 999_999, 1_000_001, 50_000_000])


def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda e, n: f"printf('%.*c', {n}, {e})", inner, SIZES),
        st.builds(lambda n: f"zeroblob({n})", SIZES),
        st.builds(lambda n: f"randomblob({n})", SIZES),
        st.builds(lambda e, n: f"hex({e})", inner, SIZES),
        st.builds(lambda a, b: f"replace({a}, {b}, {a})", inner, inner),
        st.builds(lambda a, b: f"({a} || {b})", inner, inner),
        st.builds(lambda a, b: f"instr({a}, {b})", inner, inner),
        st.builds(lambda e: f"upper({e})", inner),
        st.builds(lambda e, n: f"substr({e}, 1, {n})", inner, SIZES),
    )


EXPRESSIONS = st.recursive(LEAVES, grow, max_leaves=6)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    expressions=st.lists(EXPRESSIONS, min_size=1, max_size=4),
    rows=st.sampled_from([1, 40, 1_000, 1_000_000]),
    group=st.booleans(),
)
def test_every_generated_query_answers_in_time_and_small_or_says_why_it_stopped(db, expressions, rows, group):
    columns = ", ".join(f"group_concat({e})" if group else e for e in expressions)
    sql = ROWS.format(n=rows) + f"SELECT {columns} FROM r"
    started = time.monotonic()
    try:
        result = run_query_isolated(db, sql, limit=1000, time_limit_ms=200)
    except QueryRefused as refused:
        assert refused.message and refused.hint
    else:
        assert fetched_bytes(result) <= database.FETCH_BYTES
        assert len(result.columns) <= database.MAX_COLUMNS
    assert time.monotonic() - started < 0.2 + GRACE_S + 1.0


def test_the_documented_bounds_are_the_code():
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "mcp-dev.md").read_text(encoding="utf-8").split())
    assert (database.MAX_COLUMNS, database.VALUE_BYTES, database.SQL_BYTES) == (100, 1_000_000, 100_000)
    assert (database.HEAP_BYTES, database.WORKER_MEMORY_BYTES, database.GRACE_MS) == (64 << 20, 1 << 30, 1_000)
    limits = database.LIMITS
    assert (limits[sqlite3.SQLITE_LIMIT_EXPR_DEPTH], limits[sqlite3.SQLITE_LIMIT_FUNCTION_ARG], limits[sqlite3.SQLITE_LIMIT_COMPOUND_SELECT]) == (100, 100, 100)
    assert (limits[sqlite3.SQLITE_LIMIT_VDBE_OP], limits[sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH]) == (100_000, 1_000)
    for claim in (
        "| Columns shown by `database_query` | 100 |",
        "| A `database_query` answer | The call's token budget (`budget_tokens`), in both forms",
        "| Any one string or blob in a query, stored or computed | 1,000,000 bytes (`SQLITE_LIMIT_LENGTH`) |",
        "| The SQL of a query | 100,000 bytes; expressions 100 deep, 100 function arguments, 100 compound terms, 100,000 compiled steps |",
        "| A query's memory | SQLite's heap 64 MiB, address space 1 GiB",
        "its process is killed 1 second later",
        "1,000 characters in a `LIKE` or `GLOB` pattern",
    ):
        assert claim in page, claim


def test_parallel_queries_run_at_most_two_processes_at_a_time_and_each_call_still_ends(db):
    import threading

    sql = f"WITH v(a, b) AS (SELECT {NEAR_CAP}, substr({NEAR_CAP}, 1, 499000) || 'b') SELECT instr(a, b), instr(a, b), instr(a, b) FROM v"
    outcomes: list[tuple[float, str]] = []

    def call() -> None:
        started = time.monotonic()
        try:
            run_query_isolated(db, sql, time_limit_ms=300)
            outcomes.append((time.monotonic() - started, "answered"))
        except QueryRefused as refused:
            outcomes.append((time.monotonic() - started, refused.message))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=15)
    assert len(outcomes) == 4
    # two at a time: the last two waited for a slot, then ran; none waited or ran longer than its bounds
    assert all(seconds < 2 * (0.3 + GRACE_S) + 1.5 for seconds, _ in outcomes), outcomes
    assert all("longer than 300 ms" in said or "already running" in said for _, said in outcomes), outcomes
    assert database._WORKER_SLOTS._value == database.WORKERS  # every slot given back
