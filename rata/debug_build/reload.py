"""`rata dev` restarts the app when its code changes: a watcher process and the app in a child process.

    status = Reloader(child_argv, check_argv, root, app, say).run()   # until the app's window closes or a stop signal

The watcher (the `rata dev` process itself) starts the app as a child (`rata dev` again, with
``RATA_DEV_PARENT`` set), then compares the modification times of the project's Python files
and its pyproject.toml (`rata.dev_server.target.fingerprint`, at most 5,000 files) every
`POLL` seconds. On a change it first loads the new code in a separate process (``rata dev
--check``: import the app and build its catalog, as its MCP server will). If that fails, the
app keeps running the code it has, and `say` gets the error naming the file and line; nothing
else happens until the next save. If it loads, the watcher leaves ``dev.restarting`` in the
app's folder (so a `crm --mcp` connected to the app waits for the new one instead of ending,
see `rata.mcp.shim`), stops the child (SIGTERM: its window, Chromium and endpoints close as on
any stop), starts a new one and removes the file once the new app's MCP endpoint answers. A new
child that fails to start is reported the same way and started again on the next save.

The child ends itself when the watcher goes away, even killed with SIGKILL (`watch_parent`).
A stop signal to the watcher stops the child first (`rata.stopping`'s cleanups), and the
watcher's exit status is the child's when the app ends by itself (its main window closed).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rata import stopping
from rata.dev_server.target import fingerprint
from rata.endpoint import MCP, connect
from rata.folder import RESTARTING

POLL = 0.5
"""Seconds between two looks at the project's files."""
SETTLE = 0.2
"""A change is acted on once the files stay the same this long (an editor saving several files)."""
CHECK_TIMEOUT = 60.0
START_TIMEOUT = 60.0
STOP_TIMEOUT = 5.0
PARENT = "RATA_DEV_PARENT"
"""The watcher's process id, in the child's environment: it tells the child it is the app."""


class Reloader:
    def __init__(self, child_argv: list[str], check_argv: list[str], root: Path, app: Any, say: Callable[[str], None]) -> None:
        self.child_argv, self.check_argv, self.root = child_argv, check_argv, root
        self.folder, self.name, self.serves_mcp = app.folder, app.name, app.mcp_config is not None
        self.say = say
        self.child: subprocess.Popen[bytes] | None = None
        self.marker = Path(self.folder.file(RESTARTING))
        self._children = threading.Lock()
        """Held while a child is started and made `child`, and while a stop ends it: a stop signal that lands
        while a child starts (on the signal watcher's thread) waits for it, then stops it."""
        self._ended = False

    def run(self) -> int:
        """Watch and restart until the app ends by itself (its status) or a stop signal ends this process."""
        cleanup = stopping.on_stop(self._end)  # registered before the child exists: a stop at any moment ends it
        try:
            self._spawn()
            seen = fingerprint(self.root)
            started = True  # False after a restart whose new app failed: wait for the next save
            while True:
                status = self.child.poll() if self.child is not None else None
                if status is not None:
                    if started:
                        return 128 - status if status < 0 else status
                    self.child = None
                time.sleep(POLL)
                now = fingerprint(self.root)
                if now == seen:
                    continue
                time.sleep(SETTLE)
                if fingerprint(self.root) != now:
                    continue  # still being written: look again next round
                changed = sorted({path for path, _ in set(now) ^ set(seen)})
                seen = now
                started = self._reload(changed)
        finally:
            cleanup.run()

    def _reload(self, changed: list[str]) -> bool:
        """Restart the app on the new code if it loads; True when a child runs (the old or the new one)."""
        files = ", ".join(os.path.relpath(path, self.root) for path in changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        problem = self._check()
        if problem is not None:
            running = "the previous version keeps running" if self.child is not None else "nothing runs"
            self.say(f"rata dev: {files} changed, but {self.name} does not load now; {running}. Fix this and save again:\n{problem}")
            return self.child is not None
        self.say(f"rata dev: {files} changed; restarting {self.name}")
        self.marker.write_text(str(os.getpid()))
        try:
            self._stop_child()
            self._spawn()
            if self._wait_until_serving():
                return True
            self.say(f"rata dev: the new version of {self.name} did not start (see above); fix it and save again")
            return False
        finally:
            with contextlib.suppress(OSError):
                self.marker.unlink()

    def _check(self) -> str | None:
        """None when the new code loads; else what went wrong, as `rata dev --check` says it."""
        try:
            done = subprocess.run(self.check_argv, capture_output=True, timeout=CHECK_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"loading the app took more than {CHECK_TIMEOUT:.0f} s (an import that waits for something?)"
        if done.returncode == 0:
            return None
        said = done.stderr.decode("utf-8", "replace").strip()
        return said or f"loading the app failed with exit status {done.returncode}"

    def _spawn(self) -> subprocess.Popen[bytes] | None:
        """A new child, made `child` at once (None once a stop has ended this watcher)."""
        with self._children:
            if self._ended:
                return None
            self.child = subprocess.Popen(self.child_argv, env={**os.environ, PARENT: str(os.getpid())}, stdin=subprocess.DEVNULL)
            return self.child

    def _wait_until_serving(self) -> bool:
        """Until the new app's MCP endpoint answers (an app without one: until it has run a moment); False if it ended."""
        child = self.child
        if child is None:  # a stop ended the watcher meanwhile
            return False
        deadline = time.monotonic() + (START_TIMEOUT if self.serves_mcp else 1.0)
        while time.monotonic() < deadline:
            if child.poll() is not None:
                return False
            if self.serves_mcp:
                with contextlib.suppress(Exception):
                    connection = connect(self.folder, MCP)
                    if connection is not None:
                        connection.close()
                        return True
            time.sleep(0.1)
        return not self.serves_mcp and child.poll() is None

    def _stop_child(self) -> None:
        with self._children:
            child, self.child = self.child, None
        if child is None or child.poll() is not None:
            return
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()

    def _end(self) -> None:
        with self._children:
            self._ended = True  # no child starts after this
        self._stop_child()
        with contextlib.suppress(OSError):
            self.marker.unlink()


def watch_parent(parent: int) -> None:
    """In the child: stop this process (SIGTERM, so its cleanups run) once the watcher `parent` is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="rata-dev-parent", daemon=True).start()
