"""Clients hear the stock room's tool list change: admin mode switched on, then a command added, while agents are connected."""

from rata import command
from rata.testing import AgentClient

from stock import app


@command(can="stock.moves.order")
def stock_order(item: str, count: int) -> str:
    """Order more of an item from the supplier."""
    return f"ordered {count} x {item}"


def names(agent: AgentClient) -> list[str]:
    return [tool["name"] for tool in agent.list_tools()]


with AgentClient(app) as agent, agent.listen(lists=["tools"]) as listen:  # 2026-07-28: a listen that asks
    print("before:", names(agent))
    app.mcp_config.allow_abilities(["stock.admin.*"])  # the user switched admin mode on in the app
    listen.wait_for_list_change("tools")
    print("heard:", agent.notifications_for(listen.id)[-1])
    print("after:", names(agent))

with AgentClient(app, era="legacy") as agent, agent.listen() as session:  # 2025-11-25: the session hears it unasked
    app.commands(stock_order)  # granted already: stock.moves.*
    session.wait_for_list_change("tools")
    print("heard:", [note for note in agent.notifications if note["method"].endswith("list_changed")])
    print("after:", names(agent))
