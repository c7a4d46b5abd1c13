"""The journal, opted out: it never migrates when it starts; `python manual.py --migrate` does."""

from app import entries_add, entries_list

from rata import App, Mcp
from rata.cli.appmain import main_for

app = App("journal", identifier="com.example.journal", migrate_on_start=False).commands(entries_add, entries_list)
app.mcp(Mcp().allow_abilities(["entries.*"]))

if __name__ == "__main__":
    main_for(app)
