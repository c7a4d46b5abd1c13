"""Completions: the values an argument may take, offered while the user types it (``completion/complete``).

    def customer_ids(ctx: Ctx, value: str) -> list[str]:
        rows = ctx.db.execute("SELECT id FROM customers WHERE CAST(id AS TEXT) LIKE ? || '%' LIMIT 100", (value,))
        return [str(row[0]) for row in rows]

    @prompt(can="customers.view", complete={"customer_id": customer_ids})
    def follow_up(ctx: Ctx, customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str: ...

A completer (`complete={"param": fn}` on `@prompt` or `@command`) takes any of ``ctx`` (a `Ctx`
on a read-only unit of work, ``PRAGMA query_only``, rolled back: a completion changes nothing), ``value`` (what the user
typed so far) and ``arguments`` (the other arguments, as the text the client holds), by name,
and returns an iterable of strings; it does its own matching. A ``Literal`` or ``Enum``
parameter without one completes by itself: its values that start with ``value``, those that
match its case first, then those that match ignoring case.

What a completer gives is read no further than `MAX_SCAN` items (a generator that never ends
stops there), each value cleaned to one line of at most `MAX_VALUE_CHARS`; `MAX_VALUES` are
sent, with ``total`` (when the iteration ended) and ``hasMore``. A completer that fails, or
gives something that is not a string, is logged (naming it and the fix) and completes nothing:
a completion is a convenience, so the user's typing is never interrupted by an error.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Callable, Iterable
from typing import Any, cast

from rata.cleantext import clean_line
from rata.errors import CodegenError
from rata.logs import LazyLogger
from rata.typemodel import AnnotatedNode, EnumNode, LiteralNode, UnionNode

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.dispatch import Origin
    from rata.typemodel import Node

log = LazyLogger("rata.completion")

Completer = Callable[..., Iterable[str]]
"""``fn(ctx=..., value=..., arguments=...) -> iterable of str``, any of the three by name."""
MAX_VALUES = 100
"""Values one completion sends (the protocol's limit)."""
MAX_SCAN = 10_000
"""Items read from what a completer returns; past it, ``total`` is unknown and ``hasMore`` is true."""
MAX_VALUE_CHARS = 1_000
"""Characters of one value; a longer one is cut."""
NAMES = ("ctx", "value", "arguments")
"""The parameters a completer may take."""


def completers(complete: Any, params: Iterable[Any], where: str) -> dict[str, Completer] | None:
    """`complete=` of a `@command` or `@prompt` whose parameters are `params` (`rata.command_spec.ParamSpec`), checked:
    a dict from parameter names to plain functions that take only ``ctx``, ``value`` and ``arguments`` by name.
    Raises `CodegenError`."""
    if complete is None:
        return None
    if not isinstance(complete, dict):
        raise CodegenError(f"{where}: complete= is {type(complete).__name__}, not a dict.", hint='Pass complete={"param": function}.')
    names = [param.name for param in params]
    checked: dict[str, Completer] = {}
    for name, fn in complete.items():
        if name not in names:
            raise CodegenError(
                f"{where}: complete= names {name!r}, which is not one of its parameters.",
                hint=f"Name a parameter: {', '.join(names) or 'it has none'}.",
            )
        label = f"{where}, completer of {name!r}"
        if not callable(fn):
            raise CodegenError(f"{label}: {fn!r} is not a function.", hint="Pass a function that returns a list of strings.")
        if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            raise CodegenError(f"{label}: {getattr(fn, '__name__', fn)} is async.", hint="Make it a plain function; it runs on a worker thread.")
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):
            raise CodegenError(f"{label}: its signature cannot be read.", hint="Pass a Python function.") from None
        for param in signature.parameters.values():
            if param.name not in NAMES or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
                raise CodegenError(
                    f"{label}: its parameter {param.name!r} is not one rata passes.",
                    hint="Take any of ctx, value and arguments, by name: def complete(ctx: Ctx, value: str, arguments: dict[str, str]).",
                )
        checked[name] = cast(Completer, fn)  # what it returns is checked each time it runs (`_run`)
    return checked


