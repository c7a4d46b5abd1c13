"""The tools of `rata mcp dev`, written as rata commands of a small app of their own.

Every tool is read-only (``readOnlyHint``) and bounded, and says what is missing instead of
failing: no database yet, no logs yet, no docs. They look at the *target* app, the project
the coding agent works on (`rata.dev_server.target.Target`), never at this app's own folder.
The schemas agents see come from rata's own codegen, like any app's.

Adding a dev tool is one command declaration: an ``@command(can=ABILITY, read_only=True)``
function here (or ``windows.ABILITY`` in `rata.dev_server.windows`). The server lists what the
modules declare (`dev_commands`), its instructions name every tool (`instructions`), a result
shown as text or a picture says so where it is declared (``@command(present=...)``), and
`rata mcp install --dev` lints every name (`tool_names`).
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal, TypedDict, cast

from rata import __version__
from rata.app import App, Mcp
from rata.command_spec import CommandSpec, command, command_options
from rata.context import Ctx
from rata.dev_server import budget, database, database_answer, docs_answer, info_answer, logreader, logs_answer, schema_answer
from rata.dev_server.devapp import DevApp, dev_app_of, target
from rata.dev_server.docs_answer import DocsAnswer
from rata.dev_server.docs_index import DocsIndex, rata_docs_dir
from rata.dev_server.logs_answer import LastError, LogEntries
from rata.dev_server.target import Target
from rata.errors import RataError
from rata.typemodel import Field

ABILITY = "dev.read"
Level = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


_DEFAULTS: dict[str, Any] = {"note": ""}


def _new(kind: Any, *values: Any, **named: Any) -> Any:
    """A result dict of TypedDict `kind`: positional values in field order, then keywords, then defaults."""
    fields = list(kind.__annotations__)
    out = dict(zip(fields, values, strict=False))
    out.update(named)
    for name in fields:
        if name not in out:
            default = _DEFAULTS[name]
            out[name] = list(default) if isinstance(default, list) else default
    return {name: out[name] for name in fields}


# --- app_info -----------------------------------------------------------------------------------


class Dependency(TypedDict):
    """A dependency from the project's pyproject.toml and what is installed."""

    name: str
    required: str
    installed: str | None


class AppInfo(TypedDict):
    """The app, where its things are, and what it is built with."""

    name: str
    identifier: str
    version: str
    rata_version: str
    python_version: str
    project: str | None
    folder: str
    database: str
    database_exists: bool
    logs: str
    log_files: list[str]
    migrations: str
    commands: int
    tools: int
    resources: int
    dependencies: list[Dependency]
    note: str


@command(can=ABILITY, read_only=True, text=info_answer.app_info_text)
def app_info(ctx: Ctx) -> AppInfo:
    """The app's name, identifier and version; rata and Python versions; its folder, database, logs and migrations paths; the project's dependencies with
    installed versions; counts of commands, tools and resources."""
    from rata.codegen.catalog import build_catalog

    loaded = target(ctx).loaded()
    app = loaded.app
    catalog = build_catalog(app)
    folder = app.folder
    logs = sorted(p.name for p in folder.logs.glob("*.log*")) if folder.logs.is_dir() else []
    notes = []
    if not folder.database.exists():
        notes.append(f"No database yet at {folder.database}: create it with `rata migrate`.")
    if not logs:
        notes.append("No log files yet: the app writes them when it runs (for example `rata mcp serve` in this project).")
    return _new(
        AppInfo,
        name=app.name,
        identifier=app.identifier,
        version=app.version,
        rata_version=__version__,
        python_version=sys.version.split()[0],
        project=str(loaded.project) if loaded.project else None,
        folder=str(folder.path),
        database=str(folder.database),
        database_exists=folder.database.exists(),
        logs=str(folder.logs),
        log_files=logs,
        migrations=str(app.migrations_dir),
        commands=len(catalog.commands),
        tools=len(catalog.tools),
        resources=len(catalog.resources),
        dependencies=_dependencies(loaded.project),
        note=" ".join(notes),
    )


def _dependencies(project: Path | None) -> list[Dependency]:
    if project is None or not (project / "pyproject.toml").is_file():
        return []
    import importlib.metadata
    import tomllib

    try:
        data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    out = []
    for requirement in data.get("project", {}).get("dependencies", []) or []:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", str(requirement))
        if not match:
            continue
        try:
            installed: str | None = importlib.metadata.version(match.group(1))
        except importlib.metadata.PackageNotFoundError:
            installed = None
        out.append(_new(Dependency, match.group(1), str(requirement), installed))
    return out


# --- database -----------------------------------------------------------------------------------


