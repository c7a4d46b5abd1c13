"""A command talking to its client during the call, in both eras, in-process: progress, logs, questions, sampling, roots."""

from __future__ import annotations

import dataclasses
import datetime
import json
import logging
import threading
import time
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rata import App, Ctx, Field, Mcp, Question, command
from rata.dispatch import CommandRequest, Origin
from rata.mcp import wire
from rata.mcp.forms import form_of
from rata.mcp.talking import MAX_LOG_MESSAGES, PROGRESS_INTERVAL, read_answer, read_roots, read_sample
from rata.talk import Answer, Format, RootsRequest, SampleRequest, TalkError, Titles
from rata.testing import AgentClient, InputRequested
from tests.mcp.talkers import app as talkers

SEAT = {"seat": "window", "meal": "veg", "bags": 2}


@pytest.fixture
def app(tmp_path: Path):
    made = talkers.talk_app()
    made.folder = tmp_path / "talkers"
    made.migrate()
    talkers.runs.clear()
    logger = logging.getLogger("talkers")
    level = logger.level
    logger.setLevel(logging.DEBUG)
    yield made
    logger.setLevel(level)
    made.close()


@pytest.fixture(params=["modern", "legacy"])
def era(request: pytest.FixtureRequest) -> str:
    return request.param


def sampled(params: dict[str, Any]) -> dict[str, Any]:
    text = params["messages"][0]["content"]["text"]
    return {"role": "assistant", "content": {"type": "text", "text": f"{len(text)} chars"}, "model": "test-model", "stopReason": "endTurn"}


def bookings(agent: AgentClient) -> list[str]:
    return agent.call("bookings").data if agent.era == "modern" else agent.call("bookings").data["result"]


# --- progress ----------------------------------------------------------------------------------


def test_progress_goes_to_a_client_that_gave_a_token_rate_limited_with_the_last_report_always_sent(app, era):
    with AgentClient(app, era=era) as agent:
        result = agent.call("count", {"n": 100}, progress=True)
    reports = result.progress
    assert reports[0]["progress"] == 1 and reports[-1] == {
        "progressToken": reports[0]["progressToken"],
        "progress": 100,
        "total": 100,
        "message": "step 100 of 100",
    }
    assert len(reports) < 10, "a tight loop of 100 reports is merged, not sent one by one"
    assert [r["progress"] for r in reports] == sorted({r["progress"] for r in reports})


def test_reports_spaced_wider_than_the_interval_all_go_out(app, era):
    with AgentClient(app, era=era) as agent:
        result = agent.call("count", {"n": 4, "pause": PROGRESS_INTERVAL * 1.5}, progress=True)
    assert [r["progress"] for r in result.progress] == [1, 2, 3, 4]


def test_no_token_no_progress(app, era):
    with AgentClient(app, era=era) as agent:
        agent.call("count", {"n": 5})
        assert [n for n in agent.notifications if n["method"] == "notifications/progress"] == []


@pytest.mark.parametrize("token", [True, None, 1.5, ["t"], {"t": 1}], ids=["bool", "null", "float", "list", "object"])
def test_a_progress_token_that_is_no_string_or_integer_gets_no_reports_and_the_call_its_result(app, token):
    with AgentClient(app, era="modern") as agent:
        answer = agent.request("tools/call", {"_meta": {"progressToken": token}, "name": "count", "arguments": {"n": 5}})
        assert answer["content"][0]["text"] == "5"
        assert [n for n in agent.notifications if n["method"] == "notifications/progress"] == []


def test_progress_that_does_not_grow_is_dropped_and_nothing_is_sent_after_the_result(tmp_path: Path, era):
    later = threading.Event()

    @command(can="p.run")
    def wobbly(ctx: Ctx) -> str:
        ctx.progress(5)
        ctx.progress(3)
        ctx.progress(5)
        time.sleep(PROGRESS_INTERVAL * 1.5)
        ctx.progress(7.5, 10)

        def after() -> None:
            time.sleep(0.05)
            ctx.progress(9, 10)
            later.set()

        threading.Thread(target=after).start()
        return "done"

    made = App("p", identifier="com.example.p").commands(wobbly).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "p"
    with AgentClient(made, era=era) as agent:
        result = agent.call("wobbly", progress=True)
        assert later.wait(5)
        time.sleep(0.05)
        assert [(r["progress"], r.get("total")) for r in result.progress] == [(5, None), (7.5, 10)]
        assert [n for n in agent.notifications if n["method"] == "notifications/progress"][-1]["params"]["progress"] == 7.5


def test_progress_comes_before_the_result_on_the_wire(app, era):
    lines: list[dict[str, Any]] = []
    with AgentClient(app, era=era) as agent:
        original = agent._on_bytes

        def heard(data: bytes) -> None:
            lines.append(json.loads(data))
            original(data)

        agent._server._send_bytes = heard
        agent.call("count", {"n": 3}, progress=True)
    last_progress = max(i for i, line in enumerate(lines) if line.get("method") == "notifications/progress")
    answer = next(i for i, line in enumerate(lines) if "result" in line and "content" in line["result"])
    assert last_progress < answer


def test_a_bad_progress_value_is_a_clear_error_for_the_command(tmp_path: Path):
    @command(can="p.run")
    def bad(ctx: Ctx) -> str:
        ctx.progress(float("nan"))
        return "unreachable"

    made = App("p", identifier="com.example.p").commands(bad).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "p"
    with AgentClient(made) as agent:
        result = agent.call("bad", progress=True)
    assert result.is_error and "ctx.progress: done must be a finite number, not nan" in result.text


