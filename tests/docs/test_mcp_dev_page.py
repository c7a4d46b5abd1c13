"""docs/mcp-dev.md, "`rata mcp dev`: the app, for your coding agent": the claims its transcripts do not check.

test_docs.py runs the page's transcripts and checks its example files. This module checks
what the page states in prose and tables: the tool list and arguments against the dev
server's own `tools/list`, the bounds against the constants in `rata/dev_server/`, what the
read-only connection refuses, the notes for missing things, reloading, what the server
writes, both eras, the client configurations, and the Laravel Boost table.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rata import projectfiles
from rata.dev_server import budget, database, docs_answer, docs_index, logreader, schema_answer, target, tools, windows
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.install.plan import new_project_dev_file
from rata.testing import AgentClient

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "mcp-dev.md"
EXAMPLES = ROOT / "docs" / "examples" / "mcp_dev"
CRM = ROOT / "examples" / "crm"
VENV_BIN = Path(sys.executable).parent
TOOL_NAMES = sorted(fn.__name__ for fn in tools.declared(tools))
WINDOW_TOOL_NAMES = sorted(fn.__name__ for fn in tools.declared(windows))

# Laravel Boost 2.5.5 (tagged 2026-08-19; main as of 2026-08-21): the tools its MCP server
# registers, and the ones it removed in 2.3.0, as the page's table names them.
BOOST_TOOLS = {
    "application-info", "browser-logs", "database-connections", "database-query", "database-schema",
    "get-absolute-url", "last-error", "read-log-entries", "record-rule", "search-docs", "tinker",
}
BOOST_REMOVED_IN_2_3 = {"get-config", "list-artisan-commands", "list-available-config-keys", "list-available-env-vars", "list-routes"}


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def section(heading: str) -> str:
    """The text of one `## ` or `### ` section of the page (up to the next heading of any level)."""
    text = page()
    start = text.index(f"\n{heading}\n")
    following = re.search(r"\n#{2,3} ", text[start + 1 :])
    return text[start : start + 1 + following.start()] if following else text[start:]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first Markdown table in `text`, cells stripped."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]] for line in lines[2:]]


def flat(text: str) -> str:
    """Text with each run of white space made one space, to find a sentence however the page wraps it."""
    return " ".join(text.split())


def spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def env_for(home: Path, cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"}}
    env.update(PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", RATA_HOME=str(home), RATA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


@pytest.fixture
def dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AgentClient]:
    """A client of the dev server, in this process, for a one-file app in tmp_path/project."""
    monkeypatch.setenv("RATA_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    project.mkdir()
    (project / "shop.py").write_text(
        'from rata import App, command\n\n\n@command(can="shop.view", read_only=True)\ndef shop_ping() -> str:\n    """Ping."""\n    return "pong"\n\n\n'
        'app = App("shop", identifier="com.example.shop").commands(shop_ping)\n',
        encoding="utf-8",
    )
    with AgentClient(dev_app(Target(str(project / "shop.py"), project))) as agent:
        yield agent


# --- the page among the pages ----------------------------------------------------------------------


def test_index_and_readme_link_to_the_page() -> None:
    assert "(mcp-dev.md)" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "(docs/mcp-dev.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_example_file_is_used_on_the_page() -> None:
    """Each request file is cat'ed or piped in a transcript; the others are shown with a file marker."""
    text = page()
    for path in sorted(EXAMPLES.iterdir()):
        if path.name == "__pycache__":
            continue
        if path.suffix == ".jsonl":
            assert f"< {path.name}" in text, f"{path.name} is never sent to a server on the page"
        else:
            assert f"<!-- file: docs/examples/mcp_dev/{path.name} -->" in text, f"{path.name} is not shown on the page"


