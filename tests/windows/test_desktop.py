"""The desktop backend: its pure parts, and for real, crm's window on pywebview with Qt (QtWebEngine, offscreen).

The real run is optional: it needs ``pip install pywebview qtpy PySide6-Essentials==6.11.3
PySide6-Addons==6.11.3 shiboken6==6.11.3`` (about 680 MB; 6.12's Addons wheel has no
QtWebEngine) and is skipped where those are missing, CI included. Qt runs offscreen, so no
X server is needed. pywebview's loop owns the main thread, so the checks run on a second
thread and end by closing the window.
"""

from __future__ import annotations

import signal
import struct
import sys
import threading
import time
from typing import Any

import pytest

from rata.errors import WindowError
from rata.windows.adapter import WindowSpec
from rata.windows.desktop import DesktopBackend, ascii_js, inject_scripts
from rata.windows.host import WindowHost

QT_ENV = {
    "QT_QPA_PLATFORM": "offscreen",
    "QTWEBENGINE_DISABLE_SANDBOX": "1",  # Chromium's sandbox refuses to start as root
    "QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu",
    "PYWEBVIEW_GUI": "qt",
}


def until(window: Any, expression: str, expected: Any, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        try:
            value = window.eval_json(expression)
        except WindowError:
            value = None  # the page is still loading
        if value == expected:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{expression} stayed {value!r}, not {expected!r}")


def test_without_pywebview_the_desktop_backend_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "webview", None)  # what `import webview` meets where it is not installed
    with pytest.raises(WindowError) as missing:
        DesktopBackend()
    assert 'pip install "rata-toolkit[desktop]"' in (missing.value.hint or "") and "--headless" in (missing.value.hint or "")


def test_document_scripts_go_first_in_the_head_as_ascii():
    html = b"<!DOCTYPE html><html lang=en><HEAD><title>x</title><script src=app.js></script></head></html>"
    out = inject_scripts(html, ["window.a = '\u00e9</script>';", "window.b = 1;"])
    assert out == (
        b"<!DOCTYPE html><html lang=en><HEAD><script data-rata>window.a = '\\u00e9<\\/script>';</script>"
        b"<script data-rata>window.b = 1;</script><title>x</title><script src=app.js></script></head></html>"
    )
    assert inject_scripts(b"<p>bare</p>", ["x"]) == b"<script data-rata>x</script><p>bare</p>"


def test_ascii_js_escapes_every_non_ascii_character_the_way_js_reads_it():
    assert ascii_js("'caf\u00e9 \u2026 \U0001f600'") == "'caf\\u00e9 \\u2026 \\ud83d\\ude00'"
    assert ascii_js("plain") == "plain"


@pytest.mark.desktop
# pywebview 6.2's Qt backend calls QColor.setNamedColor, which PySide6 6.11 marks deprecated
@pytest.mark.filterwarnings("ignore:Function.*is marked as deprecated:DeprecationWarning")
def test_crms_desktop_window_calls_commands_through_the_runtime_and_draws_a_picture(crm_app, monkeypatch):
    pytest.importorskip("webview")
    pytest.importorskip("qtpy")
    pytest.importorskip("PySide6.QtWebEngineWidgets")
    for name, value in QT_ENV.items():
        monkeypatch.setenv(name, value)

    crm_app.migrate()
    backend = DesktopBackend(gui="qt")
    host = WindowHost(crm_app, backend)
    seen: dict[str, Any] = {}

    def drive() -> None:
        try:
            window = host.window("main")
            until(window, "document.getElementById('summary').textContent", "No customers yet.")
            seen["label"] = window.eval_json("rata.window")
            try:
                window.eval_json("no_such_function()")
            except WindowError as error:
                seen["js_error"] = error.message
            window.eval_json("rata.invoke('customers_store', {name: 'Ada Lovelace', email: 'ada@example.com'}).then(function (v) { window.out = v; }), 0")
            seen["stored"] = until(window, "window.out && window.out.name", "Ada Lovelace")
            crm_app.call("customers_store", name="Grace Hopper", email="grace@example.com")  # another origin writes
            until(window, "document.getElementById('summary').textContent", "2 customers")
            names = "Array.prototype.map.call(document.querySelectorAll('#rows tr td:first-child'), function (td) { return td.textContent; })"
            seen["names"] = window.eval_json(names)
            seen["png"] = window.capture_png(max_width=800)
            seen["info"] = window.info()
        except BaseException as error:  # handed to the test below; the window must close whatever happened
            seen["error"] = error
        finally:
            backend.stop()

    def ready() -> None:
        host.open(WindowSpec("main", title="CRM", width=1000, height=700))
        threading.Thread(target=drive, name="desktop-test-driver", daemon=True).start()

    previous = signal.getsignal(signal.SIGINT)
    try:
        backend.run(ready)
    finally:
        signal.signal(signal.SIGINT, previous)  # pywebview's Qt backend takes SIGINT over
        host.close()
    if "error" in seen:
        raise seen["error"]
    assert seen["label"] == "main"
    assert "ReferenceError" in seen["js_error"]
    assert seen["names"] == ["Grace Hopper", "Ada Lovelace"]
    png = seen["png"]
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (800, 560)  # 1000x700 CSS pixels, scaled to 800 wide
    assert (seen["info"].label, seen["info"].route) == ("main", "/")
    assert [(c.command, c.ok) for c in host.calls if c.kind == "invoke"] == [("customers_store", True)]
