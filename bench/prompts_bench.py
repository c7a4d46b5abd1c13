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

import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
ACCEPT = {"action": "accept", "content": {"topic": "tea"}}


from bench.talk_bench import Client, calls_or_serve, timed  # noqa: E402 - after the path is set
from rata import App, Ctx, Mcp, command, prompt  # noqa: E402


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


def ask(client: Client, era: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request, and in 2026-07-28 the retry that answers its question."""
    if era == "modern":
        params = {**params, "_meta": dict(META)}
    result = client.request(method, params)
    if result.get("resultType") == "input_required":
        keys = list(result["inputRequests"])
        result = client.request(method, {**params, "inputResponses": dict.fromkeys(keys, ACCEPT), "requestState": result["requestState"]})
    if result.get("isError") or result.get("resultType") == "input_required":
        raise RuntimeError(result)
    return result


KINDS = (
    ("tools/call", "tools/call", {"name": "plain", "arguments": {}}),
    ("prompts/get", "prompts/get", {"name": "follow_up", "arguments": {"customer_id": "42", "tone": "brief"}}),
    ("prompts/get, asks", "prompts/get", {"name": "asks"}),
    ("complete, completer", "completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "customer_id", "value": "1"}}),
    ("complete, Literal", "completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "tone", "value": "b"}}),
)


def measure(client: Client, era: str, method: str, params: dict[str, Any], calls: int) -> list[float]:
    return timed(lambda: ask(client, era, method, params), calls)


def main() -> None:
    calls = calls_or_serve(__doc__.splitlines()[0], make_app)
    rows = []
    with tempfile.TemporaryDirectory() as home:
        for era in ("modern", "legacy"):
            client = Client(home, era, __file__, ACCEPT)
            rows += [(era, label, *summary(measure(client, era, method, params, calls))) for label, method, params in KINDS]
            client.close()
    print(f"{'era':8} {'request':20} {'median ms':>10} {'p90 ms':>8}")
    for era, label, median, p90 in rows:
        print(f"{era:8} {label:20} {median:10.3f} {p90:8.3f}")


def summary(times: list[float]) -> tuple[float, float]:
    """The median and the 90th percentile, in milliseconds."""
    times = sorted(times)
    return statistics.median(times) * 1e3, times[int(len(times) * 0.9)] * 1e3


if __name__ == "__main__":
    main()
