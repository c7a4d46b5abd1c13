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
from typing import Any

from rata._record import Record

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.talk import Channel

Middleware = Callable[["CommandRequest", Callable[["CommandRequest"], Any]], Any]
"""``middleware(request, call_next) -> result``: may refuse (raise), inspect or wrap a call."""


class Origin(Record):
    """Who is calling: ``frontend`` (a window), ``agent`` (an MCP client) or ``internal`` (the app, tests, the CLI)."""

    __slots__ = ("kind", "client", "window")
    kind: str
    client: str | None
    window: str | None

    # hot path: bench/run.py --only server (throughput): one per tools/call; Record's generic loop costs 8k of its 330k instructions (callgrind)
    def __init__(self, kind: str, client: str | None = None, window: str | None = None) -> None:
        self.kind = kind
        self.client = client
        self.window = window

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


class CommandRequest:
    """A call of one command: its name, JSON arguments, origin, and whether it was confirmed.

    `channel`: how the command talks to its caller during the call (`rata.talk.Channel`: progress,
    logs, questions), set for a call from an MCP client (`rata.mcp.methods.tools`); None otherwise."""

    __slots__ = ("command", "args", "origin", "confirmed", "meta", "channel")

    def __init__(
        self,
        command: str,
        args: dict[str, Any] | None = None,
        origin: Origin | None = None,
        confirmed: bool = False,
        meta: dict[str, Any] | None = None,
        channel: Channel | None = None,
    ) -> None:
        self.command = command
        self.args: dict[str, Any] = args if args is not None else {}
        self.origin = origin if origin is not None else Origin.internal()
        self.confirmed = confirmed
        self.meta: dict[str, Any] = meta if meta is not None else {}
        self.channel = channel

    def __repr__(self) -> str:
        return f"CommandRequest({self.command!r}, origin={self.origin}, confirmed={self.confirmed})"