# --- the tools ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("heading", "names"), [("## The tools", TOOL_NAMES), ("## The window tools", WINDOW_TOOL_NAMES)])
def test_the_tool_tables_list_exactly_the_dev_servers_tools(dev: AgentClient, heading: str, names: list[str]) -> None:
    listed = dev.list_tools()
    assert sorted(tool["name"] for tool in listed) == sorted(TOOL_NAMES + WINDOW_TOOL_NAMES)
    rows = table_rows(section(heading))
    assert sorted(spans(row[0])[0] for row in rows) == names
    numbers = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    assert f"{numbers[len(TOOL_NAMES)]} read-only tools" in flat(page())
    assert f"{numbers[len(WINDOW_TOOL_NAMES)]} [window tools]" in flat(page())
    for row in rows:
        (name,) = spans(row[0])
        (tool,) = [t for t in listed if t["name"] == name]
        arguments = list(tool["inputSchema"].get("properties", {}))  # a tool without arguments has no properties
        assert spans(row[1]) == arguments, f"the arguments of {name}"
        assert f"\n### {name}\n" in page(), f"{name} has no section of its own"


def test_every_tool_but_window_act_is_read_only_and_none_is_rate_limited(dev: AgentClient) -> None:
    for tool in dev.list_tools():
        assert tool["annotations"]["readOnlyHint"] is (tool["name"] != "window_act"), tool["name"]
        if tool["name"] in TOOL_NAMES:
            assert "outputSchema" in tool, tool["name"]
    app = dev_app(Target(None, ROOT))
    assert app.mcp_config.limit is None


def test_the_argument_tables_match_the_schemas(dev: AgentClient) -> None:
    schemas = {tool["name"]: tool["inputSchema"].get("properties", {}) for tool in dev.list_tools()}
    logs = schemas["read_log_entries"]
    assert (logs["limit"]["default"], logs["limit"]["minimum"], logs["limit"]["maximum"]) == (20, 1, 500)
    levels = [v for option in logs["level"].get("anyOf", [logs["level"]]) for v in option.get("enum", [])]
    assert levels == ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
    rows = {spans(row[0])[0]: row for row in table_rows(section("### read_log_entries"))}
    assert list(rows) == list(logs)
    assert rows["limit"][1] == "20" and "1 to 500" in rows["limit"][2]
    assert spans(rows["level"][2]) == levels
    docs = schemas["search_docs"]
    (bounded,) = [option for option in docs["budget_tokens"]["anyOf"] if option["type"] == "integer"]
    assert (docs["budget_tokens"]["default"], bounded["minimum"], bounded["maximum"]) == (None, budget.MIN_TOKENS, budget.MAX_TOKENS)
    assert docs_answer.DEFAULT_TOKENS == 2_000
    assert (docs["queries"]["minItems"], docs["queries"]["maxItems"], docs_answer.QUERY_CHARS) == (1, 10, 500)
    assert "maxLength" not in docs["queries"]["items"]  # checked by the tool: strict-mode clients refuse maxLength on items
    assert (docs["skip"]["default"], docs["skip"]["minimum"]) == (0, 0)
    rows = {spans(row[0])[0]: row for row in table_rows(section("### search_docs"))}
    assert list(rows) == list(docs)
    assert "1 to 10 searches of up to 500 characters" in rows["queries"][2]
    assert rows["budget_tokens"][1] == "2,000, or the server's budget when that is smaller" and "1,000 to 25,000" in rows["budget_tokens"][2]
    assert rows["skip"][1] == "0" and "`next_skip`" in rows["skip"][2]
    query = schemas["database_query"]
    assert (query["limit"]["default"], query["limit"]["minimum"], query["limit"]["maximum"]) == (database.DEFAULT_ROWS, 1, database.MAX_ROWS)
    assert (query["offset"]["default"], query["offset"]["minimum"], query["offset"]["maximum"]) == (0, 0, database.MAX_OFFSET) == (0, 0, 1_000_000_000)
    rows = {spans(row[0])[0]: row for row in table_rows(section("### database_query"))}
    assert list(rows) == list(query)
    assert "1 to 1000" in rows["limit"][2] and "0 to 1,000,000,000" in rows["offset"][2] and "1,000 to 25,000" in rows["budget_tokens"][2]


