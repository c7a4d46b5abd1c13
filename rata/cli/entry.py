"""The `rata` console script.

The two server commands (``rata mcp serve`` and ``rata mcp dev``) are launched by MCP
clients for every session and must answer fast, so their few options are read here by hand and
serving never loads Typer or rich. Their ``--help`` and a wrong option go to the Typer app in
`rata.cli.main`, as everything else does, so they look like every other command's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rata import stopping
from rata.errors import RataError

SERVERS = ("serve", "dev")


def _options(rest: Sequence[str], name: str) -> tuple[str | None, int | None] | None:
    """The --app value and, for ``dev``, --budget-tokens, read by hand (``--app X``, ``-a X``, ``--app=X``, ...): Typer and
    click cost a server's start-up tens of milliseconds. None when something else is asked (``--help``) or an option is wrong:
    then the Typer app answers, as it does for every other command, with the same help panels and error box."""
    names = {"--app": "app", "-a": "app", **({"--budget-tokens": "budget"} if name == "dev" else {})}
    found: dict[str, str] = {}
    items = list(rest)
    while items:
        flag, equals, value = items.pop(0).partition("=")
        if flag not in names or (equals and flag == "-a"):
            return None
        if not equals:
            if not items:
                return None
            value = items.pop(0)
        found[names[flag]] = value
    budget = found.get("budget")
    if budget is not None:
        try:
            return found.get("app"), int(budget)
        except ValueError:
            return None
    return found.get("app"), None


def _server(argv: Sequence[str]) -> int:
    name = argv[1]
    options = _options(argv[2:], name)
    if options is None:  # help, or a usage error: shown by Typer and rich, loaded only now
        from rata.cli.main import app

        app(args=list(argv), prog_name="rata")  # exits
        return 2
    app_spec, budget_tokens = options
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
    server = len(args) >= 2 and args[0] == "mcp" and args[1] in SERVERS
    if server or args[:1] == ["dev"]:
        # The long-running commands: a stop signal at any moment ends them promptly and cleanly (rata.stopping).
        stopping.install(farewell=f"rata {' '.join(args[:2] if server else args[:1])}: stopped by {{signal}}")
    if server:
        sys.exit(stopping.exit_status(_server(args)))
    from rata.cli.main import app

    app(args=args, prog_name="rata")
