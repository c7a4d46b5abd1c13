"""The official MCP Python SDK's server (mcp 2.3.0, `MCPServer`) with what the conformance suite calls, on stdio.

The evidence for the scenarios tests/conformance/test_conformance.py lists as failing only
because of the bridge: this server, written with the SDK the way its users write one, fails
them too behind the same bridge. It implements every scored scenario of both requirement sets,
so its score behind the bridge is the reference rata's fixture is measured against.

    CONFORMANCE_STATE_KEY=$(python -c "import secrets; print(secrets.token_hex(32))") python sdk_server.py [--http PORT]

The 2026-07-28 set runs behind the stateless bridge, which starts a fresh process for each
HTTP request, so a `requestState` sealed by one process is opened by another: every process
of one run shares the key in CONFORMANCE_STATE_KEY.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPDeprecationWarning
from media import PNG, WAV
from pydantic import BaseModel, Field

# Logging, sampling and roots are deprecated in 2026-07-28 but scored in 2025-11-25; say so once, not per call.
warnings.simplefilter("ignore", MCPDeprecationWarning)


server = MCPServer(
    "sdk-conformance",
    version="2.3.0",
    request_state_security=RequestStateSecurity(keys=[os.environ["CONFORMANCE_STATE_KEY"]]),
)


def _image() -> types.ImageContent:
    return types.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")


def _elicit(message: str, field: str, kind: str = "string") -> types.ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=schema))


def _sample(text: str, max_tokens: int) -> types.CreateMessageRequest:
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.CreateMessageRequest(params=types.CreateMessageRequestParams(messages=[message], max_tokens=max_tokens))


def _answer(responses: dict[str, Any], key: str, field: str) -> Any:
    """A field of an accepted elicitation answer, or None."""
    answer = responses.get(key)
    content = getattr(answer, "content", None)
    return content.get(field) if isinstance(content, dict) else None


# Tools with content.


@server.tool()
def test_simple_text() -> str:
    """Returns one text block."""
    return "This is a simple text response for testing."


@server.tool()
def test_image_content() -> list[types.ImageContent]:
    """Returns a PNG image."""
    return [_image()]


@server.tool()
def test_audio_content() -> list[types.AudioContent]:
    """Returns a WAV clip."""
    return [types.AudioContent(type="audio", data=base64.b64encode(WAV).decode(), mime_type="audio/wav")]


@server.tool()
def test_embedded_resource() -> list[types.EmbeddedResource]:
    """Returns an embedded text resource."""
    resource = types.TextResourceContents(uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content.")
    return [types.EmbeddedResource(type="resource", resource=resource)]


@server.tool()
def test_multiple_content_types() -> list[types.TextContent | types.ImageContent | types.EmbeddedResource]:
    """Returns text, an image and a resource, in that order."""
    resource = types.TextResourceContents(uri="test://mixed-content-resource", mime_type="application/json", text=json.dumps({"test": "data", "value": 123}))
    return [types.TextContent(type="text", text="Multiple content types test:"), _image(), types.EmbeddedResource(type="resource", resource=resource)]


@server.tool()
def test_error_handling() -> str:
    """Always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


# Tools that talk back during the call.


@server.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress three times."""
    for done in (0, 50, 100):
        await ctx.report_progress(done, 100, f"{done} of 100")
        if done < 100:
            await anyio.sleep(0.05)
    return "progress reported"


@server.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Logs three info lines."""
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(step)
        await anyio.sleep(0.05)
    return "Tool with logging executed successfully"


@server.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Logs one line; a 2026-07-28 client that asked for no log level gets none."""
    await ctx.info("test_logging_tool ran")
    return "logged"


class Contact(BaseModel):
    username: str = Field(description="Your user name")
    email: str = Field(description="Your email address")


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a user name and an email address."""
    result = await ctx.elicit(message, schema=Contact)
    content = result.data.model_dump_json() if result.action == "accept" else "{}"
    return f"User response: action={result.action}, content={content}"


