"""The stdio transport: one JSON-RPC message per line on stdin and stdout.

Lines are read by a `Relay`, which lets the thread that read a call run it (no hand-off for a
sequential client) and gives the reading to another thread when a call runs long; answers go
out through a `rata.lines.LineWriter`. `serve_lines` wires a `Server` to the two, and serves
both transports: stdio (`serve`) and each client of the running app's endpoint
(`rata.mcp.endpoint_server`).

Stdout belongs to the protocol. Before serving, the real stdout is set aside for protocol
lines and both ``sys.stdout`` and file descriptor 1 are pointed at stderr, so an app's
``print()`` (or a C library writing to fd 1) can never corrupt the stream.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import BinaryIO

from rata.lines import LineWriter
from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.server import Server

log = LazyLogger("rata.mcp")


def protect_stdout() -> BinaryIO:
    """Return a private binary stream on the real stdout; send everything else on fd 1 to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


HANDOVER_S = 0.002
"""A call run on the reading thread that takes longer than this hands the reading to another thread."""
WATCH_S = 0.001
IDLE_S = 0.1


class Relay:
    """Reading stdin, passed from thread to thread so that the thread that read a call can run it.

    A sequential client's calls then cost no hand-off between threads. While a call runs on the
    reading thread nobody reads, so a watchdog gives the reading to a new thread once the call has
    run for `HANDOVER_S`: a slow command holds up the next request by about that much, no more.
    The watchdog polls only while calls are being run this way, and sleeps after `IDLE_S` without.
    """

    def __init__(
        self, stream: BinaryIO, on_line: Callable[[bytes], None], on_oversized: Callable[[], None], on_eof: Callable[[], None] | None = None
    ) -> None:
        """`on_eof` runs once, on the thread that meets the end of input, before `run` returns."""
        self._stream = stream
        self._on_line = on_line
        self._on_oversized = on_oversized
        self._on_eof = on_eof
        self._lock = threading.Lock()
        self._reader: int | None = None  # the thread that reads now
        self._busy_since = 0.0  # when the reader started running a call; 0 while it reads
        self._last_call = 0.0
        self._eof = threading.Event()
        self._watching = False
        self._wake_watchdog = threading.Lock()
        self._wake_watchdog.acquire()
        self._running: set[threading.Thread] = set()
        self._watchdog: threading.Thread | None = None

    def busy(self) -> bool:
        """Whether a call runs on a thread that read it (the reader, or one that was)."""
        return bool(self._running)

    def run(self) -> None:
        """Read until EOF, on this thread while it is the reader, then wait until whoever reads meets EOF."""
        self._read()
        self._eof.wait()

    def wait_for_eof(self) -> None:
        """Wait until whoever reads meets the end of input."""
        self._eof.wait()

    def run_here(self, call: Callable[[], None]) -> bool:
        """Run `call` on this thread if it is the reader (True), else leave it to the caller (False)."""
        me = threading.get_ident()
        if self._reader != me:
            return False
        thread = threading.current_thread()
        self._running.add(thread)  # before the watchdog can hand the reading on: whoever meets EOF then waits for this call
        try:
            self._watch_from_now()
            call()
        finally:
            self._running.discard(thread)
            with self._lock:
                self._busy_since = 0.0
        return True

    def _watch_from_now(self) -> None:
        """Mark the reader busy from now, with the watchdog awake (started the first time) to hand the reading on."""
        with self._lock:
            self._busy_since = self._last_call = time.monotonic()
            wake = not self._watching
            self._watching = True
        if not wake:
            return
        if self._watchdog is not None:
            self._wake_watchdog.release()
            return
        watchdog = threading.Thread(target=self._watch, name="rata-stdin-watchdog", daemon=True)
        try:
            watchdog.start()
            self._watchdog = watchdog
        except RuntimeError:  # no thread to be had: this call runs without a hand-over, holding up the reading
            with self._lock:
                self._watching = False

    def hand_on(self) -> None:
        """The call running on this thread, the reader, is about to wait for the client: another thread reads from now.

        (A server->client request, `rata.mcp.server.Server.request_client`: its answer must be read
        while the call waits, sooner than the watchdog's `HANDOVER_S`.)"""
        with self._lock:
            if self._reader == threading.get_ident() and self._busy_since:
                self._hand_on()

    def _hand_on(self) -> None:
        """Give the reading to a new thread; the busy reader stops reading when its call ends (with `_lock` held)."""
        self._busy_since = 0.0
        busy, self._reader = self._reader, None
        try:
            threading.Thread(target=self._read, name="rata-stdin", daemon=True).start()
        except RuntimeError:  # no thread to be had: the busy thread reads on once its call ends
            self._reader = busy

    def wait_for_calls(self, timeout: float) -> None:
        """Wait (up to `timeout` s) for calls still running on threads that were readers once."""
        deadline = time.monotonic() + timeout
        me = threading.current_thread()
        while any(thread is not me for thread in list(self._running)) and time.monotonic() < deadline:
            time.sleep(0.005)  # the calls' end, not their threads' (a thread that ran a call may read on)

    def _read(self) -> None:
        """Read and handle lines until EOF, or until the reading is handed to another thread.

        Nothing a line does can end the reading: a handler that raises is logged and the next line
        read. Should this thread die all the same, it counts as EOF, so the process never waits forever."""
        me = threading.get_ident()
        self._reader = me
        limit = wire.MAX_LINE_BYTES
        stream = self._stream
        try:
            while True:
                try:
                    line = stream.readline(limit + 1)
                except (OSError, ValueError):  # the client went away mid-line, or the stream was closed: the same as EOF
                    line = b""
                if not line:
                    return
                try:
                    if len(line) > limit and not line.endswith(b"\n"):
                        self._skip_rest_of_line()
                        self._on_oversized()
                    else:
                        self._on_line(line)
                except Exception:  # noqa: BLE001 - a handler's bug must not stop the reading
                    log.exception("unexpected failure handling a line")
                if self._reader != me:
                    return  # a call ran too long here and another thread reads now
        finally:
            if self._reader == me:  # EOF (or this thread died): nobody reads any more
                self._at_eof()

    def _skip_rest_of_line(self) -> None:
        try:
            while True:
                rest = self._stream.readline(65536)
                if not rest or rest.endswith(b"\n"):
                    return
        except (OSError, ValueError):  # a broken stream: the next read meets it as EOF
            return

    def _at_eof(self) -> None:
        try:
            if self._on_eof is not None:
                self._on_eof()
        except Exception:  # noqa: BLE001 - the end of input is reached whatever the hook does
            log.exception("unexpected failure at the end of input")
        finally:
            self._eof.set()
            self._wake_watchdog_at_eof()

    def _wake_watchdog_at_eof(self) -> None:
        with self._lock:
            parked = not self._watching and self._watchdog is not None
            self._watching = True
        if parked:
            self._wake_watchdog.release()

    def _watch(self) -> None:
        while not self._eof.is_set():
            time.sleep(WATCH_S)
            with self._lock:
                since = self._busy_since
                now = time.monotonic()
                if since and now - since >= HANDOVER_S:
                    self._hand_on()
                    continue
                if since or now - self._last_call < IDLE_S:
                    continue
                self._watching = False
            self._wake_watchdog.acquire()  # asleep until a call runs on the reader again


