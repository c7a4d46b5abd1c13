"""Options shared by several commands."""

from __future__ import annotations

import enum

import typer

APP_HELP = "The app: module:attr, path/to/file.py[:attr], or a project folder with [tool.rata] app in pyproject.toml. Default: the nearest pyproject.toml."
AppOption = typer.Option(None, "--app", "-a", help=APP_HELP, show_default=False)


class OutputFormat(str, enum.Enum):
    """How the lint and drift findings are printed: for people, or for CI (`rata.codegen.ci`)."""

    text = "text"
    github = "github"
    sarif = "sarif"


FORMAT_HELP = "text (for people), github (GitHub Actions annotations) or sarif (a SARIF 2.1.0 log for code scanning), on stdout."
