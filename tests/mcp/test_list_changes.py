"""When the app's surface changes at run time (a grant, a command registered), the server lists anew and tells its clients.

In process: the app's own server (`AppServer`), reached through `AgentClient`; the real peers are in
`test_list_changes_peers.py`.
"""

from __future__ import annotations

import logging
import time
from typing import Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rata import App, Ctx, Mcp, command
from rata.abilities import Grant
from rata.mcp import manifest, wire
from rata.mcp.app_server import REFRESH_DELAY_S, AppServer
from rata.ratelimit import Limiter
from rata.testing import AgentClient

QUIET = REFRESH_DELAY_S * 6  # long enough for a refresh that was going to happen to have happened


@command(can="notes.view", live=True)
def notes_index(ctx: Ctx) -> list[str]:
    """Every note."""
    return ["first"]


@command(can="notes.add")
def notes_add(ctx: Ctx, text: str) -> str:
    """Add a note."""
    return text


@command(can="notes.purge")
def notes_purge(ctx: Ctx) -> int:
    """Delete every note."""
    return 0


@command(can="notes.export")
def notes_export(ctx: Ctx) -> str:
    """Every note as text."""
    return "first"


def notes_app(tmp_path, *grants: str) -> App:
    app = App("notes", identifier="com.example.list-notes", root=tmp_path).commands(notes_index, notes_add, notes_purge)
    app.folder = tmp_path / "home"
    return app.mcp(Mcp().allow_abilities(grants) if grants else Mcp())


def connect(app: App, era: str = "modern", limiter: Limiter | None = None) -> tuple[AgentClient, AppServer]:
    """A client of the app's own server, and that server (to refresh it by hand or look inside)."""
    made: list[AppServer] = []

    def transport(client: AgentClient):
        made.append(AppServer(app, send=client._on_bytes, limiter=limiter))
        client._server = made[0].server
        return client._server.receive

    client = AgentClient(None, era=era, _transport=transport)
    return client, made[0]


def names(tools: list[dict]) -> list[str]:
    return [tool["name"] for tool in tools]


def list_notes(client: AgentClient) -> list[dict]:
    return [note for note in client.notifications if note.get("method", "").endswith("/list_changed")]


def test_a_grant_change_reaches_a_listen_that_asked_and_the_new_tool_is_listed_and_callable(tmp_path):
    app = notes_app(tmp_path, "notes.view")
    client, _ = connect(app)
    with client:
        assert names(client.list_tools()) == ["notes_index"]
        with client.listen(lists=["tools"]) as listen:
            assert listen.honored == {"toolsListChanged": True, "resourceSubscriptions": []}
            app.mcp_config.allow_abilities(["notes.add"])
            listen.wait_for_list_change("tools")
            assert names(client.list_tools()) == ["notes_add", "notes_index"]
            assert client.call("notes_add", {"text": "hi"}).data == "hi"
            note = [n for n in client.notifications_for(listen.id) if n["method"] == "notifications/tools/list_changed"]
            assert note == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {wire.META_SUBSCRIPTION: listen.id}}}]


def test_a_2025_session_hears_the_change_unsolicited_and_untagged(tmp_path):
    app = notes_app(tmp_path, "notes.view")
    client, _ = connect(app, era="legacy")
    with client:
        app.mcp_config.confirm("notes.purge")
        client._wait(lambda: bool(list_notes(client)), 10, "no list_changed")
        assert list_notes(client) == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
        assert names(client.list_tools()) == ["notes_index", "notes_purge"]


