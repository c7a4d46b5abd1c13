"""A Chrome DevTools Protocol client over ``--remote-debugging-pipe``, standard library only.

Why a pipe and not a port: with ``--remote-debugging-pipe`` Chromium reads commands on its
fd 3 and writes replies and events on its fd 4, as JSON messages each ended by a NUL byte.
Nothing listens on the network, no other local process can attach to the browser, and no
websocket library is needed. The price is the fd set-up in the child (see `_pipe_preexec`).

One `Browser` is one Chromium process with its own temporary profile. A reader thread
splits the pipe into messages: replies resolve the command waiting on their ``id``,
events go to a second thread that calls the subscribers, so a subscriber may itself send
a command and wait for the reply without stalling the pipe. `Session` is one attached
page (a flat session: the same pipe, messages tagged with ``sessionId``).

Closing (or interpreter exit, or the process dying) kills Chromium's whole process group
and removes the profile directory.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rata import stopping
from rata.errors import WindowError

log = logging.getLogger("rata.windows")

DEFAULT_TIMEOUT = 10.0
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
MAC_APPS = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
INSTALL_HINT = "Install Chromium (`apt-get install chromium` on Debian/Ubuntu) or set RATA_CHROMIUM to the path of a Chromium or Chrome binary."

# Keep a browser started for a dev tool or a test run off the network and quiet: no
# component updates, sync, field trials, first-run UI, or crash reporting.
QUIET_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
    "--no-pings",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--disable-dev-shm-usage",
    "--mute-audio",
)

_SUN_PATH_MAX = 100  # what a Unix socket's path may hold on every platform, with room to spare
_live: weakref.WeakSet[Browser] = weakref.WeakSet()


class CdpError(WindowError):
    """Chromium answered a command with an error (``code`` is the protocol's error code)."""

    def __init__(self, method: str, code: int, message: str) -> None:
        super().__init__(f"Chromium refused {method}: {message} (code {code})")
        self.method = method
        self.code = code


def find_chromium() -> str:
    """The Chromium binary to start: ``RATA_CHROMIUM`` if set, else the first browser on PATH.

    Raises:
        WindowError: none was found, or ``RATA_CHROMIUM`` names a file that is not there.
    """
    configured = os.environ.get("RATA_CHROMIUM")
    if configured:
        path = shutil.which(configured) or (configured if os.access(configured, os.X_OK) else None)
        if path is None:
            raise WindowError(f"RATA_CHROMIUM is set to {configured!r}, which is not an executable file.", hint=INSTALL_HINT)
        return path
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    for app in MAC_APPS:
        if os.access(app, os.X_OK):
            return app
    raise WindowError("Chromium was not found (looked for " + ", ".join(CANDIDATES) + " on PATH).", hint=INSTALL_HINT)


def _pipe_preexec(read_end: int, write_end: int) -> Callable[[], None]:
    """Runs in the child before exec: put the pipe ends on fds 3 and 4, inheritable.

    The trap: `os.pipe` fds are close-on-exec, and ``os.dup2(fd, 3)`` is a no-op that keeps
    that flag when ``fd`` already is 3. Copying both ends above the low fds first makes each
    ``dup2`` a real copy, which clears close-on-exec on the target.

    On Linux, when started from the main thread, the child also asks to be killed when its
    parent dies (``PR_SET_PDEATHSIG``): a rata killed with SIGKILL, which runs no cleanup,
    leaves no Chromium behind. (The signal comes when the thread that started the child ends,
    so only the main thread, which lives as long as the process, asks for it.)
    """
    import fcntl  # here, in the parent: POSIX only, and a Windows user's import of this module must not need it

    die_with_parent = _death_signal_setter() if threading.current_thread() is threading.main_thread() else None

    def preexec() -> None:
        if die_with_parent is not None:
            die_with_parent()
        high_read = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
        os.dup2(high_read, 3)
        os.dup2(high_write, 4)
        os.close(high_read)
        os.close(high_write)

    return preexec


def _death_signal_setter() -> Callable[[], None] | None:
    """A function for a forked child that makes the kernel SIGKILL it when its parent dies (Linux), else None.

    Made in the parent: a forked child must not import or look anything up.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig, sigkill, parent = 1, int(signal.SIGKILL), os.getpid()

    def die_with_parent() -> None:
        prctl(pr_set_pdeathsig, sigkill, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)  # the parent died before the request took hold

    return die_with_parent


class Browser:
    """One Chromium process driven over the DevTools pipe.

    Raises:
        WindowError: Chromium is missing, does not start, or dies while a command waits.
    """

    def __init__(
        self,
        binary: str | None = None,
        *,
        headless: bool = True,
        args: Iterable[str] = (),
        start_timeout: float = 20.0,
        on_spawn: Callable[[Browser], None] | None = None,
    ) -> None:
        """Start Chromium and wait until it answers; `on_spawn(self)` is called once its process exists (so `kill` can end the wait)."""
        self.binary = binary or find_chromium()
        self.headless = headless
        self._next_id = 0
        self._pending: dict[int, list[Any]] = {}  # id -> [threading.Event, reply or None, method]
        self._subscribers: dict[tuple[str | None, str], list[Callable[[dict[str, Any]], None]]] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._events: queue.SimpleQueue[tuple[str | None, str, dict[str, Any]] | None] = queue.SimpleQueue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._closed = False
        self._closing = False
        self._dead_reason: str | None = None
        self.profile = Path(tempfile.mkdtemp(prefix="rata-chromium-"))
        # Headless: scrollbars take no room, as on macOS or phones, so a screenshot is the page itself.
        command = [self.binary, *(["--headless", "--hide-scrollbars"] if headless else []), *QUIET_FLAGS]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox on
        command += [*args, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"]
        # Chromium's own temporary files (a scoped folder holding its singleton socket, shared memory)
        # go into a folder of rata's, removed with the profile, even after a SIGKILL of the group: inside
        # the profile, or in /tmp when that path would be too long for the socket (Chromium gives up then).
        self.scratch = self.profile / "t"
        if len(os.fsencode(self.scratch)) + len("/org.chromium.Chromium.XXXXXX/SingletonSocket") < _SUN_PATH_MAX:
            self.scratch.mkdir()
        else:
            self.scratch = Path(tempfile.mkdtemp(prefix="rata-chromium-", dir="/tmp" if os.path.isdir("/tmp") else None))
        environment = {**os.environ, "TMPDIR": str(self.scratch)}
        # What a hard stop of this process (rata.stopping) does if the browser is still open then.
        self._cleanup = stopping.on_stop(self._kill_group)
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                preexec_fn=_pipe_preexec(to_browser_read, from_browser_write),  # noqa: PLW1509 - fds 3/4 cannot be set up otherwise
                close_fds=False,
                env=environment,
                start_new_session=True,  # its own process group: close() kills renderers and zygotes too
            )
        except OSError as error:
            for fd in (to_browser_read, from_browser_write, self._to_browser, self._from_browser):
                os.close(fd)
            self._cleanup.run()
            raise WindowError(f"Chromium at {self.binary!r} could not be started: {error}.", hint=INSTALL_HINT) from error
        os.close(to_browser_read)
        os.close(from_browser_write)
        _live.add(self)
        if on_spawn is not None:
            on_spawn(self)
        self._stderr_thread = threading.Thread(target=self._read_stderr, name="rata-cdp-stderr", daemon=True)
        self._stderr_thread.start()
        threading.Thread(target=self._read, name="rata-cdp-reader", daemon=True).start()
        threading.Thread(target=self._dispatch, name="rata-cdp-events", daemon=True).start()
        try:
            self.version = self.send("Browser.getVersion", timeout=start_timeout)
        except BaseException:
            self.close()
            raise

    # -- commands ---------------------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """Send one command and wait for its result.

        Raises:
            CdpError: Chromium answered with an error.
            WindowError: no answer within `timeout` seconds, or Chromium is gone.
        """
        waiter = threading.Event()
        with self._lock:
            self._check_alive()
            self._next_id += 1
            command_id = self._next_id
            slot = [waiter, None, method]
            self._pending[command_id] = slot
        self._write(command_id, method, params, session)
        if not waiter.wait(timeout):
            with self._lock:
                self._pending.pop(command_id, None)
            raise WindowError(f"Chromium did not answer {method} within {timeout:g} s.")
        reply = slot[1]
        if reply is None:
            raise WindowError(self._death_message())
        if "error" in reply:
            error = reply["error"]
            raise CdpError(method, error.get("code", 0), error.get("message", "unknown error"))
        return reply.get("result", {})

    def send_nowait(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None) -> None:
        """Send one command and do not wait: its reply (or error) is dropped."""
        with self._lock:
            self._check_alive()
            self._next_id += 1
            command_id = self._next_id
        self._write(command_id, method, params, session)

    def _write(self, command_id: int, method: str, params: dict[str, Any] | None, session: str | None) -> None:
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message, separators=(",", ":")).encode() + b"\0"
        with self._write_lock:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._to_browser, view) :]
            except OSError as error:
                self._fail(f"the pipe to Chromium broke ({error})")
                raise WindowError(self._death_message()) from error

    def _check_alive(self) -> None:
        if self._closed or self._dead_reason is not None:
            raise WindowError(self._death_message())

    def _death_message(self) -> str:
        if self._closing:
            return "The browser was closed."
        # Chromium logs harmless complaints about the missing session bus on every start.
        words = [line for line in self._stderr if line.strip() and "dbus" not in line.lower()]
        tail = "; ".join(words[-3:])[-600:]
        return f"Chromium stopped: {self._dead_reason}." + (f" Its last words: {tail}" if tail else "")

    # -- events -----------------------------------------------------------------------------

    def subscribe(self, method: str, callback: Callable[[dict[str, Any]], None], *, session: str | None = None) -> Callable[[], None]:
        """Call `callback(params)` for each `method` event (of `session`, or browser-wide); returns the unsubscribe.

        Callbacks run one at a time on the browser's event thread. They may send commands
        and wait for them, but must not wait for another event.
        """
        key = (session, method)
        with self._lock:
            self._subscribers.setdefault(key, []).append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(KeyError, ValueError):
                self._subscribers[key].remove(callback)

        return unsubscribe

    def expect(self, method: str, *, session: str | None = None, predicate: Callable[[dict[str, Any]], bool] | None = None) -> Expectation:
        """Start listening for one `method` event now; wait for it later (so it cannot be missed)."""
        return Expectation(self, method, session, predicate)

    # -- threads ----------------------------------------------------------------------------

    def _read(self) -> None:
        parts: list[bytes] = []  # the message read so far; joined once its NUL arrives
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            while (end := chunk.find(b"\0")) >= 0:
                parts.append(chunk[:end])
                self._deliver(json.loads(b"".join(parts)))
                parts, chunk = [], chunk[end + 1 :]
            if chunk:
                parts.append(chunk)
        with contextlib.suppress(OSError):
            os.close(self._from_browser)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=1.0)
        code = self.process.poll()
        self._fail("the pipe closed" if code is None else f"it exited with code {code}")

    def _deliver(self, message: dict[str, Any]) -> None:
        if "id" in message:
            with self._lock:
                slot = self._pending.pop(message["id"], None)
            if slot is not None:
                slot[1] = message
                slot[0].set()
        elif "method" in message:
            self._events.put((message.get("sessionId"), message["method"], message.get("params", {})))

    def _dispatch(self) -> None:
        while (item := self._events.get()) is not None:
            session, method, params = item
            with self._lock:
                callbacks = list(self._subscribers.get((session, method), ()))
            for callback in callbacks:
                try:
                    callback(params)
                except Exception:  # noqa: BLE001 - one bad subscriber must not stop every later event
                    log.exception("a handler of the DevTools event %s failed", method)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line.decode(errors="replace").rstrip())

    def _fail(self, reason: str) -> None:
        """Chromium is gone (or going): every waiting command fails now, later ones at once."""
        with self._lock:
            if self._dead_reason is None:
                self._dead_reason = reason
            pending, self._pending = self._pending, {}
        for slot in pending.values():
            slot[0].set()
        self._events.put(None)

    # -- life -------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return not self._closed and self._dead_reason is None and self.process.poll() is None

    def new_page(self, url: str = "about:blank", **target: Any) -> Session:
        """Open a new page target and attach to it (a flat session)."""
        target_id = self.send("Target.createTarget", {"url": url, **target})["targetId"]
        session_id = self.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})["sessionId"]
        return Session(self, session_id, target_id)

    def close(self, timeout: float = 3.0) -> None:
        """Ask Chromium to quit, kill its process group if it lingers, remove the profile (idempotent)."""
        if self._closed:
            return
        alive = self.alive
        self._closing = True
        if alive:
            with contextlib.suppress(WindowError):
                self.send("Browser.close", timeout=timeout)
        self._closed = True
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=timeout)
        self._cleanup.run()  # leftover renderers, zygotes, crashpad; the profile
        with contextlib.suppress(OSError):
            os.close(self._to_browser)
        self._fail("it was closed")
        self._stderr_thread.join(timeout)
        if self.process.stderr is not None:
            self.process.stderr.close()
        _live.discard(self)

    def kill(self) -> None:
        """Kill Chromium's process group now, from any thread, without waiting: every wait on it ends; `close` still cleans up."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def _kill_group(self) -> None:
        """Kill Chromium's whole process group and remove its profile (quick; safe on any thread)."""
        process = getattr(self, "process", None)  # None: stopped before Chromium was started
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=1.0)
        shutil.rmtree(self.profile, ignore_errors=True)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Session:
    """One attached target (a page): commands and events tagged with its session id."""

    def __init__(self, browser: Browser, session_id: str, target_id: str) -> None:
        self.browser = browser
        self.id = session_id
        self.target_id = target_id

    def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.id, timeout=timeout)

    def send_nowait(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.browser.send_nowait(method, params, session=self.id)

    def subscribe(self, method: str, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        return self.browser.subscribe(method, callback, session=self.id)

    def expect(self, method: str, predicate: Callable[[dict[str, Any]], bool] | None = None) -> Expectation:
        return self.browser.expect(method, session=self.id, predicate=predicate)

    def close(self) -> None:
        """Close the target (idempotent; a browser already gone is fine)."""
        with contextlib.suppress(WindowError):
            self.browser.send("Target.closeTarget", {"targetId": self.target_id})


class Expectation:
    """One event awaited: subscribed when made, so an event sent before `wait` is still caught."""

    def __init__(self, browser: Browser, method: str, session: str | None, predicate: Callable[[dict[str, Any]], bool] | None) -> None:
        self.method = method
        self.params: dict[str, Any] | None = None
        self._browser = browser
        self._done = threading.Event()
        self._predicate = predicate
        self._unsubscribe = browser.subscribe(method, self._seen, session=session)

    def _seen(self, params: dict[str, Any]) -> None:
        if self.params is None and (self._predicate is None or self._predicate(params)):
            self.params = params
            self._done.set()

    def wait(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """The event's params.

        Raises:
            WindowError: it did not come within `timeout` seconds, or Chromium is gone.
        """
        deadline_hit = not self._wait_alive(timeout)
        self._unsubscribe()
        if self.params is not None:
            return self.params
        if deadline_hit:
            raise WindowError(f"Chromium sent no {self.method} within {timeout:g} s.")
        raise WindowError(self._browser._death_message())

    def cancel(self) -> None:
        self._unsubscribe()

    def _wait_alive(self, timeout: float) -> bool:
        """Wait in short steps so a dead browser ends the wait early; False on timeout."""
        remaining = timeout
        while remaining > 0:
            if self._done.wait(min(remaining, 0.25)):
                return True
            if self._browser._dead_reason is not None:
                return True
            remaining -= 0.25
        return False


@atexit.register
def _close_all() -> None:
    for browser in list(_live):
        browser.close(timeout=1.0)
