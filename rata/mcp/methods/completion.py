"""``completion/complete``: values for a prompt's argument, or a resource template's, as the user types it.

``ref/prompt`` names a granted prompt (`rata.mcp.methods.prompts`); ``ref/resource`` a resource
template by its ``uriTemplate`` (``AppServer.templates``: a live command's, or a declared function's). What
completes is `rata.completion.complete`: the ``complete=`` function of the argument, or the
values of a ``Literal`` or ``Enum``. Bad params, an unknown prompt or template, or an argument
it does not have: -32602. The result is not cacheable (no ``ttlMs``).
"""

from __future__ import annotations

from typing import Any, Protocol

from rata.completion import complete as completion
from rata.dispatch import Origin
from rata.mcp import wire
from rata.mcp.methods.prompts import text_arguments, unknown_prompt
from rata.mcp.wire import McpError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App
    from rata.mcp.server import Call


class Completable(Protocol):
    """What ``completion/complete`` needs: the app, its listed prompts by name and its listed templates by URI template."""

    app: App
    prompts: dict[str, dict[str, Any]]
    templates: dict[str, dict[str, Any]]


def complete(ctx: Completable, call: Call) -> dict[str, Any]:
    ref = call.params.get("ref")
    argument = call.params.get("argument")
    if not isinstance(ref, dict) or not isinstance(ref.get("type"), str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "ref" must be {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"}')
    if not isinstance(argument, dict) or not isinstance(argument.get("name"), str) or not isinstance(argument.get("value"), str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "argument" must be {"name": <string>, "value": <string>}')
    context = call.params.get("context")
    if context is not None and not isinstance(context, dict):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "context" must be an object')
    others = text_arguments((context or {}).get("arguments"), "context.arguments")
    name, spec = _target(ctx, ref)
    param = next((p for p in spec.params if p.name == argument["name"]), None)
    if param is None:
        known = ", ".join(p.name for p in spec.params) or "none"
        raise McpError(wire.INVALID_PARAMS, f"Invalid params: {name} has no argument {wire.shown(argument['name'])!r} (its arguments: {known})")
    values = completion(ctx.app, name, spec, param, argument["value"], others, Origin.agent(call.client_name))
    return {"completion": values}


def _target(ctx: Completable, ref: dict[str, Any]) -> tuple[str, Any]:
    """The prompt's or the template's command's name and spec that `ref` names."""
    kind = ref["type"]
    if kind == "ref/prompt":
        name = ref.get("name")
        if not isinstance(name, str):
            raise McpError(wire.INVALID_PARAMS, 'Invalid params: a ref/prompt needs "name", a string')
        if name not in ctx.prompts:
            raise unknown_prompt(name)
        return name, ctx.app.prompt_specs[name]
    if kind == "ref/resource":
        uri = ref.get("uri")
        if not isinstance(uri, str):
            raise McpError(wire.INVALID_PARAMS, 'Invalid params: a ref/resource needs "uri", a string')
        template = ctx.templates.get(uri)
        declared = ctx.app.declared.get(uri)
        if template is not None and declared is not None and declared.spec is not None:  # a declared function template
            return uri, declared.spec
        if template is None or template["name"] not in ctx.app.specs:
            raise McpError(wire.INVALID_PARAMS, f"Invalid params: unknown resource template {wire.shown(uri)}", {"uri": wire.shown(uri)})
        return template["name"], ctx.app.specs[template["name"]]
    raise McpError(wire.INVALID_PARAMS, f'Invalid params: unknown ref type {wire.shown(kind)!r} (expected "ref/prompt" or "ref/resource")')

