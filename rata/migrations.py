"""Migrations: numbered ``.sql`` files in the app package, applied in order.

    migrations/0001_create_customers.sql
    migrations/0002_add_customer_notes.sql

Each pending file runs in one transaction together with its row in ``rata_migrations``
(version, name, SHA-256 of its text, time applied), so a failing file leaves nothing behind.
A file changed after it was applied is reported as ``changed`` and never run again; write a
new migration instead.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rata.errors import MigrationError, MigrationFailedError

FILE_NAME = re.compile(r"^(\d+)_([A-Za-z0-9_]+)\.sql$")
TABLE = "rata_migrations"
_CREATE = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL
)"""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path
    checksum: str

    @property
    def filename(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class MigrationStatus:
    """One migration and where it stands: applied, pending, changed, or missing (applied, file gone)."""

    version: int
    name: str
    state: str
    applied_at: str | None = None


@dataclass(frozen=True)
class MigrateReport:
    applied: list[Migration]
    statuses: list[MigrationStatus]
    backup: Path | None = None
    """The copy of the database kept before this run changed it (`rata.upgrade`), if one was."""

    @property
    def changed(self) -> list[MigrationStatus]:
        return [s for s in self.statuses if s.state == "changed"]

    @property
    def missing(self) -> list[MigrationStatus]:
        return [s for s in self.statuses if s.state == "missing"]


def checksum(text: str) -> str:
    """SHA-256 of the file's text with line endings made uniform (a CRLF checkout is not a change)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def discover(directory: Path) -> list[Migration]:
    """The migration files in `directory`, in order; malformed names and duplicates are errors."""
    if not directory.is_dir():
        return []
    found: dict[int, Migration] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix != ".sql":
            continue
        match = FILE_NAME.match(path.name)
        if not match:
            raise MigrationError(
                f"The migration file {path.name!r} is not named NUMBER_name.sql.",
                hint="Rename it like 0003_add_customer_notes.sql (digits, underscore, letters/digits/underscores).",
            )
        version = int(match.group(1))
        if version in found:
            raise MigrationError(
                f"Two migrations share the number {version}: {found[version].filename!r} and {path.name!r}.",
                hint="Give one of them the next free number.",
            )
        found[version] = Migration(version, match.group(2), path, checksum(read_text(path)))
    return [found[v] for v in sorted(found)]


MAX_MIGRATION_BYTES = 16 * 1024 * 1024
"""The largest migration file read; a larger one is refused (a data load belongs in a script, not in a migration)."""


def read_text(path: Path) -> str:
    """A migration file's SQL, read as a project file (`rata.projectfiles`: a regular file, never a blocking read, at
    most `MAX_MIGRATION_BYTES`); a FIFO, a device, a larger file or one that is not UTF-8 text is a `MigrationError`."""
    from rata.projectfiles import ProjectFileError
    from rata.projectfiles import read_text as read_project_text

    try:
        return read_project_text(path, limit=MAX_MIGRATION_BYTES)
    except ProjectFileError as error:
        hint = "Save it as UTF-8." if "UTF-8" in error.reason else "Make it a plain .sql file of SQL statements (or move it out of migrations/)."
        raise MigrationError(f"The migration file {path.name!r} {error.reason}.", hint=hint) from None


def applied_versions(conn: sqlite3.Connection) -> dict[int, str]:
    """The recorded migrations (version -> name), read without writing anything."""
    return {version: row[0] for version, row in _applied(conn).items()}


class Queryable(Protocol):
    """What reading the migration records needs: a `sqlite3.Connection`, or the dev server's read-only one."""

    def execute(self, sql: str, parameters: tuple[Any, ...] = (), /) -> sqlite3.Cursor: ...


def _applied(conn: Queryable, create: bool = False) -> dict[int, tuple[str, str, str]]:
    """The recorded migrations; the table is created only when `create` (status never writes)."""
    if create:
        conn.execute(_CREATE)
    elif conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (TABLE,)).fetchone() is None:
        return {}
    rows = conn.execute(f"SELECT version, name, checksum, applied_at FROM {TABLE}").fetchall()
    return {row[0]: (row[1], row[2], row[3]) for row in rows}


