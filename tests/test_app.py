"""The app model: registering commands, grants, and the one dispatch path."""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass

import pytest

from rata import App, CommandRequest, Ctx, Mcp, Origin, ValidationErrors, command
from rata.errors import CodegenError, ConfirmationRequiredError, ForbiddenError, ResultError, UnknownCommandError


@dataclass
class Meeting:
    title: str
    at: dt.datetime


@command(can="meetings.create")
def meetings_plan(ctx: Ctx, meeting: Meeting, attendees: list[str] = []) -> Meeting:  # noqa: B006 - never mutated
    """Plan a meeting."""
    return Meeting(meeting.title.upper(), meeting.at + dt.timedelta(hours=1))


@command(can="meetings.view", live=True)
async def meetings_count(ctx: Ctx) -> int:
    """Count meetings (async)."""
    await asyncio.sleep(0)
    return 3


@command(can="meetings.delete")
def meetings_delete(ctx: Ctx, id: int) -> None:
    """Delete one."""


@command
def internal_only(ctx: Ctx) -> str:
    """No ability: never a tool."""
    return ctx.origin.kind


@command(can="meetings.view")
def lies_about_its_result() -> int:
    """Says int, returns a string."""
    return "three"  # type: ignore[return-value] - a command that lies about its result, on purpose


def make_app() -> App:
    return (
        App("meet", identifier="com.example.meet")
        .commands(meetings_plan, meetings_count, meetings_delete, internal_only, lies_about_its_result)
        .allow_abilities(["meetings.view", "meetings.create"])
        .mcp(Mcp().allow_abilities(["meetings.view", "meetings.create"]).confirm("meetings.delete"))
    )


def test_dispatch_converts_json_arguments_to_the_declared_types_and_the_result_back():
    result = make_app().dispatch(
        CommandRequest("meetings_plan", {"meeting": {"title": "standup", "at": "2026-07-28T09:30:00+00:00"}})
    )
    assert result == {"title": "STANDUP", "at": "2026-07-28T10:30:00+00:00"}


def test_an_async_command_is_awaited():
    assert make_app().call("meetings_count") == 3


def test_bad_arguments_raise_validation_errors_by_field_path():
    with pytest.raises(ValidationErrors) as caught:
        make_app().dispatch(CommandRequest("meetings_plan", {"meeting": {"title": 5, "at": "tuesday"}, "extra": 1}))
    assert caught.value.to_dict() == {
        "extra": ["is not a parameter (expected one of: attendees, meeting)"],
        "meeting.at": ["must be an ISO 8601 date-time such as 2026-07-28T09:30:00Z, not 'tuesday'"],
        "meeting.title": ["must be a string, not an integer"],
    }


def test_a_missing_required_argument_is_named():
    with pytest.raises(ValidationErrors) as caught:
        make_app().call("meetings_delete")
    assert caught.value.to_dict() == {"id": ["is required"]}


def test_an_unknown_command_suggests_the_closest_name():
    with pytest.raises(UnknownCommandError) as caught:
        make_app().call("meetings_cont")
    assert caught.value.hint == "Did you mean 'meetings_count'?"


def test_an_agent_may_call_only_what_the_agent_grant_allows():
    app = make_app()
    assert app.dispatch(CommandRequest("meetings_count", origin=Origin.agent("claude-code"))) == 3
    with pytest.raises(ForbiddenError):
        app.dispatch(CommandRequest("internal_only", origin=Origin.agent("claude-code")))


def test_an_agent_needs_confirmation_for_a_confirmed_ability():
    app = make_app()
    request = CommandRequest("meetings_delete", {"id": 1}, origin=Origin.agent("codex"))
    with pytest.raises(ConfirmationRequiredError):
        app.dispatch(request)
    request.confirmed = True
    assert app.dispatch(request) is None


def test_the_frontend_grant_is_separate_from_the_agent_grant():
    app = make_app()
    with pytest.raises(ForbiddenError) as caught:
        app.dispatch(CommandRequest("meetings_delete", {"id": 1}, origin=Origin.frontend()))
    assert "meetings.delete" in caught.value.message
    assert app.dispatch(CommandRequest("internal_only", origin=Origin.frontend("main"))) == "frontend"


def test_no_grant_at_all_means_agents_get_nothing():
    app = App("bare", identifier="com.example.bare").commands(meetings_count)
    with pytest.raises(ForbiddenError):
        app.dispatch(CommandRequest("meetings_count", origin=Origin.agent("x")))


def test_middleware_runs_outermost_first_and_sees_the_request():
    seen: list[str] = []

    def outer(request, call_next):
        seen.append(f"outer {request.command} {request.origin}")
        result = call_next(request)
        seen.append("outer done")
        return result

    def inner(request, call_next):
        seen.append("inner")
        return call_next(request) * 10

    app = make_app().use(outer).use(inner)
    assert app.dispatch(CommandRequest("meetings_count", origin=Origin.agent("claude-code"))) == 30
    assert seen == ["outer meetings_count agent(claude-code)", "inner", "outer done"]


