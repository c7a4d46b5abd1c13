"""The `rata` console script.

The two server commands (``rata mcp serve`` and ``rata mcp dev``) are launched by MCP
clients for every session and must answer fast, so they are parsed here with argparse and
never load Typer or rich. Everything else goes to the Typer app in `rata.cli.main`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rata.errors import RataError

_HELP = {
    "serve": "Serve the app's MCP server on stdio (both protocol eras), as `<app> --mcp` does.",
    "dev": "Serve the read-only dev MCP server for your coding agent on stdio (schema, migrations, logs, commands, docs).",
}


def _server(argv: Sequence[str]) -> int:
    name = argv[1]
    parser = argparse.ArgumentParser(prog=f"rata mcp {name}", description=_HELP[name])
    parser.add_argument("--app", "-a", default=None, help="module:attr, path/to/file.py[:attr], or a project folder (default: the nearest pyproject.toml)")
    args = parser.parse_args(argv[2:])
    try:
        if name == "dev":
            from rata.mcp_dev.serve import serve_dev

            return serve_dev(args.app)
        from rata.cli.appmain import serve_mcp
        from rata.loader import load_app
        from rata.logs import configure_logging

        app = load_app(args.app).app
        configure_logging(app.folder, app.name)
        return serve_mcp(app)
    except RataError as error:
        sys.stderr.write(f"error: {error.message}\n" + (f"{error.hint}\n" if error.hint else ""))
        return error.exit_code


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "mcp" and args[1] in _HELP and not any(a in ("--help", "-h") for a in args[2:3]):
        sys.exit(_server(args))
    from rata.cli.main import app

    app(args=args, prog_name="rata")
