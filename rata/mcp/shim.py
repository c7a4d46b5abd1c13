"""`crm --mcp`, the shim: pipe to the running app when there is one, else serve headless.

    connection = find_running_app(app.folder)     # None: nobody there; EndpointError: there but untrusted
    if connection: pipe(connection, stdin, stdout)
    else:          serve on stdio as before

Piping copies bytes both ways unchanged (MCP's newline framing passes straight through), so
an agent sees exactly what the running app's server says. When the client closes stdin the
app is told (half-close) and the shim exits once the app has answered what was in flight;
when the app goes away first, the shim ends too and the client sees its server exit.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from typing import BinaryIO

from rata.endpoint import MCP, Connection, connect
from rata.folder import AppFolder

CHUNK = 65536


def find_running_app(folder: AppFolder) -> Connection | None:
    """An authenticated connection to the MCP endpoint of the app running with this folder, or None when it isn't running.

    Only the folder is needed (its socket and token), so `crm --mcp` can pipe to the running app
    without importing the app's code.
    """
    return connect(folder, MCP)


def pipe(connection: Connection, stdin: BinaryIO, stdout: BinaryIO) -> str:
    """Copy stdin to the app and the app to stdout until both directions end; returns how it ended."""
    ended = {"client": False}

    def upstream() -> None:
        fd = stdin.fileno()
        try:
            while True:
                data = os.read(fd, CHUNK)
                if not data:
                    break
                connection.sock.sendall(data)
        except OSError:
            pass
        ended["client"] = True
        with contextlib.suppress(OSError):
            connection.sock.shutdown(socket.SHUT_WR)

    threading.Thread(target=upstream, name="rata-shim-upstream", daemon=True).start()
    out = stdout.fileno()
    try:
        while True:
            data = connection.sock.recv(CHUNK)
            if not data:
                break
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
    except OSError:
        pass
    finally:
        connection.close()
    return "client closed" if ended["client"] else "app closed"
