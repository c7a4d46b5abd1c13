"""``prompts/list``, ``prompts/get`` and ``completion/complete`` over the wire, in both eras, in-process (AgentClient)."""

from __future__ import annotations

import base64
import dataclasses
import enum
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rata import App, Ctx, Image, Mcp, PromptMessage, ResourceLink, command, prompt
from rata.completion import MAX_SCAN, MAX_VALUE_CHARS, MAX_VALUES
from rata.mcp import wire
from rata.mcp.wire import McpError
from rata.testing import AgentClient

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
ERAS = ["modern", "legacy"]
runs: list[str] = []


class Tone(enum.Enum):
    WARM = "warm"
    BRIEF = "brief"
    WRY = "Wry"


def customer_ids(ctx: Ctx, value: str, arguments: dict[str, str]) -> list[str]:
    count = ctx.db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250) SELECT count(*) FROM n").fetchone()[0]
    base = [str(n) for n in range(1, count + 1)]
    return [n for n in base if n.startswith(value)] + ([f"for {arguments['tone']}"] if "tone" in arguments else [])


def endless(value: str):  # noqa: ANN201 - a generator that never ends
    n = 0
    while True:
        n += 1
        yield f"{value}{n}"


def broken(value: str) -> list[str]:
    raise RuntimeError("the completer broke")


def numbers() -> list[int]:
    return [1, 2]


def writer(ctx: Ctx) -> list[str]:
    ctx.db.execute("CREATE TABLE touched (n INTEGER)")
    return ["wrote"]


@prompt(can="notes.view", title="Follow up", complete={"customer_id": customer_ids, "note": endless})
def follow_up(customer_id: int, tone: Tone = Tone.WARM, note: str = "") -> str:
    """Draft a follow-up email.

    Args:
        customer_id: The customer to write to.
        tone: How it should sound.
        note: Anything to add.
    """
    runs.append("follow_up")
    return f"Write a {tone.value} email to customer #{customer_id}.{note}"


WRONG_COMPLETERS: dict[str, Any] = {"a": broken, "b": numbers, "c": writer}  # each wrong in its own way, on purpose


@prompt(can="notes.view", complete=WRONG_COMPLETERS)
def pictured(a: str = "", b: str = "", c: str = "", size: Literal["small", "large"] | None = None) -> list[Any]:
    """Show a picture."""
    return [Image(PNG, mime_type="image/png"), PromptMessage("A pixel.", role="assistant"), ResourceLink("test://pixel", "pixel")]


@dataclasses.dataclass
class Context:
    context: str


@prompt(can="notes.view")
def asking(ctx: Ctx, topic: str = "general") -> str:
    """Asks the user for context."""
    runs.append("asking")
    answer = ctx.ask(Context, "What context should the prompt use?", key="user_context").require()
    return f"Context for {topic}: {answer.context}"


@prompt(can="secret.view")
def secret() -> str:
    """Not granted."""
    return "no"


@prompt(can="notes.view")
def failing() -> str:
    """Fails."""
    raise RuntimeError("the prompt broke")


@command(can="notes.view", live=True, complete={"id": lambda value: [value + "0"]})
def notes_show(id: int) -> str:
    """One note."""
    return str(id)


@pytest.fixture
def app(tmp_path):
    made = (
        App("notes", identifier="com.example.notes", root=tmp_path)
        .commands(notes_show)
        .prompts(follow_up, pictured, asking, secret, failing)
        .mcp(Mcp().allow_abilities(["notes.*"]))
    )
    made.folder = tmp_path / "home"
    runs.clear()
    return made


