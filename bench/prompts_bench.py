"""What prompts and completions cost: a ``prompts/get`` round trip, one that asks, and ``completion/complete``.

    .venv/bin/python bench/prompts_bench.py                 # 300 requests of each kind, the median and p90 of each
    .venv/bin/python bench/prompts_bench.py --calls 1000

Serves the small app below (`python bench/prompts_bench.py --serve`, the same server code as
`crm --mcp`) in a child process and times, on one stdio connection per era, from the request
written to the final answer read:

- a plain ``tools/call`` (`tools/call`), the floor the others compare with;
- ``prompts/get`` of a prompt with two text arguments, an ``int`` and a ``Literal`` (`prompts/get`);
- ``prompts/get`` of a prompt that asks one question (`prompts/get, asks`): in 2026-07-28 the
  request, its ``input_required`` answer and the retry with the answer (the prompt runs twice);
  in 2025-11-25 the request, the server's ``elicitation/create``, the answer and the result;
- ``completion/complete`` of an argument with a completer (`complete, completer`) and of a
  ``Literal`` argument (`complete, Literal`).
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
ACCEPT = {"action": "accept", "content": {"topic": "tea"}}


from rata import App, Ctx, Mcp, command, prompt  # noqa: E402 - after the path is set


@dataclass
class Topic:
    topic: str


def numbers(value: str) -> list[str]:
    return [str(n) for n in range(1, 201) if str(n).startswith(value)]


@command(can="bench.run")
def plain(ctx: Ctx) -> int:
    """Answer at once."""
    return 1


@prompt(can="bench.run", complete={"customer_id": numbers})
def follow_up(customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str:
    """Draft a follow-up."""
    return f"Write a {tone} follow-up email to customer #{customer_id}."


@prompt(can="bench.run")
def asks(ctx: Ctx) -> str:
    """Ask one question, then draft."""
    return f"Write about {ctx.ask(Topic, 'About what?').require().topic}."


def make_app() -> App:
    return App("promptbench", identifier="com.example.promptbench").commands(plain).prompts(follow_up, asks).mcp(Mcp().allow_abilities(["bench.*"]).rate_limit(None))


class Client:
    def __init__(self, home: str) -> None:
        env = {**os.environ, "RATA_HOME": home}
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT)
        self.ids = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request; answer the server's questions on the way; return the final answer's result."""
        assert self.proc.stdout is not None
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("method") == "elicitation/create":
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": ACCEPT})
            elif message.get("id") == self.ids and "method" not in message:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def ask(self, era: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if era == "modern":
            params = {**params, "_meta": dict(META)}
        result = self.request(method, params)
        if result.get("resultType") == "input_required":
            keys = list(result["inputRequests"])
            result = self.request(method, {**params, "inputResponses": dict.fromkeys(keys, ACCEPT), "requestState": result["requestState"]})
        if result.get("isError") or result.get("resultType") == "input_required":
            raise RuntimeError(result)
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


KINDS = (
    ("tools/call", "tools/call", {"name": "plain", "arguments": {}}),
    ("prompts/get", "prompts/get", {"name": "follow_up", "arguments": {"customer_id": "42", "tone": "brief"}}),
    ("prompts/get, asks", "prompts/get", {"name": "asks"}),
    ("complete, completer", "completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "customer_id", "value": "1"}}),
    ("complete, Literal", "completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "tone", "value": "b"}}),
)


def measure(client: Client, era: str, method: str, params: dict[str, Any], calls: int) -> list[float]:
    for _ in range(20):  # warm-up
        client.ask(era, method, params)
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        client.ask(era, method, params)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        from rata.cli.appmain import serve_mcp

        sys.exit(serve_mcp(make_app()))
    rows = []
    with tempfile.TemporaryDirectory() as home:
        for era in ("modern", "legacy"):
            client = Client(home)
            if era == "legacy":
                init = {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "bench", "version": "1"}}
                client.request("initialize", init)
                client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            for label, method, params in KINDS:
                times = sorted(measure(client, era, method, params, args.calls))
                rows.append((era, label, statistics.median(times) * 1e3, times[int(len(times) * 0.9)] * 1e3))
            client.close()
    print(f"{'era':8} {'request':20} {'median ms':>10} {'p90 ms':>8}")
    for era, label, median, p90 in rows:
        print(f"{era:8} {label:20} {median:10.3f} {p90:8.3f}")


if __name__ == "__main__":
    main()
