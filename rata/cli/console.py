"""All terminal output goes through here: one theme, one error renderer, untrusted text made safe.

Rich is imported lazily, so commands that print JSON (and server paths) never load it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from rata.codegen.sanitize import clean_text
from rata.errors import RataError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

F = TypeVar("F", bound=Callable[..., Any])

STYLES = {
    "error": "bold red",
    "warning": "yellow",
    "info": "cyan",
    "hint": "dim",
    "ok": "green",
    "name": "bold",
    "path": "magenta",
    "cmd": "bold cyan",
    "muted": "dim",
}


def console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr) with rata's theme; width from the terminal or COLUMNS.

    Messages on stderr are never hard-wrapped, so commands and paths in them stay copyable.
    """
    from rich.console import Console
    from rich.theme import Theme

    return Console(stderr=stderr, theme=Theme(STYLES), highlight=False, soft_wrap=stderr)


def safe(text: object, style: str | None = None) -> Text:
    """Text from the app or a file, shown literally: no markup, no control characters."""
    from rich.text import Text

    return Text(clean_text(str(text)), style=style or "")


def escape_markup(text: str) -> str:
    """`text` with every ``[...]`` that rich would read as a style tag escaped, so that it shows as written."""
    from rich.markup import escape

    return escape(text)


def write_raw(text: str) -> None:
    """Write machine output (JSON) to stdout exactly as given."""
    sys.stdout.write(text)
    sys.stdout.flush()


def show_error(error: RataError) -> None:
    out = console(stderr=True)
    line = safe("error: ", "error")
    line.append_text(safe(error.message))
    out.print(line)
    if error.hint:
        out.print(safe(error.hint, "hint"))


def edge(fn: F) -> F:
    """Wrap a CLI command: a `RataError` is shown once, on stderr, and sets the exit code."""
    import typer

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RataError as error:
            show_error(error)
            raise typer.Exit(error.exit_code) from None

    return wrapper  # type: ignore[return-value]
