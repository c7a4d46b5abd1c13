"""`rata.stopping`: a stop signal ends the process promptly and runs its cleanups, whatever the main thread is doing.

Each test runs a small script as its own process (signal handlers are process-wide) and signals it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parent.parent
BOUND = 3.0  # seconds from the signal to the exit: GRACE (1.5 s) and room for a loaded machine

PRELUDE = """
import os, sys, threading, time
from pathlib import Path
from rata import stopping
marker = Path(sys.argv[1])
marker.write_text("made")
"""


def start(body: str, marker: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", PRELUDE + body, str(marker)], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready", process.stderr.read() if process.stderr else ""
    return process


def stop(process: subprocess.Popen[str], signum: int = signal.SIGTERM, again: float | None = None) -> tuple[int, float, str]:
    """Send `signum` (and once more after `again` seconds); the exit status, the seconds it took, stderr."""
    began = time.monotonic()
    process.send_signal(signum)
    if again is not None:
        time.sleep(again)
        process.send_signal(signum)
    try:
        _, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        pytest.fail(f"the process did not stop within 10 s: {err}")
    return process.returncode, time.monotonic() - began, err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_main_thread_stuck_on_its_own_lock_still_stops_at_once_and_runs_the_cleanups(tmp_path, signum):
    # The `rata dev --headless` bug: the old handler waited for a lock its own thread held, forever.
    body = """
stopping.install()
stopping.on_stop(lambda: marker.unlink())
lock = threading.Lock()
lock.acquire()
print("ready", flush=True)
lock.acquire()
"""
    marker = tmp_path / "socket"
    status, took, err = stop(start(body, marker), signum)
    assert (status, marker.exists()) == (128 + signum, False)
    assert took < BOUND and f"stopped by {signal.Signals(signum).name}" in err


def test_a_graceful_scope_is_woken_and_unwinds_by_itself_with_the_signals_exit_status(tmp_path):
    body = """
stopping.install()
cleanup = stopping.on_stop(lambda: marker.unlink())
stopped = threading.Event()
with stopping.graceful(stopped.set):
    print("ready", flush=True)
    stopped.wait()
cleanup.run()
sys.stderr.write("unwound\\n")
sys.exit(stopping.exit_status(0))
"""
    marker = tmp_path / "socket"
    status, took, err = stop(start(body, marker))
    assert (status, marker.exists()) == (143, False)
    assert took < BOUND and "unwound" in err and "stopped by" not in err


def test_a_graceful_scope_that_overruns_the_grace_is_stopped_hard(tmp_path):
    body = """
stopping.install()
stopping.on_stop(lambda: marker.unlink())
with stopping.graceful(lambda: None):  # woken, but never unwinds
    print("ready", flush=True)
    time.sleep(60)
"""
    marker = tmp_path / "socket"
    status, took, err = stop(start(body, marker), signal.SIGINT)
    assert (status, marker.exists()) == (130, False)
    assert 1.0 < took < BOUND and "stopped by SIGINT" in err


def test_a_second_signal_stops_hard_at_once_while_the_first_unwinds(tmp_path):
    body = """
stopping.install()
stopping.on_stop(lambda: marker.unlink())
with stopping.graceful(lambda: None):
    print("ready", flush=True)
    time.sleep(60)
"""
    marker = tmp_path / "socket"
    status, took, _ = stop(start(body, marker), signal.SIGTERM, again=0.2)
    assert (status, marker.exists()) == (143, False)
    assert took < 1.0


def test_one_signal_is_one_request_even_though_both_handlers_report_it(tmp_path):
    # The C-level handler writes to the wakeup pipe and the Python one too: no "second signal" from that.
    body = """
stopping.install()
stopped = threading.Event()
with stopping.graceful(stopped.set):
    print("ready", flush=True)
    stopped.wait()
time.sleep(0.5)  # still alive: the one signal was not taken for two
sys.stderr.write("unwound\\n")
sys.exit(stopping.exit_status(0))
"""
    status, _, err = stop(start(body, tmp_path / "marker"))
    assert status == 143 and "unwound" in err and "stopped by" not in err


def test_a_cleanup_run_by_its_owner_is_not_run_again_by_the_hard_stop(tmp_path):
    body = """
stopping.install()
stopping.on_stop(lambda: marker.write_text("ran again")).run()
marker.write_text("made again")
print("ready", flush=True)
time.sleep(60)
"""
    marker = tmp_path / "marker"
    status, _, _ = stop(start(body, marker))
    assert status == 143 and marker.read_text() == "made again"


def test_without_install_a_graceful_scope_handles_the_signal_puts_the_handlers_back_and_the_process_goes_on(tmp_path):
    body = """
import signal
before = {s: signal.getsignal(s) for s in stopping.STOP_SIGNALS}
stopped = threading.Event()
with stopping.graceful(stopped.set):
    print("ready", flush=True)
    stopped.wait()
after = {s: signal.getsignal(s) for s in stopping.STOP_SIGNALS}
sys.stderr.write(f"restored={before == after} requested={stopping.requested()}\\n")
sys.exit(7)
"""
    status, _, err = stop(start(body, tmp_path / "marker"))
    assert status == 7 and "restored=True requested=False" in err


def test_a_signal_the_process_was_started_with_ignored_stays_ignored(tmp_path):
    # What `nohup` does for SIGHUP, and a shell for the Ctrl-C of its background jobs.
    body = """
stopping.install()
stopping.on_stop(lambda: marker.unlink())
print("ready", flush=True)
time.sleep(60)
"""
    marker = tmp_path / "socket"
    process = subprocess.Popen(
        [sys.executable, "-c", PRELUDE + body, str(marker)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # noqa: PLW1509 - as nohup does
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    process.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    assert process.poll() is None and marker.exists()
    status, _, _ = stop(process)
    assert (status, marker.exists()) == (143, False)
