"""`WindowHost`: pages in real headless Chromium calling a small app's commands through the runtime."""

from __future__ import annotations

import itertools
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rata import App, Ctx, Mcp, ValidationErrors, command
from rata.errors import WindowError
from rata.testing import AgentClient
from rata.windows.adapter import WindowSpec
from rata.windows.calls import is_secret_name, redact_args
from rata.windows.chromium import ChromiumBackend
from rata.windows.frontend import Frontend
from rata.windows.host import WindowHost

_keys = itertools.count(1)


@command(can="notes.view", live=True)
def notes_index(ctx: Ctx) -> list[str]:
    """Every note, oldest first."""
    return [row["text"] for row in ctx.db.execute("SELECT text FROM notes ORDER BY id")]


@command(can="notes.view", live=True)
def tags_index(ctx: Ctx) -> list[str]:
    """Every tag."""
    return [row["name"] for row in ctx.db.execute("SELECT name FROM tags ORDER BY name")]


@command(can="notes.create")
def notes_store(ctx: Ctx, text: str) -> int:
    """Add a note."""
    if not text.strip():
        raise ValidationErrors({"text": "must not be blank"})
    return ctx.db.execute("INSERT INTO notes (text) VALUES (?)", (text,)).lastrowid or 0


@command(can="notes.view")
def whoami(ctx: Ctx) -> str:
    """Who is calling."""
    return str(ctx.origin)


@command(can="notes.view")
def boom(ctx: Ctx) -> None:
    """Always fails."""
    raise RuntimeError("the disk is on fire")


@command(can="notes.view")
def slow(ctx: Ctx, seconds: float) -> str:
    """Takes its time."""
    time.sleep(seconds)
    return "done"


@command(can="notes.create")
def sign_in(ctx: Ctx, user: str, password: str, api_key: str = "", bio: str = "") -> str:
    """Takes secrets, returns the user."""
    return user


@command(can="admin.reset")
def notes_reset(ctx: Ctx) -> None:
    """Not for the frontend."""
    ctx.db.execute("DELETE FROM notes")


def make_app(root: Path, frontend: bool = True) -> App:
    (root / "migrations").mkdir(parents=True)
    (root / "migrations" / "0001_notes.sql").write_text(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);\nCREATE TABLE tags (name TEXT PRIMARY KEY);\n"
    )
    if frontend:
        (root / "frontend").mkdir()
        (root / "frontend" / "index.html").write_text("<!doctype html><title>Notes</title><h1>Notes</h1>")
    app = (
        App("notes", identifier="com.example.notes", root=root)
        .commands(notes_index, tags_index, notes_store, whoami, boom, slow, sign_in, notes_reset)
        .allow_abilities(["notes.*"])
        .mcp(Mcp().allow_abilities(["notes.*"]))
    )
    app.migrate()
    return app


