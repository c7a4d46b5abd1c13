"""`@command` and the spec rata reads from a command function.

    @command(can="customers.create")
    def customers_store(ctx: Ctx, name: str, email: str) -> Customer:
        '''Add a customer.

        Args:
            name: Full name.
            email: Email address; must be unique.
        '''

The decorator only records its options; the function stays a plain function. The app reads
each command once, when it is registered (`inspect_command`), into a `CommandSpec`: its
name, ability, description, parameters and result as type nodes. A signature rata cannot
turn into a tool fails there, with a `CodegenError` naming the command and parameter.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, overload

from rata._record import Record
from rata.abilities import validate_ability
from rata.docstrings import Docstring, parse_docstring
from rata.errors import CodegenError
from rata.typemodel import Analyzer, Node, Scalar, resolve_hints

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.completion import Completer

F = TypeVar("F", bound=Callable[..., Any])
NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
"""What a command (tool) name is made of, 1 to 128 of them."""
_ATTR = "__rata_command__"
Presenter = Callable[[Any], dict[str, Any]]
"""Shows a command's result as a ``tools/call`` result of its own (text, an image): ``value -> result``."""


class CommandOptions(Record):
    """What `@command(...)` was given."""

    __slots__ = ("can", "live", "read_only", "name", "confirm_message", "present", "text", "complete")
    _defaults: ClassVar[dict[str, Any]] = {
        "can": None, "live": False, "read_only": False, "name": None, "confirm_message": None, "present": None, "text": None, "complete": None,
    }
    can: str | None
    live: bool
    read_only: bool
    name: str | None
    confirm_message: str | Callable[..., str] | None
    present: Presenter | None
    text: Callable[[Any], str] | None
    complete: dict[str, Completer] | None


@overload
def command(fn: F, /) -> F: ...
@overload
def command(
    *,
    can: str | None = None,
    live: bool = False,
    read_only: bool = False,
    name: str | None = None,
    confirm_message: str | Callable[..., str] | None = None,
    present: Presenter | None = None,
    text: Callable[[Any], str] | None = None,
    complete: dict[str, Completer] | None = None,
) -> Callable[[F], F]: ...


def command(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    can: str | None = None,
    live: bool = False,
    read_only: bool = False,
    name: str | None = None,
    confirm_message: str | Callable[..., str] | None = None,
    present: Presenter | None = None,
    text: Callable[[Any], str] | None = None,
    complete: dict[str, Completer] | None = None,
) -> Any:
    """Mark a function as a rata command.

    Args:
        can: The ability that gates it, e.g. ``"customers.create"``. Without one the command is
            never a tool, whatever the agent grant says.
        live: A query whose result the frontend keeps fresh; live commands are read-only.
        read_only: The command changes nothing (live implies it); agents see ``readOnlyHint``.
        name: The command's name, if not the function's.
        confirm_message: What the user is asked when an agent's call needs confirmation: a
            format string over the arguments (``"Delete customer #{id}?"``) or a function
            ``(ctx, **args) -> str``. Default: the description and the arguments.
        present: How an agent sees the result, ``value -> tools/call result`` (text, an image),
            instead of structured JSON; the tool then lists no outputSchema.
        text: The text a model reads, ``value -> str`` (a table, one line per record), sent as the result's
            text block in place of the JSON text; ``structuredContent`` still carries the JSON, for clients
            that read it. Make it carry the same facts: a client that reads only the text must lose nothing.
        complete: Completions of an argument's value as the user types it (``completion/complete``, for a
            resource template's parameters): ``{"param": fn}``, fn taking any of ``ctx``, ``value``,
            ``arguments`` by name and returning strings (`rata.completion`).
    """
    options = CommandOptions(
        can=can, live=live, read_only=read_only or live, name=name, confirm_message=confirm_message, present=present, text=text, complete=complete
    )

    mark = marker("@command", _ATTR, options)
    return mark(fn) if fn is not None else mark


def marker(decorator: str, attribute: str, options: Any) -> Callable[[F], F]:
    """What a decorator such as `@command` applies: it records `options` on the function, which stays a plain function."""

    def mark(function: F) -> F:
        if not callable(function):
            raise CodegenError(f"{decorator} was applied to {function!r}, which is not a function.")
        setattr(function, attribute, options)
        return function

    return mark


def command_options(fn: Any) -> CommandOptions | None:
    """The options `@command` recorded on `fn`, or None if it is not a command."""
    return getattr(fn, _ATTR, None)


class ParamSpec(Record):
    """One parameter of a command, as the schema and dispatch see it."""

    __slots__ = ("name", "node", "required", "default", "description")
    name: str
    node: Node
    required: bool
    default: Any
    description: str