def test_the_bounds_table_is_the_code() -> None:
    assert (database.DEFAULT_ROWS, database.MAX_ROWS, database.TIME_LIMIT_MS, database.CELL_CHARS) == (100, 1_000, 2_000, 200)
    assert logreader.MAX_SCAN_BYTES == 64 * 1024 * 1024
    assert (logreader.MESSAGE_CHARS, logreader.TRACEBACK_CHARS, logreader.EXTRA_CHARS) == (2_000, 8_000, 500)
    assert target._MAX_FILES == 5_000
    rows = {row[0]: row[1:] for row in table_rows(section("## Bounds"))}
    assert rows["Rows from `database_query`"][0] == "100 by default; `limit` from 1 to 1000"
    assert (schema_answer.SQL_CHARS, schema_answer.VALUE_CHARS) == (2_000, 200)
    assert rows["The SQL of a view or trigger in `database_schema`"][0] == "2,000 characters; a column's type or default: 200"
    assert rows["A query's running time"][0] == "2 seconds (2,000 ms)"
    assert rows["A text cell"][0] == "200 characters"
    assert rows["Entries from `read_log_entries`"][0] == "20 by default; `limit` from 1 to 500"
    assert rows["Reading a log"][0] == "64 MiB from the end, across all its files"
    assert rows["A log message"][0] == "2,000 characters"
    assert rows["A traceback"][0] == "8,000 characters"
    assert rows["Any other field of a log entry"][0] == "500 characters (a list or object: its JSON)"
    assert rows["`search_docs`"][0] == (
        f"{docs_answer.DEFAULT_TOKENS:,} tokens by default (the server's budget when that is smaller); "
        f"`budget_tokens` from {budget.MIN_TOKENS:,} to {budget.MAX_TOKENS:,}; "
        f"1 to 10 queries of up to 500 characters; a heading {docs_answer.HEADING_CHARS} characters, a snippet {docs_answer.SNIPPET_CHARS}"
    )
    assert rows["Files watched for reloading"][0] == "5,000"
    assert "skipping `.git`, `.venv`, `venv`, `node_modules`, `__pycache__`, `build`, `dist` and other hidden folders" in flat(page())
    assert {".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist"} <= projectfiles.SKIP_DIRS
    assert projectfiles.MAX_WALK_ENTRIES == 50_000 and "that look stops after 50,000 folders and files, Python packages first" in flat(page())


# --- read-only ---------------------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "PRAGMA journal_mode = WAL; CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, photo BLOB);"
        "CREATE INDEX customers_name ON customers (name);"
        "INSERT INTO customers (name, photo) VALUES ('Ada Lovelace', randomblob(20)), (printf('%.300c', 'x'), NULL);"
    )
    conn.close()
    return path


def test_the_read_only_connection_opens_on_this_python(db: Path) -> None:
    """Python may be built without loadable SQLite extensions (pyenv's default), where sqlite3.Connection has no enable_load_extension."""
    conn = database.connect_read_only(db)
    try:
        assert conn.execute("SELECT count(*) FROM customers").fetchone()[0] == 2
        raw = conn.connection()  # the sqlite3 connection underneath
        raw.set_authorizer(None)  # the authorizer does not let `PRAGMA query_only` be read
        assert raw.execute("PRAGMA query_only").fetchone()[0] == 1
    finally:
        conn.close()


REFUSED = [
    "INSERT INTO customers (name) VALUES ('Grace')",
    "UPDATE customers SET name = 'x'",
    "DELETE FROM customers",
    "CREATE TABLE t (x)",
    "DROP TABLE customers",
    "ALTER TABLE customers ADD COLUMN y",
    "ATTACH DATABASE 'copy.db' AS copy",
    "DETACH DATABASE main",
    "BEGIN",
    "COMMIT",
    "SAVEPOINT s",
    "VACUUM",
    "REINDEX",
    "ANALYZE",
    "PRAGMA journal_mode = DELETE",
    "PRAGMA user_version = 5",
    "PRAGMA cache_size",
    "SELECT load_extension('evil')",
    "SELECT 1; DROP TABLE customers",
]
ALLOWED = [
    "SELECT * FROM customers",
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT i FROM n",
    "EXPLAIN QUERY PLAN SELECT * FROM customers",
    "PRAGMA table_info(customers)",
    "PRAGMA index_list(customers)",
    "PRAGMA user_version",
    "PRAGMA journal_mode",
]


@pytest.mark.parametrize("sql", REFUSED)
def test_what_the_page_says_is_refused_is_refused(db: Path, sql: str) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    conn = database.connect_read_only(db)
    try:
        with pytest.raises(database.QueryRefused):
            database.run_query(conn, sql)
    finally:
        conn.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (db.parent / "copy.db").exists()


