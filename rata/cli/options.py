"""Options shared by several commands."""

from __future__ import annotations

import typer

APP_HELP = "The app: module:attr, path/to/file.py[:attr], or a project folder with [tool.rata] app in pyproject.toml. Default: the nearest pyproject.toml."
AppOption = typer.Option(None, "--app", "-a", help=APP_HELP, show_default=False)