# --- logs to the client -------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "heard"), [("debug", ["debug", "info", "warning"]), ("info", ["info", "warning"]), ("notice", ["warning"]), ("error", [])])
def test_logs_reach_the_client_from_the_level_it_asked_for(app, era, level, heard):
    with AgentClient(app, era=era, log_level=level) as agent:
        result = agent.call("shout", {"text": "hi"})
    assert [log["level"] for log in result.logs] == heard
    if "info" in heard:
        assert {"level": "info", "logger": "talkers", "data": {"message": "saying hi", "length": 2}} in result.logs


def test_no_level_asked_no_logs(app, era):
    with AgentClient(app, era=era) as agent:
        agent.call("shout", {"text": "hi"})
        assert [n for n in agent.notifications if n["method"] == "notifications/message"] == []


def test_a_log_message_is_bounded_shows_no_traceback_and_is_still_written_to_the_log_file(tmp_path: Path, era):
    from rata.logs import MESSAGE_CHARS, configure_logging, log_file

    @command(can="p.run")
    def noisy(ctx: Ctx) -> str:
        try:
            raise ValueError("bad row 7")
        except ValueError:
            ctx.log.exception("x" * 10_000)
        for i in range(MAX_LOG_MESSAGES + 5):
            ctx.log.warning("line %d", i)
        return "ok"

    made = App("noisy", identifier="com.example.noisy").commands(noisy).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "noisy"
    configure_logging(made.folder, "noisy")
    with AgentClient(made, era=era, log_level="warning") as agent:
        logs = agent.call("noisy").logs
    first = logs[0]
    assert first["level"] == "error" and first["data"]["exception"] == "ValueError: bad row 7"
    assert first["data"]["message"] == "x" * MESSAGE_CHARS + f"…(+{10_000 - MESSAGE_CHARS} chars)"
    assert len(logs) == MAX_LOG_MESSAGES + 1 and "6 more log messages" in logs[-1]["data"]["message"]
    written = log_file(made.folder, "noisy").read_text(encoding="utf-8").splitlines()
    assert any("Traceback" in line and "bad row 7" in line for line in written)
    assert sum('"line ' in line for line in written) == MAX_LOG_MESSAGES + 5


def test_a_modern_log_level_that_is_not_one_is_refused(app):
    with AgentClient(app) as agent:
        answer = agent.request_raw("tools/call", {"name": "shout", "arguments": {"text": "x"}, "_meta": {wire.META_LOG_LEVEL: "loud"}})
    assert answer["error"]["code"] == wire.INVALID_PARAMS


def test_logging_set_level_is_a_2025_method_and_checks_its_level(app):
    with AgentClient(app, era="legacy") as agent:
        with pytest.raises(wire.McpError) as refused:
            agent.request("logging/setLevel", {"level": "loud"})
        assert refused.value.code == wire.INVALID_PARAMS
        assert agent.request("logging/setLevel", {"level": "info"}) == {}
    with AgentClient(app) as agent:
        assert agent.request_raw("logging/setLevel", {"level": "info"})["error"]["code"] == wire.METHOD_NOT_FOUND
        assert agent.request("server/discover")["capabilities"]["logging"] == {}


# --- asking the user ----------------------------------------------------------------------------


def test_an_accepted_answer_is_the_typed_form_and_the_command_goes_on(app, era):
    with AgentClient(app, era=era) as agent:
        result = agent.call("book", {"city": "Oslo"}, answers=[SEAT])
        assert result.text == "Booked window to Oslo."
        assert bookings(agent) == ["Oslo/window/veg/2"]
    assert result.asked[0]["message"] == "Where would you like to sit on the way to Oslo?"
    assert result.asked[0]["requestedSchema"] == {
        "type": "object",
        "properties": {
            "seat": {"title": "Seat", "type": "string", "enum": ["window", "aisle"]},
            "meal": {
                "title": "Meal",
                "type": "string",
                "oneOf": [{"const": "std", "title": "Standard"}, {"const": "veg", "title": "Vegetarian"}],
                "default": "std",
            },
            "bags": {"title": "Bags", "type": "integer", "minimum": 0, "maximum": 3, "description": "Checked bags", "default": 0},
        },
        "required": ["seat"],
    }


@pytest.mark.parametrize("answer", ["decline", "cancel"])
def test_a_declined_or_cancelled_question_leaves_the_database_unchanged(app, era, answer):
    with AgentClient(app, era=era) as agent:
        result = agent.call("book", {"city": "Oslo"}, answers=[answer])
        assert result.is_error and ("declined" if answer == "decline" else "cancelled") in result.text
        assert bookings(agent) == []


def test_modern_reruns_the_command_and_rolls_back_the_asking_round_legacy_runs_it_once(app, era):
    with AgentClient(app, era=era) as agent:
        agent.call("book", {"city": "Oslo"}, answers=[SEAT])
        assert bookings(agent) == ["Oslo/window/veg/2"]  # the asking round's insert was rolled back: one row, not two
    assert talkers.runs == (["Oslo", "Oslo"] if era == "modern" else ["Oslo"])


