"""The app's database brought up to date when the app starts: rata's rule for every way an app starts.

    started = on_start(app)        # the window, --headless, --mcp, `rata mcp serve`, the bundle, `rata dev`
    report = upgrade(app)          # `rata migrate`, `crm --migrate`: the same lock, backup and checks

A desktop app migrates its own database, so a user who installs it (a ``.mcpb`` in Claude
Desktop, say) never has a step to run. Designed for a user's data:

- pending migrations are applied once, under a lock file in the app's folder (`LOCK_FILE`), so two
  processes starting the same app at once do not race; the second waits (at most `LOCK_WAIT_S`),
  then finds nothing left to do. Each migration runs in its own transaction (`rata.migrations`);
- before an existing database with data in it is changed, a consistent copy is kept beside it
  (SQLite's backup API), named for the migration it was taken before (``app-before-0002.db``); the
  newest `BACKUPS_KEPT` are kept, older ones removed;
- a database newer than the app (a migration applied that the app does not have: a downgrade) is
  never written to, not even to record migrations: `DatabaseNewerError`;
- a failure does not stop the app: `on_start` records it on the app (``app.database_problem``) and
  logs it once, and every command or resource the app runs answers it (`refusal`) instead of a raw
  SQLite error;
- ``App(..., migrate_on_start=False)`` opts out: `on_start` then only checks (read-only), and a
  pending migration is refused with the step to run, until it has been run.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

from rata.errors import DatabaseNewerError, DatabaseNotReadyError, MigrationError, MigrationFailedError, MigrationsPendingError, RataError
from rata.logs import LazyLogger

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any

    from rata.folder import AppFolder
    from rata.migrations import MigrateReport, Migration

    App = Any  # a `rata.app.App` (not imported: rata.app uses this module)

# rata.migrations (and pathlib with it) is imported only when there is something to do: a start that finds the
# database up to date, or an app with neither migrations nor a database, goes without (tests/test_upgrade.py,
# tests/test_layers.py).

log = LazyLogger("rata")

BACKUPS_KEPT = 3
"""How many copies of the database taken before an upgrade are kept beside it (the newest)."""
LOCK_FILE = "migrate.lock"
LOCK_WAIT_S = 30.0
"""How long a start waits for another process that is migrating the same database."""
_LOCK_POLL_S = 0.05
BACKUP = re.compile(r"^app-before-(\d+)\.db$")
"""The names of the copies rata keeps (and the only files it removes)."""
_LEFTOVER = re.compile(r"^app-before-\d+\.db\.\d+\.tmp$")  # a copy whose writer died before renaming it


def backup_name(version: int) -> str:
    """The copy of the database taken before migration `version` was applied."""
    return f"app-before-{version:04d}.db"


@dataclass(frozen=True)
class Started:
    """What the start did to the database: the migrations applied, the copy kept, or the problem every call will answer."""

    applied: list[Migration] = field(default_factory=list)
    backup: Path | None = None
    problem: MigrationError | None = None
    report: MigrateReport | None = None


def on_start(app: App) -> Started:
    """Bring the app's database up to date as the app starts (or, opted out, check it); never raises a `MigrationError`.

    A problem is kept on the app (``app.database_problem``), logged once, and returned: the caller
    says it once on stderr; every call the app runs answers it (`refusal`).
    """
    if _up_to_date(app):
        app.database_problem = None
        return Started()
    try:
        report = upgrade(app) if app.migrate_on_start else check(app)
    except MigrationError as problem:
        if isinstance(problem, MigrationFailedError):  # said to whoever started the app, and to every agent's call
            problem.hint = (
                f"The app's developer must fix what the error names (the migration's SQL, or what the database holds); the app applies "
                f"pending migrations when it next starts (or run `{app.name} --migrate`). Until then it leaves the database as it is."
            )
        app.database_problem = problem
        # once, with the SQLite error's traceback when there is one (`rata mcp dev`'s last_error shows it to the developer's agent)
        cause = problem.__cause__
        trace = (type(cause), cause, cause.__traceback__) if cause else None
        log.error("the app's database is not ready, so every call answers this: %s", problem, exc_info=trace)
        return Started(problem=problem)
    app.database_problem = None
    for migration in report.applied:
        log.info("applied migration %s", migration.filename)
    if report.backup is not None:
        log.info("kept a copy of the database from before the upgrade: %s", report.backup)
    return Started(list(report.applied), report.backup, None, report)


def on_start_in_background(app: App, then: Callable[[Started], None]) -> threading.Thread:
    """`on_start` on a thread of its own, so that a server answers ``initialize`` and ``tools/list`` meanwhile; a call
    that comes before it is done waits for it (`refusal`). `then` gets what it did, on that thread, before any call goes on."""
    underway = _Underway()
    app.database_problem = underway

    def run() -> None:
        try:
            started = on_start(app)
        except BaseException as error:  # noqa: BLE001 - a folder that cannot be made private, say: every call hears it, none waits forever
            log.exception("the app's database could not be prepared")
            said = error.message if isinstance(error, RataError) else f"{type(error).__name__}: {error}"
            app.database_problem = started_problem = MigrationError(
                f"The app's database could not be prepared: {said}", hint=getattr(error, "hint", None) or "Fix that, then start the app again."
            )
            started = Started(problem=started_problem)
        try:
            then(started)
        finally:
            underway.done.set()

    thread = threading.Thread(target=run, name="rata-migrate", daemon=True)  # a migration cut short by exit is rolled back
    thread.start()
    return thread


class _Underway(MigrationError):
    """The app's state while `on_start_in_background` runs: calls wait for it."""

    def __init__(self) -> None:
        super().__init__("The app's database is being brought up to date.")
        self.done = threading.Event()


