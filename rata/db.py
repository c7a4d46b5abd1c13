"""The app's SQLite database: one connection per thread, and each call's unit of work on it.

    with UnitOfWork(database) as work:      # what `App.dispatch` does around every command
        work.connection.execute(...)        # `ctx.db`: opened on first use
    work.tables.reads, work.changed         # what the call read; what its commit changed

`UnitOfWork` owns one call's transaction: it opens the thread's connection when first asked
for it, commits when the call returns, rolls back when it raises, and holds the
`TableTracker` that hears which tables the call read and wrote (for live queries). `Database`
keeps the connections, one per thread, each with an authorizer that reports every table a
statement touches to the thread's tracker, replaying the reports of statements SQLite runs
from its cache (`_Connection`). This is the app's own read-write database; the dev MCP
server's read-only view of it is `rata.dev_server.database`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any, cast

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.folder import AppFolder

Report = tuple[int, "str | None", "str | None", "str | None", "str | None"]
"""What SQLite tells an authorizer: action, two arguments, database, trigger or view."""

Tracker = Callable[[int, "str | None", "str | None", "str | None", "str | None"], int]
"""An authorizer: hears every report, answers ``sqlite3.SQLITE_OK`` (or refuses)."""

_READ = sqlite3.SQLITE_READ
_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
_IGNORED_PREFIXES = ("sqlite_", "rata_")
_NOTHING: frozenset[str] = frozenset()


class TableTracker:
    """An authorizer that records table reads and writes and allows everything."""

    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()

    def __call__(self, action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
        if arg1 and not arg1.startswith(_IGNORED_PREFIXES):
            if action == _READ:
                self.reads.add(arg1)
            elif action in _WRITES:
                self.writes.add(arg1)
        return sqlite3.SQLITE_OK

    @staticmethod
    def tables(reports: Iterable[Report]) -> tuple[frozenset[str], frozenset[str]]:
        """The tables these authorizer reports read and write, as a tracker hearing them would record them."""
        tracker = TableTracker()
        for report in reports:
            tracker(*report)
        return frozenset(tracker.reads), frozenset(tracker.writes)

    def add(self, reads: Iterable[str], writes: Iterable[str]) -> None:
        """Record these tables as read and written (what `tables` found in reports heard before, or a nested unit's)."""
        self.reads.update(reads)
        self.writes.update(writes)


class _Thread:
    """One thread's connection (and the folder it is for), the tracker its statements report to, and its open unit of work."""

    __slots__ = ("conn", "path", "folder", "tracker", "work")

    def __init__(self) -> None:
        self.conn: _Connection | None = None
        self.path: str | None = None
        self.folder: AppFolder | None = None
        self.tracker: Tracker | None = None
        self.work: UnitOfWork | None = None


class _Local(threading.local):
    """Each thread's `_Thread`: one thread-local lookup per call, plain attributes after it (bench/run.py --only server)."""

    def __init__(self) -> None:
        self.thread = _Thread()


class Database:
    """The app's database as its commands use it: a connection per thread, reporting the tables each statement touches.

    `locate` returns the app's folder at the moment of asking (it follows ``RATA_HOME`` and
    `App.folder`), so a connection opened for one folder is closed when the folder changes.
    """

    def __init__(self, locate: Callable[[], AppFolder]) -> None:
        self._locate = locate
        self._local = _Local()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection to the app's SQLite database (rows are `sqlite3.Row`, WAL, foreign keys on)."""
        return self._connect(self._local.thread)

    def _connect(self, thread: _Thread) -> _Connection:
        folder = self._locate()
        conn = thread.conn
        if conn is not None:
            # The same folder object means the same file; another one is compared by path.
            if thread.folder is folder:
                return conn
            if thread.path == folder.database_file:
                thread.folder = folder
                return conn
            conn.close()
        folder.ensure()
        _create_private(folder.database_file)
        conn = sqlite3.connect(folder.database_file, timeout=5.0, factory=_Connection)
        conn.follow(thread)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # the usual WAL setting: no fsync per commit (bench/run.py --server-tool customers_store)
        thread.conn, thread.path, thread.folder = conn, folder.database_file, folder
        return conn

    def track(self, tracker: Tracker | None) -> None:
        """Report this thread's table reads and writes to `tracker` (None to stop); a unit of work does this itself."""
        self._local.thread.tracker = tracker

    def close(self) -> None:
        """Close this thread's connection."""
        thread = self._local.thread
        if thread.conn is not None:
            thread.conn.close()
            thread.conn = None


class UnitOfWork:
    """One call's work on the database, in a transaction this object owns.

    The connection is opened on first use of `connection`, and from then on every table a
    statement reads or writes goes to `tables`. Leaving the ``with`` block commits when it
    ends normally and rolls back when it raises (a commit that fails is rolled back too).

    A unit begun while another is open on the same thread (a command that calls
    ``ctx.app.call``) is nested: it runs inside the outer unit's transaction, in a savepoint.
    Its failure undoes only its own writes; its success leaves them to the outer commit, and
    its tables count as the outer unit's as well. Only the outermost unit commits, so only
    its `changed` names tables.
    """

    __slots__ = ("_database", "_thread", "_outer", "_conn", "_savepoint", "_previous", "tables", "changed")

    def __init__(self, database: Database) -> None:
        self._database = database
        self._conn: _Connection | None = None
        self.tables = TableTracker()
        """The tables this unit, and every unit nested in it, read and wrote."""
        self.changed: frozenset[str] = _NOTHING
        """The tables its commit changed: empty until then, and always for a nested unit (its outer unit commits)."""

    def __enter__(self) -> UnitOfWork:
        thread = self._thread = self._database._local.thread
        self._outer = thread.work
        thread.work = self
        return self

    @property
    def used(self) -> bool:
        """Whether the call opened the database (its `tables` are then all it read and wrote)."""
        return self._conn is not None

    @property
    def connection(self) -> sqlite3.Connection:
        """The connection this unit's statements run on, opened (and tracked) on first use."""
        conn = self._conn
        if conn is None:
            try:
                outer = self._outer
            except AttributeError:
                raise RuntimeError("A unit of work opens the database only inside its block: `with app.unit_of_work() as work:`.") from None
            if outer is not None:
                return self._join()
            thread = self._thread
            conn = self._conn = self._database._connect(thread)
            self._previous = thread.tracker
            thread.tracker = self.tables
        return conn

    def _join(self) -> _Connection:
        """Open a nested unit: a savepoint in the outer unit's transaction, begun now if it had not used the database yet."""
        outer = self._outer
        assert outer is not None
        conn = cast(_Connection, outer.connection)  # every connection rata opens is a _Connection (`Database._connect`)
        if not conn.in_transaction:
            conn.execute("BEGIN")
        depth, unit = 0, outer
        while unit is not None:
            depth, unit = depth + 1, unit._outer
        self._savepoint = f"rata_unit_{depth}"
        conn.execute(f"SAVEPOINT {self._savepoint}")
        thread = self._thread
        self._previous = thread.tracker
        thread.tracker = self.tables
        self._conn = conn
        return conn

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        thread = self._thread
        thread.work = self._outer
        conn = self._conn
        if conn is None:
            return
        thread.tracker = self._previous
        if self._outer is not None:
            self._leave(conn, exc_type is None)
        elif conn.in_transaction:
            if exc_type is not None:
                conn.rollback()
                return
            try:
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
        elif exc_type is not None:
            return
        writes = self.tables.writes
        if writes and self._outer is None:
            self.changed = frozenset(writes)

    def _leave(self, conn: _Connection, ok: bool) -> None:
        """Close a nested unit's savepoint: released into the outer transaction, or rolled back to."""
        savepoint = self._savepoint
        if ok:
            conn.execute(f"RELEASE {savepoint}")
            assert self._outer is not None
            self._outer.tables.add(self.tables.reads, self.tables.writes)
        elif conn.in_transaction:  # not when the failure already rolled back the whole transaction
            try:
                conn.execute(f"ROLLBACK TO {savepoint}")
                conn.execute(f"RELEASE {savepoint}")
            except sqlite3.Error:
                pass  # the savepoint is gone with what undid it; the command's own error is the one to report


class _Connection(sqlite3.Connection):
    """The app's SQLite connection: it keeps prepared statements, and still reports every table they touch.

    SQLite tells the authorizer which tables a statement reads and writes only while it
    prepares it; run again from the statement cache, it would read and write unseen, and a
    write would never reach the live registry. So every report is remembered with the SQL
    text being run, and replayed to the thread's tracker (the unit of work's `TableTracker`,
    or `Database.track`'s) each time that text runs again: the same reports as preparing it
    anew, without paying for it (bench/run.py --only server: calls per second).
    """

    MAX_REMEMBERED = 1024
    """Distinct SQL texts remembered; past that all are forgotten and every statement is prepared anew once."""

    def follow(self, thread: _Thread) -> None:
        """Report to ``thread.tracker`` (the tracker of the thread this connection belongs to), from now on."""
        self._thread = thread
        self._reports: dict[str, set[Report]] = {}
        self._tables: dict[str, tuple[int, frozenset[str], frozenset[str]]] = {}
        """For each SQL text, the tables its reports name, with how many reports that was worked out from."""
        self._learning: set[Report] | None = None
        self._replayed = False
        """Whether `_before` gave a `TableTracker` the tables of every report in `_learning` (so hearing one again adds nothing)."""
        self.set_authorizer(self._authorize)

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
        learning = self._learning
        if learning is not None:
            report = (action, arg1, arg2, db, source)
            if report not in learning:
                learning.add(report)
            elif self._replayed:
                # hot path: bench/run.py --only server (throughput): a statement SQLite prepares anew on every run (a LIKE
                # with a bound pattern) reports what `_before` already gave the unit's tracker, which answers OK to all
                return sqlite3.SQLITE_OK
        tracker = self._thread.tracker
        return tracker(action, arg1, arg2, db, source) if tracker is not None else sqlite3.SQLITE_OK

    def _before(self, sql: Any) -> set[Report] | None:
        """Start remembering reports for `sql`; the ones already remembered go to the tracker."""
        self._replayed = False
        if not isinstance(sql, str):
            self._learning = None
            return None
        reports = self._reports.get(sql)
        if reports is None:
            if len(self._reports) >= self.MAX_REMEMBERED:
                self._reports.clear()
                self._tables.clear()
                self.set_authorizer(self._authorize)  # expires every prepared statement: each reports again
            reports = self._reports[sql] = set()
        self._learning = reports
        tracker = self._thread.tracker
        if tracker is not None and reports:
            if type(tracker) is TableTracker:  # bench/run.py --only server: a unit's tracker gets the tables, worked out once per text
                tables = self._tables.get(sql)
                if tables is None or tables[0] != len(reports):  # reports only grow (a statement prepared anew)
                    tables = self._tables[sql] = (len(reports), *TableTracker.tables(reports))
                tracker.add(tables[1], tables[2])
                self._replayed = True
            else:
                for report in list(reports):
                    tracker(*report)
        return reports

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        # hot path: bench/run.py --only server (throughput): what `_Cursor.execute` does, without its frame
        cursor = sqlite3.Connection.cursor(self, _Cursor)
        self._before(sql)
        try:
            return sqlite3.Cursor.execute(cursor, sql, parameters)
        finally:
            self._learning = None

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        return sqlite3.Connection.cursor(self, _Cursor).executemany(sql, parameters)

    def cursor(self, factory: Any = None) -> sqlite3.Cursor:
        return super().cursor(factory or _Cursor)


class _Cursor(sqlite3.Cursor):
    """A cursor of `_Connection`, reporting tables the same way."""

    if TYPE_CHECKING:  # for the checker only: a _Cursor is only ever made by a _Connection

        @property
        def connection(self) -> _Connection: ...

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        conn: _Connection = self.connection
        conn._before(sql)
        try:
            return sqlite3.Cursor.execute(self, sql, parameters)  # not super(): one object less per statement (bench/run.py --only server)
        finally:
            conn._learning = None

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        conn: _Connection = self.connection
        conn._before(sql)
        try:
            return super().executemany(sql, parameters)
        finally:
            conn._learning = None


def _create_private(path: str) -> None:
    """Create an empty database file 0600 before SQLite does (it would use the umask, often 0644).

    SQLite treats an empty file as a new database, and gives its -wal and -shm the database's mode.
    """
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError:
        pass  # sqlite3.connect below reports an unusable path in its own words
