"""The one module that talks to rich: text from help and apps is shown exactly as written."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text
from typer.testing import CliRunner

from rata.cli.console import escape_markup
from rata.cli.main import app

MARKUPISH = st.text(alphabet="ab z[]/=#@\\:-_.`'\"", max_size=40) | st.lists(
    st.sampled_from(["[tool.rata]", "[bold]", "[/]", "[/bold]", "\\", "\\[", "[", "]", ":smile:", ":", "[link=x]", "a", " ", "[@click]"]), max_size=12
).map("".join)


@given(MARKUPISH)
def test_escaped_text_renders_as_exactly_the_text(text):
    assert Text.from_markup(escape_markup(text)).plain == text


def test_help_texts_keep_their_brackets_backslashes_and_colons():
    for text in ("a project folder with [tool.rata] app", "a lone \\[ and a trailing \\", "module:attr, :smile:", "\\[bold]not bold"):
        assert Text.from_markup(escape_markup(text)).plain == text


def test_an_error_that_names_tool_rata_shows_it_literally(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool]\nrata = "crm.app:app"\n')
    result = CliRunner().invoke(app, ["migrate", "--app", str(tmp_path)], env={"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"})
    assert result.exit_code == 1
    assert result.stderr.startswith("error: [tool.rata] in ") and "Write [tool.rata] then app = " in result.stderr
