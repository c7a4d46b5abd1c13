"""Every call goes through app.dispatch: grants, confirmation, middleware, validation."""

from collections.abc import Callable
from typing import Any

from rata import CommandRequest, Origin, RataError, ValidationErrors

from app import app


def audit(request: CommandRequest, call_next: Callable[[CommandRequest], Any]) -> Any:
    """Middleware: runs around every granted call, before its arguments are checked."""
    print(f"  -> {request.command} from {request.origin}")
    result = call_next(request)
    print(f"  <- {request.command} done")
    return result


app.use(audit)
app.migrate()


def attempt(title, request):
    print(title)
    try:
        print(f"  result: {app.dispatch(request)}")
    except ValidationErrors as errors:
        print(f"  ValidationErrors: {errors.to_dict()}")
    except RataError as error:
        print(f"  {type(error).__name__}: {error.message}")


agent = Origin.agent("claude-code")
attempt("The frontend adds a note:", CommandRequest("notes_add", {"text": "Buy milk"}, Origin.frontend()))
attempt("An agent adds one with bad arguments:", CommandRequest("notes_add", {"text": 42, "due": "today"}, agent))
attempt("An agent marks a missing note as done:", CommandRequest("notes_done", {"id": 99}, agent))
attempt("An agent deletes a note, unconfirmed:", CommandRequest("notes_delete", {"id": 1}, agent))
attempt("The same, after the user agreed:", CommandRequest("notes_delete", {"id": 1}, agent, confirmed=True))
attempt("An agent clears done notes:", CommandRequest("notes_clear", {}, agent))
attempt("The frontend clears them:", CommandRequest("notes_clear", {}, Origin.frontend()))
attempt("A typo in the command name:", CommandRequest("notes_ad", {"text": "Buy milk"}, Origin.frontend()))
app.close()
