"""Shared by the real clients' tool-call tests: a scripted model API on 127.0.0.1 and a seeded scratch project.

A model script answers each request the client sends (`respond`) and keeps them all
(`requests`), so a test reads what the client passed back. Test modules import what they use
(``from tests.install.tool_calls import stand_in``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from tests.dev_server.helpers import seed_crm
from tests.install.test_client_health import approve, write_both
from tests.install.test_real_clients import client_env


class Script(Protocol):
    requests: list[tuple[str, dict[str, Any]]]

    def respond(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[str]]:
        """The status and a JSON body, or 200 and the server-sent events of a streamed answer."""
        ...


def handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class ModelApi(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            script.requests.append((self.path, body))
            status, reply = script.respond(self.path.split("?")[0], body)
            if isinstance(reply, dict):
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write("".join(event + "\n\n" for event in reply).encode())
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args: Any) -> None:  # the tests read script.requests instead
            pass

    return ModelApi


@contextmanager
def stand_in(script: Script) -> Iterator[str]:
    """The script's API on a free port of 127.0.0.1; its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(script))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def seeded_project(client: str, scratch: tuple[Path, Path], rata_home: Path) -> tuple[Path, dict[str, str]]:
    """crm's database with three customers stored by the app itself, and crm's server and `rata mcp dev`
    written into the project by `rata mcp install --write` and approved; the project and the client's env."""
    home, project = scratch
    env = client_env(home, rata_home)
    seed_crm(rata_home)
    names = write_both(client, project, env)
    approve(client, names, home, project, env)
    return project, env


def text_of(content: str | list[dict[str, Any]]) -> str:
    """A tool result's text: a string, or the text of its parts."""
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
