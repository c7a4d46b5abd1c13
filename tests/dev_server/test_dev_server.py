"""`rata mcp dev` as a real subprocess, driven by the official MCP Python SDK (mcp 2.3.0) in both protocol eras.

The server serves a copy of examples/crm. Its database is migrated and filled by the crm app
itself; its logs are written by rata's own JSON-lines handler, rotated, with an ERROR and its
traceback in a rotated file. The SDK validates every result strictly, and structured content
against each tool's outputSchema.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from rata.migrations import migrate
from tests.dev_server.helpers import CUSTOMERS, bump_mtime, changes, copy_crm, dev_command, dev_env, seed_crm, snapshot, write_crm_logs
from tests.mcp.peers import LEGACY, MODERN

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

MODES = [MODERN, "legacy"]
TEST_SECONDS = 20
OWN_TEXT = {  # the dev tools whose text is written for a model (every one but the pictures)
    "app_calls", "app_info", "app_windows", "database_query", "database_schema", "last_error", "list_commands", "migration_status",
    "read_log_entries", "search_docs",
}  # fmt: skip
READ_TOOLS = ["app_info", "database_query", "database_schema", "last_error", "list_commands", "migration_status", "read_log_entries", "search_docs"]
WINDOW_TOOLS = ["app_calls", "app_windows", "window_act", "window_screenshot", "window_snapshot"]
TOOLS = sorted(READ_TOOLS + WINDOW_TOOLS)
COMMAND = re.compile(r"`[^`]+`")  # a command the developer can run, quoted like `rata migrate`
GUIDE = """\
# CRM guide

How our team uses the customer list.

## Zanzibar imports
Customers come from the old Zanzibar spreadsheet; a failed import is logged with its traceback.

