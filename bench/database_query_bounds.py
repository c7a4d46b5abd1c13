"""`database_query` against hostile queries: time, peak RSS and answer size, through a real `rata mcp dev`.

    .venv/bin/python bench/database_query_bounds.py            # the three queries of issue 12, and four more
    .venv/bin/python bench/database_query_bounds.py --only cte  # one of them

Each query runs in a fresh `python -m rata mcp dev --app <copy of examples/crm>` process, against
a crm database migrated and filled by the app itself (150 customers). For each: the wall time
of the `tools/call` round trip, the server's peak resident memory (VmHWM from
/proc/<pid>/status, read after the answer), the peak of the process the query runs in (from
a separate run of `run_query_isolated`, where that exists), the size of the answer line in bytes, and the
first 300 characters of what the model reads. Nothing is written in the repository.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.dev_server.helpers import copy_crm, dev_command, dev_env, many_customers, seed_crm  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
NEAR_CAP = "printf('%.*c', 999000, 'a')"
ROWS_1000 = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000)"
QUERIES = {
    # few but expensive steps: 40 rows, each a 50 MB random blob
    "cte": ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i<40) SELECT length(randomblob(50000000)) FROM r", 100),
    # 1,000 rows of 100 MB blobs
    "blobs": (f"{ROWS_1000} SELECT zeroblob(100000000) FROM r", 1000),
    # 1,000 columns of 200 characters, 1,000 rows
    "columns": (f"{ROWS_1000} SELECT " + ", ".join(f"hex(zeroblob(100)) AS c{n}" for n in range(1000)) + " FROM r", 1000),
    # the same just under the 1,000,000-byte value limit, and what stays expensive under it
    "cte-under-cap": ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i<40) SELECT length(randomblob(999999)) FROM r", 100),
    "blobs-under-cap": (f"{ROWS_1000} SELECT zeroblob(999999), randomblob(999999), {NEAR_CAP} FROM r", 1000),
    "instr": (f"WITH v(a, b) AS (SELECT {NEAR_CAP}, substr({NEAR_CAP}, 1, 499000) || 'b') SELECT {', '.join(['instr(a, b)'] * 10)} FROM v", 100),
    "many-values": ("SELECT " + ", ".join(f"randomblob(999999) AS c{n}" for n in range(300)), 100),
}


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def query_process_peak(database: Path, sql: str, limit: int) -> float | None:
    """The peak RSS of the process `database_query` runs a query in (None before it had one): run_query_isolated, from a fresh parent."""
    code = (
        "import resource, sys; from pathlib import Path; from rata.dev_server import database\n"
        "if not hasattr(database, 'run_query_isolated'): print('null'); raise SystemExit\n"
        "try: database.run_query_isolated(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))\n"
        "except database.QueryRefused: pass\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(database), sql, str(limit)], capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout.strip() or "null") and round(json.loads(done.stdout), 1)


def measure(name: str, sql: str, limit: int, base: Path) -> dict[str, object]:
    project = copy_crm(base / f"project-{name}")
    home, cache = base / f"home-{name}", base / f"cache-{name}"
    seed_crm(home, many_customers(150))
    process = subprocess.Popen(dev_command(project), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dev_env(home, cache))
    assert process.stdin is not None and process.stdout is not None
    try:
        warm = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": META, "name": "database_query", "arguments": {"sql": "SELECT 1"}}}
        process.stdin.write(json.dumps(warm).encode() + b"\n")
        process.stdin.flush()
        process.stdout.readline()
        before = peak_rss_mb(process.pid)
        arguments = {"sql": sql, "limit": limit}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": META, "name": "database_query", "arguments": arguments}}
        started = time.monotonic()
        process.stdin.write(json.dumps(call).encode() + b"\n")
        process.stdin.flush()
        line = process.stdout.readline()
        elapsed = time.monotonic() - started
        peak = peak_rss_mb(process.pid)
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    answer = json.loads(line)["result"]
    return {
        "query": name,
        "seconds": round(elapsed, 2),
        "server_peak_rss_mb_before": round(before, 1),
        "server_peak_rss_mb": round(peak, 1),
        "query_process_peak_rss_mb": query_process_peak(home / "app.db", sql, limit),
        "answer_bytes": len(line),
        "is_error": bool(answer.get("isError")),
        "says": answer["content"][0]["text"][:300],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(QUERIES), action="append")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rata-query-bounds-") as tmp:
        for name in args.only or list(QUERIES):
            sql, limit = QUERIES[name]
            print(json.dumps(measure(name, sql, limit, Path(tmp)), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
