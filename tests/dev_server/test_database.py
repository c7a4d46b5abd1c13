"""Reading a real SQLite file read-only: the connection, the schema, capped rows, the time limit."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from rata.dev_server import database
from rata.dev_server.database import QueryRefused, ReadOnlyConnection, connect_read_only, run_query, schema

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE customers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    notes TEXT,
    photo BLOB,
    created_at TEXT NOT NULL DEFAULT 'now'
);
CREATE UNIQUE INDEX customers_email ON customers (lower(email));
CREATE INDEX customers_name ON customers (name);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    total REAL
);
CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;
CREATE TRIGGER orders_positive BEFORE INSERT ON orders WHEN NEW.total < 0 BEGIN SELECT RAISE(ABORT, 'negative'); END;
"""


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A WAL database like an app's, closed again (so only the main file is left)."""
    path = tmp_path / "app.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(SCHEMA)
        conn.executemany(
            "INSERT INTO customers (name, email, notes) VALUES (?, ?, ?)",
            [(f"Customer {i}", f"c{i}@example.com", None) for i in range(1, 251)],
        )
        conn.execute("INSERT INTO orders (customer_id, total) VALUES (1, 250.0), (1, 12.5), (2, 99.0)")
        conn.commit()
    return path


@pytest.fixture
def conn(db: Path) -> Iterator[ReadOnlyConnection]:
    connection = connect_read_only(db)
    yield connection
    connection.close()


def test_a_select_returns_columns_and_rows(conn):
    result = run_query(conn, "SELECT id, name, email FROM customers ORDER BY id LIMIT 2")
    assert result.columns == ["id", "name", "email"]
    assert result.rows == [[1, "Customer 1", "c1@example.com"], [2, "Customer 2", "c2@example.com"]]
    assert result.row_count == 2 and result.more_rows is False
    assert result.elapsed_ms >= 0


def test_rows_are_capped_at_the_limit_and_the_answer_says_there_are_more(conn):
    result = run_query(conn, "SELECT id FROM customers ORDER BY id")
    assert result.row_count == database.DEFAULT_ROWS == 100
    assert result.rows[-1] == [100] and result.more_rows is True
    exact = run_query(conn, "SELECT id FROM customers ORDER BY id", limit=250)
    assert exact.row_count == 250 and exact.more_rows is False
    one = run_query(conn, "SELECT id FROM customers ORDER BY id", limit=1)
    assert one.rows == [[1]] and one.more_rows is True


def test_reading_statements_other_than_select_are_allowed(conn):
    assert run_query(conn, "WITH c AS (SELECT count(*) AS n FROM customers) SELECT n FROM c").rows == [[250]]
    assert run_query(conn, "EXPLAIN QUERY PLAN SELECT * FROM customers WHERE name = 'x'").row_count >= 1
    assert run_query(conn, "PRAGMA table_info(orders)").rows[1][1] == "customer_id"
    assert run_query(conn, "PRAGMA user_version").rows == [[0]]
    assert len(run_query(conn, "PRAGMA journal_mode").rows) == 1
    assert run_query(conn, "SELECT name FROM big_orders JOIN customers ON customers.id = customer_id").rows == [["Customer 1"]]
    assert run_query(conn, "SELECT count(*) FROM sqlite_schema WHERE type = 'index'").rows == [[2]]


def test_reading_pragmas_report_the_database_as_it_is(conn):
    # The database is in WAL mode; an agent asking must not be told otherwise (an immutable open reports "delete").
    assert run_query(conn, "PRAGMA journal_mode").rows == [["wal"]]


def test_a_connection_opened_while_the_app_is_stopped_sees_what_the_app_writes_next(db):
    # A query can run for up to the time limit; the app may start, write and close (checkpointing into the
    # main file) meanwhile. The reader must then see the new data (or fail clearly), never stale or mixed pages.
    query = "SELECT count(*), max(name = 'New') FROM customers"
    with closing(connect_read_only(db)) as reader:
        assert run_query(reader, query).rows == [[250, 0]]
        with closing(sqlite3.connect(db)) as app:
            app.execute("DELETE FROM customers WHERE id % 2 = 0")
            app.execute("INSERT INTO customers (name, email) VALUES ('New', 'new@example.com')")
            app.commit()
        assert not (db.parent / "app.db-wal").exists()  # the app closed: checkpointed into app.db
        assert run_query(reader, query).rows == [[126, 1]]