def error_of(client: AgentClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return client.request_raw(method, params)["error"]


@pytest.mark.parametrize("era", ERAS)
def test_the_list_holds_the_granted_prompts_sorted_with_their_arguments_and_is_cacheable(app, era):
    with AgentClient(app, era=era) as client:
        result = client.request("prompts/list")
    prompts = result["prompts"]
    assert [p["name"] for p in prompts] == ["asking", "failing", "follow_up", "pictured"]  # not secret: not granted
    assert prompts[2] == {
        "name": "follow_up",
        "title": "Follow up",
        "description": "Draft a follow-up email.",
        "arguments": [
            {"name": "customer_id", "description": "The customer to write to.", "required": True},
            {"name": "tone", "description": "How it should sound.", "required": False},
            {"name": "note", "description": "Anything to add.", "required": False},
        ],
    }
    if era == "modern":
        assert (result["ttlMs"], result["cacheScope"], result["resultType"]) == (3_600_000, "public", "complete")
    else:
        assert "ttlMs" not in result and "resultType" not in result


def test_a_cursor_is_refused_and_a_2025_03_26_client_gets_no_titles(app):
    with AgentClient(app) as client:
        assert error_of(client, "prompts/list", {"cursor": "x"})["code"] == wire.INVALID_PARAMS
    with AgentClient(app, era="legacy", version="2025-03-26") as client:
        assert "title" not in client.list_prompts()[2]


@pytest.mark.parametrize("era", ERAS)
def test_get_converts_the_text_arguments_and_answers_the_messages(app, era):
    with AgentClient(app, era=era) as client:
        result = client.request("prompts/get", {"name": "follow_up", "arguments": {"customer_id": "42", "tone": "brief"}})
    assert result["description"] == "Draft a follow-up email."
    assert result["messages"] == [{"role": "user", "content": {"type": "text", "text": "Write a brief email to customer #42."}}]


@pytest.mark.parametrize("era", ERAS)
def test_parts_and_roles_come_back_shaped_for_the_version(app, era):
    with AgentClient(app, era=era) as client:
        messages = client.get_prompt("pictured")["messages"]
    assert messages[0] == {"role": "user", "content": {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}}
    assert messages[1] == {"role": "assistant", "content": {"type": "text", "text": "A pixel."}}
    assert messages[2]["content"] == {"type": "resource_link", "uri": "test://pixel", "name": "pixel"}
    with AgentClient(app, era="legacy", version="2025-03-26") as old:
        link = old.get_prompt("pictured")["messages"][2]["content"]
    assert link["type"] == "text" and "test://pixel" in link["text"]  # 2025-03-26 has no resource links


@pytest.mark.parametrize("era", ERAS)
def test_errors_are_32602_naming_the_problem_and_32603_for_a_failing_prompt(app, era):
    with AgentClient(app, era=era) as client:
        unknown = error_of(client, "prompts/get", {"name": "nope"})
        hidden = error_of(client, "prompts/get", {"name": "secret"})
        bad = error_of(client, "prompts/get", {"name": "follow_up", "arguments": {"customer_id": "forty"}})
        missing = error_of(client, "prompts/get", {"name": "follow_up"})
        not_text = error_of(client, "prompts/get", {"name": "follow_up", "arguments": {"customer_id": 42}})
        no_name = error_of(client, "prompts/get", {})
        failed = error_of(client, "prompts/get", {"name": "failing"})
    assert unknown == {"code": -32602, "message": "Unknown prompt: nope", "data": {"name": "nope"}}
    assert hidden == {"code": -32602, "message": "Unknown prompt: secret", "data": {"name": "secret"}}  # as if it did not exist
    assert bad["code"] == -32602 and "customer_id: must be an integer, not a string" in bad["message"] and "Fix them" in bad["message"]
    assert bad["data"] == {"fields": {"customer_id": ["must be an integer, not a string"]}}
    assert missing["code"] == -32602 and "customer_id: is required" in missing["message"]
    assert not_text["code"] == -32602 and 'argument "customer_id" must be a string' in not_text["message"]
    assert no_name["code"] == -32602
    assert failed == {"code": -32603, "message": "Getting the prompt failing failed: the prompt broke"}


def test_a_prompt_that_asks_answers_input_required_bound_to_it_then_runs_again(app):
    with AgentClient(app) as client:
        first = client.request("prompts/get", {"name": "asking", "arguments": {"topic": "sales"}})
        assert first["resultType"] == "input_required"
        assert list(first["inputRequests"]) == ["user_context"]
        request = first["inputRequests"]["user_context"]
        assert request["method"] == "elicitation/create"
        assert request["params"]["message"] == "What context should the prompt use?"
        assert request["params"]["requestedSchema"]["properties"]["context"]["type"] == "string"
        answer = {"user_context": {"action": "accept", "content": {"context": "Q3"}}}
        retry = {"name": "asking", "arguments": {"topic": "sales"}, "inputResponses": answer, "requestState": first["requestState"]}
        other = {**retry, "arguments": {"topic": "hr"}}
        assert error_of(client, "prompts/get", other)["code"] == -32602  # the state is bound to the prompt and its arguments
        done = client.request("prompts/get", retry)
        assert done["messages"][0]["content"]["text"] == "Context for sales: Q3"
        as_tool = error_of(client, "tools/call", {"name": "notes_show", "arguments": {"id": 1}, "requestState": first["requestState"]})
        assert as_tool["code"] == -32602  # nor is it good for a tool
    assert runs == ["asking", "asking"]


def test_a_prompt_that_asks_elicits_mid_call_in_the_2025_era(app):
    with AgentClient(app, era="legacy") as client:
        result = client.get_prompt("asking", answers=[{"context": "Q4"}])
    assert result["messages"][0]["content"]["text"] == "Context for general: Q4"


def test_agent_client_get_prompt_answers_input_required_too(app):
    with AgentClient(app) as client:
        assert client.get_prompt("asking", topic="x", answers=[{"context": "c"}])["messages"][0]["content"]["text"] == "Context for x: c"
        assert client.get_prompt("follow_up", customer_id=7)["messages"][0]["content"]["text"] == "Write a warm email to customer #7."


# --- completion/complete ---


@pytest.mark.parametrize("era", ERAS)
def test_a_completer_gets_the_value_and_the_other_arguments_and_at_most_100_are_sent(app, era):
    with AgentClient(app, era=era) as client:
        ones = client.complete("follow_up", "customer_id", "1", context={"tone": "warm"})
        raw = client.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "customer_id", "value": "24"}})
    assert ones["values"][:4] == ["1", "10", "11", "12"] and len(ones["values"]) == MAX_VALUES
    assert ones["total"] == 112 and ones["hasMore"] is True  # 111 numbers and "for warm"
    assert raw["completion"] == {"values": ["24", "240", "241", "242", "243", "244", "245", "246", "247", "248", "249"], "total": 11, "hasMore": False}
    assert "ttlMs" not in raw


