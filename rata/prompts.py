"""`@prompt`: a message template the user picks in their client (``prompts/list``, ``prompts/get``).

    @prompt(can="customers.view", complete={"customer_id": customer_ids})
    def follow_up(ctx: Ctx, customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str:
        '''Draft a follow-up email to one customer.

        Args:
            customer_id: The customer to write to.
            tone: How the email should sound.
        '''
        customer = ctx.app.call("customers_show", id=customer_id)
        return f"Write a {tone} follow-up email to {customer['name']} about their last order."

    app.prompts(follow_up)

A prompt is read like a command (`rata.command_spec.read_params`: typed parameters described by
the docstring's ``Args:``, a `Ctx` parameter allowed) and runs like one (`get_prompt`: the grant,
deny by default; the app's middleware; the argument check, `rata.app.App.arguments`; a unit of
work; a `Ctx` that may ask the user). Its arguments arrive as text and become typed values on the
way (`rata.textargs`, in the MCP method). It returns the messages: a ``str`` (one user message),
one content part (`rata.Text`, `Image`, `Audio`, `EmbeddedResource`, `ResourceLink`), or a list of
str, parts and `PromptMessage` (a part or text with its role, ``"user"`` or ``"assistant"``).

What a prompt returns is text a model reads as the user's: its text is cleaned like every
text an agent is shown (`rata.cleantext.clean_text`) and its parts are checked and bounded
like a tool's (`rata.content`), at most `MAX_MESSAGES` messages. Anything else is a
`rata.errors.ResultError` naming the prompt and the fix.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from typing import Any, TypeVar, overload

from rata._record import Record
from rata.abilities import validate_ability
from rata.cleantext import clean_line, clean_text
from rata.command_spec import NAME_CHARACTERS, ParamSpec, marker, read_params
from rata.completion import Completer, completers
from rata.content import MAX_PARTS, EmbeddedResource, PartError, Text, _Budget, _Part, part_json
from rata.errors import CodegenError, ForbiddenError, ResultError
from rata.typemodel import Analyzer, resolve_hints

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.dispatch import CommandRequest

F = TypeVar("F", bound=Callable[..., Any])
_ATTR = "__rata_prompt__"
ROLES = ("user", "assistant")
MAX_MESSAGES = MAX_PARTS
"""The most messages one prompt may return (each holds one content part)."""
MAX_TITLE = 200
"""Characters of a prompt's title."""


@overload
def prompt(fn: F, /) -> F: ...
@overload
def prompt(
    *, can: str | None = None, name: str | None = None, title: str | None = None, complete: dict[str, Completer] | None = None
) -> Callable[[F], F]: ...


def prompt(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    can: str | None = None,
    name: str | None = None,
    title: str | None = None,
    complete: dict[str, Completer] | None = None,
) -> Any:
    """Mark a function as a prompt; register it with `App.prompts`.

    Args:
        can: The ability that gates it. Without one, or not granted to agents (`Mcp`), the prompt
            is never listed and getting it is "unknown prompt". A prompt granted only with
            confirmation is served: the user picks a prompt themselves.
        name: The prompt's name, if not the function's.
        title: A name for people, shown in the client's menu.
        complete: Completions of an argument as the user types it: ``{"param": fn}`` (`rata.completion`).
    """
    mark = marker("@prompt", _ATTR, {"can": can, "name": name, "title": title, "complete": complete})
    return mark(fn) if fn is not None else mark


class PromptMessage:
    """One message of a prompt: a text or a content part, and who says it (``"user"`` or ``"assistant"``)."""

    __slots__ = ("content", "role")
    # unhashable, as it is mutable: defining __eq__ makes Python set __hash__ to None

    def __init__(self, content: str | _Part, role: str = "user") -> None:
        self.content = content
        self.role = role

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PromptMessage):
            return NotImplemented
        return (self.content, self.role) == (other.content, other.role)

    def __repr__(self) -> str:
        return f"PromptMessage({self.content!r}, role={self.role!r})"


class PromptSpec(Record):
    """Everything rata knows about one prompt."""

    __slots__ = ("name", "fn", "can", "title", "description", "params", "ctx_param", "complete")
    name: str
    fn: Callable[..., Any]
    can: str | None
    title: str | None
    description: str
    params: tuple[ParamSpec, ...]
    ctx_param: str | None
    complete: dict[str, Completer] | None

    @property
    def qualname(self) -> str:
        return f"{self.fn.__module__}.{self.fn.__qualname__}"


def inspect_prompt(fn: Callable[..., Any], analyzer: Analyzer, ctx_type: type) -> PromptSpec:
    """Read a function decorated with `@prompt` into a `PromptSpec`, or raise `CodegenError`."""
    options: dict[str, Any] | None = getattr(fn, _ATTR, None)  # what @prompt recorded
    label = getattr(fn, "__qualname__", repr(fn))
    if options is None:
        raise CodegenError(f"{label} is not a rata prompt.", hint="Decorate it with @rata.prompt(can=...).")
    name = options["name"] or fn.__name__
    where = f"prompt {name!r}"
    if not (isinstance(name, str) and 0 < len(name) <= 128 and NAME_CHARACTERS.issuperset(name)):
        raise CodegenError(f"{where}: the name is not a valid prompt name.", hint="Use 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'.")
    if inspect.iscoroutinefunction(fn):
        raise CodegenError(f"{where}: the function is async.", hint="Make it a plain function; prompts run on a worker thread.")
    title = options["title"]
    if title is not None and not isinstance(title, str):
        raise CodegenError(f"{where}: title= is {type(title).__name__}, not a string.", hint="Pass the title as str.")
    can = validate_ability(options["can"], where) if options["can"] is not None else None
    doc, params, ctx_param = read_params(fn, resolve_hints(fn, where), analyzer, ctx_type, where)
    title = clean_line(title, MAX_TITLE) if title else None
    return PromptSpec(name, fn, can, title, doc.description, tuple(params), ctx_param, completers(options["complete"], params, where))


