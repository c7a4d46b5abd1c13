"""Prompts and completions: the messages a user picks in their client, with arguments that complete as they type."""

from dataclasses import dataclass
from typing import Literal

from rata import App, Ctx, Mcp, PromptMessage, prompt

CUSTOMERS = {1: "Ada Lovelace", 2: "Grace Hopper", 12: "Alan Turing", 21: "Edsger Dijkstra"}


def customer_ids(value: str) -> list[str]:
    """The customer numbers that start with what the user typed."""
    return [str(number) for number in CUSTOMERS if str(number).startswith(value)]


@prompt(can="mail.draft", title="Follow-up email", complete={"customer_id": customer_ids})
def follow_up(customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str:
    """Draft a follow-up email to one customer.

    Args:
        customer_id: The customer to write to.
        tone: How the email should sound.
    """
    return f"Write a {tone} follow-up email to {CUSTOMERS[customer_id]} about their last order."


@dataclass
class Focus:
    focus: str


@prompt(can="mail.draft")
def reply_review(ctx: Ctx, draft: str) -> list[str | PromptMessage]:
    """Review a reply before it is sent, on what the user cares about most.

    Args:
        draft: The reply as written so far.
    """
    focus = ctx.ask(Focus, "What should the review look at?").require().focus
    return [f"Here is my draft reply:\n\n{draft}", PromptMessage("I will review it.", role="assistant"), f"Look mostly at {focus}."]


app = App("mail", identifier="com.example.mail").prompts(follow_up, reply_review).mcp(Mcp().allow_abilities(["mail.*"]))

if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
