"""The app's database: a unit of work owns each call's transaction, and every statement reports its tables."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from rata.db import Database, TableTracker, UnitOfWork
from rata.folder import AppFolder


@pytest.fixture
def folder(tmp_path: Path) -> AppFolder:
    return AppFolder(tmp_path / "data")


@pytest.fixture
def database(folder: AppFolder):
    db = Database(lambda: folder)
    conn = db.connection()
    conn.execute("CREATE TABLE entries (x INTEGER)")
    conn.execute("CREATE TABLE notes (x INTEGER)")
    conn.execute("CREATE TABLE rata_marks (x INTEGER)")
    yield db
    db.close()


def rows(folder: AppFolder, table: str) -> list[int]:
    """What another connection sees: only committed rows."""
    other = sqlite3.connect(folder.database_file)
    try:
        return [x for (x,) in other.execute(f"SELECT x FROM {table} ORDER BY x")]
    finally:
        other.close()


def test_a_unit_of_work_commits_when_its_block_ends(database, folder):
    with UnitOfWork(database) as work:
        work.connection.execute("INSERT INTO entries VALUES (1)")
        assert rows(folder, "entries") == []
    assert rows(folder, "entries") == [1]
    assert work.changed == {"entries"}


def test_a_unit_of_work_rolls_back_when_its_block_raises(database, folder):
    with pytest.raises(ValueError), UnitOfWork(database) as work:
        work.connection.execute("INSERT INTO entries VALUES (1)")
        raise ValueError("no")
    assert rows(folder, "entries") == []
    assert work.changed == frozenset()
    assert not database.connection().in_transaction


def test_a_commit_that_fails_is_rolled_back_and_the_next_unit_starts_clean(database, folder):
    conn = database.connection()
    conn.execute("CREATE TABLE parents (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE children (x INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)")
    with pytest.raises(sqlite3.IntegrityError), UnitOfWork(database) as work:
        work.connection.execute("INSERT INTO children VALUES (7)")  # checked only at the commit
    assert work.changed == frozenset()
    assert not conn.in_transaction
    with UnitOfWork(database) as work:
        work.connection.execute("INSERT INTO entries VALUES (1)")
    assert rows(folder, "children") == [] and rows(folder, "entries") == [1]


def test_the_tracker_hears_the_tables_read_and_written_but_not_rata_s_own(database):
    with UnitOfWork(database) as work:
        work.connection.execute("SELECT count(*) FROM notes").fetchone()
        work.connection.execute("INSERT INTO entries SELECT x FROM notes")
        work.connection.execute("INSERT INTO rata_marks VALUES (1)")
    assert work.tables.reads == {"notes"}
    assert work.tables.writes == {"entries"}
    assert work.changed == {"entries"}


def test_a_statement_run_again_from_the_cache_is_heard_every_time(database):
    for _ in range(3):
        with UnitOfWork(database) as work:
            work.connection.execute("INSERT INTO entries VALUES (?)", (1,))
        assert work.changed == {"entries"}


def test_a_unit_that_never_asks_for_the_connection_opens_nothing(tmp_path):
    folder = AppFolder(tmp_path / "never")
    with UnitOfWork(Database(lambda: folder)) as work:
        pass
    assert not work.used and work.changed == frozenset()
    assert not (tmp_path / "never").exists()


def test_a_unit_opens_the_database_only_inside_its_with_block(database):
    work = UnitOfWork(database)
    with pytest.raises(RuntimeError, match="with app.unit_of_work"):
        work.connection  # noqa: B018 - the property opens the connection


def test_the_tracker_in_place_before_a_unit_hears_again_after_it(database):
    heard = TableTracker()
    database.track(heard)
    with UnitOfWork(database) as work:
        work.connection.execute("INSERT INTO entries VALUES (1)")
    database.connection().execute("SELECT count(*) FROM notes").fetchone()
    database.track(None)
    assert (heard.reads, heard.writes) == ({"notes"}, set())
    assert work.tables.writes == {"entries"}


def test_a_nested_unit_that_succeeds_leaves_its_writes_to_the_outer_commit(database, folder):
    with UnitOfWork(database) as outer:
        outer.connection.execute("INSERT INTO entries VALUES (1)")
        with UnitOfWork(database) as inner:
            inner.connection.execute("INSERT INTO notes VALUES (2)")
        assert inner.connection is outer.connection
        assert inner.changed == frozenset()
        assert rows(folder, "notes") == []  # not committed yet: the outer unit commits
    assert rows(folder, "entries") == [1] and rows(folder, "notes") == [2]
    assert outer.changed == {"entries", "notes"}
    assert inner.tables.writes == {"notes"}


def test_a_nested_unit_that_fails_undoes_only_its_own_writes(database, folder):
    with UnitOfWork(database) as outer:
        outer.connection.execute("INSERT INTO entries VALUES (1)")
        with pytest.raises(ValueError), UnitOfWork(database) as inner:
            inner.connection.execute("INSERT INTO notes VALUES (2)")
            raise ValueError("the inner call fails; the outer one carries on")
        outer.connection.execute("INSERT INTO entries VALUES (3)")
    assert rows(folder, "entries") == [1, 3] and rows(folder, "notes") == []
    assert outer.changed == {"entries"}


def test_a_nested_unit_s_writes_are_undone_when_the_outer_unit_fails(database, folder):
    with pytest.raises(ValueError), UnitOfWork(database) as outer:
        with UnitOfWork(database) as inner:  # the first to use the database: it begins the outer transaction
            inner.connection.execute("INSERT INTO notes VALUES (2)")
        assert outer.used
        raise ValueError("the outer call fails after the inner one succeeded")
    assert rows(folder, "notes") == []
    assert outer.changed == frozenset()


def test_units_on_two_threads_have_a_connection_each_and_do_not_nest(database, folder):
    seen: dict[str, sqlite3.Connection] = {}
    done = threading.Event()

    def other_thread() -> None:
        with UnitOfWork(database) as work:
            seen["other"] = work.connection
            work.connection.execute("INSERT INTO notes VALUES (2)")
        seen["other changed"] = work.changed  # type: ignore[assignment] - the dict holds a connection and, here, a set of names
        database.close()
        done.set()

    with UnitOfWork(database) as work:
        seen["main"] = work.connection
        work.connection.execute("SELECT count(*) FROM entries").fetchone()
        thread = threading.Thread(target=other_thread)
        thread.start()
        assert done.wait(10)
        thread.join()
    assert seen["main"] is not seen["other"]
    assert seen["other changed"] == {"notes"}  # committed on its own thread, not joined to this one
    assert rows(folder, "notes") == [2]


def test_the_connection_is_kept_per_thread_and_reopened_for_another_folder(tmp_path):
    folders = [AppFolder(tmp_path / "one")]
    db = Database(lambda: folders[0])
    first = db.connection()
    assert db.connection() is first
    assert first.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert first.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    folders[0] = AppFolder(tmp_path / "one")  # another object, the same file: the same connection
    assert db.connection() is first
    folders[0] = AppFolder(tmp_path / "two")
    second = db.connection()
    assert second is not first
    db.close()


def test_every_run_of_the_same_query_is_seen_reading_its_tables(crm_app):
    crm_app.migrate()
    for _ in range(2):
        tracker = TableTracker()
        crm_app.track_tables(tracker)
        try:
            crm_app.database().execute("SELECT count(*) FROM customers").fetchone()
        finally:
            crm_app.track_tables(None)
        assert tracker.reads == {"customers"}


def test_a_tracker_of_its_own_hears_every_remembered_report_of_a_kept_statement(crm_app):
    crm_app.migrate()
    heard: list[tuple] = []

    def tracker(*report):
        heard.append(report)
        return sqlite3.SQLITE_OK

    for _ in range(2):
        heard.clear()
        crm_app.track_tables(tracker)
        try:
            crm_app.database().execute("SELECT count(*) FROM customers").fetchone()
        finally:
            crm_app.track_tables(None)
        assert (sqlite3.SQLITE_READ, "customers") in {report[:2] for report in heard}


def test_a_statement_sqlite_prepares_anew_on_every_run_is_seen_reading_its_tables_every_time(database):
    # A LIKE with a bound pattern is prepared again on every run, so its reports come again: each unit still gets its tables.
    database.connection().execute("INSERT INTO notes VALUES (1)")
    for _ in range(3):
        with UnitOfWork(database) as work:
            work.connection.execute("SELECT * FROM notes WHERE CAST(x AS TEXT) LIKE ?", ("%1%",)).fetchall()
        assert work.tables.reads == {"notes"}


def test_a_known_statement_that_reads_another_table_after_a_schema_change_is_seen_reading_it(database):
    conn = database.connection()
    conn.execute("CREATE VIEW seen AS SELECT x FROM entries")
    sql = "SELECT * FROM seen WHERE CAST(x AS TEXT) LIKE ?"
    with UnitOfWork(database) as work:
        work.connection.execute(sql, ("%",)).fetchall()
    assert "entries" in work.tables.reads and "notes" not in work.tables.reads
    conn.execute("DROP VIEW seen")
    conn.execute("CREATE VIEW seen AS SELECT x FROM notes")
    with UnitOfWork(database) as work:
        work.connection.execute(sql, ("%",)).fetchall()
    assert "notes" in work.tables.reads
