"""An app whose tools return lists: a 2 MB one with a bounding `limit`, the same without one, and a small one.

It imports only rata, so `rata mcp serve --app <a copy of this file>` serves it as a real process.
"""

from __future__ import annotations

from typing import Annotated

from rata import App, Ctx, Field, Mcp, command

ROW = "x" * 190
"""One row of about 200 characters: 10,000 of them are a 2 MB list."""


@command(can="rows.view")
def rows_list(ctx: Ctx, limit: Annotated[int, Field(ge=1, le=10_000)] = 10_000, search: str = "") -> list[str]:
    """List rows.

    Args:
        limit: How many rows at most.
        search: Only rows containing this text.
    """
    return [f"{i:05d} {ROW}" for i in range(limit) if search in f"{i:05d}"]


@command(can="rows.view")
def rows_dump(ctx: Ctx) -> list[str]:
    """Every row, with no way to ask for fewer."""
    return [f"{i:05d} {ROW}" for i in range(10_000)]


@command(can="rows.view")
def rows_count(ctx: Ctx) -> int:
    """How many rows there are."""
    return 10_000


def sizes_app() -> App:
    return App("sizes", "dev.rata.sizes").commands(rows_list, rows_dump, rows_count).mcp(Mcp().allow_abilities(["rows.*"]))


app = sizes_app()
