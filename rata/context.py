"""`Ctx`: what a command gets besides its arguments.

Declare a parameter typed `Ctx` and dispatch passes it in; it is never part of the schema.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from rata.live import TableTracker
from rata.logs import get_logger

if TYPE_CHECKING:
    import logging

    from rata.app import App
    from rata.dispatch import CommandRequest, Origin


class Ctx:
    """The app, the request being served, and the app's database."""

    def __init__(self, app: App, request: CommandRequest) -> None:
        self.app = app
        self.request = request
        self._db: sqlite3.Connection | None = None
        self.tables = TableTracker()
        """The tables this command read and wrote (for live queries)."""

    @property
    def origin(self) -> Origin:
        """Who called: the frontend, an agent (with its client name) or the app itself."""
        return self.request.origin

    @property
    def db(self) -> sqlite3.Connection:
        """The app's SQLite database; the command runs in one transaction, committed when it returns."""
        if self._db is None:
            self._db = self.app.database()
            self.app.track_tables(self.tables)
        return self._db

    @property
    def log(self) -> logging.Logger:
        """The app's logger (JSON lines in the app folder's logs/)."""
        return get_logger(self.app.name)
