"""Every long-running rata process stops on SIGTERM, SIGINT or SIGHUP at any moment of its life, and leaves nothing behind.

The real commands on the crm example, each signalled at many moments of its start (right after
the spawn, while Python imports, while it migrates, while Chromium starts, while the endpoints
open) and while it serves. Each time: it exits within `BOUND` seconds with 128 + the signal's
number, no Chromium of its survives (found by its profile folder, under this test's TMPDIR),
and no socket, lock file or Chromium profile is left; after a stop while serving, a second
start works.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import subprocess_env
from tests.mcp.peers import crm_command
from tests.windows.shared import require_chromium

pytestmark = pytest.mark.subprocess

RATA = str(Path(sys.executable).parent / "rata")
CRM = crm_command()[0] if crm_command()[0] != sys.executable else None
APP = "crm.app:app"
BOUND = 3.0
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
DELAYS = (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5)
LEFTOVERS = ("mcp.sock", "mcp.sock.lock", "dev.sock", "dev.sock.lock", "mcp.port", "dev.port")  # the .port files: RATA_ENDPOINT=tcp


def crm(*args: str) -> list[str]:
    return [CRM, *args] if CRM else [sys.executable, "-m", "crm.main", *args]


COMMANDS = {
    "rata dev --headless": ([RATA, "dev", "--headless", "--app", APP], "is running in dev mode"),
    "crm --headless": (crm("--headless"), "is running headless"),
    "crm --mcp": (crm("--mcp"), "serving MCP headless"),
    "rata mcp dev": ([RATA, "mcp", "dev", "--app", APP], None),
}


def moments(command: str) -> list[Any]:
    """Each delay with one of the three signals in turn, then serving with each signal."""
    cases = [pytest.param(command, delay, SIGNALS[i % 3], id=f"{command}-{delay}s-{SIGNALS[i % 3].name}") for i, delay in enumerate(DELAYS)]
    return cases + [pytest.param(command, "serving", signum, id=f"{command}-serving-{signum.name}") for signum in SIGNALS]


class Place:
    """A test's app folder and TMPDIR (where Chromium's profile folders go: short, as a real one is)."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.tmp = Path(tempfile.mkdtemp(prefix="rata-stop-", dir="/tmp" if os.path.isdir("/tmp") else None))
        self.env = subprocess_env(self.home, TMPDIR=str(self.tmp))

    def chromium_processes(self) -> list[str]:
        """Live processes whose command line names this place's TMPDIR (Chromium's --user-data-dir)."""
        found = []
        marker = os.fsencode(self.tmp)
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if marker in cmdline:
                found.append(cmdline.replace(b"\0", b" ").decode(errors="replace")[:120])
        return found

    def assert_clean(self) -> None:
        deadline = time.monotonic() + 2.0  # SIGKILLed children take a moment to be gone
        while self.chromium_processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.chromium_processes() == []
        left = sorted(name for name in LEFTOVERS if (self.home / name).exists())
        assert left == [], f"left behind in the app's folder: {left}"
        assert sorted(p.name for p in self.tmp.iterdir()) == [], "a Chromium profile folder was left behind"

    def clear(self) -> None:
        """Kill what a failed test left running and remove the TMPDIR."""
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.fsencode(self.tmp) in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                continue
        shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Place]:
    made = Place(tmp_path)
    yield made
    made.clear()


def spawn(argv: list[str], place: Place) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=place.env)


def end(process: subprocess.Popen[bytes]) -> None:
    """Kill it if it still runs (a failed test) and close its pipes."""
    if process.poll() is None:
        process.kill()
    process.communicate()


def wait_until_serving(process: subprocess.Popen[bytes], ready: str | None) -> None:
    """Until stderr says `ready`, or (a stdio server that says nothing) until it answers a ping."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    if ready is None:
        process.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        process.stdin.flush()
        assert b'"id":1' in process.stdout.readline()
        return
    said = b""
    while ready.encode() not in said:
        line = process.stderr.readline()
        assert line, f"it never got ready: {said.decode(errors='replace')}"
        said += line


def stop(process: subprocess.Popen[bytes], signum: int) -> tuple[int, float, str]:
    began = time.monotonic()
    process.send_signal(signum)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail(f"it did not stop within 10 s of {signum.name}")  # type: ignore[attr-defined] - for mypy: pytest.fail never returns
    took = time.monotonic() - began
    _, err = process.communicate()  # closes its pipes
    return process.returncode, took, err.decode(errors="replace")


def interrupted_starting_python(status: int, signum: int, said: str) -> bool:
    """SIGINT while the interpreter runs `site` (a slow start: a loaded machine, many .pth files): Python's own
    KeyboardInterrupt there is fatal, exit status 1, before any of rata's code has run."""
    return signum == signal.SIGINT and status == 1 and "init_import_site" in said and said.rstrip().endswith("KeyboardInterrupt")


