"""The frontend runtime (runtime.js) in real headless Chromium, with the test playing the app's side.

Each test opens a page with the runtime installed at document start, reads what the page
posts (``window.__rata_post``) and answers through ``window.__rata_receive``, so the message
protocol documented at the top of runtime.js is checked from both ends.
"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rata.windows.adapter import WindowSpec
from rata.windows.chromium import ChromiumBackend, ChromiumWindow
from rata.windows.frontend import Frontend
from rata.windows.host import RUNTIME_PATH, runtime_source

PAGE = "<!doctype html><title>Runtime</title><script>window.pageSawRata = typeof window.rata;</script><p>hi</p>"


class Peer:
    """The app's end of one window: the messages the page posted, and a way to answer."""

    def __init__(self, window: ChromiumWindow) -> None:
        self.window = window
        self.inbox: queue.SimpleQueue[str] = queue.SimpleQueue()
        window.on_message(self.inbox.put)

    def next(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next message of this kind (earlier ones of other kinds are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.inbox.get(timeout=max(0.01, deadline - time.monotonic())))
            if message["t"] == kind:
                return message

    def nothing_more(self, wait: float = 0.3) -> list[dict[str, Any]]:
        time.sleep(wait)
        found = []
        while not self.inbox.empty():
            found.append(json.loads(self.inbox.get()))
        return found

    def answer(self, **message: Any) -> None:
        self.window.post(json.dumps(message))

    def js(self, expression: str) -> Any:
        return self.window.eval_json(expression)

    def until(self, expression: str, check: Callable[[Any], bool] = bool, timeout: float = 5.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expression)
            if check(value) or time.monotonic() > deadline:
                return value
            time.sleep(0.02)


@pytest.fixture
def frontend(tmp_path: Path) -> Frontend:
    root = tmp_path / "frontend"
    root.mkdir()
    (root / "index.html").write_text(PAGE)
    return Frontend(root)


@pytest.fixture
def peer(browser, frontend):
    window = ChromiumBackend("runtime", browser=browser).open(WindowSpec("w1"), frontend, scripts=[runtime_source("w1")])
    yield Peer(window)
    window.close()


def test_the_runtime_is_plain_ascii():
    RUNTIME_PATH.read_bytes().decode("ascii")
    assert runtime_source("caf\u00e9").isascii()


def test_the_page_has_rata_before_its_own_scripts_run_and_the_runtime_says_hello(peer):
    hello = peer.next("hello")
    assert hello["late"] is False and isinstance(hello["doc"], str)
    assert peer.js("window.pageSawRata") == "object"
    assert peer.js("rata.window") == "w1"
    assert peer.js("rata._inflight") == 0


def test_invoke_posts_the_call_and_resolves_with_the_value_of_the_reply(peer):
    doc = peer.next("hello")["doc"]
    peer.js("rata.invoke('customers_store', {name: 'Ada'}).then(function (v) { window.out = v; }), 0")
    call = peer.next("invoke")
    assert call == {"t": "invoke", "doc": doc, "id": call["id"], "command": "customers_store", "args": {"name": "Ada"}}
    assert peer.js("rata._inflight") == 1
    peer.answer(t="reply", doc=doc, id=call["id"], ok=True, value={"id": 7, "name": "Ada"})
    assert peer.until("window.out") == {"id": 7, "name": "Ada"}
    assert peer.js("rata._inflight") == 0


def test_a_failed_invoke_rejects_with_an_error_carrying_code_fields_and_hint(peer):
    doc = peer.next("hello")["doc"]
    peer.js(
        "rata.invoke('customers_store', {}).catch(function (e) {"
        " window.out = {message: e.message, code: e.code, fields: e.fields, hint: e.hint, isError: e instanceof Error}; }), 0"
    )
    call = peer.next("invoke")
    error = {"code": "validation", "message": "Invalid arguments", "fields": {"email": ["is required"]}, "hint": "Fill it in."}
    peer.answer(t="reply", doc=doc, id=call["id"], ok=False, error=error)
    assert peer.until("window.out") == {**error, "isError": True}


def test_replies_meant_for_another_document_are_ignored(peer):
    doc = peer.next("hello")["doc"]
    peer.js("rata.invoke('x').then(function (v) { window.out = v; }), 0")
    call = peer.next("invoke")
    peer.answer(t="reply", doc="an-earlier-document", id=call["id"], ok=True, value="stale")
    peer.answer(t="reply", doc=doc, id=call["id"], ok=True, value="fresh")
    assert peer.until("window.out") == "fresh"


def test_live_delivers_each_result_until_unsubscribed(peer):
    doc = peer.next("hello")["doc"]
    peer.js("window.seen = []; window.stop = rata.live('customers_index', {search: 'a'}, function (rows) { seen.push(rows); }), 0")
    live = peer.next("live")
    assert (live["command"], live["args"]) == ("customers_index", {"search": "a"})
    assert peer.js("rata._inflight") == 1  # until the first result
    peer.answer(t="live", doc=doc, id=live["id"], ok=True, value=[1])
    peer.answer(t="live", doc=doc, id=live["id"], ok=True, value=[1, 2])
    assert peer.until("seen", lambda seen: len(seen) == 2) == [[1], [1, 2]]
    assert peer.js("rata._inflight") == 0
    peer.js("stop(), 0")
    assert peer.next("unlive") == {"t": "unlive", "doc": doc, "id": live["id"]}
    peer.answer(t="live", doc=doc, id=live["id"], ok=True, value=[3])
    peer.js("stop(), 0")  # a second unsubscribe sends nothing
    assert peer.nothing_more() == []
    assert peer.js("seen.length") == 2


def test_a_live_error_goes_to_the_error_callback(peer):
    doc = peer.next("hello")["doc"]
    peer.js("rata.live('q', {}, function () {}, function (e) { window.out = e.code + ': ' + e.message; }), 0")
    live = peer.next("live")
    peer.answer(t="live", doc=doc, id=live["id"], ok=False, error={"code": "forbidden", "message": "not granted"})
    assert peer.until("window.out") == "forbidden: not granted"


def test_live_queries_are_reported_to_the_dev_script_when_there_is_one(peer):
    peer.next("hello")
    peer.js(
        "window.noted = []; window.__rata_dev = {noteLive: function (c, a) { noted.push(['note', c, a]); return 41; },"
        " dropLive: function (id) { noted.push(['drop', id]); }}, 0"
    )
    peer.js("window.stop = rata.live('customers_index', {search: 'x'}, function () {}), 0")
    peer.next("live")
    peer.js("stop(), 0")
    assert peer.js("noted") == [["note", "customers_index", {"search": "x"}], ["drop", 41]]


def test_the_dev_page_script_shows_the_pages_live_queries(browser, frontend):
    page_js = (RUNTIME_PATH.parent.parent / "debug_build" / "page.js").read_text(encoding="ascii")
    window = ChromiumBackend("runtime", browser=browser).open(WindowSpec("w3"), frontend, scripts=[runtime_source("w3"), page_js])
    try:
        peer = Peer(window)
        peer.js("window.stop = rata.live('customers_index', {search: 'ad'}, function () {}), 0")
        peer.next("live")
        assert peer.js("__rata_dev.snapshot({}).showing") == ['customers_index {"search":"ad"}']
        peer.js("stop(), 0")
        assert peer.js("__rata_dev.snapshot({}).showing") == []
    finally:
        window.close()


def test_channel_messages_reach_their_listener_until_it_stops(peer):
    doc = peer.next("hello")["doc"]
    peer.js("window.heard = []; window.stop = rata.on('rata:mcp', function (m) { heard.push(m); }), 0")
    on = peer.next("on")
    assert on["channel"] == "rata:mcp"
    peer.answer(t="channel", doc=doc, id=on["id"], payload={"tool": "customers_store"})
    assert peer.until("heard") == [{"tool": "customers_store"}]
    peer.js("stop(), 0")
    assert peer.next("off")["id"] == on["id"]


def test_bad_arguments_are_refused_in_the_page_without_a_message(peer):
    peer.next("hello")
    codes = peer.until(
        "(function () { var out = []; rata.invoke('x', [1]).catch(function (e) { out.push(e.code); });"
        " rata.invoke('').catch(function (e) { out.push(e.code); });"
        " try { rata.live('q', {}, 'not a function'); } catch (e) { out.push(e.code); } window.codes = out; return 0; })(), window.codes",
        lambda value: value is not None and len(value) == 3,
    )
    assert sorted(codes) == ["invalid_request"] * 3
    assert [m["t"] for m in peer.nothing_more()] == []


def test_a_reload_message_loads_the_page_again_as_a_new_document(peer):
    first = peer.next("hello")["doc"]
    peer.answer(t="reload", doc=first)
    assert peer.next("hello")["doc"] != first  # (its "bye" is best effort: a page going away may not get it out)


def test_a_runtime_added_after_the_pages_scripts_ran_says_it_started_late(browser, frontend):
    window = ChromiumBackend("runtime", browser=browser).open(WindowSpec("w2"), frontend)
    try:
        late = Peer(window)
        window.add_document_script(runtime_source("w2"))
        assert late.next("hello")["late"] is True
        assert late.js("window.pageSawRata") == "undefined"
    finally:
        window.close()
