"""The log bounds the docs state are the code's: the reader's in docs/mcp-dev.md, the writer's in docs/getting-started.md."""

from __future__ import annotations

import re
from pathlib import Path

from rata import logs
from rata.dev_server import logreader

DOCS = Path(__file__).resolve().parents[2] / "docs"


def rows(page: str, heading: str) -> dict[str, list[str]]:
    """The first table after `heading` on the page: first cell -> the other cells."""
    text = (DOCS / page).read_text(encoding="utf-8")
    text = text[text.index(heading) :]
    lines = [line for line in text.splitlines() if line.startswith("|")]
    table = []
    for line in lines:
        table.append(line)
        if len(table) > 2 and not line.startswith("|"):
            break
    cells = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]] for line in table[2:]]
    return {row[0]: row[1:] for row in cells}


def flat(page: str) -> str:
    return " ".join((DOCS / page).read_text(encoding="utf-8").split())


def test_the_readers_bounds_on_the_mcp_dev_page_are_the_code():
    assert (logreader.MAX_LINE_BYTES, logreader.PATTERN_CHARS, logreader.PATTERN_SECONDS) == (1024 * 1024, 1_000, 5.0)
    assert (logreader.KEY_CHARS, logreader.MAX_FIELDS, logreader.NUMBER_CHARS, logreader.VALUE_DEPTH) == (200, 50, 100, 10)
    bounds = rows("mcp-dev.md", "## Bounds")
    assert bounds["A log line"][0] == "1 MiB"
    assert bounds["A `pattern`"][0] == "1,000 characters; 5 seconds of matching, in a child process"
    assert bounds["A field's name"][0] == "200 characters"
    assert bounds["Fields of a log entry"][0] == "50"
    assert bounds["A number in a log line"][0] == "100 characters"
    assert bounds["A list or object in a log entry"][0] == "10 levels deep"
    page = flat("mcp-dev.md")
    assert "limits its own CPU time (7 seconds) and memory (1 GiB)" in page
    assert logreader.CHILD_MEMORY == 1024**3 and int(logreader.PATTERN_SECONDS) + 2 == 7


def test_the_writers_bounds_on_the_getting_started_page_are_the_code():
    table = rows("getting-started.md", "| In a line |")
    assert "at most 200 characters" in table["The logger's name, the level, each field's name"][0] and logs.NAME_CHARS == 200
    assert "at most 4,000 characters" in table["The message"][0] and logs.MESSAGE_CHARS == 4_000
    assert "at most 16,000 characters: its first 2,000" in table["A traceback (`exception`)"][0]
    assert (logs.EXCEPTION_CHARS, logs.EXCEPTION_HEAD) == (16_000, 2_000)
    assert "at most 1,000 characters" in table["Any other text (a client's name, a tool's name, an extra field)"][0] and logs.TEXT_CHARS == 1_000
    field = table["A list or object field"][0]
    assert "8 levels and 200 values" in field and "4,000 characters" in field and "cut at 1,000" in field
    assert (logs.VALUE_DEPTH, logs.VALUE_ITEMS, logs.VALUE_CHARS) == (8, 200, 4_000)
    assert "at most 64 KiB" in table["The whole line"][0] and logs.LINE_BYTES == 64 * 1024
    assert table["An integer of more than 100 digits"][0] == '`"<integer of N bits>"`'
