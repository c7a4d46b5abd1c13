"""One path for every call: `app.dispatch(request)`.

    app.dispatch(CommandRequest("customers_store", {"name": "Ada", "email": "ada@example.com"},
                                origin=Origin.agent("claude-code")))

The steps, in order: find the command; check the origin's grant (deny by default, and an
agent needs confirmation where the grant says so); run the middleware, outermost first;
convert and check the arguments (problems raise `ValidationErrors`); call the command inside
a database transaction; convert the result to JSON values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Middleware = Callable[["CommandRequest", Callable[["CommandRequest"], Any]], Any]
"""``middleware(request, call_next) -> result``: may refuse (raise), inspect or wrap a call."""


@dataclass(frozen=True)
class Origin:
    """Who is calling: ``frontend`` (a window), ``agent`` (an MCP client) or ``internal`` (the app, tests, the CLI)."""

    kind: str
    client: str | None = None
    window: str | None = None

    @classmethod
    def frontend(cls, window: str = "main") -> Origin:
        return cls("frontend", window=window)

    @classmethod
    def agent(cls, client: str | None = None) -> Origin:
        return cls("agent", client=client or "unknown")

    @classmethod
    def internal(cls) -> Origin:
        return cls("internal")

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    def __str__(self) -> str:
        if self.kind == "agent":
            return f"agent({self.client})"
        if self.kind == "frontend":
            return f"frontend({self.window})"
        return "internal"


@dataclass
class CommandRequest:
    """A call of one command: its name, JSON arguments, origin, and whether it was confirmed."""

    command: str
    args: dict[str, Any] = field(default_factory=dict)
    origin: Origin = field(default_factory=Origin.internal)
    confirmed: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