def refusal(app: App) -> DatabaseNotReadyError | None:
    """The error a call answers while the app's database is not ready; None once it is (an opted-out app's step was run).

    While the start's migrations run on their thread (`on_start_in_background`), it waits for them first."""
    problem = app.database_problem
    if problem is None:
        return None
    if isinstance(problem, _Underway):
        problem.done.wait()
        return refusal(app)
    if isinstance(problem, MigrationsPendingError):
        try:
            check(app)
        except MigrationError as still:
            problem = app.database_problem = still
        else:
            app.database_problem = None
            return None
    return DatabaseNotReadyError(f"The app's database is not ready. {problem.message}", hint=problem.hint)


def _up_to_date(app: App) -> bool:
    """True when there is nothing to do: no migrations and no database, or every migration file's version recorded and
    none beyond. Decided with os, re and one read-only query, so that a server's usual start imports none of
    `rata.migrations` (about 15 ms); anything else, odd names included, is left to `upgrade` and `check`."""
    where = app.migrations_where
    try:
        names = os.listdir(where) if os.path.isdir(where) else []
    except OSError:
        return False
    versions = set()
    for name in names:
        if name.endswith(".sql"):
            match = _FILE_NAME.match(name)
            if match is None or int(match.group(1)) in versions:  # a misnamed or doubled file: `discover` says what is wrong
                return False
            versions.add(int(match.group(1)))
    path = app.folder.database_file
    if not os.path.exists(path):
        return not versions
    try:
        conn = sqlite3.connect(_read_only_uri(path), uri=True, timeout=5.0)
        try:
            if conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'rata_migrations'").fetchone() is None:
                return not versions
            recorded = {row[0] for row in conn.execute("SELECT version FROM rata_migrations")}
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return recorded == versions


_FILE_NAME = re.compile(r"^(\d+)_[A-Za-z0-9_]+\.sql$")  # rata.migrations.FILE_NAME, without importing it


def _read_only_uri(path: str) -> str:
    """An SQLite URI that opens `path` read-only (``mode=ro``), percent-encoded without urllib."""
    path = os.path.abspath(path).replace(os.sep, "/")
    if not path.startswith("/"):  # C:/... on Windows
        path = "/" + path
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "/-_.~:") else "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in path)
    return f"file:{safe}?mode=ro"


def where_it_stands(app: App) -> MigrateReport:
    """Every migration's state (`rata.migrations.status`), read without writing; a database not made yet has them all pending.

    Raises:
        MigrationError: a migration file is malformed, or the database cannot be read.
    """
    from rata.migrations import MigrateReport, MigrationStatus, discover, status

    with _unreadable(app):
        path = app.folder.database_file
        if not os.path.exists(path):
            return MigrateReport([], [MigrationStatus(m.version, m.name, "pending") for m in discover(app.migrations_dir)])
        with _read_only(path) as conn:
            return MigrateReport([], status(conn, app.migrations_dir))


