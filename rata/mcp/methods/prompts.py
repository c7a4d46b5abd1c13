"""``prompts/get``: the app's granted prompts, run through its own machinery (``prompts/list`` is in `listing`).

The arguments arrive as strings; each becomes the JSON value its parameter's type reads
(`rata.textargs.json_arguments`), then the app's usual check converts it (`rata.app.App.arguments`),
so ``"42"`` for an ``int`` is 42 and ``"x"`` is refused naming the field. The prompt runs through
`rata.prompts.get_prompt` (grant, middleware, unit of work, `Ctx`), not through ``tools/call``.

A prompt that asks the user (``ctx.ask``) asks as a tool does (`rata.mcp.talking.McpChannel`,
bound to ``prompt:<name>`` and its arguments): ``input_required`` in 2026-07-28, the prompt run
again on the retry; a request to the client mid-call in the 2025 era.

Errors are JSON-RPC errors (a prompt has no ``isError`` result): an unknown or ungranted prompt,
or bad params, -32602 "Unknown prompt" / "Invalid params"; arguments the check refuses, -32602
naming each and the fix; a prompt that fails or returns what cannot be sent, -32603 with its
message (the traceback goes to the log).
"""

from __future__ import annotations

from typing import Any, Protocol

from rata.dispatch import CommandRequest, Origin
from rata.errors import ForbiddenError, RataError
from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.talking import McpChannel
from rata.mcp.wire import McpError
from rata.talk import Interrupt
from rata.textargs import json_arguments
from rata.validation import ValidationErrors

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App
    from rata.mcp.confirm import Confirmer
    from rata.mcp.server import Call

class PromptHost(Protocol):
    """What ``prompts/get`` needs: the app, its listed prompts by name, and the signer of request states."""

    app: App
    prompts: dict[str, dict[str, Any]]

    @property
    def confirmer(self) -> Confirmer: ...


log = LazyLogger("rata.mcp")


def text_arguments(arguments: Any, key: str) -> dict[str, str]:
    """The object of string values found at `key` of the params (absent or null: none). Raises -32602 naming what is wrong."""
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise McpError(wire.INVALID_PARAMS, f'Invalid params: "{key}" must be an object of strings')
    for name, value in arguments.items():
        if not isinstance(value, str):
            raise McpError(wire.INVALID_PARAMS, f'Invalid params: argument "{wire.shown(name)}" must be a string (MCP passes prompt arguments as text)')
    return arguments


def unknown_prompt(name: str) -> McpError:
    return McpError(wire.INVALID_PARAMS, f"Unknown prompt: {wire.shown(name)}", {"name": wire.shown(name)})


def get_prompt(ctx: PromptHost, call: Call) -> dict[str, Any]:
    name = call.params.get("name")
    if not isinstance(name, str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "name" must be a string')
    arguments = text_arguments(call.params.get("arguments"), "arguments")
    listed = ctx.prompts.get(name)
    if listed is None:
        raise unknown_prompt(name)
    app = ctx.app
    spec = app.prompt_specs[name]
    values = json_arguments([(param.name, param.node) for param in spec.params], arguments)
    channel = McpChannel(ctx, call, f"prompt:{name}", arguments)  # questions to this client, bound to the prompt and its arguments
    try:
        if "requestState" in call.params:
            channel.begin()  # a retry's state is checked before the prompt runs again
        channel.open(app.name)
        messages = _messages(app, name, CommandRequest(name, values, Origin.agent(call.client_name), channel=channel))
    except Interrupt as stop:  # the prompt asked its 2026-07-28 client: it runs again on the retry
        return channel.stopped(stop)
    finally:
        channel.close()
    shape = call.version.content
    result: dict[str, Any] = {}
    if "description" in listed:
        result["description"] = listed["description"]
    result["messages"] = [{"role": message["role"], "content": shape([message["content"]])[0]} for message in messages]
    return result


def _messages(app: App, name: str, request: CommandRequest) -> list[dict[str, Any]]:
    from rata.prompts import get_prompt as run

    try:
        return run(app, request)
    except Interrupt:
        raise
    except ValidationErrors as errors:
        raise McpError(
            wire.INVALID_PARAMS, f"Invalid arguments for prompt {name}: {errors.summary()}. Fix them and get the prompt again.", {"fields": errors.to_dict()}
        ) from None
    except ForbiddenError as error:  # ungranted (a middleware's refusal too): as if it did not exist
        log.info("prompt %s refused: %s", name, error.message)
        raise unknown_prompt(name) from None
    except RataError as error:  # a refusal or a result rata explains: the message is the whole story
        log.warning("prompt %s failed: %s", name, error.message)
        hint = f" {error.hint}" if getattr(error, "hint", None) else ""
        raise McpError(wire.INTERNAL_ERROR, f"Getting the prompt {name} failed: {error.message}{hint}") from None
    except McpError:
        raise
    except Exception as error:  # noqa: BLE001 - the client learns what failed; the traceback goes to the log
        log.exception("prompt %s failed", name)
        said = str(error).strip() or type(error).__name__
        raise McpError(wire.INTERNAL_ERROR, f"Getting the prompt {name} failed: {said}") from None
