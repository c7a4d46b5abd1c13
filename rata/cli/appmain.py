"""The app's own command line: what `crm` (an app's console script) understands.

    def main() -> None:
        run_app(app)

``--migrate`` applies the app's migrations and exits; ``--mcp`` serves the app's MCP server
on stdio (headless). This path imports no Typer or rich, so it starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rata.app import App
from rata.errors import RataError
from rata.logs import configure_logging


def _parser(app: App) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog=app.name, description=app.description or f"{app.name} {app.version}, a rata app.")
    parser.add_argument("--version", action="version", version=f"{app.name} {app.version}")
    parser.add_argument("--migrate", action="store_true", help="apply pending migrations to the app's database and exit")
    parser.add_argument("--mcp", action="store_true", help="serve the app's MCP server on stdio (what MCP clients launch)")
    return parser


def run_app(app: App, argv: Sequence[str] | None = None) -> int:
    """Run the app's command line; returns the exit code (and exits with it when called as a script)."""
    if list(sys.argv[1:] if argv is None else argv) == ["--mcp"]:
        # What MCP clients launch, every session: skip argparse (its help formatter alone costs ~10 ms).
        return serve_mcp(app)
    args = _parser(app).parse_args(argv)
    try:
        configure_logging(app.folder, app.name)
        if args.migrate:
            report = app.migrate()
            for migration in report.applied:
                sys.stderr.write(f"applied {migration.filename}\n")
            for status in report.changed:
                sys.stderr.write(f"warning: migration {status.version:04d} ({status.name}) changed after it was applied; not run again\n")
            if not report.applied:
                sys.stderr.write("nothing to apply; the database is up to date\n")
            return 0
        if args.mcp:
            return serve_mcp(app)
    except RataError as error:
        sys.stderr.write(f"error: {error.message}\n")
        if error.hint:
            sys.stderr.write(f"{error.hint}\n")
        return error.exit_code
    _parser(app).print_usage(sys.stderr)
    sys.stderr.write(f"{app.name}: nothing to do; try --mcp or --migrate (see --help)\n")
    return 2


def serve_mcp(app: App) -> int:
    """Serve `app` as an MCP server on stdio until the client closes stdin (logging to its folder)."""
    from rata.mcp.app_server import AppServer
    from rata.mcp.stdio import serve

    configure_logging(app.folder, app.name)

    return serve(lambda send: AppServer(app, send=send).server)


def main_for(app: App) -> None:
    """`sys.exit(run_app(app))`, for a console script entry point."""
    sys.exit(run_app(app))