def test_middleware_may_refuse_a_call():
    def no_agents_at_night(request, call_next):
        if request.origin.is_agent:
            raise PermissionError("agents sleep at night")
        return call_next(request)

    app = make_app().use(no_agents_at_night)
    with pytest.raises(PermissionError):
        app.dispatch(CommandRequest("meetings_count", origin=Origin.agent("claude-code")))
    assert app.call("meetings_count") == 3


def test_grants_are_checked_before_any_middleware_runs():
    calls = []
    app = make_app().use(lambda request, call_next: calls.append(request) or call_next(request))
    with pytest.raises(ForbiddenError):
        app.dispatch(CommandRequest("internal_only", origin=Origin.agent("x")))
    assert calls == []


def test_a_result_that_does_not_match_the_return_type_is_a_result_error():
    with pytest.raises(ResultError) as caught:
        make_app().call("lies_about_its_result")
    assert "lies_about_its_result" in caught.value.message and "not an integer" in caught.value.message


def test_two_commands_with_one_name_are_refused():
    @command(name="meetings_count")
    def other() -> int:
        """Another."""
        return 1

    with pytest.raises(CodegenError) as caught:
        make_app().commands(other)
    assert "Two commands are named 'meetings_count'" in caught.value.message


def test_a_function_without_the_decorator_is_refused_with_the_fix():
    def plain() -> None:
        """Plain."""

    with pytest.raises(CodegenError) as caught:
        App("x", identifier="com.example.x").commands(plain)
    assert "@rata.command" in (caught.value.hint or "")


def test_a_command_runs_in_one_transaction_rolled_back_when_it_fails():
    @command
    def setup(ctx: Ctx) -> None:
        """Create the table."""
        ctx.db.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)")

    @command
    def insert_then_refuse(ctx: Ctx, x: int) -> None:
        """Insert, then find a problem."""
        ctx.db.execute("INSERT INTO t VALUES (?)", (x,))
        if x < 0:
            raise ValidationErrors({"x": "must not be negative"})

    @command
    def count(ctx: Ctx) -> int:
        """Rows."""
        return ctx.db.execute("SELECT count(*) FROM t").fetchone()[0]

    app = App("tx", identifier="com.example.tx").commands(setup, insert_then_refuse, count)
    app.call("setup")
    app.call("insert_then_refuse", x=1)
    with pytest.raises(ValidationErrors):
        app.call("insert_then_refuse", x=-1)
    assert app.call("count") == 1
    app.close()


def test_ctx_is_injected_and_never_part_of_the_parameters():
    spec = make_app().spec("meetings_plan")
    assert spec.ctx_param == "ctx"
    assert [p.name for p in spec.params] == ["meeting", "attendees"]


def test_the_app_root_is_the_folder_of_the_module_that_built_it():
    from pathlib import Path

    assert make_app().root == Path(__file__).resolve().parent
    assert make_app().migrations_dir == Path(__file__).resolve().parent / "migrations"


def _ledger_app() -> App:
    @command
    def ledger_setup(ctx: Ctx) -> None:
        """Create the tables."""
        ctx.db.execute("CREATE TABLE IF NOT EXISTS entries (x INTEGER)")
        ctx.db.execute("CREATE TABLE IF NOT EXISTS notes (x INTEGER)")

    @command
    def ledger_add(ctx: Ctx, x: int) -> None:
        """Insert through a cursor of its own, the same statement every time."""
        ctx.db.cursor().execute("INSERT INTO entries VALUES (?)", (x,))

    @command
    def ledger_note(ctx: Ctx, x: int) -> None:
        """Insert through the connection, then run another statement on the cursor it returned."""
        ctx.db.execute("SELECT count(*) FROM entries").execute("INSERT INTO notes VALUES (?)", (x,))

    return App("ledger", identifier="com.example.ledger").commands(ledger_setup, ledger_add, ledger_note)


def test_every_run_of_a_kept_statement_reports_its_tables_however_it_is_run():
    app = _ledger_app()
    app.call("ledger_setup")
    heard: list[frozenset[str]] = []
    app.live.listen(heard.append)
    for x in range(3):
        app.call("ledger_add", x=x)
        app.call("ledger_note", x=x)
    app.close()
    assert heard == [frozenset({"entries"}), frozenset({"notes"})] * 3


def test_past_the_remembered_statements_every_statement_reports_again(monkeypatch):
    from rata.db import _Connection

    monkeypatch.setattr(_Connection, "MAX_REMEMBERED", 2)
    app = _ledger_app()
    app.call("ledger_setup")
    heard: list[frozenset[str]] = []
    app.live.listen(heard.append)
    for x in range(4):
        app.database().execute(f"SELECT {x}").fetchone()  # fills the memory, forgetting the INSERT's reports
        app.call("ledger_add", x=x)
    app.close()
    assert heard == [frozenset({"entries"})] * 4