def check(app: App) -> MigrateReport:
    """Where the database stands, read without writing; raises when the app cannot use it as it is.

    Raises:
        DatabaseNewerError: it has a migration the app does not have.
        MigrationsPendingError: it lacks one of the app's migrations.
        MigrationError: the database cannot be read.
    """
    with _unreadable(app):
        return _check(app)


def _check(app: App) -> MigrateReport:
    from rata.migrations import MigrateReport, applied_versions, discover, status

    migrations = discover(app.migrations_dir)
    path = app.folder.database_file
    if not os.path.exists(path):
        if migrations:
            raise _pending(app, migrations)
        return MigrateReport([], [])
    with _read_only(path) as conn:
        recorded = applied_versions(conn)
        _refuse_newer(app, recorded, migrations)
        pending = [m for m in migrations if m.version not in recorded]
        if pending:
            raise _pending(app, pending)
        return MigrateReport([], status(conn, app.migrations_dir))


def upgrade(app: App, *, lock_wait: float = LOCK_WAIT_S) -> MigrateReport:
    """Apply the app's pending migrations under the folder's lock, after keeping a copy of a database with data in it.

    Raises:
        DatabaseNewerError: the database has a migration the app does not have; nothing was written.
        MigrationFailedError: a migration failed and was rolled back (the ones before it stay applied).
        MigrationError: a migration file is malformed, the lock was not had in time, the copy could not be made, or the
            database cannot be read or written (not a database, a folder without the right to write).
    """
    with _unreadable(app):
        return _upgrade(app, lock_wait)


def _upgrade(app: App, lock_wait: float) -> MigrateReport:
    from rata.migrations import MigrateReport, applied_versions, discover, migrate, status

    migrations = discover(app.migrations_dir)
    folder = app.folder
    path = folder.database_file
    if os.path.exists(path):
        with _read_only(path) as conn:  # the common start: nothing to do, decided without the lock or a write
            recorded = applied_versions(conn)
            _refuse_newer(app, recorded, migrations)
            if all(m.version in recorded for m in migrations):
                return MigrateReport([], status(conn, app.migrations_dir))
    elif not migrations:
        return MigrateReport([], [])
    folder.ensure()
    with hold_lock(folder, lock_wait):
        conn = _read_write(path)
        try:
            recorded = applied_versions(conn)  # again: another process may have migrated while this one waited
            _refuse_newer(app, recorded, migrations)
            pending = [m for m in migrations if m.version not in recorded]
            backup = None
            if pending and (recorded or _has_tables(conn)):
                backup = keep_copy(conn, folder, pending[0].version)
            try:
                report = migrate(conn, app.migrations_dir)
            except MigrationFailedError as failed:
                raise MigrationFailedError(failed.migration, failed.said, failed.applied, backup=backup) from failed.__cause__
        finally:
            conn.close()
    return MigrateReport(report.applied, report.statuses, backup)


def hold_lock(folder: AppFolder, wait: float = LOCK_WAIT_S) -> _Lock:
    """The folder's migration lock, held for a ``with`` block (waits at most `wait` seconds, then `MigrationError`)."""
    return _Lock(folder.file(LOCK_FILE), wait)


class _Lock:
    """An exclusive lock on a file, across processes: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows.

    The operating system lets go of it when the process dies, so a crash leaves no stale lock.
    """

    def __init__(self, path: str, wait: float) -> None:
        self.path = path
        self.wait = wait
        self._fd: int | None = None

    def __enter__(self) -> _Lock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.wait
        try:
            while not _try_lock(fd):
                if time.monotonic() >= deadline:
                    raise MigrationError(
                        f"Another process kept the migration lock {self.path!r} for over {self.wait:g} s, so this one did not migrate the database.",
                        hint="Another copy of the app is applying migrations; let it finish, then start this one again.",
                    )
                time.sleep(_LOCK_POLL_S)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                _unlock(fd)
            finally:
                os.close(fd)