## Billing
Invoices are sent monthly.
"""


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


class World:
    """A project (a copy of examples/crm), the app's folder, the cache folder and a neutral working folder."""

    def __init__(self, base: Path, home: Path) -> None:
        self.project = copy_crm(base / "project")
        self.home = home
        self.cache = base / "cache"
        self.cwd = base / "cwd"
        self.cwd.mkdir()

    def seed(self) -> None:
        """A migrated database with customers, real rotated logs with an ERROR, and a docs/ folder."""
        seed_crm(self.home)
        write_crm_logs(self.home)
        (self.project / "docs").mkdir()
        (self.project / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")

    def server(self, *, app: bool = True, command: list[str] | None = None, cwd: Path | None = None) -> StdioServerParameters:
        argv = command or dev_command(self.project if app else None)
        return StdioServerParameters(command=argv[0], args=argv[1:], env=dev_env(self.home, self.cache), cwd=str(cwd or self.cwd))


@pytest.fixture
def world(tmp_path: Path, rata_home: Path) -> World:
    return World(tmp_path, rata_home)


@asynccontextmanager
async def connected(params: StdioServerParameters, mode: str) -> AsyncIterator[Client]:
    client = Client(params, mode=mode, read_timeout_seconds=10, client_info=types.Implementation(name="rata-dev-tests", version="1.0"))
    async with client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def fields(entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry's other fields (a list of names and values on the wire) as a dict."""
    return {field["name"]: field["value"] for field in entry["fields"]}


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """A successful call's answer: its structured JSON (the same in both eras; a list unwrapped), checked against its text.

    A tool with a text of its own for models (``@command(text=...)``) sends that text, never JSON; the others send the JSON."""
    result = await client.call_tool(name, arguments or {})
    assert result.is_error is False, f"{name}: {text_of(result)}"
    structured = result.structured_content
    answer = structured["result"] if isinstance(structured, dict) and set(structured) == {"result"} else structured
    if name in OWN_TEXT:
        assert not text_of(result).lstrip().startswith(("{", "[")), f"{name}: its text is JSON"
    else:
        assert json.loads(text_of(result)) == answer
    return answer


async def call_error(client: Client, name: str, arguments: dict[str, Any] | None = None) -> str:
    result = await client.call_tool(name, arguments or {})
    assert result.is_error is True, f"{name} did not fail: {text_of(result)}"
    return text_of(result)


# --- the tool list ------------------------------------------------------------------------------


async def test_every_tool_is_listed_and_all_but_window_act_are_read_only(world, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            listed = await client.list_tools()
            assert client.protocol_version == (MODERN if mode == MODERN else LEGACY)
    assert sorted(tool.name for tool in listed.tools) == TOOLS
    for tool in listed.tools:
        assert tool.description, tool.name
        assert tool.annotations is not None
        if tool.name == "window_act":  # it clicks and types in the developer's running build
            assert tool.annotations.read_only_hint is False and tool.annotations.destructive_hint in (None, True)  # absent means destructive
            assert "with their data" in tool.description
            continue
        assert tool.annotations.read_only_hint is True, tool.name
        assert tool.annotations.destructive_hint in (None, False), tool.name
        shown_as_content = tool.name in ("window_snapshot", "window_screenshot")  # window_act: see above  # text and an image, not JSON
        assert (tool.output_schema is None) == shown_as_content, tool.name


async def test_auto_mode_finds_the_app_from_the_working_folder_like_mcp_inspect(world):
    script = shutil.which("rata", path=str(Path(sys.executable).parent))
    command = [script, "mcp", "dev"] if script else dev_command()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(command=command, cwd=world.project / "crm"), "auto") as client:
            assert client.protocol_version == MODERN
            info = await call(client, "app_info")
            listed = await client.list_tools()
    assert info["name"] == "crm" and info["project"] == str(world.project)
    assert len(listed.tools) == len(TOOLS)


# --- every tool on a real app -------------------------------------------------------------------


async def test_app_info_describes_the_app_its_folder_and_versions(world, mode):
    world.seed()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            info = await call(client, "app_info")
    assert (info["name"], info["identifier"], info["version"]) == ("crm", "com.example.crm", "1.0.0")
    assert info["project"] == str(world.project)
    assert info["folder"] == str(world.home) and info["database"] == str(world.home / "app.db") and info["database_exists"] is True
    assert info["logs"] == str(world.home / "logs")
    assert info["log_files"] == ["crm.log", "crm.log.1", "crm.log.2", "crm.log.3"]
    assert info["migrations"] == str(world.project / "crm" / "migrations")
    assert (info["commands"], info["tools"], info["resources"]) == (6, 4, 1)
    assert info["python_version"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert info["rata_version"]
    assert info["dependencies"] == [{"name": "rata-toolkit", "required": "rata-toolkit", "installed": info["rata_version"]}]
    assert info["note"] == ""


async def test_the_database_tools_read_what_the_app_wrote(world, mode):
    world.seed()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            full = await call(client, "database_schema")
            summary = await call(client, "database_schema", {"summary": True})
            filtered = await call(client, "database_schema", {"filter": "migr"})
            nothing = await call(client, "database_schema", {"filter": "invoices"})
            rows = await call(client, "database_query", {"sql": "SELECT id, name, email FROM customers ORDER BY id"})
            capped = await call(client, "database_query", {"sql": "SELECT name FROM customers ORDER BY id", "limit": 2})
            refused = await call_error(client, "database_query", {"sql": "DELETE FROM customers"})
            still = await call(client, "database_query", {"sql": "SELECT count(*) FROM customers"})
    tables = {t["name"]: t for t in full["tables"]}
    assert sorted(tables) == ["customers", "rata_migrations"] and full["exists"] is True
    customers = tables["customers"]
    assert customers["rows"] == 3
    assert [c["name"] for c in customers["columns"]] == ["id", "name", "email", "created_at"]
    assert customers["indexes"] == [{"name": "customers_email", "unique": True, "columns": ["<expression>"]}]
    assert summary["tables"] == [{"name": "customers", "rows": 3}, {"name": "rata_migrations", "rows": 1}]
    assert [t["name"] for t in filtered["tables"]] == ["rata_migrations"]
    assert nothing["tables"] == [] and "invoices" in nothing["note"]
    assert rows["columns"] == ["id", "name", "email"]
    assert rows["rows"] == [[i + 1, c["name"], c["email"]] for i, c in enumerate(CUSTOMERS)]
    assert rows["row_count"] == 3 and rows["more_rows"] is False
    assert "table" not in rows and rows["next_offset"] is None
    assert capped["rows"] == [["Ada Lovelace"], ["Grace Hopper"]] and capped["more_rows"] is True and "more" in capped["note"]
    assert re.search("read-only|refused", refused, re.IGNORECASE)
    assert still["rows"] == [[3]]


async def test_migration_status_says_applied_pending_changed_and_missing(world, mode):
    migrations = world.project / "crm" / "migrations"
    (migrations / "0002_add_notes.sql").write_text("ALTER TABLE customers ADD COLUMN notes TEXT;\n", encoding="utf-8")
    (migrations / "0003_create_tags.sql").write_text("CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT);\n", encoding="utf-8")
    world.home.mkdir()
    with closing(sqlite3.connect(world.home / "app.db")) as conn:
        migrate(conn, migrations)
    (migrations / "0002_add_notes.sql").write_text("ALTER TABLE customers ADD COLUMN notes TEXT NOT NULL DEFAULT '';\n", encoding="utf-8")
    (migrations / "0003_create_tags.sql").unlink()
    (migrations / "0004_create_invoices.sql").write_text("CREATE TABLE invoices (id INTEGER PRIMARY KEY);\n", encoding="utf-8")
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            report = await call(client, "migration_status")
    states = [(m["version"], m["name"], m["state"]) for m in report["migrations"]]
    assert states == [(1, "create_customers", "applied"), (2, "add_notes", "changed"), (3, "create_tags", "missing"), (4, "create_invoices", "pending")]
    assert all(m["applied_at"] for m in report["migrations"][:3]) and report["migrations"][3]["applied_at"] is None
    assert report["migrations_dir"] == str(migrations) and report["database"] == str(world.home / "app.db")
    assert "1 pending" in report["note"] and "`rata migrate`" in report["note"]
    assert "new migration" in report["note"]


async def test_last_error_finds_the_error_and_its_traceback_in_a_rotated_file(world, mode):
    world.seed()
    assert "ERROR" not in (world.home / "logs" / "crm.log").read_text(encoding="utf-8")
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            answer = await call(client, "last_error")
    error = answer["entry"]
    assert error["level"] == "ERROR" and error["logger"] == "crm" and error["message"] == "customer import failed"
    assert error["exception"].startswith("Traceback (most recent call last):")
    assert error["exception"].rstrip().endswith("KeyError: 'missing'")
    assert answer["note"] == ""


async def test_read_log_entries_reads_newest_first_across_rotated_files_with_each_filter(world, mode):
    world.seed()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            newest = await call(client, "read_log_entries")
            everything = await call(client, "read_log_entries", {"limit": 500})
            errors = await call(client, "read_log_entries", {"level": "ERROR"})
            warnings = await call(client, "read_log_entries", {"level": "WARNING"})
            billing = await call(client, "read_log_entries", {"logger": "crm.billing"})
            matching = await call(client, "read_log_entries", {"pattern": r"after the error 2[0-4]$"})
            since_ts = everything["entries"][4]["ts"]
            recent = await call(client, "read_log_entries", {"since": since_ts, "limit": 500})
            none = await call(client, "read_log_entries", {"pattern": "no such words anywhere"})
            bad_pattern = await call_error(client, "read_log_entries", {"pattern": "("})
            bad_since = await call_error(client, "read_log_entries", {"since": "yesterday"})
            bad_level = await client.call_tool("read_log_entries", {"level": "LOUD"})
    assert len(newest["entries"]) == 20
    assert newest["entries"][0]["message"] == "invoice overdue" and fields(newest["entries"][0]) == {"invoice": 7}
    assert newest["entries"][1]["message"] == "after the error 24"
    assert newest["files"][0] == "crm.log" and newest["stopped_early"] is False
    messages = [e["message"] for e in everything["entries"]]
    assert messages[:3] == ["invoice overdue", "after the error 24", "after the error 23"]
    assert len(messages) == 30 + 1 + 25 + 1  # every entry written, none lost at the rotation boundaries
    assert messages[-1] == "customer listed" and fields(everything["entries"][-1])["customer_id"] == 0
    assert everything["files"] == ["crm.log", "crm.log.1", "crm.log.2", "crm.log.3"]
    assert [e["message"] for e in errors["entries"]] == ["customer import failed"]
    assert [e["message"] for e in warnings["entries"]] == ["invoice overdue", "customer import failed"]
    assert [e["logger"] for e in billing["entries"]] == ["crm.billing"]
    assert [e["message"] for e in matching["entries"]] == [f"after the error {i}" for i in (24, 23, 22, 21, 20)]
    assert recent["entries"] and all(e["ts"] >= since_ts for e in recent["entries"])
    assert recent["entries"] == [e for e in everything["entries"] if e["ts"] >= since_ts]
    assert none["entries"] == [] and none["note"] == "No entry matches."
    assert "regular expression" in bad_pattern
    assert "ISO 8601" in bad_since
    assert bad_level.is_error is True and "level" in text_of(bad_level)


async def test_list_commands_shows_every_command_with_its_agent_access(world, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            result = await client.call_tool("list_commands", {})
    answer = result.structured_content
    assert answer["total"] == 6 and answer["next_after"] is None and answer["note"] == ""
    text = text_of(result)
    assert (
        text.startswith("6 commands, by name:\n")
        and "customers_store(name: str, email: str) -> Customer\n  customers.create · agents: allow\n  Add a customer." in text
    )
    assert "{" not in text  # the text is for a model: no JSON inside it
    by_name = {c["name"]: c for c in answer["commands"]}
    assert sorted(by_name) == ["app_reset", "customers_delete", "customers_index", "customers_show", "customers_store", "customers_update"]
    assert {name: c["agent"] for name, c in by_name.items()} == {
        "app_reset": None,
        "customers_delete": "confirm",
        "customers_index": "allow",
        "customers_show": "allow",
        "customers_store": "allow",
        "customers_update": None,
    }
    assert by_name["customers_index"]["live"] is True and by_name["customers_show"]["read_only"] is True
    assert by_name["customers_store"]["signature"] == "customers_store(name: str, email: str) -> Customer"
    assert by_name["customers_store"]["description"] == "Add a customer."
    assert by_name["customers_index"]["ability"] == "customers.view"


async def test_search_docs_searches_the_project_docs_and_ratas_and_keeps_the_index_in_the_cache(world, mode):
    world.seed()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            answer = await call(client, "search_docs", {"queries": ["zanzibar import", "live queries"], "budget_tokens": 4000})
            small = await call(client, "search_docs", {"queries": ["customer", "command", "app", "agent"], "budget_tokens": 1000})
    assert answer["hits"][0]["link"] == "docs/guide.md#zanzibar-imports"
    assert answer["hits"][0]["source"] == "project" and answer["hits"][0]["heading"] == "Zanzibar imports"
    assert any(hit["source"] == "rata" for hit in answer["hits"])
    assert [s.split(":")[0] for s in answer["sources"]] == ["project", "rata"]
    assert answer["next_skip"] is None or answer["next_skip"] == len(answer["hits"])
    assert small["next_skip"] == len(small["hits"]) and '"skip": ' in small["note"]
    indexes = list(world.cache.glob("docs-*.sqlite"))
    assert len(indexes) == 1


# --- nothing missing is an error ----------------------------------------------------------------


async def test_on_a_fresh_app_folder_every_tool_says_what_is_missing_and_how_to_create_it(world, mode):
    assert not world.home.exists()
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            info = await call(client, "app_info")
            schema = await call(client, "database_schema")
            query = await call(client, "database_query", {"sql": "SELECT * FROM customers"})
            migrations = await call(client, "migration_status")
            error = await call(client, "last_error")
            logs = await call(client, "read_log_entries")
            docs = await call(client, "search_docs", {"queries": ["live queries"]})
            commands = (await call(client, "list_commands"))["commands"]
    database = str(world.home / "app.db")
    assert info["database_exists"] is False and info["log_files"] == []
    assert database in info["note"] and "`rata migrate`" in info["note"] and "log" in info["note"].lower()
    assert schema["exists"] is False and schema["tables"] == [] and database in schema["note"] and "`rata migrate`" in schema["note"]
    assert query["rows"] == [] and database in query["note"] and "`rata migrate`" in query["note"]
    assert [(m["version"], m["state"]) for m in migrations["migrations"]] == [(1, "pending")]
    assert "`rata migrate`" in migrations["note"]
    log_file = str(world.home / "logs" / "crm.log")
    assert error["entry"] is None and log_file in error["note"]
    assert logs["entries"] == [] and logs["files"] == [] and log_file in logs["note"]
    assert COMMAND.search(error["note"]), f"last_error does not say which command writes the log: {error['note']!r}"
    assert COMMAND.search(logs["note"]), f"read_log_entries does not say which command writes the log: {logs['note']!r}"
    assert docs["hits"] and all(hit["source"] == "rata" for hit in docs["hits"])
    assert "no docs/ folder" in docs["note"]
    assert len(commands) == 6
    assert not world.home.exists()  # answering created nothing, not even the folder


async def test_a_project_that_fails_to_import_is_a_tool_error_naming_the_file_and_line(world, mode):
    app_file = world.project / "crm" / "app.py"
    source = app_file.read_text(encoding="utf-8")
    app_file.write_text(source.replace("def customers_show(ctx: Ctx, id: int)", "def customers_show(ctx: Ctx, id: int"), encoding="utf-8")
    line = next(i for i, text in enumerate(app_file.read_text(encoding="utf-8").splitlines(), 1) if text.startswith("def customers_show("))
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            listed = await client.list_tools()  # the server itself is up
            message = await call_error(client, "list_commands")
            also = await call_error(client, "database_schema")
    assert len(listed.tools) == len(TOOLS)
    assert str(app_file) in message and re.search(rf"{re.escape(str(app_file))}:({line}|{line + 1})\b", message), message
    assert str(app_file) in also


# --- reload on change ---------------------------------------------------------------------------


async def test_edits_to_the_app_are_seen_without_restarting_the_server(world):
    app_file = world.project / "crm" / "app.py"
    source = app_file.read_text(encoding="utf-8")
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), MODERN) as client:
            before = {c["name"]: c for c in (await call(client, "list_commands"))["commands"]}
            assert before["customers_show"]["description"] == "Show one customer."

            app_file.write_text(source.replace('"""Show one customer.', '"""Show one customer, with every field.'), encoding="utf-8")
            bump_mtime(app_file)
            edited = {c["name"]: c for c in (await call(client, "list_commands"))["commands"]}
            assert edited["customers_show"]["description"] == "Show one customer, with every field."

            added = source.replace(
                "@command\ndef app_reset",
                '@command(can="customers.view", read_only=True)\ndef customers_count(ctx: Ctx) -> int:\n    """Count the customers."""\n'
                '    return ctx.db.execute("SELECT count(*) FROM customers").fetchone()[0]\n\n\n@command\ndef app_reset',
            ).replace("customers_delete, app_reset)", "customers_delete, app_reset, customers_count)")
            app_file.write_text(added, encoding="utf-8")
            bump_mtime(app_file, seconds=20)
            names = [c["name"] for c in (await call(client, "list_commands"))["commands"]]
            info = await call(client, "app_info")

            app_file.write_text(added.replace("def customers_count(ctx: Ctx) -> int:", "def customers_count(ctx: Ctx) -> int"), encoding="utf-8")
            bump_mtime(app_file, seconds=30)
            broken = await call_error(client, "list_commands")

            app_file.write_text(source, encoding="utf-8")
            bump_mtime(app_file, seconds=40)
            fixed = [c["name"] for c in (await call(client, "list_commands"))["commands"]]
    assert "customers_count" in names and info["commands"] == 7 and info["tools"] == 5
    assert f"{app_file}:" in broken and "syntax error" in broken
    assert "customers_count" not in fixed and len(fixed) == 6


# --- it writes nothing --------------------------------------------------------------------------


async def test_a_whole_session_writes_nothing_in_the_project_or_the_app_folder(world, mode):
    world.seed()
    project_before, home_before = snapshot(world.project), snapshot(world.home)
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            await call(client, "app_info")
            await call(client, "database_schema")
            await call(client, "database_schema", {"summary": True})
            await call(client, "database_query", {"sql": "SELECT * FROM customers"})
            for sql in ("DELETE FROM customers", "CREATE TABLE t (a)", f"ATTACH '{world.home}/x.db' AS x", "PRAGMA user_version = 9", "VACUUM"):
                await call_error(client, "database_query", {"sql": sql})
            await call(client, "migration_status")
            await call(client, "last_error")
            await call(client, "read_log_entries", {"limit": 500})
            await call(client, "list_commands")
            await call(client, "search_docs", {"queries": ["zanzibar import", "migrations"]})
            await call(client, "search_docs", {"queries": ["billing"]})
    project_changes = changes(project_before, snapshot(world.project))
    home_changes = changes(home_before, snapshot(world.home))
    assert {"project": project_changes, "app folder": home_changes} == {"project": {}, "app folder": {}}
    assert list(world.cache.glob("docs-*.sqlite"))  # the docs index went to RATA_CACHE_DIR


# --- hostile logs and patterns ------------------------------------------------------------------

ORDINARY = "an ordinary message of seventy characters, as apps write them all day"
CATASTROPHIC = ["(?:.|.)*Q", "(a+)+$", "(x+x+)+y", "(?:a|aa)*c"]
HIDDEN = "\x1b[2J\x07\u202eevil\u200b"


def append_lines(path: Path, lines: list[bytes]) -> None:
    with open(path, "ab") as handle:
        handle.write(b"".join(line + b"\n" for line in lines))


def pattern_children() -> list[int]:
    """Processes still running a pattern search of this checkout (Linux's /proc)."""
    root = str(Path(__file__).resolve().parents[2])
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if "child_main" in cmdline and root in cmdline:
            found.append(int(pid))
    return found


async def test_catastrophic_patterns_stop_at_their_time_budget_and_later_calls_are_answered_promptly(world):
    world.seed()
    ordinary = json.dumps({"ts": "2026-07-28T09:00:00+00:00", "level": "INFO", "logger": "crm", "message": ORDINARY}).encode()
    runs = json.dumps({"ts": "2026-07-28T09:00:01+00:00", "level": "INFO", "logger": "crm", "message": "a" * 40 + "x" * 40 + "!"}).encode()
    append_lines(world.home / "logs" / "crm.log", [ordinary, runs, ordinary])
    answers: dict[str, Any] = {}
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), MODERN) as client:
            started = time.perf_counter()

            async def search(pattern: str) -> None:
                answers[pattern] = await call(client, "read_log_entries", {"pattern": pattern})

            async with anyio.create_task_group() as group:
                for pattern in CATASTROPHIC:
                    group.start_soon(search, pattern)
            searched = time.perf_counter() - started
            started = time.perf_counter()
            info = await call(client, "app_info")
            newest = await call(client, "read_log_entries", {"limit": 1})
            plain = await call(client, "read_log_entries", {"pattern": "ordinary", "limit": 1})
            after = time.perf_counter() - started
            if Path("/proc").is_dir():
                assert pattern_children() == []  # every search process was killed and reaped
    assert searched < 5 + 4, f"the searches took {searched:.1f} s"
    for pattern, answer in answers.items():
        assert answer["stopped_early"] is True, pattern
        assert answer["note"].startswith("Stopped early: the pattern search ran out of its 5 seconds"), answer["note"]
    assert after < 3, f"later calls took {after:.1f} s"
    assert info["name"] == "crm"
    assert newest["entries"][0]["message"] == ORDINARY
    assert plain["entries"][0]["message"] == ORDINARY and plain["note"].startswith("This is the limit of 1 entry; older ones, if any, come with")


