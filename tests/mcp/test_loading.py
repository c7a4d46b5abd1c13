"""Serving from the manifest while the app loads, then handing the session to the loaded app."""

from __future__ import annotations

import copy
import sys
import threading
import time

import pytest

from rata.mcp import manifest, wire
from rata.mcp.app_server import AppServer
from rata.mcp.loading import LoadingServer
from rata.testing import AgentClient
from tests.mcp.fixtures import crm, era  # noqa: F401 - pytest fixtures

REF = "crm.app:app"
ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}


@pytest.fixture
def recorded(crm, tmp_path, monkeypatch):
    """The crm app's manifest, written under a private bytecode cache."""
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    assert manifest.write(REF, crm, AppServer(crm, send=lambda data: None).offer()) is not None
    found = manifest.read(REF)
    assert found is not None
    return found


class Gate:
    """The app's loading, held until the test opens the gate."""

    def __init__(self, app, failure: BaseException | None = None) -> None:
        self.app, self.failure = app, failure
        self.opened = threading.Event()

    def __call__(self):
        assert self.opened.wait(10), "the test never let the app load"
        if self.failure is not None:
            raise self.failure
        return self.app

    def open(self) -> None:
        self.opened.set()


def connect(found, load, era="modern", version=wire.LEGACY):
    made = []

    def transport(client):
        loading = LoadingServer(found, load, send=client._on_bytes)
        made.append(loading)
        client._server = loading.server
        return loading.server.receive

    client = AgentClient(era=era, version=version, _transport=transport)
    return client, made[0]


def answers(client):
    """Every answer that needs no app, in this client's era."""
    first = client.request("server/discover") if client.era == "modern" else client.server_info
    lists = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")
    return [first, *(client.request(method) for method in lists)]


def in_background(work):
    box = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    return thread, box


def test_the_first_answers_come_from_the_manifest_while_the_app_loads(crm, recorded, era):
    gate = Gate(crm)
    client, loading = connect(recorded, gate, era)
    with client:
        assert [t["name"] for t in client.list_tools()] == ["customers_delete", "customers_index", "customers_show", "customers_store"]
        assert client.list_tools() == recorded.offer["tools"][era]
        assert [r["uri"] for r in client.list_resources()] == ["app://customers_index"]
        assert [t["uriTemplate"] for t in client.list_templates()] == ["app://customers_show/{id}"]
        assert not loading.wait(0)  # all of that while the app was still loading
        gate.open()
        assert loading.wait(10)


def test_the_manifest_answers_exactly_as_the_loaded_app_does(crm, recorded, era):
    gate = Gate(crm)
    client, loading = connect(recorded, gate, era)
    with client:
        before = answers(client)
        gate.open()
        assert loading.wait(10)
        after = answers(client)
    with AgentClient(crm, era=era) as plain:
        assert before == after == answers(plain)


def test_a_call_made_while_loading_runs_once_the_app_is_loaded(crm, recorded, era):
    gate = Gate(crm)
    client, loading = connect(recorded, gate, era)
    with client:
        thread, box = in_background(lambda: client.call("customers_store", ADA))
        thread.join(0.3)
        assert box == []  # waiting for the app, not refused
        gate.open()
        thread.join(10)
        assert box[0].data["email"] == ADA["email"]
        assert [c["email"] for c in client.read("app://customers_index")] == [ADA["email"]]


def test_a_call_cancelled_while_it_waits_for_the_app_never_runs(crm, recorded):
    gate = Gate(crm)
    client, loading = connect(recorded, gate, "modern")
    with client:
        params = {"_meta": client._meta(), "name": "customers_store", "arguments": ADA}
        client.send_line(wire.encode({"jsonrpc": "2.0", "id": "store", "method": "tools/call", "params": params}))
        client.notify("notifications/cancelled", {"requestId": "store"})
        gate.open()
        assert loading.wait(10)
        assert client.read("app://customers_index") == []
        assert "store" not in client._responses


def tampered(found):
    """The manifest as it would be if the app's tool list depended on something besides its code."""
    other = manifest.Manifest(found.ref, found.file, copy.deepcopy(found.data))
    for which in ("modern", "legacy"):
        other.offer["tools"][which][0]["description"] = "An old description."
    return other


