"""`rata.upgrade`: the app's database brought up to date as the app starts, on a real SQLite file, with real processes."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import example, given, reject
from hypothesis import strategies as st

from rata import App, Ctx, Mcp, command
from rata.errors import DatabaseNewerError, MigrationError, MigrationFailedError
from rata.mcp.wire import McpError
from rata.testing import AgentClient
from rata.upgrade import BACKUPS_KEPT, LOCK_FILE, backup_name, hold_lock, on_start, upgrade
from tests.conftest import ROOT, subprocess_env

CREATE = "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"


@command(can="notes.read", live=True)
def notes_list(ctx: Ctx) -> list[str]:
    """Every note's text."""
    return [row[0] for row in ctx.db.execute("SELECT text FROM notes ORDER BY id")]


@command(can="notes.write")
def notes_add(ctx: Ctx, text: str) -> int:
    """Add a note."""
    added = ctx.db.execute("INSERT INTO notes (text) VALUES (?)", (text,)).lastrowid
    assert added is not None
    return added


def notes_app(root: Path, files: dict[str, str], **options) -> App:
    """A scratch app whose migrations are `files`, its data in the test's RATA_HOME."""
    (root / "migrations").mkdir(parents=True, exist_ok=True)
    for name, sql in files.items():
        (root / "migrations" / name).write_text(sql, encoding="utf-8")
    app = App("notes", identifier="com.example.upgrade-notes", root=root, **options).commands(notes_list, notes_add)
    return app.mcp(Mcp().allow_abilities(["notes.*"]))