def test_several_questions_in_one_round_and_a_second_round(app, era):
    with AgentClient(app, era=era) as agent:
        result = agent.call("survey", answers=[{"seat": "aisle"}, {"email": "ada@example.com", "topics": ["news"]}, "cancel"])
    assert json.loads(result.text) == [
        "Seat(seat='aisle', meal=<Meal.STANDARD: 'std'>, bags=0)",
        "Contact(email='ada@example.com', newsletter=False, topics=['news'])",
        "cancel",
    ]
    assert [asked["message"] for asked in result.asked] == ["Seat?", "Contact?", "And on the way back?"]
    assert result.asked[1]["requestedSchema"]["properties"]["email"] == {"title": "Email", "type": "string", "format": "email", "maxLength": 100}
    assert result.asked[1]["requestedSchema"]["properties"]["topics"] == {
        "title": "Topics",
        "type": "array",
        "items": {"type": "string", "enum": ["news", "deals"]},
    }


def test_the_two_questions_of_a_round_come_in_one_input_required(app):
    with AgentClient(app) as agent:
        first = agent.request("tools/call", {"name": "survey", "arguments": {}})
    assert first["resultType"] == "input_required"
    assert sorted(first["inputRequests"]) == ["ask-0", "ask-1"]
    assert {request["method"] for request in first["inputRequests"].values()} == {"elicitation/create"}
    assert "ttlMs" not in first and "content" not in first


@pytest.mark.parametrize(
    "wrong", [{"seat": "roof"}, {"seat": 1}, {"bags": 9, "seat": "aisle"}, {}, "yes", {"action": "accept", "content": "x"}, {"action": "maybe"}]
)
def test_an_answer_that_does_not_fit_the_form_is_asked_again(app, era, wrong):
    with AgentClient(app, era=era) as agent:
        result = agent.call("book", {"city": "Oslo"}, answers=[wrong if not isinstance(wrong, dict) or "action" in wrong or not wrong else wrong, SEAT])
        assert result.text == "Booked window to Oslo.", result.text
        assert len(result.asked) == 2 and result.asked[0] == result.asked[1]


def test_a_legacy_client_that_keeps_answering_wrong_gets_an_error_after_three_tries(app):
    with AgentClient(app, era="legacy") as agent:
        result = agent.call("book", {"city": "Oslo"}, answers=[{"seat": "roof"}] * 3)
        assert result.is_error and "did not fit what was asked 3 times" in result.text
        assert bookings(agent) == []


def test_extra_keys_in_an_answer_are_ignored(app, era):
    with AgentClient(app, era=era) as agent:
        assert agent.call("book", {"city": "Oslo"}, answers=[{**SEAT, "tip": 5}]).text == "Booked window to Oslo."


def test_a_question_the_test_did_not_answer_is_declined_and_reported(app, era):
    with AgentClient(app, era=era) as agent, pytest.raises(InputRequested, match="Where would you like to sit"):
        agent.call("book", {"city": "Oslo"})


def test_a_client_without_elicitation_gets_minus_32021_modern_and_an_error_result_legacy(app, era):
    with AgentClient(app, era=era, elicitation=False) as agent:
        if era == "modern":
            answer = agent.request_raw("tools/call", {"name": "book", "arguments": {"city": "Oslo"}})
            assert answer["error"] == {
                "code": -32021,
                "message": "book asks the user a question, which requires the elicitation capability",
                "data": {"requiredCapabilities": {"elicitation": {}}},
            }
        else:
            result = agent.call("book", {"city": "Oslo"})
            assert result.is_error and result.text.startswith(
                "book failed: book asks the user a question, and this client cannot answer (it did not declare the elicitation capability)."
            )
        assert bookings(agent) == []


def test_a_confirmed_command_asks_its_questions_after_the_confirmation(app, era):
    with AgentClient(app, era=era) as agent:
        agent.call("book", {"city": "Oslo"}, answers=[SEAT])
        result = agent.call("remove", {"city": "Oslo"}, confirm=True, answers=[{"email": "ada@example.com"}])
        assert result.data == (1 if era == "modern" else {"result": 1})
        assert bookings(agent) == []
        agent.call("book", {"city": "Rome"}, answers=[SEAT])
        assert agent.call("remove", {"city": "Rome"}, confirm=False).is_error
        assert bookings(agent) == ["Rome/window/veg/2"]


def test_asking_outside_an_mcp_call_is_a_clear_error(app):
    with pytest.raises(TalkError, match=r"ctx.ask needs an MCP client to answer, and this call came from frontend\(main\)"):
        app.dispatch(CommandRequest("book", {"city": "Oslo"}, Origin.frontend()))
    assert app.call("count", n=3) == 3  # progress is nothing there


# --- the request state of 2026-07-28 ------------------------------------------------------------


def first_round(agent: AgentClient, city: str = "Oslo") -> dict[str, Any]:
    asked = agent.request("tools/call", {"name": "book", "arguments": {"city": city}})
    assert asked["resultType"] == "input_required" and list(asked["inputRequests"]) == ["ask-0"]
    return asked


def retry(state: str, answer: Any, city: str = "Oslo") -> dict[str, Any]:
    return {"name": "book", "arguments": {"city": city}, "inputResponses": {"ask-0": answer}, "requestState": state}


def test_a_state_is_good_for_one_retry_and_bound_to_the_arguments(app):
    with AgentClient(app) as agent:
        state = first_round(agent)["requestState"]
        elsewhere = agent.request_raw("tools/call", retry(state, {"action": "accept", "content": SEAT}, city="Rome"))
        assert elsewhere["error"]["code"] == wire.INVALID_PARAMS and "belongs to another call" in elsewhere["error"]["message"]
        state = first_round(agent)["requestState"]
        done = agent.request("tools/call", retry(state, {"action": "accept", "content": SEAT}))
        assert done["resultType"] == "complete" and not done.get("isError")
        again = agent.request_raw("tools/call", retry(state, {"action": "accept", "content": SEAT}))
        assert again["error"]["code"] == wire.INVALID_PARAMS and "already used" in again["error"]["message"]
        assert bookings(agent) == ["Oslo/window/veg/2"]