def _try_lock(fd: int) -> bool:
    if os.name == "nt":
        import msvcrt  # imported here: nothing on a server's start-up path loads it

        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl  # imported here, never at module import

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _unlock(fd: int) -> None:
    if os.name == "nt":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def keep_copy(conn: sqlite3.Connection, folder: AppFolder, version: int) -> Path:
    """A consistent copy of the database (SQLite's backup API) beside it, named for `version`; older copies beyond `BACKUPS_KEPT` removed.

    Raises:
        MigrationError: the copy could not be written (then nothing is migrated).
    """
    from pathlib import Path

    from rata.db import _create_private

    target = folder.file(backup_name(version))
    temp = f"{target}.{os.getpid()}.tmp"
    try:
        _create_private(temp)
        copy = sqlite3.connect(temp)
        try:
            conn.backup(copy)
        finally:
            copy.close()
        os.replace(temp, target)
    except (sqlite3.Error, OSError) as error:
        _remove(temp)
        raise MigrationError(
            f"Could not keep a copy of the database before migrating it ({error}), so it was not migrated.",
            hint=f"Free some space in {folder.where!r} (the copy needs about as much as the database), then start the app again.",
        ) from None
    prune(folder)
    return Path(target)


def prune(folder: AppFolder, keep: int = BACKUPS_KEPT) -> list[str]:
    """Remove the copies beyond the newest `keep` (and copies left half-written); only names rata writes are touched."""
    try:
        names = os.listdir(folder.where)
    except OSError:
        return []
    copies = sorted((int(m.group(1)), name) for name in names if (m := BACKUP.match(name)))
    doomed = [name for _, name in copies[: max(0, len(copies) - keep)]]
    doomed += [name for name in names if _LEFTOVER.match(name)]  # only under the lock: no other process is writing one
    for name in doomed:
        _remove(folder.file(name))
    return doomed


def _remove(path: str) -> None:
    with suppress(OSError):
        os.remove(path)


def _refuse_newer(app: App, recorded: dict[int, str], migrations: list[Migration]) -> None:
    newest = migrations[-1] if migrations else None
    ahead = [v for v in recorded if newest is None or v > newest.version]
    if not ahead:
        return
    top = max(ahead)
    knows = f"knows migrations only up to {newest.version:04d} ({newest.name})" if newest else "has no migrations"
    raise DatabaseNewerError(
        f"The database {app.folder.database_file!r} was written by a newer version of {app.name}: it has migration {top:04d} ({recorded[top]}) "
        f"applied, and this version ({app.version}) {knows}. rata does not change a database newer than the app.",
        hint=f"Run the newer version of {app.name} again, or restore a copy of the database taken before the upgrade (app-before-NNNN.db beside it).",
    )


def _pending(app: App, pending: list[Migration]) -> MigrationsPendingError:
    names = ", ".join(m.filename for m in pending)
    return MigrationsPendingError(
        f"It has migrations to apply ({names}), and {app.name} does not apply them when it starts (migrate_on_start=False).",
        hint=f"Run `{app.name} --migrate` (or `rata migrate` in the app's project), then call again.",
    )


def _has_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name != 'rata_migrations' LIMIT 1")
    return row.fetchone() is not None


@contextmanager
def _unreadable(app: App) -> Iterator[None]:
    """SQLite's and the file system's errors, outside a migration's own, as a `MigrationError` naming the database."""
    try:
        yield
    except (sqlite3.Error, OSError) as error:
        raise MigrationError(
            f"The database {app.folder.database_file!r} cannot be used: {error}.",
            hint="Check that the app's folder is yours and writable; a damaged database can be replaced by a copy kept beside it (app-before-NNNN.db).",
        ) from error


@contextmanager
def _read_only(path: str) -> Iterator[sqlite3.Connection]:
    """A connection that cannot write (SQLite's ``mode=ro``), closed after the ``with`` block."""
    conn = sqlite3.connect(_read_only_uri(path), uri=True, timeout=5.0)
    try:
        yield conn
    finally:
        conn.close()


def _read_write(path: str) -> sqlite3.Connection:
    from rata.db import _create_private

    _create_private(path)
    conn = sqlite3.connect(path, timeout=5.0)
    conn.execute("PRAGMA foreign_keys = ON")  # as the app's own connections have it (rata.db)
    conn.execute("PRAGMA journal_mode = WAL")
    return conn