def dump(path: str | Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def snapshot(path: str | Path) -> tuple[bytes, int]:
    return Path(path).read_bytes(), os.stat(path).st_mtime_ns


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "notes"


def test_a_first_start_on_an_empty_folder_applies_every_migration_and_keeps_no_copy(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    started = on_start(app)
    assert ([m.filename for m in started.applied], started.backup, started.problem) == (["0001_create_notes.sql"], None, None)
    assert app.call("notes_add", text="hello") == 1 and app.call("notes_list") == ["hello"]
    assert {"app.db", LOCK_FILE} <= set(os.listdir(rata_home))
    assert not [name for name in os.listdir(rata_home) if name.startswith("app-before-")]
    app.close()


def test_a_start_with_nothing_to_do_writes_nothing(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    on_start(app)
    app.close()
    before = snapshot(app.folder.database_file)
    assert on_start(app).applied == [] and snapshot(app.folder.database_file) == before


def test_an_app_without_migrations_creates_no_database_when_it_starts(root, rata_home):
    app = App("bare", identifier="com.example.bare", root=root)
    assert on_start(app).problem is None and not rata_home.exists()


def test_an_upgrade_keeps_a_consistent_copy_named_for_the_migration_it_was_taken_before(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    on_start(app)
    app.call("notes_add", text="kept")  # in the WAL, not yet in app.db: the backup API copies it all the same
    before = dump(app.folder.database_file)
    notes_app(root, {"0002_add_stars.sql": "ALTER TABLE notes ADD COLUMN stars INTEGER NOT NULL DEFAULT 0;"})
    started = on_start(app)
    assert started.backup is not None and started.backup == rata_home / backup_name(2) == rata_home / "app-before-0002.db"
    assert dump(started.backup) == before
    if os.name == "posix":
        assert started.backup.stat().st_mode & 0o777 == 0o600
    assert [row[1] for row in app.database().execute("PRAGMA table_info(notes)")] == ["id", "text", "stars"]
    app.close()


def test_only_the_newest_copies_are_kept_and_files_rata_did_not_write_are_left_alone(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    on_start(app)
    rata_home.joinpath("app-before-0002.db.mine").write_text("the user's own")
    rata_home.joinpath("app-before-latest.db").write_text("the user's own")
    for version in range(2, 7):
        notes_app(root, {f"{version:04d}_add_c{version}.sql": f"ALTER TABLE notes ADD COLUMN c{version} TEXT;"})
        assert on_start(app).backup is not None
    kept = sorted(name for name in os.listdir(rata_home) if name.startswith("app-before-"))
    assert BACKUPS_KEPT == 3
    assert kept == ["app-before-0002.db.mine", "app-before-0004.db", "app-before-0005.db", "app-before-0006.db", "app-before-latest.db"]


def test_a_database_file_with_no_tables_gets_no_copy(root, rata_home):
    rata_home.mkdir()
    sqlite3.connect(rata_home / "app.db").close()
    assert on_start(notes_app(root, {"0001_create_notes.sql": CREATE})).backup is None


def test_a_failing_migration_leaves_the_database_as_it_was_and_every_call_answers_it_logged_once(root, rata_home, caplog):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    on_start(app)
    app.call("notes_add", text="before")
    app.close()
    before = dump(app.folder.database_file)
    notes_app(root, {"0002_tags.sql": "CREATE TABLE tags (name TEXT);", "0003_broken.sql": "ALTER TABLE notes ADD COLUMN x;\nINSERT INTO nowhere VALUES (1);"})
    with caplog.at_level(logging.INFO, logger="rata"):
        started = on_start(app)
        assert isinstance(started.problem, MigrationFailedError)
        assert list(started.problem.applied) == ["0002_tags.sql"]
        after = dump(app.folder.database_file)
        assert [line for line in after if "tags" not in line] == before  # 0002 applied; of 0003, nothing
        assert dump(rata_home / "app-before-0002.db") == before
        client = AgentClient(app)
        for _ in range(3):
            result = client.call("notes_list")
            assert result.is_error
            assert "0003_broken.sql" in result.text and "no such table: nowhere" in result.text and "developer" in result.text
        with pytest.raises(McpError) as read:
            client.read("app://notes_list")
        assert read.value.code == -32603 and "0003_broken.sql" in read.value.message
    said = [record for record in caplog.records if "0003_broken.sql" in record.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.ERROR
    assert dump(app.folder.database_file) == after
    app.close()


def test_a_database_newer_than_the_app_is_refused_untouched_naming_both_versions(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE, "0002_tags.sql": "CREATE TABLE tags (name TEXT);", "0003_x.sql": "CREATE TABLE x (y);"})
    on_start(app)
    app.call("notes_add", text="from the newer app")
    app.close()
    (root / "migrations" / "0003_x.sql").unlink()  # the older app: it knows 0001 and 0002
    before = snapshot(app.folder.database_file)
    started = on_start(app)
    assert isinstance(started.problem, DatabaseNewerError)
    assert "migration 0003 (x)" in started.problem.message and "this version (0.0.0) knows migrations only up to 0002 (tags)" in started.problem.message
    result = AgentClient(app).call("notes_add", {"text": "lost?"})
    assert result.is_error and "0003" in result.text and "0002" in result.text
    with pytest.raises(DatabaseNewerError):
        app.migrate()  # `rata migrate` refuses it too
    assert snapshot(app.folder.database_file) == before
    assert not [name for name in os.listdir(rata_home) if name.startswith("app-before-")]
    wal = rata_home / "app.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # what SQLite's read-only look may leave: an empty log, nothing in it


def test_opted_out_a_pending_migration_is_answered_with_the_step_until_it_is_run(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE}, migrate_on_start=False)
    assert app.migrate_on_start is False
    started = on_start(app)
    assert started.applied == [] and not rata_home.exists()
    result = AgentClient(app).call("notes_list")
    assert result.is_error and "0001_create_notes.sql" in result.text and "notes --migrate" in result.text and "no such table" not in result.text
    app.migrate()
    assert AgentClient(app).call("notes_list").data == []
    app.close()


def test_a_held_lock_is_waited_for_a_bounded_time_then_named(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    app.folder.ensure()
    with hold_lock(app.folder), pytest.raises(MigrationError) as caught:
        upgrade(app, lock_wait=0.2)
    assert LOCK_FILE in caught.value.message and "0.2 s" in caught.value.message
    assert not os.path.exists(app.folder.database_file)
    assert upgrade(app).applied  # the lock is free again


STARTER = textwrap.dedent(
    """
    import json, os, sys, time
    sys.path.insert(0, sys.argv[1])
    from tests.test_upgrade import notes_app
    from rata.upgrade import on_start
    from pathlib import Path

    app = notes_app(Path(sys.argv[2]), {})
    print("ready", flush=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(sys.argv[3]) and time.monotonic() < deadline:  # both start together
        time.sleep(0.01)
    started = on_start(app)
    print(json.dumps({"applied": [m.filename for m in started.applied], "problem": str(started.problem or "")}))
    """
)


def test_two_processes_starting_on_one_fresh_folder_apply_each_migration_once(root, rata_home):
    slow = "CREATE TABLE big AS SELECT count(*) AS n FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2000000) SELECT x FROM c);"
    notes_app(root, {"0001_create_notes.sql": CREATE, "0002_big.sql": slow})
    env = subprocess_env(rata_home)
    go = root / "go"
    children = [
        subprocess.Popen([sys.executable, "-c", STARTER, str(ROOT), str(root), str(go)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for child in children:
        assert child.stdout.readline() == "ready\n"  # both imported and waiting: they start together
    go.touch()
    outcomes = []
    for child in children:
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        outcomes.append(json.loads(out))
    assert all(outcome["problem"] == "" for outcome in outcomes)
    assert sorted(len(outcome["applied"]) for outcome in outcomes) == [0, 2]
    conn = sqlite3.connect(rata_home / "app.db")
    assert conn.execute("SELECT version FROM rata_migrations ORDER BY version").fetchall() == [(1,), (2,)]
    assert conn.execute("SELECT n FROM big").fetchall() == [(2000000,)]
    conn.close()


STATEMENTS = [
    "CREATE TABLE a (x INTEGER)",
    "CREATE TABLE b (y TEXT)",
    "INSERT INTO a VALUES (1)",
    "INSERT INTO a VALUES ('two')",
    "DROP TABLE a",
    "ALTER TABLE b ADD COLUMN z",
    "CREATE INDEX ax ON a (x)",
    "SELECT 1",
    "UPDATE a SET x = x + 1",
    "COMMIT",
    "BEGIN",
    "ROLLBACK",
    "/* a comment */ END",
    "-- only a comment",
    "VACUUM",
    "INSERT INTO a VALUES ('semi;colon')",
    "CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES ('x'); END",
]
sql_texts = st.lists(st.one_of(st.sampled_from(STATEMENTS), st.text(max_size=24)), max_size=4).map(";\n".join)
names = st.one_of(st.from_regex(r"[A-Za-z0-9_]{1,10}", fullmatch=True), st.text(max_size=6))


def schema_and_rows(path: Path) -> list[str]:
    """The database's contents, less the bookkeeping rows (their times and checksums differ run to run)."""
    return [line for line in dump(path) if "rata_migrations" not in line]


@given(files=st.lists(st.tuples(names, sql_texts), min_size=1, max_size=4))
@example(files=[("create", "CREATE TABLE a (x INTEGER)"), ("commits", "CREATE TABLE b (y TEXT);\nCOMMIT;\nINSERT INTO a VALUES (1)")])
@example(files=[("nul", "CREATE TABLE a (x INTEGER);\nSELECT '\x00'")])
def test_any_migration_files_all_apply_or_stop_at_the_failing_one_with_the_earlier_ones_kept(files):
    with tempfile.TemporaryDirectory() as scratch:
        root, home = Path(scratch) / "app", Path(scratch) / "home"
        written = {f"{i + 1:04d}_{name}.sql": sql for i, (name, sql) in enumerate(files)}
        app = notes_app(root, {})
        for filename, sql in written.items():
            try:
                (root / "migrations" / filename).write_text(sql, encoding="utf-8")
            except (OSError, ValueError):  # a name the file system refuses: not a migration file this test can make
                reject()
        app.folder = home
        try:
            report = upgrade(app)
        except MigrationFailedError as failed:
            ran = [f for f in written if f < failed.migration]
            assert failed.applied == ran
        except MigrationError:  # a file that is no migration (its name): refused before anything is written
            assert not (home / "app.db").exists()
            return
        else:
            ran = [m.filename for m in report.applied]
            assert ran == sorted(written)
        conn = sqlite3.connect(home / "app.db")
        recorded = [row[0] for row in conn.execute("SELECT version FROM rata_migrations ORDER BY version")]
        conn.close()
        assert recorded == list(range(1, len(ran) + 1))
        reference = notes_app(Path(scratch) / "reference", {f: written[f] for f in ran})
        reference.folder = Path(scratch) / "reference-home"
        reference.folder.ensure()
        sqlite3.connect(reference.folder.database_file).close()  # the same start when nothing was applied: an empty database
        upgrade(reference)
        assert schema_and_rows(home / "app.db") == schema_and_rows(Path(scratch) / "reference-home" / "app.db")


def test_a_file_that_is_not_a_database_is_named_and_left_as_it_is(root, rata_home):
    rata_home.mkdir()
    (rata_home / "app.db").write_bytes(b"not a database, but the user's file" * 200)
    before = snapshot(rata_home / "app.db")
    started = on_start(notes_app(root, {"0001_create_notes.sql": CREATE}))
    assert isinstance(started.problem, MigrationError) and "app.db" in started.problem.message and "not a database" in started.problem.message
    assert snapshot(rata_home / "app.db") == before


def test_a_folder_with_odd_characters_in_its_path_is_read_and_migrated(root, tmp_path):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    app.folder = tmp_path / "data ?#%&=ü 名"
    assert [m.filename for m in on_start(app).applied] == ["0001_create_notes.sql"]
    app.close()
    before = snapshot(app.folder.database_file)
    assert on_start(app).applied == [] and snapshot(app.folder.database_file) == before
    assert app.call("notes_list") == []
    app.close()


QUIET_START = textwrap.dedent(
    """
    import sys
    from rata import App
    from rata.upgrade import on_start

    started = on_start(App("notes", identifier="com.example.upgrade-notes", root=sys.argv[1]))
    assert started.problem is None and started.applied == []
    print(sorted(m for m in ("rata.migrations", "pathlib", "urllib.parse", "fcntl", "msvcrt") if m in sys.modules))
    """
)


def test_a_start_with_nothing_to_do_does_not_import_the_migration_machinery_nor_the_lock(root, rata_home):
    assert on_start(notes_app(root, {"0001_create_notes.sql": CREATE})).applied  # migrated here; the child finds nothing to do
    done = subprocess.run([sys.executable, "-c", QUIET_START, str(root)], env=subprocess_env(rata_home), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_misnamed_or_doubled_migration_file_added_later_is_named_at_the_next_start(root, rata_home):
    app = notes_app(root, {"0001_create_notes.sql": CREATE})
    on_start(app)
    for name in ("1_again.sql", "0002-dash.sql"):
        (root / "migrations" / name).write_text("SELECT 1;")
        problem = on_start(app).problem
        assert isinstance(problem, MigrationError) and name in problem.message
        (root / "migrations" / name).unlink()
    assert on_start(app).problem is None
