"""Reading the app's SQLite database without being able to change it.

Read-only is enforced by SQLite itself, three ways at once: the connection is opened with
``mode=ro``, ``PRAGMA query_only`` is on, and an authorizer refuses every write, schema
change, ``ATTACH``/``DETACH``, transaction control, pragma that is not a plain read, and
function it does not know to be safe (``load_extension`` among them). Only one statement
runs per call; a progress handler stops a query past its time limit.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from rata._record import Record
from rata.errors import RataError

MAX_ROWS = 1_000
DEFAULT_ROWS = 100
TIME_LIMIT_MS = 2_000
CELL_CHARS = 200

_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
# Pragmas whose argument names what to describe: reading, with or without it.
_INFO_PRAGMAS = {
    "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list", "foreign_key_check",
    "integrity_check", "quick_check", "table_list",
}
# Pragmas that hold a setting: reading is fine, an argument would set it.
_VALUE_PRAGMAS = {
    "collation_list", "database_list", "function_list", "module_list", "pragma_list", "compile_options", "user_version",
    "schema_version", "application_id", "page_count", "page_size", "freelist_count", "encoding", "foreign_keys",
    "journal_mode", "data_version",
}
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "sqlite_offset"}


class QueryRefused(RataError):
    """The statement tried to write, or broke a rule of the read-only connection."""


def _authorizer(action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
    if action in _ALLOWED_ACTIONS:
        if action == sqlite3.SQLITE_FUNCTION and arg2 and arg2.lower() in _DENIED_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and arg1:
        pragma = arg1.lower()
        if pragma in _INFO_PRAGMAS or (pragma in _VALUE_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK  # reading; setting a pragma (a value given) is refused
    return sqlite3.SQLITE_DENY


def _open(path: Path, immutable: bool) -> sqlite3.Connection:
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    conn = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(_authorizer)
    if hasattr(conn, "enable_load_extension"):  # absent when Python was built without extension loading
        conn.enable_load_extension(False)
    return conn


_JOURNAL_MODE = re.compile(r"^\s*PRAGMA\s+(?:main\.)?journal_mode\s*;?\s*$", re.IGNORECASE)


class ReadOnlyConnection:
    """A read-only connection that writes nothing beside the database and never serves stale pages.

    While the app is not running (no ``-wal`` file), SQLite is told the file is ``immutable``:
    a plain read-only reader of a WAL database would otherwise create ``-wal`` and ``-shm``
    files next to it. Immutable reads trust that the file does not change, so before each
    statement the file's size and modification time are compared with those at opening, and
    the connection is opened again if the app has written since (plain ``mode=ro`` when the
    app is running: its WAL files exist and are only read).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wal = path.with_name(path.name + "-wal")
        self._conn: sqlite3.Connection | None = None
        self._stamp: tuple[int, int, bool] | None = None
        self.immutable = False

    def stamp(self) -> tuple[int, int, bool]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            raise sqlite3.OperationalError(f"unable to open database file: {self.path} does not exist") from None
        return (stat.st_size, stat.st_mtime_ns, self._wal.exists())

    def connection(self) -> sqlite3.Connection:
        """The underlying connection, opened again if the database changed since it was opened."""
        stamp = self.stamp()
        if self._conn is None or stamp != self._stamp:
            if self._conn is not None:
                self._conn.close()
            self.immutable = not stamp[2]
            self._conn = _open(self.path, immutable=self.immutable)
            self._stamp = stamp
        return self._conn

    def changed(self) -> bool:
        """Whether the file changed since the connection was (re)opened."""
        return self._stamp is not None and self.stamp() != self._stamp

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        conn = self.connection()
        if self.immutable and _JOURNAL_MODE.match(sql):
            # An immutable open reports "delete"; the file header says what the database really uses.
            return conn.execute("SELECT ? AS journal_mode", (_journal_mode_from_header(self.path),))
        return conn.execute(sql, parameters)

    def set_progress_handler(self, handler: Any, n: int) -> None:
        self.connection().set_progress_handler(handler, n)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _journal_mode_from_header(path: Path) -> str:
    with open(path, "rb") as handle:
        header = handle.read(20)
    return "wal" if len(header) >= 20 and header[18] == 2 and header[19] == 2 else "delete"


def connect_read_only(path: Path) -> ReadOnlyConnection:
    """A connection that cannot write to `path`, nor create anything beside it (see `ReadOnlyConnection`)."""
    conn = ReadOnlyConnection(path)
    conn.connection()
    return conn


class QueryResult(Record):
    __slots__ = ("columns", "rows", "row_count", "more_rows", "elapsed_ms")
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    more_rows: bool
    elapsed_ms: float


def run_query(conn: ReadOnlyConnection, sql: str, limit: int = DEFAULT_ROWS, time_limit_ms: int = TIME_LIMIT_MS) -> QueryResult:
    """Run one read-only statement; at most `limit` rows come back, and whether there were more.

    If the app wrote to the database while the statement ran, it runs once more on a fresh
    connection, so an answer never mixes pages from before and after.
    """
    result = _run_query(conn, sql, limit, time_limit_ms)
    if conn.changed():
        result = _run_query(conn, sql, limit, time_limit_ms)
    return result


