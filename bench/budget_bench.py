"""What each `rata mcp dev` tool answers at its worst: tokens and bytes of its text and of its JSON, and the time it takes.

    .venv/bin/python bench/budget_bench.py                                  # this checkout
    .venv/bin/python bench/budget_bench.py --rata /work/wt/before --no-save  # another checkout of rata ("before")
    .venv/bin/python bench/budget_bench.py --rounds 3                        # fewer rounds

One world is built in a temporary folder, each part at a tool's worst case:

- a log of 600 long ERROR entries (about 10 MB: a 1,440-character message and a traceback of
  140 frames, about 15,000 characters, each) written by rata's own log handler, then a newest
  error with a traceback of 500,000 characters (written as one line in the handler's format, as
  a process that does not cut tracebacks writes it): `read_log_entries {"limit": 500}` and
  `last_error`;
- the app's database with 400 tables of 60 columns each, and a table of 1,000 rows of three
  200-character columns: `database_schema {}` and `database_query` of those rows with
  `limit: 1000`;
- an app of 2,000 commands, each with a docstring of about 300 characters: `list_commands`;
- 10,000 Markdown pages in the project's docs/ that all match the query: `search_docs` with
  `budget_tokens: 20000`.

ONE real `rata mcp dev` runs in the project (`python -m rata mcp dev`, started by
bench/stdio_client.py); each tool is called once to warm up (the docs index is built then),
then `--rounds` times, timed from the request written to its answer read. Reported per tool:
the text block's tokens and bytes, the structuredContent's tokens and bytes (compact JSON, as
a client hands it to its model), the whole JSON-RPC message's bytes, and the median time. The
tokens are `rata.tokens.estimate` (one token per three UTF-8 bytes) of this checkout, whichever
rata is measured.

`--rata PATH` runs the server from another checkout (PYTHONPATH=PATH, this venv's Python):
there, an argument the tool does not have is left out (measuring this checkout, it fails the
run). An argument above the tool's maximum is lowered to it. The table says what was changed. Nothing is written
in the repository but bench/results/budget-latest.json (git-ignored; not with --no-save).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, ROOT, BenchError, Scratch, git_state, machine  # noqa: E402
from stdio_client import StdioClient  # noqa: E402

sys.path.insert(0, str(ROOT))
from rata.logs import JsonLinesFormatter, RotatingJsonLines  # noqa: E402 - the bench's own rata writes the log, whichever is measured
from rata.tokens import estimate  # noqa: E402

APP_NAME = "bench"
PACKAGE = "budgetbench_app"
COMMANDS = 2_000
DOC_PAGES = 10_000
TABLES, COLUMNS = 400, 60
ROWS, CELL = 1_000, 200
LOG_ENTRIES = 600
CASES: list[tuple[str, dict[str, Any]]] = [
    ("read_log_entries", {"limit": 500}),
    ("last_error", {}),
    ("database_query", {"sql": "SELECT a, b, c FROM wide_rows", "limit": 1000}),
    ("database_schema", {}),
    ("list_commands", {}),
    ("search_docs", {"queries": ["customers orders"], "budget_tokens": 20_000}),
]
CLIENT_LIMIT = 25_000
"""Claude Code refuses a tool result above this many tokens."""


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- the world ----------------------------------------------------------------------------------


def write_project(root: Path) -> None:
    """A project whose app has `COMMANDS` commands, and `DOC_PAGES` pages of docs that all mention customers and orders."""
    (root / PACKAGE).mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "{PACKAGE}"\nversion = "1.0.0"\n\n[tool.rata]\napp = "{PACKAGE}.app:app"\n', encoding="utf-8"
    )
    (root / PACKAGE / "__init__.py").write_text("", encoding="utf-8")
    words = "It reads the records of the region, filters them by the given fields and returns them sorted, newest first, with their totals."
    functions = [
        f'@command(can="items.view", read_only=True)\n'
        f"def item_{n:04}(ctx: Ctx, search: str = '', region: int = {n}, limit: int = 50) -> list[str]:\n"
        f'    """Item report number {n}: {words} {words}"""\n'
        f"    return []\n"
        for n in range(COMMANDS)
    ]
    names = ", ".join(f"item_{n:04}" for n in range(COMMANDS))
    source = "from rata import App, Ctx, command\n\n\n" + "\n\n".join(functions)
    source += f'\n\napp = App("{APP_NAME}", identifier="bench.budget", version="1.0.0").commands({names}).allow_abilities(["items.*"])\n'
    (root / PACKAGE / "app.py").write_text(source, encoding="utf-8")
    docs = root / "docs"
    docs.mkdir()
    for n in range(DOC_PAGES):
        (docs / f"page-{n:05}.md").write_text(
            f"# Customers and orders of region {n}\n\nThe customers of region {n} place orders; each of the orders is stored with its customer, "
            f"its lines and its total. Region {n} sends its orders every night.\n\n## Orders of region {n}\n\n"
            f"Orders of region {n} are kept for customers who ask for them.\n",
            encoding="utf-8",
        )


def write_database(path: Path) -> None:
    """400 tables of 60 columns (an index each), and `wide_rows`: 1,000 rows of three 200-character columns."""
    conn = sqlite3.connect(path)
    with conn:
        for t in range(TABLES):
            columns = ", ".join(f"column_{c:02} {('TEXT', 'INTEGER', 'REAL')[c % 3]}{' NOT NULL' * (c % 5 == 0)}" for c in range(COLUMNS))
            conn.execute(f"CREATE TABLE table_{t:03} (id INTEGER PRIMARY KEY, {columns})")
            conn.execute(f"CREATE INDEX table_{t:03}_by_01 ON table_{t:03} (column_01)")
        conn.execute("CREATE TABLE wide_rows (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT)")
        cell = lambda n, letter: (f"{letter}{n:04} " * (CELL // 6 + 1))[:CELL]  # noqa: E731
        conn.executemany("INSERT INTO wide_rows (a, b, c) VALUES (?, ?, ?)", [(cell(n, "a"), cell(n, "b"), cell(n, "c")) for n in range(ROWS)])
    conn.close()


def _deep(depth: int, message: str) -> None:
    """A traceback of `depth` frames, none collapsed (Python folds repeats of one frame, not of two taking turns)."""
    if depth:
        _deeper(depth - 1, message)
    raise RuntimeError(message)


def _deeper(depth: int, message: str) -> None:
    if depth:
        _deep(depth - 1, message)
    raise RuntimeError(message)


def write_logs(home: Path) -> None:
    """`LOG_ENTRIES` ERROR entries with long messages and tracebacks, through rata's own handler; the newest with a huge one."""
    handler = RotatingJsonLines(home / "logs" / f"{APP_NAME}.log", max_bytes=64 << 20)  # one file: the 600 entries all kept
    handler.setFormatter(JsonLinesFormatter())
    log = logging.Logger(APP_NAME, logging.DEBUG)
    log.addHandler(handler)
    try:
        for n in range(LOG_ENTRIES):
            try:
                _deep(140, f"import of batch {n} failed")
            except RuntimeError:
                log.exception("batch %d failed: %s", n, "the row could not be stored because " * 40, extra={"batch": n, "rows": list(range(20))})
    finally:
        handler.close()
    # The newest: a traceback of 500,000 characters, as a process that does not cut it writes it (rata's handler
    # keeps 16,000); one line in the handler's format, below the reader's 1 MiB a line.
    huge = "Traceback (most recent call last):\n" + '  File "app.py", line 1, in import_all\n    import_all()\n' * 8_000
    huge += "RuntimeError: the last import failed: " + "x" * (500_000 - len(huge))
    line = {"ts": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"), "level": "ERROR", "logger": APP_NAME, "message": "the last import failed", "exception": huge}
    with open(home / "logs" / f"{APP_NAME}.log", "a", encoding="utf-8") as log_file:
        log_file.write(json.dumps(line, ensure_ascii=False) + "\n")


def build_world(scratch: Scratch) -> tuple[Path, Path]:
    """The project (cwd of the server) and the app's folder (RATA_HOME)."""
    project, home = scratch.root / "project", scratch.root / "home"
    (home / "logs").mkdir(parents=True)
    say(f"  project: {COMMANDS:,} commands, {DOC_PAGES:,} docs pages ...")
    write_project(project)
    say(f"  database: {TABLES} tables x {COLUMNS} columns, {ROWS:,} rows x 3 x {CELL} characters ...")
    write_database(home / "app.db")
    say(f"  logs: {LOG_ENTRIES} long error entries and a huge traceback ...")
    write_logs(home)
    size = sum(p.stat().st_size for p in (home / "logs").iterdir())
    say(f"  logs: {size / 1e6:.1f} MB")
    return project, home


# --- the calls ----------------------------------------------------------------------------------


def fitted(tool: dict[str, Any], arguments: dict[str, Any], lenient: bool) -> tuple[dict[str, Any], list[str]]:
    """`arguments` as `tool` takes them: (arguments, what was changed). One above its maximum is lowered to it;
    one the tool does not have fails the run unless `lenient` (measuring another checkout), where it is left out."""
    properties = tool.get("inputSchema", {}).get("properties", {})
    out, changed = {}, []
    for name, value in arguments.items():
        schema = properties.get(name)
        if schema is None:
            if not lenient:
                raise BenchError(f"{tool['name']} has no argument {name!r}")
            changed.append(f"no `{name}`")
            continue
        options = schema.get("anyOf", [schema])
        maximum = min((option["maximum"] for option in options if "maximum" in option), default=None)
        if isinstance(value, int) and maximum is not None and value > maximum:
            changed.append(f"`{name}` {maximum} (its maximum)")
            value = maximum
        out[name] = value
    return out, changed


def measure(client: StdioClient, name: str, arguments: dict[str, Any], rounds: int) -> dict[str, Any]:
    """One warm-up call, then `rounds` timed ones; the sizes of the last answer."""
    _, data = client.encode("tools/call", {"name": name, "arguments": arguments})
    client.round_trips([data], None, timeout_s=600)  # warm-up: imports, the docs index
    latencies: list[float] = []
    requests = [client.encode("tools/call", {"name": name, "arguments": arguments})[1] for _ in range(rounds)]
    answers, _ = client.round_trips(requests, latencies, timeout_s=600)
    line = answers[-1]
    message = client.message(line)
    if "error" in message:
        raise BenchError(f"{name} answered with a JSON-RPC error: {json.dumps(message['error'])[:500]}")
    result = message["result"]
    text = "\n".join(part.get("text", "") for part in result.get("content", []) if part.get("type") == "text")
    structured = result.get("structuredContent")
    compact = json.dumps(structured, ensure_ascii=False, separators=(",", ":")) if structured is not None else ""
    answer = structured.get("result", structured) if isinstance(structured, dict) else structured
    note = answer.get("note", "") if isinstance(answer, dict) else ""
    return {
        "arguments": arguments,
        "is_error": bool(result.get("isError")),
        "text_tokens": estimate(text),
        "text_bytes": len(text.encode("utf-8")),
        "json_tokens": estimate(compact),
        "json_bytes": len(compact.encode("utf-8")),
        "message_bytes": len(line),
        "median_s": statistics.median(latencies),
        "runs_s": latencies,
        "cut": any(words in note or words in text for words in ("did not fit", "Cut to fit")),
        "error_text": text[:300] if result.get("isError") else "",
    }


def run(rata: Path | None, rounds: int) -> dict[str, Any]:
    scratch = Scratch()
    try:
        say("building the world ...")
        project, home = build_world(scratch)
        env = dict(scratch.env, RATA_HOME=str(home), RATA_CACHE_DIR=str(scratch.root / "cache"))
        if rata is not None:
            env["PYTHONPATH"] = str(rata)
        where = subprocess.run([sys.executable, "-c", "import rata; print(rata.__file__)"], env=env, cwd=project, capture_output=True, text=True)
        measured = Path(where.stdout.strip()).resolve().parent.parent
        if measured != (rata or ROOT).resolve():
            raise BenchError(f"the server would import rata from {measured}, not {rata or ROOT}")
        argv = [sys.executable, "-m", "rata", "mcp", "dev"]
        client = StdioClient("rata mcp dev", argv, env, project, scratch.root / "server.stderr")
        try:
            tools = {tool["name"]: tool for tool in client.request("tools/list", {})["tools"]}
            out: dict[str, Any] = {}
            for name, arguments in CASES:
                if name not in tools:
                    raise BenchError(f"the server has no tool {name}")
                given, changed = fitted(tools[name], arguments, lenient=rata is not None)
                say(f"  {name} {json.dumps(given)} ...")
                out[name] = measure(client, name, given, rounds) | {"changed": changed}
                if out[name]["is_error"]:
                    raise BenchError(f"{name} failed: {out[name]['error_text']}")
        finally:
            client.kill()
        return {"rata": str((rata or ROOT).resolve()), "tools": out}
    finally:
        scratch.close()


# --- the report ---------------------------------------------------------------------------------


def table(results: dict[str, Any]) -> str:
    rows = [
        "| Tool, at its worst | Text: tokens | Text: bytes | JSON: tokens | JSON: bytes | Message bytes | Median time | Cut, with a note |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, arguments in CASES:
        found = results["tools"][name]
        shown = json.dumps(found["arguments"], separators=(", ", ": "))
        shown = shown if len(shown) < 60 else shown[:56] + "...}"
        over = max(found["text_tokens"], found["json_tokens"]) > CLIENT_LIMIT
        changed = f" ({'; '.join(found['changed'])})" if found["changed"] else ""
        rows.append(
            f"| `{name} {shown}`{changed} | {found['text_tokens']:,} | {found['text_bytes']:,} | {found['json_tokens']:,}{' (over 25,000)' * over} "
            f"| {found['json_bytes']:,} | {found['message_bytes']:,} | {found['median_s'] * 1000:.0f} ms | {'yes' if found['cut'] else 'no'} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rata", type=Path, help="a checkout of rata to measure instead of this one (its folder, holding rata/)")
    parser.add_argument("--rounds", type=int, default=5, help="timed calls of each tool, after one warm-up (default 5)")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/budget-latest.json")
    args = parser.parse_args()
    if args.rata is not None and not (args.rata / "rata" / "__init__.py").is_file():
        raise BenchError(f"{args.rata} is not a checkout of rata (no rata/__init__.py)")
    if args.rounds < 1:
        raise BenchError("--rounds must be at least 1")
    results = run(args.rata, args.rounds)
    results |= {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "machine": machine(), "git": git_state(), "rounds": args.rounds}
    print(table(results))
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "budget-latest.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
        say(f"wrote {RESULTS / 'budget-latest.json'}")


if __name__ == "__main__":
    main()
