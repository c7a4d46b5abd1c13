"""__app_name__: a small task list, and an MCP server for AI agents.

Each `@command` function is a command: its type hints are the schema callers see, its
docstring the description they read. The `App` at the bottom says who may call what:
the app's own frontend may do everything; agents may list, add and finish tasks, and may
delete one only after the user confirms.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Annotated

from rata import App, Ctx, Field, Mcp, ValidationErrors, command


@dataclass
class Task:
    """Something to do.

    Attributes:
        id: The task's number.
        title: What to do.
        done: Whether it is done.
        created_at: When it was added (UTC, ISO 8601).
    """

    id: int
    title: str
    done: bool
    created_at: str


def _task(row: sqlite3.Row) -> Task:
    return Task(id=row["id"], title=row["title"], done=bool(row["done"]), created_at=row["created_at"])


def _find(ctx: Ctx, id: int) -> Task:
    row = ctx.db.execute("SELECT * FROM tasks WHERE id = ?", (id,)).fetchone()
    if row is None:
        raise ValidationErrors({"id": f"there is no task {id}"})
    return _task(row)


@command(can="tasks.view", live=True)
def tasks_list(ctx: Ctx, include_done: bool = False, limit: Annotated[int, Field(ge=1, le=500)] = 100) -> list[Task]:
    """List the tasks, oldest first.

    Args:
        include_done: Also list the tasks that are done.
        limit: How many tasks to return at most.
    """
    rows = ctx.db.execute("SELECT * FROM tasks WHERE done = 0 OR ? ORDER BY id LIMIT ?", (include_done, limit))
    return [_task(row) for row in rows]


@command(can="tasks.create")
def tasks_add(ctx: Ctx, title: Annotated[str, Field(min_length=1, max_length=200)]) -> Task:
    """Add a task.

    Args:
        title: What to do.
    """
    if not title.strip():
        raise ValidationErrors({"title": "must not be blank"})
    cursor = ctx.db.execute("INSERT INTO tasks (title) VALUES (?)", (title.strip(),))
    ctx.log.info("task added", extra={"task_id": cursor.lastrowid})
    return _find(ctx, cursor.lastrowid)


@command(can="tasks.update")
def tasks_done(ctx: Ctx, id: int) -> Task:
    """Mark a task as done.

    Args:
        id: The task's number.
    """
    _find(ctx, id)
    ctx.db.execute("UPDATE tasks SET done = 1 WHERE id = ?", (id,))
    return _find(ctx, id)


def _delete_question(ctx: Ctx, id: int) -> str:
    row = ctx.db.execute("SELECT title FROM tasks WHERE id = ?", (id,)).fetchone()
    return f"Delete task #{id}, {row['title']!r}?" if row else f"Delete task #{id} (no such task)?"


@command(can="tasks.delete", confirm_message=_delete_question)
def tasks_delete(ctx: Ctx, id: int) -> None:
    """Delete a task.

    Args:
        id: The task's number.
    """
    _find(ctx, id)
    ctx.db.execute("DELETE FROM tasks WHERE id = ?", (id,))


app = (
    App("__app_name__", identifier="__app_identifier__", version="0.1.0", description="A small task list.")
    .commands(tasks_list, tasks_add, tasks_done, tasks_delete)
    .allow_abilities(["tasks.*"])
    .mcp(Mcp().allow_abilities(["tasks.view", "tasks.create", "tasks.update"]).confirm("tasks.delete"))
)
