"""docs/install.md: its client table is the client table rata uses."""

from __future__ import annotations

import re
from pathlib import Path

from rata.install.clients import CLIENTS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "install.md"


def table_rows() -> list[list[str]]:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index("<!-- install-clients -->") + 3  # the marker, the header, the rule
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_the_table_lists_every_client_once_in_order():
    assert [spans(row[0])[0] for row in table_rows()] == [c.key for c in CLIENTS]


def test_the_project_file_column_is_what_write_writes():
    for row, client in zip(table_rows(), CLIENTS, strict=True):
        if client.project_file is None:
            assert row[2].startswith("none"), client.key
        else:
            assert spans(row[2])[0] == client.project_file.replace("{name}", "NAME"), client.key


def test_the_format_column_names_the_file_format_and_key():
    for row, client in zip(table_rows(), CLIENTS, strict=True):
        assert row[1].split(",")[0].lower().startswith(client.syntax if client.syntax != "jsonc" or client.key != "opencode" else "json"), client.key
        assert client.server_key in row[1] or client.key == "codex", client.key


def test_every_user_file_is_in_the_table():
    for row, client in zip(table_rows(), CLIENTS, strict=True):
        for _, path in client.user_files:
            assert path.split(" (")[0] in row[3], (client.key, path)


def test_the_limits_the_page_states_are_the_code_s():
    from rata.install import files as install_file
    from rata.install import jsonc

    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert f"larger than {install_file.MAX_BYTES // (1024 * 1024)} MiB" in text
    assert f"deeper than {jsonc.MAX_DEPTH} levels" in text
    assert "waits at most 10 seconds" in text and install_file.LOCK_TIMEOUT == 10
    assert "`RATA_INSTALL_LOCK_TIMEOUT`" in text and "`..mcp.json.lock`" in text
    assert "--replace" in text and "`***`" in text


def test_the_test_that_adds_a_client_row_is_the_one_the_page_names():
    text = PAGE.read_text(encoding="utf-8")
    for path, name in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text):
        source = (PAGE.parents[1] / path).read_text(encoding="utf-8")
        assert f"def {name}(" in source, (path, name)
    assert "test_a_new_client_row_reaches_every_part_of_rata_mcp_install" in text


def test_the_python_frameworks_table_gives_the_versions_requirements_test_pins():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("### Python agent frameworks") :]
    rows = re.findall(r"^\| [^|]+\(`([\w\-\[\]]+)`\) \| ([\d.]+) \|", section, flags=re.M)
    pins = dict(re.findall(r"^([\w\-\[\]]+)==([\d.]+)$", (PAGE.parents[1] / "requirements-test.txt").read_text(encoding="utf-8"), flags=re.M))
    assert [name for name, _ in rows] == ["openai-agents", "pydantic-ai-slim[mcp]", "fastmcp"]
    assert dict(rows) == {name: pins[name] for name, _ in rows}