class Column(TypedDict):
    name: str
    type: str
    nullable: bool
    default: str | None
    primaryKey: bool


class Index(TypedDict):
    name: str
    unique: bool
    columns: list[str]


class ForeignKey(TypedDict):
    column: str
    references: str
    onDelete: str
    onUpdate: str


class Table(TypedDict):
    """A table, its row count, columns, indexes and foreign keys."""

    name: str
    rows: int
    columns: list[Column]
    indexes: list[Index]
    foreignKeys: list[ForeignKey]


class TableCount(TypedDict):
    """A table and its row count (`summary`)."""

    name: str
    rows: int


class View(TypedDict):
    name: str
    sql: str | None


class Trigger(TypedDict):
    name: str
    table: str
    sql: str | None


class DatabaseSchema(TypedDict):
    """Tables (columns, indexes, foreign keys, row counts), views and triggers by name, within the token budget."""

    database: str
    exists: bool
    tables: list[Table | TableCount]
    views: list[View]
    triggers: list[Trigger]
    next_after: str | None
    note: str


def _no_database(path: Path) -> str:
    return f"No database yet at {path}: create it with `rata migrate` (or the app's `--migrate`)."


@command(can=ABILITY, read_only=True, text=schema_answer.schema_text)
def database_schema(ctx: Ctx, summary: bool = False, filter: str = "", after: str = "", budget_tokens: budget.BudgetTokens | None = None) -> DatabaseSchema:
    """The app's SQLite schema: tables with columns (type, nullability, default, primary key), indexes, foreign keys and row counts; views; triggers.

    Args:
        summary: Only table names and row counts.
        filter: Only tables (and their views/triggers) whose name contains this text.
        after: Only tables, views and triggers whose name sorts after this one (the answer's next_after, to get the next part).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    path = target(ctx).app().folder.database
    if not path.exists():
        return cast(DatabaseSchema, schema_answer.new_answer(path, False, note=_no_database(path)))  # built in its shape (test_shapes)
    return cast(DatabaseSchema, schema_answer.schema_answer(path, summary, filter, after, budget.budget_of(ctx, budget_tokens), budget_tokens))


Cell = str | int | float | None  # an SQLite value as `database.run_query` gives it: a blob is "<n bytes>"


class QueryAnswer(TypedDict):
    """Rows of a read-only query from an offset, within the token budget; the text a model reads is one table of them."""

    columns: list[str]
    rows: list[list[Cell]]
    row_count: int
    more_rows: bool
    next_offset: int | None
    elapsed_ms: float
    note: str


@command(can=ABILITY, read_only=True, text=database_answer.query_text)
def database_query(
    ctx: Ctx,
    sql: str,
    limit: Annotated[int, Field(ge=1, le=database.MAX_ROWS)] = database.DEFAULT_ROWS,
    offset: Annotated[int, Field(ge=0, le=database.MAX_OFFSET)] = 0,
    budget_tokens: budget.BudgetTokens | None = None,
) -> QueryAnswer:
    """Run one read-only SQL statement (SELECT, WITH ... SELECT, EXPLAIN, reading pragmas) on the app's database. Writes are refused by SQLite itself.

    Args:
        sql: One SQL statement.
        limit: The most rows to return; the answer says when there were more.
        offset: Skip this many rows of the statement's result first (the answer's next_offset, to get the next part).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    path = target(ctx).app().folder.database
    if not path.exists():
        return cast(QueryAnswer, database_answer.empty_answer(_no_database(path)))  # built in its shape (test_shapes)
    return cast(QueryAnswer, database_answer.query_answer(path, sql, limit, offset, budget.budget_of(ctx, budget_tokens), budget_tokens))


# --- migrations ---------------------------------------------------------------------------------


class MigrationState(TypedDict):
    version: int
    name: str
    state: Literal["applied", "pending", "changed", "missing"]
    applied_at: str | None


class MigrationReport(TypedDict):
    """Each migration by version: applied (when), pending, changed since applied, or applied but its file is gone; within the token budget."""

    migrations_dir: str
    database: str
    migrations: list[MigrationState]
    next_after: int | None
    note: str


