"""The crm example's agent-facing surface, written as a FastMCP server (the peer for bench/run.py).

It exposes what `rata mcp inspect --json --app examples/crm` shows agents: the four tools
customers_index, customers_show, customers_store and customers_delete, with the same
signatures, docstrings, constraints and annotations, and the resource app://customers_index
(``output_schema=None`` on customers_delete, which returns nothing, as rata lists it). The bodies
use an in-memory list.

    .venv/bin/fastmcp inspect --format mcp bench/fastmcp_crm.py   # benchmark 1: inspect
    .venv/bin/python bench/fastmcp_crm.py                          # benchmark 5: serve on stdio
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from dataclasses import dataclass
from typing import Annotated

from fastmcp import FastMCP
from pydantic import Field


@dataclass
class Customer:
    """A person or company you sell to."""

    id: int
    name: str
    email: str
    created_at: str


mcp = FastMCP("crm", version="1.0.0")

_CUSTOMERS: list[Customer] = []


def _find(id: int) -> Customer:
    for customer in _CUSTOMERS:
        if customer.id == id:
            return customer
    raise ValueError(f"no customer has the id {id}")


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def customers_index(
    search: str = "",
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
) -> list[Customer]:
    """List customers, newest first, filtered by name or email.

    Args:
        search: Text to look for in the name or email; empty lists everyone.
        limit: How many customers to return at most.
    """
    found = [c for c in reversed(_CUSTOMERS) if search in c.name or search in c.email]
    return found[:limit]


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def customers_show(id: int) -> Customer:
    """Show one customer.

    Args:
        id: The customer's id.
    """
    return _find(id)


@mcp.tool(annotations={"readOnlyHint": False, "openWorldHint": False})
def customers_store(name: str, email: str) -> Customer:
    """Add a customer.

    Args:
        name: Full name.
        email: Email address; must be unique.
    """
    customer = Customer(len(_CUSTOMERS) + 1, name.strip(), email, dt.datetime.now(dt.timezone.utc).isoformat())
    _CUSTOMERS.append(customer)
    return customer


@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}, output_schema=None)
def customers_delete(id: int) -> None:
    """Delete a customer.

    The user is asked to confirm each call.

    Args:
        id: The customer's id.
    """
    _CUSTOMERS.remove(_find(id))


@mcp.resource("app://customers_index", name="customers_index", mime_type="application/json")
def customers_index_resource() -> str:
    """List customers, newest first, filtered by name or email."""
    return json.dumps([dataclasses.asdict(c) for c in customers_index()])


if __name__ == "__main__":
    mcp.run(transport="stdio", show_banner=False)
