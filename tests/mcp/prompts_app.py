"""A small app with prompts, served on stdio for the peer tests (`python tests/mcp/prompts_app.py --mcp`).

`follow_up` takes typed arguments (an int, a Literal) that arrive as text and complete (a
completer for `customer_id`, the Literal's values for `tone`); `pictured` returns an image and
an assistant message; `context_first` asks the user before it answers; `hidden` is not granted.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Literal

from rata import App, Ctx, Image, Mcp, PromptMessage, prompt

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def customer_ids(value: str) -> list[str]:
    """Customer numbers 1 to 150 that start with what was typed."""
    return [str(n) for n in range(1, 151) if str(n).startswith(value)]


@prompt(can="notes.view", title="Follow-up email", complete={"customer_id": customer_ids})
def follow_up(customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str:
    """Draft a follow-up email to one customer.

    Args:
        customer_id: The customer to write to.
        tone: How the email should sound.
    """
    return f"Write a {tone} follow-up email to customer #{customer_id}."


@prompt(can="notes.view")
def pictured() -> list[Image | PromptMessage]:
    """Describe a picture."""
    return [Image(PNG, mime_type="image/png"), PromptMessage("It is one pixel.", role="assistant")]


@dataclass
class Topic:
    topic: str


@prompt(can="notes.view")
def context_first(ctx: Ctx) -> str:
    """Ask the user what to write about, then draft it."""
    answer = ctx.ask(Topic, "What should the note be about?", key="topic").require()
    return f"Write a note about {answer.topic}."


@prompt(can="secret.view")
def hidden() -> str:
    """Never listed: its ability is not granted."""
    return "secret"


app = App("notes", identifier="org.rata.notes", version="1.0.0").prompts(follow_up, pictured, context_first, hidden).mcp(Mcp().allow_abilities(["notes.*"]))


if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
