"""The page for bench/window_bench.py: 2,000 table rows of 9 elements each (18,000 elements) and a button that calls a command."""

from rata import App, Ctx, command


@command(can="bench.use")
def bench_ping(ctx: Ctx, n: int) -> int:
    """Answer n + 1."""
    return n + 1


app = App("bench-windows", identifier="dev.rata.bench.windows").commands(bench_ping).allow_abilities(["bench.*"])
