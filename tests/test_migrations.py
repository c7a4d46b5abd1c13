"""Migrations, against a real SQLite file."""

import sqlite3

import pytest

from rata.errors import MigrationError
from rata.migrations import discover, migrate, status


@pytest.fixture
def db(tmp_path):
    conn = sqlite3.connect(tmp_path / "app.db")
    yield conn
    conn.close()


def write(folder, name, sql):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(sql)


def test_pending_migrations_apply_in_order_and_are_recorded_with_a_checksum(tmp_path, db):
    folder = tmp_path / "migrations"
    write(folder, "0002_add_notes.sql", "ALTER TABLE customers ADD COLUMN notes TEXT;")
    write(folder, "0001_create.sql", "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);\nCREATE INDEX n ON customers (name);")
    report = migrate(db, folder)
    assert [m.filename for m in report.applied] == ["0001_create.sql", "0002_add_notes.sql"]
    columns = [row[1] for row in db.execute("PRAGMA table_info(customers)")]
    assert columns == ["id", "name", "notes"]
    rows = db.execute("SELECT version, name, length(checksum) FROM rata_migrations ORDER BY version").fetchall()
    assert rows == [(1, "create", 64), (2, "add_notes", 64)]


def test_running_again_applies_nothing(tmp_path, db):
    folder = tmp_path / "migrations"
    write(folder, "0001_create.sql", "CREATE TABLE t (x INTEGER);")
    migrate(db, folder)
    assert migrate(db, folder).applied == []


def test_a_failing_migration_leaves_nothing_behind(tmp_path, db):
    folder = tmp_path / "migrations"
    write(folder, "0001_ok.sql", "CREATE TABLE a (x INTEGER);")
    write(folder, "0002_broken.sql", "CREATE TABLE b (x INTEGER);\nINSERT INTO nowhere VALUES (1);")
    with pytest.raises(MigrationError) as caught:
        migrate(db, folder)
    assert "0002_broken.sql" in caught.value.message and "no such table: nowhere" in caught.value.message
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "a" in tables and "b" not in tables
    assert [s.state for s in status(db, folder)] == ["applied", "pending"]


def test_a_changed_applied_migration_is_reported_not_rerun(tmp_path, db):
    folder = tmp_path / "migrations"
    write(folder, "0001_create.sql", "CREATE TABLE t (x INTEGER);")
    migrate(db, folder)
    write(folder, "0001_create.sql", "CREATE TABLE t (x INTEGER, y INTEGER);")
    report = migrate(db, folder)
    assert report.applied == []
    assert [(s.version, s.state) for s in report.changed] == [(1, "changed")]
    assert [row[1] for row in db.execute("PRAGMA table_info(t)")] == ["x"]


def test_line_endings_do_not_count_as_a_change(tmp_path, db):
    folder = tmp_path / "migrations"
    write(folder, "0001_create.sql", "CREATE TABLE t (x INTEGER);\n")
    migrate(db, folder)
    (folder / "0001_create.sql").write_bytes(b"CREATE TABLE t (x INTEGER);\r\n")
    assert [s.state for s in status(db, folder)] == ["applied"]


def test_an_applied_migration_whose_file_is_gone_is_missing(tmp_path, db):
    folder = tmp_path / "migrations"
    write(folder, "0001_create.sql", "CREATE TABLE t (x INTEGER);")
    migrate(db, folder)
    (folder / "0001_create.sql").unlink()
    assert [(s.version, s.state) for s in status(db, folder)] == [(1, "missing")]


def test_semicolons_inside_strings_and_triggers_are_handled(tmp_path, db):
    folder = tmp_path / "migrations"
    write(
        folder,
        "0001_all.sql",
        "CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('a;b');\n"
        "CREATE TABLE log (x TEXT);\n"
        "CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END;\n"
        "-- a trailing comment",
    )
    migrate(db, folder)
    db.execute("INSERT INTO t VALUES ('c')")
    assert db.execute("SELECT x FROM t ORDER BY x").fetchall() == [("a;b",), ("c",)]
    assert db.execute("SELECT x FROM log").fetchall() == [("c",)]


@pytest.mark.parametrize("name", ["create.sql", "01-create.sql", "0001_create table.sql"])
def test_a_badly_named_file_is_refused_with_the_naming_rule(tmp_path, name):
    write(tmp_path / "m", name, "SELECT 1;")
    with pytest.raises(MigrationError) as caught:
        discover(tmp_path / "m")
    assert "NUMBER_name.sql" in caught.value.message


def test_two_files_with_one_number_are_refused(tmp_path):
    write(tmp_path / "m", "0001_a.sql", "SELECT 1;")
    write(tmp_path / "m", "1_b.sql", "SELECT 1;")
    with pytest.raises(MigrationError) as caught:
        discover(tmp_path / "m")
    assert "share the number 1" in caught.value.message


def test_no_migrations_folder_means_nothing_to_do(tmp_path, db):
    assert migrate(db, tmp_path / "none").applied == []


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are POSIX")
def test_a_migration_file_that_is_a_fifo_is_refused_at_once_naming_it(tmp_path):
    import os
    import threading

    (tmp_path / "0001_create.sql").write_text("CREATE TABLE t (id INTEGER);", encoding="utf-8")
    os.mkfifo(tmp_path / "0002_pipe.sql")
    caught: list[MigrationError] = []

    def look() -> None:
        try:
            discover(tmp_path)
        except MigrationError as error:
            caught.append(error)

    thread = threading.Thread(target=look, daemon=True)
    thread.start()
    thread.join(5)
    assert caught, "discover blocked on the FIFO"
    assert caught[0].message == "The migration file '0002_pipe.sql' is a FIFO, not a regular file."