def test_a_tampered_state_is_refused_even_for_a_command_that_would_not_ask(app):
    with AgentClient(app) as agent:
        state = first_round(agent)["requestState"]
        body, signature = state.split(".")
        forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + signature
        for params in (retry(forged, {"action": "decline"}), {"name": "count", "arguments": {"n": 1}, "requestState": forged}):
            answer = agent.request_raw("tools/call", params)
            assert answer["error"]["code"] == wire.INVALID_PARAMS, answer


def test_a_missing_answer_is_asked_again_with_a_new_state(app):
    with AgentClient(app) as agent:
        state = first_round(agent)["requestState"]
        again = agent.request("tools/call", {"name": "book", "arguments": {"city": "Oslo"}, "requestState": state, "inputResponses": {"other": {}}})
        assert again["resultType"] == "input_required" and list(again["inputRequests"]) == ["ask-0"] and again["requestState"] != state


RESPONSES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["action", "content", "seat", "meal", "bags", "ask-0", "x"]), inner, max_size=4)
    ),
    max_leaves=12,
)
ANSWERS = st.one_of(RESPONSES, st.fixed_dictionaries({"action": st.sampled_from(["accept", "decline", "cancel", "ok"]), "content": RESPONSES}))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(responses=st.one_of(RESPONSES, st.dictionaries(st.sampled_from(["ask-0", "ask-1", "confirm"]), ANSWERS, max_size=3)))
def test_whatever_input_responses_a_client_sends_the_call_asks_again_or_finishes_never_fails(app, responses):
    with AgentClient(app) as agent:
        state = first_round(agent)["requestState"]
        answer = agent.request_raw("tools/call", {"name": "book", "arguments": {"city": "Oslo"}, "requestState": state, "inputResponses": responses})
    if "error" in answer:
        assert answer["error"]["code"] == wire.INVALID_PARAMS and "inputResponses" not in answer["error"]["message"]
        return
    result = answer["result"]
    if result["resultType"] == "input_required":
        assert list(result["inputRequests"]) in (["ask-0"], ["ask-1"])
    else:
        assert result["content"][0]["text"].startswith(("Booked ", "book failed: The user "))


@settings(max_examples=200, deadline=None)
@given(raw=ANSWERS)
def test_reading_any_elicitation_result_gives_an_answer_or_none(raw):
    answer = read_answer(form_of(talkers.Seat), raw)
    assert answer is None or isinstance(answer, Answer)
    if answer is not None and answer.accepted:
        assert isinstance(answer.value, talkers.Seat)


@settings(max_examples=200, deadline=None)
@given(raw=RESPONSES)
def test_reading_any_sampling_or_roots_result_never_raises(raw):
    read_sample(raw)
    read_roots(raw)
    read_roots({"roots": raw})
    read_sample({"model": "m", "content": raw})


# --- forms --------------------------------------------------------------------------------------


class Plain(TypedDict):
    name: Annotated[str, Field(min_length=1)]
    age: int


@dataclasses.dataclass
class Nested:
    plain: Plain


@dataclasses.dataclass
class Patterned:
    code: Annotated[str, Field(pattern="[A-Z]+")]


@dataclasses.dataclass
class Mapping:
    tags: dict[str, str]


@dataclasses.dataclass
class Numbers:
    count: Literal[1, 2]


def test_a_typeddict_is_a_form_too():
    assert form_of(Plain).schema == {
        "type": "object",
        "properties": {"name": {"title": "Name", "type": "string", "minLength": 1}, "age": {"title": "Age", "type": "integer"}},
        "required": ["name", "age"],
    }


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (Nested, r"Nested.plain: an MCP form cannot hold a nested object \(Plain\)"),
        (Patterned, r"Patterned.code: an MCP form cannot hold a pattern"),
        (Mapping, r"Mapping.tags: an MCP form cannot hold"),
        (Numbers, r"Numbers.count: an MCP form cannot hold a choice of values that are not all strings"),
        (int, r"the form int is not a dataclass, TypedDict or NamedTuple"),
    ],
)
def test_a_form_an_mcp_client_cannot_show_is_refused_naming_the_field(form, message):
    with pytest.raises(TalkError, match=message):
        form_of(form)


def test_a_format_is_one_mcp_forms_know():
    with pytest.raises(ValueError, match="email, uri, date, date-time"):
        Format("phone")


# --- sampling and roots -------------------------------------------------------------------------


def test_sampling_asks_the_clients_model(app, era):
    asked: list[dict[str, Any]] = []

    def model(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return sampled(params)

    with AgentClient(app, era=era, sampling=model) as agent:
        result = agent.call("summarize", {"text": "a long story"})
    assert result.text == "test-model: 23 chars"
    assert asked == [{
        "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize: a long story"}}],
        "maxTokens": 50,
        "systemPrompt": "Be brief.",
        "modelPreferences": {"hints": [{"name": "claude"}], "intelligencePriority": 0.8},
    }]  # fmt: skip


def test_roots_are_the_clients(app, era):
    with AgentClient(app, era=era, roots=[{"uri": "file:///home/ada/project", "name": "project"}]) as agent:
        assert agent.call("folders").text == '["file:///home/ada/project"]'


