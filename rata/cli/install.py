"""`rata mcp install`: print (or write) a client's configuration for the app's MCP server.

The snippet goes to standard output (highlighted on a terminal, plain when piped or with
``--raw``); where it belongs, the add command, the link and any warning go to standard error,
so ``rata mcp install --client claude > snippet.json`` captures the snippet alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from rata.cli.console import console, edge, safe, write_raw
from rata.cli.options import AppOption
from rata.errors import ConfigError
from rata.install.clients import client_help

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:  # the library is imported when the command runs, not when `rata --help` starts
    from rata.install.plan import Plan, WriteResult


@edge
def install(
    client: Optional[str] = typer.Option(None, "--client", "-c", help=client_help(), show_default=False),
    app_spec: Optional[str] = AppOption,
    name: Optional[str] = typer.Option(
        None, "--name", help="The server's key in the client's config. Default: the app's name (rata with --dev).", show_default=False
    ),
    dev: bool = typer.Option(False, "--dev", help="Register `rata mcp dev` (the read-only dev server for coding agents) instead of the app."),
    write: bool = typer.Option(False, "--write", help="Merge the entry into the client's project-scoped file in this project (never a user-level file)."),
    replace: bool = typer.Option(
        False, "--replace", help="With --write: replace a different entry of the same name (keeping its other keys and environment variables)."
    ),
    list_clients: bool = typer.Option(False, "--list", help="List the clients, their files and scopes."),
    raw: bool = typer.Option(False, "--raw", help="Print only the snippet, without colour or notes."),
    as_json: bool = typer.Option(False, "--json", help="Print everything as JSON."),
) -> None:
    """Print an MCP client's config for the app's server, or merge it into the project's file with --write."""
    from rata.install import plan as lib
    from rata.install.files import EntryExistsError, WriteRefusedError

    if list_clients:
        rows = lib.client_table()
        if as_json:
            write_raw(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        else:
            _render_list(rows)
        return
    if replace and not write:
        raise ConfigError("--replace works only with --write.", hint="Add --write, or drop --replace.")
    if client is None:
        raise ConfigError("Which client? Pass --client NAME.", hint="See the clients with: rata mcp install --list")
    from rata.loader import load_app

    target = lib.get_client(client)
    loaded = load_app(app_spec)
    if dev:
        from rata.dev_server.tools import tool_names

        tools = tool_names()
    else:
        tools = lib.app_tool_names(loaded)
    plan = lib.plan_install(target, loaded, tools, name=name, dev=dev, spec=app_spec)
    if write:
        project = lib.current_project(Path.cwd())
        try:
            result = lib.write_plan(plan, project, replace=replace)
        except EntryExistsError as error:
            _print_diff(error.diff)
            raise
        except WriteRefusedError:
            if not as_json:
                _print_snippet(plan.snippet, plan.client.format.lexer, raw=raw)
            raise
        if as_json:
            written = {"path": str(result.path), "status": result.status, "target": str(result.target) if result.target else None, "kept": list(result.kept)}
            write_raw(json.dumps({**plan.to_dict(), "written": written}, indent=2, ensure_ascii=False) + "\n")
            return
        _render_written(plan, result)
        return
    if as_json:
        write_raw(json.dumps(plan.to_dict(), indent=2, ensure_ascii=False) + "\n")
        return
    if not raw:
        err = console(stderr=True)
        what = "`rata mcp dev`" if dev else f"the {loaded.app.name} app's MCP server"
        err.print(safe(f"{plan.client.title}: {what}, as {plan.name!r} under {plan.client.server_key!r} ({plan.client.syntax}):", "info"))
    _print_snippet(plan.snippet, plan.client.format.lexer, raw=raw)
    if not raw:
        _render_details(plan)


def _print_snippet(snippet: str, lexer: str, *, raw: bool) -> None:
    out = console()
    if raw or not out.is_terminal or out.no_color:
        write_raw(snippet)
        return
    from rich.syntax import Syntax

    out.print(Syntax(snippet.rstrip("\n"), lexer, theme="ansi_dark", background_color="default", word_wrap=True))


def _print_diff(diff: str) -> None:
    err = console(stderr=True)
    styles = {"+": "ok", "-": "error", "@": "info"}
    for line in diff.splitlines():
        err.print(safe(line, None if line.startswith(("+++", "---")) else styles.get(line[:1])))


def _render_details(plan: Plan) -> None:
    err = console(stderr=True)
    err.print(safe("Where it goes:", "name"))
    width = max(len(os_name) for _, os_name, _ in plan.files)
    for scope, os_name, path in plan.files:
        line = safe(f"  {scope:<8} {os_name:<{width}} ")
        line.append_text(safe(path, "path"))
        err.print(line)
    if plan.project_file:
        err.print(safe(f"  rata mcp install --client {plan.client.key}{' --dev' if plan.dev else ''} --write merges it into {plan.project_file}.", "hint"))
    else:
        err.print(safe(f"  {plan.client.title} has no project file; --write refuses.", "hint"))
    if plan.add_command:
        err.print(safe("Or run:", "name"))
        err.print(safe(f"  {plan.add_command}", "cmd"))
    if plan.link:
        err.print(safe("Or open:", "name"))
        err.print(safe(f"  {plan.link}", "cmd"))
    if plan.client.note:
        err.print(safe(plan.client.note, "hint"))
    for warning in plan.warnings:
        err.print(safe(f"warning: {warning}", "warning"))


def _render_written(plan: Plan, result: WriteResult) -> None:
    from rata.install.plan import UNCHANGED

    out = console()
    through = f" (through the link to {result.target})" if result.target else ""
    if result.status == UNCHANGED:
        out.print(safe(f"{result.path}{through} is already up to date ({plan.name!r} for {plan.client.title}).", "ok"), soft_wrap=True)
    else:
        out.print(safe(f"{result.status.capitalize()} {result.path}{through}: {plan.name!r} for {plan.client.title}.", "ok"), soft_wrap=True)
    if result.kept:
        out.print(safe(f"Kept from the old entry: {', '.join(result.kept)}.", "hint"), soft_wrap=True)
    if result.trust:
        out.print(safe(result.trust, "hint"), soft_wrap=True)
    err = console(stderr=True)
    for warning in plan.warnings:
        err.print(safe(f"warning: {warning}", "warning"))


def _render_list(rows: list[dict[str, Any]]) -> None:
    out = console()
    width = max(len(f["os"]) for row in rows for f in row["user_files"])
    for row in rows:
        head = safe(row["client"], "cmd")
        head.append_text(safe(f"  {row['title']}" + (f" (also: {', '.join(row['aliases'])})" if row["aliases"] else "") + f"  {row['format']}, {row['key']}"))
        out.print(head)
        project = safe(f"  {'project':<8} {'':<{width}} ")
        project.append_text(safe(row["project_file"], "path") if row["project_file"] else safe("- (none: --write refuses)", "muted"))
        out.print(project, soft_wrap=True)
        for f in row["user_files"]:
            line = safe(f"  {'user':<8} {f['os']:<{width}} ")
            line.append_text(safe(f["path"], "path"))
            out.print(line, soft_wrap=True)