class Defaults(BaseModel):
    name: str = Field(default="John Doe", description="Name")
    age: int = Field(default=30, description="Age")
    score: float = Field(default=95.5, description="Score")
    status: str = Field(default="active", description="Status", json_schema_extra={"enum": ["active", "inactive", "pending"]})
    verified: bool = Field(default=True, description="Verified")


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Asks with a default for every primitive type."""
    result = await ctx.elicit("Please confirm these details", schema=Defaults)
    content = result.data.model_dump_json() if result.action == "accept" else "{}"
    return f"Elicitation completed: action={result.action}, content={content}"


class Enums(BaseModel):
    untitledSingle: str = Field(description="Pick one", json_schema_extra={"enum": ["option1", "option2", "option3"]})
    titledSingle: str = Field(
        description="Pick one (titled)",
        json_schema_extra={"oneOf": [{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}]},
    )
    legacyEnum: str = Field(
        description="Pick one (legacy titles)",
        json_schema_extra={"enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
    )
    untitledMulti: list[str] = Field(description="Pick several", json_schema_extra={"items": {"type": "string", "enum": ["option1", "option2", "option3"]}})
    titledMulti: list[str] = Field(
        description="Pick several (titled)",
        json_schema_extra={"items": {"anyOf": [{"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}]}},
    )


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks with the five kinds of enum."""
    result = await ctx.elicit("Please pick", schema=Enums)
    content = result.data.model_dump_json() if result.action == "accept" else "{}"
    return f"Elicitation completed: action={result.action}, content={content}"


@server.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model."""
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))
    result = await ctx.session.create_message(messages=[message], max_tokens=100)
    text = result.content.text if isinstance(result.content, types.TextContent) else "(no text)"
    return f"LLM response: {text}"


# 2026-07-28: the multi-round flow (input_required results).


@server.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str | types.InputRequiredResult:
    """Asks for a name, then greets."""
    responses = ctx.input_responses or {}
    name = _answer(responses, "user_name", "name")
    if name is None:
        return types.InputRequiredResult(input_requests={"user_name": _elicit("What is your name?", "name")})
    return f"Hello, {name}!"


@server.tool()
async def test_input_required_result_sampling(ctx: Context) -> str | types.InputRequiredResult:
    """Asks the model a question."""
    answer = (ctx.input_responses or {}).get("capital_question")
    if not isinstance(answer, types.CreateMessageResult):
        return types.InputRequiredResult(input_requests={"capital_question": _sample("What is the capital of France?", 100)})
    return f"The model said: {getattr(answer.content, 'text', '')}"


@server.tool()
async def test_input_required_result_list_roots(ctx: Context) -> str | types.InputRequiredResult:
    """Asks for the client's roots."""
    roots = (ctx.input_responses or {}).get("client_roots")
    if not isinstance(roots, types.ListRootsResult):
        return types.InputRequiredResult(input_requests={"client_roots": types.ListRootsRequest()})
    return "Roots: " + ", ".join(str(root.uri) for root in roots.roots)


@server.tool()
async def test_input_required_result_request_state(ctx: Context) -> str | types.InputRequiredResult:
    """Asks for confirmation with a requestState, and checks it came back."""
    if ctx.request_state != "awaiting-confirm" or "confirm" not in (ctx.input_responses or {}):
        return types.InputRequiredResult(input_requests={"confirm": _elicit("Please confirm", "ok", "boolean")}, request_state="awaiting-confirm")
    return "state-ok"


@server.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> str | types.InputRequiredResult:
    """Asks the user, the model and the client's roots at once."""
    wanted = {"user_name", "greeting", "client_roots"}
    if not wanted <= (ctx.input_responses or {}).keys():
        requests = {
            "user_name": _elicit("What is your name?", "name"),
            "greeting": _sample("Generate a greeting", 50),
            "client_roots": types.ListRootsRequest(),
        }
        return types.InputRequiredResult(input_requests=requests, request_state="all-three")
    return "All three inputs received."


@server.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str | types.InputRequiredResult:
    """Asks a name, then a colour, then answers."""
    state = json.loads(ctx.request_state) if ctx.request_state else {"round": 1}
    responses = ctx.input_responses or {}
    if state["round"] == 2 and "step1" in responses:
        name = _answer(responses, "step1", "name")
        return types.InputRequiredResult(
            input_requests={"step2": _elicit("Step 2: What is your favorite color?", "color")}, request_state=json.dumps({"round": 3, "name": name})
        )
    if state["round"] == 3 and "step2" in responses:
        return f"{state['name']} likes {_answer(responses, 'step2', 'color')}."
    return types.InputRequiredResult(input_requests={"step1": _elicit("Step 1: What is your name?", "name")}, request_state=json.dumps({"round": 2}))


@server.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> str | types.InputRequiredResult:
    """Asks with a requestState the SDK seals; a tampered one never reaches this function."""
    if ctx.request_state != "sealed":
        return types.InputRequiredResult(input_requests={"confirm": _elicit("Please confirm", "ok", "boolean")}, request_state="sealed")
    return "state-ok"