@pytest.mark.parametrize(
    ("tool", "capability", "purpose"), [("summarize", "sampling", "asks the client's model"), ("folders", "roots", "asks the client for its roots")]
)
def test_a_client_without_sampling_or_roots_gets_the_documented_error(app, era, tool, capability, purpose):
    arguments = {"text": "x"} if tool == "summarize" else {}
    with AgentClient(app, era=era) as agent:
        if era == "modern":
            error = agent.request_raw("tools/call", {"name": tool, "arguments": arguments})["error"]
            assert error == {
                "code": -32021,
                "message": f"{tool} {purpose}, which requires the {capability} capability",
                "data": {"requiredCapabilities": {capability: {}}},
            }
        else:
            result = agent.call(tool, arguments)
            assert result.is_error and f"{tool} {purpose}, and this client cannot answer (it did not declare the {capability} capability)" in result.text


def test_a_malformed_sample_is_asked_again(app, era):
    answers = [{"role": "assistant", "content": "not a block", "model": "m"}, sampled({"messages": [{"content": {"text": "x"}}]})]
    with AgentClient(app, era=era, sampling=lambda params: answers.pop(0)) as agent:
        assert agent.call("summarize", {"text": "story"}).text == "test-model: 1 chars"
        assert answers == []


@dataclasses.dataclass
class When:
    """When to go.

    Args:
        day: The day you leave.
    """

    day: datetime.date
    at: datetime.datetime | None = None


def test_dates_are_text_with_a_format_and_come_back_as_dates_and_optional_fields_are_not_required():
    form = form_of(When)
    assert form.schema == {
        "type": "object",
        "properties": {
            "day": {"title": "Day", "type": "string", "format": "date", "description": "The day you leave."},
            "at": {"title": "At", "type": "string", "format": "date-time"},
        },
        "required": ["day"],
    }
    assert read_answer(form, {"action": "accept", "content": {"day": "2026-12-02"}}) == Answer("accept", When(datetime.date(2026, 12, 2)))
    assert read_answer(form, {"action": "accept", "content": {"day": "tomorrow"}}) is None


def test_a_cancelled_call_hears_no_more_progress_or_logs(tmp_path: Path):
    started, release = threading.Event(), threading.Event()

    @command(can="p.run")
    def long(ctx: Ctx) -> str:
        ctx.progress(1)
        started.set()
        release.wait(5)
        time.sleep(PROGRESS_INTERVAL * 1.5)
        ctx.progress(2)
        ctx.log.warning("still here")
        return "done"

    made = App("cancelled", identifier="com.example.cancelled").commands(long).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "c"
    with AgentClient(made, log_level="warning") as agent:
        meta = {**agent._meta(), "progressToken": "tok"}
        agent.send_line(wire.encode({"jsonrpc": "2.0", "id": "long-1", "method": "tools/call", "params": {"_meta": meta, "name": "long", "arguments": {}}}))
        assert started.wait(5)
        agent.notify("notifications/cancelled", {"requestId": "long-1"})
        release.set()
        agent.request("tools/list")  # served after the cancelled call ends (it runs on a worker; this waits for nothing)
        time.sleep(0.2)
        heard = [n for n in agent.notifications if n["method"] in ("notifications/progress", "notifications/message")]
    assert [n["params"].get("progress") for n in heard] == [1]
    assert "long-1" not in agent._responses


def test_a_command_that_never_stops_asking_fails_after_fifty_questions(tmp_path: Path):
    @command(can="p.run")
    def nag(ctx: Ctx) -> str:
        while True:
            ctx.ask(talkers.Seat, "Again?")

    made = App("nag", identifier="com.example.nag").commands(nag).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "nag"
    with AgentClient(made, era="legacy") as agent:
        result = agent.call("nag", answers=lambda message, schema: "decline")
    assert result.is_error and result.text.startswith("nag failed: nag asked its client more than 50 questions in one call.")
    assert len(result.asked) == 50


def test_answers_too_large_to_carry_are_a_clear_error(tmp_path: Path):
    @dataclasses.dataclass
    class Note:
        text: str

    @command(can="p.run")
    def notes(ctx: Ctx) -> int:
        return len([ctx.ask(Note, f"Note {i}?") for i in range(3)])

    made = App("notes", identifier="com.example.notes").commands(notes).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "notes"
    big = {"text": "x" * 600_000}
    with AgentClient(made) as agent:
        state = agent.request("tools/call", {"name": "notes", "arguments": {}})["requestState"]
        second = agent.request(
            "tools/call", {"name": "notes", "arguments": {}, "requestState": state, "inputResponses": {"ask-0": {"action": "accept", "content": big}}}
        )
        third = agent.request_raw(
            "tools/call",
            {"name": "notes", "arguments": {}, "requestState": second["requestState"], "inputResponses": {"ask-1": {"action": "accept", "content": big}}},
        )
    assert third["error"]["code"] == wire.INTERNAL_ERROR
    assert "ask fewer or shorter questions in one call" in third["error"]["message"]


# --- keys, answers sent without a state, what the client can --------------------------------------


@dataclasses.dataclass
class Name:
    name: str


