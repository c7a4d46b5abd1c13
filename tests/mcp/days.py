"""An app with resource templates whose separators a value could also hold (``{year}-{month}-{day}``).

It imports only rata, so `rata mcp serve --app <a copy of this file>` serves it as a real process.
"""

from __future__ import annotations

from rata import App, Ctx, Mcp, command, resource


@resource("rt://day/{year}-{month}-{day}", can="days.read", mime_type="text/plain")
def day(ctx: Ctx, year: str, month: str, day: str) -> str:
    """One day's page."""
    return f"{year}|{month}|{day}"


@resource("rt://span/{a}-{b}-{c}-{d}-{e}", can="days.read", mime_type="text/plain")
def span(ctx: Ctx, a: str, b: str, c: str, d: str, e: str) -> str:
    """Five values between dashes."""
    return "|".join((a, b, c, d, e))


@command(can="days.read")
def quick(ctx: Ctx) -> str:
    """Answer at once."""
    return "quick done"


app = App("days", identifier="com.example.days", version="1.0.0").commands(quick).resources(day, span).mcp(Mcp().allow_abilities(["days.read"]))
