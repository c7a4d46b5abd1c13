"""journal: a diary, and an MCP server for AI agents; it migrates its own database when it starts."""

from rata import App, Ctx, Mcp, command
from rata.cli.appmain import main_for


@command(can="entries.write")
def entries_add(ctx: Ctx, text: str) -> int:
    """Write an entry; returns its number.

    Args:
        text: What happened.
    """
    return ctx.db.execute("INSERT INTO entries (text) VALUES (?)", (text,)).lastrowid


@command(can="entries.read", live=True)
def entries_list(ctx: Ctx) -> list[str]:
    """Every entry's text, oldest first."""
    return [row["text"] for row in ctx.db.execute("SELECT text FROM entries ORDER BY id LIMIT 500")]


app = App("journal", identifier="com.example.journal").commands(entries_add, entries_list)
app.mcp(Mcp().allow_abilities(["entries.*"]))

if __name__ == "__main__":
    main_for(app)
