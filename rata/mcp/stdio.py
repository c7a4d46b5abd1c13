"""The stdio transport: one JSON-RPC message per line on stdin and stdout.

Stdout belongs to the protocol. Before serving, the real stdout is set aside for protocol
lines and both ``sys.stdout`` and file descriptor 1 are pointed at stderr, so an app's
``print()`` (or a C library writing to fd 1) can never corrupt the stream.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO

from rata.mcp import wire
from rata.mcp.server import Server


class StdoutWriter:
    """Writes whole lines to the protocol stream, one at a time; a closed pipe ends writing quietly."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def __call__(self, data: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.closed = True


def protect_stdout() -> BinaryIO:
    """Return a private binary stream on the real stdout; send everything else on fd 1 to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def read_lines(stream: BinaryIO, on_line: Callable[[bytes], None], on_oversized: Callable[[], None]) -> None:
    """Feed each line of `stream` to `on_line` until EOF; lines over the cap are skipped and reported."""
    limit = wire.MAX_LINE_BYTES
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(65536)
                if not rest or rest.endswith(b"\n"):
                    break
            on_oversized()
            continue
        on_line(line)


def serve(make_server: Callable[[Callable[[bytes], None]], Server], stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve one client on stdin/stdout until stdin closes; returns the exit code."""
    writer = StdoutWriter(stdout if stdout is not None else protect_stdout())
    server = make_server(writer)
    try:
        read_lines(stdin if stdin is not None else sys.stdin.buffer, server.receive, server.oversized)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
