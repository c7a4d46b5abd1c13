"""Every command's ``--help``, found by walking the Typer app: its texts shown as written (``[tool.rata]`` included), whole
words at 80 columns, and a first screen of ``rata --help`` that reads well."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from typer.testing import CliRunner

from rata.cli.helptext import LiteralCommand, LiteralGroup, literal_help
from rata.cli.main import app

BRACKETED = re.compile(r"\[[^\[\]]*\]")
BOX = re.compile(r"[│╭╮╰╯─┃━]")


def commands() -> list[tuple[tuple[str, ...], Any]]:
    """Every command and group of `rata`, with its path (``("mcp", "inspect")``), walked from the Typer app."""
    found: list[tuple[tuple[str, ...], Any]] = []

    def walk(path: tuple[str, ...], command: Any) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            if not sub.hidden:
                walk((*path, name), sub)

    walk((), typer.main.get_command(app))
    return found


PATHS = [path for path, _ in commands()]


def source_texts(command: Any) -> list[str]:
    """The help texts a command's --help shows, as its source says them: its own and each visible parameter's."""
    texts = [command.help or ""]
    texts += [param.help for param in command.params if getattr(param, "help", None) and not getattr(param, "hidden", False)]
    return [text for text in texts if text.strip()]


def help_of(path: tuple[str, ...], columns: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}, prog_name="rata")
    assert result.exit_code == 0, result.output
    return result.stdout


def flat(text: str) -> str:
    """The text without the panels' borders and with every run of white space as one space."""
    return " ".join(BOX.sub(" ", text).split())


def test_every_command_and_group_shows_its_help_literally():
    for path, command in commands():
        assert isinstance(command, (LiteralCommand, LiteralGroup)), f"rata {' '.join(path)} is a {type(command).__name__}"


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "rata")
def test_each_help_text_is_shown_whole_as_written(path):
    command = dict(commands())[path]
    shown = flat(help_of(path, 400))
    for text in source_texts(command):
        assert flat(text) in shown
    bracketed = [word for text in source_texts(command) for word in BRACKETED.findall(text)]
    assert all(shown.count(word) >= bracketed.count(word) for word in bracketed)


def test_tool_rata_is_kept_in_every_help_that_names_it():
    naming = [path for path, command in commands() if any("[tool.rata]" in text for text in source_texts(command))]
    assert len(naming) >= 8 and ("codegen",) in naming  # --app everywhere, and codegen's --out default
    for path in naming:
        assert "[tool.rata]" in help_of(path, 80)
    assert "Default: [tool.rata] catalog, else rata.catalog.json" in flat(help_of(("codegen",), 80))


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "rata")
def test_at_80_columns_every_line_fits_and_no_word_is_cut(path):
    command = dict(commands())[path]
    shown = help_of(path, 80)
    lines = [BOX.sub(" ", line) for line in shown.splitlines()]
    assert max(cell_len(line) for line in shown.splitlines()) <= 80
    for word in {word for text in source_texts(command) for word in text.split()}:
        assert any(word in line.split() or word in line for line in lines), f"{word!r} is cut in rata {' '.join(path)} --help"


def test_the_usage_line_names_a_required_argument_plainly():
    usage = next(line for line in help_of(("new",), 80).splitlines() if "Usage:" in line)
    assert usage.split() == ["Usage:", "rata", "new", "[OPTIONS]", "NAME"]


def test_the_first_screen_of_rata_help_lists_every_command_with_its_whole_summary():
    shown = help_of((), 80)
    assert len(shown.splitlines()) <= 24  # one screen of a terminal
    assert "Usage: rata [OPTIONS] COMMAND [ARGS]..." in shown
    listed = [line.split()[1] for line in shown.splitlines() if re.match(r"│ [a-z]", line)]
    assert listed == ["new", "dev", "migrate", "codegen", "mcp"]  # in the order a newcomer meets them
    group = typer.main.get_command(app)
    assert isinstance(group, LiteralGroup)
    for name in listed:
        summary = group.commands[name].help.split("\n\n")[0]
        assert flat(summary) in flat(shown)


def test_the_mcp_group_says_what_it_holds():
    shown = flat(help_of(("mcp",), 80))
    assert "inspect what agents see" not in shown
    for word in ("inspect", "serve", "clients", "ship", "dev server"):
        assert word in shown.split("Options")[0]


WORDS = st.one_of(
    st.sampled_from(["[tool.rata]", "[bold]", "[/]", "[red]x[/red]", "[:attr]", "[link=https://x]", "\\[x]", "[OPTIONS]", "{name}", "[[a]]"]),
    st.text(alphabet="abcxyz[]/=#@\\.,'`:", min_size=1, max_size=10),
)


@given(words=st.lists(WORDS, min_size=1, max_size=10), option_words=st.lists(WORDS, min_size=1, max_size=10))
def test_any_help_text_is_shown_as_written(words, option_words):
    """Whatever brackets and backslashes a help text holds, --help shows it unchanged (a property over help texts)."""
    text, option_text = " ".join(words), " ".join(option_words)
    probe = typer.Typer(help="The probe.", add_completion=False)

    @probe.command("show", help=text)
    def show(value: str = typer.Option("", "--value", help=option_text)) -> None:
        """Unused."""

    @probe.command("other")
    def other() -> None:
        """Another command, so that the probe is a group."""

    literal_help(probe)
    result = CliRunner().invoke(probe, ["show", "--help"], env={"COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"})
    assert result.exit_code == 0
    assert flat(text) in flat(result.stdout) and flat(option_text) in flat(result.stdout)