def test_a_2025_session_hears_nothing_before_it_says_it_is_initialized(tmp_path):
    app = notes_app(tmp_path, "notes.view")
    heard: list[bytes] = []
    server = AppServer(app, send=heard.append)
    request = {"protocolVersion": wire.LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    server.server.receive(wire.encode({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": request}))
    app.mcp_config.allow_abilities(["notes.add"])
    assert server.refresh() == frozenset({"tools"})
    assert [line for line in heard if b"list_changed" in line] == []  # no notifications/initialized yet
    server.server.receive(wire.encode({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    app.mcp_config.confirm("notes.purge")
    assert server.refresh() == frozenset({"tools"})
    assert [line for line in heard if b"list_changed" in line] == [b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n']
    server.server.close()


def test_each_listen_hears_only_the_lists_it_asked_for(tmp_path):
    app = notes_app(tmp_path)
    client, _ = connect(app)
    with client, client.listen(lists=["tools"]) as tools, client.listen(lists=["resources"]) as resources, client.listen() as nothing:
        app.mcp_config.allow_abilities(["notes.view"])  # a live command granted: a tool and a resource
        tools.wait_for_list_change("tools")
        resources.wait_for_list_change("resources")
        time.sleep(QUIET)
        assert (tools.list_changes(), resources.list_changes(), nothing.list_changes()) == (["tools"], ["resources"], [])
        assert [r["uri"] for r in client.list_resources()] == ["app://notes_index"]


def test_a_burst_of_grant_calls_is_one_notification_per_list(tmp_path):
    app = notes_app(tmp_path)
    client, _ = connect(app)
    with client:
        with client.listen(lists=["tools", "resources"]) as listen:
            mcp = app.mcp_config
            for ability in ("notes.view", "notes.add", "notes.purge", "notes.view", "notes.add"):
                mcp.allow_abilities([ability])
            mcp.confirm("notes.purge").rate_limit(10)
            listen.wait_for_list_change("tools")
            time.sleep(QUIET)
            assert sorted(listen.list_changes()) == ["resources", "tools"]
        assert names(client.list_tools()) == ["notes_add", "notes_index", "notes_purge"]


def test_a_change_that_changes_no_list_sends_nothing(tmp_path):
    app = notes_app(tmp_path, "notes.view")
    client, server = connect(app)
    with client:
        with client.listen(lists=["tools", "resources"]) as listen:
            app.allow_abilities(["notes.*"])  # the frontend's grant: nothing an agent sees
            app.mcp_config.allow_abilities(["billing.*"])  # no command has such an ability
            app.surface_changed()
            time.sleep(QUIET)
            assert server.refresh() == frozenset()
            assert listen.list_changes() == []
        assert list_notes(client) == []


def test_a_command_registered_while_serving_is_listed(tmp_path):
    app = notes_app(tmp_path, "notes.*")
    client, _ = connect(app)
    with client:
        with client.listen(lists=["tools"]) as listen:
            app.commands(notes_export)
            listen.wait_for_list_change("tools")
        assert names(client.list_tools()) == ["notes_add", "notes_export", "notes_index", "notes_purge"]
        assert client.call("notes_export").data == "first"


def test_a_resource_or_prompt_declared_while_serving_is_listed(tmp_path):
    from rata import Resource, prompt

    @prompt(can="notes.view")
    def notes_digest() -> str:
        """Summarise the notes."""
        return "Summarise my notes."

    app = notes_app(tmp_path, "notes.*")
    client, _ = connect(app)
    with client:
        with client.listen(lists=["resources", "prompts"]) as listen:
            app.resources(Resource("notes://about", text="Notes.", description="What this is.", can="notes.view"))
            listen.wait_for_list_change("resources")
            app.prompts(notes_digest)
            listen.wait_for_list_change("prompts")
        assert "notes://about" in [r["uri"] for r in client.list_resources()]
        assert [p["name"] for p in client.list_prompts()] == ["notes_digest"]


Big = Literal[tuple(f"v{i}" for i in range(10_001))]  # a schema over the bounds


@command(can="notes.big")
def notes_big(ctx: Ctx, pick: Big) -> str:  # type: ignore[valid-type] - the Literal built at run time above
    return pick


def test_a_surface_that_cannot_be_listed_keeps_the_old_one_and_the_log_says_why(tmp_path, caplog):
    app = notes_app(tmp_path, "notes.*")
    client, server = connect(app)
    with client, caplog.at_level(logging.ERROR, logger="rata.mcp"):
        before = client.list_tools()
        app.commands(notes_big)  # registered, but its schema is too large to show an agent
        assert server.refresh() == frozenset()
        assert client.list_tools() == before
        assert client.request_raw("tools/call", {"name": "notes_big", "arguments": {"pick": "v1"}})["error"]["message"] == "Unknown tool: notes_big"
        assert client.call("notes_add", {"text": "still served"}).data == "still served"
    assert "cannot be listed again" in caplog.text and "10000 are allowed" in caplog.text


class SwapOnTake(Limiter):
    """A rate limiter that, counting a call, takes the tool away from agents and refreshes the server: a refresh that
    lands between a call's lookup of its tool and the rest of its run."""

    server: AppServer

    def take(self, key: str) -> float:
        mcp = self.server.app.mcp_config
        mcp.grant = Grant(["notes.view"])
        mcp.changed()
        assert self.server.refresh() == frozenset({"tools"})
        return 0.0


def test_a_call_that_a_refresh_overtakes_sees_the_surface_it_started_with(tmp_path):
    app = notes_app(tmp_path, "notes.view", "notes.add")
    limiter = SwapOnTake(app.mcp_config.limit)
    client, limiter.server = connect(app, limiter=limiter)
    with client:
        result = client.call("notes_add", {"text": "x"})  # listed when it started; refused by the grant in force when it ran
        assert result.is_error and "not available to agents" in result.text
        assert names(client.list_tools()) == ["notes_index"]


def test_the_manifest_is_rewritten_when_the_surface_changes(tmp_path, monkeypatch):
    package = tmp_path / "src" / "listing_notes"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text("from rata import App\napp = App('n', identifier='com.example.listing-notes')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr("sys.pycache_prefix", str(tmp_path / "pycache"))
    import importlib

    importlib.import_module("listing_notes.app")
    ref = "listing_notes.app:app"
    app = notes_app(tmp_path, "notes.view")
    server = AppServer(app, send=lambda data: None)
    server.manifest_ref = ref
    assert manifest.write(ref, app, server.offer()) is not None
    app.mcp_config.allow_abilities(["notes.add"])
    assert server.refresh() == frozenset({"tools"})
    found = manifest.read(ref)
    assert found is not None and names(found.offer["tools"]["modern"]) == ["notes_add", "notes_index"]
    assert found.offer == server.offer()
    server.server.close()


def test_a_closed_server_stops_hearing_the_app(tmp_path):
    app = notes_app(tmp_path, "notes.view")
    server = AppServer(app, send=lambda data: None)
    server.server.close()
    assert app._surface_listeners == []
    app.mcp_config.allow_abilities(["notes.add"])
    assert server.refresh() == frozenset()


def test_a_new_rate_limit_applies_to_the_next_call(tmp_path):
    app = notes_app(tmp_path, "notes.*")
    client, server = connect(app)
    with client:
        app.mcp_config.rate_limit(1, per=3600)
        server.refresh()
        assert not client.call("notes_add", {"text": "a"}).is_error
        limited = client.call("notes_add", {"text": "b"})
        assert limited.is_error and "Rate limit for notes_add: 1 calls per 3600 s" in limited.text


PATTERNS = ["notes.view", "notes.add", "notes.purge", "notes.*", "*", "billing.*"]
STEPS = st.lists(st.tuples(st.sampled_from(["allow", "confirm", "frontend", "limit"]), st.sampled_from(PATTERNS)), max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_any_sequence_of_grant_changes_ends_listing_what_a_fresh_server_lists(tmp_path, steps):
    app = notes_app(tmp_path)
    server = AppServer(app, send=lambda data: None)
    try:
        for kind, pattern in steps:
            before = server.offer()
            mcp = app.mcp_config
            if kind == "allow":
                mcp.allow_abilities([pattern])
            elif kind == "confirm":
                mcp.confirm(pattern)
            elif kind == "frontend":
                app.allow_abilities([pattern])
            else:
                mcp.rate_limit(len(pattern))
            changed = server.refresh()
            after = server.offer()
            expected = {"tools"} if before["tools"] != after["tools"] else set()
            expected |= {"resources"} if before["resources"] != after["resources"] else set()
            assert changed == expected
        fresh = AppServer(app, send=lambda data: None)
        assert server.offer() == fresh.offer()
        assert server.tools == fresh.tools and server.access == fresh.access and server.resources == fresh.resources
        fresh.server.close()
    finally:
        server.server.close()


def test_every_client_of_the_running_app_hears_the_change_from_one_build(tmp_path, monkeypatch):
    from rata.codegen import catalog as catalogs
    from rata.running_app import RunningApp

    app = notes_app(tmp_path, "notes.view")
    builds: list[str] = []
    build = catalogs.build_catalog
    monkeypatch.setattr(catalogs, "build_catalog", lambda app: builds.append(app.name) or build(app))
    with RunningApp(app), AgentClient.running(app) as modern, AgentClient.running(app, era="legacy") as legacy, modern.listen(lists=["tools"]) as listen:
        builds.clear()
        app.mcp_config.allow_abilities(["notes.add"])
        listen.wait_for_list_change("tools")
        legacy._wait(lambda: bool(list_notes(legacy)), 10, "no list_changed for the 2025 client")
        assert names(modern.list_tools()) == names(legacy.list_tools()) == ["notes_add", "notes_index"]
        assert builds == ["notes"]  # two servers refreshed, from one build
    assert app._surface_listeners == []  # the endpoint and its servers stopped hearing the app


def test_a_watched_resource_that_is_no_longer_listed_is_no_longer_reported(tmp_path):
    app = notes_app(tmp_path, "notes.view")
    client, server = connect(app, era="legacy")
    with client:
        client.listen("app://notes_index")
        mcp = app.mcp_config
        mcp.grant = Grant(["notes.add"])
        mcp.changed()
        assert server.refresh() == frozenset({"tools", "resources"})
        server.subscriptions.tables_changed(frozenset({"notes"}))  # a write the resource's query would have read
        assert [n for n in client.notifications if n["method"] == "notifications/resources/updated"] == []
        assert client.list_resources() == []


def test_the_running_app_keeps_its_lists_when_the_new_ones_cannot_be_built_and_builds_again_on_the_next_change(tmp_path):
    from rata.running_app import RunningApp

    app = notes_app(tmp_path, "notes.*")
    with RunningApp(app), AgentClient.running(app) as agent, agent.listen(lists=["tools"]) as listen:
        before = names(agent.list_tools())
        app.commands(notes_big)  # over the schema bounds: no catalog can be built
        time.sleep(QUIET)
        assert names(agent.list_tools()) == before and listen.list_changes() == []
        del app.specs["notes_big"]
        app.commands(notes_export)
        listen.wait_for_list_change("tools")
        assert names(agent.list_tools()) == ["notes_add", "notes_export", "notes_index", "notes_purge"]