def test_a_command_that_calls_another_shares_its_transaction_and_the_live_registry_hears_once():
    @command
    def ledger_twice(ctx: Ctx, x: int) -> int:
        """Add an entry and a note, then try a call that fails and carry on without it."""
        ctx.db.execute("INSERT INTO entries VALUES (?)", (x,))
        ctx.app.call("ledger_note", x=x)
        with pytest.raises(ValidationErrors):
            ctx.app.call("ledger_refuse", x=x)
        if x < 0:
            raise ValidationErrors({"x": "must not be negative"})
        return ctx.db.execute("SELECT count(*) FROM notes").fetchone()[0]

    @command
    def ledger_refuse(ctx: Ctx, x: int) -> None:
        """Write, then refuse: its write is undone, the caller's are not."""
        ctx.db.execute("INSERT INTO notes VALUES (?)", (x + 1000,))
        raise ValidationErrors({"x": "refused"})

    @command
    def ledger_counts(ctx: Ctx) -> list[int]:
        """Entries and notes."""
        return [ctx.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("entries", "notes")]

    app = _ledger_app().commands(ledger_twice, ledger_refuse, ledger_counts)
    app.call("ledger_setup")
    heard: list[frozenset[str]] = []
    app.live.listen(heard.append)
    assert app.call("ledger_twice", x=1) == 1  # its own note is there; the refused one is not
    assert heard == [frozenset({"entries", "notes"})]  # once, after the outer commit
    with pytest.raises(ValidationErrors):
        app.call("ledger_twice", x=-1)  # fails after the inner call succeeded: both writes are undone
    assert heard == [frozenset({"entries", "notes"})]
    assert app.call("ledger_counts") == [1, 1]
    app.close()


def test_without_middleware_a_call_is_authorized_once_and_with_middleware_again_after_it():
    app = make_app()
    checks: list[str] = []
    original = app._authorize

    def counting(spec, request):
        checks.append(request.command)
        original(spec, request)

    app._authorize = counting
    assert app.call("internal_only") == "internal"
    assert checks == ["internal_only"]
    app.use(lambda request, call_next: call_next(CommandRequest("meetings_count", {}, request.origin)))
    checks.clear()
    assert app.call("internal_only") == 3  # the middleware handed on another command: it is checked too
    assert checks == ["internal_only", "meetings_count"]


@pytest.mark.parametrize(
    ("name", "valid"),
    [("a" * 128, True), ("v2.items-list_x", True), ("a" * 129, False), ("", False), ("bad name", False), ("caf\u00e9", False), ("trailing\n", False)],
)
def test_a_command_name_is_1_to_128_letters_digits_dots_dashes_or_underscores(name: str, valid: bool) -> None:
    @command(name=name or None)
    def named(ctx: Ctx) -> None:
        """A command."""

    if not name:
        named.__name__ = ""
    app = App("n", identifier="com.example.n")
    if valid:
        assert name in app.commands(named).specs
    else:
        with pytest.raises(CodegenError):
            app.commands(named)


# --- the surface: who hears that it changed ---


def test_every_change_of_the_commands_or_a_grant_says_the_surface_changed():
    app = App("meetings", identifier="com.example.meetings")
    heard: list[str] = []
    app.on_surface_change(lambda: heard.append("changed"))
    mcp = Mcp()
    steps = [
        lambda: app.commands(meetings_plan),
        lambda: app.allow_abilities(["meetings.*"]),
        lambda: app.mcp(mcp),
        lambda: mcp.allow_abilities(["meetings.view"]),
        lambda: mcp.confirm("meetings.delete"),
        lambda: mcp.rate_limit(10),
        lambda: app.surface_changed(),
    ]
    for number, step in enumerate(steps, 1):
        step()
        assert len(heard) == number


def test_a_grant_given_to_another_app_no_longer_speaks_for_this_one():
    app = App("meetings", identifier="com.example.meetings")
    first, second = Mcp(), Mcp()
    app.mcp(first).mcp(second)
    heard: list[str] = []
    stop = app.on_surface_change(lambda: heard.append("changed"))
    first.allow_abilities(["meetings.view"])
    assert heard == []
    second.allow_abilities(["meetings.view"])
    assert heard == ["changed"]
    stop()
    second.allow_abilities(["meetings.create"])
    assert heard == ["changed"]


def test_a_grant_replaced_whole_is_seen_once_the_change_is_said():
    from rata.abilities import Grant

    app = App("meetings", identifier="com.example.meetings").commands(meetings_plan, meetings_delete).mcp(Mcp().allow_abilities(["meetings.create"]))
    mcp = app.mcp_config
    assert mcp.access("meetings.create") == "allow"
    mcp.grant = Grant(["meetings.delete"])  # as many patterns as before: the access memo alone would not see it
    app.surface_changed()
    assert (mcp.access("meetings.create"), mcp.access("meetings.delete")) == (None, "allow")


def test_a_listener_that_fails_is_logged_and_the_others_still_hear(caplog):
    app = App("meetings", identifier="com.example.meetings")
    heard: list[str] = []

    def broken() -> None:
        raise RuntimeError("boom")

    app.on_surface_change(broken)
    app.on_surface_change(lambda: heard.append("changed"))
    app.allow_abilities(["meetings.view"])
    assert heard == ["changed"]
    assert "a listener of meetings's surface failed" in caplog.text
