"""`run_windows`: picks the backend, opens ``main``, and returns when it is told to stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from rata.errors import WindowError
from rata.windows.chromium import ChromiumBackend
from rata.windows.run import make_backend, run_windows
from tests.conftest import CRM, subprocess_env
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
                seen["windows"] = [(info["label"], info["title"]) for info in host.windows()]
            finally:
                os.kill(os.getpid(), signal.SIGTERM)  # what a service manager sends

        threading.Thread(target=check, daemon=True).start()

    previous = signal.getsignal(signal.SIGTERM)
    run_windows(crm_app, "browser", headless=True, on_start=on_start)
    assert seen["windows"] == [("main", "CRM")]
    assert signal.getsignal(signal.SIGTERM) is previous  # put back afterwards


SLOW_START = """
import json, os, signal, sys, threading, time
sys.path.insert(0, {crm!r})
from crm.app import app
from rata.windows.run import run_windows

app.migrate()
began = time.monotonic()
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()  # while Chromium is starting (it sleeps 1.5 s first)
run_windows(app, "browser", headless=True)
print(json.dumps({{"returned_after": time.monotonic() - began}}))
"""


def test_a_sigterm_while_chromium_starts_ends_run_windows_promptly_with_no_chromium_left(tmp_path):
    # The old handler stopped the backend from inside the signal handler, which waited for the lock
    # that the interrupted launch held on the same thread: the process ran on forever.
    chromium = require_chromium()
    slow = tmp_path / "slow-chromium"
    slow.write_text(f'#!/bin/sh\nsleep 1.5\nexec {chromium} "$@"\n')
    slow.chmod(0o755)
    scratch = tmp_path / "tmp"  # a long TMPDIR: Chromium's own files go to a short folder of rata's
    scratch.mkdir()
    env = subprocess_env(tmp_path / "home", RATA_CHROMIUM=str(slow), TMPDIR=str(scratch))
    script = SLOW_START.format(crm=str(CRM))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=30)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["returned_after"] < 2.0  # not the 1.5 s Chromium takes to start
    assert list(scratch.iterdir()) == []  # its profile is gone
