"""An app whose commands talk back during the call: progress, logs, questions, sampling and roots.

    python -m tests.mcp.talkers --mcp     # served on stdio, like `crm --mcp`
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Annotated, Literal

from rata import App, Ctx, Field, Mcp, Question, command
from rata.talk import Format

runs: list[str] = []
"""Every run of `book`, re-runs included: a side effect outside the database."""


class Meal(enum.Enum):
    STANDARD = "std"
    VEGETARIAN = "veg"


@dataclass
class Seat:
    """Where to sit."""

    seat: Literal["window", "aisle"]
    meal: Meal = Meal.STANDARD
    bags: Annotated[int, Field("Checked bags", ge=0, le=3)] = 0


@dataclass
class Contact:
    email: Annotated[str, Format("email"), Field(max_length=100)]
    newsletter: bool = False
    topics: list[Literal["news", "deals"]] | None = None


@command(can="talk.run")
def count(ctx: Ctx, n: int, pause: float = 0.0) -> int:
    """Count to n, reporting each step."""
    for step in range(1, n + 1):
        if pause:
            time.sleep(pause)
        ctx.progress(step, n, f"step {step} of {n}")
    return n


@command(can="talk.run")
def shout(ctx: Ctx, text: str) -> str:
    """Log the text at three levels."""
    ctx.log.debug("quietly %s", text)
    ctx.log.info("saying %s", text, extra={"length": len(text)})
    ctx.log.warning("loudly %s", text.upper())
    return text


@command(can="talk.run")
def book(ctx: Ctx, city: str) -> str:
    """Book a seat to a city, asking the user where to sit."""
    runs.append(city)
    ctx.db.execute("INSERT INTO bookings (city, seat) VALUES (?, ?)", (city, "pending"))
    seat = ctx.ask(Seat, f"Where would you like to sit on the way to {city}?").require()  # declined: the call fails, the insert is undone
    ctx.db.execute("UPDATE bookings SET seat = ? WHERE seat = 'pending'", (f"{seat.seat}/{seat.meal.value}/{seat.bags}",))
    return f"Booked {seat.seat} to {city}."


@command(can="talk.run")
def survey(ctx: Ctx) -> list[str]:
    """Two questions in one round, then a third in a second round."""
    seat, contact = ctx.ask_all(Question(Seat, "Seat?"), Question(Contact, "Contact?"))
    again = ctx.ask(Seat, "And on the way back?")
    return [repr(seat.value), repr(contact.value), again.action]


@command(can="talk.run")
def summarize(ctx: Ctx, text: str) -> str:
    """Ask the client's model for a summary."""
    sample = ctx.sample(f"Summarize: {text}", max_tokens=50, system="Be brief.", models=["claude"], intelligence=0.8)
    return f"{sample.model}: {sample.text}"


@command(can="talk.run")
def folders(ctx: Ctx) -> list[str]:
    """The client's roots."""
    return [root.uri for root in ctx.roots()]


@command(can="talk.run")
def bookings(ctx: Ctx) -> list[str]:
    """Every booking, as city/seat."""
    return [f"{city}/{seat}" for city, seat in ctx.db.execute("SELECT city, seat FROM bookings ORDER BY id")]


@command(can="talk.remove")
def remove(ctx: Ctx, city: str) -> int:
    """Remove the bookings to a city (asks for confirmation, then where it was wanted)."""
    answer = ctx.ask(Contact, f"Who should hear that {city} was removed?")
    removed = ctx.db.execute("DELETE FROM bookings WHERE city = ?", (city,)).rowcount
    return removed if answer.accepted else -removed


def talk_app() -> App:
    return (
        App("talkers", identifier="com.example.talkers")
        .commands(count, shout, book, survey, summarize, folders, bookings, remove)
        .allow_abilities(["talk.*"])
        .mcp(Mcp().allow_abilities(["talk.run"]).confirm("talk.remove"))
    )


app = talk_app()
