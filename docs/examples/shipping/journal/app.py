"""journal: notes an agent may add, kept in a folder the user picks, optionally synced."""

import os

from rata import App, Mcp, command


@command(can="notes.create")
def add_note(text: str) -> str:
    """Add a note to the journal.

    Args:
        text: The note.
    """
    folder = os.environ.get("JOURNAL_FOLDER") or "the app folder"
    synced = " and synced" if os.environ.get("JOURNAL_SYNC_TOKEN") else ""
    return f"Saved in {folder}{synced}: {text}"


app = App("Journal", identifier="com.example.journal", description="A journal your agent can add to.").commands(add_note)
app.mcp(Mcp().allow_abilities(["notes.create"]))
