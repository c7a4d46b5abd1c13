"""Whole lines out to a stream that several threads share: the protocol's writer.

    send = LineWriter(stream.write, stream.flush)     # stdout (rata.mcp.stdio)
    send = LineWriter(sock.sendall)                   # a socket (rata.endpoint)
    send(b'{"jsonrpc": "2.0", "id": 1, "result": {}}\\n')

Each call writes its bytes whole, under a lock, so lines sent from different threads never
interleave. Once the other end has gone (a broken pipe, a closed socket or stream), or after
`close`, writing goes quiet: the bytes are dropped and nothing is raised, since nobody is left
to read them. Reading lines and serving them is `rata.mcp.stdio.serve_lines`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class LineWriter:
    """Writes whole lines with `write` (then `flush`, if given), one at a time; quiet once the stream is gone."""

    def __init__(self, write: Callable[[bytes], object], flush: Callable[[], object] | None = None) -> None:
        self._write = write
        self._flush = flush
        self._lock = threading.Lock()
        self.closed = False

    def __call__(self, data: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                self._write(data)
                if self._flush is not None:
                    self._flush()
            except (OSError, ValueError):  # a broken pipe or socket (OSError), a closed stream (ValueError)
                self.closed = True

    def close(self) -> None:
        """Write nothing more; a write under way finishes first."""
        with self._lock:
            self.closed = True
