"""What the shim costs: `crm --mcp` piping into the running app, against `crm --mcp` serving headless.

    .venv/bin/python bench/shim_bench.py               # about a minute on 2 idle cores
    .venv/bin/python bench/shim_bench.py --calls 500   # quicker

1. cold start: spawn `crm --mcp` to its first tools/list answer, once with no app running
   (headless: the process loads the app and serves it) and once with the app running in the
   background (the shim connects, passes the challenge and pipes), alternating.
2. calls: sequential `tools/call customers_show` round trips on one connection each, both
   connections open at once and driven in alternating blocks; the extra latency is the
   shim's p50 minus headless's p50.

Both sides serve the same app, bench/rata_crm.py (the crm app with its rate limit off), each
on its own app folder: the headless one has no running app, the other has
``bench/rata_crm.py --headless`` running. Bytecode is primed in a private cache first, as in
bench/run.py, with the same client (bench/stdio_client.py) and scratch folder (bench/common.py).
Prints a markdown table; writes bench/results/shim-latest.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import BIN, RESULTS, ROOT, BenchError, Scratch, git_state, machine, run_child, summary
from stdio_client import StdioClient

RATA_CRM = str(ROOT / "bench" / "rata_crm.py")


def headless_env(scratch: Scratch, which: str) -> dict[str, str]:
    return {**scratch.env, "RATA_HOME": str(scratch.root / f"home-{which}")}


def start_in_background(argv: list[str], env: dict[str, str], stderr: Path, ready: bytes, timeout_s: float = 60) -> subprocess.Popen[bytes]:
    """Start `argv` with its stderr in a file; return once the file says `ready` (a BenchError if it exits first)."""
    with open(stderr, "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=ROOT)
    deadline = time.monotonic() + timeout_s
    while ready not in stderr.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise BenchError(f"{' '.join(argv[:3])} did not start: {stderr.read_text()[-1500:]}")
        time.sleep(0.02)
    return proc


def cold(env: dict[str, str], name: str, scratch: Scratch) -> float:
    client = StdioClient(name, [str(BIN / "crm"), "--mcp"], env, ROOT, scratch.root / f"{name}.stderr")
    listed = client.request("tools/list", {})
    wall = time.perf_counter() - client.started
    client.kill()
    if len(listed.get("tools", [])) != 4:
        raise BenchError(f"{name} listed {listed}")
    return wall


class Calls:
    def __init__(self, env: dict[str, str], name: str, scratch: Scratch, calls: int) -> None:
        self.name = name
        self.client = StdioClient(name, [sys.executable, RATA_CRM, "--mcp"], env, ROOT, scratch.root / f"{name}-calls.stderr")
        self.client.request("tools/list", {})
        ada = {"name": "Ada", "email": f"ada-{name}-{time.time_ns()}@example.com"}
        stored = self.client.request("tools/call", {"name": "customers_store", "arguments": ada})
        self.id = stored["structuredContent"]["id"]
        self.lines = [self.client.encode("tools/call", {"name": "customers_show", "arguments": {"id": self.id}}) for _ in range(calls)]
        self.next = 0
        self.latencies: list[float] = []

    def run(self, count: int, timed: bool = True) -> None:
        for request_id, data in self.lines[self.next : self.next + count]:
            sent = time.perf_counter()
            self.client.write(data)
            result = self.client.answer(request_id)
            if timed:
                self.latencies.append(time.perf_counter() - sent)
            if result.get("isError") or result["structuredContent"]["id"] != self.id:
                raise BenchError(f"{self.name} answered wrongly: {json.dumps(result)[:300]}")
        self.next += count

    def report(self) -> dict[str, Any]:
        self.client.kill()
        ordered = sorted(self.latencies)
        n = len(ordered)
        return {
            "calls": n,
            "calls_per_s": n / sum(ordered),
            "p50_s": statistics.median(ordered),
            "p99_s": ordered[max(0, -(-99 * n // 100) - 1)],
            "mean_s": statistics.fmean(ordered),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="cold starts of each kind (default 15, after 2 warm-ups)")
    parser.add_argument("--calls", type=int, default=2000, help="timed round trips on each connection (default 2000, after 200 warm-up)")
    parser.add_argument("--blocks", type=int, default=10, help="alternating turns the calls are split into (default 10)")
    options = parser.parse_args()
    scratch = Scratch()
    running = None
    try:
        envs = {which: headless_env(scratch, which) for which in ("headless", "shim")}
        for env in envs.values():
            run_child([str(BIN / "crm"), "--migrate"], env, ROOT, rss=False)
        run_child([sys.executable, "-m", "compileall", "-q", str(ROOT / "rata"), str(ROOT / "examples" / "crm")], scratch.env, ROOT, rss=False)
        cold(envs["headless"], "prime", scratch)
        running = start_in_background([sys.executable, RATA_CRM, "--headless"], envs["shim"], scratch.root / "running.stderr", b"is running headless")
        starts: dict[str, list[float]] = {"headless": [], "shim": []}
        for index in range(2 + options.runs):
            for name in (["headless", "shim"] if index % 2 else ["shim", "headless"]):
                wall = cold(envs[name], name, scratch)
                if index >= 2:
                    starts[name].append(wall)
        for name in ("headless", "shim"):
            said = (scratch.root / f"{name}.stderr").read_text()
            expected = "connected to the running app" if name == "shim" else "no running app"
            if expected not in said:
                raise BenchError(f"the {name} cold start did not take the {name} path: {said[-500:]}")
        sessions = {name: Calls(envs[name], name, scratch, 200 + options.calls) for name in ("headless", "shim")}
        for session in sessions.values():
            session.run(200, timed=False)
        per_block = options.calls // options.blocks
        for index in range(options.blocks):
            for name in (["headless", "shim"] if index % 2 else ["shim", "headless"]):
                sessions[name].run(per_block)
        calls = {name: session.report() for name, session in sessions.items()}
    finally:
        if running is not None:
            running.terminate()
            running.wait(10)
        scratch.close()
    results = {
        "git": git_state(),
        "machine": machine(),
        "cold_start_s": {name: summary(values) | {"runs": values} for name, values in starts.items()},
        "calls": calls,
        "extra_p50_s": calls["shim"]["p50_s"] - calls["headless"]["p50_s"],
        "extra_cold_median_s": statistics.median(starts["shim"]) - statistics.median(starts["headless"]),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "shim-latest.json").write_text(json.dumps(results, indent=2) + "\n")
    us = lambda s: f"{s * 1e6:,.0f} µs"  # noqa: E731
    ms = lambda s: f"{s * 1e3:.0f} ms"  # noqa: E731
    print("| crm --mcp | cold start median (min) | calls/s | p50 | p99 |")
    print("|---|---|---|---|---|")
    for name, label in (("headless", "headless (no app running)"), ("shim", "through the shim (app running)")):
        c, s = calls[name], results["cold_start_s"][name]
        print(f"| {label} | {ms(s['median'])} ({ms(s['min'])}) | {c['calls_per_s']:,.0f} | {us(c['p50_s'])} | {us(c['p99_s'])} |")
    print(f"\nThe shim adds {us(results['extra_p50_s'])} to a tools/call at p50 and {ms(results['extra_cold_median_s'])} to the cold start (medians).")


if __name__ == "__main__":
    main()  # a BenchError exits with its message