def serve(make_server: Callable[[Callable[[bytes], None]], Server], stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve one client on stdin/stdout until stdin closes; returns the exit code."""
    out = stdout if stdout is not None else protect_stdout()
    serve_lines(make_server, stdin if stdin is not None else sys.stdin.buffer, LineWriter(out.write, out.flush))
    return 0


def serve_lines(make_server: Callable[[Callable[[bytes], None]], Server], lines: BinaryIO, send: Callable[[bytes], None]) -> None:
    """Serve one client: `make_server(send)` answers the lines read from `lines` until they end, then closes.

    Both transports serve this way: stdio (`serve`) and each client of the running app's
    endpoint (`rata.mcp.endpoint_server`), with `send` a `LineWriter` on stdout or on the socket.
    Reading (and the calls run where they are read) happens on a thread of its own, so that the
    end of input ends serving after `Server.close`'s grace even if a call never returns.
    """
    server = make_server(send)
    relay = Relay(lines, server.receive, server.oversized, server.input_closed)
    server.relay = relay
    reading = threading.Thread(target=relay.run, name="rata-stdin", daemon=True)
    try:
        try:
            reading.start()
        except RuntimeError:  # no thread to be had: read here, as a call that never returns could then hold the exit
            relay.run()
        relay.wait_for_eof()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
