"""`rata mcp inspect`'s human view: each tool's parameters as a table and its result in a line, at any width, on a pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.theme import Theme
from typer.testing import CliRunner

from rata.cli.main import app
from tests.codegen.test_readable import SCHEMAS
from tests.conftest import CRM, subprocess_env

ESCAPE = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


@pytest.fixture
def view(rata_home):
    """`rata mcp inspect ARGS` in-process at a given width, without colour; returns stdout."""

    def run(*args: str, columns: int = 80) -> str:
        env = {"COLUMNS": str(columns), "NO_COLOR": "1", "RATA_HOME": str(rata_home), "TERM": "dumb"}
        result = CliRunner().invoke(app, ["mcp", "inspect", *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.stderr
        return result.stdout

    return run


def one_line(text: str, *cells: str) -> bool:
    """Whether some line holds `cells` in order, separated by spaces only (one row of a table)."""
    return re.search(r"\s{2,}".join(re.escape(cell) for cell in cells), text) is not None


def test_at_80_columns_every_parameter_shows_its_type_and_constraint_and_no_json(view):
    out = view("--app", str(CRM))
    assert max(len(line) for line in out.splitlines()) <= 80
    surface = json.loads(view("--app", str(CRM), "--json"))
    for tool in surface["tools"]:
        section = out[out.index(f"\n{tool['name']}  ") :]
        for name, prop in tool["inputSchema"]["properties"].items():
            assert one_line(section, name, prop["type"]), (tool["name"], name)
    assert one_line(out, "limit", "integer", "default 50", "1 \u2264 x \u2264 500", "How many customers to return at")
    assert one_line(out, "id", "integer", "yes", "The customer's id.")
    assert "  returns list[object]: id integer, name string, email string, created_at string\n" in out
    assert "  returns nothing\n" in out  # customers_delete
    assert '"type"' not in out and '"properties"' not in out and not any(line.lstrip().startswith("{") for line in out.splitlines())


def test_at_80_columns_a_resource_uri_or_template_is_read_whole_on_its_line(view):
    out = view("--app", str(CRM))
    assert re.search(r"│ app://customers_index +│", out), out
    assert re.search(r"│ app://customers_show/\{id\} +│", out), out


def test_a_wide_terminal_keeps_each_parameter_on_one_line(view):
    out = view("--app", str(CRM), columns=200)
    assert one_line(out, "search", "string", 'default ""', "Text to look for in the name or email; empty lists everyone.")
    assert max(len(line) for line in out.splitlines()) <= 200


def test_on_a_pipe_there_are_no_escapes_and_the_same_text_as_in_a_terminal(tmp_path, view):
    def run(**env: str) -> str:
        command = [sys.executable, "-m", "rata", "mcp", "inspect", "--app", str(CRM)]
        base = subprocess_env(tmp_path / "home", **env)
        for name in ("COLUMNS", "NO_COLOR", "FORCE_COLOR", "TERM"):
            if name not in env:
                base.pop(name, None)
        return subprocess.run(command, capture_output=True, env=base, check=True, text=True, encoding="utf-8").stdout

    piped = run()
    assert "\x1b" not in piped
    assert max(len(line) for line in piped.splitlines()) <= 80  # a pipe has no width: 80
    assert piped == view("--app", str(CRM), columns=80)
    coloured = run(FORCE_COLOR="1", COLUMNS="80", TERM="xterm-256color")
    assert ESCAPE.search(coloured)
    assert ESCAPE.sub("", coloured) == piped


def test_the_json_schemas_are_one_flag_away(view):
    out = view("--app", str(CRM), "--schemas")
    index = out[out.index("\ncustomers_index  ") : out.index("\ncustomers_show  ")]
    assert one_line(index, "limit", "integer", "default 50", "1 \u2264 x \u2264 500")
    assert 'customers_index input\n{\n  "type": "object",' in index and '"maximum": 500,' in index
    assert "customers_index output\n{\n" in index
    one = view("--app", str(CRM), "--tool", "customers_index")
    assert one_line(one, "limit", "integer", "default 50", "1 \u2264 x \u2264 500")
    assert '"maximum": 500,' in one and "  returns list[object]" in one


def test_the_json_output_does_not_change_with_the_human_flags(view):
    assert view("--app", str(CRM), "--json", "--schemas") == view("--app", str(CRM), "--json")


HOSTILE = '''
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, Optional

from rata import App, Ctx, Field, Mcp, command


@dataclass
class Node:
    """A tree node [bold red]boom[/]."""

    label: str
    children: list[Node]


@dataclass
class Level3:
    deepest: Annotated[str, Field(pattern="^[a-z]{1,3}$" + "x" * 300)]


@dataclass
class Level2:
    three: Level3


@dataclass
class Level1:
    two: list[Level2]


@command(can="x.view")
def evil(
    ctx: Ctx,
    tree: Node,
    nested: Level1,
    colour: Literal[COLOURS] = "c0",
    {long_name}: Annotated[int, Field(ge=-5, lt=10_000_000_000)] = 3,
    note: Optional[Annotated[str, Field(max_length=7)]] = None,
) -> list[Node]:
    """[red]Trees[/red]\\x1b[2J and more.

    Args:
        tree: [link=http://evil.example]click[/link] \\u202eevil\\u200b {long_text}
        colour: One of many.
    """
    return []


app = App("evil", identifier="com.example.evil").commands(evil).mcp(Mcp().allow_abilities(["x.*"]))
'''


def test_a_hostile_app_renders_literally_within_the_width(view, tmp_path):
    source = textwrap.dedent(HOSTILE).replace("COLOURS", ", ".join(f'"c{i}"' for i in range(40)))
    source = source.replace("{long_name}", "p" * 150).replace("{long_text}", "word " * 400)
    (tmp_path / "evil.py").write_text(source)
    out = literal_within_widths(view, tmp_path / "evil.py")
    assert "[red]Trees[/red]" in out and "[link=http://evil.example]click[/link] evil word" in out
    assert one_line(out, "tree", "Node", "yes") and one_line(out, "children", "list[Node]", "yes")
    assert "  Node  object: A tree node [bold red]boom[/].\n" in out  # the $defs entry, shown once
    assert out.count("  Node  object") == 1
    assert one_line(out, "nested.two", "list[object]") and one_line(out, "nested.two[].three", "object")
    assert "nested.two[].three.deepest" not in out  # three levels of fields, then the JSON (--schemas)
    assert one_line(out, "colour", '"c0" | "c1" | "c2" | \u2026', 'default "c0"', "one of 40", "One of many.")
    assert one_line(out, "note", "string | null", "default null", "max 7 chars")
    assert "-5 \u2264 x < 10000000000" in out
    assert "  returns list[Node]\n" in out


def literal_within_widths(view, path) -> str:
    """The view of the app at `path` at 40, 80 and 200 columns: within the width, without escapes or invisible
    characters; returns the widest."""
    for columns in (40, 80, 200):
        out = view("--app", str(path), columns=columns)
        assert max(len(line) for line in out.splitlines()) <= columns
        assert "\x1b" not in out and "\u202e" not in out and "\u200b" not in out
    return out


def test_the_result_line_names_content_parts_and_a_table_takes_fields_that_do_not_fit(view, tmp_path):
    from pathlib import Path

    reports = tmp_path / "reports_app.py"
    reports.write_text((Path(__file__).parents[1] / "mcp" / "reports.py").read_text())
    out = view("--app", str(reports))
    assert "chime  A short sound.\n  no parameters\n  returns audio\n" in out
    assert "  returns object: quarter string, total integer; with content: any content part\n" in out
    legacy = view("--app", str(CRM), "--era", "legacy")  # the 2025 era wraps a list under "result": too long for one line
    index = legacy[legacy.index("\ncustomers_index  ") : legacy.index("\ncustomers_show  ")]
    assert "  returns object\n" in index
    assert one_line(index, "field", "type", "required") and one_line(index, "result[].created_at", "string", "yes")


@settings(max_examples=150, deadline=None)
@given(SCHEMAS, SCHEMAS, st.integers(min_value=30, max_value=220), st.text(max_size=300))
def test_any_schema_renders_within_the_width_without_escapes(schema, output, width, description):
    import io

    from rich.console import Console

    from rata.cli.console import STYLES
    from rata.cli.inspect_view import _signature

    if isinstance(schema, dict):
        schema = {**schema, "$defs": {"A": output, "B": schema}}
    buffer = io.StringIO()
    out = Console(file=buffer, width=width, color_system=None, highlight=False, theme=Theme(STYLES))
    tool = {"name": "t" + description[:40], "description": description, "inputSchema": schema, "outputSchema": output}
    _signature(out, tool, {"content": []}, title=True)
    text = buffer.getvalue()
    assert "\x1b" not in text
    assert max((cell_len(line) for line in text.splitlines()), default=0) <= width


SURFACE = '''
from typing import Literal

from rata import App, Ctx, Mcp, Resource, command, prompt, resource


@command(can="notes.view", live=True)
def notes_show(ctx: Ctx, note_id: int, shelf: str, verbose: bool = False) -> str:
    """Show one note.

    Args:
        note_id: The note's number.
        shelf: The shelf it sits on.
        verbose: Say more.
    """
    return ""


@resource("notes://days/{day}/{kind}", can="notes.view", description="The notes of one day.")
def notes_day(ctx: Ctx, day: str, kind: Literal["plain", "rich"]) -> str:
    """The notes of one day.

    Args:
        day: The day, as 2026-12-02.
        kind: How the notes are written.
    """
    return ""


@prompt(can="notes.view", title="Summarise a note")
def summarise(note_id: int, length: Literal["short", "long"] = "short") -> str:
    """Summarise one note.

    Args:
        note_id: The note to summarise.
        length: How long the summary is.
    """
    return ""


@prompt(can="notes.write")
def rewrite(text: str) -> str:
    """Rewrite a text; granted only with confirmation, and still offered.

    Args:
        text: The text to rewrite.
    """
    return text


@prompt(can="notes.secret")
def secret(text: str) -> str:
    """Not granted to agents."""
    return text


app = (
    App("notes", identifier="com.example.notes")
    .commands(notes_show)
    .prompts(summarise, rewrite, secret)
    .resources(
        Resource("notes://about", text="Notes, kept.", title="About", description="What this is.", can="notes.view"),
        Resource("notes://logo", data=b"\\x89PNG" * 300, mime_type="image/png", description="The logo.", can="notes.view"),
        Resource.file("notes://guide", "guide.md", description="How to use it.", can="notes.view"),
        Resource("notes://drafts", text="...", description="Drafts.", can="notes.write"),
        Resource("notes://hidden", text="...", description="Hidden.", can="notes.secret"),
        notes_day,
    )
    .mcp(Mcp().allow_abilities(["notes.view"]).confirm(["notes.write"]))
)
'''


@pytest.fixture
def surface_app(tmp_path):
    (tmp_path / "guide.md").write_text("# Guide\n")
    (tmp_path / "notes_app.py").write_text(SURFACE)
    return str(tmp_path / "notes_app.py")


def table_row(text: str, *cells: str) -> bool:
    """Whether some line of a boxed table holds `cells` in order, in cells of their own."""
    return re.search(r" +\u2502 +".join(re.escape(cell) for cell in cells), text) is not None


def section(out: str, heading: str) -> str:
    """The text from the line that starts with `heading` to the next blank line."""
    start = out.index(f"\n{heading}") + 1
    end = out.find("\n\n", start)
    return out[start : end if end >= 0 else len(out)]


def test_prompts_and_templates_show_every_parameter_with_its_type_at_80_columns(view, surface_app):
    out = view("--app", surface_app)
    assert max(len(line) for line in out.splitlines()) <= 80
    surface = json.loads(view("--app", surface_app, "--json"))
    assert [p["name"] for p in surface["prompts"]] == ["rewrite", "summarise"]
    prompts = section(out, "Prompts ")
    assert table_row(prompts, "summarise", "notes.view", "Summarise a note", "Summarise one note.")
    assert table_row(prompts, "rewrite", "notes.write")
    summarise = section(out, "summarise  Summarise one note.")
    assert "  ability notes.view; granted; title: Summarise a note\n" in summarise
    assert one_line(summarise, "note_id", "integer", "yes", "The note to summarise.")
    assert one_line(summarise, "length", '"short" | "long"', 'default "short"', "How long the summary is.")
    rewrite = section(out, "rewrite  Rewrite a text")
    assert "  ability notes.write; with confirmation (offered: the user picks it)\n" in rewrite
    assert one_line(rewrite, "text", "string", "yes")
    # a command template takes the parameters in its URI, not the ones with defaults
    command = section(out, "app://notes_show/{note_id}/{shelf}  Show one note.")
    assert one_line(command, "note_id", "integer", "yes", "The note's number.") and one_line(command, "shelf", "string", "yes")
    assert "verbose" not in command
    declared = section(out, "notes://days/{day}/{kind}  The notes of one day.")
    assert one_line(declared, "day", "string", "yes", "The day, as 2026-12-02.")
    assert one_line(declared, "kind", '"plain" | "rich"', "yes", "How the notes are written.")
    resources = section(out, "Resources ")
    assert table_row(resources, "notes://about", "about", "text/plain", "12 B", "About: What this is.")
    assert table_row(resources, "notes://logo", "logo", "image/png", "1,200 B", "The logo.")
    assert table_row(resources, "notes://guide", "guide", "text/markdown", "", "How to use it.")  # a file: no size
    assert "notes://drafts" not in resources and "notes://hidden" not in resources
    hidden = section(out, "Not exposed to agents:") + "\n"
    assert "  prompt secret  notes.secret is not granted to agents\n" in hidden
    assert "  resource notes://hidden  notes.secret is not granted to agents\n" in hidden
    assert "resource notes://drafts notes.write is granted only with confirmation (a read cannot ask)" in " ".join(hidden.split())
    assert "\nwarning  resource-confirm  /resourceDetails\n" in out  # the lint says so too
    assert out.endswith("1 tool, 3 resources, 2 templates, 2 prompts (1 command)\nlint: 0 errors, 1 warning, 0 notes\n")
    assert '"type"' not in out


def test_prompts_and_templates_at_200_columns_and_on_a_pipe(tmp_path, view, surface_app):
    wide = view("--app", surface_app, columns=200)
    assert max(len(line) for line in wide.splitlines()) <= 200
    assert table_row(wide, "notes://days/{day}/{kind}", "notes_day", "text/plain", "The notes of one day.")
    assert table_row(wide, "summarise", "notes.view", "Summarise a note", "Summarise one note.")
    base = subprocess_env(tmp_path / "home")
    for name in ("COLUMNS", "NO_COLOR", "FORCE_COLOR", "TERM"):
        base.pop(name, None)
    command = [sys.executable, "-m", "rata", "mcp", "inspect", "--app", surface_app]
    piped = subprocess.run(command, capture_output=True, env=base, check=True, text=True, encoding="utf-8").stdout
    assert "\x1b" not in piped and piped == view("--app", surface_app, columns=80)


def test_schemas_show_the_json_under_each_prompt_and_template(view, surface_app):
    out = view("--app", surface_app, "--schemas")
    summarise = out[out.index("\nsummarise  Summarise") :]
    assert 'summarise arguments\n{\n  "type": "object",' in summarise and '"enum": [\n        "short",' in summarise
    template = out[out.index("\nnotes://days/{day}/{kind}  ") : out.index("\napp://notes_show/{note_id}/{shelf}  ")]
    assert 'notes://days/{day}/{kind} parameters\n{\n  "type": "object",' in template
    command = out[out.index("\napp://notes_show/{note_id}/{shelf}  ") : out.index("\nPrompts ")]
    assert '"required": [\n    "note_id",\n    "shelf"\n  ],' in command and '"verbose"' not in command


def test_hostile_prompt_and_resource_texts_render_literally_within_the_width(view, tmp_path):
    source = SURFACE.replace('"Summarise one note.', '"[red]Summarise[/red]\\x1b[2J \\u202eone note ' + "word " * 100).replace(
        'title="About"', 'title="[bold]About[/bold]\\u200b", name="[i]about[/i]\\u202e"'
    )
    (tmp_path / "guide.md").write_text("# Guide\n")
    (tmp_path / "hostile_notes.py").write_text(source)
    out = literal_within_widths(view, tmp_path / "hostile_notes.py")
    assert "[red]Summarise[/red]" in out and "one note word word" in out and "[bold]About[/bold]: What this is." in out
    assert table_row(out, "notes://about", "[i]about[/i]", "text/plain")


def test_one_prompt_in_full_and_a_hidden_one_says_why(view, surface_app, rata_home):
    out = view("--app", surface_app, "--prompt", "summarise")
    assert out.startswith("summarise\n\nSummarise one note.\n\n  ability notes.view; granted; title: Summarise a note\n")
    assert one_line(out, "length", '"short" | "long"', 'default "short"', "How long the summary is.")
    assert 'summarise arguments\n{\n  "type": "object",' in out
    listed = json.loads(view("--app", surface_app, "--prompt", "summarise", "--json"))
    assert listed["name"] == "summarise" and [a["name"] for a in listed["arguments"]] == ["note_id", "length"]
    env = {"COLUMNS": "200", "NO_COLOR": "1", "RATA_HOME": str(rata_home)}
    for name, said in (("secret", "The prompt 'secret' is not shown to agents: notes.secret is not granted"), ("sumarise", "Did you mean 'summarise'?")):
        result = CliRunner().invoke(app, ["mcp", "inspect", "--app", surface_app, "-p", name], env=env)
        assert result.exit_code != 0 and said in result.stderr, result.stderr
    both = CliRunner().invoke(app, ["mcp", "inspect", "--app", surface_app, "-p", "summarise", "-t", "notes_show"], env=env)
    assert both.exit_code != 0 and "--tool and --prompt each show one item." in both.stderr
