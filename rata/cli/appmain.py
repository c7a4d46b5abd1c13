"""The app's own command line: what `crm` (an app's console script) understands.

    def main() -> None:
        main_for("crm.app:app")

The app is best named by reference (``"module:attribute"``), not imported: then ``--mcp``
answers a client's first requests from the app's manifest while its code loads
(`rata.mcp.loading`). An `App` object works too.

With no option the app runs: its window (the desktop backend, ``rata-toolkit[desktop]``)
and its MCP endpoint, until the window closes. Every way of starting brings the app's database
up to date first (`rata.upgrade.on_start`; for ``--mcp`` on the thread that loads the app), and
says on stderr what it applied, or the problem every call will answer. ``--migrate`` applies the
app's migrations and exits. ``--headless`` runs the app without a window, in the foreground, until a stop signal
(Ctrl-C, SIGTERM, SIGHUP: `rata.stopping`): its MCP endpoint is open, so agents reach it.
``--mcp`` is the shim MCP clients launch: it pipes to the running app when there is one,
else serves the app's MCP server on stdio itself (headless). Which one it chose goes to stderr.
This path imports no Typer or rich, so it starts fast.
"""

from __future__ import annotations

import os
import sys

from rata import stopping
from rata.errors import AppLoadError, RataError
from rata.folder import MCP_PORT, MCP_SOCKET
from rata.logs import configure_logging

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from rata.app import App
    from rata.folder import AppFolder
    from rata.mcp.manifest import Manifest


def _parser(app: App) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog=app.name, description=app.description or f"{app.name} {app.version}, a rata app.")
    parser.add_argument("--version", action="version", version=f"{app.name} {app.version}")
    parser.add_argument("--migrate", action="store_true", help="apply pending migrations to the app's database and exit")
    parser.add_argument(
        "--mcp", action="store_true", help="serve MCP on stdio (what MCP clients launch): through the running app if there is one, else headless"
    )
    parser.add_argument("--headless", action="store_true", help="run the app without a window until stopped; agents reach it through --mcp")
    parser.epilog = "With no option, the app opens its window (and agents reach it through --mcp)."
    return parser


def run_app(app: App | str, argv: Sequence[str] | None = None) -> int:
    """Run the app's command line; returns the exit code (and exits with it when called as a script).

    `app` is the App, or where to find it (``"crm.app:app"``).
    """
    try:
        if list(sys.argv[1:] if argv is None else argv) == ["--mcp"]:
            # What MCP clients launch, every session: skip argparse (its help formatter alone costs ~10 ms).
            return serve_mcp(app)
        app = resolve_app(app)
        args = _parser(app).parse_args(argv)
        configure_logging(app.folder, app.name)
        if args.migrate:
            return _migrate(app)
        if args.mcp:
            return serve_mcp(app)
        if args.headless:
            return run_headless(app)
        return run_with_window(app)
    except RataError as error:
        if stopping.requested():
            return stopping.exit_status(error.exit_code)  # what failed because the app was told to stop is no error
        say_error(error)
        return error.exit_code


def say_error(error: RataError) -> None:
    """The error and its fix as one line on stderr: what an MCP client shows in its log for a server that would not start."""
    said = " ".join(part.strip() for part in f"{error.message} {error.hint or ''}".splitlines() if part.strip())
    sys.stderr.write(f"error: {said.strip()}\n")
    sys.stderr.flush()


def _migrate(app: App) -> int:
    """``--migrate``: what `rata migrate` does, said in plain lines on stderr."""
    if not app.migrations_dir.is_dir():
        sys.stderr.write(f"no migrations folder: looked for {app.migrations_dir}; nothing to apply\n")
        return 0
    report = app.migrate()
    if report.backup is not None:
        sys.stderr.write(f"kept a copy of the database from before this run: {report.backup}\n")
    say_applied(report.applied)
    for status in report.changed:
        sys.stderr.write(f"warning: migration {status.version:04d} ({status.name}) changed after it was applied; not run again\n")
    if not report.applied:
        sys.stderr.write("nothing to apply; the database is up to date\n")
    return 0