def status(conn: Queryable, directory: Path) -> list[MigrationStatus]:
    """Every migration, on disk or recorded, and its state, by version."""
    files = {m.version: m for m in discover(directory)}
    applied = _applied(conn)
    out: list[MigrationStatus] = []
    for version in sorted(set(files) | set(applied)):
        if version not in applied:
            out.append(MigrationStatus(version, files[version].name, "pending"))
        elif version not in files:
            name, _, at = applied[version]
            out.append(MigrationStatus(version, name, "missing", at))
        else:
            name, recorded, at = applied[version]
            state = "applied" if recorded == files[version].checksum else "changed"
            out.append(MigrationStatus(version, files[version].name, state, at))
    return out


def migrate(conn: sqlite3.Connection, directory: Path) -> MigrateReport:
    """Apply every pending migration in order, each in its own transaction.

    Raises:
        MigrationFailedError: one failed; it is rolled back, the ones before it (listed on the error) stay applied.
    """
    migrations = discover(directory)
    applied = _applied(conn, create=True)
    done: list[Migration] = []
    for migration in migrations:
        if migration.version in applied:
            continue
        try:
            _apply(conn, migration)
        except _Failed as failed:
            raise MigrationFailedError(migration.filename, failed.said, [m.filename for m in done]) from failed.__cause__
        done.append(migration)
    return MigrateReport(done, status(conn, directory))


class _Failed(Exception):
    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


_TRANSACTION_CONTROL = {"BEGIN", "COMMIT", "END", "ROLLBACK"}


def _apply(conn: sqlite3.Connection, migration: Migration) -> None:
    text = read_text(migration.path)
    previous = conn.isolation_level
    conn.isolation_level = None  # we say where the transaction starts and ends
    try:
        conn.execute("BEGIN")
        try:
            _run_script(conn, text)
            conn.execute(
                f"INSERT INTO {TABLE} (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                (migration.version, migration.name, migration.checksum, _now()),
            )
            conn.execute("COMMIT")
        except (sqlite3.Error, sqlite3.Warning, ValueError, _Failed) as error:  # ValueError: a NUL character in the SQL
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(error, _Failed):
                raise
            raise _Failed(str(error) or type(error).__name__) from error  # the SQLite error stays the cause, for the log
    finally:
        conn.isolation_level = previous


def _run_script(conn: sqlite3.Connection, text: str) -> None:
    """Run each statement of `text` inside the open transaction (executescript would commit first)."""
    statement = ""
    for piece in text.split(";"):
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            if not _only_comments(statement[:-1]):
                _execute(conn, statement)
            statement = ""
    rest = statement[:-1]
    if not _only_comments(rest):
        _execute(conn, rest)


def _execute(conn: sqlite3.Connection, statement: str) -> None:
    """One statement inside the migration's transaction; one that would end the transaction is refused, not run."""
    word = _first_word(statement).upper()
    if word in _TRANSACTION_CONTROL:
        raise _Failed(f"it holds {word}, and rata runs each migration in a transaction of its own (leave out BEGIN, COMMIT and ROLLBACK)")
    conn.execute(statement)
    if not conn.in_transaction:
        raise _Failed("a statement in it ended the migration's transaction, so what ran before it stays; leave out BEGIN, COMMIT and ROLLBACK")


def _first_word(statement: str) -> str:
    """The statement's first keyword, after whitespace and comments."""
    i, n = 0, len(statement)
    while i < n:
        if statement[i].isspace():
            i += 1
        elif statement.startswith("--", i):
            end = statement.find("\n", i)
            i = n if end < 0 else end + 1
        elif statement.startswith("/*", i):
            end = statement.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            break
    match = _WORD.match(statement, i)
    return match.group(0) if match else ""


_WORD = re.compile(r"[A-Za-z]+")


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in text.splitlines())


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
