"""The live registry: which tables each live query read, which each command wrote.

Each call's unit of work (`rata.db.UnitOfWork`) hears which tables its command read and
wrote. After a live query runs, dispatch records what it read (`record_reads`); after a
command that wrote commits, `LiveRegistry.changed(tables)` tells the listeners (the MCP
server's subscriptions, later the windows) which live queries may now answer differently.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from collections.abc import Set as AbstractSet


class LiveRegistry:
    """What live queries read, and who wants to hear about writes."""

    def __init__(self) -> None:
        self._reads: dict[str, frozenset[str]] = {}
        self._listeners: list[Callable[[frozenset[str]], None]] = []
        self._lock = threading.Lock()

    def record_reads(self, command: str, tables: set[str]) -> None:
        # hot path: bench/run.py --only server (throughput, customers_show is live): after its first call a query reads
        # what it read before, so nothing is new: no lock and no new set (a dict read is atomic)
        known = self._reads.get(command)
        if known is not None and known.issuperset(tables):
            return
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

    def changed(self, written: AbstractSet[str]) -> None:
        if not written:
            return
        tables = frozenset(written)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(tables)
