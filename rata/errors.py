"""Typed errors. Library code raises these; the CLI shows them once, at the edge.

Every error carries a message that names the problem and, where there is one, a hint
that says how to fix it. The tree (exit codes where a class sets its own; a test keeps it true):

    RataError  (exit 1)
        ConfigError
        AppLoadError
        CodegenError
            SchemaBoundsError
        MigrationError
            MigrationFailedError
            DatabaseNewerError
            MigrationsPendingError
            DatabaseNotReadyError
        DispatchError
            UnknownCommandError
            ForbiddenError
            ConfirmationRequiredError
            ResultError
        DriftError  (exit 4)
        EndpointError
        WindowError
"""

from __future__ import annotations


class RataError(Exception):
    """Base of every error rata raises on purpose."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"


class ConfigError(RataError):
    """A project or command-line setting is missing or wrong."""


class AppLoadError(RataError):
    """The app could not be found, imported, or is not a `rata.App`."""


class CodegenError(RataError):
    """A command's signature or types cannot be expressed as a JSON Schema tool."""


class SchemaBoundsError(CodegenError):
    """A generated schema is deeper or larger than an agent should be shown."""


class MigrationError(RataError):
    """A migration file is malformed or failed to apply."""


class MigrationFailedError(MigrationError):
    """A migration failed and was rolled back; the ones before it in the same run stay applied."""

    def __init__(self, migration: str, said: str, applied: list[str], *, backup: object = None) -> None:
        before = f" Applied before it in this run: {', '.join(applied)}." if applied else ""
        copy = f" A copy of the database from before this run is at {str(backup)!r}." if backup else ""
        super().__init__(
            f"Migration {migration!r} failed: {said}. Nothing of it was applied; the database is as it was before it.{before}{copy}",
            hint="Fix the SQL and run the migration again; migrations run inside a transaction, so leave out BEGIN and COMMIT.",
        )
        self.migration = migration
        self.said = said
        self.applied = applied
        self.backup = backup


class DatabaseNewerError(MigrationError):
    """The database has a migration applied that the app does not have: it was written by a newer version of the app."""


class MigrationsPendingError(MigrationError):
    """The database has pending migrations and the app does not apply them when it starts."""


class DatabaseNotReadyError(MigrationError):
    """A call refused because the app's database could not be brought up to date when the app started."""


class DispatchError(RataError):
    """A command request could not be dispatched (unknown command, refused, bad result)."""


class UnknownCommandError(DispatchError):
    """No command of that name is registered."""


class ForbiddenError(DispatchError):
    """The request's origin is not granted the command's ability."""


class ConfirmationRequiredError(DispatchError):
    """An agent called a command that is granted only with confirmation, unconfirmed."""


class ResultError(DispatchError):
    """A command returned a value that does not match its declared return type."""


class DriftError(RataError):
    """A saved surface or catalog no longer matches the app."""

    exit_code = 4


class EndpointError(RataError):
    """The running app's private endpoint could not be opened, reached or trusted."""


class WindowError(RataError):
    """A window or its backend failed: a JS error, a closed window, a missing browser or toolkit."""
