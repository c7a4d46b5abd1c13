"""Reading the app's SQLite database without being able to change it.

Read-only is enforced by SQLite itself, three ways at once: the connection is opened with
``mode=ro``, ``PRAGMA query_only`` is on, and an authorizer refuses every write, schema
change, ``ATTACH``/``DETACH``, transaction control, pragma that is not a plain read, and
function it does not know to be safe (``load_extension`` among them). Only one statement
runs per call.

Every query is bounded by SQLite's own limits (`LIMITS`: no string or blob longer than
`VALUE_BYTES`, no SQL text longer than `SQL_BYTES`, shallow expressions, small programs), a
progress handler that stops it at its wall-clock deadline, and a cap on SQLite's heap
(`HEAP_BYTES`). Rows are fetched one at a time and cut as they come (cells to `CELL_CHARS`,
columns to `MAX_COLUMNS`, the rows to `FETCH_BYTES` as JSON, more than any token budget lets
through), so nothing big is ever held; `rata.dev_server.database_answer` cuts them to the call's
budget. An ``offset`` skips rows by stepping the cursor, under the same clock and heap.
`database_query` runs each query in a short-lived process of its own (`run_query_isolated`),
killed if it outlives its time limit, where the process-wide heap cap holds for it alone.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from rata._record import Record
from rata.errors import RataError

MAX_ROWS = 1_000
DEFAULT_ROWS = 100
MAX_OFFSET = 1_000_000_000  # rows skipped by stepping the cursor; the time limit stops a long skip first
TIME_LIMIT_MS = 2_000
CELL_CHARS = 200
MAX_COLUMNS = 100
FETCH_BYTES = 75_000  # the rows as compact JSON: a 25,000-token budget at 3 bytes a token (rata.tokens); more never fits
VALUE_BYTES = 1_000_000  # any one string or blob, stored or computed (SQLITE_LIMIT_LENGTH)
SQL_BYTES = 100_000
HEAP_BYTES = 64 * 1024 * 1024  # SQLite's memory in the whole process (PRAGMA hard_heap_limit)
PROGRESS_STEPS = 100  # virtual-machine steps between two looks at the clock

# SQLite's own limits on every connection; see https://www.sqlite.org/limits.html.
LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: VALUE_BYTES,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: SQL_BYTES,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 100,
    sqlite3.SQLITE_LIMIT_VDBE_OP: 100_000,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 100,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1_000,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_WORKER_THREADS: 0,
}

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
    # readonly_shm: the -shm index is opened read-only, so no read mark is ever written into it.
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "&readonly_shm=1")
    conn = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False, isolation_level=None)
    for limit, value in LIMITS.items():
        conn.setlimit(limit, value)
    conn.text_factory = _text  # text that is not valid UTF-8 is shown, not an error
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(_authorizer)
    if hasattr(conn, "enable_load_extension"):  # absent when Python was built without extension loading
        conn.enable_load_extension(False)
    return conn


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


_JOURNAL_MODE = re.compile(r"^\s*PRAGMA\s+(?:main\.)?journal_mode\s*;?\s*$", re.IGNORECASE)


class ReadOnlyConnection:
    """A read-only connection that writes nothing beside the database and never serves stale pages.

    While the app is not running (no ``-wal`` file), SQLite is told the file is ``immutable``:
    a plain read-only reader of a WAL database would otherwise create ``-wal`` and ``-shm``
    files next to it. Immutable reads trust that the file does not change, so before each
    statement the file's size and modification time are compared with those at opening, and
    the connection is opened again if the app has written since. While the app is running,
    its ``-wal`` and ``-shm`` exist and are only read: ``readonly_shm`` keeps SQLite from
    writing its read marks into the ``-shm``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wal = path.with_name(path.name + "-wal")
        self._shm = path.with_name(path.name + "-shm")
        self._conn: sqlite3.Connection | None = None
        self._stamp: tuple[int, int, bool] | None = None
        self.immutable = False

    def stamp(self) -> tuple[int, int, bool]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            raise sqlite3.OperationalError(f"unable to open database file: {self.path} does not exist") from None
        wal = self._wal.exists()
        if wal and not self._shm.exists():
            raise QueryRefused(
                f"{self._wal.name} is there but {self._shm.name} is not, and this read-only server does not create it.",
                hint="If the app is starting, ask again in a moment; else start the app once (SQLite rebuilds the -shm index), then ask again.",
            )
        return (stat.st_size, stat.st_mtime_ns, wal)

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
        return self.execute_on(self.connection(), sql, parameters)

    def execute_on(self, conn: sqlite3.Connection, sql: str, parameters: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """Run `sql` on `conn`, got from `connection()` (so that a handler set on it stays on it)."""
        if self.immutable and _JOURNAL_MODE.match(sql):
            # An immutable open reports "delete"; the file header says what the database really uses.
            return conn.execute("SELECT ? AS journal_mode", (_journal_mode_from_header(self.path),))
        return conn.execute(sql, parameters)

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
    """The rows of one statement from `offset` on: `skipped` rows were stepped over (fewer than asked when the result ended
    first), then `rows`; `more_rows` when rows follow them (past `limit` or past `FETCH_BYTES`); `columns_total` the result's
    own column count (the first `MAX_COLUMNS` are shown)."""

    __slots__ = ("columns", "rows", "row_count", "more_rows", "elapsed_ms", "skipped", "columns_total")
    _defaults = {"skipped": 0, "columns_total": 0}
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    more_rows: bool
    elapsed_ms: float
    skipped: int
    columns_total: int


def limit_process_heap(limit: int = HEAP_BYTES) -> None:
    """Cap the memory SQLite may allocate in this process (lowered only: a lower cap already set stays).

    The cap is process-wide: it holds for every SQLite connection of the process, which is
    why it is set only in a query's own process (`run_query_isolated`), never in the server's.
    """
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"PRAGMA hard_heap_limit = {int(limit)}")
        conn.execute(f"PRAGMA soft_heap_limit = {int(limit) // 2}")
    finally:
        conn.close()


