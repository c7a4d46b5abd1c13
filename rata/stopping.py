"""How a long-running rata process stops: SIGTERM, SIGINT (Ctrl-C) or SIGHUP, at any moment of its life.

    stopping.install()                         # first thing in a console script (`crm`, `rata dev`, `rata mcp dev`)
    cleanup = stopping.on_stop(kill_chromium)  # what must not outlive the process: children, sockets, lock files
    cleanup.run()                              # done the normal way: run it now, once, and forget it
    with stopping.graceful(wake):              # a serving loop that unwinds by itself once `wake()` is called
        ...
    sys.exit(stopping.exit_status(code))       # 128 + the signal's number after a stop, else `code`

A stop request is seen at once, whatever the main thread is doing (importing, migrating,
launching Chromium, blocked in C): the interpreter's C-level handler writes the signal's
number to a pipe (`signal.set_wakeup_fd`) and a watcher thread reads it. The Python-level
handler only writes to the same pipe: a handler that takes a lock or raises in the middle of
arbitrary code is how a process deadlocks (a handler waiting for a lock its own thread holds)
or leaks a half-started child.

The watcher then either lets the serving loop unwind (when the main thread is in a `graceful`
scope: its `wake` is called, and it has `GRACE` seconds to close its endpoints, windows and
database and return), or stops hard: every registered cleanup runs (Chromium's process group
killed, sockets and lock files removed) and the process exits at once. A stop request outside
a graceful scope (during start-up or shutdown), a graceful unwinding that overruns `GRACE`, or
a second signal all stop hard. Either way the exit status is 128 + the signal's number: 143
for SIGTERM, 130 for SIGINT, 129 for SIGHUP.

A signal the process was started with ignored stays ignored (`nohup crm --headless` keeps
running when the terminal closes, as does a background job of a script on Ctrl-C).

Without `install` (rata used as a library, or in a test), `graceful` handles the signals
itself for the scope's duration on the main thread and puts the previous handlers back; it
never stops the process hard.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:  # collections.abc and contextlib cost a server's start-up several milliseconds
    from collections.abc import Callable

GRACE = 1.5
"""Seconds a graceful scope has to unwind after a stop request before the process stops hard."""

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))

_lock = threading.RLock()  # guards the cleanups and the graceful scopes; the hard stop holds it until the exit
_cleanups: list[Cleanup] = []
_wakes: list[Callable[[], None]] = []
_requested = threading.Event()
_signum: list[int] = []  # the first stop signal's number (a list: set without a lock, from a handler)
_watcher: _Watcher | None = None
_FROM_HANDLER = 0x80  # signal numbers are below 64: the high bit tells the Python handler's byte from the C handler's
_farewell = ["stopped by {signal}"]


class Cleanup:
    """One thing to undo when the process stops: run by the hard stop, or by its owner when done (once)."""

    def __init__(self, action: Callable[[], None]) -> None:
        self._action: Callable[[], None] | None = action

    def run(self) -> None:
        """Run the action now unless it ran already, and forget it (thread-safe, idempotent)."""
        with _lock:  # under the lock: a hard stop never exits halfway through it
            action, self._action = self._action, None
            _forget(_cleanups, self)
            if action is not None:
                action()

    def cancel(self) -> None:
        """Forget the action without running it."""
        with _lock:
            self._action = None
            _forget(_cleanups, self)


def on_stop(action: Callable[[], None]) -> Cleanup:
    """Register `action` (quick, safe on any thread) for a hard stop; returns its `Cleanup`."""
    cleanup = Cleanup(action)
    with _lock:
        _cleanups.append(cleanup)
    return cleanup


def requested() -> bool:
    """True once a stop signal arrived."""
    return _requested.is_set()


def signal_number() -> int | None:
    """The first stop signal's number, or None."""
    return _signum[0] if _signum else None


def exit_status(code: int) -> int:
    """128 + the stop signal's number after a stop request, else `code`."""
    signum = signal_number()
    return 128 + signum if signum is not None else code


def install(farewell: str = "stopped by {signal}") -> None:
    """Make SIGTERM, SIGINT and SIGHUP stop this process as described above (idempotent; main thread only).

    `farewell` is the stderr line of a hard stop (``{signal}`` is the signal's name).
    """
    global _watcher
    _farewell[0] = farewell
    if threading.current_thread() is not threading.main_thread():
        return
    if _watcher is not None:
        _watcher.process_wide = True
        return
    _watcher = _Watcher(process_wide=True)


