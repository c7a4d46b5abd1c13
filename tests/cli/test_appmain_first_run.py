"""An app's own command line on a fresh data folder: `crm --mcp` migrates before its first call, on both of its paths.

The servers are real subprocesses (the console script), their bytecode cache (where the manifest
lives) private to the test, their data in an empty RATA_HOME.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from rata import App
from rata.cli.appmain import run_app
from rata.folder import AppFolder
from rata.mcp.wire import McpError
from rata.testing import AgentClient
from rata.upgrade import hold_lock
from tests.conftest import ROOT, subprocess_env
from tests.mcp.peers import crm_command

pytestmark = pytest.mark.subprocess

CRM_SOURCE = ROOT / "examples" / "crm" / "crm" / "app.py"


def manifest_of(prefix: Path, source: Path) -> Path:
    """Where a child whose PYTHONPYCACHEPREFIX is `prefix` keeps the manifest of `source` (rata.mcp.manifest)."""
    return prefix / source.parent.relative_to(source.anchor) / f"{source.stem}.{sys.implementation.cache_tag}.rata-mcp.json"


def test_crm_mcp_on_a_fresh_folder_answers_customers_index_on_the_plain_path_then_the_manifest_path(tmp_path):
    prefix = tmp_path / "pycache"
    for start, home in enumerate([tmp_path / "first-user", tmp_path / "second-user"]):
        assert manifest_of(prefix, CRM_SOURCE).is_file() == (start == 1)  # the first start writes the manifest the second answers from
        env = subprocess_env(home, PYTHONPYCACHEPREFIX=str(prefix))
        with (tmp_path / f"stderr-{start}").open("w") as stderr, AgentClient.spawn(crm_command(), env=env, stderr=stderr) as client:
            empty = client.call("customers_index")
            added = client.call("customers_store", {"name": "Ada", "email": "ada@example.com"})
            listed = client.call("customers_index")
        assert not empty.is_error and empty.data == []
        assert not added.is_error and listed.data == [added.data]
        assert "applied 0001_create_customers.sql" in (tmp_path / f"stderr-{start}").read_text()
        assert not [name for name in home.iterdir() if name.name.startswith("app-before-")]  # a new database: no copy


def test_crm_mcp_answers_tools_list_while_another_process_holds_the_migration_lock_then_the_call_waits_for_it(tmp_path):
    prefix = tmp_path / "pycache"
    for start in range(2):  # the plain path (migrating on a thread of its own), then the manifest path (on the loading thread)
        folder = AppFolder(tmp_path / f"user-{start}")
        folder.ensure()
        env = subprocess_env(folder.path, PYTHONPYCACHEPREFIX=str(prefix))
        with hold_lock(folder) as held, AgentClient.spawn(crm_command(), env=env, stderr=subprocess.DEVNULL) as client:
            assert "customers_index" in [tool["name"] for tool in client.list_tools()]  # answered while the lock is held
            answers: list = []
            calling = threading.Thread(target=lambda out=answers, agent=client: out.append(agent.call("customers_index")))
            calling.start()
            calling.join(0.5)
            assert answers == []  # the call waits for the migration, which waits for the lock
            held.__exit__(None, None, None)  # let go: the server migrates, and the call is answered
            calling.join(30)
        assert not answers[0].is_error and answers[0].data == []
        assert manifest_of(prefix, CRM_SOURCE).is_file()


def test_rata_mcp_serve_on_a_fresh_folder_migrates_before_the_first_call(tmp_path):
    rata = Path(sys.executable).parent / "rata"
    env = subprocess_env(tmp_path / "home")
    with AgentClient.spawn([str(rata), "mcp", "serve", "--app", str(ROOT / "examples" / "crm")], env=env, stderr=subprocess.DEVNULL) as client:
        listed = client.call("customers_index")
    assert not listed.is_error and listed.data == []


NOTES = textwrap.dedent(
    """
    from rata import App, Ctx, Mcp, command


    @command(can="notes.read", live=True)
    def notes_list(ctx: Ctx) -> list[str]:
        \"\"\"Every note.\"\"\"
        return [row[0] for row in ctx.db.execute("SELECT text FROM notes")]


    app = App("notes", identifier="com.example.first-run-notes", migrate_on_start=MIGRATE).commands(notes_list)
    app.mcp(Mcp().allow_abilities(["notes.*"]))
    """
)


def notes(tmp_path: Path, migrations: dict[str, str], *, migrate_on_start: bool = True) -> dict:
    """A notes app in a package of its own, and how its console script starts `--mcp`."""
    package = tmp_path / "src" / "first_run_notes"
    (package / "migrations").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text(NOTES.replace("MIGRATE", repr(migrate_on_start)))
    for name, sql in migrations.items():
        (package / "migrations" / name).write_text(sql)
    script = "from rata.cli.appmain import main_for; main_for('first_run_notes.app:app')"
    home = tmp_path / "home"
    env = subprocess_env(home, PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"), PYTHONPATH=str(tmp_path / "src"))
    manifest = manifest_of(tmp_path / "pycache", package / "app.py")
    return {"command": [sys.executable, "-c", script, "--mcp"], "env": env, "home": home, "script": script, "manifest": manifest}


BROKEN = {"0001_create_notes.sql": "CREATE TABLE notes (text TEXT);", "0002_broken.sql": "ALTER TABLE notes ADD COLUMN stars;\nINSERT INTO nowhere VALUES (1);"}


def test_a_failing_migration_is_said_once_and_every_call_and_read_answers_it_on_both_paths(tmp_path):
    app = notes(tmp_path, BROKEN)
    for start in range(2):  # the plain path, then the manifest path (the migration runs on the loading thread)
        assert app["manifest"].is_file() == (start == 1)
        with (tmp_path / "stderr").open("w") as stderr, AgentClient.spawn(app["command"], env=app["env"], stderr=stderr) as client:
            assert [tool["name"] for tool in client.list_tools()] == ["notes_list"]
            for _ in range(3):
                result = client.call("notes_list")
                assert result.is_error
                assert "0002_broken.sql" in result.text and "no such table: nowhere" in result.text and "developer must fix" in result.text
            with pytest.raises(McpError) as refused:
                client.read("app://notes_list")
            assert refused.value.code == -32603 and "0002_broken.sql" in refused.value.message
        said = (tmp_path / "stderr").read_text()
        assert said.count("0002_broken.sql") == 1, said
    logged = [json.loads(line) for line in (app["home"] / "logs" / "notes.log").read_text().splitlines()]
    assert len([entry for entry in logged if "0002_broken.sql" in entry["message"]]) == 2  # once per start, never per call
    conn = sqlite3.connect(app["home"] / "app.db")
    assert [row[1] for row in conn.execute("PRAGMA table_info(notes)")] == ["text"]  # 0002 left nothing behind
    conn.close()


def test_opted_out_crm_style_mcp_answers_the_step_to_run_then_works_after_it(tmp_path):
    app = notes(tmp_path, {"0001_create_notes.sql": "CREATE TABLE notes (text TEXT);"}, migrate_on_start=False)
    with AgentClient.spawn(app["command"], env=app["env"], stderr=subprocess.DEVNULL) as client:
        refused = client.call("notes_list")
        assert refused.is_error and "0001_create_notes.sql" in refused.text and "`notes --migrate`" in refused.text
        assert "no such table" not in refused.text
        migrated = subprocess.run([sys.executable, "-c", app["script"], "--migrate"], env=app["env"], capture_output=True, text=True, timeout=60)
        assert migrated.returncode == 0 and "applied 0001_create_notes.sql" in migrated.stderr
        assert client.call("notes_list").data == []  # the step taken, the same server answers


def test_migrate_without_a_migrations_folder_says_so_and_where_it_looked(tmp_path, capsys):
    app = App("jot", identifier="com.example.jot", root=tmp_path)
    assert run_app(app, ["--migrate"]) == 0
    assert capsys.readouterr().err == f"no migrations folder: looked for {tmp_path / 'migrations'}; nothing to apply\n"


def test_migrate_names_what_this_run_applied_before_a_failing_migration(tmp_path, capsys):
    (tmp_path / "migrations").mkdir()
    for name, sql in {"0001_a.sql": "CREATE TABLE a (x);", "0002_b.sql": "CREATE TABLE b (x);", "0003_c.sql": "INSERT INTO nowhere VALUES (1);"}.items():
        (tmp_path / "migrations" / name).write_text(sql)
    assert run_app(App("jot", identifier="com.example.jot", root=tmp_path), ["--migrate"]) == 1
    said = capsys.readouterr().err
    assert said.startswith("error: Migration '0003_c.sql' failed: no such table: nowhere.") and "Applied before it in this run: 0001_a.sql, 0002_b.sql." in said
