"""A tour of the types a command can take and return."""

import datetime as dt
import enum
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Literal, NamedTuple, NewType, TypedDict

from rata import App, Field, JsonValue, Mcp, ValidationErrors, command

UserId = NewType("UserId", int)


class Priority(enum.Enum):
    """How urgent a task is."""

    LOW = "low"
    HIGH = "high"


class Point(NamedTuple):
    x: float
    y: float


class Contact(TypedDict):
    name: str
    phone: str


@dataclass
class Money:
    """An amount of money."""

    cents: int
    currency: str = "EUR"


@dataclass
class Category:
    name: str
    children: list["Category"] = field(default_factory=list)


@dataclass
class Task:
    """A task on the board.

    Attributes:
        title: A short title.
        tags: Labels, each at most once.
    """

    title: str
    priority: Priority = Priority.LOW
    tags: set[str] = field(default_factory=set)
    due: dt.date | None = None


@dataclass
class Created:
    id: uuid.UUID
    title: str
    priority: Priority
    due: dt.date | None
    budget: Money | None
    minutes: int


@command(can="tasks.create")
def tasks_create(
    task: Task,
    hours: Annotated[Decimal, Field("Estimated hours of work")],
    budget: Money | None = None,
    size: Literal["S", "M", "L"] = "M",
    extra: JsonValue = None,
) -> Created:
    """Create a task.

    Args:
        task: The task.
        budget: What it may cost.
        size: A rough size.
        extra: Anything else, as JSON; stored as given.
    """
    # task is a Task, task.priority a Priority, task.due a date; hours is a Decimal.
    task_id = uuid.uuid5(uuid.NAMESPACE_URL, task.title)
    return Created(task_id, task.title, task.priority, task.due, budget, int(hours * 60))


app = App("tasks", identifier="com.example.tasks").commands(tasks_create).mcp(Mcp().allow_abilities(["tasks.*"]))

if __name__ == "__main__":
    result = app.call(
        "tasks_create",
        task={"title": "Paint the fence", "priority": "high", "tags": ["home"], "due": "2026-07-28"},
        hours="2.5",
        budget={"cents": 4000},
    )
    print(result)
    try:
        app.call("tasks_create", task={"title": 7, "priority": "urgent", "colour": "red"}, hours="2,5")
    except ValidationErrors as errors:
        for name, messages in errors.to_dict().items():
            print(f"{name}: {messages}")
