"""`rata migrate`: apply the app's pending migrations (or show where they stand)."""

from __future__ import annotations

from typing import Optional

import typer

from rata.cli.console import console, edge, safe, write_raw
from rata.cli.options import AppOption
from rata.codegen.catalog import dump_json
from rata.loader import load_app


@edge
def migrate(
    app: Optional[str] = AppOption,
    status_only: bool = typer.Option(False, "--status", help="Apply nothing; list each migration and its state."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Apply the app's pending migrations, each in one transaction, in order, after keeping a copy of the database."""
    from rata.upgrade import where_it_stands

    loaded = load_app(app)
    target = loaded.app
    folder = target.migrations_dir
    if not folder.is_dir():
        if as_json:
            write_raw(dump_json({"database": str(target.folder.database), "migrationsDir": str(folder), "backup": None, "applied": [], "migrations": []}))
            return
        console().print(safe(f"No migrations folder: looked for {folder}. Nothing to apply.", "warning"))
        return
    if status_only:
        report = where_it_stands(target)  # read-only: a status never makes or changes the database
    else:
        report = target.migrate()  # under the folder's lock, after a copy of the data (rata.upgrade); a failure names what this run applied
    if as_json:
        write_raw(dump_json({
            "database": str(target.folder.database),
            "migrationsDir": str(folder),
            "backup": None if report.backup is None else str(report.backup),
            "applied": [m.filename for m in report.applied],
            "migrations": [{"version": s.version, "name": s.name, "state": s.state, "appliedAt": s.applied_at} for s in report.statuses],
        }))
        return
    out = console()
    out.print(safe(f"Database: {target.folder.database}", "muted"))
    if report.backup is not None:
        out.print(safe(f"Kept a copy of the database from before this run: {report.backup}", "muted"))
    for migration in report.applied:
        out.print(safe(f"applied  {migration.filename}", "ok"))
    if status_only:
        for s in report.statuses:
            out.print(safe(f"{s.state:<8} {s.version:04d}_{s.name}", _STATE_STYLE.get(s.state)))
    elif not report.applied:
        out.print(safe("Nothing to apply; the database is up to date.", "ok"))
    err = console(stderr=True)
    for s in report.changed:
        err.print(
            safe(
                f"warning: migration {s.version:04d} ({s.name}) changed after it was applied on {s.applied_at}; it was not run again. "
                "Write a new migration for the change.",
                "warning",
            )
        )
    for s in report.missing:
        err.print(safe(f"warning: migration {s.version:04d} ({s.name}) was applied but its file is gone.", "warning"))


_STATE_STYLE = {"applied": "ok", "pending": "warning", "changed": "error", "missing": "error"}
