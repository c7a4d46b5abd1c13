"""The crm example's agent-facing surface, written as an MCP SDK server (the SDK peer for bench/run.py).

The same four tools as bench/fastmcp_crm.py and `crm --mcp` (customers_index, customers_show,
customers_store, customers_delete: signatures, docstrings, ``ge``/``le`` constraints and
annotations) and the resource app://customers_index, on the official SDK's decorator-style
server, ``mcp.server.mcpserver.MCPServer`` (mcp 2.x). ``structured_output=False`` on
customers_delete, which returns nothing, so it has no output schema, as rata lists it. The
bodies use an in-memory list.

    .venv/bin/python bench/sdk_crm.py        # serves on stdio (both protocol eras)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from dataclasses import dataclass
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field


@dataclass
class Customer:
    """A person or company you sell to."""

    id: int
    name: str
    email: str
    created_at: str


mcp = MCPServer("crm", version="1.0.0")

_CUSTOMERS: list[Customer] = []


def _find(id: int) -> Customer:
    for customer in _CUSTOMERS:
        if customer.id == id:
            return customer
    raise ValueError(f"no customer has the id {id}")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
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


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def customers_show(id: int) -> Customer:
    """Show one customer.

    Args:
        id: The customer's id.
    """
    return _find(id)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False))
def customers_store(name: str, email: str) -> Customer:
    """Add a customer.

    Args:
        name: Full name.
        email: Email address; must be unique.
    """
    customer = Customer(len(_CUSTOMERS) + 1, name.strip(), email, dt.datetime.now(dt.timezone.utc).isoformat())
    _CUSTOMERS.append(customer)
    return customer


@mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False), structured_output=False)
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
    mcp.run()  # stdio
