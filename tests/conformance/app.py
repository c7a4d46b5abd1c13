"""The conformance fixture: a rata app serving what the official MCP conformance suite calls.

The suite (`@modelcontextprotocol/conformance`, pinned in .ci/peers) names the tools it calls
(`test_simple_text`, `test_image_content`, `test_elicitation`, ...) and what each must do; this
app declares them with rata's public API only (`App`, `Mcp`, `command`, the content parts, and
`Ctx.progress`, `Ctx.log`, `Ctx.ask`, `Ctx.ask_all`, `Ctx.sample`, `Ctx.roots`), the way an app
developer would. Serve it on stdio like any app file:

    RATA_HOME=/tmp/conformance python tests/conformance/app.py --mcp

`tests/conformance/test_conformance.py` runs the suite against it through a stdio to
Streamable HTTP bridge. A scenario that fails for want of a rata feature is named in the
test's `WAITING` table (empty since issue 16: the fixture serves every scored scenario).

The resources `test://static-text`, `test://static-binary`, `test://watched-resource` and the
template `test://template/{id}/data` are declared resources (`rata.Resource`, `@rata.resource`).
The prompts `test_simple_prompt`, `test_prompt_with_arguments` (whose `arg1` completes),
`test_prompt_with_embedded_resource`, `test_prompt_with_image` and
`test_input_required_result_prompt` (which asks, key `user_context`) are declared with `prompt`.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Annotated, Literal

from media import PNG, WAV

from rata import Answer, App, Audio, Ctx, EmbeddedResource, Image, Mcp, Part, PromptMessage, Question, Resource, Text, command, prompt, resource
from rata.talk import RootsRequest, SampleRequest, Titles

# tools-call-simple-text, tools-call-error, tools-call-image, -audio, -embedded-resource and
# -mixed-content (the suite's scenario descriptions give each tool's content); test_logging_tool
# and test_streaming_elicitation are server-stateless's probes (no log without a requested level;
# no request of the server's own on a 2026-07-28 call's stream); the tampered-state tool is
# input-required-result-tampered-state.


@command(can="conformance.tools", read_only=True)
def test_simple_text() -> str:
    """Tests simple text content response."""
    return "This is a simple text response for testing."


@command(can="conformance.tools", read_only=True)
def test_error_handling() -> str:
    """Tests error response handling: always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@command(can="conformance.tools", read_only=True)
def test_image_content() -> Image:
    """Tests image content response: a 1x1 red PNG."""
    return Image(PNG, mime_type="image/png")


@command(can="conformance.tools", read_only=True)
def test_audio_content() -> Audio:
    """Tests audio content response: a tenth of a second of silence."""
    return Audio(WAV, mime_type="audio/wav")


@command(can="conformance.tools", read_only=True)
def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response."""
    return EmbeddedResource("test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain")


@command(can="conformance.tools", read_only=True)
def test_multiple_content_types() -> list[Part]:
    """Tests response with multiple content types: text, an image and a resource, in that order."""
    resource = EmbeddedResource("test://mixed-content-resource", text='{"test":"data","value":123}', mime_type="application/json")
    return [Text("Multiple content types test:"), Image(PNG, mime_type="image/png"), resource]


@command(can="conformance.tools", read_only=True)
def test_logging_tool(ctx: Ctx) -> str:
    """Logs three lines; they go to the app's log, and to the client only at a level it asked for."""
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        ctx.log.info(step)
    return "Tool with logging executed successfully"


@command(can="conformance.ask", confirm_message="Please confirm")
def test_input_required_result_tampered_state() -> str:
    """Asks the user first (an input_required result with a signed requestState), then answers."""
    return "state-ok: the confirmation's requestState verified"


@command(can="conformance.ask", confirm_message="Allow the streaming elicitation test?")
def test_streaming_elicitation() -> str:
    """Asks the user mid-call; in 2026-07-28 that is an input_required result, never a request of the server's own."""
    return "confirmed"


# Talking back during a call: tools-call-with-progress, tools-call-with-logging (and logging-set-level,
# which needs no tool), tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums,
# tools-call-sampling (2025-11-25); in 2026-07-28 the same calls stop at the question with an
# input_required result, and the input-required-result-* scenarios call the tools below them.
# test_missing_capability is server-stateless's probe: a client that did not declare sampling gets -32021.


@command(can="conformance.tools", read_only=True)
def test_tool_with_progress(ctx: Ctx) -> str:
    """Reports progress 0, 50 and 100 of 100, about 50 ms apart."""
    for done in (0, 50, 100):
        ctx.progress(done, 100)
        if done < 100:
            time.sleep(0.05)
    return "Progress reported: 0, 50 and 100 of 100"


@command(can="conformance.tools", read_only=True)
def test_tool_with_logging(ctx: Ctx) -> str:
    """Logs three info lines about 50 ms apart; a client that set a log level gets them."""
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        ctx.log.info(step)
        if step != "Tool execution completed":
            time.sleep(0.05)
    return "Tool with logging executed successfully"