def choices(node: Node) -> list[str] | None:
    """The values of a ``Literal`` or ``Enum`` parameter as the client types them (a string as itself, others as JSON),
    or None for a type of no fixed values. An optional one (``Literal[...] | None``) has its values."""
    if isinstance(node, AnnotatedNode):
        return choices(node.inner)
    if isinstance(node, LiteralNode):
        values: Iterable[Any] = node.values
    elif isinstance(node, EnumNode):
        values = node.values
    elif isinstance(node, UnionNode):
        found = [choices(option) for option in node.options]
        if any(option is None and not _is_null(node_) for option, node_ in zip(found, node.options, strict=False)):
            return None
        return [value for option in found if option for value in option]
    else:
        return None
    return [value if isinstance(value, str) else json.dumps(value) for value in values]


def _is_null(node: Node) -> bool:
    return getattr(node, "kind", None) == "null"


def matching(values: Iterable[str], typed: str) -> list[str]:
    """The values that start with `typed`: those that match its case first, then those that match ignoring it."""
    values = list(values)
    exact = [value for value in values if value.startswith(typed)]
    folded = typed.casefold()
    loose = [value for value in values if not value.startswith(typed) and value.casefold().startswith(folded)]
    return exact + loose


def complete(app: Any, name: str, spec: Any, param: Any, value: str, arguments: dict[str, str], origin: Origin) -> dict[str, Any]:
    """The ``completion`` of ``completion/complete`` for `param` of `spec` (a command's or a prompt's, named `name`):
    ``{"values", "total"?, "hasMore"}``."""
    fn = (spec.complete or {}).get(param.name)
    if fn is None:
        fixed = choices(param.node)
        return bounded(matching(fixed, value) if fixed is not None else [], True)
    items, ended = _run(app, name, param.name, fn, value, arguments, origin)
    return bounded(items, ended)


def bounded(items: list[str], ended: bool) -> dict[str, Any]:
    """`items` (no repeats) cut at `MAX_VALUES`; ``total`` when they are all there were."""
    unique = list(dict.fromkeys(items))
    result: dict[str, Any] = {"values": unique[:MAX_VALUES]}
    if ended:
        result["total"] = len(unique)
    result["hasMore"] = len(unique) > MAX_VALUES or not ended
    return result


class _Rollback(Exception):
    """Leaves a completer's unit of work so that it rolls back."""


def _run(app: Any, name: str, param: str, fn: Completer, value: str, arguments: dict[str, str], origin: Origin) -> tuple[list[str], bool]:
    """What `fn` gives, read to `MAX_SCAN` items inside a unit of work that is rolled back, and whether it ended."""
    from rata.context import Ctx
    from rata.dispatch import CommandRequest

    wanted = inspect.signature(fn).parameters
    label = f"the completer of {name}.{param} ({getattr(fn, '__qualname__', fn)!r})"
    found: tuple[list[str], bool] = ([], True)
    try:
        with app.unit_of_work() as work:
            given = {"value": value, "arguments": dict(arguments)}
            if "ctx" not in wanted:
                found = _read(fn(**{key: given[key] for key in wanted}), label)
            else:
                given["ctx"] = Ctx(app, CommandRequest(name, {}, origin), work)
                connection = work.connection
                connection.execute("PRAGMA query_only = ON")  # a write fails (and is logged); the rollback undoes nothing then
                try:
                    found = _read(fn(**{key: given[key] for key in wanted}), label)
                finally:
                    connection.execute("PRAGMA query_only = OFF")
            raise _Rollback
    except _Rollback:
        return found
    except Exception:  # noqa: BLE001 - a completion is a convenience: the failure is logged, the user sees no values
        log.exception("%s failed; it completes nothing. Fix it so that it returns strings.", label)
        return [], True


def _read(returned: Any, label: str) -> tuple[list[str], bool]:
    if isinstance(returned, (str, bytes)) or not isinstance(returned, Iterable):
        raise TypeError(f"{label} returned {type(returned).__name__}, not an iterable of strings; return a list of str")
    items = list(itertools.islice(returned, MAX_SCAN + 1))
    values = []
    for item in items[:MAX_SCAN]:
        if not isinstance(item, str):
            raise TypeError(f"{label} gave {type(item).__name__} {item!r:.80}, not a string; convert each value with str()")
        cleaned = clean_line(item, MAX_VALUE_CHARS)
        if cleaned:
            values.append(cleaned)
    return values, len(items) <= MAX_SCAN
