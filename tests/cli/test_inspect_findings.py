"""`rata mcp inspect`'s lint findings read as paragraphs at any width, and each fix's code is one line, whole, to copy."""

from __future__ import annotations

import io
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.theme import Theme
from typer.testing import CliRunner

from rata.cli.console import STYLES
from rata.cli.inspect_view import _findings
from rata.cli.main import app
from rata.codegen.lint import Finding
from tests.cli.conftest import matches_snapshot
from tests.cli.test_mcp_inspect import LINTY

CODE = "limit: Annotated[int, Field(ge=1, le=500)] = 50"


def lint_section(tmp_path, columns: int) -> str:
    (tmp_path / "linty.py").write_text(textwrap.dedent(LINTY))
    env = {"COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    result = CliRunner().invoke(app, ["mcp", "inspect", "--app", str(tmp_path / "linty.py")], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout[result.stdout.index("\nLint\n") :]


@pytest.mark.parametrize("columns", [80, 120])
def test_each_finding_is_a_paragraph_within_the_width_and_its_fix_is_whole(tmp_path, columns):
    shown = lint_section(tmp_path, columns)
    assert matches_snapshot(f"inspect_lint_{columns}.txt", shown)
    lines = shown.splitlines()
    assert max(cell_len(line) for line in lines) <= columns
    assert f"    {CODE}" in lines  # the code to paste: one line of its own, unbroken
    assert "  fix: Add a bound with a maximum:" in lines
    assert "┃" not in shown and "│" not in shown  # no table
    paragraphs = shown.split("\n\n")[1:]
    assert [paragraph.split()[:2] for paragraph in paragraphs[:2]] == [["error", "name-too-long"], ["error", "name-collision"]]
    fixes = " ".join(" ".join(line.split()) for line in lines)
    assert "fix: Use only letters, digits, '_' and '-' in command names (@command(name=...))." in fixes


def render(findings: list[Finding], width: int) -> str:
    out = Console(file=io.StringIO(), width=width, theme=Theme(STYLES), no_color=True, highlight=False, force_terminal=False)
    _findings(out, findings)
    return out.file.getvalue()  # type: ignore[attr-defined] - the Console writes to the StringIO made above


WORD = st.text(alphabet="abcdefghij_.'()=[],:", min_size=1, max_size=12)
PROSE = st.lists(WORD, min_size=1, max_size=20).map(" ".join)


@given(
    width=st.integers(min_value=40, max_value=160),
    message=PROSE,
    before=PROSE,
    code=st.lists(WORD, min_size=1, max_size=6).map(" ".join),
    tool=st.one_of(st.none(), WORD),
)
def test_any_finding_fits_the_width_and_keeps_its_code_on_one_line(width, message, before, code, tool):
    finding = Finding("some-rule", "warning", tool, "/inputSchema/properties/x", message, f"{before}: `{code}`.")
    lines = render([finding], width).splitlines()
    assert max(cell_len(line) for line in lines) <= width
    assert any(line.strip() == code for line in lines)  # never wrapped, whatever its spaces
    shown_words = {word for line in lines for word in line.split()}
    last = before.split()[-1]  # shown with the colon after it
    assert set(message.split()) <= shown_words and set(before.split()) - {last} <= shown_words and f"{last}:" in shown_words
