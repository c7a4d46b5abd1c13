"""database_query cannot write: every way in is refused by SQLite, and the files prove it.

One `rata mcp dev` process (a real subprocess) serves a copy of examples/crm whose database
was migrated and filled by the crm app itself. Each attempt must come back as a tool error
that says the connection is read-only or the statement was refused, and afterwards the
database file is byte-for-byte what it was, and no file was created anywhere.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rata import tokens
from rata.dev_server import budget
from rata.testing import AgentClient
from tests.dev_server.helpers import changes, copy_crm, dev_command, dev_env, many_customers, seed_crm, sha256, snapshot

pytestmark = pytest.mark.subprocess

CUSTOMER_COUNT = 150


class Served:
    def __init__(self, base: Path) -> None:
        self.project = copy_crm(base / "project")
        self.home = base / "home"
        self.cache = base / "cache"
        self.elsewhere = base / "elsewhere"  # where ATTACH and VACUUM INTO try to create files
        self.elsewhere.mkdir()
        seed_crm(self.home, many_customers(CUSTOMER_COUNT))
        self.database = self.home / "app.db"
        self.pristine = sha256(self.database)
        self.agent: AgentClient | None = None

    def query(self, sql: str, **arguments: Any) -> Any:
        assert self.agent is not None
        return self.agent.call("database_query", {"sql": sql, **arguments})


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = Served(tmp_path_factory.mktemp("readonly"))
    assert {p.name for p in served.home.iterdir()} == {"app.db", "instance.token", "logs", "migrate.lock"}  # closed cleanly: no -wal, no -shm
    with AgentClient.spawn(dev_command(served.project), env=dev_env(served.home, served.cache)) as agent:
        served.agent = agent
        yield served


# (id, SQL); {elsewhere} and {home} are filled in with folders where nothing may appear.
WRITES = [
    ("insert", "INSERT INTO customers (name, email) VALUES ('Mallory', 'mallory@example.com')"),
    ("insert-or-replace", "INSERT OR REPLACE INTO customers (id, name, email) VALUES (1, 'Mallory', 'mallory@example.com')"),
    ("update", "UPDATE customers SET name = 'Mallory'"),
    ("update-one", "UPDATE customers SET email = 'mallory@example.com' WHERE id = 1"),
    ("delete", "DELETE FROM customers"),
    ("delete-migrations", "DELETE FROM rata_migrations"),
    ("replace", "REPLACE INTO customers (id, name, email) VALUES (1, 'Mallory', 'mallory@example.com')"),
    ("upsert", "INSERT INTO customers (id, name, email) VALUES (1, 'Mallory', 'm@example.com') ON CONFLICT(id) DO UPDATE SET name = excluded.name"),
    ("cte-insert-returning", "WITH x(n) AS (SELECT 'Mallory') INSERT INTO customers (name, email) SELECT n, 'm@example.com' FROM x RETURNING id"),
    ("cte-delete-returning", "WITH doomed AS (SELECT id FROM customers) DELETE FROM customers WHERE id IN (SELECT id FROM doomed) RETURNING *"),
    ("cte-update-returning", "WITH x AS (SELECT 1) UPDATE customers SET name = 'Mallory' RETURNING id"),
    ("create-table", "CREATE TABLE evil (a)"),
    ("create-table-as", "CREATE TABLE evil AS SELECT * FROM customers"),
    ("create-index", "CREATE INDEX evil ON customers (name)"),
    ("create-view", "CREATE VIEW evil AS SELECT 1"),
    ("create-trigger", "CREATE TRIGGER evil AFTER INSERT ON customers BEGIN DELETE FROM customers; END"),
    ("create-temp-table", "CREATE TEMP TABLE evil (a)"),
    ("create-temp-view", "CREATE TEMP VIEW evil AS SELECT 1"),
    ("create-temp-trigger", "CREATE TEMP TRIGGER evil AFTER INSERT ON customers BEGIN SELECT 1; END"),
    ("create-virtual-table", "CREATE VIRTUAL TABLE evil USING fts5(body)"),
    ("drop-table", "DROP TABLE customers"),
    ("drop-index", "DROP INDEX customers_email"),
    ("alter-add-column", "ALTER TABLE customers ADD COLUMN evil TEXT"),
    ("alter-rename", "ALTER TABLE customers RENAME TO clients"),
    ("alter-rename-column", "ALTER TABLE customers RENAME COLUMN name TO evil"),
    ("attach-new-file", "ATTACH '{elsewhere}/attached.db' AS evil"),
    ("attach-file-in-app-folder", "ATTACH '{home}/attached.db' AS evil"),
    ("attach-uri", "ATTACH 'file:{elsewhere}/uri.db?mode=rwc' AS evil"),
    ("attach-memory", "ATTACH ':memory:' AS evil"),
    ("attach-empty-name", "ATTACH '' AS evil"),
    ("detach-main", "DETACH main"),
    ("detach-temp", "DETACH temp"),
    ("pragma-writable-schema", "PRAGMA writable_schema = ON"),
    ("pragma-query-only-off", "PRAGMA query_only = OFF"),
    ("pragma-query-only-0", "PRAGMA query_only(0)"),
    ("pragma-journal-mode", "PRAGMA journal_mode = DELETE"),
    ("pragma-user-version", "PRAGMA user_version = 5"),
    ("pragma-user-version-call", "PRAGMA main.user_version(5)"),
    ("pragma-application-id", "PRAGMA application_id = 7"),
    ("pragma-schema-version", "PRAGMA schema_version = 1"),
    ("pragma-foreign-keys-off", "PRAGMA foreign_keys = OFF"),
    ("pragma-wal-checkpoint", "PRAGMA wal_checkpoint(TRUNCATE)"),
    ("pragma-optimize", "PRAGMA optimize"),
    ("pragma-incremental-vacuum", "PRAGMA incremental_vacuum"),
    ("pragma-auto-vacuum", "PRAGMA auto_vacuum = FULL"),
    ("vacuum", "VACUUM"),
    ("vacuum-into", "VACUUM INTO '{elsewhere}/copy.db'"),
    ("vacuum-into-app-folder", "VACUUM main INTO '{home}/copy.db'"),
    ("reindex", "REINDEX"),
    ("reindex-table", "REINDEX customers"),
    ("analyze", "ANALYZE"),
    ("begin", "BEGIN"),
    ("begin-immediate", "BEGIN IMMEDIATE"),
    ("begin-exclusive", "BEGIN EXCLUSIVE"),
    ("commit", "COMMIT"),
    ("end", "END"),
    ("rollback", "ROLLBACK"),
    ("savepoint", "SAVEPOINT evil"),
    ("release", "RELEASE evil"),
    ("load-extension", "SELECT load_extension('x')"),
    ("load-extension-entry-point", "SELECT load_extension('/tmp/evil.so', 'sqlite3_evil_init')"),
    ("two-statements", "SELECT 1; DELETE FROM customers"),
    ("two-statements-no-space", "SELECT 1;DELETE FROM customers;"),
    ("comment-hides-second-statement", "SELECT 1 -- just a comment\n; DELETE FROM customers"),
    ("trailing-comment-then-statement", "SELECT 1; -- the rest is a comment, honest\nDELETE FROM customers"),
    ("block-comment-then-statement", "SELECT 1 /* ; */ ; DROP TABLE customers"),
    ("nul-byte-hides-statement", "SELECT 1\x00; DELETE FROM customers"),
]


def fill(served: Served, sql: str) -> str:
    return sql.replace("{elsewhere}", str(served.elsewhere)).replace("{home}", str(served.home))


def all_files(served: Served) -> set[str]:
    """Every path in the app folder and in the folder ATTACH and VACUUM INTO aim at."""
    return {f"home/{p}" for p in snapshot(served.home)} | {f"elsewhere/{p}" for p in snapshot(served.elsewhere)}


def wal_files(home: Path) -> dict[str, str | None]:
    return {name: sha256(home / name) for name in ("app.db-wal", "app.db-shm")}


def customers_count(served: Served) -> int:
    result = served.query("SELECT count(*) AS n FROM customers")
    assert not result.is_error, result.text
    return result.data["rows"][0][0]


@pytest.mark.parametrize("sql", [sql for _, sql in WRITES], ids=[name for name, _ in WRITES])
def test_a_write_is_refused_and_the_database_files_are_byte_for_byte_unchanged(served, sql):
    sql = fill(served, sql)
    before_files = all_files(served)
    before_wal = wal_files(served.home)

    result = served.query(sql)

    assert result.is_error, f"{sql!r} was not refused: {result.text}"
    assert re.search(r"read-only|refused", result.text, re.IGNORECASE), f"{sql!r}: the message does not say why: {result.text}"
    assert sha256(served.database) == served.pristine
    after_wal = wal_files(served.home)
    for name, digest in before_wal.items():
        if digest is not None:
            assert after_wal[name] == digest, f"{name} changed"
    wal = served.home / "app.db-wal"
    if before_wal["app.db-wal"] is None and wal.exists():
        assert wal.stat().st_size == 0, "a frame was written to the -wal file"
    created = all_files(served) - before_files
    assert created == set()  # no ATTACH or VACUUM INTO target, and no -wal or -shm either
    assert customers_count(served) == CUSTOMER_COUNT


def test_no_attach_or_vacuum_target_file_was_ever_created(served):
    for _name, sql in WRITES:
        if "{" in sql:
            served.query(fill(served, sql))
    assert list(served.elsewhere.iterdir()) == []
    assert not (served.home / "attached.db").exists() and not (served.home / "copy.db").exists()
    assert sha256(served.database) == served.pristine


def test_the_database_has_exactly_what_the_app_wrote(served):
    result = served.query("SELECT id, name, email FROM customers ORDER BY id LIMIT 3")
    assert not result.is_error, result.text
    assert result.data["rows"] == [[1, "Ada Lovelace", "ada@example.com"], [2, "Grace Hopper", "grace@example.com"], [3, "Alan Turing", "alan@example.com"]]
    schema = served.agent.call("database_schema", {"summary": True})
    assert {t["name"]: t["rows"] for t in schema.data["tables"]} == {"customers": CUSTOMER_COUNT, "rata_migrations": 1}


def test_reading_statements_still_work_on_the_locked_down_connection(served):
    for sql in (
        "SELECT count(*) FROM customers",
        "WITH c AS (SELECT * FROM customers) SELECT count(*) FROM c",
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n",
        "EXPLAIN QUERY PLAN SELECT * FROM customers WHERE lower(email) = 'ada@example.com'",
        "PRAGMA table_info(customers)",
        "PRAGMA index_list(customers)",
        "PRAGMA user_version",
        "PRAGMA journal_mode",
        "SELECT name, sql FROM sqlite_schema",
        "SELECT * FROM customers WHERE name LIKE '%a%' ORDER BY email DESC",
        "select 1;",
        "SELECT 1 -- a trailing comment is fine",
    ):
        result = served.query(sql)
        assert not result.is_error, f"{sql!r}: {result.text}"
    assert sha256(served.database) == served.pristine


def test_the_default_limit_is_a_hundred_rows_and_the_answer_says_there_are_more(served):
    result = served.query("SELECT id FROM customers ORDER BY id")
    assert not result.is_error, result.text
    answer = result.data
    assert answer["row_count"] == 100 and len(answer["rows"]) == 100 and answer["rows"][-1] == [100]
    assert answer["more_rows"] is True
    assert answer["next_offset"] == 100 and "This shows 100 rows from offset 0 (limit 100); more follow" in answer["note"]


def test_a_limit_caps_the_rows_and_more_rows_is_false_when_all_fit(served):
    few = served.query("SELECT id, name FROM customers ORDER BY id", limit=2).data
    assert few["rows"] == [[1, "Ada Lovelace"], [2, "Grace Hopper"]] and few["more_rows"] is True
    assert served.query("SELECT id, name FROM customers ORDER BY id", limit=2).text.splitlines()[:3] == ["id | name", "1 | Ada Lovelace", "2 | Grace Hopper"]
    everything = served.query("SELECT id FROM customers", limit=1000).data
    assert everything["row_count"] == CUSTOMER_COUNT and everything["more_rows"] is False and everything["note"] == ""
    exact = served.query("SELECT id FROM customers", limit=CUSTOMER_COUNT).data
    assert exact["row_count"] == CUSTOMER_COUNT and exact["more_rows"] is False


def test_a_limit_over_a_thousand_is_refused_by_the_schema(served):
    for limit in (1001, 0, -1):
        result = served.query("SELECT 1", limit=limit)
        assert result.is_error and "limit" in result.text


HOSTILE_OFFSETS = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=1_000_000_001),
    st.text(max_size=20),
    st.floats().filter(lambda x: x != int(x) if x == x and abs(x) != float("inf") else True),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=HOSTILE_OFFSETS)
def test_a_hostile_offset_is_refused_by_the_schema_naming_it(served, offset):
    result = served.query("SELECT 1", offset=offset)
    assert result.is_error and "offset" in result.text and "Traceback" not in result.text, result.text


def test_a_thousand_wide_rows_come_back_within_the_budget_and_following_next_offset_gets_them_all(served):
    sql = f"{ROWS_1000} SELECT printf('%04d', i) || hex(randomblob(98)) AS a, hex(zeroblob(100)) AS b, hex(zeroblob(100)) AS c FROM r ORDER BY a"
    parts = [served.query(sql, limit=1000)]
    while parts[-1].data["next_offset"] is not None:
        parts.append(served.query(sql, limit=1000, offset=parts[-1].data["next_offset"]))
    for part in parts:
        assert not part.is_error, part.text
        assert max(tokens.estimate(part.text), tokens.estimate(budget.compact_json(part.data))) <= budget.DEFAULT_TOKENS
        assert part.text.splitlines()[0] == "a | b | c" and part.data["note"] in part.text
    assert "Cut to fit the 10,000-token budget" in parts[0].data["note"] and '"offset": ' in parts[0].data["note"]
    keys = [row[0][:4] for part in parts for row in part.data["rows"]]
    assert keys == [f"{i:04}" for i in range(1, 1001)]  # every row once, in order (the random part differs from call to call)


def test_a_long_running_query_stops_at_the_time_limit_with_a_clear_message(served):
    started = time.monotonic()
    result = served.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n")
    elapsed = time.monotonic() - started
    assert result.is_error
    assert "ran longer than 2000 ms and was stopped" in result.text
    assert 1.5 < elapsed < 6
    assert customers_count(served) == CUSTOMER_COUNT  # and the server answers the next call


def test_a_read_only_session_leaves_the_app_folder_exactly_as_it_was(tmp_path):
    # The app is not running, so its database has no -wal or -shm; reading it must not leave any behind.
    served = Served(tmp_path)
    before = snapshot(served.home)
    with AgentClient.spawn(dev_command(served.project), env=dev_env(served.home, served.cache)) as agent:
        for name, arguments in [
            ("database_query", {"sql": "SELECT * FROM customers"}),
            ("database_query", {"sql": "DELETE FROM customers"}),
            ("database_schema", {}),
            ("migration_status", {}),
        ]:
            agent.call(name, arguments)
    assert changes(before, snapshot(served.home)) == {}


# --- resource bounds, through the real process (issue 12) ------------------------------------------

ROWS_1000 = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000)"
NEAR_CAP = "printf('%.*c', 999000, 'a')"


def peak_rss_mb(served: Served) -> float:
    process = served.agent._process
    status = Path(f"/proc/{process.pid}/status").read_text(encoding="utf-8")
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE).group(1)) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's peak memory from /proc")
@pytest.mark.parametrize(
    "sql",
    [
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i<40) SELECT length(randomblob(50000000)) FROM r",
        f"{ROWS_1000} SELECT zeroblob(100000000) FROM r",
        f"{ROWS_1000} SELECT randomblob(999999), {NEAR_CAP} FROM r",
        f"WITH v(a, b) AS (SELECT {NEAR_CAP}, substr({NEAR_CAP}, 1, 499000) || 'b') SELECT " + ", ".join("instr(a, b)" for _ in range(10)) + " FROM v",
        "SELECT " + ", ".join(f"randomblob(999999) AS c{n}" for n in range(300)),
    ],
    ids=["few-expensive-steps", "huge-blobs", "values-under-the-cap", "one-uninterruptible-step", "many-values-at-once"],
)
def test_a_hostile_query_is_answered_or_stopped_within_the_time_limit_and_the_server_stays_small(served, sql):
    started = time.monotonic()
    result = served.query(sql, limit=1000)
    elapsed = time.monotonic() - started
    assert elapsed < 2 + 1 + 1.5  # the time limit, the grace before the query's process is killed, slack
    if result.is_error:
        assert re.search(r"longer than|memory cap|limit of 1,000,000 bytes", result.text), result.text
        assert re.search(r"Narrow it|length\(x\)", result.text), result.text
    assert len(result.text) < 1_000_000
    assert peak_rss_mb(served) < 300
    assert customers_count(served) == CUSTOMER_COUNT and sha256(served.database) == served.pristine


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's peak memory from /proc")
def test_a_thousand_columns_by_a_thousand_rows_come_back_cut_with_a_note_saying_how(served):
    columns = ", ".join(f"hex(zeroblob(100)) AS c{n}" for n in range(1000))
    result = served.query(f"{ROWS_1000} SELECT {columns} FROM r", limit=1000)
    assert not result.is_error, result.text
    answer = result.data
    assert len(answer["columns"]) == 100 and answer["more_rows"] is True
    assert "has 1000 columns; only the first 100 are shown: select fewer columns" in answer["note"]
    shown = answer["row_count"]
    assert f"Cut to fit the 10,000-token budget: this shows {shown} rows from offset 0" in answer["note"] and answer["next_offset"] == shown >= 1
    assert len(result.text) < 40_000  # was one 816 MB line, then up to 300,000 characters
    assert peak_rss_mb(served) < 300