# --- getting a prompt ------------------------------------------------------------------------------


def get_prompt(app: Any, request: CommandRequest) -> list[dict[str, Any]]:
    """Run the prompt `request` names through the app's grant, middleware, argument check and a unit of work;
    its messages as MCP ``PromptMessage`` objects. Raises as `App.dispatch` does (`ForbiddenError`,
    `ValidationErrors`, `ResultError`, `rata.talk.Interrupt`...)."""
    _authorize(app, _spec(app, request.command), request)
    return app.through_middleware(request, lambda inner: _run(app, inner))


def _spec(app: Any, name: str) -> PromptSpec:
    spec = app.prompt_specs.get(name)
    if spec is None:
        raise ForbiddenError(f"There is no prompt named {name!r}.", hint=f"Known prompts: {', '.join(sorted(app.prompt_specs)) or 'none'}.")
    return spec


def _authorize(app: Any, spec: PromptSpec, request: CommandRequest) -> None:
    """Deny by default: an agent needs the prompt's ability granted (with confirmation or not), the frontend its own grant."""
    kind = request.origin.kind
    if kind == "agent" and (app.mcp_config is None or app.mcp_config.access(spec.can) is None):
        raise ForbiddenError(
            f"The prompt {spec.name!r} is not available to agents.",
            hint="Grant its ability with Mcp().allow_abilities([...])." if spec.can else "It has no ability (can=...); such prompts are never listed.",
        )
    if kind == "frontend" and spec.can is not None and not app.frontend_grant.allows(spec.can):
        raise ForbiddenError(f"The frontend is not granted {spec.can!r}, which the prompt {spec.name!r} needs.", hint="Add it with App.allow_abilities([...]).")


def _run(app: Any, request: CommandRequest) -> list[dict[str, Any]]:
    """The innermost handler: the grant again (a middleware may hand on another request), the arguments, the call."""
    from rata.context import Ctx
    from rata.logs import sync

    spec = _spec(app, request.command)
    _authorize(app, spec, request)
    sync()
    kwargs = app.arguments(spec, request.args)
    with app.unit_of_work() as work:
        if spec.ctx_param is not None:
            kwargs[spec.ctx_param] = Ctx(app, request, work)
        messages = messages_json(spec.name, spec.fn(**kwargs))  # a prompt that returns what cannot be sent changes nothing
    if work.changed:
        app.live.changed(work.changed)
    return messages


def messages_json(name: str, value: Any) -> list[dict[str, Any]]:
    """What prompt `name` returned, as ``[{"role", "content"}]``: text cleaned, parts checked and bounded. Raises `ResultError`."""
    if isinstance(value, (str, _Part, PromptMessage)):
        items = [value]
    elif isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise ResultError(
            f"The prompt {name!r} returned {type(value).__name__}, not its messages.",
            hint="Return a str, a content part (rata.Text, Image, Audio, EmbeddedResource, ResourceLink), "
            "or a list of str, parts and PromptMessage(content, role='user' or 'assistant').",
        )
    else:
        items = list(itertools.islice(value, MAX_MESSAGES + 1))  # a generator that never ends is read no further than the bound
        if len(items) > MAX_MESSAGES:
            raise ResultError(f"The prompt {name!r} returned more than {MAX_MESSAGES} messages.", hint="Return fewer; put long material in one message.")
        if not items:
            raise ResultError(f"The prompt {name!r} returned no messages.", hint="Return at least one: a str is one user message.")
    budget = _Budget()
    return [_message(name, item, f"messages[{index}]", budget) for index, item in enumerate(items)]


def _message(name: str, item: Any, path: str, budget: _Budget) -> dict[str, Any]:
    role = "user"
    if isinstance(item, PromptMessage):
        role, item, path = item.role, item.content, f"{path}.content"
        if role not in ROLES:
            raise ResultError(f"The prompt {name!r} returned a message whose role is {role!r}.", hint="Use role='user' or role='assistant'.")
    if isinstance(item, str):
        item = Text(item)
    elif not isinstance(item, _Part):
        raise ResultError(
            f"The prompt {name!r} returned {type(item).__name__} at {path}, not a message.",
            hint="Each message is a str, a content part (rata.Text, Image, Audio, EmbeddedResource, ResourceLink) or a PromptMessage.",
        )
    try:
        block = part_json(_cleaned(item), path, budget)
    except PartError as error:
        raise ResultError(f"The prompt {name!r} returned {error}.", hint=error.hint) from None
    return {"role": role, "content": block}


def _cleaned(part: _Part) -> _Part:
    """A text part, or an embedded resource's text, without the characters a model reads and a person cannot see."""
    if isinstance(part, Text) and isinstance(part.text, str):
        return Text(clean_text(part.text), audience=part.audience, priority=part.priority)
    if isinstance(part, EmbeddedResource) and isinstance(part.text, str) and part.blob is None:
        return EmbeddedResource(part.uri, text=clean_text(part.text), mime_type=part.mime_type, audience=part.audience, priority=part.priority)
    return part