@command(can=ABILITY, read_only=True, text=info_answer.migrations_text)
def migration_status(ctx: Ctx, after: int | None = None, budget_tokens: budget.BudgetTokens | None = None) -> MigrationReport:
    """Each migration of the app: applied (and when) or pending; applied ones whose file changed since (by checksum) or is gone.

    Args:
        after: Only migrations whose version is above this one (the answer's next_after, to get the next part).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    from rata.migrations import MigrationStatus, discover, status

    app = target(ctx).app()
    path, folder = app.folder.database, app.migrations_dir
    notes = []
    if not folder.is_dir():
        notes.append(f"No migrations folder at {folder}: add numbered .sql files there (0001_create_things.sql).")
    if path.exists():
        conn = database.connect_read_only(path)
        try:
            rows = status(conn, folder)
        finally:
            conn.close()
    else:
        rows = [MigrationStatus(m.version, m.name, "pending") for m in discover(folder)]
        notes.append(_no_database(path))
    states = [_new(MigrationState, r.version, r.name, r.state, r.applied_at) for r in rows]
    pending = sum(1 for s in states if s["state"] == "pending")
    if pending:
        notes.append(f"{pending} pending: apply with `rata migrate`.")
    if any(s["state"] == "changed" for s in states):
        notes.append("A changed migration is never run again: put the change in a new migration.")
    answer = info_answer.migration_answer(folder, path, states, notes, after, budget.budget_of(ctx, budget_tokens), budget_tokens)
    return cast(MigrationReport, answer)  # built in its shape (tests/dev_server/test_shapes.py)


# --- logs ---------------------------------------------------------------------------------------


@command(can=ABILITY, read_only=True, text=logs_answer.entries_text)
def read_log_entries(
    ctx: Ctx,
    limit: Annotated[int, Field(ge=1, le=500)] = 20,
    level: Level | None = None,
    logger: str = "",
    pattern: str = "",
    since: str = "",
    before: str = "",
    budget_tokens: budget.BudgetTokens | None = None,
) -> LogEntries:
    """The newest entries of the app's log (JSON lines, across rotated files), newest first, within the token budget.

    Args:
        limit: How many entries at most.
        level: Only entries at this level or worse.
        logger: Only entries whose logger name starts with this (e.g. "rata.mcp").
        pattern: Only entries whose message or traceback matches this Python regular expression (at most 1,000 characters; the search stops after 5 seconds).
        since: Only entries at or after this ISO 8601 time (e.g. 2026-07-28T09:00:00Z).
        before: Only entries older than this place in the log: the before of an earlier answer, to get the next part (it holds across new entries and rotation).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    app = target(ctx).app()
    moment, tokens = _since(since), budget.budget_of(ctx, budget_tokens)
    options = {"min_level": level, "logger": logger or None, "pattern": pattern or None, "since": moment, "before": before or None}
    scan = logreader.read_entries(app.folder.logs, app.name, limit=limit, token_room=tokens, **options)
    notes = []
    if not scan.files:
        notes.append(_no_log(app))
    elif scan.pattern_stopped:
        notes.append(
            f"Stopped early: {scan.pattern_stopped}; the entries found by then are shown. "
            "A pattern with nested or overlapping repeats, like (a|a)* or (.*)*, can take exponential time: "
            "write one without them, or narrow the search with level, logger or since."
        )
    elif scan.stopped_early:
        notes.append(f"Stopped after reading {scan.scanned_bytes // (1024 * 1024)} MiB of the log; older entries were not searched.")
    elif not scan.entries:
        notes.append("No entry matches." if not before else "No older entry matches.")
    notes.append(_skipped(scan))
    arguments = {"limit": limit, "level": level, "logger": logger or None, "pattern": pattern or None, "since": since or None, "budget_tokens": budget_tokens}
    return logs_answer.log_entries(scan, app.folder.logs, app.name, tokens, arguments, notes)


def _skipped(scan: logreader.Scan) -> str:
    """The note for lines that could not be read (a line being written, one not written by rata, or one longer than the bound)."""
    if not scan.unreadable_lines:
        return ""
    lines = "1 line" if scan.unreadable_lines == 1 else f"{scan.unreadable_lines} lines"
    return f"Skipped {lines} of the log that are not JSON objects or are longer than {logreader.MAX_LINE_BYTES // (1024 * 1024)} MiB."


def _no_log(app: App) -> str:
    return f"No log yet at {app.folder.logs / (app.name + '.log')}: the app writes it when it runs (for example `rata mcp serve` in this project)."


def _since(text: str) -> dt.datetime | None:
    if not text:
        return None
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        from rata.codegen.sanitize import clean_text

        raise RataError(f"since is not an ISO 8601 time: {clean_text(text[:100])!r}.", hint="Write e.g. 2026-07-28T09:00:00Z.") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


