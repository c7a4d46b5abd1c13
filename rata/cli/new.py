"""`rata new NAME`: scaffold a working app from rata's template."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Optional

import typer

from rata.cli.console import console, edge, safe, write_raw


@edge
def new(
    name: str = typer.Argument(
        ..., help="The app's name: lowercase letters, digits, '-' or '_', starting with a letter. Its package is the name with '-' as '_'."
    ),
    directory: Optional[Path] = typer.Option(None, "--dir", help="Where to write the project; it must be new or empty. Default: ./NAME.", show_default=False),
    identifier: Optional[str] = typer.Option(
        None, "--identifier", help="The app's reverse-DNS identifier, which names its data folder. Default: com.example.NAME.", show_default=False
    ),
    author: Optional[str] = typer.Option(
        None,
        "--author",
        help='The author in pyproject.toml, "Name <email>". Default: git\'s user.name and user.email, else "The NAME authors".',
        show_default=False,
    ),
    as_json: bool = typer.Option(False, "--json", help='Print {"directory", "files"} as JSON.'),
) -> None:
    """Create a new app that runs, tests and serves agents as it is.

    The project has a package with example commands, a window, a migration, docs, tests, pyproject.toml, .mcp.json, a CI workflow and a pre-commit config.
    """
    from rata.codegen.catalog import dump_json
    from rata.scaffold import NEXT_STEPS, git_author, name_warnings, parse_author, scaffold

    target = directory if directory is not None else Path(name)
    written = scaffold(name, target, identifier=identifier, author=parse_author(author) if author is not None else git_author())
    err = console(stderr=True)
    for warning in name_warnings(name):
        line = safe("warning: ", "warning")
        line.append_text(safe(warning))
        err.print(line)
    if as_json:
        write_raw(dump_json({"directory": str(target), "files": [str(path) for path in written]}))
        return
    out = console()
    out.print(safe(f"Created the app {name} in {target}:", "ok"))
    for path in written:
        out.print(safe(f"  {path}", "path"))
    out.print(safe("Next steps (README.md says more):"))
    for step in (f"cd {shlex.quote(str(target))}", *NEXT_STEPS, "rata dev"):
        out.print(safe(f"  {step}", "cmd"))

