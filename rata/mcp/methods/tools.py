"""``tools/call``: the app's granted commands, through the app's own dispatch (``tools/list`` is in `listing`).

Protocol errors (JSON-RPC): an unknown or ungranted tool, malformed params. Everything the
model can act on comes back as a result with ``isError: true``: arguments that fail the
schema (one message per field), the command's `ValidationErrors`, any other failure of the
command (its message; the traceback goes to the log), a rate limit, a refused confirmation.
"""

from __future__ import annotations

import json
import time
from typing import Any, Protocol, cast

from rata import tokens
from rata.app import CONFIRM, DEFAULT_RESULT_TOKENS
from rata.cleantext import clean_text
from rata.context import Ctx
from rata.dispatch import CommandRequest, Origin
from rata.errors import DatabaseNotReadyError, RataError
from rata.events import MCP_CHANNEL, AgentCalled
from rata.logs import LazyLogger, log_info
from rata.mcp import wire
from rata.mcp.surface import RESULT_KEY, needs_wrapping
from rata.mcp.talking import McpChannel, why_not
from rata.mcp.wire import McpError
from rata.talk import Interrupt, TalkError
from rata.typemodel import ContentNode, PartsNode
from rata.validation import ValidationErrors

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App
    from rata.command_spec import CommandSpec
    from rata.mcp.confirm import Confirmer
    from rata.mcp.server import Call
    from rata.mcp.surface import Index
    from rata.ratelimit import Limiter
    from rata.typemodel import Node

log = LazyLogger("rata.mcp")
_CONTENT_NODES = frozenset({PartsNode, ContentNode})
# hot path: bench/run.py --only server (throughput): the result's text, from CPython's private encoder parts
_TEXT = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(value, ensure_ascii=False), without a new encoder per call
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
if _C_ENCODER is not None:  # the encoder _TEXT makes on every call, made once (no circular check: results are fresh JSON values)
    _TEXT_PARTS = _C_ENCODER(None, json.JSONEncoder().default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)

    def _TEXT(o: Any) -> str:  # noqa: N802 - the name it replaces, and its parameter's
        return "".join(_TEXT_PARTS(o, 0))


class ToolHost(Protocol):
    """What ``tools/call`` needs: the app, its surface (tools, their specs, access and presenters), rate limits and confirmations."""

    app: App
    index: Index
    """read once per call: a refresh swaps it whole (`rata.mcp.app_server.AppServer.refresh`)"""
    limiter: Limiter

    @property
    def confirmer(self) -> Confirmer: ...


def call_tool(ctx: ToolHost, call: Call) -> dict[str, Any]:
    name = call.params.get("name")
    if not isinstance(name, str):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "name" must be a string')
    arguments = call.params.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise McpError(wire.INVALID_PARAMS, 'Invalid params: "arguments" must be an object')
    index = ctx.index  # the one surface this call sees, whatever a refresh does meanwhile
    tool = index.tools.get(name)
    if tool is None:
        raise McpError(wire.INVALID_PARAMS, f"Unknown tool: {wire.shown(name)}")
    spec = index.specs[name]
    client = call.client_name
    started = time.perf_counter()
    outcome = "error"
    try:
        result, outcome = _call(ctx, index, call, spec, arguments, client)
        return result
    finally:
        if outcome != "asked":
            _report(ctx, client, name, outcome, started)


def _call(ctx: ToolHost, index: Index, call: Call, spec: CommandSpec, arguments: dict[str, Any], client: str) -> tuple[dict[str, Any], str]:
    wait = ctx.limiter.take(spec.name) if ctx.limiter.limit is not None else 0.0
    if wait > 0:
        limit = ctx.limiter.limit
        assert limit is not None
        return error_result(f"Rate limit for {spec.name}: {limit.calls} calls per {limit.per:g} s. Try again in {wait:.1f} s."), "rate-limited"
    channel = McpChannel(ctx, call, spec.name, arguments)  # progress, logs and questions to this client (rata.mcp.talking)
    try:
        return _run(ctx, index, call, spec, arguments, client, channel)
    finally:
        channel.close()