@pytest.mark.parametrize("sql", ALLOWED)
def test_reading_is_allowed(db: Path, sql: str) -> None:
    conn = database.connect_read_only(db)
    try:
        assert database.run_query(conn, sql).row_count >= 1
    finally:
        conn.close()


def test_the_denied_functions_and_read_pragmas_on_the_page(db: Path) -> None:
    text = flat(section("## Read-only, enforced by SQLite"))
    for function in database._DENIED_FUNCTIONS:
        assert f"`{function}`" in text
    for pragma in ("table_info", "index_list"):
        assert pragma in database._INFO_PRAGMAS and f"`{pragma}`" in text
    assert "user_version" in database._VALUE_PRAGMAS and "`user_version` (without a value)" in text


def test_mode_ro_cannot_create_the_database(tmp_path: Path) -> None:
    with pytest.raises(sqlite3.OperationalError):
        database.connect_read_only(tmp_path / "nothing.db")
    assert not (tmp_path / "nothing.db").exists()


def test_cells_and_the_time_limit(db: Path) -> None:
    conn = database.connect_read_only(db)
    try:
        result = database.run_query(conn, "SELECT name, photo FROM customers ORDER BY id")
        assert result.rows[0] == ["Ada Lovelace", "<20 bytes>"]
        assert result.rows[1][0] == "x" * 200 + "... (300 chars)"
        with pytest.raises(database.QueryRefused, match="longer than 2000 ms"):
            database.run_query(conn, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
    finally:
        conn.close()


# --- logs ---------------------------------------------------------------------------------------------


def entry(ts: str, level: str, message: str, **extra: Any) -> str:
    return json.dumps({"ts": ts, "level": level, "logger": extra.pop("logger", "crm"), "message": message, **extra}) + "\n"


def test_logs_are_read_backwards_across_rotations_with_cuts(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "crm.log.2").write_text(
        entry("2026-07-01T09:00:00+00:00", "ERROR", "oldest", exception="Traceback\n" + "y" * 9_000 + "\nValueError: end"), encoding="utf-8"
    )
    (logs / "crm.log.1").write_text(
        entry("2026-07-02T09:00:00+00:00", "INFO", "m" * 2_500, detail="d" * 600, tags=["t"] * 200) + "not json\n", encoding="utf-8"
    )
    (logs / "crm.log").write_text(entry("2026-07-03T09:00:00+00:00", "WARNING", "newest", logger="rata.mcp"), encoding="utf-8")
    scan = logreader.read_entries(logs, "crm", limit=10)
    assert [e["ts"][:10] for e in scan.entries] == ["2026-07-03", "2026-07-02", "2026-07-01"]
    assert scan.files == ["crm.log", "crm.log.1", "crm.log.2"]
    assert scan.entries[1]["message"] == "m" * 2_000 + "... (cut, 2500 chars)"
    assert scan.entries[1]["detail"] == "d" * 500 + "... (cut, 600 chars)"
    assert scan.entries[1]["tags"].endswith("... (cut, 1000 chars)") and len(scan.entries[1]["tags"]) == 500 + len("... (cut, 1000 chars)")
    trace = scan.entries[2]["exception"]
    assert (
        trace.startswith("... (cut: the start of the traceback)\n")
        and trace.endswith("ValueError: end")
        and len(trace) == len("... (cut: the start of the traceback)\n") + 8_000
    )
    import datetime as dt

    since = logreader.read_entries(logs, "crm", since=dt.datetime(2026, 7, 2, tzinfo=dt.UTC))
    assert [e["message"][:6] for e in since.entries] == ["newest", "mmmmmm"]
    assert len(since.entries) == 2  # it stopped at the first older entry, in crm.log.2
    assert [e["message"] for e in logreader.read_entries(logs, "crm", min_level="WARNING", logger="rata").entries] == ["newest"]
    assert [e["message"] for e in logreader.read_entries(logs, "crm", pattern="ValueError").entries] == ["oldest"]


def test_a_log_read_stops_at_its_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "crm.log").write_text("".join(entry("2026-07-03T09:00:00+00:00", "INFO", f"line {i}") for i in range(5_000)), encoding="utf-8")
    monkeypatch.setattr(logreader, "MAX_SCAN_BYTES", 2 * logreader.BLOCK)
    scan = logreader.read_entries(logs, "crm", min_level="ERROR")
    assert scan.stopped_early and scan.scanned_bytes == 2 * logreader.BLOCK and scan.entries == []


