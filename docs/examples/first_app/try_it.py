"""Call the notes app's commands from Python, as the app itself."""

from rata.logs import configure_logging

from app import app

configure_logging(app.folder, app.name)  # JSON lines in <app folder>/logs/notes.log
app.migrate()  # the same as `rata migrate`

print(app.call("notes_add", text="Buy milk"))
print(app.call("notes_add", text="Call the bank"))
print(app.call("notes_done", id=1))
print(app.call("notes_list"))
print(app.call("notes_list", include_done=True))
app.close()
