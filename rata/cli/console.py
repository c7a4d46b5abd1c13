"""All terminal output goes through here: one theme, one error renderer, untrusted text made safe.

Rich is imported lazily, so commands that print JSON (and server paths) never load it.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

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
    """Markup that rich shows as `text`, exactly: for Typer's help, which rich reads as markup.

    `rich.markup.escape` escapes only what looks like a tag: a lone ``\\[`` would still lose its
    backslash, and ``:name:`` still become an emoji. Here an empty tag goes after each ``:`` that
    starts a word (rich reads no emoji code across a tag), then every ``[`` is escaped the way rich
    reads it at that place: a tag-like ``[...]`` after 2k+1 backslashes shows k of them, any other
    ``[`` after k+1 shows k.
    """
    if "[" not in text and ":" not in text or _MARK in text:
        return text
    marked = _WORD_COLON.sub(":" + _MARK, text)

    def bracket(found: re.Match[str]) -> str:
        run = len(found.group(1))
        return "\\" * (2 * run + 1) + "[" if _TAG_LIKE.match(marked, found.end() - 1) else "\\" * (run + 1) + "["

    return _BEFORE_BRACKET.sub(bracket, marked).replace(_MARK, "[bold][/bold]")


_MARK = "\x00"  # where the empty tag goes; it holds a "[", so a tag-like [...] cannot span it
_BEFORE_BRACKET = re.compile(r"(\\*)\[")
_TAG_LIKE = re.compile(r"\[[a-z#/@][^\[\x00]*?\]")  # what rich reads as a tag
_WORD_COLON = re.compile(r":(?=\S)")


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

    return cast(F, wrapper)  # functools.wraps keeps the signature Typer reads