class Page:
    """One window's page, driven through its JS."""

    def __init__(self, host: WindowHost, label: str) -> None:
        self.host, self.label = host, label
        self.window = host.window(label)

    def js(self, expression: str) -> Any:
        return self.window.eval_json(expression)

    def until(self, expression: str, check: Callable[[Any], bool] = lambda v: v is not None, timeout: float = 5.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expression)
            if check(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{expression} stayed {value!r}")
            time.sleep(0.02)

    def start_invoke(self, command: str, args: dict[str, Any] | None = None) -> str:
        key = f"r{next(_keys)}"
        self.js(
            f"(window.results = window.results || {{}}, rata.invoke({json.dumps(command)}, {json.dumps(args or {})}).then("
            f"function (v) {{ results.{key} = {{ok: true, value: v}}; }},"
            f"function (e) {{ results.{key} = {{ok: false, code: e.code, message: e.message, fields: e.fields, hint: e.hint || null}}; }}), 0)"
        )
        return key

    def result(self, key: str, timeout: float = 5.0) -> dict[str, Any]:
        return self.until(f"(window.results || {{}}).{key}", timeout=timeout)

    def invoke(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.result(self.start_invoke(command, args))

    def live(self, name: str, command: str, args: dict[str, Any] | None = None) -> None:
        self.js(
            f"(window.seen = window.seen || {{}}, seen.{name} = [], window.stops = window.stops || {{}},"
            f" stops.{name} = rata.live({json.dumps(command)}, {json.dumps(args or {})}, function (v) {{ seen.{name}.push(v); }}), 0)"
        )

    def seen(self, name: str, count: int) -> list[Any]:
        return self.until(f"window.seen.{name}", lambda v: v is not None and len(v) >= count)


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "notes")
    yield app
    app.close()


@pytest.fixture
def host(app, browser):
    host = WindowHost(app, ChromiumBackend(app.name, browser=browser))
    yield host
    for label in host.labels():
        host.close_window(label)
    host.close()


@pytest.fixture
def page(host) -> Page:
    host.open(WindowSpec("main", title="Notes"))
    return Page(host, "main")


def calls_of(host: WindowHost, command: str) -> int:
    return sum(1 for call in host.calls if call.command == command)


def settled(host: WindowHost, label: str = "main") -> None:
    deadline = time.monotonic() + 5
    while host.in_flight(label) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert host.in_flight(label) == 0


# --- invoke ---


def test_invoke_runs_the_command_as_the_window_and_resolves_with_its_result(page):
    assert page.invoke("whoami") == {"ok": True, "value": "frontend(main)"}
    assert page.invoke("notes_store", {"text": "Buy milk"}) == {"ok": True, "value": 1}


def test_validation_errors_reach_the_page_by_field(page):
    blank = page.invoke("notes_store", {"text": "  "})
    assert (blank["ok"], blank["code"], blank["fields"]) == (False, "validation", {"text": ["must not be blank"]})
    missing = page.invoke("notes_store", {})
    assert missing["code"] == "validation" and list(missing["fields"]) == ["text"]


def test_a_command_the_frontend_is_not_granted_is_refused_with_a_hint(page):
    refused = page.invoke("notes_reset")
    assert (refused["ok"], refused["code"]) == (False, "forbidden")
    assert "admin.reset" in refused["message"] and "allow_abilities" in refused["hint"]


def test_an_unknown_command_is_refused_with_a_suggestion(page):
    refused = page.invoke("note_store", {"text": "x"})
    assert (refused["code"], refused["hint"]) == ("unknown_command", "Did you mean 'notes_store'?")


def test_a_failing_command_gives_the_page_its_message_and_the_log_its_traceback(page, caplog):
    with caplog.at_level(logging.ERROR, logger="rata.windows"):
        failed = page.invoke("boom")
    assert (failed["code"], failed["message"]) == ("internal", "boom failed: the disk is on fire")
    [record] = [r for r in caplog.records if r.name == "rata.windows"]
    assert record.exc_info is not None and "boom" in record.getMessage()


# --- live queries ---


def test_a_live_query_is_delivered_now_and_again_after_writes_from_other_origins(app, page):
    page.live("notes", "notes_index")
    assert page.seen("notes", 1) == [[]]
    app.call("notes_store", text="from the app")
    assert page.seen("notes", 2)[-1] == ["from the app"]
    with AgentClient(app) as agent:
        assert not agent.call("notes_store", {"text": "from an agent"}).is_error
    assert page.seen("notes", 3)[-1] == ["from the app", "from an agent"]


def test_a_live_query_is_delivered_again_after_each_of_several_writes_from_one_thread(app, page):
    page.live("notes", "notes_index")
    page.seen("notes", 1)
    app.call("notes_store", text="one")
    assert page.seen("notes", 2)[-1] == ["one"]
    app.call("notes_store", text="two")
    assert page.until("window.seen.notes", lambda v: v[-1] == ["one", "two"], timeout=1.5)


def test_a_write_to_tables_a_live_query_did_not_read_leaves_it_alone(app, host, page):
    page.live("tags", "tags_index")
    page.live("notes", "notes_index")
    page.seen("tags", 1)
    page.seen("notes", 1)
    app.call("notes_store", text="x")
    page.seen("notes", 2)
    settled(host)
    assert (calls_of(host, "tags_index"), calls_of(host, "notes_index")) == (1, 2)


def test_an_unsubscribed_live_query_is_not_run_again(app, host, page):
    page.live("notes", "notes_index")
    page.seen("notes", 1)
    page.js("stops.notes(), 0")
    page.until("rata._inflight", lambda v: v == 0)
    time.sleep(0.1)  # the unsubscribe message reaches the host
    app.call("notes_store", text="x")
    settled(host)
    assert calls_of(host, "notes_index") == 1


def test_a_reload_drops_the_previous_documents_subscriptions(app, host, page):
    page.live("notes", "notes_index")
    page.seen("notes", 1)
    page.js("location.reload(), 0")
    page.until("window.seen === undefined && !!window.rata", bool)
    page.live("notes", "notes_index")
    page.seen("notes", 1)
    app.call("notes_store", text="x")
    page.seen("notes", 2)
    settled(host)
    assert calls_of(host, "notes_index") == 3  # two first runs and one re-run: the old document's query is gone


def test_closing_a_window_drops_its_subscriptions(app, host, page):
    page.live("notes", "notes_index")
    page.seen("notes", 1)
    host.close_window("main")
    app.call("notes_store", text="x")
    time.sleep(0.2)
    assert calls_of(host, "notes_index") == 1
    assert host.windows() == []


# --- channels ---


def test_rata_mcp_messages_reach_the_page_when_an_agent_calls_a_tool(app, page):
    page.js("window.heard = []; rata.on('rata:mcp', function (m) { heard.push(m); }), 0")
    page.until("rata._inflight === 0 && window.heard.length === 0", bool)
    time.sleep(0.1)  # the subscription reaches the host
    with AgentClient(app) as agent:
        agent.call("notes_store", {"text": "hello"})
    [message] = page.until("heard", lambda v: len(v) == 1)
    assert (message["type"], message["tool"], message["ok"]) == ("agent_called", "notes_store", True)


def test_any_app_channel_can_be_heard(app, page):
    page.js("window.heard = []; rata.on('news', function (m) { heard.push(m); }), 0")
    time.sleep(0.2)
    app.events.publish("news", {"headline": "caf\u00e9 opens"})
    assert page.until("heard", lambda v: len(v) == 1) == [{"headline": "caf\u00e9 opens"}]


# --- the call log and in-flight counts ---


def test_the_call_log_leaves_secrets_out_and_cuts_long_values(host, page):
    assert page.invoke("sign_in", {"user": "ada", "password": "hunter2", "api_key": "k-123", "bio": "x" * 500})["ok"]
    [call] = [c for c in host.calls if c.command == "sign_in"]
    assert call.args == {"user": "ada", "bio": "x" * 200 + "\u2026"}
    assert (call.window, call.ok, call.error, call.kind) == ("main", True, None, "invoke")
    assert call.duration_ms >= 0 and call.started <= time.time()
    page.invoke("notes_store", {"text": ""})
    assert host.calls[-1].error == "Invalid arguments for notes_store: text must not be blank"
    assert [c.seq for c in host.calls] == sorted(c.seq for c in host.calls)


def test_a_slow_command_holds_up_neither_its_window_nor_another(host, page):
    host.open(WindowSpec("second"))
    second = Page(host, "second")
    slow = page.start_invoke("slow", {"seconds": 1.5})
    page.until("rata._inflight", lambda v: v == 1)
    assert second.invoke("whoami")["value"] == "frontend(second)"
    assert page.invoke("whoami")["value"] == "frontend(main)"
    assert host.in_flight("main") == 1 and host.in_flight("second") == 0
    assert page.result(slow, timeout=5)["value"] == "done"
    settled(host)


def test_windows_lists_each_open_window_and_an_unknown_label_names_them(host, page):
    host.open(WindowSpec("second", title="Second"))
    assert [(w["label"], w["route"]) for w in host.windows()] == [("main", "/"), ("second", "/")]
    with pytest.raises(WindowError) as unknown:
        host.window("third")
    assert unknown.value.hint == "Open windows: main, second."
    with pytest.raises(WindowError):
        host.open(WindowSpec("main"))


def test_opening_a_window_for_an_app_without_a_frontend_says_how_to_add_one(tmp_path, browser):
    bare = make_app(tmp_path / "bare", frontend=False)
    host = WindowHost(bare, ChromiumBackend(bare.name, browser=browser))
    try:
        with pytest.raises(WindowError) as missing:
            host.open()
        assert "frontend/index.html" in str(missing.value)
    finally:
        host.close()
        bare.close()


def test_an_explicit_frontend_wins_over_the_convention(tmp_path, app, browser):
    other = tmp_path / "other"
    other.mkdir()
    (other / "index.html").write_text("<!doctype html><title>Other</title>")
    host = WindowHost(app, ChromiumBackend(app.name, browser=browser), Frontend(other))
    try:
        window = host.open()
        assert window.eval_json("document.title") == "Other"
    finally:
        host.close_window("main")
        host.close()


# --- pure parts ---


@pytest.mark.parametrize(
    "name",
    ["password", "new_password", "userPassword", "authtoken", "apiKey", "api_key", "token", "accessToken", "client_secret", "key", "Authorization", "otp"],
)
def test_secret_looking_names_are_recognised(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["name", "email", "keyword", "monkey", "passenger", "tokenizer_name", "author"])
def test_ordinary_names_are_not_taken_for_secrets(name):
    assert not is_secret_name(name)


def test_redaction_reaches_nested_values_and_bounds_containers():
    args = {"profile": {"name": "Ada", "password": "x"}, "tags": ["a"] * 100, "n": 3}
    redacted = redact_args(args)
    assert redacted["profile"] == {"name": "Ada"}
    assert redacted["n"] == 3
    assert isinstance(redacted["tags"], str) and len(redacted["tags"]) == 201 and redacted["tags"].endswith("\u2026")