def _said(answer: Answer) -> str:
    """What the user answered, as the suite's descriptions write it."""
    return f"action={answer.action}, content={json.dumps(asdict(answer.value) if answer.accepted and answer.value is not None else {})}"


@dataclass
class Contact:
    """Who the user is.

    Args:
        username: User's response
        email: User's email address
    """

    username: str
    email: str


@command(can="conformance.tools", read_only=True)
def test_elicitation(ctx: Ctx, message: str) -> str:
    """Asks the user for a user name and an email address.

    Args:
        message: The message to show the user.
    """
    return f"User response: {_said(ctx.ask(Contact, message))}"


@dataclass
class Defaults:
    """A form with a default for every primitive type (SEP-1034)."""

    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Literal["active", "inactive", "pending"] = "active"
    verified: bool = True


@command(can="conformance.tools", read_only=True)
def test_elicitation_sep1034_defaults(ctx: Ctx) -> str:
    """Asks with a default for every primitive type."""
    return f"Elicitation completed: {_said(ctx.ask(Defaults, 'Please confirm these details'))}"


@dataclass
class Enums:
    """The five kinds of choice a form offers (SEP-1330)."""

    untitledSingle: Literal["option1", "option2", "option3"]
    titledSingle: Annotated[Literal["value1", "value2", "value3"], Titles({"value1": "First Option", "value2": "Second Option", "value3": "Third Option"})]
    legacyEnum: Annotated[Literal["opt1", "opt2", "opt3"], Titles({"opt1": "Option One", "opt2": "Option Two", "opt3": "Option Three"}, legacy=True)]
    untitledMulti: list[Literal["option1", "option2", "option3"]]
    titledMulti: Annotated[list[Literal["value1", "value2", "value3"]], Titles({"value1": "First Choice", "value2": "Second Choice", "value3": "Third Choice"})]


@command(can="conformance.tools", read_only=True)
def test_elicitation_sep1330_enums(ctx: Ctx) -> str:
    """Asks with the five kinds of choice."""
    return f"Elicitation completed: {_said(ctx.ask(Enums, 'Please pick'))}"


@command(can="conformance.tools", read_only=True)
def test_sampling(ctx: Ctx, prompt: str) -> str:
    """Asks the client's model.

    Args:
        prompt: The prompt to send to the model.
    """
    return f"LLM response: {ctx.sample(prompt, max_tokens=100).text}"


@dataclass
class Name:
    """The user's name."""

    name: str


@dataclass
class Confirmation:
    """Whether to go on."""

    ok: bool


@dataclass
class Color:
    """The user's favourite colour."""

    color: str


@command(can="conformance.tools", read_only=True)
def test_input_required_result_elicitation(ctx: Ctx) -> str:
    """Asks the user's name (key user_name), then greets them.

    The suite's sep-2322-ignore-unexpected-params answers this question before it is asked (no requestState):
    the question opts in to that (`ahead=True`); without it, rata counts only answers to questions it asked."""
    return f"Hello, {ctx.ask(Name, 'What is your name?', key='user_name', ahead=True).require().name}!"


@command(can="conformance.tools", read_only=True)
def test_input_required_result_sampling(ctx: Ctx) -> str:
    """Asks the client's model a question (key capital_question)."""
    return f"The model said: {ctx.sample('What is the capital of France?', max_tokens=100, key='capital_question').text}"


@command(can="conformance.tools", read_only=True)
def test_input_required_result_list_roots(ctx: Ctx) -> str:
    """Asks the client for its roots (key client_roots)."""
    return "Roots: " + ", ".join(root.uri for root in ctx.roots(key="client_roots"))


@command(can="conformance.tools", read_only=True)
def test_input_required_result_request_state(ctx: Ctx) -> str:
    """Asks for a confirmation; the answer comes back with the signed requestState, which rata checks."""
    answer = ctx.ask(Confirmation, "Please confirm").require()
    return f"state-ok: the requestState verified, ok={answer.ok}"


@command(can="conformance.tools", read_only=True)
def test_input_required_result_multiple_inputs(ctx: Ctx) -> str:
    """Asks the user, the client's model and the client's roots in one round."""
    name, greeting, roots = ctx.ask_all(
        Question(Name, "What is your name?", key="user_name"),
        SampleRequest("Generate a greeting", max_tokens=50, key="greeting"),
        RootsRequest(key="client_roots"),
    )
    return f"All three inputs received: {name.require().name}, {greeting.text!r}, {len(roots)} roots."


@command(can="conformance.tools", read_only=True)
def test_input_required_result_multi_round(ctx: Ctx) -> str:
    """Asks a name (step1), then a colour (step2), in two rounds."""
    name = ctx.ask(Name, "Step 1: What is your name?", key="step1").require().name
    color = ctx.ask(Color, "Step 2: What is your favorite color?", key="step2").require().color
    return f"{name} likes {color}."