@command(can=ABILITY, read_only=True, text=logs_answer.error_text)
def last_error(ctx: Ctx) -> LastError:
    """The newest ERROR-or-worse entry of the app's log, with its time, logger, message and traceback (shortened inside if larger than the server's token
    budget)."""
    app = target(ctx).app()
    scan = logreader.read_entries(app.folder.logs, app.name, limit=1, min_level="ERROR")
    if scan.entries:
        note = ""
    elif not scan.files:
        note = _no_log(app)
    elif scan.stopped_early:
        note = f"No error in the last {scan.scanned_bytes // (1024 * 1024)} MiB of the log."
    else:
        note = "No errors in the log."
    return logs_answer.last_error(scan.entries[0] if scan.entries else None, note, budget.budget_of(ctx, None))


# --- commands and docs --------------------------------------------------------------------------


class CommandInfo(TypedDict):
    """One command of the app, tool or not."""

    name: str
    signature: str
    description: str
    ability: str | None
    live: bool
    read_only: bool
    agent: Literal["allow", "confirm"] | None


class CommandList(TypedDict):
    """The app's commands by name, within the token budget."""

    commands: list[CommandInfo]
    total: int
    next_after: str | None
    note: str


def command_line(info: CommandInfo) -> str:
    """One command as a model reads it: its signature, then ability, kind and agent access, then its description."""
    traits = [info["ability"] or "no ability (never a tool)"]
    traits += ["live"] * info["live"] + ["read-only"] * (info["read_only"] and not info["live"])
    traits.append(f"agents: {info['agent'] or 'not granted'}")
    description = f"\n  {info['description']}" if info["description"] else ""
    return f"{info['signature']}\n  {' · '.join(traits)}{description}"


def commands_text(answer: CommandList) -> str:
    shown = len(answer["commands"])
    head = f"{answer['total']} commands" if shown == answer["total"] else f"Commands {shown} of {answer['total']}"
    lines = [f"{head}, by name:", *(command_line(info) for info in answer["commands"])]
    return "\n".join(lines + ([answer["note"]] if answer["note"] else []))


