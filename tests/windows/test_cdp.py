"""The DevTools pipe client against a real headless Chromium."""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rata.errors import WindowError
from rata.windows.cdp import Browser, CdpError, Session, find_chromium
from tests.windows.shared import require_chromium


@pytest.fixture
def page(browser: Browser) -> Iterator[Session]:
    session = browser.new_page()
    yield session
    session.close()


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_a_page_evaluates_and_captures_a_png(page: Session):
    assert page.send("Runtime.evaluate", {"expression": "1+1", "returnByValue": True})["result"]["value"] == 2
    page.send("Emulation.setDeviceMetricsOverride", {"width": 640, "height": 400, "deviceScaleFactor": 1, "mobile": False})
    png = base64.b64decode(page.send("Page.captureScreenshot", {"format": "png"})["data"])
    assert png_size(png) == (640, 400)


def test_an_unknown_method_raises_cdp_error_with_the_protocol_code(page: Session):
    with pytest.raises(CdpError) as caught:
        page.send("Nope.nothing")
    assert caught.value.method == "Nope.nothing"
    assert caught.value.code == -32601


def test_an_expected_event_is_caught_even_when_it_comes_before_wait(page: Session):
    page.send("Page.enable")
    loaded = page.expect("Page.loadEventFired")
    page.send("Page.navigate", {"url": "data:text/html,<title>x</title>hello"})
    time.sleep(0.2)
    assert "timestamp" in loaded.wait(5)


def test_subscribers_see_events_of_their_own_session_only(browser: Browser):
    first, second = browser.new_page(), browser.new_page()
    seen: list[str] = []
    try:
        for session in (first, second):
            session.send("Runtime.enable")
        unsubscribe = first.subscribe("Runtime.consoleAPICalled", lambda params: seen.append(params["args"][0]["value"]))
        done = second.expect("Runtime.consoleAPICalled")
        first_done = first.expect("Runtime.consoleAPICalled", lambda p: p["args"][0]["value"] == "from first")
        second.send("Runtime.evaluate", {"expression": "console.log('from second')"})
        first.send("Runtime.evaluate", {"expression": "console.log('from first')"})
        done.wait(5)
        first_done.wait(5)
        unsubscribe()
        assert seen == ["from first"]
    finally:
        first.close()
        second.close()


def test_a_command_that_takes_too_long_times_out_with_a_clear_error(page: Session):
    with pytest.raises(WindowError, match=r"did not answer Runtime.evaluate within 0.2 s"):
        page.send("Runtime.evaluate", {"expression": "const t = Date.now(); while (Date.now() < t + 1000) {}"}, timeout=0.2)


def test_a_large_reply_arrives_whole(page: Session):
    result = page.send("Runtime.evaluate", {"expression": "'x'.repeat(3000000)", "returnByValue": True})
    assert len(result["result"]["value"]) == 3_000_000


def test_a_dead_chromium_fails_waiting_and_later_commands_with_its_exit():
    browser = Browser(require_chromium())
    try:
        session = browser.new_page()
        os.killpg(browser.process.pid, signal.SIGKILL)
        with pytest.raises(WindowError, match="Chromium stopped"):
            for _ in range(50):  # the reader may need a moment to see the pipe close
                session.send("Runtime.evaluate", {"expression": "1"}, timeout=1)
                time.sleep(0.05)
        assert not browser.alive
    finally:
        browser.close()
    assert not browser.profile.exists()


def test_close_ends_the_process_group_and_removes_the_profile():
    browser = Browser(require_chromium())
    browser.new_page()
    browser.close()
    browser.close()  # idempotent
    assert browser.process.poll() is not None
    assert running_in_group(browser.process.pid) == []
    assert not browser.profile.exists()
    with pytest.raises(WindowError, match="closed"):
        browser.send("Browser.getVersion")


@pytest.mark.subprocess
def test_interpreter_exit_closes_a_browser_left_open(tmp_path):
    require_chromium()
    script = textwrap.dedent(
        """
        from rata.windows.cdp import Browser
        browser = Browser()
        browser.new_page()
        print(browser.process.pid, browser.profile, flush=True)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    pid, profile = result.stdout.split()
    assert not os.path.exists(profile)
    assert running_in_group(int(pid)) == []


def running_in_group(pgid: int) -> list[int]:
    """Processes of the group that still run (zombies waiting for init to reap them do not count)."""
    running = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                running.append(int(entry))
    return running


def test_a_missing_chromium_names_the_install_command_and_the_variable(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("RATA_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr("rata.windows.cdp.MAC_APPS", ())
    with pytest.raises(WindowError) as caught:
        find_chromium()
    assert "apt-get install chromium" in str(caught.value)
    assert "RATA_CHROMIUM" in str(caught.value)


def test_rata_chromium_pointing_at_nothing_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RATA_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(WindowError, match="RATA_CHROMIUM is set to '/nonexistent/chromium'"):
        Browser()


def test_rata_chromium_chooses_the_binary(monkeypatch: pytest.MonkeyPatch):
    binary = require_chromium()
    monkeypatch.setenv("RATA_CHROMIUM", binary)
    assert find_chromium() == binary
