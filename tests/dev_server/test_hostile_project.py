"""`rata mcp dev` on a project folder that fights back: a FIFO or a link to /dev/zero among the docs, and a project
whose import raises KeyboardInterrupt on a reload. The real server, as a process; every call answered, memory bounded."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rata.testing import AgentClient
from tests.dev_server.helpers import bump_mtime, dev_command, dev_env, make_project

pytestmark = [pytest.mark.subprocess, pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")]
MEMORY_CAP = 2 * 1024**3
"""Address space the server may use: reading /dev/zero whole grew past 1.15 GB."""


def capped_server(root: Path, tmp_path: Path) -> AgentClient:
    import resource  # POSIX only, like the test

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    import subprocess

    process = subprocess.Popen(
        dev_command(root), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=dev_env(tmp_path / "home", tmp_path / "cache"), preexec_fn=cap, cwd=root,
    )  # fmt: skip
    return _spawned(process)


def _spawned(process):  # AgentClient.spawn with a process of our own making (the memory cap)
    import threading

    def transport(client: AgentClient):
        def pump() -> None:
            for line in process.stdout:
                client._on_bytes(line)

        threading.Thread(target=pump, daemon=True).start()
        client._process = process

        def write(data: bytes) -> None:
            process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
            process.stdin.flush()

        return write

    return AgentClient(None, _transport=transport, timeout=30)


def test_a_fifo_and_a_link_to_dev_zero_among_the_docs_are_passed_over_and_named_and_every_search_is_answered(tmp_path):
    root, _ = make_project(tmp_path / "project")
    docs = root / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Live queries\n\nA live query runs again when its tables change.\n", encoding="utf-8")
    os.mkfifo(docs / "notes.md")
    (docs / "zero.md").symlink_to("/dev/zero")
    (docs / "huge.md").write_bytes(b"# Huge\n" + b"word " * 300_000)
    with capped_server(root, tmp_path) as agent:
        for _ in range(3):  # the index lock is never left held: every later search answers too
            result = agent.call("search_docs", {"queries": ["live query"]})
            assert not result.is_error, result.text
            assert result.data["hits"][0]["link"] == "docs/guide.md#live-queries"
            note = result.data["note"]
            assert '"docs/huge.md"' in note and '"docs/notes.md"' in note and '"docs/zero.md"' in note
            assert "3 file(s) were not searched" in note
        assert agent.call("app_info").data["name"] == "notes"


def test_a_project_that_raises_keyboard_interrupt_on_a_reload_is_a_load_error_each_tool_reports(tmp_path):
    root, package = make_project(tmp_path / "project")
    app_file = root / package / "app.py"
    good = app_file.read_text(encoding="utf-8")
    with AgentClient.spawn(dev_command(root), env=dev_env(tmp_path / "home", tmp_path / "cache"), timeout=30) as agent:
        assert agent.call("app_info").data["name"] == "notes"
        for raised in ("KeyboardInterrupt()", "SystemExit(3)", "GeneratorExit()"):
            app_file.write_text(good.replace("app = App(", f"raise {raised}\napp = App("), encoding="utf-8")
            bump_mtime(app_file, seconds=10 * (1 + len(raised)))
            for tool in ("app_info", "list_commands"):
                result = agent.call(tool)
                assert result.is_error and raised.split("(")[0] in result.text, (tool, result.text)
        app_file.write_text(good, encoding="utf-8")
        bump_mtime(app_file, seconds=500)
        assert agent.call("app_info").data["name"] == "notes"
        assert agent._process.poll() is None  # the server never exited while its input was open


def test_a_fifo_as_a_declared_file_resource_is_refused_at_once_and_the_server_serves_on(tmp_path):
    app_file = tmp_path / "files_app.py"
    app_file.write_text(
        "from rata import App, Ctx, Mcp, Resource, command\n\n"
        "@command(can='x.view')\ndef quick(ctx: Ctx) -> str:\n    \"\"\"Answer at once.\"\"\"\n    return 'quick done'\n\n"
        "app = (App('files', identifier='com.example.files').commands(quick)\n"
        "       .resources(Resource.file('files://notes', 'notes.md', can='x.view'), Resource.file('files://zero', 'zero.md', can='x.view'))\n"
        "       .mcp(Mcp().allow_abilities(['x.*']).rate_limit(None)))\n",
        encoding="utf-8",
    )
    os.mkfifo(tmp_path / "notes.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    env = {**dev_env(tmp_path / "home", tmp_path / "cache")}
    with AgentClient.spawn([sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)], env=env, timeout=30) as agent:
        for _ in range(20):  # more reads than the server has workers: none of them blocks one
            for uri, said in (("files://notes", "is a FIFO, not a regular file"), ("files://zero", "leads outside the app's folder")):
                answer = agent.request_raw("resources/read", {"uri": uri})
                assert said in answer["error"]["message"], answer
        assert agent.call("quick").data == "quick done"


def test_a_migration_file_that_is_a_fifo_blocks_neither_migration_status_nor_the_apps_own_start(tmp_path):
    root, package = make_project(tmp_path / "project")
    with open(root / package / "app.py", "a", encoding="utf-8") as app_file:  # granted to agents, for `rata mcp serve`
        app_file.write("\nfrom rata import Mcp\n\napp.mcp(Mcp().allow_abilities(['notes.*']))\n")
    migrations = root / package / "migrations"
    migrations.mkdir()
    (migrations / "0001_create_notes.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);", encoding="utf-8")
    os.mkfifo(migrations / "0002_pipe.sql")
    env = dev_env(tmp_path / "home", tmp_path / "cache")
    said = "The migration file '0002_pipe.sql' is a FIFO, not a regular file."
    with AgentClient.spawn(dev_command(root), env=env, timeout=30) as agent:
        for _ in range(3):
            result = agent.call("migration_status")
            assert result.is_error and said in result.text, result.text
        assert agent.call("app_info").data["name"] == "notes"
    serve = [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(root)]
    with AgentClient.spawn(serve, env={**env, "PYTHONPATH": str(root)}, timeout=30, stderr=__import__("subprocess").DEVNULL) as agent:
        result = agent.call("notes_count")
        assert result.is_error and said in result.text, result.text