def run_query(
    conn: ReadOnlyConnection, sql: str, limit: int = DEFAULT_ROWS, time_limit_ms: int = TIME_LIMIT_MS, offset: int = 0, fetch_bytes: int = FETCH_BYTES
) -> QueryResult:
    """Run one read-only statement; skip `offset` rows, then at most `limit` rows come back, and whether there were more.

    If the app wrote to the database while the statement ran, it runs once more on a fresh
    connection, so an answer never mixes pages from before and after.
    """
    result = _run_query(conn, sql, limit, time_limit_ms, offset, fetch_bytes)
    if conn.changed():
        result = _run_query(conn, sql, limit, time_limit_ms, offset, fetch_bytes)
    return result


def _run_query(conn: ReadOnlyConnection, sql: str, limit: int, time_limit_ms: int, offset: int, fetch_bytes: int) -> QueryResult:
    text = sql.strip()
    if not text:
        raise QueryRefused("The SQL is empty.", hint="Pass one SELECT statement, e.g. SELECT * FROM customers LIMIT 10.")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise QueryRefused(f"The SQL is not valid Unicode: {error.reason} at character {error.start}.", hint="Send the SQL as plain UTF-8 text.") from None
    if size > SQL_BYTES:
        raise QueryRefused(f"The SQL is {size:,} bytes long; the limit is {SQL_BYTES:,}.", hint="Send a shorter statement.")
    deadline = time.monotonic() + time_limit_ms / 1000
    connection = conn.connection()
    connection.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, PROGRESS_STEPS)
    started = time.perf_counter()
    try:
        cursor = conn.execute_on(connection, text)
        try:
            result = _fetch(cursor, limit, offset, fetch_bytes)
        finally:
            cursor.close()
    except sqlite3.ProgrammingError as error:
        raise QueryRefused(f"The SQL was refused: {str(error).rstrip('.')}.", hint="Send exactly one statement per call.") from None
    except sqlite3.DatabaseError as error:
        raise _refusal(str(error), time_limit_ms) from None
    except MemoryError:  # SQLite ran out of its heap cap (Python's sqlite3 turns SQLITE_NOMEM into MemoryError)
        raise QueryRefused(
            f"The query needed more than SQLite's memory cap of {HEAP_BYTES // (1024 * 1024)} MiB and was stopped.",
            hint=_NARROW,
        ) from None
    finally:
        connection.set_progress_handler(None, 0)
    result.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
    return result


_NARROW = "Narrow it: add WHERE or LIMIT, select fewer columns, and look at big values with length(x) or substr(x, 1, 200) instead of whole."


