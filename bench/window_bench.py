"""The window tools' speed: `window_snapshot` of an 18,000-element page, and a `window_act` round trip.

    .venv/bin/python bench/window_bench.py            # about 30 s; needs Chromium

It runs `rata dev --headless` on bench/window_app (a table of 2,000 rows, 9 elements each,
and a "Ping" button that calls a command), and `rata mcp dev` for the same app, and times
through the MCP server on stdio, end to end as an agent sees it:

1. ``window_snapshot``: the page walked, cut at a line to fit the default token budget, 10,000
   (median of --runs); its answer's size in bytes and estimated tokens is recorded too.
2. ``window_act`` click on "Ping": the click, the command it calls, the wait until the page
   has settled (nothing in flight and 350 ms without a change), and the new snapshot.

The snapshot is also timed on the dev endpoint directly (no MCP server between), to show
what the page walk itself costs. Prints a markdown table; writes bench/results/windows-latest.json.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from common import BIN, RESULTS, ROOT, BenchError, Scratch, git_state, machine
from rata import tokens
from rata.dev_server import budget
from rata.dev_server.snapshot_answer import lines_to_ask
from shim_bench import start_in_background
from stdio_client import StdioClient

APP = str(ROOT / "bench" / "window_app" / "app.py")
SNAPSHOT_TARGET_S = 0.3


def call(client: StdioClient, name: str, arguments: dict[str, object]) -> tuple[float, str]:
    started = time.perf_counter()
    result = client.request("tools/call", {"name": name, "arguments": arguments})
    elapsed = time.perf_counter() - started
    text = "\n".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")
    if result.get("isError"):
        raise BenchError(f"{name} failed: {text[:500]}")
    return elapsed, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed calls of each tool (default 15, after 2 warm-ups)")
    options = parser.parse_args()
    scratch = Scratch()
    dev = None
    client = None
    try:
        dev_argv = [str(BIN / "rata"), "dev", "--headless", "--app", APP]
        dev = start_in_background(dev_argv, scratch.env, scratch.root / "dev.stderr", b"is running in dev mode")
        client = StdioClient("rata-mcp-dev", [str(BIN / "rata"), "mcp", "dev", "--app", APP], scratch.env, ROOT, scratch.root / "mcp-dev.stderr")
        client.request("tools/list", {})
        snapshots: list[float] = []
        for index in range(2 + options.runs):
            elapsed, text = call(client, "window_snapshot", {})
            if index >= 2:
                snapshots.append(elapsed)
        lines = text.split("\n\n", 1)[1].splitlines()
        more = re.search(r'about (\d[\d,]*) more lines did not fit\. Get them with window_snapshot \{"window": "main", "from_line": \d+\}', text)
        if more is None or len([line for line in lines if line.startswith(("-", " "))]) < 100 or tokens.estimate(text) > budget.DEFAULT_TOKENS:
            raise BenchError(f"the snapshot was not cut to the 10,000-token budget as expected:\n{text[:300]}\n...\n{text[-300:]}")
        answer_size = {"bytes": len(text.encode("utf-8")), "tokens": tokens.estimate(text)}
        acts: list[float] = []
        for index in range(2 + options.runs):
            ping = re.search(r'button "Ping" \[ref=(e\d+)\]', text)
            if ping is None:
                raise BenchError("no Ping button in the snapshot")
            elapsed, text = call(client, "window_act", {"action": "click", "ref": ping.group(1)})
            ran = re.search(r"Ran: (.*?); the page (.*?)\.\n", text)
            if ran is None or "bench_ping" not in ran.group(1) or "did not settle" in ran.group(2):
                raise BenchError(f"the click did not run bench_ping and settle: {text[:400]}")
            if f'status "answer {index + 1}"' not in text and f"answer {index + 1}" not in text:
                raise BenchError(f"the page did not show the command's answer {index + 1} after the click: {text[:600]}")
            if index >= 2:
                acts.append(elapsed)
        direct = _direct_snapshots(scratch, options.runs)
    finally:
        if client is not None:
            client.kill()
        if dev is not None:
            dev.terminate()
            dev.wait(20)
        scratch.close()
    results = {
        "git": git_state(),
        "machine": machine(),
        "page": "bench/window_app: 2,000 rows x 9 elements = 18,000 elements",
        "window_snapshot_answer": answer_size,
        "window_snapshot_s": {"median": statistics.median(snapshots), "min": min(snapshots), "max": max(snapshots), "runs": snapshots},
        "bridge_snapshot_s": {"median": statistics.median(direct), "min": min(direct), "max": max(direct)},
        "window_act_s": {"median": statistics.median(acts), "min": min(acts), "max": max(acts), "runs": acts},
        "snapshot_target_s": SNAPSHOT_TARGET_S,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "windows-latest.json").write_text(json.dumps(results, indent=2) + "\n")
    ms = lambda s: f"{s * 1e3:.0f} ms"  # noqa: E731
    print("| measure (18,000-element page) | median | min | max |")
    print("|---|---|---|---|")
    rows = (
        ("window_snapshot_s", "`window_snapshot` through `rata mcp dev`"),
        ("bridge_snapshot_s", "snapshot on the dev endpoint alone"),
        ("window_act_s", "`window_act` click (command, settle, new snapshot)"),
    )
    for key, label in rows:
        row = results[key]
        print(f"| {label} | {ms(row['median'])} | {ms(row['min'])} | {ms(row['max'])} |")
    print(f"\nThe window_snapshot answer: {answer_size['bytes']:,} bytes, about {answer_size['tokens']:,} tokens.")
    verdict = "met" if results["window_snapshot_s"]["median"] < SNAPSHOT_TARGET_S else "NOT met"
    print(f"\nTarget: window_snapshot under {ms(SNAPSHOT_TARGET_S)} end to end: {verdict}.")


def _direct_snapshots(scratch: Scratch, runs: int) -> list[float]:
    from rata.endpoint import DEV, connect
    from rata.folder import AppFolder

    connection = connect(AppFolder(Path(scratch.env["RATA_HOME"])), DEV)
    if connection is None:
        raise BenchError("the dev endpoint is not there")
    times = []
    try:
        for index in range(2 + runs):
            started = time.perf_counter()
            connection.send(json.dumps({"id": index, "method": "snapshot", "params": {"window": "main", "max_lines": lines_to_ask(budget.DEFAULT_TOKENS)}}).encode() + b"\n")
            answer = json.loads(connection.rfile.readline())
            if "result" not in answer:
                raise BenchError(f"the bridge failed: {answer}")
            if index >= 2:
                times.append(time.perf_counter() - started)
    finally:
        connection.close()
    return times


if __name__ == "__main__":
    main()
