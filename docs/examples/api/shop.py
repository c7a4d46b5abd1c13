"""shop: the small app the examples in docs/api.md use."""

from dataclasses import dataclass
from typing import Annotated

from rata import App, Ctx, Field, Mcp, ValidationErrors, command


@dataclass
class Item:
    """One thing on the shelf.

    Attributes:
        id: The item's number.
        name: What it is.
        stock: How many are left.
    """

    id: int
    name: str
    stock: int


@command(can="items.view", live=True)
def items_list(ctx: Ctx, limit: Annotated[int, Field(ge=1, le=100)] = 20) -> list[Item]:
    """List the items, by name.

    Args:
        limit: How many items at most.
    """
    rows = ctx.db.execute("SELECT id, name, stock FROM items ORDER BY name LIMIT ?", (limit,))
    return [Item(row["id"], row["name"], row["stock"]) for row in rows]


@command(can="items.create")
def items_add(ctx: Ctx, name: Annotated[str, Field(min_length=1, max_length=80)], stock: Annotated[int, Field(ge=0)] = 0) -> Item:
    """Put a new item on the shelf.

    Args:
        name: What it is.
        stock: How many there are.
    """
    if ctx.db.execute("SELECT 1 FROM items WHERE name = ?", (name,)).fetchone():
        raise ValidationErrors({"name": f"there is already an item named {name!r}"})
    cursor = ctx.db.execute("INSERT INTO items (name, stock) VALUES (?, ?)", (name, stock))
    return Item(cursor.lastrowid, name, stock)


@command(can="items.delete")
def items_delete(ctx: Ctx, id: int) -> None:
    """Take an item off the shelf for good.

    Args:
        id: The item's number.
    """
    ctx.db.execute("DELETE FROM items WHERE id = ?", (id,))


app = (
    App("shop", identifier="com.example.shop", version="1.0.0")
    .commands(items_list, items_add, items_delete)
    .allow_abilities(["items.*"])
    .mcp(Mcp().allow_abilities(["items.view", "items.create"]).confirm("items.delete"))
)
