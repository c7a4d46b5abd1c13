"""Every command's ``--help`` shows its text as written.

Typer renders help through rich, which reads ``[...]`` as markup: ``[tool.rata]`` in a help text
would vanish as an unknown style tag. rata's help texts hold no markup on purpose, so each is
escaped once, when help is shown (rich is loaded only then). And the usage line names a
required argument ``NAME`` rather than Typer's ``{name}``.

`literal_help` walks the whole Typer app, so a command added anywhere is covered without a
word in its own module.
"""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from rata.cli.console import escape_markup


class LiteralCommand(TyperCommand):
    """A command whose help (and its parameters' help) is shown literally."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _escape_tree(ctx.find_root().command)
        super().format_help(ctx, formatter)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_usage_name(piece) for piece in super().collect_usage_pieces(ctx)]


class LiteralGroup(TyperGroup):
    """A group whose help, and the one-line help of each command it lists, is shown literally."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _escape_tree(ctx.find_root().command)
        super().format_help(ctx, formatter)


def literal_help(app: typer.Typer) -> typer.Typer:
    """Make every command and group of `app` (and of the apps added to it) show its help literally; returns `app`."""
    app.info.cls = LiteralGroup
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = LiteralCommand
    for group in app.registered_groups:
        group.cls = LiteralGroup
        if group.typer_instance is not None:
            literal_help(group.typer_instance)
    return app


_ESCAPED = "_rata_help_escaped"


def _escape_tree(command: Any) -> None:
    """Escape the help of `command`, its parameters and its subcommands, each once."""
    if getattr(command, _ESCAPED, False):
        return
    setattr(command, _ESCAPED, True)
    for owner in (command, *command.params):
        for attribute in ("help", "short_help"):
            text = getattr(owner, attribute, None)
            if isinstance(text, str):
                setattr(owner, attribute, escape_markup(text))
    for sub in getattr(command, "commands", {}).values():
        _escape_tree(sub)


_REQUIRED = re.compile(r"\{([^{}]+)\}")


def _usage_name(piece: Any) -> Any:
    """``NAME`` for Typer's ``{name}`` (a required argument), in the usage line."""
    return _REQUIRED.sub(lambda found: found.group(1).upper(), piece) if isinstance(piece, str) else piece