def named_app(tmp_path: Path) -> App:
    @command(can="p.run")
    def greet(ctx: Ctx) -> str:
        answer = ctx.ask(Name, "What is your name?", key="user_name")
        return f"Hello, {answer.value.name}!" if answer.accepted else "Hello, stranger!"

    @command(can="p.run")
    def greet_ahead(ctx: Ctx) -> str:
        answer = ctx.ask(Name, "What is your name?", key="user_name", ahead=True)
        return f"Hello, {answer.value.name}!" if answer.accepted else "Hello, stranger!"

    @command(can="p.run")
    def whatever(ctx: Ctx) -> list[str]:
        """Ask only what the client can answer."""
        asked = []
        if ctx.client_can("ask"):
            asked.append(ctx.ask(Name, "Name?").action)
        if ctx.client_can("sample"):
            asked.append(ctx.sample("Hi", max_tokens=5, key="greeting").text or "")
        if ctx.client_can("roots"):
            asked.append(str(len(ctx.roots(key="client_roots"))))
        return asked

    @command(can="p.run")
    def twice(ctx: Ctx) -> str:
        ctx.ask_all(Question(Name, "A?", key="same"), Question(Name, "B?", key="same"))
        return "unreachable"

    made = App("named", identifier="com.example.named").commands(greet, greet_ahead, whatever, twice).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "named"
    return made


ALICE = {"action": "accept", "content": {"name": "Alice"}}


def test_a_question_may_name_its_key(tmp_path: Path):
    with AgentClient(named_app(tmp_path)) as agent:
        asked = agent.request("tools/call", {"name": "greet", "arguments": {}})
        assert list(asked["inputRequests"]) == ["user_name"]
        done = agent.request("tools/call", {"name": "greet", "arguments": {}, "inputResponses": {"user_name": ALICE}, "requestState": asked["requestState"]})
    assert done["content"][0]["text"] == "Hello, Alice!"


def test_answers_sent_before_any_question_count_for_nothing_unless_the_question_takes_them_ahead(tmp_path: Path):
    """A client cannot answer a question this server did not ask in this call (no requestState): it is asked."""
    with AgentClient(named_app(tmp_path)) as agent:
        asked = agent.request("tools/call", {"name": "greet", "arguments": {}, "inputResponses": {"user_name": ALICE}})
        assert asked["resultType"] == "input_required" and list(asked["inputRequests"]) == ["user_name"]
        done = agent.request("tools/call", {"name": "greet", "arguments": {}, "inputResponses": {"user_name": ALICE}, "requestState": asked["requestState"]})
        assert done["content"][0]["text"] == "Hello, Alice!"


def test_a_question_that_takes_answers_ahead_takes_them_and_ignores_extra_keys(tmp_path: Path):
    extra = {"user_name": ALICE, "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}}}
    with AgentClient(named_app(tmp_path)) as agent:
        done = agent.request("tools/call", {"name": "greet_ahead", "arguments": {}, "inputResponses": extra})
        assert done["content"][0]["text"] == "Hello, Alice!"
        for wrong in ({"user_name": 12345}, {"wrong_key": ALICE}, {"user_name": {"action": "accept", "content": {"name": 5}}}):
            again = agent.request("tools/call", {"name": "greet_ahead", "arguments": {}, "inputResponses": wrong})
            assert again["resultType"] == "input_required" and list(again["inputRequests"]) == ["user_name"]
        assert agent.request_raw("tools/call", {"name": "greet_ahead", "arguments": {}, "inputResponses": None})["result"]["resultType"] == "input_required"


def test_taking_answers_ahead_needs_the_questions_key():
    with pytest.raises(ValueError, match="ahead=True needs key="):
        Question(Name, "Name?", ahead=True)


def test_a_confirmation_is_never_taken_without_its_state(app):
    with AgentClient(app) as agent:
        asked = agent.request(
            "tools/call", {"name": "remove", "arguments": {"city": "Oslo"}, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}}}
        )
    assert asked["resultType"] == "input_required" and list(asked["inputRequests"]) == ["confirm"]


def test_a_command_asks_only_what_the_client_can_answer(tmp_path: Path):
    with AgentClient(named_app(tmp_path), elicitation=False, sampling=sampled) as agent:
        asked = agent.request("tools/call", {"name": "whatever", "arguments": {}})
        assert [request["method"] for request in asked["inputRequests"].values()] == ["sampling/createMessage"]
        assert list(asked["inputRequests"]) == ["greeting"]
        assert agent.call("whatever").data == ["2 chars"]
    with AgentClient(named_app(tmp_path), era="legacy", roots=[]) as agent:
        assert agent.call("whatever", answers=["cancel"]).data == {"result": ["cancel", "0"]}
    no_client = Ctx(named_app(tmp_path), CommandRequest("whatever", {}, Origin.frontend()), None)  # type: ignore[arg-type] - no unit of work: the call never reaches the database
    assert [no_client.client_can(what) for what in ("ask", "sample", "roots")] == [False, False, False]
    with pytest.raises(ValueError, match="ask, sample, roots"):
        no_client.client_can("elicit")


def test_two_questions_of_a_round_under_one_key_are_refused(tmp_path: Path):
    with AgentClient(named_app(tmp_path)) as agent:
        result = agent.call("twice")
    assert result.is_error and "twice asked two questions under one key in one round: ['same', 'same']" in result.text


@pytest.mark.parametrize("key", ["confirm", "", "x" * 101, "tab\there", 5])
def test_a_key_rata_cannot_use_is_refused(key):
    with pytest.raises(ValueError, match="key"):
        Question(Name, "?", key=key)