@command(can=ABILITY, read_only=True, text=commands_text)
def list_commands(ctx: Ctx, after: str = "", budget_tokens: budget.BudgetTokens | None = None) -> CommandList:
    """Every command of the app, granted to agents or not, by name: signature, ability, live, read-only, agent access (allow, confirm or none) and description.

    Args:
        after: Only commands whose name sorts after this one (the answer's next_after, to get the next part).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    app = target(ctx).app()
    limit = budget.budget_of(ctx, budget_tokens)
    names = sorted(name for name in app.specs if name > after)
    infos = []
    for name in names:
        spec = app.specs[name]
        infos.append(_new(CommandInfo, name, _signature(spec), spec.description, spec.can, spec.live, spec.read_only, app.agent_access(spec)))
    empty = _new(CommandList, [], len(app.specs), None)
    fit = budget.Fit(limit, commands_text(empty), empty)
    shown = budget.take(infos, fit, command_line)
    if shown == 0 and infos:  # one command larger than the whole budget: its description shortened to fit
        first = dict(infos[0])
        first["description"] = budget.shorten(first["description"], max(200, fit.room() * 3 // 4 - len(first["signature"])))
        infos[0] = first
        shown = 1
    note, next_after = "", None
    if shown < len(infos):
        next_after = infos[shown - 1]["name"]
        arguments = {"after": next_after, "budget_tokens": budget_tokens}
        note = budget.cut_note(f"{shown} commands up to {next_after!r}", f"{len(infos) - shown} more", limit, "list_commands", arguments)
    elif after and not infos:
        note = f"No command sorts after {after!r}."
    return _new(CommandList, infos[:shown], len(app.specs), next_after, note)


def _signature(spec: Any) -> str:
    """The command as Python would write it: `customers_index(search: str = '', limit: int = 50) -> list[Customer]`."""
    params = []
    for p in spec.params:
        text = f"{p.name}: {python_type(p.node)}"
        if not p.required:
            text += f" = {p.default!r}"
        params.append(text)
    prefix = "async " if spec.is_async else ""
    return f"{prefix}{spec.name}({', '.join(params)}) -> {python_type(spec.returns)}"


def python_type(node: Any) -> str:
    """A type node written as a Python annotation."""
    from rata import typemodel as t

    if isinstance(node, t.AnnotatedNode):
        return python_type(node.inner)
    if isinstance(node, t.Scalar):
        return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}[node.kind]
    if isinstance(node, t.Special):
        return node.type.signature
    if isinstance(node, t.ListNode):
        container = {list: "list", set: "set", frozenset: "frozenset", tuple: "tuple"}.get(node.container, "list")
        return f"{container}[{python_type(node.item)}{', ...' if container == 'tuple' else ''}]"
    if isinstance(node, t.TupleNode):
        return f"tuple[{', '.join(python_type(i) for i in node.items)}]"
    if isinstance(node, t.DictNode):
        return f"dict[{python_type(node.key) if node.key is not None else 'str'}, {python_type(node.value)}]"
    if isinstance(node, t.ObjectNode):
        return node.name
    if isinstance(node, t.EnumNode):
        return node.cls.__name__
    if isinstance(node, t.LiteralNode):
        return f"Literal[{', '.join(repr(v) for v in node.values)}]"
    if isinstance(node, t.UnionNode):
        return " | ".join(python_type(o) for o in node.options)
    return "Any"


@command(can=ABILITY, read_only=True, text=docs_answer.docs_text)
def search_docs(
    ctx: Ctx,
    queries: Annotated[list[str], Field(min_length=1, max_length=10)],
    skip: Annotated[int, Field(ge=0)] = 0,
    budget_tokens: budget.BudgetTokens | None = None,
) -> DocsAnswer:
    """Full-text search (BM25) over the project's docs/ and the installed rata's docs; ranked sections with heading, path#anchor, score and snippet.

    Args:
        queries: One or more searches, e.g. ["live queries", "confirm delete"].
        skip: Hits already shown (the answer's next_skip, to get the next part); the ranking is the same for the same docs and queries.
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default 2,000, or the server's budget when that is smaller). What does
            not fit is left for the next call, which the answer names.
    """
    index = _index(ctx)
    if not index.roots:
        return DocsAnswer(hits=[], skip=skip, total=0, next_skip=None, sources=[], note="No docs found: add Markdown files under docs/ in the project.")
    limit = budget_tokens if budget_tokens is not None else min(docs_answer.DEFAULT_TOKENS, budget.budget_of(ctx, None))
    return docs_answer.answer(index, queries, skip, limit, budget_tokens)


def _index(ctx: Ctx) -> DocsIndex:
    project = target(ctx).project
    roots: list[tuple[str, Path]] = []
    if project is not None and (project / "docs").is_dir():
        roots.append(("project", project / "docs"))
    shipped = rata_docs_dir()
    if shipped is not None and not (project is not None and shipped.resolve() == (project / "docs").resolve()):
        roots.append(("rata", shipped))
    cache = dev_app_of(ctx).docs_indexes
    key = tuple((label, str(root)) for label, root in roots)
    if key not in cache:
        cache[key] = DocsIndex(roots, shown={"project": "docs"})
    return cache[key]


def declared(module: ModuleType) -> list[Callable[..., Any]]:
    """The commands `module` declares, in the order it declares them."""
    return [value for value in list(vars(module).values()) if callable(value) and command_options(value) is not None]


def dev_commands() -> list[Callable[..., Any]]:
    """Every dev tool: the commands of this module, then those of `rata.dev_server.windows`."""
    from rata.dev_server import windows

    return declared(sys.modules[__name__]) + declared(windows)


def instructions(specs: Iterable[CommandSpec]) -> str:
    """The server's instructions, naming every tool in `specs` by what it may do (its ability)."""
    from rata.dev_server import windows

    specs = list(specs)
    reads = [spec.name for spec in specs if spec.can == ABILITY]
    sees = [spec.name for spec in specs if spec.can == windows.ABILITY]
    acts = [spec.name for spec in specs if spec.can == windows.ACT_ABILITY]
    act = f"{' and '.join(acts)}, which {'acts' if len(acts) == 1 else 'act'} as the developer would, with their data"
    return (
        f"Tools for the rata app in this project, none of which changes anything: {_listed(reads)}. "
        f"When the developer runs the debug build (`rata dev`), you can also see and use its windows: {', '.join(sees)}, and {act}. "
        "Use them instead of asking the developer."
    )


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def dev_app(target_project: Target, budget_tokens: int = budget.DEFAULT_TOKENS) -> DevApp:
    """The dev server's own app: every dev tool (`dev_commands`), all granted, no rate limit, no result limit
    (each tool keeps its answer within `budget_tokens`, the server's token budget, `rata.dev_server.budget`)."""
    from rata.dev_server import windows

    app = DevApp(target_project, budget.checked(budget_tokens))
    app.commands(*dev_commands())
    app.mcp(
        Mcp(instructions=instructions(app.specs.values())).allow_abilities([ABILITY, windows.ABILITY, windows.ACT_ABILITY]).rate_limit(None).result_limit(None)
    )
    return app


def tool_names() -> list[str]:
    """The name of every dev tool, as `rata mcp dev` lists them (for `rata mcp install --dev`'s lint)."""
    return list(dev_app(Target(None, Path.cwd())).specs)