def test_a_completer_reads_and_changes_nothing(app, caplog):
    with AgentClient(app) as client:
        assert client.complete("pictured", "c", "") == {"values": [], "total": 0, "hasMore": False}
        assert client.complete("follow_up", "customer_id", "25") == {"values": ["25", "250"], "total": 2, "hasMore": False}  # it may read
    assert "attempt to write a readonly database" in caplog.text
    with app.unit_of_work() as work:
        assert work.connection.execute("SELECT name FROM sqlite_master WHERE name = 'touched'").fetchall() == []


def test_enum_and_literal_arguments_complete_by_themselves_case_sensitive_first(app):
    with AgentClient(app) as client:
        assert client.complete("follow_up", "tone", "w") == {"values": ["warm", "Wry"], "total": 2, "hasMore": False}
        assert client.complete("follow_up", "tone", "W") == {"values": ["Wry", "warm"], "total": 2, "hasMore": False}
        assert client.complete("pictured", "size", "") == {"values": ["small", "large"], "total": 2, "hasMore": False}
        assert client.complete("follow_up", "note", "") != {}  # a completer is asked even for an empty value


def test_a_generator_that_never_ends_is_read_to_the_bound(app):
    with AgentClient(app) as client:
        result = client.complete("follow_up", "note", "n")
    assert result["values"][:2] == ["n1", "n2"] and len(result["values"]) == MAX_VALUES
    assert "total" not in result and result["hasMore"] is True
    assert MAX_SCAN >= MAX_VALUES


def test_a_failing_or_wrong_completer_completes_nothing_and_is_logged(app, caplog):
    with AgentClient(app) as client:
        assert client.complete("pictured", "a", "x") == {"values": [], "total": 0, "hasMore": False}
        assert client.complete("pictured", "b", "x") == {"values": [], "total": 0, "hasMore": False}
    logged = caplog.text
    assert "completer of pictured.a" in logged and "the completer broke" in logged
    assert "gave int 1, not a string" in logged


