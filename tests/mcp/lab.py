"""A small app made to test the server: a slow command, a failing one, one that prints."""

from __future__ import annotations

import threading

from rata import App, Ctx, Mcp, command

release = threading.Event()


@command(can="lab.run")
def slow(ctx: Ctx) -> str:
    """Wait until the test releases it."""
    release.wait(10)
    return "slow done"


@command(can="lab.run")
def quick(ctx: Ctx) -> str:
    """Answer at once."""
    return "quick done"


@command(can="lab.run")
def boom(ctx: Ctx) -> int:
    """Fail like a real bug would."""
    raise RuntimeError("disk full")


@command(can="lab.run")
def chatty(ctx: Ctx) -> str:
    """Print to stdout, which must never reach the protocol stream."""
    print("hello from the app")
    return "said hello"


def lab_app() -> App:
    return App("lab", identifier="com.example.lab").commands(slow, quick, boom, chatty).mcp(Mcp().allow_abilities(["lab.*"]))


app = lab_app()