def test_a_held_report_goes_out_when_the_interval_is_over_without_waiting_for_the_next(tmp_path: Path):
    heard = threading.Event()

    @command(can="p.run")
    def slow(ctx: Ctx) -> str:
        ctx.progress(1, 3)
        ctx.progress(2, 3)  # held: too soon after the first
        heard.wait(2)  # the test sees it arrive while the command still runs
        return "done"

    made = App("slow", identifier="com.example.slow").commands(slow).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "slow"
    with AgentClient(made) as agent:
        original = agent._on_bytes

        def on_bytes(data: bytes) -> None:
            original(data)
            if b'"progress":2' in data.replace(b" ", b""):
                heard.set()

        agent._on_bytes = on_bytes
        agent._server._send_bytes = on_bytes
        started = time.monotonic()
        result = agent.call("slow", progress=True)
    assert heard.is_set() and time.monotonic() - started < 1.5
    assert [r["progress"] for r in result.progress] == [1, 2]


@dataclasses.dataclass
class Enums:
    """The five kinds of choice MCP forms have (SEP-1330)."""

    untitled_single: Literal["option1", "option2", "option3"]
    titled_single: Annotated[Literal["value1", "value2"], Titles({"value1": "First Option", "value2": "Second Option"})]
    legacy_enum: Annotated[Literal["opt1", "opt2"], Titles({"opt1": "Option One", "opt2": "Option Two"}, legacy=True)]
    untitled_multi: list[Literal["option1", "option2"]]
    titled_multi: Annotated[list[Literal["value1", "value2"]], Titles({"value1": "First Choice", "value2": "Second Choice"}), Field(min_length=1)]


@dataclasses.dataclass
class Defaults:
    """A default for each primitive kind (SEP-1034)."""

    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Literal["active", "inactive", "pending"] = "active"
    verified: bool = True


def test_every_kind_of_choice_and_every_default_mcp_forms_have():
    assert form_of(Enums).schema["properties"] == {
        "untitled_single": {"title": "Untitled single", "type": "string", "enum": ["option1", "option2", "option3"]},
        "titled_single": {
            "title": "Titled single",
            "type": "string",
            "oneOf": [{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}],
        },
        "legacy_enum": {"title": "Legacy enum", "type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]},
        "untitled_multi": {"title": "Untitled multi", "type": "array", "items": {"type": "string", "enum": ["option1", "option2"]}},
        "titled_multi": {
            "title": "Titled multi",
            "type": "array",
            "items": {"anyOf": [{"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}]},
            "minItems": 1,
        },
    }
    answer = {
        "untitled_single": "option1",
        "titled_single": "value1",
        "legacy_enum": "opt1",
        "untitled_multi": ["option1", "option2"],
        "titled_multi": ["value2"],
    }
    assert read_answer(form_of(Enums), {"action": "accept", "content": answer}) == Answer("accept", Enums(**answer))
    assert read_answer(form_of(Enums), {"action": "accept", "content": {**answer, "titled_multi": []}}) is None
    assert {name: prop["default"] for name, prop in form_of(Defaults).schema["properties"].items()} == {
        "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True,
    }  # fmt: skip
    assert "required" not in form_of(Defaults).schema


@dataclasses.dataclass
class BadTitles:
    size: Annotated[str, Titles({"s": "Small"})]


@dataclasses.dataclass
class MissingTitle:
    size: Annotated[Literal["s", "l"], Titles({"s": "Small"})]


def test_titles_must_sit_on_a_choice_and_name_every_value():
    with pytest.raises(TalkError, match="BadTitles.size: an MCP form cannot hold Titles on a field that is not a choice"):
        form_of(BadTitles)
    with pytest.raises(TalkError, match=r"MissingTitle.size: an MCP form cannot hold Titles without a title for \['l'\]"):
        form_of(MissingTitle)


def test_the_message_a_user_reads_shows_hidden_characters_as_escapes_and_is_bounded(tmp_path: Path):
    @command(can="p.run")
    def sneaky(ctx: Ctx, text: str) -> str:
        return ctx.ask(Name, f"Rename {text}?").action

    made = App("sneaky", identifier="com.example.sneaky").commands(sneaky).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "sneaky"
    with AgentClient(made) as agent:
        asked = agent.call("sneaky", {"text": "exe.txt\u202e" + "x" * 5000}, answers=["decline"]).asked[0]["message"]
    assert asked.startswith("Rename exe.txt\\u202exxx") and "\u202e" not in asked and len(asked) < 2100


def mixed_app(tmp_path: Path) -> App:
    @command(can="p.run")
    def everything(ctx: Ctx) -> str:
        """A question, the client's model and its roots, in one round."""
        name, greeting, roots = ctx.ask_all(
            Question(Name, "What is your name?", key="user_name"),
            SampleRequest("Generate a greeting", max_tokens=50, key="greeting"),
            RootsRequest(key="client_roots"),
        )
        return f"{greeting.text}, {name.value.name}, in {[root.uri for root in roots]}"

    made = App("mixed", identifier="com.example.mixed").commands(everything).mcp(Mcp().allow_abilities(["p.run"]))
    made.folder = tmp_path / "mixed"
    return made


def test_a_question_a_sampling_and_a_roots_request_in_one_round(tmp_path: Path, era):
    model = lambda params: {"role": "assistant", "content": {"type": "text", "text": "Hello there"}, "model": "m"}  # noqa: E731
    with AgentClient(mixed_app(tmp_path), era=era, sampling=model, roots=[{"uri": "file:///srv", "name": "srv"}]) as agent:
        if era == "modern":
            first = agent.request("tools/call", {"name": "everything", "arguments": {}})
            assert {key: request["method"] for key, request in first["inputRequests"].items()} == {
                "user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list",
            }  # fmt: skip
            assert first["inputRequests"]["client_roots"] == {"method": "roots/list", "params": {}}
        result = agent.call("everything", answers=[{"name": "Alice"}])
    assert result.text == "Hello there, Alice, in ['file:///srv']"


def test_a_client_lacking_one_capability_of_a_mixed_round_hears_which(tmp_path: Path):
    with AgentClient(mixed_app(tmp_path), roots=[]) as agent:
        error = agent.request_raw("tools/call", {"name": "everything", "arguments": {}})["error"]
    assert error == {
        "code": -32021,
        "message": "everything asks the client's model, which requires the sampling capability",
        "data": {"requiredCapabilities": {"sampling": {}}},
    }


def test_ask_all_takes_only_questions_and_requests(app):
    ctx = Ctx(app, CommandRequest("book", {}, Origin.frontend()), None)  # type: ignore[arg-type] - no unit of work: the call never reaches the database
    with pytest.raises(TypeError, match="ctx.ask_all takes Question, SampleRequest and RootsRequest values, not str"):
        ctx.ask_all(cast(Any, "Name?"))  # not a question, on purpose
    with pytest.raises(TalkError, match=r"ctx.roots needs an MCP client to answer, and this call came from frontend\(main\)"):
        ctx.roots()


def test_sampling_params_carry_images_and_refuse_what_a_request_cannot_carry():
    from rata.mcp.talking import sampling_params
    from rata.talk import Message

    shaped = sampling_params(
        [Message("What is this?"), Message(image=b"\x89PNG", mime_type="image/png")], {"max_tokens": 10, "cost": 0.2, "temperature": 0.5, "stop": ["END"]}
    )
    assert shaped == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is this?"}},
            {"role": "user", "content": {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}},
        ],
        "maxTokens": 10,
        "modelPreferences": {"costPriority": 0.2},
        "temperature": 0.5,
        "stopSequences": ["END"],
    }
    for options, said in (({"max_tokens": 0}, "max_tokens must be a positive integer"), ({"max_tokens": 5, "speed": 2}, "speed must be a number from 0 to 1"),
                          ({"max_tokens": 5, "temperature": float("inf")}, "temperature must be a number")):  # fmt: skip
        with pytest.raises(TalkError, match=said):
            sampling_params([Message("x")], options)
    with pytest.raises(TalkError, match="at least one message"):
        sampling_params([], {"max_tokens": 5})
    with pytest.raises(ValueError, match="needs its mime_type"):
        Message(image=b"x")
    with pytest.raises(ValueError, match="exactly one of text= and image="):
        Message("x", image=b"y", mime_type="image/png")


# --- roots are local file:// URIs, refused whole otherwise ---------------------------------------------------------------

HOSTILE_ROOTS = ["../x", "javascript:alert(1)", "\u202efile:///x", "file:///../../etc/passwd", "file:///a/%2E%2E/b", "file://evil.example/x",
                 "file:///x?q", "file:///x#f", "file:///a%00b", "file:///%FF", "https://x/y", "file:///x y"]


@pytest.mark.parametrize("uri", HOSTILE_ROOTS)
def test_a_root_that_is_no_local_file_uri_never_reaches_the_command(app, era, uri):
    """The whole answer is malformed: asked again (up to 3 times in the 2025 era, then the call fails; each round in 2026-07-28)."""
    with AgentClient(app, era=era, roots=[{"uri": "file:///home/ada/project"}, {"uri": uri}]) as agent:
        if era == "legacy":
            result = agent.call("folders")
            assert result.is_error and "did not fit what was asked 3 times" in result.text
        else:
            with pytest.raises(AssertionError, match="kept asking for input"):
                agent.call("folders")


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/ada/my%20project", "/home/ada/my project"),
        ("file://localhost/srv", "/srv"),
        ("file:///C:/Users/ada", "C:/Users/ada"),
        ("FILE:///x", "/x"),
    ],
)
def test_a_roots_path_is_its_local_folder_percent_decoded(uri, path):
    from pathlib import Path

    roots = read_roots({"roots": [{"uri": uri}]})
    assert roots is not None
    (root,) = roots
    assert root.path == Path(path)