def _refusal(message: str, time_limit_ms: int) -> QueryRefused:
    if "interrupted" in message:
        return QueryRefused(f"The query ran longer than {time_limit_ms} ms and was stopped.", hint=_NARROW)
    if "too big" in message:
        return QueryRefused(
            f"A value in the query (a string or blob, stored or computed) is longer than the limit of {VALUE_BYTES:,} bytes, so the query was stopped.",
            hint="Do not build large values; for a big stored blob, select length(x) or typeof(x). "
            "A stored value over the limit cannot be read through database_query.",
        )
    if "authoriz" in message or "readonly" in message or "read-only" in message or "query_only" in message:
        return QueryRefused(
            f"The statement was refused: {message}. This connection is read-only.",
            hint="Only SELECT, WITH ... SELECT, EXPLAIN and reading pragmas are allowed; change data through the app's commands or a migration.",
        )
    if any(word in message for word in ("too many", "too large", "too long", "too complex", "overflow")):
        return QueryRefused(
            f"SQLite said: {message}. This connection caps the size of a statement (see the bounds of database_query).",
            hint="Split the query or simplify it: fewer terms, columns or nested expressions.",
        )
    return QueryRefused(f"SQLite said: {message}.", hint="Check the SQL against database_schema.")


def _fetch(cursor: sqlite3.Cursor, limit: int, offset: int, fetch_bytes: int) -> QueryResult:
    """Skip `offset` rows, then rows one at a time, each cut as it comes, until `limit` rows or `fetch_bytes` of them as JSON."""
    names = [d[0] for d in cursor.description or []]
    shown = len(names) if len(names) <= MAX_COLUMNS else MAX_COLUMNS
    columns = [_cut(str(name)) for name in names[:shown]]
    skipped = 0
    while skipped < offset and cursor.fetchone() is not None:
        skipped += 1
    rows: list[list[Any]] = []
    size = 0
    more = False
    while True:
        row = cursor.fetchone()
        if row is None:
            break
        if len(rows) >= limit or (rows and size > fetch_bytes):
            more = True
            break
        cells = [_cell(value) for value in row[:shown]]
        del row
        size += sum(_json_bytes(cell) for cell in cells) + 2  # its brackets and the comma after it
        rows.append(cells)
    return QueryResult(columns, rows, len(rows), more, 0.0, skipped, len(names))


def _json_bytes(value: Any) -> int:
    """About how many bytes `value` takes in compact JSON (at least that many): its text, quotes and separator."""
    if isinstance(value, str):
        return len(value) + 3 if value.isascii() and value.isprintable() else len(json.dumps(value, ensure_ascii=False).encode()) + 1
    return len(str(value)) + 1


def _cut(text: str) -> str:
    return text[:CELL_CHARS] + f"... ({len(text)} chars)" if len(text) > CELL_CHARS else text


def _cell(value: Any) -> Any:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str):
        return _cut(value)
    return value


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


_KINDS = ("table", "view", "trigger")


def schema_objects(conn: sqlite3.Connection, name_filter: str = "", after: str | None = None, summary: bool = False) -> list[tuple[str, str, str, str | None]]:
    """The tables, views and triggers (kind, name, table, sql) by name (a table before a view or trigger of the same name).

    `name_filter`: only those whose name, or whose table's name, contains it (case ignored); `after`: only those whose
    name sorts after it; `summary`: tables only."""
    needle = name_filter.lower()
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view', 'trigger')"
    ).fetchall()
    found = [
        (str(kind), str(name), str(table or ""), sql if sql is None else str(sql))
        for kind, name, table, sql in rows
        if (not needle or needle in str(name).lower() or needle in str(table or "").lower())
        and (after is None or str(name) > after)
        and (kind == "table" or not summary)
    ]
    return sorted(found, key=lambda o: (o[1], _KINDS.index(o[0])))


def describe(conn: sqlite3.Connection, kind: str, name: str, table: str, sql: str | None, summary: bool) -> dict[str, Any]:
    """One object of `schema_objects` as the schema answer shows it: a table with its details (or only its row count), a view, a trigger."""
    if kind == "table":
        return _table(conn, name, summary)
    if kind == "view":
        return {"name": name, "sql": sql}
    return {"name": name, "table": table, "sql": sql}


def _schema(conn: sqlite3.Connection, summary: bool, name_filter: str) -> dict[str, Any]:
    found: dict[str, list[dict[str, Any]]] = {"tables": [], "views": [], "triggers": []}
    for kind, name, table, sql in schema_objects(conn, name_filter, None, summary):
        found[kind + "s"].append(describe(conn, kind, name, table, sql, summary))
    return found


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


# --- a process of its own -----------------------------------------------------------------------

