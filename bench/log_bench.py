"""How long `read_log_entries` takes on a log with one huge line, and how much memory it holds.

    .venv/bin/python bench/log_bench.py                       # this checkout's reader
    .venv/bin/python bench/log_bench.py --reader OLD.py       # another logreader.py (git show REV:rata/dev_server/logreader.py > OLD.py)
    .venv/bin/python bench/log_bench.py --line-mb 200 --normal-mb 64

Writes, in a scratch folder, a log of ordinary entries (`--normal-mb` of them) with one line of
`--line-mb` MB in the middle, then times `read_entries(limit=500, min_level="ERROR")` on it (no entry matches: the read goes to its 64 MiB bound) (the best of
`--runs`), and on the same log without the huge line, and prints both with the peak memory
the read added (tracemalloc). The scratch folder is removed at the end.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_reader(path: str | None):
    if path is None:
        from rata.dev_server import logreader

        return logreader
    spec = importlib.util.spec_from_file_location("bench_logreader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_log(path: Path, normal_mb: int, line_mb: int) -> None:
    entry = json.dumps({"ts": "2026-07-28T09:00:00.000+00:00", "level": "INFO", "logger": "crm", "message": "customer listed", "customer_id": 7}) + "\n"
    normal = entry * (normal_mb * 1024 * 1024 // len(entry) // 2)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(normal)
        if line_mb:
            handle.write('{"ts": "2026-07-28T09:00:00.000+00:00", "level": "INFO", "logger": "crm", "message": "')
            block = "x" * (1024 * 1024)
            for _ in range(line_mb):
                handle.write(block)
            handle.write('"}\n')
        handle.write(normal)


def timed(reader, logs: Path, runs: int) -> tuple[float, int, int]:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        scan = reader.read_entries(logs, "crm", limit=500, min_level="ERROR")
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    reader.read_entries(logs, "crm", limit=500, min_level="ERROR")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, scan.scanned_bytes, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", help="a logreader.py to measure instead of this checkout's")
    parser.add_argument("--line-mb", type=int, default=200)
    parser.add_argument("--normal-mb", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    reader = load_reader(args.reader)
    with tempfile.TemporaryDirectory(prefix="rata-log-bench-") as scratch:
        logs = Path(scratch)
        for label, line_mb in (("ordinary lines only", 0), (f"with one {args.line_mb} MB line", args.line_mb)):
            write_log(logs / "crm.log", args.normal_mb, line_mb)
            seconds, scanned, peak = timed(reader, logs, args.runs)
            print(f"{label:>28}: {seconds:7.2f} s, scanned {scanned / 2**20:6.1f} MiB, peak memory {peak / 2**20:7.1f} MiB")


if __name__ == "__main__":
    main()
