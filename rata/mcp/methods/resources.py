"""``resources/read``: live commands, their templates and the app's declared resources (the lists are in `listing`).

A URI is looked up exactly first (``app://<command>``, a declared resource), then against the
templates (``app://customers_show/{id}``, a declared template), each value percent-decoded.
A template's values are text: `rata.textargs.json_value` makes them the JSON a tool call would
carry, then the app's argument check runs. A value it refuses is -32602 naming the field; a
command that refuses the value itself (``ValidationErrors``: no such row) is "Resource not
found", the era's code, as is every URI that is no resource.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from rata.dispatch import CommandRequest, Origin
from rata.errors import DatabaseNotReadyError, RataError
from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.wire import McpError
from rata.resources import MAX_URI, Resource, ResourceError, UriTemplate, read_content
from rata.talk import Interrupt
from rata.textargs import json_arguments
from rata.validation import ValidationErrors

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App
    from rata.codegen.catalog import Catalog
    from rata.mcp.confirm import Confirmer
    from rata.mcp.methods import Version
    from rata.mcp.server import Call

log = LazyLogger("rata.mcp")

Target = str | Resource
"""What a URI reads: a live command (its name) or a declared resource."""


class Readable(Protocol):
    """What ``resources/read`` needs: the app, its resources by URI, its templates to match, and a signer (asking)."""

    app: App

    @property
    def resources(self) -> dict[str, dict[str, Any]]: ...

    @property
    def matchers(self) -> list[tuple[UriTemplate, Target]]: ...

    @property
    def confirmer(self) -> Confirmer: ...


def not_found(uri: Any, version: Version, reason: str | None = None) -> McpError:
    data = {"uri": wire.shown(uri)} if reason is None else {"uri": wire.shown(uri), "reason": reason}
    return McpError(version.resource_not_found, "Resource not found", data)


def template_matchers(app: App, catalog: Catalog) -> list[tuple[UriTemplate, Target]]:
    """The listed templates, each with what it reads (a live command's name, or a declared function resource)."""
    matchers: list[tuple[UriTemplate, Target]] = []
    for template in catalog.templates:
        text = template["uriTemplate"]
        declared = app.declared.get(text)
        if declared is not None and declared.template is not None:
            matchers.append((declared.template, declared))
        else:
            matchers.append((UriTemplate(text), template["name"]))
    return matchers


def find(ctx: Readable, uri: str) -> tuple[Target, dict[str, str]] | None:
    """What `uri` reads and its template's values, or None when it names no resource of this server."""
    listed = ctx.resources.get(uri)
    if listed is not None:
        declared = ctx.app.declared.get(uri)
        return (declared if declared is not None else listed["name"]), {}
    if len(uri) > MAX_URI:
        return None
    for template, target in ctx.matchers:
        values = template.match(uri)
        if values is not None:
            return target, values
    return None


def live_key(target: Target) -> str | None:
    """The name the live registry tracks `target`'s reads under; None for content that never changes while served."""
    if isinstance(target, str):
        return target
    return target.live_key if target.spec is not None else None


def read_resource(ctx: Readable, call: Call) -> dict[str, Any]:
    uri = call.params.get("uri")
    if not isinstance(uri, str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "uri" must be a string')
    found = find(ctx, uri)
    if found is None:
        raise not_found(uri, call.version)
    target, values = found
    if isinstance(target, str):
        return _read_command(ctx, call, uri, target, values)
    return _read_declared(ctx, call, uri, target, values)


def _read_command(ctx: Readable, call: Call, uri: str, command: str, values: dict[str, str]) -> dict[str, Any]:
    spec = ctx.app.specs[command]
    arguments = json_arguments([(p.name, p.node) for p in spec.params], values)
    _check(ctx, spec, arguments, uri)
    try:
        value = ctx.app.dispatch(CommandRequest(command, arguments, Origin.agent(call.client_name)))
    except ValidationErrors as errors:  # the command refused the value itself: no such row
        raise not_found(uri, call.version, errors.summary()) from None
    except DatabaseNotReadyError as error:  # logged once, when the app started (rata.upgrade)
        raise McpError(wire.INTERNAL_ERROR, f"Reading {wire.shown(uri)} failed: {error}") from None
    except Exception as error:  # noqa: BLE001 - the reader learns what failed; the traceback goes to the log
        log.exception("reading %s failed", uri)
        raise McpError(wire.INTERNAL_ERROR, f"Reading {wire.shown(uri)} failed: {str(error).strip() or type(error).__name__}") from None
    content = {"uri": uri, "mimeType": "application/json", "text": json.dumps(value, ensure_ascii=False)}
    # Live data: stale at once, and it is this user's data.
    return {"contents": [content], "ttlMs": 0, "cacheScope": "private"}


def _check(ctx: Readable, spec: Any, arguments: dict[str, Any], uri: str) -> None:
    """-32602 naming each field of a template's URI the argument check refuses, and how to write it."""
    try:
        ctx.app.arguments(spec, arguments)
    except ValidationErrors as errors:
        raise McpError(
            wire.INVALID_PARAMS,
            f"Invalid params: {wire.shown(uri)} holds a value its template cannot take: {errors.summary()}. "
            "Write each value in the URI as its text (42, true, a string), percent-encoded.",
            {"uri": wire.shown(uri), "errors": errors.to_dict()},
        ) from None


def _read_declared(ctx: Readable, call: Call, uri: str, item: Resource, values: dict[str, str]) -> dict[str, Any]:
    if item.spec is not None:
        _check(ctx, item.spec, json_arguments([(p.name, p.node) for p in item.spec.params], values), uri)
    from rata.mcp.talking import McpChannel

    channel = McpChannel(ctx, call, f"resource:{uri}", {})  # a function may ask its client (Ctx.ask)
    request = CommandRequest(item.live_key, {}, Origin.agent(call.client_name), channel=channel)
    try:
        if item.spec is not None:
            channel.open(ctx.app.name)
        content = read_content(ctx.app, item, values, request)
    except Interrupt as stop:  # it asked its 2026-07-28 client: answered by input_required, it runs again on the retry
        return channel.stopped(stop)
    except ValidationErrors as errors:
        raise not_found(uri, call.version, errors.summary()) from None
    except (ResourceError, RataError) as error:
        if not isinstance(error, DatabaseNotReadyError):  # that one was logged once, when the app started (rata.upgrade)
            log.info("reading %s failed: %s", uri, error)
        raise McpError(wire.INTERNAL_ERROR, f"Reading {wire.shown(uri)} failed: {error}") from None
    except McpError:
        raise
    except Exception as error:  # noqa: BLE001 - the reader learns what failed; the traceback goes to the log
        log.exception("reading %s failed", uri)
        raise McpError(wire.INTERNAL_ERROR, f"Reading {wire.shown(uri)} failed: {str(error).strip() or type(error).__name__}") from None
    finally:
        channel.close()
    entry: dict[str, Any] = {"uri": uri, "mimeType": item.mime_type}
    if isinstance(content, str):
        entry["text"] = content
    else:
        import base64  # only for a blob: most servers never send one (start-up time)

        entry["blob"] = base64.b64encode(content).decode("ascii")
    if item.spec is not None:  # computed now, for this user
        return {"contents": [entry], "ttlMs": 0, "cacheScope": "private"}
    return {"contents": [entry], "ttlMs": 0 if item.path is not None else 60_000, "cacheScope": "public"}