class graceful:
    """While inside, a stop request calls `wake()` (on another thread) and lets the caller unwind by itself.

        with stopping.graceful(stopped.set):
            stopped.wait()

    `wake` must be safe to call from any thread at any moment. When the request came before the
    scope was entered, `wake` is called at once.
    """

    def __init__(self, wake: Callable[[], None]) -> None:
        self.wake = wake
        self._own: _Watcher | None = None

    def __enter__(self) -> None:
        global _watcher
        if _watcher is None and threading.current_thread() is threading.main_thread():
            self._own = _watcher = _Watcher(process_wide=False)
        with _lock:
            _wakes.append(self.wake)
        if _requested.is_set():
            self.wake()

    def __exit__(self, *exc: object) -> None:
        global _watcher
        with _lock:
            _forget(_wakes, self.wake)
        if self._own is not None:
            self._own.uninstall()
            _watcher = self._own = None
            _requested.clear()  # the scope took the request; the library's caller goes on
            _signum.clear()


class _Watcher:
    """The signal handlers, the wakeup pipe and the thread that acts on what arrives in it."""

    def __init__(self, *, process_wide: bool) -> None:
        self.process_wide = process_wide
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        self._previous_fd: int | None = None
        if os.name == "posix":
            self._previous_fd = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        for signum, previous in self._previous.items():
            if previous is not signal.SIG_IGN:  # ignored on purpose (`nohup`, a shell's background job): still ignored
                signal.signal(signum, self._handle)
        self._thread = threading.Thread(target=self._watch, name="rata-stop-watcher", daemon=True)
        self._thread.start()

    def _handle(self, signum: int, frame: object) -> None:
        # No lock, no exception: only a byte down the pipe, marked as the handler's. The C
        # handler wrote the plain number already, unless someone replaced the wakeup fd.
        if not _signum:
            _signum.append(signum)
        try:  # noqa: SIM105 - contextlib stays off a server's start-up path
            os.write(self._write, bytes((signum | _FROM_HANDLER,)))
        except OSError:
            pass  # the pipe is full of bytes about this very stop

    def _watch(self) -> None:
        counts = [0, 0]  # signals seen by the C handler, by the Python handler: each sees every one (or none)
        while True:
            try:
                data = os.read(self._read, 64)
            except OSError:
                return
            if not data:
                return  # uninstalled
            for byte in data:
                signum = byte & ~_FROM_HANDLER
                if signum not in STOP_SIGNALS:
                    continue
                before = max(counts)
                counts[1 if byte & _FROM_HANDLER else 0] += 1
                if max(counts) == before:
                    continue  # the second report of a signal already counted
                if before == 0:
                    self._first(signum)
                elif self.process_wide:
                    hard_stop(signum)  # a second signal: the user means it

    def _first(self, signum: int) -> None:
        if not _signum:
            _signum.append(signum)
        _requested.set()
        with _lock:
            wakes = list(_wakes)
        if not wakes:
            if self.process_wide:
                hard_stop(signum)
            return
        if self.process_wide:
            timer = threading.Timer(GRACE, hard_stop, args=(signum,))
            timer.daemon = True
            timer.start()
        for wake in wakes:
            try:
                wake()
            except Exception:  # noqa: BLE001 - a failing wake must not stop the watcher; the grace timer still runs
                _say(f"rata: stopping: {sys.exc_info()[1]!r}")

    def uninstall(self) -> None:
        if os.name == "posix":
            signal.set_wakeup_fd(self._previous_fd if self._previous_fd is not None else -1)
        for signum, previous in self._previous.items():
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        os.close(self._write)  # the watcher reads EOF and ends
        self._thread.join(1.0)
        os.close(self._read)


def hard_stop(signum: int) -> None:
    """Run every registered cleanup, newest first, then end the process with 128 + `signum` (any thread)."""
    _lock.acquire()  # held until the exit: nothing registers or half-runs a cleanup after this
    while _cleanups:
        cleanup = _cleanups.pop()
        action, cleanup._action = cleanup._action, None
        if action is not None:
            try:
                action()
            except Exception as error:  # noqa: BLE001 - the next cleanup matters as much
                _say(f"rata: a cleanup failed while stopping: {error!r}")
    _say(_farewell[0].format(signal=signal_name(signum)))
    os._exit(128 + signum)


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _say(line: str) -> None:
    try:  # noqa: SIM105 - as above
        os.write(2, (line + "\n").encode("utf-8", "replace"))
    except OSError:
        pass  # no stderr: nobody to tell


def _forget(items: list, item: object) -> None:
    if item in items:
        items.remove(item)
