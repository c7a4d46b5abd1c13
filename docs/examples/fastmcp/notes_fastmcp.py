"""notes, as a FastMCP 4 server: the starting point of docs/from-fastmcp.md (the rata port is docs/examples/first_app)."""

import sqlite3
from dataclasses import dataclass
from typing import Annotated

from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("notes", instructions="A small to-do list.")
db = sqlite3.connect("notes.db", check_same_thread=False, isolation_level=None)
db.row_factory = sqlite3.Row
db.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)")


@dataclass
class Note:
    """Something to do."""

    id: int
    text: str
    done: bool


@mcp.tool
def notes_list(include_done: bool = False, limit: Annotated[int, Field(ge=1, le=500)] = 100) -> list[Note]:
    """List the notes, oldest first.

    Args:
        include_done: Also list the notes that are done.
        limit: How many notes at most.
    """
    rows = db.execute("SELECT id, text, done FROM notes WHERE done = 0 OR ? ORDER BY id LIMIT ?", (include_done, limit))
    return [Note(row["id"], row["text"], bool(row["done"])) for row in rows]


@mcp.tool
def notes_add(text: Annotated[str, Field(min_length=1, max_length=200)]) -> Note:
    """Add a note.

    Args:
        text: What to do.
    """
    cursor = db.execute("INSERT INTO notes (text) VALUES (?)", (text,))
    return Note(cursor.lastrowid, text, False)


@mcp.tool
def notes_done(id: int) -> Note:
    """Mark a note as done.

    Args:
        id: The note's number.
    """
    row = db.execute("SELECT id, text FROM notes WHERE id = ?", (id,)).fetchone()
    if row is None:
        raise ValueError(f"there is no note {id}")
    db.execute("UPDATE notes SET done = 1 WHERE id = ?", (id,))
    return Note(row["id"], row["text"], True)


@mcp.tool(annotations={"destructiveHint": True})
def notes_delete(id: int) -> None:
    """Delete a note.

    Args:
        id: The note's number.
    """
    db.execute("DELETE FROM notes WHERE id = ?", (id,))


def notes_clear() -> int:
    """Delete every note that is done; returns how many. Not a tool: it has no @mcp.tool."""
    return db.execute("DELETE FROM notes WHERE done = 1").rowcount


if __name__ == "__main__":
    mcp.run()