def _run(
    ctx: ToolHost, index: Index, call: Call, spec: CommandSpec, arguments: dict[str, Any], client: str, channel: McpChannel
) -> tuple[dict[str, Any], str]:
    confirmed = False
    if index.access[spec.name] == CONFIRM:
        try:  # before anyone is asked to confirm it (dispatch checks plain calls itself)
            kwargs = ctx.app.arguments(spec, arguments)
        except ValidationErrors as errors:
            return validation_result(spec.name, errors), "invalid"
        decision = _confirm(ctx, call, channel, spec, arguments, kwargs)
        if isinstance(decision, dict):
            return decision, "asked" if decision.get("resultType") == "input_required" else "unconfirmable"
        if not decision:
            return error_result(f"Not confirmed: the user did not allow {spec.name}. Nothing was done."), "declined"
        confirmed = True
    elif "requestState" in call.params:
        channel.begin()  # a retry's state is checked before anything runs, whether or not the command asks again
    # hot path: bench/run.py --only server (throughput): Origin.agent(client), inlined
    request = CommandRequest(spec.name, arguments, Origin("agent", client or "unknown"), confirmed, channel=channel)
    channel.open(ctx.app.name)
    try:
        value = ctx.app.dispatch(request)
    except Interrupt as stop:  # the command asked its 2026-07-28 client: its transaction is rolled back, it runs again on the retry
        return channel.stopped(stop), "asked"
    except ValidationErrors as errors:
        return validation_result(spec.name, errors), "invalid"
    except RataError as error:  # a refusal rata explains: the message is the whole story
        if not isinstance(error, DatabaseNotReadyError):  # that one was logged once, when the app started (rata.upgrade)
            log.info("tool %s refused: %s", spec.name, error.message)
        return error_result(f"{spec.name} failed: {_message(error)}"), "error"
    except Exception as error:  # noqa: BLE001 - any command failure is the model's to read
        log.exception("tool %s failed", spec.name)
        return error_result(f"{spec.name} failed: {_message(error)}"), "error"
    present = index.presenters.get(spec.name)
    tool = index.tools[spec.name]
    # a tool whose result is shown as content of its own (text, an image), or its JSON
    text = index.texts.get(spec.name)
    if present is not None:
        result = present(value)
    elif text is None:
        result = ok_result(value, tool, call.era, spec.returns)
    else:
        try:
            result = ok_result(value, tool, call.era, spec.returns, text)
        except Exception as error:  # noqa: BLE001 - the app's text= function: its failure is the call's, logged with its traceback
            log.exception("tool %s: its text= function failed", spec.name)
            return error_result(f"{spec.name} failed: its text= function raised {type(error).__name__}: {_message(error)}"), "error"
    config = ctx.app.mcp_config
    limit = config.result_tokens if config is not None else DEFAULT_RESULT_TOKENS
    if limit is not None:
        refused = too_large(result, limit, spec.name, tool, spec.name in index.texts)
        if refused is not None:
            return refused, "too-large"
    return result, "ok"


