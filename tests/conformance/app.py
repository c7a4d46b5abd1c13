"""The conformance fixture: a rata app serving what the official MCP conformance suite calls.

The suite (`@modelcontextprotocol/conformance`, pinned in .ci/peers) names the tools it calls
(`test_simple_text`, `test_image_content`, ...) and what each must do; this app declares
them with rata's public API only (`App`, `Mcp`, `command`, the content parts `Image`, `Audio`,
`EmbeddedResource`, `Text`), the way an app developer would. Serve it on stdio like any app file:

    RATA_HOME=/tmp/conformance python tests/conformance/app.py --mcp

`tests/conformance/test_conformance.py` runs the suite against it through a stdio to
Streamable HTTP bridge. A scenario whose tool is missing here waits for a rata feature; the
test's `WAITING` table names it.

To add, each when its rata feature lands (the suite's scenario descriptions give the exact texts):

- Progress: `test_tool_with_progress` (0, 50, 100 of 100, about 50 ms apart): tools-call-with-progress.
- Logs to the client: `test_tool_with_logging` (three info lines 50 ms apart) and `logging/setLevel`:
  tools-call-with-logging, logging-set-level.
- General elicitation: `test_elicitation(message)`, `test_elicitation_sep1034_defaults`,
  `test_elicitation_sep1330_enums` (2025-11-25); `test_input_required_result_elicitation` (key
  `user_name`), `_request_state` (key `confirm`, answer with "state-ok"), `_multi_round` (`step1`,
  then `step2`) (2026-07-28).
- Sampling and roots: `test_sampling(prompt)`, `test_missing_capability` (needs `sampling`; a
  server-stateless check), `test_input_required_result_sampling` (`capital_question`),
  `_list_roots` (`client_roots`), `_multiple_inputs` (all three), `_capabilities`.
- Issue 16: the prompts `test_simple_prompt`, `test_prompt_with_arguments`,
  `test_prompt_with_embedded_resource`, `test_prompt_with_image`, `test_input_required_result_prompt`;
  the resources `test://static-text`, `test://static-binary`, `test://watched-resource`, the
  template `test://template/{id}/data`; `completion/complete`.
"""

from __future__ import annotations

from media import PNG, WAV

from rata import App, Audio, Ctx, EmbeddedResource, Image, Mcp, Part, Text, command

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
        test_input_required_result_tampered_state,
        test_streaming_elicitation,
    )
    .mcp(Mcp().allow_abilities(["conformance.tools"]).confirm("conformance.ask"))
)


if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
