"""The options of @command, and what a command gets from Ctx."""

from typing import Annotated

from rata import App, CommandRequest, Ctx, Field, Mcp, Origin, command


@command(can="tasks.view", live=True)
def tasks_index(ctx: Ctx, done: bool = False, limit: Annotated[int, Field(ge=1, le=500)] = 50) -> list[str]:
    """List task titles.

    The frontend keeps this list fresh while it is shown.

    Args:
        done: List finished tasks instead of open ones.
        limit: How many titles at most.

    Returns:
        The titles, in the order they were added.
    """
    return (["Water the plants"] if not done else [])[:limit]


@command(can="tasks.view", read_only=True)
def tasks_count(ctx: Ctx) -> int:
    """Count the open tasks."""
    return 1


@command(can="tasks.archive", name="tasks_archive_done")
def archive(ctx: Ctx) -> int:
    """Archive every finished task; returns how many."""
    return 0


@command(can="tasks.view", read_only=True)
def whoami(ctx: Ctx) -> str:
    """Say who is calling."""
    ctx.log.info("whoami called")  # the app's logger
    return f"{ctx.origin} calling {ctx.app.name} {ctx.app.version}"


@command
def tasks_reset(ctx: Ctx) -> None:
    """Delete every task (for demos and tests)."""


app = (
    App("tasks", identifier="com.example.tasks", version="2.0.0")
    .commands(tasks_index, tasks_count, archive, whoami, tasks_reset)
    .allow_abilities(["tasks.*"])
    .mcp(Mcp().allow_abilities(["tasks.view"]).confirm("tasks.archive"))
)

if __name__ == "__main__":
    print(app.dispatch(CommandRequest("whoami", origin=Origin.frontend())))
    print(app.dispatch(CommandRequest("whoami", origin=Origin.agent("claude-code"))))
    print(app.call("whoami"))