def too_large(result: dict[str, Any], limit: int, name: str, tool: dict[str, Any], own_text: bool = False) -> dict[str, Any] | None:
    """The error result to send instead of `result` when the model would read over `limit` tokens of it, else None.

    What counts: every text part (an embedded resource's text too) and `structuredContent`, which
    is the JSON of the first text part (`ok_result`), so that part counts twice; or, for a tool with
    a text of its own (`own_text`, ``@command(text=...)``), the JSON of `structuredContent` itself. Binary data
    (an image, audio, a blob) is not counted: a model sees it as media, not as its base64, and
    `rata.content` bounds its size. A result whose characters could not reach the limit even
    at four bytes each is let through after one length check (`rata.tokens.could_exceed`)."""
    texts = []
    for part in result.get("content", ()):
        text = part.get("text")
        if text is None:
            resource = part.get("resource")
            text = resource.get("text") if isinstance(resource, dict) else None
        if isinstance(text, str):
            texts.append(text)
    if "structuredContent" in result and texts:
        texts.append(_TEXT(result["structuredContent"]) if own_text else texts[0])
    if not tokens.could_exceed(sum(map(len, texts)), limit):
        return None
    size = sum(map(tokens.estimate, texts))
    if size <= limit:
        return None
    narrow = tokens.bounding_arguments(tool.get("inputSchema", {}))
    how = f"Narrow it: {', '.join(narrow)}." if narrow else "It has no argument that narrows it; ask the user for a narrower request."
    log.warning("tool %s returned about %d tokens, over the %d-token limit for one result; sent an error instead", name, size, limit)
    return error_result(f"{name} returned about {size:,} tokens (over the {limit:,}-token limit for one result); nothing was sent. {how}")


def _confirm(ctx: ToolHost, call: Call, channel: McpChannel, spec: CommandSpec, arguments: dict[str, Any], kwargs: dict[str, Any]) -> bool | dict[str, Any]:
    """True or False once the user answered; an input_required result while asking (2026-07-28).

    The confirmation is the call's first question (`McpChannel.input`): asked mid-call in the
    2025 era, by a retry in 2026-07-28, where an answer that is no elicitation result at all is
    asked again."""
    from rata.mcp import confirm

    if call.era == "legacy" and not call.can_elicit("form"):
        why = why_not(call.version, "elicitation")
        return error_result(
            f"{spec.name} needs the user's confirmation, and this client cannot ask for it ({why}). "
            "Ask the user to do this in the app, or use a client that supports elicitation."
        )
    message = confirmation_message(ctx, call, spec, arguments, kwargs)
    question = [("confirm", confirm.INPUT_KEY, "elicitation/create", confirm.elicitation(message))]
    try:
        while True:
            verdict = confirm.accepted(channel.input(question, "needs the user's confirmation")[0])
            if verdict is not None or call.era == "legacy":
                return verdict is True
    except Interrupt as stop:
        return channel.stopped(stop)
    except TalkError as error:  # the client failed to answer (2025 era): nothing runs
        log.warning("confirmation of %s failed: %s", spec.name, error.message)
        return False


def confirmation_message(ctx: ToolHost, call: Call, spec: CommandSpec, arguments: dict[str, Any], kwargs: dict[str, Any]) -> str:
    """What the user reads before allowing a call: the app's `confirm_message`, or the default.

    The agent chose the argument values, so the user must see them as they will run: in the
    default message and in a format string each string value is shown quoted, with invisible
    characters written as escapes (``"bolt\\u202e"``) and cut at `MAX_SHOWN_VALUE` characters;
    whatever the message holds in the end is escaped the same way and cut at `MAX_MESSAGE`.
    """
    from rata.codegen.sanitize import MAX_MESSAGE, MAX_SHOWN_VALUE, clean_text, quote, visible

    custom = spec.confirm_message
    if custom is not None:
        try:
            if callable(custom):
                with ctx.app.unit_of_work() as work:  # what the message reads, it reads in a transaction of its own
                    helper = Ctx(ctx.app, CommandRequest(spec.name, arguments, Origin.agent(call.client_name)), work)
                    return visible(str(custom(helper, **kwargs)), MAX_MESSAGE)
            shown = {key: _Shown(quote(value, MAX_SHOWN_VALUE)) if isinstance(value, str) else value for key, value in kwargs.items()}
            return visible(custom.format(**shown), MAX_MESSAGE)
        except Exception:  # noqa: BLE001 - a broken message must not block the default one
            log.exception("confirm_message of %s failed; using the default", spec.name)
    summary = clean_text(spec.description.split("\n\n")[0], MAX_SHOWN_VALUE * 2) if spec.description else spec.name
    shown_args = ", ".join(f"{visible(key, 64)}={_show(value, MAX_SHOWN_VALUE)}" for key, value in arguments.items())
    return visible(f"An agent wants to run {spec.name}({shown_args}): {summary} Allow it?", MAX_MESSAGE)


