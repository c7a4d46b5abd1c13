"""The live registry: which tables each live query read, which each command wrote.

SQLite's authorizer callback reports every table a statement reads or writes while it is
prepared; `TableTracker` collects them for one command. After a command that wrote
commits, `LiveRegistry.changed(tables)` tells the listeners (the MCP server's
subscriptions, later the windows) which live queries may now answer differently.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable

_READ = sqlite3.SQLITE_READ
_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
_IGNORED_PREFIXES = ("sqlite_", "rata_")


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
    def tables(reports: Iterable[tuple[int, str | None, str | None, str | None, str | None]]) -> tuple[frozenset[str], frozenset[str]]:
        """The tables these authorizer reports read and write, as a tracker hearing them would record them."""
        tracker = TableTracker()
        for report in reports:
            tracker(*report)
        return frozenset(tracker.reads), frozenset(tracker.writes)

    def add(self, reads: frozenset[str], writes: frozenset[str]) -> None:
        """Record these tables as read and written (what `tables` found in reports heard before)."""
        self.reads.update(reads)
        self.writes.update(writes)


class LiveRegistry:
    """What live queries read, and who wants to hear about writes."""

    def __init__(self) -> None:
        self._reads: dict[str, frozenset[str]] = {}
        self._listeners: list[Callable[[frozenset[str]], None]] = []
        self._lock = threading.Lock()

    def record_reads(self, command: str, tables: set[str]) -> None:
        with self._lock:
            self._reads[command] = frozenset(tables) | self._reads.get(command, frozenset())

    def reads(self, command: str) -> frozenset[str] | None:
        """The tables this live query was seen to read; None until it has run once."""
        with self._lock:
            return self._reads.get(command)

    def affects(self, command: str, written: frozenset[str]) -> bool:
        """Whether a write to `written` may change this live query (unknown reads: assume yes)."""
        reads = self.reads(command)
        return reads is None or bool(reads & written)

    def listen(self, listener: Callable[[frozenset[str]], None]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def stop() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return stop

    def changed(self, written: set[str]) -> None:
        if not written:
            return
        tables = frozenset(written)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(tables)