@server.tool()
async def test_input_required_result_capabilities(ctx: Context) -> str | types.InputRequiredResult:
    """Asks only through the capabilities the client declared."""
    if ctx.input_responses:
        return "answered"
    capabilities = ctx.client_capabilities
    requests: dict[str, Any] = {}
    if capabilities and capabilities.elicitation is not None:
        requests["user_name"] = _elicit("What is your name?", "name")
    if capabilities and capabilities.sampling is not None:
        requests["greeting"] = _sample("Generate a greeting", 50)
    if capabilities and capabilities.roots is not None:
        requests["client_roots"] = types.ListRootsRequest()
    if not requests:
        return "the client declared nothing to ask through"
    return types.InputRequiredResult(input_requests=requests)


@server.tool()
async def test_missing_capability(ctx: Context) -> str | types.InputRequiredResult:
    """Needs sampling: a client that did not declare it gets -32021."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        raise MCPError(code=-32021, message="test_missing_capability needs the sampling capability", data={"requiredCapabilities": {"sampling": {}}})
    if not ctx.input_responses:
        return types.InputRequiredResult(input_requests={"question": _sample("Say hello", 20)})
    return "sampled"


@server.tool()
async def test_streaming_elicitation(ctx: Context) -> str | types.InputRequiredResult:
    """Asks mid-call: in 2026-07-28 an input_required result, never a request of the server's own."""
    if not ctx.input_responses:
        return types.InputRequiredResult(input_requests={"confirm": _elicit("Go on?", "ok", "boolean")})
    return "went on"


@server.tool()
async def test_trigger_tool_change(ctx: Context) -> str:
    """Adds a tool, and tells the clients that listen."""

    def test_added_tool() -> str:
        """A tool added at run time."""
        return "added"

    server.add_tool(test_added_tool)
    await ctx.notify_tools_changed()
    return "tool list changed"


# Resources.


@server.resource("test://static-text", mime_type="text/plain", description="A static text")
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", mime_type="image/png", description="A static PNG")
def static_binary() -> bytes:
    return PNG


@server.resource("test://watched-resource", mime_type="text/plain", description="A resource to subscribe to")
def watched_resource() -> str:
    return "Watched resource content"


@server.resource("test://template/{id}/data", mime_type="application/json", description="Data for an id")
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


# Prompts.


@server.prompt()
def test_simple_prompt() -> list[Message]:
    """A prompt without arguments."""
    return [UserMessage(content=types.TextContent(type="text", text="This is a simple prompt for testing."))]


@server.prompt()
def test_prompt_with_arguments(arg1: str, arg2: str) -> list[Message]:
    """A prompt with two arguments."""
    return [UserMessage(content=types.TextContent(type="text", text=f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))]


@server.prompt()
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Message]:  # noqa: N803 - the suite's argument name
    """A prompt embedding a resource."""
    resource = types.TextResourceContents(uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing.")
    return [
        UserMessage(content=types.EmbeddedResource(type="resource", resource=resource)),
        UserMessage(content=types.TextContent(type="text", text="Please process the embedded resource above.")),
    ]


@server.prompt()
def test_prompt_with_image() -> list[Message]:
    """A prompt with an image."""
    return [UserMessage(content=_image()), UserMessage(content=types.TextContent(type="text", text="Please analyze the image above."))]


@server.prompt()
async def test_input_required_result_prompt(ctx: Context) -> list[Message] | types.InputRequiredResult:
    """A prompt that asks the user for context first."""
    context = _answer(ctx.input_responses or {}, "user_context", "context")
    if context is None:
        return types.InputRequiredResult(input_requests={"user_context": _elicit("What context should the prompt use?", "context")})
    return [UserMessage(content=types.TextContent(type="text", text=f"Use this context: {context}"))]


@server.completion()
async def complete(ref: Any, argument: types.CompletionArgument, context: Any) -> types.Completion:
    return types.Completion(values=[], total=0, has_more=False)


# The 2025-11-25 methods MCPServer has no decorator for.

_subscribed: set[str] = set()


async def _set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


async def _subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    _subscribed.add(str(params.uri))
    return types.EmptyResult()


async def _unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    _subscribed.discard(str(params.uri))
    return types.EmptyResult()


server._lowlevel_server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, _set_level)
server._lowlevel_server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, _subscribe)
server._lowlevel_server.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, _unsubscribe)


if __name__ == "__main__":
    # `--http PORT`: the SDK's own Streamable HTTP transport, no bridge (localhost only, with its Host/Origin checks).
    if sys.argv[1:2] == ["--http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
