"""docs/zero-to-claude-desktop.md: a new app's bundle, started as Claude Desktop starts it, works on its first call and
keeps the user's data through an upgrade.

The page's transcripts run in tests/docs/test_docs.py; this test drives the same script
(docs/examples/claude_desktop/first_run.py) step by step and checks what the transcripts cannot show: that the
server's Python has no rata, and that the copy kept at the upgrade is the database as it was before it.

It needs the behaviour of docs/data.md (every start migrates, a copy before an upgrade): before it, the first call
answers "no such table".
"""

from __future__ import annotations

import importlib.util
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import ROOT, subprocess_env

pytestmark = pytest.mark.subprocess

SCRIPT = ROOT / "docs" / "examples" / "claude_desktop" / "first_run.py"
RATA = Path(sys.executable).parent / "rata"


def first_run():
    spec = importlib.util.spec_from_file_location("first_run", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rata(*args: str, cwd: Path) -> None:
    done = subprocess.run([str(RATA), *args], cwd=cwd, env=subprocess_env(cwd / "dev-home"), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr


def calls(script, bundle: Path, *titles: str) -> list[dict]:
    """Install `bundle`, start it, add each title, and return every tools/call result."""
    server = script.start(script.install(bundle), Path("home"))
    client = script.Client(server)
    try:
        client.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}})
        client.notify("notifications/initialized")
        results = [client.request("tools/call", {"name": "tasks_add", "arguments": {"title": title}}) for title in titles]
        return [*results, client.request("tools/call", {"name": "tasks_list", "arguments": {}})]
    finally:
        client.close()


def test_the_bundle_works_on_its_first_call_and_keeps_the_data_and_a_copy_through_an_upgrade(tmp_path, monkeypatch):
    script = first_run()
    monkeypatch.chdir(tmp_path)
    rata("new", "tasks", "--author", "Ada Lovelace <ada@example.com>", cwd=tmp_path)
    project = tmp_path / "tasks"
    rata("mcp", "pack", cwd=project)

    bare = [getattr(sys, "_base_executable", sys.executable), "-S", "-c", "import rata"]
    assert subprocess.run(bare, env={"PATH": "/usr/bin:/bin"}, capture_output=True).returncode != 0, "the bare Python must not see rata"

    first = calls(script, project / "dist" / "tasks-0.1.0.mcpb", "Water the plants")
    assert [result.get("isError", False) for result in first] == [False, False], first
    assert [task["title"] for task in first[-1]["structuredContent"]["result"]] == ["Water the plants"]
    (database,) = Path("home").rglob("app.db")
    assert database.parent == Path("home/.local/share/com.example.tasks")  # no RATA_HOME: the platform's folder
    assert [path for path in database.parent.rglob("*") if path != database and script.is_copy(path)] == []

    for path in (project / "pyproject.toml", project / "tasks" / "app.py"):
        path.write_text(path.read_text(encoding="utf-8").replace("0.1.0", "0.2.0"), encoding="utf-8")
    (project / "tasks" / "migrations" / "0002_add_note.sql").write_text("ALTER TABLE tasks ADD COLUMN note TEXT;\n", encoding="utf-8")
    rata("mcp", "pack", cwd=project)

    second = calls(script, project / "dist" / "tasks-0.2.0.mcpb", "Call the bank")
    assert [result.get("isError", False) for result in second] == [False, False], second
    assert [task["title"] for task in second[-1]["structuredContent"]["result"]] == ["Water the plants", "Call the bank"]
    with closing(sqlite3.connect(database)) as db:
        assert "note" in [row[1] for row in db.execute("PRAGMA table_info(tasks)")]
    (copy,) = [path for path in database.parent.rglob("*") if path != database and script.is_copy(path)]
    with closing(sqlite3.connect(copy)) as db:
        assert [row[0] for row in db.execute("SELECT title FROM tasks")] == ["Water the plants"]
        assert "note" not in [row[1] for row in db.execute("PRAGMA table_info(tasks)")]
