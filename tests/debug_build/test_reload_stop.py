"""A stop signal that lands while `rata dev`'s watcher starts its child waits for the child, then stops it.

The watcher's stop runs on the signal watcher's thread (`rata.stopping`) while the main thread may be
inside `subprocess.Popen`: the child it is starting must not be left running, orphaned, to clean up
after `rata dev` has already exited. A real child process; only its start is slowed, to hit the moment.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from typing import Any

from rata import App
from rata.debug_build import reload
from rata.debug_build.reload import Reloader

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_stop_while_the_child_starts_stops_that_child(tmp_path, monkeypatch):
    app = App("sleepy", identifier="com.example.sleepy", root=tmp_path)
    app.folder = tmp_path / "home"
    real_popen = subprocess.Popen
    starting = threading.Event()
    made: list[subprocess.Popen[Any]] = []

    def slow_popen(*args, **kwargs):
        child = real_popen(*args, **kwargs)
        made.append(child)
        starting.set()
        time.sleep(0.3)  # the stop lands now, between the process's start and the watcher knowing it
        return child

    monkeypatch.setattr(reload.subprocess, "Popen", slow_popen)
    watcher = Reloader(SLEEPER, SLEEPER, tmp_path, app, lambda line: None)
    starter = threading.Thread(target=watcher._spawn)
    starter.start()
    assert starting.wait(10)
    watcher._end()  # what the stop signal runs
    starter.join(10)
    assert made and made[0].wait(10) == -signal.SIGTERM  # stopped, not orphaned
    assert watcher.child is None
    assert watcher._spawn() is None  # and nothing starts after a stop
