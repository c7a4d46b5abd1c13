"""The SQL floor of benchmark 5: a bare stdlib loop that answers `customers_index` with the crm app's own SQL.

    RATA_HOME=/tmp/crm-bench .venv/bin/python bench/sql_floor.py

What a `tools/call` of crm's `customers_index` costs with nothing of an MCP framework around
it: read a line, decode it, run the same query on the same SQLite file (`RATA_HOME/app.db`,
migrated by ``crm --migrate``), turn the rows into dicts, write the answer rata writes (the rows
as `structuredContent` and as JSON text). No validation, no grants, no log line, no live
tracking, no threads. Any other method gets an empty result. rata's throughput ratio is its
time per call over this one's.
"""

import json
import os
import sqlite3
import sys

SQL = "SELECT * FROM customers WHERE name LIKE ? OR email LIKE ? ORDER BY id DESC LIMIT ?"  # crm.app.customers_index


def main() -> None:
    conn = sqlite3.connect(os.path.join(os.environ["RATA_HOME"], "app.db"), isolation_level=None)
    conn.row_factory = sqlite3.Row
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        params = message.get("params") or {}
        result: dict = {}
        if message.get("method") == "tools/call" and params.get("name") == "customers_index":
            arguments = params.get("arguments") or {}
            pattern = f"%{arguments.get('search', '')}%"
            rows = [dict(row) for row in conn.execute(SQL, (pattern, pattern, arguments.get("limit", 50))).fetchall()]
            result = {"content": [{"type": "text", "text": json.dumps(rows)}], "structuredContent": rows, "resultType": "complete"}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}, separators=(",", ":")).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
