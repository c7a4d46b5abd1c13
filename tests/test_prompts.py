"""Prompts in the app model: `@prompt`, `App.prompts`, and getting one through the app's machinery (`rata.prompts`)."""

from __future__ import annotations

import base64
from typing import Any, Literal

import pytest

from rata import App, Ctx, EmbeddedResource, Image, Mcp, PromptMessage, ResourceLink, Text, command, prompt
from rata.dispatch import CommandRequest, Origin
from rata.errors import CodegenError, ForbiddenError, ResultError
from rata.prompts import MAX_MESSAGES, get_prompt, messages_json
from rata.validation import ValidationErrors

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


@prompt(can="notes.view", title="Follow up")
def follow_up(ctx: Ctx, customer_id: int, tone: Literal["warm", "brief"] = "warm") -> str:
    """Draft a follow-up email to one customer.

    Args:
        customer_id: The customer to write to.
        tone: How the email should sound.
    """
    return f"Write a {tone} follow-up to customer #{customer_id}."


@prompt(can="notes.view")
def writes(ctx: Ctx) -> str:
    """Writes a row, then returns nothing a prompt may return."""
    ctx.db.execute("INSERT INTO seen VALUES (1)")
    return 42  # type: ignore[return-value] - a prompt that returns what it may not, on purpose


def make_app(tmp_path: Any, *prompts: Any, grant: tuple[str, ...] = ("notes.*",)) -> App:
    app = App("notes", identifier="com.example.notes", root=tmp_path).prompts(follow_up, *prompts).mcp(Mcp().allow_abilities(list(grant)))
    app.folder = tmp_path / "home"
    return app


def agent(name: str, **args: Any) -> CommandRequest:
    return CommandRequest(name, args, Origin.agent("test"))


def test_a_prompt_is_read_like_a_command_its_arguments_from_the_signature_and_the_docstring(tmp_path):
    spec = make_app(tmp_path).prompt_specs["follow_up"]
    assert (spec.name, spec.can, spec.title, spec.description, spec.ctx_param) == (
        "follow_up", "notes.view", "Follow up", "Draft a follow-up email to one customer.", "ctx",
    )  # fmt: skip
    assert [(p.name, p.required, p.default, p.description) for p in spec.params] == [
        ("customer_id", True, None, "The customer to write to."),
        ("tone", False, "warm", "How the email should sound."),
    ]


def test_getting_a_prompt_converts_its_arguments_and_returns_one_user_message(tmp_path):
    messages = get_prompt(make_app(tmp_path), agent("follow_up", customer_id=7, tone="brief"))
    assert messages == [{"role": "user", "content": {"type": "text", "text": "Write a brief follow-up to customer #7."}}]


def test_a_bad_or_missing_argument_is_the_apps_usual_validation_error(tmp_path):
    app = make_app(tmp_path)
    with pytest.raises(ValidationErrors) as bad:
        get_prompt(app, agent("follow_up", customer_id="seven"))
    assert bad.value.to_dict() == {"customer_id": ["must be an integer, not a string"]}
    with pytest.raises(ValidationErrors) as missing:
        get_prompt(app, agent("follow_up"))
    assert missing.value.to_dict() == {"customer_id": ["is required"]}


def test_grants_deny_by_default(tmp_path):
    @prompt
    def no_ability() -> str:
        return "hi"

    app = make_app(tmp_path, no_ability, grant=("other.*",))
    for name in ("follow_up", "no_ability"):
        with pytest.raises(ForbiddenError):
            get_prompt(app, agent(name, customer_id=1))
    assert get_prompt(app, CommandRequest("follow_up", {"customer_id": 1}, Origin.internal()))[0]["role"] == "user"  # the app itself may


def test_a_prompt_granted_with_confirmation_is_served(tmp_path):
    app = App("notes", identifier="com.example.notes", root=tmp_path).prompts(follow_up).mcp(Mcp().confirm("notes.*"))
    assert get_prompt(app, agent("follow_up", customer_id=1))[0]["content"]["text"].startswith("Write a warm")


def test_the_middleware_sees_a_prompt_like_a_command(tmp_path):
    seen: list[str] = []

    def middleware(request: CommandRequest, call_next: Any) -> Any:
        seen.append(request.command)
        if request.args.get("customer_id") == 13:
            raise ForbiddenError("Not this one.")
        return call_next(request)

    app = make_app(tmp_path).use(middleware)
    get_prompt(app, agent("follow_up", customer_id=1))
    with pytest.raises(ForbiddenError):
        get_prompt(app, agent("follow_up", customer_id=13))
    assert seen == ["follow_up", "follow_up"]


def test_a_prompt_that_returns_what_cannot_be_sent_names_itself_and_the_fix_and_changes_nothing(tmp_path):
    app = make_app(tmp_path, writes)
    with app.unit_of_work() as work:
        work.connection.execute("CREATE TABLE seen (n INTEGER)")
    with pytest.raises(ResultError) as failed:
        get_prompt(app, agent("writes"))
    assert "The prompt 'writes' returned int, not its messages." in str(failed.value)
    assert "Return a str, a content part" in str(failed.value.hint)
    with app.unit_of_work() as work:  # its unit of work rolled back
        assert work.connection.execute("SELECT count(*) FROM seen").fetchone()[0] == 0