GRACE_MS = 1_000  # past the time limit (and the worker's start), before the worker process is killed
WORKER_MEMORY_BYTES = 1024 * 1024 * 1024  # the worker's address space (RLIMIT_AS), where the platform has it
WORKERS = 2  # query processes at a time; a call waits (up to the time limit and grace) for one
_WORKER_SLOTS = threading.BoundedSemaphore(WORKERS)


def run_query_isolated(
    path: Path, sql: str, limit: int = DEFAULT_ROWS, time_limit_ms: int = TIME_LIMIT_MS, offset: int = 0, fetch_bytes: int = FETCH_BYTES
) -> QueryResult:
    """`run_query` in a short-lived process of its own, killed if it outlives its time limit.

    SQLite looks at the clock only between steps of its program, and a single step (instr()
    or replace() on two values near the length limit) can take seconds; a process can be
    stopped at any moment. Its memory caps (SQLite's heap, the address space) hold for it
    alone, not for the server that starts it. At most `WORKERS` run at a time.
    """
    if not _WORKER_SLOTS.acquire(timeout=(time_limit_ms + GRACE_MS) / 1000):
        raise QueryRefused(
            f"{WORKERS} queries were already running for longer than the time limit; this one was not started.", hint="Ask again when they are done."
        )
    try:
        return _run_in_worker(path, sql, limit, time_limit_ms, offset, fetch_bytes)
    finally:
        _WORKER_SLOTS.release()


def _run_in_worker(path: Path, sql: str, limit: int, time_limit_ms: int, offset: int, fetch_bytes: int) -> QueryResult:
    import subprocess
    import sys

    request = json.dumps(
        {"path": str(path), "sql": sql, "limit": limit, "time_limit_ms": time_limit_ms, "offset": offset, "fetch_bytes": fetch_bytes}
    ).encode()
    root = str(Path(__file__).resolve().parents[2])  # where rata is, should it only be on PYTHONPATH
    code = f"import sys; sys.path.append({root!r}); from rata.dev_server.database import _worker_main; _worker_main()"
    # -I: nothing from the project's folder or the environment can shadow a module; -B: no bytecode written.
    try:
        process = subprocess.Popen([sys.executable, "-I", "-B", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as error:
        raise QueryRefused(f"The query's process could not be started: {error}.", hint="Ask again in a moment.") from None
    try:
        out, err = process.communicate(request, timeout=(time_limit_ms + GRACE_MS) / 1000)
    except subprocess.TimeoutExpired:
        raise QueryRefused(f"The query ran longer than {time_limit_ms} ms and was stopped.", hint=_NARROW) from None
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    try:
        answer = json.loads(out)
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or not ("result" in answer or "error" in answer):
        said = err.decode("utf-8", "replace").strip()[-1_000:] or f"exit status {process.returncode}"
        raise QueryRefused(f"The query's process stopped without an answer ({said}).", hint=_NARROW)
    if "error" in answer:
        raise QueryRefused(answer["error"]["message"], hint=answer["error"]["hint"])
    found = answer["result"]
    return QueryResult(*(found[name] for name in QueryResult.__slots__))


def _worker_main() -> None:
    """The worker's side: one request on stdin, one answer (JSON) on stdout."""
    import sys

    request = json.loads(sys.stdin.buffer.read())
    _bound_worker(int(request["time_limit_ms"]))
    try:
        conn = connect_read_only(Path(request["path"]))
        try:
            result = run_query(
                conn, request["sql"], int(request["limit"]), int(request["time_limit_ms"]), int(request["offset"]), int(request["fetch_bytes"])
            )
        finally:
            conn.close()
        answer: dict[str, Any] = {"result": {name: getattr(result, name) for name in QueryResult.__slots__}}
    except RataError as error:
        answer = {"error": {"message": error.message, "hint": error.hint}}
    except (sqlite3.Error, OSError) as error:  # the file went away or cannot be opened
        answer = {"error": {"message": f"The database could not be opened: {error}.", "hint": "Check that the app's database exists (app_info says where)."}}
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()


def _bound_worker(time_limit_ms: int) -> None:
    import signal

    limit_process_heap()
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, WORKER_MEMORY_BYTES))
    except (ImportError, ValueError, OSError):  # no such limit on this platform, or not allowed lower
        pass
    if hasattr(signal, "alarm"):  # never outlive the server's wait, even if the server is gone
        signal.alarm((time_limit_ms + GRACE_MS) // 1000 + 2)
