"""The `rata` console script.

The two server commands (``rata mcp serve`` and ``rata mcp dev``) are launched by MCP
clients for every session and must answer fast, so their few options are read here by hand and
never load Typer or rich. Everything else goes to the Typer app in `rata.cli.main`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rata import stopping
from rata.errors import RataError

_HELP = {
    "serve": "Serve the app's MCP server on stdio (both protocol eras), as `<app> --mcp` does.",
    "dev": "Serve the read-only dev MCP server for your coding agent on stdio (schema, migrations, logs, commands, docs).",
}


def _options(rest: Sequence[str], name: str) -> tuple[str | None, int | None]:
    """The --app value and, for ``dev``, --budget-tokens: read by hand in the common forms (argparse's help formatter alone costs ~10 ms)."""
    if not rest:
        return None, None
    if len(rest) == 2 and rest[0] in ("--app", "-a"):
        return rest[1], None
    if len(rest) == 1 and rest[0].startswith("--app="):
        return rest[0].split("=", 1)[1], None
    import argparse

    parser = argparse.ArgumentParser(prog=f"rata mcp {name}", description=_HELP[name])
    parser.add_argument("--app", "-a", default=None, help="module:attr, path/to/file.py[:attr], or a project folder (default: the nearest pyproject.toml)")
    if name == "dev":
        parser.add_argument("--budget-tokens", type=int, default=None, help="roughly how many tokens one answer may use, 1,000 to 25,000 (default 10,000); a call's budget_tokens overrides it")
    parsed = parser.parse_args(list(rest))
    return parsed.app, getattr(parsed, "budget_tokens", None)


def _server(argv: Sequence[str]) -> int:
    name = argv[1]
    app_spec, budget_tokens = _options(argv[2:], name)
    try:
        if name == "dev":
            from rata.dev_server.serve import serve_dev

            return serve_dev(app_spec, budget_tokens=budget_tokens) if budget_tokens is not None else serve_dev(app_spec)
        from rata.cli.appmain import serve_mcp
        from rata.loader import load_app

        return serve_mcp(load_app(app_spec).app)
    except RataError as error:
        if stopping.requested():
            return error.exit_code
        from rata.cli.appmain import say_error

        say_error(error)
        return error.exit_code


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    server = len(args) >= 2 and args[0] == "mcp" and args[1] in _HELP
    if server or args[:1] == ["dev"]:
        # The long-running commands: a stop signal at any moment ends them promptly and cleanly (rata.stopping).
        stopping.install(farewell=f"rata {' '.join(args[:2] if server else args[:1])}: stopped by {{signal}}")
    if server:
        sys.exit(stopping.exit_status(_server(args)))
    from rata.cli.main import app

    app(args=args, prog_name="rata")