# --- nothing missing is an error ------------------------------------------------------------------


def test_the_notes_for_missing_things(dev: AgentClient, tmp_path: Path, rata_home: Path) -> None:
    """Every note the page quotes is what the tool says, in the situation the page names."""
    text = flat(page())
    schema = dev.call("database_schema").data
    assert schema["exists"] is False and schema["note"].startswith("No database yet at ")
    query = dev.call("database_query", {"sql": "SELECT 1"}).data
    assert query["rows"] == [] and query["note"].startswith("No database yet at ")
    assert dev.call("app_info").data["database_exists"] is False
    migrations = dev.call("migration_status").data
    assert migrations["migrations"] == [] and "No migrations folder at " in migrations["note"]
    assert dev.call("last_error").data["note"].startswith("No log yet at ")
    logs = dev.call("read_log_entries").data
    assert logs["entries"] == [] and logs["note"].startswith("No log yet at ")
    docs = dev.call("search_docs", {"queries": ["confirmation"]}).data
    assert docs["note"].endswith("The project has no docs/ folder, so only rata's docs were searched.")
    assert "search_docs` searches rata's docs, and says that it did." in text

    rata_home.mkdir(parents=True, exist_ok=True)
    sqlite3.connect(rata_home / "app.db").close()
    (rata_home / "logs").mkdir()
    (rata_home / "logs" / "shop.log").write_text(entry("2026-07-03T09:00:00+00:00", "INFO", "hello"), encoding="utf-8")
    note = dev.call("database_schema").data["note"]
    assert note == "The database has no tables yet: run `rata migrate`."
    assert f'"{note}"' in text
    assert dev.call("last_error").data == {"entry": None, "note": "No errors in the log."}
    assert '`entry: null` and "No errors in the log."' in text


def test_an_app_that_does_not_import_is_reported_by_each_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATA_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "broken.py").write_text("app = (\n", encoding="utf-8")
    with AgentClient(dev_app(Target(str(tmp_path / "broken.py"), tmp_path))) as agent:
        for name in ("app_info", "database_schema", "migration_status", "last_error", "read_log_entries", "list_commands"):
            result = agent.call(name)
            assert result.is_error and "syntax error at " in result.text, name
        assert not agent.call("search_docs", {"queries": ["confirmation"]}).is_error


# --- a real project: reloading, the client configuration, what it writes ------------------------------


def send(lines: list[dict[str, Any]], cwd: Path, env: dict[str, str], *args: str) -> dict[Any, dict[str, Any]]:
    """Pipe requests into `rata mcp dev` (started in `cwd`, as a client would), and return its answers by id."""
    done = subprocess.run(
        [str(VENV_BIN / "rata"), "mcp", "dev", *args],
        input="".join(json.dumps(line) + "\n" for line in lines),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def call(request_id: int, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"_meta": META, "name": name, "arguments": arguments or {}}}


