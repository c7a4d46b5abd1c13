"""A small app with prompts, served on stdio for the peer tests (`python tests/mcp/prompts_app.py --mcp`).

`follow_up` takes typed arguments (an int, a Literal) that arrive as text and complete (a
completer for `customer_id`, the Literal's values for `tone`); `pictured` returns an image and
an assistant message; `context_first` asks the user before it answers; `hidden` is not granted.
"""

from __future__ import annotations

import base64
from typing import Literal, TypedDict

from rata import App, Ctx, Image, Mcp, PromptMessage, prompt

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def customer_ids(value: str):  # noqa: ANN201 - a generator: completers may return any iterable of strings
    """Customer numbers 1 to 150 that start with what was typed."""
    for number in map(str, range(1, 151)):
        if number.startswith(value):
            yield number


@prompt(can="notes.view", title="Follow-up email", complete={"customer_id": customer_ids})
def follow_up(customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str:
    """Draft a follow-up email to one customer.

    Args:
        customer_id: The customer to write to.
        tone: How the email should sound.
    """
    return "Write a " + tone + " follow-up email to customer #" + str(customer_id) + "."


@prompt(can="notes.view")
def pictured() -> list[Image | PromptMessage]:
    """Describe a picture."""
    return [Image(PNG, mime_type="image/png"), PromptMessage("It is one pixel.", role="assistant")]


class Topic(TypedDict):
    topic: str


@prompt(can="notes.view")
def context_first(ctx: Ctx) -> str:
    """Ask the user what to write about, then draft it."""
    return "Write a note about %s." % ctx.ask(Topic, "What should the note be about?", key="topic").require()["topic"]  # noqa: UP031


@prompt(can="secret.view")
def hidden() -> str:
    """Never listed: its ability is not granted."""
    return "secret"


app = App("notes", identifier="org.rata.notes", version="1.0.0").prompts(follow_up, pictured, context_first, hidden).mcp(Mcp().allow_abilities(["notes.*"]))


if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
