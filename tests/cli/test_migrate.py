"""`rata migrate` on the example app, against a real SQLite file in RATA_HOME."""

import json
import sqlite3

from tests.conftest import CRM


def test_migrate_applies_the_example_migrations_then_has_nothing_to_do(rata, rata_home):
    first = rata("migrate", "--app", str(CRM))
    assert first.exit_code == 0 and "applied  0001_create_customers.sql" in first.stdout
    with sqlite3.connect(rata_home / "app.db") as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(customers)")]
    assert columns == ["id", "name", "email", "created_at"]
    again = rata("migrate", "--app", str(CRM))
    assert "Nothing to apply" in again.stdout


def test_status_and_json(rata):
    before = json.loads(rata("migrate", "--app", str(CRM), "--status", "--json").stdout)
    assert before["applied"] == [] and before["migrations"][0]["state"] == "pending"
    after = json.loads(rata("migrate", "--app", str(CRM), "--json").stdout)
    assert after["applied"] == ["0001_create_customers.sql"]
    assert [m["state"] for m in after["migrations"]] == ["applied"]


APP = '''\
from rata import App

app = App("jot", identifier="com.example.jot")
'''


def jot(tmp_path, migrations=None):
    """A one-file app; `migrations` (name -> SQL) go in a migrations folder beside it, when given."""
    (tmp_path / "jot.py").write_text(APP, encoding="utf-8")
    if migrations is not None:
        (tmp_path / "migrations").mkdir(exist_ok=True)
        for name, sql in migrations.items():
            (tmp_path / "migrations" / name).write_text(sql, encoding="utf-8")
    return str(tmp_path / "jot.py")


def test_without_a_migrations_folder_it_says_so_and_where_it_looked(rata, tmp_path, rata_home):
    done = rata("migrate", "--app", jot(tmp_path))
    assert done.exit_code == 0
    assert " ".join(done.stdout.split()) == f"No migrations folder: looked for {tmp_path / 'migrations'}. Nothing to apply."
    assert "up to date" not in done.stdout and not (rata_home / "app.db").exists()
    assert json.loads(rata("migrate", "--app", jot(tmp_path), "--json").stdout)["migrationsDir"] == str(tmp_path / "migrations")


def test_a_failing_later_migration_names_the_ones_this_run_applied_before_it(rata, tmp_path, rata_home):
    app = jot(tmp_path, {"0001_a.sql": "CREATE TABLE a (x);", "0002_b.sql": "CREATE TABLE b (x);", "0003_c.sql": "INSERT INTO nowhere VALUES (1);"})
    done = rata("migrate", "--app", app)
    said = " ".join(done.stderr.split())
    assert done.exit_code == 1
    assert "Migration '0003_c.sql' failed: no such table: nowhere." in said and "Applied before it in this run: 0001_a.sql, 0002_b.sql." in said
    with sqlite3.connect(rata_home / "app.db") as conn:
        assert conn.execute("SELECT version FROM rata_migrations").fetchall() == [(1,), (2,)]


def test_an_upgrade_says_where_it_kept_a_copy_of_the_database(rata, tmp_path, rata_home):
    app = jot(tmp_path, {"0001_a.sql": "CREATE TABLE a (x);"})
    assert "Kept a copy" not in rata("migrate", "--app", app).stdout  # a new database: nothing to keep
    jot(tmp_path, {"0002_b.sql": "CREATE TABLE b (x);"})
    done = rata("migrate", "--app", app)
    assert f"Kept a copy of the database from before this run: {rata_home / 'app-before-0002.db'}" in " ".join(done.stdout.split())
    assert (rata_home / "app-before-0002.db").is_file()


def test_status_reads_without_writing_even_a_database_that_is_not_made_yet(rata, tmp_path, rata_home):
    app = jot(tmp_path, {"0001_a.sql": "CREATE TABLE a (x);"})
    listed = json.loads(rata("migrate", "--app", app, "--status", "--json").stdout)
    assert [(m["name"], m["state"]) for m in listed["migrations"]] == [("a", "pending")]
    assert not (rata_home / "app.db").exists()
