"""What talking back costs: one question's round trip, and a call that makes 100 progress reports.

    .venv/bin/python bench/talk_bench.py                 # 300 calls of each kind, the median and p90 of each
    .venv/bin/python bench/talk_bench.py --calls 1000

Serves the small app below (`python bench/talk_bench.py --serve`, the same server code as
`crm --mcp`, no rate limit) in a child process and times, on one stdio connection per era,
from the request written to the final answer read:

- a plain call (`plain`), the floor the others compare with;
- a call whose command asks one question (`ask`): in 2026-07-28 the call, its
  ``input_required`` answer, and the retry with the answer (the command runs twice); in
  2025-11-25 the call, the server's ``elicitation/create``, the answer and the result;
- a call whose command calls ``ctx.progress`` 100 times in a tight loop, with a progress
  token (`progress`; the reports closer than 50 ms are merged, so two or three are sent) and
  without one (`progress, no token`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
ACCEPT = {"action": "accept", "content": {"ok": True}}


from rata import App, Ctx, Mcp, command  # noqa: E402 - after the path is set


@dataclass
class Go:
    ok: bool


@command(can="bench.run")
def plain(ctx: Ctx) -> int:
    """Answer at once."""
    return 1


@command(can="bench.run")
def ask(ctx: Ctx) -> bool:
    """Ask one question."""
    return ctx.ask(Go, "Go?").require().ok


@command(can="bench.run")
def progress(ctx: Ctx) -> int:
    """Report progress 100 times."""
    for done in range(1, 101):
        ctx.progress(done, 100)
    return 100


def make_app() -> App:
    return App("talkbench", identifier="com.example.talkbench").commands(plain, ask, progress).mcp(Mcp().allow_abilities(["bench.*"]).rate_limit(None))


class Client:
    """One stdio connection, in one era, to the app `script` serves (``script --serve``); `accept` answers its questions."""

    def __init__(self, home: str, era: str, script: str = __file__, accept: dict[str, Any] = ACCEPT) -> None:
        env = {**os.environ, "RATA_HOME": home}
        self.proc = subprocess.Popen([sys.executable, script, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT)
        self.ids = 0
        self.sent = 0  # notifications heard in the last call
        self.accept = accept
        if era == "legacy":
            init = {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "bench", "version": "1"}}
            self.request("initialize", init)
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request; answer the server's questions on the way; return the final answer's result."""
        assert self.proc.stdout is not None
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        self.sent = 0
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("method") == "elicitation/create":
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": self.accept})
            elif "method" in message:
                self.sent += 1
            elif message.get("id") == self.ids:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def call(self, era: str, name: str, token: bool = False) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": {}}
        if era == "modern":
            params["_meta"] = dict(META)
        if token:
            params["_meta"] = {**params.get("_meta", {}), "progressToken": "t"}
        result = self.request("tools/call", params)
        if result.get("resultType") == "input_required":
            keys = list(result["inputRequests"])
            result = self.request("tools/call", {**params, "inputResponses": dict.fromkeys(keys, ACCEPT), "requestState": result["requestState"]})
        if result.get("isError"):
            raise RuntimeError(result)
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def timed(run: Callable[[], Any], calls: int) -> list[float]:
    """Seconds each of `calls` runs took, after 20 to warm up."""
    for _ in range(20):  # warm-up
        run()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return times


def measure(client: Client, era: str, name: str, calls: int, token: bool = False) -> tuple[list[float], int]:
    return timed(lambda: client.call(era, name, token), calls), client.sent


def calls_or_serve(description: str, make: Callable[[], App]) -> int:
    """The ``--calls`` asked for; with ``--serve``, serve `make()` on stdio instead and exit."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        from rata.cli.appmain import serve_mcp

        sys.exit(serve_mcp(make()))
    return args.calls


def main() -> None:
    calls = calls_or_serve(__doc__.splitlines()[0], make_app)
    rows = []
    with tempfile.TemporaryDirectory() as home:
        for era in ("modern", "legacy"):
            client = Client(home, era)
            kinds = (("plain", "plain", False), ("ask", "ask", False), ("progress", "progress", True), ("progress, no token", "progress", False))
            for label, name, token in kinds:
                times, sent = measure(client, era, name, calls, token)
                times.sort()
                rows.append((era, label, statistics.median(times) * 1e3, times[int(len(times) * 0.9)] * 1e3, sent))
            client.close()
    print(f"{'era':8} {'call':20} {'median ms':>10} {'p90 ms':>8} {'notifications':>14}")
    for era, label, median, p90, sent in rows:
        print(f"{era:8} {label:20} {median:10.3f} {p90:8.3f} {sent:14d}")


if __name__ == "__main__":
    main()