def listing(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def crm_project(tmp_path: Path) -> Path:
    project = tmp_path / "crm"
    shutil.copytree(CRM, project, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").write_text("# Guide\n\n## Archiving customers\n\nArchived customers stay in the database.\n", encoding="utf-8")
    return project


@pytest.mark.subprocess
def test_the_client_configurations_start_the_server_in_the_project(crm_project: Path, tmp_path: Path) -> None:
    config = json.loads((EXAMPLES / ".mcp.json").read_text(encoding="utf-8"))
    assert config == json.loads(new_project_dev_file()[1])  # the page shows what rata new and install --dev write
    codex = tomllib.loads((EXAMPLES / "codex-config.toml").read_text(encoding="utf-8"))
    assert codex == {"mcp_servers": {"rata": {"command": "rata", "args": ["mcp", "dev"]}}}
    assert config["mcpServers"]["rata"]["args"] == ["mcp", "dev"]
    env = env_for(tmp_path / "home", tmp_path / "cache")
    answers = send([call(1, "app_info"), call(2, "search_docs", {"queries": ["archiving"]})], crm_project / "crm", env)
    info = answers[1]["result"]["structuredContent"]
    assert info["project"] == str(crm_project)  # found from a folder below the project, without --app
    from importlib.metadata import version

    assert info["dependencies"] == [{"name": "rata-toolkit", "required": "rata-toolkit", "installed": version("rata-toolkit")}]
    hits = answers[2]["result"]["structuredContent"]["hits"]
    assert hits[0]["source"] == "project" and hits[0]["link"] == "docs/guide.md#archiving-customers"


@pytest.mark.subprocess
def test_the_server_follows_code_changes(crm_project: Path, tmp_path: Path) -> None:
    app_file = crm_project / "crm" / "app.py"
    original = app_file.read_text(encoding="utf-8")
    added = original.replace(
        "\n\napp = (",
        '\n\n@command(can="customers.view", read_only=True)\ndef customers_count(ctx: Ctx) -> int:\n    """How many customers there are."""\n'
        '    return ctx.db.execute("SELECT count(*) FROM customers").fetchone()[0]\n\n\napp = (',
    ).replace(".commands(customers_index,", ".commands(customers_count, customers_index,")
    assert added != original
    env = env_for(tmp_path / "home", tmp_path / "cache")
    with AgentClient.spawn([str(VENV_BIN / "rata"), "mcp", "dev", "--app", str(crm_project)], env=env, stderr=subprocess.DEVNULL) as agent:
        names = [c["name"] for c in agent.call("list_commands").data["commands"]]
        assert "customers_count" not in names
        app_file.write_text(added, encoding="utf-8")
        os.utime(app_file, ns=(os.stat(app_file).st_atime_ns, os.stat(app_file).st_mtime_ns + 1_000_000_000))
        assert "customers_count" in [c["name"] for c in agent.call("list_commands").data["commands"]]
        app_file.write_text(original + "\n)\n", encoding="utf-8")
        os.utime(app_file, ns=(os.stat(app_file).st_atime_ns, os.stat(app_file).st_mtime_ns + 2_000_000_000))
        broken = agent.call("list_commands")
        assert broken.is_error and "syntax error at " in broken.text and "app.py" in broken.text
        app_file.write_text(original, encoding="utf-8")
        os.utime(app_file, ns=(os.stat(app_file).st_atime_ns, os.stat(app_file).st_mtime_ns + 3_000_000_000))
        assert [c["name"] for c in agent.call("list_commands").data["commands"]] == names


@pytest.mark.subprocess
def test_it_writes_nothing_but_the_docs_index(crm_project: Path, tmp_path: Path) -> None:
    home, cache = tmp_path / "home", tmp_path / "cache"
    env = env_for(home, cache)
    dev_env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}  # the server itself keeps bytecode out of the project
    every_call = [
        call(1, "app_info"), call(2, "database_schema"), call(3, "database_query", {"sql": "SELECT * FROM customers"}),
        call(4, "migration_status"), call(5, "last_error"), call(6, "read_log_entries"), call(7, "list_commands"),
        call(8, "search_docs", {"queries": ["confirmation"]}),
    ]
    project_before = listing(crm_project)
    answers = send(every_call, crm_project, dev_env)
    assert all("result" in a and not a["result"].get("isError") for a in answers.values()), answers
    assert not home.exists(), "the app folder was created"
    assert listing(crm_project) == project_before
    (index,) = cache.iterdir()
    assert re.fullmatch(r"docs-[0-9a-f]{16}\.sqlite", index.name)

    subprocess.run([str(VENV_BIN / "rata"), "migrate", "--app", str(crm_project)], env=env, capture_output=True, check=True, timeout=120)
    app_before = listing(home)
    assert "app.db-wal" not in app_before
    answers = send(every_call, crm_project, dev_env)
    assert all(not a["result"].get("isError") for a in answers.values()), answers
    assert listing(home) == app_before  # no -wal or -shm beside the database either
    assert listing(crm_project) == project_before


@pytest.mark.subprocess
def test_while_the_app_runs_its_wal_is_read(crm_project: Path, tmp_path: Path) -> None:
    home, cache = tmp_path / "home", tmp_path / "cache"
    env = env_for(home, cache)
    subprocess.run([str(VENV_BIN / "rata"), "migrate", "--app", str(crm_project)], env=env, capture_output=True, check=True, timeout=120)
    app = sqlite3.connect(home / "app.db")  # the running app: its last write is still in app.db-wal
    try:
        app.execute("PRAGMA wal_autocheckpoint = 0")
        app.execute("INSERT INTO customers (name, email) VALUES ('Ada Lovelace', 'ada@example.com')")
        app.commit()
        assert (home / "app.db-wal").stat().st_size > 0
        answers = send([call(1, "database_query", {"sql": "SELECT name FROM customers"})], crm_project, env)
        assert answers[1]["result"]["structuredContent"]["rows"] == [["Ada Lovelace"]]
    finally:
        app.close()


def test_the_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RATA_CACHE_DIR", str(tmp_path / "c"))
    assert docs_index.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("RATA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert docs_index.cache_dir() == tmp_path / "x" / "rata"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert docs_index.cache_dir() == Path.home() / ".cache" / "rata"
    assert "`$RATA_CACHE_DIR` if set, else `$XDG_CACHE_HOME/rata`, else `~/.cache/rata`" in flat(page())


# --- eras -----------------------------------------------------------------------------------------------


def test_legacy_clients_get_lists_wrapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATA_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "shop.py").write_text('from rata import App\n\napp = App("shop", identifier="com.example.shop")\n', encoding="utf-8")
    with AgentClient(dev_app(Target(str(tmp_path / "shop.py"), tmp_path)), era="legacy") as agent:
        tools = {t["name"]: t for t in agent.list_tools()}
        assert tools["app_windows"]["outputSchema"]["required"] == ["result"]  # a list, wrapped
        assert "result" not in tools["list_commands"]["outputSchema"]["properties"]  # an object, as it is
        assert agent.call("list_commands").data["commands"] == []
        assert "result" not in agent.call("app_info").data


# --- Laravel Boost ---------------------------------------------------------------------------------------


def test_the_boost_table() -> None:
    rows = table_rows(section("## Compared with Laravel Boost"))
    boost = [spans(row[0])[0] for row in rows if spans(row[0])]
    assert len(boost) == len(set(boost))
    assert set(boost) == BOOST_TOOLS | BOOST_REMOVED_IN_2_3
    rata_column = {name for row in rows for name in spans(row[1])}
    assert rata_column <= set(TOOL_NAMES + WINDOW_TOOL_NAMES), rata_column - set(TOOL_NAMES + WINDOW_TOOL_NAMES)
    assert rata_column >= set(TOOL_NAMES), "every read-only dev tool appears in the table"
    for row in rows:
        assert spans(row[1]) or row[1] == "—", row
        if spans(row[0]) and spans(row[0])[0] in BOOST_REMOVED_IN_2_3:
            assert "2.3.0" in row[2], row
    assert "version 2.5.5 (tagged 2026-08-19)" in flat(page())


def test_adding_a_dev_tool_is_one_declaration_and_the_page_names_what_exists() -> None:
    text = flat(section("## Adding a dev tool"))
    assert "one command declaration" in text
    named = re.findall(r"`tools\.(\w+)`", text)
    assert named and all(callable(getattr(tools, name)) for name in named), named
    assert (ROOT / "tests" / "dev_server" / "test_tools.py").is_file() and "tests/dev_server/test_tools.py" in text


# --- budgets ---------------------------------------------------------------------------------------------


def test_the_budget_section_is_the_code_and_its_note_is_what_the_tool_writes() -> None:
    from rata.dev_server import budget

    assert (budget.DEFAULT_TOKENS, budget.MIN_TOKENS, budget.MAX_TOKENS) == (10_000, 1_000, 25_000)
    text = section("## Budgets and the next part")
    note = budget.cut_note("4 commands up to 'customers_index'", "2 more", 10_000, "list_commands", {"after": "customers_index", "budget_tokens": None})
    assert f"```text\n{note}\n```" in text
    flat_text = flat(text)
    assert "**The default budget is 10,000 tokens**" in flat_text and "`rata mcp dev --budget-tokens N`" in flat_text
    assert "from 1,000 to 25,000" in flat_text
    assert "(`next_after` above)" in flat_text
