"""`Ctx`: what a command gets besides its arguments.

Declare a parameter typed `Ctx` and dispatch passes it in; it is never part of the schema.
"""

from __future__ import annotations

from typing import Any, Protocol

from rata.logs import get_logger

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    import logging
    import sqlite3

    from rata.db import TableTracker, UnitOfWork
    from rata.dispatch import CommandRequest, Origin
    from rata.events import Events
    from rata.folder import AppFolder
    from rata.live import LiveRegistry


class AppLike(Protocol):
    """What a command may use of its app through ``ctx.app`` (`rata.App` is one; named here so this module needs no `App`)."""

    name: str
    identifier: str
    version: str
    description: str
    events: Events
    live: LiveRegistry

    @property
    def folder(self) -> AppFolder: ...

    def call(self, name: str, /, **args: Any) -> Any: ...

    def dispatch(self, request: CommandRequest) -> Any: ...


class Ctx:
    """The app, the request being served, and the call's database transaction (its unit of work)."""

    def __init__(self, app: AppLike, request: CommandRequest, work: UnitOfWork) -> None:
        self.app = app
        self.request = request
        self._work = work

    @property
    def origin(self) -> Origin:
        """Who called: the frontend, an agent (with its client name) or the app itself."""
        return self.request.origin

    @property
    def db(self) -> sqlite3.Connection:
        """The app's SQLite database; the command runs in one transaction, committed when it returns."""
        return self._work.connection

    @property
    def tables(self) -> TableTracker:
        """The tables this command read and wrote (for live queries)."""
        return self._work.tables

    @property
    def log(self) -> logging.Logger:
        """The app's logger (JSON lines in the app folder's logs/)."""
        return get_logger(self.app.name)