def _run_query(conn: ReadOnlyConnection, sql: str, limit: int, time_limit_ms: int) -> QueryResult:
    text = sql.strip()
    if not text:
        raise QueryRefused("The SQL is empty.", hint="Pass one SELECT statement, e.g. SELECT * FROM customers LIMIT 10.")
    deadline = time.monotonic() + time_limit_ms / 1000
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1_000)
    started = time.perf_counter()
    try:
        cursor = conn.execute(text)
        rows = cursor.fetchmany(limit + 1)
    except sqlite3.ProgrammingError as error:
        raise QueryRefused(f"The SQL was refused: {str(error).rstrip('.')}.", hint="Send exactly one statement per call.") from None
    except sqlite3.DatabaseError as error:
        message = str(error)
        if "interrupted" in message:
            raise QueryRefused(f"The query ran longer than {time_limit_ms} ms and was stopped.", hint="Narrow it with WHERE or LIMIT.") from None
        if "authoriz" in message or "readonly" in message or "read-only" in message or "query_only" in message:
            raise QueryRefused(
                f"The statement was refused: {message}. This connection is read-only.",
                hint="Only SELECT, WITH ... SELECT, EXPLAIN and reading pragmas are allowed; change data through the app's commands or a migration.",
            ) from None
        raise QueryRefused(f"SQLite said: {message}.", hint="Check the SQL against database_schema.") from None
    finally:
        conn.set_progress_handler(None, 0)
    elapsed = (time.perf_counter() - started) * 1000
    columns = [d[0] for d in cursor.description or []]
    more = len(rows) > limit
    shown = [[_cell(value) for value in row] for row in rows[:limit]]
    cursor.close()
    return QueryResult(columns, shown, len(shown), more, round(elapsed, 2))


def _cell(value: Any) -> Any:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str) and len(value) > CELL_CHARS:
        return value[:CELL_CHARS] + f"... ({len(value)} chars)"
    return value


def as_table(result: QueryResult) -> str:
    """The rows as a plain-text table, for the model to read."""
    header = [str(c) for c in result.columns]
    body = [["NULL" if v is None else str(v) for v in row] for row in result.rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(header)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(v.ljust(w) for v, w in zip(row, widths)) for row in body]
    return "\n".join(lines)


# --- schema -----------------------------------------------------------------------------------


def schema(conn: ReadOnlyConnection, *, summary: bool = False, name_filter: str = "") -> dict[str, Any]:
    """Tables (columns, indexes, foreign keys, row counts), views and triggers, optionally filtered by name.

    Its many small statements share one check of the file (before and after, read again if the
    app wrote meanwhile) instead of one each.
    """
    found = _schema(conn.connection(), summary, name_filter)
    if conn.changed():
        found = _schema(conn.connection(), summary, name_filter)
    return found


def _schema(conn: sqlite3.Connection, summary: bool, name_filter: str) -> dict[str, Any]:
    needle = name_filter.lower()
    objects = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
    ).fetchall()
    tables: list[dict[str, Any]] = []
    views: list[dict[str, Any]] = []
    triggers: list[dict[str, Any]] = []
    for kind, name, table, sql in objects:
        if needle and needle not in name.lower() and needle not in (table or "").lower():
            continue
        if kind == "table":
            tables.append(_table(conn, name, summary))
        elif kind == "view" and not summary:
            views.append({"name": name, "sql": sql})
        elif kind == "trigger" and not summary:
            triggers.append({"name": name, "table": table, "sql": sql})
    return {"tables": tables, "views": views, "triggers": triggers}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _table(conn: sqlite3.Connection, name: str, summary: bool) -> dict[str, Any]:
    count = conn.execute(f"SELECT count(*) FROM {_quote(name)}").fetchone()[0]
    if summary:
        return {"name": name, "rows": count}
    columns = [
        {"name": c[1], "type": c[2], "nullable": not c[3], "default": c[4], "primaryKey": bool(c[5])}
        for c in conn.execute(f"PRAGMA table_info({_quote(name)})")
    ]
    indexes = []
    for index in conn.execute(f"PRAGMA index_list({_quote(name)})"):
        cols = [c[2] for c in conn.execute(f"PRAGMA index_info({_quote(index[1])})")]
        indexes.append({"name": index[1], "unique": bool(index[2]), "columns": [c if c is not None else "<expression>" for c in cols]})
    foreign = [
        {"column": f[3], "references": f"{f[2]}.{f[4]}", "onDelete": f[6], "onUpdate": f[5]}
        for f in conn.execute(f"PRAGMA foreign_key_list({_quote(name)})")
    ]
    return {"name": name, "rows": count, "columns": columns, "indexes": indexes, "foreignKeys": foreign}