class _Shown(str):
    """A value already quoted for a confirmation message; a format spec such as ``{item:>10}`` still applies."""

    __slots__ = ()


def _show(value: Any, limit: int) -> str:
    """One argument as JSON: strings quoted (`quote`), other values as compact JSON, escaped and cut the same way."""
    from rata.codegen.sanitize import quote, visible

    if isinstance(value, str):
        return quote(value, limit)
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = repr(value)
    return visible(text, limit)


def ok_result(value: Any, tool: dict[str, Any], era: str, returns: Node | None = None, text: Any = None) -> dict[str, Any]:
    """structuredContent (wrapped under "result" for 2025-11-25 when not an object) plus the same JSON as text
    (a string as itself), or the command's own rendering of it (`text`, ``@command(text=...)``); for a command
    that returns content parts (`returns`, `rata.content`), the parts after it.

    The parts come in their JSON form, which is already their content blocks; `Server.shape` fits them to
    the call's protocol version (`rata.mcp.methods.Version.content`)."""
    if returns.__class__ in _CONTENT_NODES:  # (None's class is not one)
        return _content_result(value, tool, era, cast("PartsNode | ContentNode", returns))  # its class is one of these
    shown = _own_text(text, value) if text is not None else value if value.__class__ is str else _TEXT(value)
    result: dict[str, Any] = {"content": [{"type": "text", "text": shown}]}
    output_schema = tool.get("outputSchema")
    if output_schema is None:
        return result
    result["structuredContent"] = {RESULT_KEY: value} if era == "legacy" and needs_wrapping(output_schema) else value
    return result


def _own_text(text: Any, value: Any) -> str:
    """A command's own text for `value` (its JSON, as `structuredContent` carries it), cleaned (`rata.cleantext.clean_text`); a TypeError when it is not a
    str."""
    shown = text(value)
    if shown.__class__ is not str:
        raise TypeError(f"it returned {type(shown).__name__}, not str: return the text a model reads")
    return clean_text(shown)  # as a prompt's text: no ESC, BEL, bidi overrides or zero-width characters reach the model


def _content_result(value: Any, tool: dict[str, Any], era: str, returns: PartsNode | ContentNode) -> dict[str, Any]:
    from rata.content import parts_of

    parts = parts_of(returns, value)
    if "outputSchema" not in tool:
        return {"content": parts}
    result = ok_result(value["data"], tool, era)
    result["content"].extend(parts)
    return result


def validation_result(tool: str, errors: ValidationErrors) -> dict[str, Any]:
    lines = [f"Invalid arguments for {tool}; fix these and call it again:"]
    lines.extend(f"- {field}: {message}" if field else f"- {message}" for field, messages in errors.to_dict().items() for message in messages)
    return error_result("\n".join(lines))


def error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _message(error: BaseException) -> str:
    text = str(error).strip()
    return text if text else type(error).__name__


def _report(ctx: ToolHost, client: str, tool: str, outcome: str, started: float) -> None:
    duration_ms = round((time.perf_counter() - started) * 1000, 3)
    ok = outcome == "ok"
    log_info("rata.mcp", "tool call", {"tool": tool, "client": client, "outcome": outcome, "duration_ms": duration_ms})
    events = ctx.app.events
    if events.has_listeners(AgentCalled):
        events.emit(AgentCalled(tool, client, ok, duration_ms))
    if events.has_subscribers(MCP_CHANNEL):
        events.publish(MCP_CHANNEL, {"type": "agent_called", "tool": tool, "client": client, "ok": ok, "outcome": outcome})
