"""The `rata` command: each group lives in its own module and is put together here.

Exit codes (all commands): 0 success; 1 an error rata explains (app not found, bad file,
failed migration); 2 bad command-line usage; 3 lint errors under ``--strict``; 4 drift
found by ``--check``.
"""

from __future__ import annotations

import typer

from rata import __version__
from rata.cli import codegen, dev, mcp, migrate, new
from rata.cli.helptext import literal_help

app = typer.Typer(
    name="rata",
    help="Build apps whose commands are typed Python functions, each app an MCP server.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("new")(new.new)  # in the order a newcomer meets them; the mcp group is listed last
app.command("dev")(dev.dev)
app.command("migrate")(migrate.migrate)
app.command("codegen")(codegen.codegen)
app.add_typer(mcp.app, name="mcp")


literal_help(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"rata {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show rata's version and exit."),
) -> None:
    """rata: typed commands, every app an MCP server."""


def main() -> None:
    app()
