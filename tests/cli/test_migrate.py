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
