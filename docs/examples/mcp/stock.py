"""stock: a workshop's stock room, to show how commands become MCP tools."""

from typing import Annotated

from rata import App, Field, Mcp, ValidationErrors, command

SHELVES = {"bolt": 120, "nut": 80}


@command(can="stock.view", read_only=True)
def stock_count(item: str) -> int:
    """How many of an item are on the shelves.

    Args:
        item: The item's name, such as "bolt".
    """
    if item not in SHELVES:
        raise ValidationErrors({"item": f"there is no item named {item!r}"})
    return SHELVES[item]


@command(can="stock.moves.take")
def stock_take(item: str, count: Annotated[int, Field(ge=1)]) -> int:
    """Take items off the shelves; returns how many are left.

    Args:
        item: The item's name.
        count: How many to take.
    """
    left = stock_count(item) - count
    if left < 0:
        raise ValidationErrors({"count": f"only {SHELVES[item]} left"})
    SHELVES[item] = left
    print(f"took {count} x {item}")
    return left


@command(can="stock.moves.recount")
def stock_recount() -> None:
    """Count the shelves again with the barcode scanner."""
    raise ConnectionError("the scanner is offline")


@command(can="stock.remove", confirm_message="Remove {item} from the books for good?")
def stock_remove(item: str) -> None:
    """Remove an item from the books.

    Args:
        item: The item's name.
    """
    SHELVES.pop(item, None)


@command(can="stock.admin.reset")
def stock_reset() -> None:
    """Put everything back as it was."""
    SHELVES.update(bolt=120, nut=80)


@command
def stock_report() -> str:
    """A text report of the shelves."""
    return "\n".join(f"{item}: {count}" for item, count in SHELVES.items())


app = (
    App("stock", identifier="com.example.stock")
    .commands(stock_count, stock_take, stock_recount, stock_remove, stock_reset, stock_report)
    .mcp(
        Mcp(instructions="The stock room of a small workshop: count, take and remove items.")
        .allow_abilities(["stock.view", "stock.moves.*"])
        .confirm("stock.remove")
        .rate_limit(30, per=60)
    )
)
