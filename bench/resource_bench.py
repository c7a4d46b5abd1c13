"""What resource templates and declared resources cost: `resources/templates/list` and template reads, per era.

    .venv/bin/python bench/resource_bench.py                 # 300 requests of each kind, the median and p90 of each
    .venv/bin/python bench/resource_bench.py --calls 1000

Serves the small app below (`python bench/resource_bench.py --serve`, the same server code as
`crm --mcp`, no rate limit) in a child process and times, on one stdio connection per era,
from the request written to its answer read:

- a plain `tools/call` (`tools/call`), the floor the others compare with;
- `resources/templates/list`;
- a read of a live command's template instance, ``app://items_show/{n}`` (the URI matched,
  the value converted and checked, the command run in its unit of work);
- a read of a declared function template's instance, ``bench://notes/{n}`` (the same, through
  `App.run_function`);
- a read of a declared resource of fixed text, ``bench://about``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from talk_bench import META, Client, calls_or_serve, timed  # noqa: E402 - the same stdio client, serving and timing

from rata import App, Ctx, Mcp, Resource, command, resource  # noqa: E402 - after the path is set


@command(can="bench.run")
def plain(ctx: Ctx) -> int:
    """Answer at once."""
    return 1


@command(can="bench.run", live=True)
def items_show(ctx: Ctx, id: int) -> int:  # noqa: A002 - the template's name for it
    """One item: a query that reads no table."""
    return ctx.db.execute("SELECT ?", (id,)).fetchone()[0]


@resource("bench://notes/{n}", can="bench.run", description="One note.")
def note(ctx: Ctx, n: int) -> str:
    return f"note {n}"


def make_app() -> App:
    about = Resource("bench://about", text="A benchmark.", description="What this is.", can="bench.run")
    return (
        App("resbench", identifier="com.example.resbench")
        .commands(plain, items_show)
        .resources(about, note)
        .mcp(Mcp().allow_abilities(["bench.*"]).rate_limit(None))
    )


KINDS = (
    ("tools/call", "tools/call", {"name": "plain", "arguments": {}}),
    ("resources/templates/list", "resources/templates/list", {}),
    ("read app://items_show/{n}", "resources/read", {"uri": "app://items_show/42"}),
    ("read bench://notes/{n}", "resources/read", {"uri": "bench://notes/42"}),
    ("read bench://about", "resources/read", {"uri": "bench://about"}),
)


def measure(client: Client, era: str, method: str, params: dict, calls: int) -> list[float]:
    if era == "modern":
        params = {**params, "_meta": dict(META)}
    return sorted(timed(lambda: client.request(method, params), calls))


def main() -> None:
    calls = calls_or_serve(__doc__.splitlines()[0], make_app)
    rows = []
    with tempfile.TemporaryDirectory() as home:
        for era in ("modern", "legacy"):
            client = Client(home, era, __file__)
            for label, method, params in KINDS:
                times = measure(client, era, method, params, calls)
                rows.append((era, label, statistics.median(times) * 1e3, times[int(len(times) * 0.9)] * 1e3))
            client.close()
    print(f"{'era':8} {'request':28} {'median ms':>10} {'p90 ms':>8}")
    for era, label, median, p90 in rows:
        print(f"{era:8} {label:28} {median:10.3f} {p90:8.3f}")


if __name__ == "__main__":
    main()
