"""A tool result over the app's token limit: the agent gets an error naming the arguments that narrow it."""

from typing import Annotated

from rata import App, Ctx, Field, Mcp, command
from rata.logs import configure_logging
from rata.testing import AgentClient


@command(can="orders.view")
def orders_list(ctx: Ctx, limit: Annotated[int, Field(ge=1, le=500)] = 50, search: str = "") -> list[str]:
    """List orders, newest first.

    Args:
        limit: How many orders at most.
        search: Only orders whose line contains this text.
    """
    lines = [f"order {n}: 3 bolts, 2 nuts, shipped to Lisbon" for n in range(1000, 0, -1)]
    return [line for line in lines if search in line][:limit]


app = App("orders", "com.example.orders").commands(orders_list)
app.mcp(Mcp().allow_abilities(["orders.*"]).result_limit(2_000))
configure_logging(app.folder, app.name)  # as `rata mcp serve` does: the warning goes to the app's log file

with AgentClient(app) as agent:
    for arguments in ({"limit": 500}, {"limit": 20}):
        result = agent.call("orders_list", arguments)
        print(f"{arguments}: isError={result.is_error}")
        print("  " + (result.text if result.is_error else f"{len(result.data)} orders, {len(result.text):,} characters of text"))