@command(can="conformance.tools", read_only=True)
def test_input_required_result_capabilities(ctx: Ctx) -> str:
    """Asks only through what the client declared: the user, its model, its roots."""
    wanted = [
        *([Question(Name, "What is your name?", key="user_name")] if ctx.client_can("ask") else []),
        *([SampleRequest("Generate a greeting", max_tokens=50, key="greeting")] if ctx.client_can("sample") else []),
        *([RootsRequest(key="client_roots")] if ctx.client_can("roots") else []),
    ]
    if not wanted:
        return "The client declared nothing to ask through."
    return f"Answered: {len(ctx.ask_all(*wanted))} inputs."


@command(can="conformance.tools", read_only=True)
def test_missing_capability(ctx: Ctx) -> str:
    """Needs the client's model: a client that did not declare sampling gets -32021 (2026-07-28)."""
    return f"Sampled: {ctx.sample('Say hello', max_tokens=20).text}"


# server-stateless's list-change probe: an agent's call that changes the tool list (a grant given
# while the app runs), and the tool that change adds.
@command(can="conformance.tools")
def test_trigger_tool_change() -> str:
    """Adds a tool: grants agents test_added_tool's ability, so the tool list changes."""
    app.mcp_config.allow_abilities(["conformance.added"])
    return "tool list changed"


@command(can="conformance.added", read_only=True)
def test_added_tool() -> str:
    """A tool added at run time."""
    return "added"


# The same probe for the prompt list.
@command(can="conformance.tools")
def test_trigger_prompt_change() -> str:
    """Adds a prompt: grants agents test_added_prompt's ability, so the prompt list changes."""
    app.mcp_config.allow_abilities(["conformance.added_prompt"])
    return "prompt list changed"


@prompt(can="conformance.added_prompt")
def test_added_prompt() -> str:
    """A prompt added at run time."""
    return "added"


# prompts-list, prompts-get-simple, -with-args, -embedded-resource, -with-image, completion-complete
# and input-required-result-non-tool-request (the suite's scenario descriptions give each prompt's messages).

WORDS = ["paris", "park", "party", "pasta", "test", "testing"]


def words(value: str) -> list[str]:
    """What arg1 completes to: the words that start with what was typed."""
    return [word for word in WORDS if word.startswith(value)]


@prompt(can="conformance.prompts")
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@prompt(can="conformance.prompts", complete={"arg1": words})
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two arguments.

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@prompt(can="conformance.prompts")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Part | str]:  # noqa: N803 - the suite's argument name
    """A prompt that embeds a resource.

    Args:
        resourceUri: URI of the resource to embed
    """
    return [EmbeddedResource(resourceUri, text="Embedded resource content for testing.", mime_type="text/plain"), "Please process the embedded resource above."]


@prompt(can="conformance.prompts")
def test_prompt_with_image() -> list[Part | PromptMessage | str]:
    """A prompt with an image."""
    return [Image(PNG, mime_type="image/png"), PromptMessage("Please analyze the image above.")]


@dataclass
class PromptContext:
    context: str


@prompt(can="conformance.prompts")
def test_input_required_result_prompt(ctx: Ctx) -> str:
    """A prompt that asks the user for its context first."""
    answer = ctx.ask(PromptContext, "What context should the prompt use?", key="user_context").require()
    return f"Use this context: {answer.context}"


# resources-read-text, -binary, resources-subscribe, -unsubscribe; resources-templates-read
RESOURCES = (
    Resource(
        "test://static-text", text="This is the content of the static text resource.", description="A fixed text.", mime_type="text/plain",
        can="conformance.resources",
    ),
    Resource("test://static-binary", data=PNG, description="A 1x1 red PNG.", mime_type="image/png", can="conformance.resources"),
    Resource(
        "test://watched-resource", text="This resource is watched for updates.", description="A resource to subscribe to.", mime_type="text/plain",
        can="conformance.resources",
    ),
)


@resource("test://template/{id}/data", can="conformance.resources", mime_type="application/json", name="template-data")
def template_data(id: str) -> str:  # noqa: A002 - the template's name for it
    """Data for one id: the template's value substituted."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


app = (
    App("conformance", identifier="org.rata.conformance", version="1.0.0", description="The MCP conformance suite's fixture app.")
    .commands(
        test_simple_text,
        test_error_handling,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_logging_tool,
        test_tool_with_progress,
        test_tool_with_logging,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_sampling,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_capabilities,
        test_missing_capability,
        test_input_required_result_tampered_state,
        test_streaming_elicitation,
        test_trigger_tool_change,
        test_added_tool,
        test_trigger_prompt_change,
    )
    .prompts(
        test_simple_prompt,
        test_prompt_with_arguments,
        test_prompt_with_embedded_resource,
        test_prompt_with_image,
        test_input_required_result_prompt,
        test_added_prompt,
    )
    .resources(*RESOURCES, template_data)
    .mcp(Mcp().allow_abilities(["conformance.tools", "conformance.prompts", "conformance.resources"]).confirm("conformance.ask"))
)


if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