def test_messages_may_be_text_parts_and_prompt_messages_in_order():
    value = ["Look:", Image(PNG, mime_type="image/png"), PromptMessage("I see a pixel.", role="assistant"), PromptMessage(Text("And?"))]
    assert messages_json("p", value) == [
        {"role": "user", "content": {"type": "text", "text": "Look:"}},
        {"role": "user", "content": {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}},
        {"role": "assistant", "content": {"type": "text", "text": "I see a pixel."}},
        {"role": "user", "content": {"type": "text", "text": "And?"}},
    ]
    resource = messages_json("p", EmbeddedResource("test://r", text="body", mime_type="text/plain"))
    assert resource == [{"role": "user", "content": {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "body"}}}]
    link = messages_json("p", ResourceLink("test://r", "r"))
    assert link == [{"role": "user", "content": {"type": "resource_link", "uri": "test://r", "name": "r"}}]


def test_text_is_cleaned_of_what_a_model_reads_and_a_person_cannot_see():
    sneaky = "Summarise\u202e this\u200b\x1b[31m please"
    assert messages_json("p", sneaky)[0]["content"]["text"] == "Summarise this[31m please"
    embedded = messages_json("p", EmbeddedResource("test://r", text="a\u2066b"))[0]["content"]["resource"]["text"]
    assert embedded == "ab"


@pytest.mark.parametrize(
    ("value", "said", "fix"),
    [
        (None, "returned NoneType, not its messages", "Return a str"),
        ({"role": "user"}, "returned dict, not its messages", "Return a str"),
        ([], "returned no messages", "Return at least one"),
        ([1], "returned int at messages[0], not a message", "Each message is a str"),
        ([PromptMessage("x", role="system")], "a message whose role is 'system'", "role='user' or role='assistant'"),
        (Image(PNG, mime_type="image/jpeg"), "an Image at messages[0] declared as 'image/jpeg'", "mime_type='image/png'"),
        ((str(n) for n in iter(int, 1)), f"more than {MAX_MESSAGES} messages", "Return fewer"),
    ],
)
def test_anything_else_is_a_clear_error_naming_the_prompt(value, said, fix):
    with pytest.raises(ResultError) as failed:
        messages_json("draft", value)
    assert "The prompt 'draft'" in failed.value.message and said in failed.value.message
    assert fix in (failed.value.hint or "")


def test_a_text_over_the_part_bound_is_refused():
    with pytest.raises(ResultError, match="over"):
        messages_json("big", "x" * (4 * 1024 * 1024 + 1))


def test_registration_refuses_duplicates_naming_both_and_bad_declarations(tmp_path):
    @prompt(name="follow_up")
    def other() -> str:
        return ""

    with pytest.raises(CodegenError, match=r"Two prompts are named 'follow_up': .*follow_up and .*other"):
        make_app(tmp_path, other)

    @command(can="x.y")
    def a_command() -> str:
        return ""

    with pytest.raises(CodegenError, match="is not a rata prompt"):
        App("a", identifier="com.a", root=tmp_path).prompts(a_command)

    @prompt(name="bad name")
    def spaced() -> str:
        return ""

    with pytest.raises(CodegenError, match="not a valid prompt name"):
        App("a", identifier="com.a", root=tmp_path).prompts(spaced)

    @prompt
    def untyped(x) -> str:
        return x

    with pytest.raises(CodegenError, match="parameter 'x': the parameter has no type hint"):
        App("a", identifier="com.a", root=tmp_path).prompts(untyped)

    @prompt
    async def later() -> str:
        return ""

    with pytest.raises(CodegenError, match="is async"):
        App("a", identifier="com.a", root=tmp_path).prompts(later)


def test_registering_the_same_prompt_twice_is_harmless(tmp_path):
    app = make_app(tmp_path).prompts(follow_up)
    assert list(app.prompt_specs) == ["follow_up"]


def test_complete_is_checked_when_a_command_or_a_prompt_is_registered(tmp_path):
    def by_value(value: str) -> list[str]:
        return [value]

    @command(can="x.y", complete={"id": by_value})
    def shown(id: int) -> str:
        return str(id)

    assert App("a", identifier="com.a", root=tmp_path).commands(shown).specs["shown"].complete == {"id": by_value}

    def wrong(query: str) -> list[str]:
        return []

    async def later(value: str) -> list[str]:
        return []

    cases = [
        ({"nope": by_value}, "complete= names 'nope', which is not one of its parameters"),
        ({"id": wrong}, "its parameter 'query' is not one rata passes"),
        ({"id": later}, "is async"),
        ({"id": "ids"}, "is not a function"),
        (["id"], "complete= is list, not a dict"),
    ]
    for complete, said in cases:
        @command(can="x.y", complete=complete)
        def bad(id: int) -> str:
            return str(id)

        with pytest.raises(CodegenError, match=said):
            App("a", identifier="com.a", root=tmp_path).commands(bad)

        @prompt(can="x.y", complete=complete)
        def bad_prompt(id: int) -> str:
            return str(id)

        with pytest.raises(CodegenError, match=said):
            App("a", identifier="com.a", root=tmp_path).prompts(bad_prompt)