def resolve_app(app: App | str) -> App:
    """The App itself, imported from ``"module:attribute"`` when given by reference."""
    if not isinstance(app, str):
        return app
    import importlib

    from rata.app import App

    module, _, attribute = app.partition(":")
    try:
        imported = importlib.import_module(module)
    except BaseException as error:  # noqa: BLE001 - whatever the app's code raised at import is told in one line, not a traceback
        from rata.loader import import_failure, is_interrupt

        if is_interrupt(error):
            raise
        if isinstance(error, ModuleNotFoundError) and error.name and (module == error.name or module.startswith(error.name + ".")):
            raise AppLoadError(f"The module {module!r} (of the app {app!r}) was not found.", hint="Install the app's package (pip install -e .).") from None
        raise import_failure(app, error) from None
    value = getattr(imported, attribute or "app", None)
    if not isinstance(value, App):
        found = "nothing" if value is None else f"a {type(value).__name__}"
        raise AppLoadError(f"{app!r} names {found}, not a rata App.", hint='Name the App as "package.module:attribute", e.g. main_for("crm.app:app").')
    return value


def serve_mcp(app: App | str) -> int:
    """MCP on stdio until the client closes stdin: piped to the running app if there is one, else served here.

    With the app given by reference and its manifest good, neither way imports the app first:
    the pipe never needs it, and the headless server loads it on a thread (`rata.mcp.loading`).
    """
    from rata.folder import AppFolder

    ref = app if isinstance(app, str) else None
    if ref is not None:
        from rata.mcp import manifest

        found = manifest.read(ref)
        if found is not None:
            folder = AppFolder(found.folder_location())
            configure_logging(folder, found.name)
            connection = _running_app(folder, found.name)
            if connection is not None:
                return _pipe(connection, found.name, folder)
            return _serve_from_manifest(found)
    app = resolve_app(app)
    configure_logging(app.folder, app.name)
    connection = _running_app(app.folder, app.name)
    if connection is not None:
        if ref is not None:  # on a thread, while piping: so that the next start need not import the app
            import threading

            threading.Thread(target=_write_manifest, args=(ref, app), name="rata-manifest").start()  # finished before exit
        return _pipe(connection, app.name, app.folder)
    from rata.mcp.app_server import AppServer
    from rata.mcp.stdio import serve

    sys.stderr.write(f"{app.name}: no running app; serving MCP headless (no window)\n")
    from rata.upgrade import on_start_in_background

    on_start_in_background(app, lambda started: say_started(app, started))  # the first requests are answered meanwhile

    def make_server(send: Any) -> Any:
        app_server = AppServer(app, send=send)
        if ref is not None:  # so that the next start can answer from it, and again when its surface changes
            from rata.mcp import manifest

            manifest.write(ref, app, app_server.offer())
            app_server.manifest_ref = ref
        return app_server.server

    return serve(make_server)


def _write_manifest(ref: str, app: App) -> None:
    from rata.mcp import manifest
    from rata.mcp.app_server import AppServer

    app_server = AppServer(app, send=lambda data: None)
    try:
        manifest.write(ref, app, app_server.offer())
    finally:
        app_server.server.close()


def _serve_from_manifest(found: Manifest) -> int:
    """Serve headless, answering the first requests from the manifest while the app loads."""
    from rata.mcp.loading import LoadingServer
    from rata.mcp.stdio import serve

    sys.stderr.write(f"{found.name}: no running app; serving MCP headless (no window)\n")
    return serve(lambda send: LoadingServer(found, lambda: with_database(resolve_app(found.ref)), send=send).server)


def with_database(app: App) -> App:
    """The app, its database brought up to date as every start does (`rata.upgrade.on_start`), what happened said on stderr."""
    from rata.upgrade import on_start

    say_started(app, on_start(app))
    return app


