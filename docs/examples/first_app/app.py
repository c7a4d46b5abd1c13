"""notes: a small to-do list, and an MCP server for AI agents."""

from dataclasses import dataclass
from typing import Annotated

from rata import App, Ctx, Field, Mcp, ValidationErrors, command


@dataclass
class Note:
    """Something to do.

    Attributes:
        id: The note's number.
        text: What to do.
        done: Whether it is done.
    """

    id: int
    text: str
    done: bool


@command(can="notes.view", live=True)
def notes_list(ctx: Ctx, include_done: bool = False, limit: Annotated[int, Field(ge=1, le=500)] = 100) -> list[Note]:
    """List the notes, oldest first.

    Args:
        include_done: Also list the notes that are done.
        limit: How many notes at most.
    """
    rows = ctx.db.execute("SELECT id, text, done FROM notes WHERE done = 0 OR ? ORDER BY id LIMIT ?", (include_done, limit))
    return [Note(row["id"], row["text"], bool(row["done"])) for row in rows]


@command(can="notes.create")
def notes_add(ctx: Ctx, text: Annotated[str, Field(min_length=1, max_length=200)]) -> Note:
    """Add a note.

    Args:
        text: What to do.
    """
    cursor = ctx.db.execute("INSERT INTO notes (text) VALUES (?)", (text,))
    ctx.log.info("note added", extra={"note_id": cursor.lastrowid})
    return Note(cursor.lastrowid, text, False)


@command(can="notes.update")
def notes_done(ctx: Ctx, id: int) -> Note:
    """Mark a note as done.

    Args:
        id: The note's number.
    """
    row = ctx.db.execute("SELECT id, text FROM notes WHERE id = ?", (id,)).fetchone()
    if row is None:
        raise ValidationErrors({"id": f"there is no note {id}"})
    ctx.db.execute("UPDATE notes SET done = 1 WHERE id = ?", (id,))
    return Note(row["id"], row["text"], True)


@command(can="notes.delete")
def notes_delete(ctx: Ctx, id: int) -> None:
    """Delete a note.

    Args:
        id: The note's number.
    """
    ctx.db.execute("DELETE FROM notes WHERE id = ?", (id,))


@command(can="notes.clear")
def notes_clear(ctx: Ctx) -> int:
    """Delete every note that is done; returns how many."""
    return ctx.db.execute("DELETE FROM notes WHERE done = 1").rowcount


app = (
    App("notes", identifier="com.example.notes", version="0.1.0")
    .commands(notes_list, notes_add, notes_done, notes_delete, notes_clear)
    .allow_abilities(["notes.*"])
    .mcp(Mcp().allow_abilities(["notes.view", "notes.create", "notes.update"]).confirm("notes.delete"))
)

if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
