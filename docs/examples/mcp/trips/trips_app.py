"""Trips: commands that report progress, log to the client, ask the user and ask the client's model."""

from dataclasses import dataclass
from typing import Annotated, Literal

from rata import App, Ctx, Field, Mcp, command


@dataclass
class Seat:
    """Where to sit."""

    seat: Literal["window", "aisle"]
    bags: Annotated[int, Field("Checked bags", ge=0, le=3)] = 0


@command(can="trips.book")
def trips_book(ctx: Ctx, city: str) -> str:
    """Book a trip, asking the user where to sit."""
    trip = ctx.db.execute("INSERT INTO trips (city) VALUES (?)", (city,)).lastrowid
    seat = ctx.ask(Seat, f"Where would you like to sit on the way to {city}?").require()
    ctx.db.execute("UPDATE trips SET seat = ? WHERE id = ?", (seat.seat, trip))
    return f"Trip {trip} to {city}: {seat.seat} seat, {seat.bags} bags."


@command(can="trips.import")
def trips_import(ctx: Ctx, cities: list[str]) -> int:
    """Add a trip for each city, reporting progress."""
    for done, city in enumerate(cities, start=1):
        ctx.db.execute("INSERT INTO trips (city) VALUES (?)", (city,))
        ctx.log.info("imported %s", city)
        ctx.progress(done, len(cities), f"imported {city}")
    return len(cities)


@command(can="trips.plan")
def trips_plan(ctx: Ctx, city: str) -> str:
    """Ask the client's model for a plan of a day in the city."""
    sample = ctx.sample(f"Plan a day in {city}.", max_tokens=200, system="Be brief.")
    return sample.text or "(no plan)"


@command(can="trips.view")
def trips_index(ctx: Ctx) -> list[str]:
    """Every trip, as city and seat."""
    return [f"{city} ({seat})" for city, seat in ctx.db.execute("SELECT city, seat FROM trips ORDER BY id")]


app = App("trips", identifier="com.example.trips").commands(trips_book, trips_import, trips_plan, trips_index).mcp(Mcp().allow_abilities(["trips.*"]))