async def test_hostile_log_lines_break_neither_last_error_nor_read_log_entries(world, mode):
    world.seed()
    head = b'{"ts": "2026-07-28T09:00:00+00:00", "level": "ERROR", "logger": "crm", '
    append_lines(
        world.home / "logs" / "crm.log",
        [
            head + b'"message": "nan", "value": NaN}',
            head + b'"message": "digits", "value": ' + b"7" * 5_000 + b"}",
            head + b'"message": "deep", "value": ' + b"[" * 2_000 + b"]" * 2_000 + b"}",
            head + b'"message": "long", "value": "' + b"x" * (3 * 1024 * 1024) + b'"}',
            head + b'"message": {"odd": "shape"}, "level": 5}',
            b"\xff\xfe not even text",
            head + json.dumps({"message": f"client \udfff {HIDDEN}", HIDDEN: "\ud800"})[1:].encode(),
        ],
    )
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            error = await call(client, "last_error")
            everything = await call(client, "read_log_entries", {"limit": 500})
            errors = await call(client, "read_log_entries", {"level": "ERROR", "limit": 500})
    assert error["entry"]["message"] == "client \ufffd [2Jevil"
    assert fields(error["entry"])["[2Jevil"] == "\ufffd"
    assert [e["message"] for e in errors["entries"]] == ["client \ufffd [2Jevil", "digits", "nan", "customer import failed"]
    assert fields(errors["entries"][1])["value"].startswith("7" * 100) and fields(errors["entries"][2])["value"] == "NaN"
    messages = [e["message"] for e in everything["entries"]]
    odd = [fields(e) for e in everything["entries"] if e["message"] == ""]
    assert odd == [{"level": 5, "message": '{"odd":"shape"}'}]  # odd shapes are shown among the fields, never a failure
    assert "invoice overdue" in messages and "customer import failed" in messages
    assert "Skipped 3 lines of the log that are not JSON objects or are longer than 1 MiB." in everything["note"]


