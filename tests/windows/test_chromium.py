"""The browser backend in real headless Chromium: serving the frontend, messaging, eval, screenshots."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rata.errors import WindowError
from rata.windows.adapter import WindowSpec
from rata.windows.cdp import Browser
from rata.windows.chromium import ChromiumBackend, ChromiumWindow, origin_for
from rata.windows.frontend import Frontend

INDEX = """<!doctype html>
<html><head><title>Test app</title><link rel="stylesheet" href="/style.css"><script src="/app.js"></script></head>
<body><h1>Hello</h1></body></html>
"""


@pytest.fixture
def frontend(tmp_path: Path) -> Frontend:
    root = tmp_path / "frontend"
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "app.js").write_text("window.appLoaded = true; window.sawEarly = window.__early === 1;\n")
    (root / "style.css").write_text("h1 { color: rgb(1, 2, 3); }\n")
    (root / "data.json").write_text('{"ok": true}\n')
    (root / "sub" / "page.html").write_text("<title>Sub</title><p>sub page</p>")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    (tmp_path / "secret.txt").write_text("outside the frontend")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    return Frontend(root)


@pytest.fixture
def backend(browser: Browser) -> Iterator[ChromiumBackend]:
    backend = ChromiumBackend("Test App", browser=browser)
    yield backend
    backend.stop()


@pytest.fixture
def window(backend: ChromiumBackend, frontend: Frontend) -> ChromiumWindow:
    return backend.open(WindowSpec("main", "Test", 800, 600), frontend)


def get(window: ChromiumWindow, path: str, method: str = "GET") -> list:
    """Status, Content-Type and body of a request the page makes (a synchronous XHR)."""
    return window.eval_json(
        f"(() => {{ const x = new XMLHttpRequest(); x.open({method!r}, {path!r}, false); x.send();"
        " return [x.status, x.getResponseHeader('content-type'), x.responseText]; })()"
    )


def test_the_window_shows_the_frontend_on_the_apps_own_origin(window: ChromiumWindow):
    assert window.eval_json("[location.href, document.title, window.appLoaded, isSecureContext]") == [
        "http://test-app.rata.localhost/",
        "Test app",
        True,
        True,
    ]
    assert window.eval_json("getComputedStyle(document.querySelector('h1')).color") == "rgb(1, 2, 3)"


def test_files_are_served_with_their_content_types(window: ChromiumWindow):
    assert get(window, "/app.js")[:2] == [200, "text/javascript; charset=utf-8"]
    assert get(window, "/style.css")[:2] == [200, "text/css; charset=utf-8"]
    assert get(window, "/data.json") == [200, "application/json", '{"ok": true}\n']
    assert get(window, "/sub/page.html")[:2] == [200, "text/html; charset=utf-8"]
    assert get(window, "/logo.png")[:2] == [200, "image/png"]


def test_an_unknown_file_is_a_404_and_a_route_without_an_extension_is_the_index(window: ChromiumWindow):
    assert get(window, "/missing.js")[0] == 404
    status, content_type, body = get(window, "/customers/12?tab=notes")
    assert (status, content_type) == (200, "text/html; charset=utf-8")
    assert "<h1>Hello</h1>" in body


def test_nothing_outside_the_frontend_is_served(window: ChromiumWindow):
    assert get(window, "/link.txt")[0] == 404
    assert get(window, "/..%2fsecret.txt")[0] == 404
    assert get(window, "/%2e%2e/secret.txt")[0] == 404
    assert "outside" not in get(window, "/..%2fsecret")[2]


def test_only_reads_are_answered(window: ChromiumWindow):
    assert get(window, "/data.json", "POST")[0] == 405


def test_page_messages_reach_python_and_python_messages_reach_the_page(window: ChromiumWindow):
    received: list[str] = []
    arrived = threading.Event()

    def on_message(text: str) -> None:
        received.append(text)
        arrived.set()

    window.on_message(on_message)
    window.eval_json("window.__rata_post('hello from the page')")
    assert arrived.wait(5)
    assert received == ["hello from the page"]
    window.eval_json("window.got = []; window.__rata_receive = (text) => window.got.push(text)")
    window.post('{"kind": "event", "text": "caf\\u00e9 \\u2603"}')
    window.post("second")
    deadline = time.monotonic() + 5
    while window.eval_json("window.got.length") < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert window.eval_json("window.got") == ['{"kind": "event", "text": "caf\\u00e9 \\u2603"}', "second"]


def test_the_binding_survives_navigation(window: ChromiumWindow):
    received: list[str] = []
    arrived = threading.Event()

    def heard(text: str) -> None:
        received.append(text)
        arrived.set()

    window.on_message(heard)
    window.navigate("/sub/page.html")
    window.eval_json("window.__rata_post('after navigation')")
    assert arrived.wait(5)
    assert received == ["after navigation"]


def test_scripts_given_to_open_run_before_the_pages_own(backend: ChromiumBackend, frontend: Frontend):
    window = backend.open(WindowSpec("early"), frontend, scripts=["window.__early = 1;"])
    assert window.eval_json("window.sawEarly") is True


def test_a_document_script_runs_now_and_in_every_later_document(window: ChromiumWindow):
    window.add_document_script("window.marker = (window.marker || 0) + 1;")
    assert window.eval_json("window.marker") == 1
    window.navigate("/sub/page.html")
    assert window.eval_json("[document.title, window.marker]") == ["Sub", 1]


def test_eval_json_returns_json_values_and_raises_on_script_errors(window: ChromiumWindow):
    assert window.eval_json("({a: [1, 'two', null, true]})") == {"a": [1, "two", None, True]}
    assert window.eval_json("undefined") is None
    assert math.isnan(window.eval_json("NaN"))
    assert window.eval_json("2n ** 70n") == 2**70
    with pytest.raises(WindowError, match=r"JavaScript error in window 'main': ReferenceError: nope is not defined"):
        window.eval_json("nope.x")


def test_dialogs_do_not_hang_a_headless_page(window: ChromiumWindow):
    assert window.eval_json("alert('hi'), [confirm('sure?'), prompt('name?', 'Ada')]") == [True, "Ada"]


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_a_screenshot_is_the_viewport_at_most_max_width_wide(backend: ChromiumBackend, frontend: Frontend):
    small = backend.open(WindowSpec("small", width=800, height=600), frontend)
    assert png_size(small.capture_png()) == (800, 600)
    wide = backend.open(WindowSpec("wide", width=1600, height=900), frontend)
    assert png_size(wide.capture_png()) == (1280, 720)
    assert png_size(wide.capture_png(max_width=400)) == (400, 225)


def test_a_screenshot_of_a_scrolled_page_shows_what_is_in_view(backend: ChromiumBackend, frontend: Frontend):
    window = backend.open(WindowSpec("scrolled", width=400, height=300), frontend)
    window.eval_json(
        "document.body.style.margin = '0';"
        'document.body.innerHTML = \'<div style="height:1000px;background:red"></div><div style="height:1000px;background:rgb(0,0,255)"></div>\';'
        "scrollTo(0, 1200), null"
    )
    png = window.capture_png()
    assert png_size(png) == (400, 300)
    window.eval_json("scrollTo(0, 0), null")
    assert window.capture_png() != png


def test_info_tells_title_route_size_and_visibility(window: ChromiumWindow):
    window.navigate("/customers/12")
    info = window.info()
    assert info == {"label": "main", "title": "Test app", "route": "/customers/12", "width": 800, "height": 600, "shown": True}


def test_a_closed_window_refuses_calls_and_closing_twice_is_fine(window: ChromiumWindow, backend: ChromiumBackend):
    window.close()
    window.close()
    assert backend.windows() == []
    with pytest.raises(WindowError, match="Window 'main' is closed"):
        window.eval_json("1")
    assert window.info()["shown"] is False


def test_two_windows_cannot_share_a_label(window: ChromiumWindow, backend: ChromiumBackend, frontend: Frontend):
    with pytest.raises(WindowError, match="already open"):
        backend.open(WindowSpec("main"), frontend)


def test_run_returns_when_the_last_window_closes(backend: ChromiumBackend, frontend: Frontend):
    opened: list[ChromiumWindow] = []
    runner = threading.Thread(target=backend.run, args=(lambda: opened.append(backend.open(WindowSpec("main"), frontend)),))
    runner.start()
    deadline = time.monotonic() + 10
    while not opened and time.monotonic() < deadline:
        time.sleep(0.02)
    assert opened and opened[0].eval_json("document.title") == "Test app"
    backend.browser.send("Target.closeTarget", {"targetId": opened[0].session.target_id})  # as a person closes it
    runner.join(10)
    assert not runner.is_alive()


def test_the_origin_is_a_dns_label_made_from_the_app_name():
    assert origin_for("crm") == "http://crm.rata.localhost"
    assert origin_for("My CRM_2") == "http://my-crm-2.rata.localhost"
    assert origin_for("!!!") == "http://app.rata.localhost"
