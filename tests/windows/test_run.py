"""`run_windows`: picks the backend, opens ``main``, and returns when it is told to stop."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from rata.errors import WindowError
from rata.windows.chromium import ChromiumBackend
from rata.windows.run import make_backend, run_windows
from tests.windows.shared import require_chromium


def test_an_unknown_backend_name_lists_the_known_ones():
    with pytest.raises(WindowError) as unknown:
        make_backend("electron")
    assert unknown.value.hint == "Use one of: desktop, browser."


def test_headless_means_the_browser_backend_whatever_the_name(monkeypatch):
    monkeypatch.setitem(sys.modules, "webview", None)  # the desktop backend could not even start
    backend = make_backend("desktop", headless=True, app_name="crm")
    assert isinstance(backend, ChromiumBackend) and backend.headless and backend.origin == "http://crm.rata.localhost"


def test_run_windows_shows_the_apps_main_window_until_sigterm(crm_app):
    require_chromium()
    crm_app.migrate()
    seen = {}

    def on_start(host) -> None:
        def check() -> None:
            try:
                window = host.window("main")
                deadline = time.monotonic() + 10
                while window.eval_json("document.getElementById('summary').textContent") != "No customers yet.":
                    assert time.monotonic() < deadline, "the list never loaded"
                    time.sleep(0.05)
                seen["windows"] = [(info.label, info.title) for info in host.windows()]
            finally:
                os.kill(os.getpid(), signal.SIGTERM)  # what a service manager sends

        threading.Thread(target=check, daemon=True).start()

    previous = signal.getsignal(signal.SIGTERM)
    run_windows(crm_app, "browser", headless=True, on_start=on_start)
    assert seen["windows"] == [("main", "CRM")]
    assert signal.getsignal(signal.SIGTERM) is previous  # put back afterwards
