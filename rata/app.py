"""`App` and `Mcp`: an app's commands, its grants, and the one dispatch path.

    app = (App("crm", identifier="com.example.crm", version="1.0.0")
           .commands(customers_index, customers_store, customers_delete)
           .allow_abilities(["customers.*"])                       # the frontend's grant
           .mcp(Mcp().allow_abilities(["customers.view", "customers.create"])
                     .confirm("customers.delete")))                # the agents' grant
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any, cast

from rata.abilities import Grant
from rata.command_spec import CommandSpec, inspect_command
from rata.context import Ctx
from rata.convert import Invalid, Mismatch, from_json_fields, to_json
from rata.db import Database, UnitOfWork
from rata.dispatch import CommandRequest, Middleware, Origin
from rata.errors import CodegenError, ConfirmationRequiredError, ForbiddenError, MigrationError, ResultError, UnknownCommandError
from rata.events import Events
from rata.folder import AppFolder, default_location
from rata.live import LiveRegistry
from rata.logs import LazyLogger
from rata.logs import sync as sync_logging
from rata.ratelimit import DEFAULT as DEFAULT_RATE_LIMIT
from rata.ratelimit import RateLimit
from rata.typemodel import Analyzer
from rata.validation import ValidationErrors

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

    from rata.db import Tracker
    from rata.prompts import PromptSpec
    from rata.resources import Resource

log = LazyLogger("rata.app")
ALLOW = "allow"
CONFIRM = "confirm"
DEFAULT_RESULT_TOKENS = 25_000
"""Claude Code refuses a tool result over 25,000 tokens by default: one result may hold at most that (`Mcp.result_limit`)."""


class Mcp:
    """What the app shows AI agents: a grant of abilities, separate from the frontend's.

    `allow_abilities` grants abilities outright; `confirm` grants them only with the user's
    confirmation for every call. An ability matched by both needs confirmation.
    """

    def __init__(self, *, instructions: str = "") -> None:
        self.grant = Grant()
        self.confirm_grant = Grant()
        self.instructions = instructions
        self.limit: RateLimit | None = DEFAULT_RATE_LIMIT
        self.result_tokens: int | None = DEFAULT_RESULT_TOKENS
        """The most tokens (`rata.tokens.estimate`) one tool result may hold; a larger one is refused (`result_limit`)."""
        self._memo: dict[tuple[str, int, int], str | None] = {}
        self._apps: list[Callable[[], None]] = []
        """The `App.surface_changed` of each app this grant is given to (`App.mcp`)."""

    def rate_limit(self, calls: int | None, per: float = 60.0) -> Mcp:
        """Allow each tool `calls` calls per `per` seconds (bursts included); None turns limiting off."""
        self.limit = None if calls is None else RateLimit(calls, per)
        self.changed()
        return self

    def result_limit(self, tokens: int | None) -> Mcp:
        """Refuse a tool result over about `tokens` tokens (default 25,000) with an error naming the arguments that narrow it; None sends any size."""
        if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1):
            raise CodegenError(
                f"result_limit({tokens!r}): the limit must be a whole number of tokens of at least 1.", hint="Pass e.g. 25_000, or None for no limit."
            )
        self.result_tokens = tokens
        return self

    def allow_abilities(self, patterns: Iterable[str]) -> Mcp:
        self.grant.extend(patterns)
        self.changed()
        return self

    def confirm(self, *patterns: str | Iterable[str]) -> Mcp:
        for pattern in patterns:
            self.confirm_grant.extend(pattern)
        self.changed()
        return self

    def changed(self) -> None:
        """The grant changed: forget what `access` worked out, and tell the apps it is given to (`App.surface_changed`).

        The methods above call it; call it yourself after changing `grant` or `confirm_grant` another way."""
        self._memo = {}
        for surface_changed in list(self._apps):
            surface_changed()

    def access(self, ability: str | None) -> str | None:
        """``"confirm"``, ``"allow"`` or None for a command with this ability."""
        if ability is None:
            return None
        key = (ability, len(self.grant.patterns), len(self.confirm_grant.patterns))
        try:  # memoised for bench/run.py --only server; grants only grow, so the pattern counts say when to look again
            return self._memo[key]
        except KeyError:
            if self.confirm_grant.allows(ability):
                access = CONFIRM
            elif self.grant.allows(ability):
                access = ALLOW
            else:
                access = None
            self._memo[key] = access
            return access

    def patterns(self) -> list[tuple[str, str]]:
        """Every granted pattern with its kind, in the order given."""
        return [(p, ALLOW) for p in self.grant.texts()] + [(p, CONFIRM) for p in self.confirm_grant.texts()]


class App:
    """A rata app: named commands, grants, middleware, and a folder for its data."""

    def __init__(
        self,
        name: str,
        identifier: str,
        version: str = "0.0.0",
        *,
        description: str = "",
        root: str | Path | None = None,
        migrate_on_start: bool = True,
    ) -> None:
        self.name = name
        self.identifier = identifier
        self.version = version
        self.description = description
        self._root: str | Path = os.fspath(root) if root is not None else _caller_dir()
        caller = inspect.currentframe()
        caller = caller.f_back if caller is not None else None
        self.made_at: tuple[str, int] | None = (caller.f_code.co_filename, caller.f_lineno) if caller is not None else None
        """The file and line that made the App (for CI reports that point at it: `rata.codegen.locate`)."""
        self.frontend_grant = Grant()
        self.mcp_config: Mcp | None = None
        self.middleware: list[Middleware] = []
        self.specs: dict[str, CommandSpec] = {}
        self.prompt_specs: dict[str, PromptSpec] = {}
        self.declared: dict[str, Resource] = {}
        """Declared resources (`rata.resources`) by URI or URI template, in the order declared."""
        self._fields: dict[str, tuple[CommandSpec, list[tuple[str, Any, bool]]]] = {}
        self._analyzer = Analyzer()
        self.events = Events()
        self.live = LiveRegistry()
        self._database = Database(lambda: self.folder)
        self.migrate_on_start = migrate_on_start
        """Apply pending migrations whenever the app starts (`rata.upgrade`); False leaves that to `rata migrate` / ``--migrate``."""
        self.database_problem: MigrationError | None = None
        """Why the database could not be brought up to date when the app started: every call answers it (`rata.upgrade.refusal`)."""
        self._folder: AppFolder | None = None
        self._default_folder: tuple[str | None, AppFolder] | None = None
        self._surface_listeners: list[Callable[[], None]] = []
        self._surface_lock = threading.Lock()  # a listener list is replaced whole under it, never changed in place

    # --- building ---

    def commands(self, *fns: Callable[..., Any] | Iterable[Callable[..., Any]]) -> App:
        """Register command functions (each decorated with `@command`)."""
        for fn in _each(fns):
            _register(self.specs, inspect_command(fn, self._analyzer, Ctx), "command")
        self.surface_changed()
        return self

    def prompts(self, *fns: Callable[..., Any] | Iterable[Callable[..., Any]]) -> App:
        """Register prompt functions (each decorated with `@prompt`, `rata.prompts`)."""
        from rata.prompts import inspect_prompt

        for fn in _each(fns):
            _register(self.prompt_specs, inspect_prompt(fn, self._analyzer, Ctx), "prompt")
        self.surface_changed()
        return self

    def resources(self, *items: Resource | Callable[..., Any]) -> App:
        """Declare resources: `rata.Resource` values and `@rata.resource` functions (see `rata.resources`)."""
        from rata.resources import declare

        for item in items:
            resource = declare(item, self._analyzer, Ctx)
            if resource.uri in self.declared and self.declared[resource.uri] != resource:
                raise CodegenError(f"Two resources have the URI {resource.uri!r}.", hint="Give each resource its own URI.")
            self.declared[resource.uri] = resource
        self.surface_changed()
        return self

    def allow_abilities(self, patterns: Iterable[str]) -> App:
        """Grant abilities to the app's own frontend."""
        self.frontend_grant.extend(patterns)
        self.surface_changed()
        return self

    def mcp(self, config: Mcp) -> App:
        """Make the app an MCP server with this agent grant."""
        old = self.mcp_config
        if old is not None and old is not config and self.surface_changed in old._apps:
            old._apps.remove(self.surface_changed)
        if self.surface_changed not in config._apps:
            config._apps.append(self.surface_changed)
        self.mcp_config = config
        self.surface_changed()
        return self

    # --- the surface: what the app shows, and who hears that it changed ---

    def surface_changed(self) -> None:
        """Say that what the app shows may have changed: its commands, or what its grants allow.

        rata calls it when commands, prompts or resources are registered and when a grant changes through `allow_abilities`,
        `mcp`, `Mcp.allow_abilities`, `Mcp.confirm` or `Mcp.rate_limit`. Call it yourself after
        changing what rata cannot see (a grant replaced whole, a command's spec edited): each MCP
        server of the app then lists its tools, resources and prompts again and tells its clients which lists
        changed (`rata.mcp.app_server.AppServer.refresh`). Cheap: no listener, no work."""
        if self.mcp_config is not None:
            self.mcp_config._memo = {}
        for listener in self._surface_listeners:
            try:
                listener()
            except Exception:  # noqa: BLE001 - a broken listener never breaks the code that changed the app
                log.exception("a listener of %s's surface failed", self.name)

    def on_surface_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` on every `surface_changed`; returns the function that stops it."""
        with self._surface_lock:
            self._surface_listeners = [*self._surface_listeners, listener]

        def stop() -> None:
            with self._surface_lock:
                self._surface_listeners = [each for each in self._surface_listeners if each is not listener]

        return stop

    def use(self, middleware: Middleware) -> App:
        """Add a middleware; the first added runs outermost."""
        self.middleware.append(middleware)
        return self

    def on(self, event_type: type, listener: Callable[[Any], None]) -> App:
        """Call `listener(event)` for every event of this type (e.g. `rata.events.AgentCalled`)."""
        self.events.on(event_type, listener)
        return self

    def subscribe(self, channel: str, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Hear every message published on a channel (e.g. ``"rata:mcp"``); returns an unsubscribe function."""
        return self.events.subscribe(channel, listener)

    # --- reading ---

    def spec(self, name: str) -> CommandSpec:
        try:
            return self.specs[name]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(name, list(self.specs), n=1)
            raise UnknownCommandError(
                f"There is no command named {name!r}.",
                hint=f"Did you mean {close[0]!r}?" if close else f"Known commands: {', '.join(sorted(self.specs)) or 'none'}.",
            ) from None

    def agent_access(self, spec: CommandSpec) -> str | None:
        """How agents may call this command: ``"allow"``, ``"confirm"`` or None (not a tool)."""
        return self.mcp_config.access(spec.can) if self.mcp_config is not None else None

    @property
    def folder(self) -> AppFolder:
        """The app's data folder (see `rata.folder`): set explicitly, else from RATA_HOME or the platform."""
        if self._folder is not None:
            return self._folder
        home = os.environ.get("RATA_HOME")
        cached = self._default_folder
        if cached is None or cached[0] != home:  # follows RATA_HOME, built once per value (bench/run.py --only server)
            cached = (home, AppFolder(default_location(self.identifier)))
            self._default_folder = cached
        return cached[1]

    @folder.setter
    def folder(self, folder: AppFolder | str | Path | None) -> None:
        """Set the folder explicitly; None goes back to RATA_HOME or the platform default."""
        if isinstance(folder, AppFolder) or folder is None:
            self._folder = folder
        else:
            self._folder = AppFolder(folder)

    @property
    def root(self) -> Path:
        """The app's source folder (its migrations, frontend, ...): given, or the folder of the module that made the App."""
        root = self._root
        if isinstance(root, str):  # a Path on first use: a server that never needs it skips pathlib (bench/run.py --only server, cold start)
            from pathlib import Path

            root = self._root = Path(root)
        return root

    @root.setter
    def root(self, root: str | Path) -> None:
        self._root = os.fspath(root)

    @property
    def migrations_dir(self) -> Path:
        return self.root / "migrations"

    @property
    def migrations_where(self) -> str:
        """`migrations_dir` as a string, made without pathlib (a server's start-up path: `rata.upgrade.on_start`)."""
        return os.path.join(os.fspath(self._root), "migrations")

    def database(self) -> sqlite3.Connection:
        """This thread's connection to the app's SQLite database."""
        return self._database.connection()

    def unit_of_work(self) -> UnitOfWork:
        """One call's transaction on the app's database, for a ``with`` block (see `rata.db.UnitOfWork`)."""
        return UnitOfWork(self._database)

    def track_tables(self, tracker: Tracker | None) -> None:
        """Report this thread's table reads and writes to `tracker` (None to stop)."""
        self._database.track(tracker)

    def close(self) -> None:
        """Close this thread's database connection."""
        self._database.close()

    def migrate(self) -> Any:
        """Apply pending migrations under the folder's lock, after keeping a copy of the data (`rata.upgrade.upgrade`); returns a `MigrateReport`."""
        from rata.upgrade import upgrade

        report = upgrade(self)
        self.database_problem = None
        return report

    # --- calling ---

    def dispatch(self, request: CommandRequest) -> Any:
        """Run one command through grants, middleware, validation; return its JSON result."""
        spec = self.specs.get(request.command) or self.spec(request.command)
        self._authorize(spec, request)
        if not self.middleware:  # no second grant check in _invoke (bench/run.py --only server)
            return self._run(spec, request)
        return self.through_middleware(request, self._invoke)

    def through_middleware(self, request: CommandRequest, innermost: Callable[[CommandRequest], Any]) -> Any:
        """`innermost(request)` behind the app's middleware, the first added outermost: how a command, a resource's
        function (`run_function`) and a prompt (`rata.prompts`) are each run."""
        handler = innermost
        for middleware in reversed(self.middleware):
            handler = _wrap(middleware, handler)
        return handler(request)

    def call(self, name: str, /, **args: Any) -> Any:
        """Dispatch `name` with keyword arguments as the app itself (no grant applies)."""
        return self.dispatch(CommandRequest(name, args, Origin.internal()))

    def _authorize(self, spec: CommandSpec, request: CommandRequest) -> None:
        origin = request.origin
        if origin.kind == "internal":
            return
        if origin.kind == "agent":
            # agent_access inlined, one call less per tools/call (bench/run.py --only server)
            access = self.mcp_config.access(spec.can) if self.mcp_config is not None else None
            if access is None:
                raise ForbiddenError(
                    f"The command {spec.name!r} is not available to agents.",
                    hint="Grant its ability with Mcp().allow_abilities([...]) if agents should call it."
                    if spec.can
                    else "It has no ability (can=...); commands without one are never tools.",
                )
            if access == CONFIRM and not request.confirmed:
                raise ConfirmationRequiredError(
                    f"The command {spec.name!r} needs the user's confirmation before an agent may run it.",
                    hint="The MCP server asks the user; dispatch it with confirmed=True once they agree.",
                )
            return
        if spec.can is not None and not self.frontend_grant.allows(spec.can):
            raise ForbiddenError(
                f"The frontend is not granted {spec.can!r}, which {spec.name!r} needs.",
                hint="Add it with App.allow_abilities([...]).",
            )

    def arguments(self, spec: CommandSpec, args: Any) -> dict[str, Any]:
        """The command's keyword arguments from JSON `args`; raises `ValidationErrors`."""
        # hot path: bench/run.py --only server (throughput): each spec's fields read once, not per call
        cached = self._fields.get(spec.name)
        if cached is None or cached[0] is not spec:  # read once per spec object (bench/run.py --only server)
            cached = self._fields[spec.name] = (spec, [(p.name, p.node, p.required) for p in spec.params])
        try:
            return from_json_fields(cached[1], args)
        except Invalid as invalid:
            raise ValidationErrors(invalid.errors) from None

    def _invoke(self, request: CommandRequest) -> Any:
        """The innermost handler, behind the middleware."""
        spec = self.spec(request.command)
        self._authorize(spec, request)  # again: a middleware may have handed on a different request
        return self._run(spec, request)

    def run_function(self, spec: CommandSpec, request: CommandRequest) -> Any:
        """Run a function that is not a command (a resource's, `rata.resources`) as dispatch runs one: its grant, the
        middleware, its arguments' check, its unit of work and `Ctx`; the value it returned, unconverted."""
        self._authorize(spec, request)

        def innermost(request: CommandRequest) -> Any:
            self._authorize(spec, request)
            return self._execute(spec, request)

        return self.through_middleware(request, innermost)

    def _execute(self, spec: CommandSpec, request: CommandRequest) -> Any:
        if self.database_problem is not None:
            self._refuse_call()
        sync_logging()  # a logging configuration waiting for `logging` applies before the command can log
        kwargs = self.arguments(spec, request.args)
        with UnitOfWork(self._database) as work:
            if spec.ctx_param is not None:
                kwargs[spec.ctx_param] = Ctx(self, request, work)
            value = spec.fn(**kwargs)
            if spec.is_async or (type(value) not in _NEVER_AWAITED and inspect.isawaitable(value)):
                value = _run_coroutine(value)
        if spec.live and work.used:
            self.live.record_reads(spec.name, work.tables.reads)
        if work.changed:
            self.live.changed(work.changed)
        return value

    def _refuse_call(self) -> None:
        from rata.upgrade import refusal

        error = refusal(self)
        if error is not None:
            raise error

    def _run(self, spec: CommandSpec, request: CommandRequest) -> Any:
        value = self._execute(spec, request)
        try:
            return to_json(spec.returns, value)
        except Mismatch as mismatch:
            if mismatch.hint is not None:  # content parts that cannot be sent (rata.content)
                log.warning("The command %s returned %s. %s", spec.name, mismatch, mismatch.hint)
                raise ResultError(f"The command {spec.name!r} returned {mismatch}.", hint=mismatch.hint) from None
            raise ResultError(
                f"The command {spec.name!r} returned a value that does not match its return type: {mismatch}.",
                hint="Fix the command or its return annotation.",
            ) from None


_NEVER_AWAITED = frozenset({list, dict, tuple, str, int, float, bool, type(None)})
"""What most commands return, and no awaitable is: `inspect.isawaitable` (an ABC check) is skipped for these (bench/run.py --only server)."""


def _each(fns: tuple[Callable[..., Any] | Iterable[Callable[..., Any]], ...]) -> Iterable[Callable[..., Any]]:
    """The functions given to `App.commands` or `App.prompts`: each one, a list or tuple of them opened."""
    for item in fns:
        if isinstance(item, (list, tuple)):
            yield from item
        else:
            yield cast("Callable[..., Any]", item)  # any other iterable is registered as it is, and refused there as not a function


def _register(specs: dict[str, Any], spec: Any, kind: str) -> None:
    """Add `spec` (a command's or a prompt's) under its name; another function of that name is a `CodegenError`."""
    known = specs.get(spec.name)
    if known is not None and known.fn is not spec.fn:
        raise CodegenError(f"Two {kind}s are named {spec.name!r}: {known.qualname} and {spec.qualname}.", hint=f"Rename one, or pass name=... to @{kind}.")
    specs[spec.name] = spec


def _wrap(middleware: Middleware, inner: Callable[[CommandRequest], Any]) -> Callable[[CommandRequest], Any]:
    return lambda request: middleware(request, inner)


def _run_coroutine(coroutine: Any) -> Any:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(coroutine))
    raise RuntimeError("app.dispatch() runs async commands on its own loop; call it from a worker thread, not from inside a running event loop")


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _caller_dir() -> str:
    """The folder of the module that constructed the App (two frames up)."""
    here = inspect.currentframe()
    frame = here.f_back.f_back if here is not None and here.f_back is not None else None
    filename = frame.f_globals.get("__file__") if frame is not None else None
    return os.path.dirname(os.path.realpath(filename)) if filename else os.getcwd()