def signalled(command: str, moment: object, signum: int, place: Place) -> None:
    argv, ready = COMMANDS[command]
    process = spawn(argv, place)
    try:
        if moment == "serving":
            wait_until_serving(process, ready)
        else:
            time.sleep(float(moment))  # type: ignore[arg-type] - a delay in seconds unless it is 'serving'
        status, took, said = stop(process, signum)
        assert took < BOUND, f"{command} took {took:.2f} s to stop"
        if status == -signum or interrupted_starting_python(status, signum, said):
            # Before rata's first line runs (Python still starting, importing the console script) the
            # signal's default action ends it: nothing is made yet, and SIGINT's is a KeyboardInterrupt.
            assert moment != "serving" and not place.home.exists(), said
        else:
            assert status == 128 + signum, said
            assert "Traceback" not in said and "error:" not in said, said
        place.assert_clean()
    finally:
        end(process)


def starts_again(command: str, place: Place) -> None:
    argv, ready = COMMANDS[command]
    process = spawn(argv, place)
    try:
        wait_until_serving(process, ready)
        status, _, said = stop(process, signal.SIGTERM)
        assert status == 143, said
        place.assert_clean()
    finally:
        end(process)


@pytest.mark.parametrize(("command", "moment", "signum"), moments("rata dev --headless"))
def test_rata_dev_headless_stops_at_any_moment_with_its_chromium_and_sockets_gone(place, command, moment, signum):
    require_chromium()
    signalled(command, moment, signum, place)
    if moment == "serving" and signum == signal.SIGTERM:
        starts_again(command, place)


@pytest.mark.parametrize(("command", "moment", "signum"), moments("crm --headless"))
def test_crm_headless_stops_at_any_moment_with_its_socket_and_lock_gone(place, command, moment, signum):
    signalled(command, moment, signum, place)
    if moment == "serving":
        starts_again(command, place)


@pytest.mark.parametrize(
    ("command", "moment", "signum"),
    [case for command in ("crm --mcp", "rata mcp dev") for case in moments(command) if case.values[1] in (0.05, 0.2, 0.4, "serving")],
)
def test_the_stdio_servers_stop_at_any_moment(place, command, moment, signum):
    signalled(command, moment, signum, place)


@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_the_shim_stops_on_a_signal_and_the_running_app_serves_on(place, signum):
    app = spawn(crm("--headless"), place)
    try:
        wait_until_serving(app, "is running headless")
        shim = spawn(crm("--mcp"), place)
        wait_until_serving(shim, "connected to the running app")
        status, took, said = stop(shim, signum)
        assert (status, took < BOUND) == (128 + signum, True), said
        assert app.poll() is None and ((place.home / "mcp.sock").exists() or (place.home / "mcp.port").exists())
        status, _, said = stop(app, signal.SIGTERM)
        assert status == 143, said
        place.assert_clean()
    finally:
        end(app)


def test_rata_dev_killed_with_sigkill_leaves_no_chromium_running(place):
    require_chromium()
    argv, ready = COMMANDS["rata dev --headless"]
    process = spawn(argv, place)
    try:
        wait_until_serving(process, ready)
        assert place.chromium_processes() != []
        process.kill()
        process.wait()
        deadline = time.monotonic() + 3.0
        while place.chromium_processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert place.chromium_processes() == []
    finally:
        end(process)


@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_rata_dev_headless_stops_while_chromium_starts_however_slowly_it_starts(place, signum):
    """A Chromium that takes 1.5 s to start: the signal surely lands while rata waits for it."""
    chromium = require_chromium()
    slow, started = place.tmp / "slow-chromium", place.tmp / "started"
    slow.write_text(f'#!/bin/sh\ntouch {started}\nsleep 1.5\nexec {chromium} "$@"\n')
    slow.chmod(0o755)
    place.env["RATA_CHROMIUM"] = str(slow)
    argv, _ = COMMANDS["rata dev --headless"]
    process = spawn(argv, place)
    try:
        deadline = time.monotonic() + 20
        while not started.exists():
            assert process.poll() is None and time.monotonic() < deadline, "Chromium was never started"
            time.sleep(0.02)
        status, took, rest = stop(process, signum)
        assert (status, took < 1.2) == (128 + signum, True), rest  # the wait for Chromium ends at once: no grace to run out
        slow.unlink()
        started.unlink()
        place.assert_clean()
    finally:
        end(process)
