"""A tool whose text is written for a model: a table of orders beside the typed JSON."""

from dataclasses import dataclass
from typing import Annotated

from rata import App, Ctx, Field, Mcp, command
from rata.testing import AgentClient


@dataclass
class Order:
    number: int
    customer: str
    total: float
    shipped: bool


def orders_table(orders: list[dict]) -> str:
    """What the model reads: one line per order, no JSON. It gets the result as structuredContent carries it."""
    lines = [f"{len(orders)} orders (number | customer | total | shipped):"]
    lines += [f"{o['number']} | {o['customer']} | {o['total']:.2f} | {'yes' if o['shipped'] else 'no'}" for o in orders]
    return "\n".join(lines)


@command(can="orders.view", read_only=True, text=orders_table)
def orders_list(ctx: Ctx, limit: Annotated[int, Field(ge=1, le=100)] = 3) -> list[Order]:
    """The newest orders.

    Args:
        limit: How many orders at most.
    """
    orders = [Order(1003, "Ada Lovelace", 129.5, False), Order(1002, "Grace Hopper", 48.0, True), Order(1001, "Alan Turing", 12.25, True)]
    return orders[:limit]


app = App("orders", "com.example.orders").commands(orders_list).mcp(Mcp().allow_abilities(["orders.*"]))

with AgentClient(app) as agent:
    result = agent.call("orders_list", {"limit": 2})
    print(result.text)
    print(result.raw["structuredContent"])