@given(st.text(max_size=60), st.text(alphabet="/.%2Ea-z:", max_size=30))
def test_any_root_a_client_sends_is_refused_or_names_an_absolute_path_without_dot_segments(text, tail):
    for uri in (text, "file://" + text, "file:///" + tail):
        roots = read_roots({"roots": [{"uri": uri}]})
        if roots is not None:
            path = roots[0].path
            assert path.is_absolute() or path.as_posix()[1:3] == ":/"
            assert ".." not in path.parts and "\x00" not in str(path)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["roots", "uri", "name", "role", "content", "model", "type", "text"]), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=_json)
def test_any_sampling_or_roots_answer_in_input_responses_is_taken_asked_again_or_refused_never_a_crash(app, answer):
    """2026-07-28: what a client puts under the round's key, with the state the server gave, is read as strictly as a 2025 answer."""
    with AgentClient(app, sampling=sampled, roots=[]) as agent:
        for tool, arguments in (("summarize", {"text": "x"}), ("folders", {})):
            asked = agent.request("tools/call", {"name": tool, "arguments": arguments})
            assert asked["resultType"] == "input_required"
            (key,) = asked["inputRequests"]
            retry = agent.request_raw(
                "tools/call", {"name": tool, "arguments": arguments, "inputResponses": {key: answer}, "requestState": asked["requestState"]}
            )
            result = retry.get("result")
            assert result is not None, retry
            assert result.get("resultType") in ("input_required", "complete"), result
            if result.get("resultType") == "complete" and tool == "folders":
                assert all(uri.startswith("file:") for uri in result["structuredContent"])