async def test_a_hostile_client_name_the_app_logs_is_written_cut_and_read_back_valid(world, mode):
    # A lone surrogate never gets this far: the server refuses such a line (-32600, tests/mcp/test_stdio_hostile.py),
    # and the writer replaces one anyway (tests/test_logs.py). What reaches the log is 1.5 MB of visible and hidden text.
    world.seed()
    name = "evil\x1b[31m\u202e" + "x" * 1_500_000
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": name, "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "customers_index", "arguments": {}}},
    ]
    crm = [str(Path(sys.executable).parent / "crm"), "--mcp"]
    env = dev_env(world.home, world.cache)
    served = subprocess.run(crm, input="".join(json.dumps(line) + "\n" for line in lines).encode(), capture_output=True, env=env, timeout=30, check=False)
    assert served.returncode == 0, served.stderr[-2000:]
    (written,) = [line for line in (world.home / "logs" / "crm.log").read_bytes().splitlines() if b'"tool call"' in line]
    assert len(written) < 2_000  # 1.5 MB sent; a call can no longer flush the log
    with anyio.fail_after(TEST_SECONDS):
        async with connected(world.server(), mode) as client:
            answer = await call(client, "read_log_entries", {"logger": "rata.mcp", "limit": 1})
    (entry,) = answer["entries"]
    extra = fields(entry)
    assert extra["tool"] == "customers_index" and extra["outcome"] == "ok"
    assert extra["client"].startswith("evil[31mxxx") and len(extra["client"]) < 600  # cut, and cleaned of ESC and the bidi override