def test_long_text_and_blobs_are_shown_bounded(db):
    with closing(sqlite3.connect(db)) as writer:
        writer.execute("UPDATE customers SET notes = ?, photo = ? WHERE id = 1", ("n" * 5_000, b"\x89PNG" + bytes(996)))
        writer.commit()
    with closing(connect_read_only(db)) as conn:
        (row,) = run_query(conn, "SELECT notes, photo FROM customers WHERE id = 1").rows
    assert row[0] == "n" * database.CELL_CHARS + "... (5000 chars)"
    assert row[1] == "<1000 bytes>"


def test_an_offset_skips_that_many_rows_of_the_result_by_stepping_the_cursor(conn):
    assert run_query(conn, "SELECT id FROM customers ORDER BY id", limit=2, offset=10).rows == [[11], [12]]
    assert run_query(conn, "PRAGMA table_info(customers)", offset=1).rows[0][1] == "name"  # not only a SELECT
    past = run_query(conn, "SELECT id FROM customers", offset=1_000)
    assert (past.rows, past.skipped, past.more_rows) == ([], 250, False)


def test_a_query_past_its_time_limit_is_stopped_with_a_clear_message(conn):
    started = time.monotonic()
    with pytest.raises(QueryRefused) as refused:
        run_query(conn, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n", time_limit_ms=300)
    assert time.monotonic() - started < 3
    assert "ran longer than 300 ms and was stopped" in refused.value.message
    assert refused.value.hint and "LIMIT" in refused.value.hint
    assert run_query(conn, "SELECT count(*) FROM customers").rows == [[250]]  # the connection is still usable


def test_bad_sql_is_refused_with_sqlites_message_and_a_hint(conn):
    with pytest.raises(QueryRefused) as refused:
        run_query(conn, "SELECT nope FROM customers")
    assert "no such column: nope" in refused.value.message
    with pytest.raises(QueryRefused) as empty:
        run_query(conn, "   \n ")
    assert "empty" in empty.value.message


def test_opening_a_missing_database_fails_and_does_not_create_it(tmp_path):
    missing = tmp_path / "app.db"
    with pytest.raises(sqlite3.OperationalError):
        connect_read_only(missing)
    assert list(tmp_path.iterdir()) == []


def test_the_connection_sees_committed_writes_of_the_running_app_and_never_blocks_it(db):
    app = sqlite3.connect(db, isolation_level=None)  # the app, running: WAL, its -wal file full of frames
    try:
        app.execute("PRAGMA journal_mode = WAL")
        app.execute("PRAGMA wal_autocheckpoint = 0")
        app.execute("INSERT INTO customers (name, email) VALUES ('Committed', 'committed@example.com')")
        with closing(connect_read_only(db)) as reader:
            assert run_query(reader, "SELECT count(*) FROM customers").rows == [[251]]
            app.execute("BEGIN IMMEDIATE")
            app.execute("INSERT INTO customers (name, email) VALUES ('Pending', 'pending@example.com')")
            assert run_query(reader, "SELECT count(*) FROM customers WHERE name = 'Pending'").rows == [[0]]
            app.execute("COMMIT")
            assert run_query(reader, "SELECT count(*) FROM customers WHERE name = 'Pending'").rows == [[1]]
    finally:
        app.close()


@pytest.mark.parametrize("app_running", [False, True], ids=["app-stopped", "app-running"])
def test_each_layer_refuses_writes_on_its_own(db, app_running):
    app = sqlite3.connect(db) if app_running else None  # a running app keeps app.db-wal and app.db-shm in place
    if app is not None:
        app.execute("SELECT count(*) FROM customers").fetchone()
        assert (db.parent / "app.db-wal").exists()
    try:
        check_each_layer(db)
    finally:
        if app is not None:
            app.close()


def check_each_layer(db: Path) -> None:
    with closing(connect_read_only(db)) as wrapper:
        conn = wrapper.connection()  # the sqlite3 connection underneath, to take the layers off one by one
        conn.set_authorizer(None)  # without the authorizer: PRAGMA query_only still refuses
        assert conn.execute("PRAGMA query_only").fetchone() == (1,)
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("DELETE FROM customers")
        conn.execute("PRAGMA query_only = OFF")  # and without query_only, the mode=ro connection does
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("DELETE FROM customers")
    with closing(connect_read_only(db)) as conn:
        with pytest.raises(QueryRefused, match="read-only"):  # and the authorizer alone refuses at prepare time
            run_query(conn, "DELETE FROM customers")
        assert run_query(conn, "SELECT count(*) FROM customers").rows == [[250]]


def test_the_schema_lists_tables_with_columns_indexes_foreign_keys_and_row_counts(conn):
    found = schema(conn)
    tables = {t["name"]: t for t in found["tables"]}
    assert sorted(tables) == ["customers", "orders"]  # not sqlite_sequence
    customers = tables["customers"]
    assert customers["rows"] == 250
    assert customers["columns"][0] == {"name": "id", "type": "INTEGER", "nullable": True, "default": None, "primaryKey": True}
    assert customers["columns"][2] == {"name": "email", "type": "TEXT", "nullable": False, "default": None, "primaryKey": False}
    assert customers["columns"][5]["default"] == "'now'"
    assert sorted(customers["indexes"], key=lambda i: i["name"]) == [
        {"name": "customers_email", "unique": True, "columns": ["<expression>"]},
        {"name": "customers_name", "unique": False, "columns": ["name"]},
    ]
    assert tables["orders"]["foreignKeys"] == [{"column": "customer_id", "references": "customers.id", "onDelete": "CASCADE", "onUpdate": "NO ACTION"}]
    assert tables["orders"]["rows"] == 3
    assert [v["name"] for v in found["views"]] == ["big_orders"]
    assert found["triggers"] == [{"name": "orders_positive", "table": "orders", "sql": found["triggers"][0]["sql"]}]
    assert "RAISE(ABORT" in found["triggers"][0]["sql"]


def test_the_schema_summary_is_table_names_and_row_counts_only(conn):
    assert schema(conn, summary=True) == {"tables": [{"name": "customers", "rows": 250}, {"name": "orders", "rows": 3}], "views": [], "triggers": []}


def test_the_schema_filter_keeps_names_containing_the_text_and_their_views_and_triggers(conn):
    found = schema(conn, name_filter="ORDER")
    assert [t["name"] for t in found["tables"]] == ["orders"]
    assert [v["name"] for v in found["views"]] == ["big_orders"]
    assert [t["name"] for t in found["triggers"]] == ["orders_positive"]
    assert schema(conn, name_filter="invoices") == {"tables": [], "views": [], "triggers": []}


def test_reading_the_schema_and_querying_change_nothing_on_disk(db):
    # No -wal or -shm may appear beside a WAL database the app has closed.
    before = {p.name: p.read_bytes() for p in db.parent.iterdir()}
    with closing(connect_read_only(db)) as conn:
        schema(conn)
        run_query(conn, "SELECT * FROM customers")
    assert {p.name: p.read_bytes() for p in db.parent.iterdir()} == before


def test_while_the_app_runs_a_query_reads_its_shm_without_writing_a_byte_of_it(db):
    # A reader would write its read mark into app.db-shm; the -shm is opened read-only instead (readonly_shm).
    # The query runs in a process of its own, as database_query runs it: another process than the app's.
    app = sqlite3.connect(db, isolation_level=None)
    try:
        app.execute("PRAGMA wal_autocheckpoint = 0")
        shm = db.parent / "app.db-shm"
        for n in range(3):
            app.execute("INSERT INTO customers (name, email) VALUES (?, ?)", (f"Running {n}", f"running{n}@example.com"))
            before = (shm.read_bytes(), shm.stat().st_mtime_ns)
            result = database.run_query_isolated(db, "SELECT count(*) FROM customers WHERE name LIKE 'Running %'")
            assert result.rows == [[n + 1]]  # it sees what the app has just written
            assert (shm.read_bytes(), shm.stat().st_mtime_ns) == before
    finally:
        app.close()