def test_a_manifest_that_lists_otherwise_is_rewritten_and_a_legacy_session_told(crm, recorded):
    stale = tampered(recorded)
    gate = Gate(crm)
    client, loading = connect(stale, gate, "legacy")
    with client:
        assert client.list_tools()[0]["description"] == "An old description."
        gate.open()
        assert loading.wait(10)
        client._wait(lambda: any(n["method"] == "notifications/tools/list_changed" for n in client.notifications), 10, "no list_changed")
        changed = [n for n in client.notifications if n["method"].endswith("list_changed")]
        assert changed == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]  # unsolicited, no id; resources did not change
        assert client.list_tools() == recorded.offer["tools"]["legacy"]
    assert manifest.read(REF).offer == recorded.offer  # the next start answers rightly


def test_a_listen_opened_while_loading_hears_that_the_tools_changed(crm, recorded):
    gate = Gate(crm)
    client, loading = connect(tampered(recorded), gate, "modern")
    with client:
        params = {"_meta": client._meta(), "notifications": {"toolsListChanged": True, "resourcesListChanged": True}}
        request = {"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen", "params": params}
        thread, _ = in_background(lambda: client.send_line(wire.encode(request)))  # waits for the app on the reading thread
        gate.open()
        thread.join(10)
        client._wait(lambda: len(client.notifications_for("L")) >= 2, 10, "no list_changed on the listen")
        methods = [n["method"] for n in client.notifications_for("L")]
    assert methods == ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]


def test_a_templates_list_that_changed_is_told_as_the_resources_list(crm, recorded):
    stale = manifest.Manifest(recorded.ref, recorded.file, copy.deepcopy(recorded.data))
    stale.offer["templates"][0]["description"] = "An old description."
    gate = Gate(crm)
    client, loading = connect(stale, gate, "modern")
    with client:
        params = {"_meta": client._meta(), "notifications": {"toolsListChanged": True, "resourcesListChanged": True}}
        request = {"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen", "params": params}
        thread, _ = in_background(lambda: client.send_line(wire.encode(request)))
        gate.open()
        thread.join(10)
        client._wait(lambda: len(client.notifications_for("L")) >= 2, 10, "no list_changed on the listen")
        methods = [n["method"] for n in client.notifications_for("L")]
    assert methods == ["notifications/subscriptions/acknowledged", "notifications/resources/list_changed"]


def test_nothing_is_announced_or_rewritten_when_the_manifest_was_right(crm, recorded):
    written_at = manifest.os.stat(recorded.file).st_mtime_ns
    gate = Gate(crm)
    client, loading = connect(recorded, gate, "legacy")
    with client:
        gate.open()
        assert loading.wait(10)
        client.call("customers_index")
        assert [n for n in client.notifications if n["method"].endswith("list_changed")] == []
    assert manifest.os.stat(recorded.file).st_mtime_ns == written_at


def test_an_app_that_fails_to_load_still_lists_and_every_call_says_why(crm, recorded, capsys):
    gate = Gate(crm, failure=RuntimeError("the database driver is missing"))
    client, loading = connect(recorded, gate, "modern")
    with client:
        gate.open()
        assert loading.wait(10)
        assert len(client.list_tools()) == 4
        called = client.call("customers_index")
        read = client.request_raw("resources/read", {"uri": "app://customers_index"})
    said = "The app could not be loaded, so tools/call cannot run: RuntimeError: the database driver is missing. Fix the app and restart the server."
    assert called.is_error and called.text == said  # a tool's failure is a result the model reads
    assert read["error"]["code"] == wire.INTERNAL_ERROR
    assert read["error"]["message"] == said.replace("tools/call", "resources/read")
    said_on_stderr = "crm: the app failed to load, and each request that needs it gets this error: RuntimeError: the database driver is missing\n"
    assert said_on_stderr in capsys.readouterr().err