class CommandSpec(Record):
    """Everything rata knows about one command."""

    __slots__ = (
        "name", "fn", "can", "live", "read_only", "description", "params", "returns", "ctx_param", "is_async", "confirm_message", "present", "text",
        "complete",
    )  # fmt: skip
    _defaults: ClassVar[dict[str, Any]] = {"confirm_message": None, "present": None, "text": None, "complete": None}
    name: str
    fn: Callable[..., Any]
    can: str | None
    live: bool
    read_only: bool
    description: str
    params: tuple[ParamSpec, ...]
    returns: Node
    ctx_param: str | None
    is_async: bool
    confirm_message: str | Callable[..., str] | None
    present: Presenter | None
    text: Callable[[Any], str] | None
    """how a model reads the result (`@command(text=...)`), or None for its JSON"""
    complete: dict[str, Completer] | None
    """param -> its completer, checked (`rata.completion.completers`)"""

    @property
    def returns_nothing(self) -> bool:
        return isinstance(self.returns, Scalar) and self.returns.kind == "null"

    @property
    def has_required_params(self) -> bool:
        return any(p.required for p in self.params)

    @property
    def qualname(self) -> str:
        return f"{self.fn.__module__}.{self.fn.__qualname__}"


def inspect_command(
    fn: Callable[..., Any], analyzer: Analyzer, ctx_type: type, options: CommandOptions | None = None, returns: Node | None = None
) -> CommandSpec:
    """Read a decorated function into a `CommandSpec`, or raise `CodegenError`.

    `options`: instead of what `@command` recorded (a resource's function, `rata.resources`);
    `returns`: its result's type, checked by the caller, instead of the return annotation's."""
    options = options if options is not None else command_options(fn)
    label = getattr(fn, "__qualname__", repr(fn))
    if options is None:
        raise CodegenError(
            f"{label} is not a rata command.",
            hint="Decorate it with @rata.command (add can=... to make it reachable by agents).",
        )
    name = options.name or fn.__name__
    where = f"command {name!r}"
    if not (isinstance(name, str) and 0 < len(name) <= 128 and NAME_CHARACTERS.issuperset(name)):
        raise CodegenError(
            f"{where}: the name is not a valid tool name.",
            hint="Use 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'.",
        )
    can = validate_ability(options.can, where) if options.can is not None else None
    if options.text is not None and (options.present is not None or not callable(options.text)):
        raise CodegenError(
            f"{where}: text= must be a function value -> str" + (", and present= replaces the whole result, text too." if options.present else "."),
            hint="Give text= (the text beside the JSON) or present= (content of its own), not both."
            if options.present
            else "Pass a function, e.g. text=render.",
        )
    hints = resolve_hints(fn, where)
    doc, params, ctx_param = read_params(fn, hints, analyzer, ctx_type, where)
    if returns is None and "return" not in hints:
        raise CodegenError(
            f"{where}: the function has no return type.",
            hint="Annotate it (`-> None` if it returns nothing) so agents know what comes back.",
        )
    if returns is None:
        returns = analyzer.analyze_result(hints["return"], f"{where}, return type")
    return CommandSpec(
        name=name,
        fn=fn,
        can=can,
        live=options.live,
        read_only=options.read_only,
        description=doc.description,
        params=tuple(params),
        returns=returns,
        ctx_param=ctx_param,
        is_async=inspect.iscoroutinefunction(fn),
        confirm_message=options.confirm_message,
        present=options.present,
        text=options.text,
        complete=_completers(options.complete, params, where),
    )


def read_params(fn: Callable[..., Any], hints: dict[str, Any], analyzer: Analyzer, ctx_type: type, where: str) -> tuple[Docstring, list[ParamSpec], str | None]:
    """A function's docstring, its parameters as `ParamSpec`s (described by the docstring's ``Args:``), and the
    name of its `Ctx` parameter, if any: how a command's (and a prompt's, `rata.prompts`) signature is read."""
    doc = parse_docstring(inspect.getdoc(fn))
    signature = inspect.signature(fn)
    params: list[ParamSpec] = []
    ctx_param: str | None = None
    for param in signature.parameters.values():
        pwhere = f"{where}, parameter {param.name!r}"
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            star = "*" if param.kind is param.VAR_POSITIONAL else "**"
            raise CodegenError(
                f"{pwhere}: {star}{param.name} cannot be a tool argument.",
                hint="Name each argument, with its type, so the schema can list it.",
            )
        if param.kind is param.POSITIONAL_ONLY:
            raise CodegenError(
                f"{pwhere}: positional-only parameters cannot be passed by name.",
                hint="Remove the '/' from the signature.",
            )
        hint = hints.get(param.name, inspect.Parameter.empty)
        if hint is ctx_type:
            ctx_param = param.name
            continue
        if hint is inspect.Parameter.empty:
            raise CodegenError(f"{pwhere}: the parameter has no type hint.", hint=f"Annotate it, e.g. `{param.name}: str`.")
        node = analyzer.analyze(hint, pwhere)
        required = param.default is inspect.Parameter.empty
        params.append(
            ParamSpec(
                name=param.name,
                node=node,
                required=required,
                default=None if required else param.default,
                description=doc.params.get(param.name, ""),
            )
        )
    return doc, params, ctx_param


def _completers(complete: Any, params: list[ParamSpec], where: str) -> dict[str, Completer] | None:
    """`rata.completion.completers`, imported only for a command that has ``complete=`` (most have none: start-up time)."""
    if complete is None:
        return None
    from rata.completion import completers

    return completers(complete, params, where)
