"""`Ctx`: what a command gets besides its arguments.

Declare a parameter typed `Ctx` and dispatch passes it in; it is never part of the schema.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from rata.logs import get_logger

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    import logging
    import sqlite3

    from rata.db import TableTracker, UnitOfWork
    from rata.dispatch import CommandRequest, Origin
    from rata.events import Events
    from rata.folder import AppFolder
    from rata.live import LiveRegistry
    from rata.talk import Answer, Message, Question, Root, RootsRequest, Sample, SampleRequest

    T = TypeVar("T")


class AppLike(Protocol):
    """What a command may use of its app through ``ctx.app`` (`rata.App` is one; named here so this module needs no `App`)."""

    name: str
    identifier: str
    version: str
    description: str
    events: Events
    live: LiveRegistry

    @property
    def folder(self) -> AppFolder: ...

    def call(self, name: str, /, **args: Any) -> Any: ...

    def dispatch(self, request: CommandRequest) -> Any: ...


class Ctx:
    """The app, the request being served, and the call's database transaction (its unit of work)."""

    def __init__(self, app: AppLike, request: CommandRequest, work: UnitOfWork) -> None:
        self.app = app
        self.request = request
        self._work = work

    @property
    def origin(self) -> Origin:
        """Who called: the frontend, an agent (with its client name) or the app itself."""
        return self.request.origin

    @property
    def db(self) -> sqlite3.Connection:
        """The app's SQLite database; the command runs in one transaction, committed when it returns."""
        return self._work.connection

    @property
    def tables(self) -> TableTracker:
        """The tables this command read and wrote (for live queries)."""
        return self._work.tables

    @property
    def log(self) -> logging.Logger:
        """The app's logger (JSON lines in the app folder's logs/)."""
        return get_logger(self.app.name)

    # --- talking to the caller during the call (rata.talk; the MCP side is rata.mcp.talking) ---

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress to the MCP client, if it asked for reports (a progress token); else nothing.

        `done` must grow from one report to the next (a report that does not is dropped);
        reports closer than `rata.mcp.talking.PROGRESS_INTERVAL` apart are merged into the
        latest, which is always sent before the result. Nothing for the frontend or the app itself."""
        from rata.talk import check_progress

        check_progress(done, total, message)
        channel = self.request.channel
        if channel is not None:
            channel.progress(done, total, message)

    def ask(self, form: type[T], message: str, *, key: str | None = None, ahead: bool = False) -> Answer[T]:
        """Ask the user to fill in `form` (a dataclass or TypedDict of the fields an MCP form holds), showing `message`.

        Returns an `Answer`: ``answer.value`` is the filled-in form when ``answer.accepted``;
        ``declined`` and ``cancelled`` say how the user said no. With a 2026-07-28 client the call
        stops here and the command runs again from the start with the answer (see docs/mcp.md,
        "Asking the user"); `key` names the question there, and `ahead=True` takes an answer the
        client sends under it before being asked (`rata.talk.Question`). Raises
        `rata.talk.TalkError` when the caller cannot be asked."""
        from rata.talk import Question

        return self._gather("ctx.ask", (Question(form, message, key=key, ahead=ahead),))[0]

    def ask_all(self, *items: Question[Any] | SampleRequest | RootsRequest) -> list[Any]:
        """Ask several things in one round (one wait for the user): questions (`Question`), requests for
        the client's model (`rata.talk.SampleRequest`) and for its roots (`rata.talk.RootsRequest`).

        The answers come in the same order: an `Answer`, a `rata.talk.Sample`, a list of `rata.talk.Root`."""
        return self._gather("ctx.ask_all", items)

    def sample(self, prompt: str | Message | list[Message], *, max_tokens: int, **options: Any) -> Sample:
        """Ask the client's model for a completion of `prompt` (text, or messages with text and images).

        The user approves (and may edit) the request in their client. `options` are those of
        `rata.talk.SampleRequest`: `system`, `models` (name hints such as ``"claude-sonnet"``),
        `cost`, `speed` and `intelligence` (priorities from 0 to 1), `temperature`, `stop` and
        `key` (the request's name in ``inputRequests``, 2026-07-28). Returns a `rata.talk.Sample`.
        Raises `rata.talk.TalkError` when the client cannot sample."""
        from rata.talk import SampleRequest

        return self._gather("ctx.sample", (SampleRequest(prompt, max_tokens=max_tokens, **options),))[0]

    def roots(self, *, key: str | None = None) -> list[Root]:
        """The roots (folders) the MCP client shares. Raises `rata.talk.TalkError` when it shares none.
        `key` names the request in ``inputRequests`` (2026-07-28)."""
        from rata.talk import RootsRequest

        return self._gather("ctx.roots", (RootsRequest(key=key),))[0]

    def _gather(self, what: str, items: tuple[Any, ...]) -> list[Any]:
        from rata.talk import Question, RootsRequest, SampleRequest

        for item in items:
            if not isinstance(item, (Question, SampleRequest, RootsRequest)):
                raise TypeError(f"{what} takes Question, SampleRequest and RootsRequest values, not {type(item).__name__}")
        channel = self.request.channel
        if channel is None:
            from rata.talk import no_channel

            raise no_channel(what, self.request.origin)
        return channel.gather(list(items))

    def client_can(self, what: str) -> bool:
        """Whether this call's client can be asked: ``"ask"`` (the user, a form), ``"sample"`` (its model), ``"roots"``.

        False for a call that does not come from an MCP client. Use it to ask only what the
        client supports, rather than fail when it cannot answer."""
        from rata.talk import CAPABILITIES

        if what not in CAPABILITIES:
            raise ValueError(f"ctx.client_can takes one of {', '.join(CAPABILITIES)}, not {what!r}")
        channel = self.request.channel
        return channel is not None and channel.can(what)