def say_started(app: App, started: Any) -> None:
    """On stderr (stdout may belong to the protocol): the copy kept, each migration applied, or the problem every call answers."""
    if started.backup is not None:
        sys.stderr.write(f"{app.name}: kept a copy of the database from before the upgrade: {started.backup}\n")
    say_applied(started.applied)
    problem = started.problem
    if problem is not None:
        hint = f" {problem.hint}" if problem.hint else ""
        sys.stderr.write(f"{app.name}: the database is not ready, and every call answers so until it is: {problem.message}{hint}\n")
    sys.stderr.flush()


def _pipe(connection: Any, name: str, folder: AppFolder) -> int:
    from rata.mcp.shim import pipe
    from rata.mcp.stdio import protect_stdout

    sys.stderr.write(f"{name}: connected to the running app; the agent works in it\n")
    how = pipe(connection, sys.stdin.buffer, protect_stdout(), folder)
    if how == "app closed":
        sys.stderr.write(f"{name}: the running app closed the connection (it stopped?)\n")
    return 0


def _running_app(folder: AppFolder, name: str) -> object | None:
    """A connection to the running app's MCP endpoint; None (after saying why on stderr) when there is none to use."""
    if not (os.path.exists(folder.file(MCP_SOCKET)) or os.path.exists(folder.file(MCP_PORT))):
        return None  # the common case, decided without importing the endpoint code
    from rata.mcp.shim import find_running_app

    try:
        return find_running_app(folder)
    except RataError as error:
        sys.stderr.write(f"{name}: not using the running app: {error.message}\n")
        return None


def run_with_window(app: App) -> int:
    """Run the app in its desktop window until the window closes; without a frontend, headless."""
    from rata.running_app import RunningApp
    from rata.windows.frontend import Frontend
    from rata.windows.run import make_backend

    if Frontend.of(app) is None:
        sys.stderr.write(f"{app.name} has no frontend (no frontend/index.html beside its module), so it has no window.\n")
        return run_headless(app)
    make_backend("desktop")  # a missing toolkit is reported before anything starts
    with RunningApp(app) as running:
        say_started(app, running.started)
        if running.mcp_endpoint is not None:
            sys.stderr.write(f"{app.name} is running; agents reach it through `{app.name} --mcp` (endpoint {running.mcp_endpoint.where}).\n")
        sys.stderr.flush()
        running.show_windows("desktop")
    sys.stderr.write(f"{app.name} stopped\n")
    return 0


def run_headless(app: App) -> int:
    """Run the app without a window until Ctrl-C or SIGTERM; agents reach it through `--mcp`."""
    from rata.running_app import RunningApp

    with RunningApp(app) as running:
        say_started(app, running.started)
        endpoint = running.mcp_endpoint
        if endpoint is not None:
            sys.stderr.write(f"{app.name} is running headless; agents reach it through `{app.name} --mcp` (endpoint {endpoint.where}). Ctrl-C stops it.\n")
        else:
            sys.stderr.write(f"{app.name} is running headless; it is not an MCP server (the app never called .mcp(...)). Ctrl-C stops it.\n")
        sys.stderr.flush()
        running.wait()
    sys.stderr.write(f"{app.name} stopped\n")
    return 0


def say_applied(migrations: Sequence[Any]) -> None:
    """One stderr line per migration just applied (stdout may belong to the protocol)."""
    for migration in migrations:
        sys.stderr.write(f"applied {migration.filename}\n")


def main_for(app: App | str) -> None:
    """`sys.exit(run_app(app))`, for a console script entry point.

    The first thing it does is make the stop signals (SIGTERM, SIGINT, SIGHUP) stop the app at
    any moment, cleaning up what it started (`rata.stopping`); after one, the exit status is
    128 + the signal's number.
    """
    stopping.install(farewell=f"{os.path.basename(sys.argv[0]) or 'app'}: stopped by {{signal}}")
    sys.exit(stopping.exit_status(run_app(app)))