def test_requests_pending_when_the_import_fails_each_get_its_methods_error_naming_the_failure_and_the_fix(crm, recorded):
    from rata.loader import IMPORT_FIX, import_failure

    try:
        raise ImportError("cannot import name 'Settings' from 'crm.config'")
    except ImportError as error:
        failure = import_failure(REF, error)
    gate = Gate(crm, failure=failure)
    client, loading = connect(recorded, gate, "modern")
    with client:
        reading = {"uri": "app://customers_index"}
        pending = [in_background(lambda: client.call("customers_index")), in_background(lambda: client.request_raw("resources/read", reading))]
        for thread, box in pending:
            thread.join(0.3)
            assert box == []  # waiting for the app
        gate.open()
        for thread, _ in pending:
            thread.join(10)
        tool_answer, read_answer = pending[0][1][0], pending[1][1][0]
        later = client.call("customers_index")
    said = f"The app could not be loaded, so tools/call cannot run: Importing the app {REF!r} failed: ImportError: cannot import name 'Settings'"
    assert tool_answer.is_error and tool_answer.text.startswith(said) and tool_answer.text.endswith(IMPORT_FIX)
    assert later.is_error and later.text == tool_answer.text
    assert read_answer["error"]["code"] == wire.INTERNAL_ERROR
    assert read_answer["error"]["message"] == tool_answer.text.replace("tools/call", "resources/read")


def test_a_load_failure_whose_message_is_not_unicode_text_still_reaches_the_client(crm, recorded):
    gate = Gate(crm, failure=RuntimeError("bad byte \udcff in the config"))
    client, loading = connect(recorded, gate, "modern")
    with client:
        gate.open()
        assert loading.wait(10)
        called = client.call("customers_index")
    assert called.is_error and "RuntimeError: bad byte \\udcff in the config" in called.text


def test_loading_gives_the_answering_thread_the_interpreter_back_quickly_then_restores_it(crm, recorded):
    before = sys.getswitchinterval()
    gate = Gate(crm)
    client, loading = connect(recorded, gate, "modern")
    with client:
        assert sys.getswitchinterval() < before
        gate.open()
        assert loading.wait(10)
        deadline = time.monotonic() + 5
        while sys.getswitchinterval() != before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sys.getswitchinterval() == before


def test_a_new_row_is_served_while_loading_if_it_needs_no_app_and_after_loading_if_it_does(crm, recorded, monkeypatch):
    from rata.mcp.methods import BOTH, METHODS, Row

    def count_tools(ctx, call):
        return {"count": len(ctx.tools_for(call.era)), "loaded": ctx.__class__.__name__}

    monkeypatch.setitem(METHODS, "tools/count", Row(BOTH, handler=count_tools))
    monkeypatch.setitem(METHODS, "tools/count-loaded", Row(BOTH, needs_app=True, blocking=True, handler=count_tools))
    gate = Gate(crm)
    client, loading = connect(recorded, gate)
    with client:
        assert client.request("tools/count")["loaded"] == "LoadingServer"  # the loading server satisfies the handler's protocol
        assert not loading.wait(0)
        thread, box = in_background(lambda: client.request("tools/count-loaded"))
        time.sleep(0.05)
        assert not box  # it waits for the app
        gate.open()
        thread.join(10)
        assert box[0]["loaded"] == "AppServer"
        assert box[0]["count"] == len(recorded.offer["tools"]["modern"])


def test_prompts_are_listed_from_the_manifest_while_loading_and_a_changed_list_is_told(tmp_path, monkeypatch):
    from tests.mcp import prompts_app

    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    app = prompts_app.app
    app.folder = tmp_path / "home"
    ref = "tests.mcp.prompts_app:app"
    offer = AppServer(app, send=lambda data: None).offer()
    assert [p["name"] for p in offer["prompts"]] == ["context_first", "follow_up", "pictured"]
    stale = copy.deepcopy(offer)
    stale["prompts"] = stale["prompts"][:1]  # the manifest of an app that had one prompt
    assert manifest.write(ref, app, stale) is not None
    found = manifest.read(ref)
    gate = Gate(app)
    client, loading = connect(found, gate, "legacy")
    with client:
        assert [p["name"] for p in client.list_prompts()] == ["context_first"]
        assert not loading.wait(0)  # answered while the app was still loading
        gate.open()
        assert loading.wait(10)
        client._wait(lambda: any(n["method"] == "notifications/prompts/list_changed" for n in client.notifications), 10, "no list_changed")
        assert [p["name"] for p in client.list_prompts()] == ["context_first", "follow_up", "pictured"]
        assert client.get_prompt("follow_up", customer_id=3)["messages"][0]["content"]["text"] == "Write a warm follow-up email to customer #3."
    assert manifest.read(ref).offer["prompts"] == offer["prompts"]


def test_a_manifest_without_prompts_is_not_trusted(crm, recorded):
    data = copy.deepcopy(recorded.data)
    del data["offer"]["prompts"]
    assert not manifest._offer_shape(data["offer"])  # written by a rata without prompts: the app loads before answering