@pytest.mark.parametrize("era", ERAS)
def test_completion_errors_are_32602(app, era):
    with AgentClient(app, era=era) as client:
        unknown = error_of(client, "completion/complete", {"ref": {"type": "ref/prompt", "name": "secret"}, "argument": {"name": "x", "value": ""}})
        no_arg = error_of(client, "completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": "zip", "value": ""}})
        missing = error_of(client, "completion/complete", {"ref": {"type": "ref/prompt", "name": "follow_up"}})
        bad_ref = error_of(client, "completion/complete", {"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "x", "value": ""}})
        template = error_of(
            client, "completion/complete", {"ref": {"type": "ref/resource", "uri": "app://notes_show/{x}"}, "argument": {"name": "id", "value": ""}}
        )
    assert unknown["message"] == "Unknown prompt: secret"
    assert no_arg["message"] == "Invalid params: follow_up has no argument 'zip' (its arguments: customer_id, tone, note)"
    assert {e["code"] for e in (unknown, no_arg, missing, bad_ref, template)} == {-32602}
    assert "unknown resource template" in template["message"]


@pytest.mark.parametrize("era", ERAS)
def test_a_templates_argument_completes_from_its_commands_completer(app, era):
    with AgentClient(app, era=era) as client:
        assert [t["uriTemplate"] for t in client.list_templates()] == ["app://notes_show/{id}"]
        assert client.complete({"type": "ref/resource", "uri": "app://notes_show/{id}"}, "id", "4") == {"values": ["40"], "total": 1, "hasMore": False}
        no_arg = error_of(
            client, "completion/complete", {"ref": {"type": "ref/resource", "uri": "app://notes_show/{id}"}, "argument": {"name": "zip", "value": ""}}
        )
    assert no_arg["code"] == -32602


@settings(max_examples=60, deadline=None)
@given(
    value=st.one_of(st.text(max_size=50), st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2)),
    context=st.one_of(st.none(), st.dictionaries(st.text(max_size=5), st.one_of(st.text(max_size=5), st.integers()), max_size=3), st.text(max_size=3)),
    name=st.one_of(st.sampled_from(["customer_id", "tone", "note", "x"]), st.integers()),
)
def test_any_completion_input_is_an_answer_or_a_32602_never_a_crash(tmp_path_factory, value, context, name):
    app = App("notes", identifier="com.example.notes", root=tmp_path_factory.mktemp("c")).prompts(follow_up).mcp(Mcp().allow_abilities(["notes.*"]))
    app.folder = tmp_path_factory.mktemp("home")
    params: dict[str, Any] = {"ref": {"type": "ref/prompt", "name": "follow_up"}, "argument": {"name": name, "value": value}}
    if context is not None:
        params["context"] = {"arguments": context} if not isinstance(context, str) else context
    with AgentClient(app) as client:
        answer = client.request_raw("completion/complete", params)
    if "error" in answer:
        assert answer["error"]["code"] == -32602
    else:
        completion = answer["result"]["completion"]
        assert len(completion["values"]) <= MAX_VALUES and all(isinstance(v, str) and len(v) <= MAX_VALUE_CHARS for v in completion["values"])
        assert isinstance(completion["hasMore"], bool)


def test_discover_and_initialize_declare_prompts_and_completions(app):
    with AgentClient(app) as client:
        capabilities = client.request("server/discover")["capabilities"]
    with AgentClient(app, era="legacy") as client:
        legacy = client.server_info["capabilities"]
    for declared in (capabilities, legacy):
        assert declared["prompts"] == {"listChanged": True} and declared["completions"] == {}


def test_raw_errors_say_what_is_wrong_with_the_params(app):
    with AgentClient(app) as client:
        with pytest.raises(McpError, match='"arguments" must be an object of strings'):
            client.request("prompts/get", {"name": "follow_up", "arguments": ["42"]})
        with pytest.raises(McpError, match='"context" must be an object'):
            ref = {"type": "ref/prompt", "name": "follow_up"}
            client.request("completion/complete", {"ref": ref, "argument": {"name": "tone", "value": ""}, "context": 3})
