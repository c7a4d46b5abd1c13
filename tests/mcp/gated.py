"""`rata mcp serve` on a small app whose `wait_for` command runs until the test creates a file.

    server = GatedServer(tmp_path)
    server.call(1, "wait_for", path=str(server.gate))   # runs until server.open_gate()
    server.call(2, "quick")
    assert server.answer()["id"] == 2
    assert server.finish() == []                         # EOF: the process exits, nothing more is written

Every line the server writes is read strictly (UTF-8, no NaN or Infinity, no lone surrogates).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

from rata.mcp import wire
from tests.conftest import subprocess_env
from tests.mcp.strict import strict_json

META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}

GATED_APP = '''
import os
import time

from rata import App, Ctx, Mcp, command


@command(can="lab.run")
def wait_for(ctx: Ctx, path: str) -> str:
    """Wait until the file exists (at most 20 s)."""
    deadline = time.monotonic() + 20
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return "waited"


@command(can="lab.run")
def half_a_character(ctx: Ctx) -> str:
    """Answer a lone surrogate, which is not Unicode text and cannot be written as JSON."""
    return "broken \\udfff"


@command(can="lab.run")
def quick(ctx: Ctx) -> str:
    """Answer at once."""
    return "quick done"


app = App("waiter", identifier="com.example.waiter").commands(wait_for, half_a_character, quick).mcp(Mcp().allow_abilities(["lab.*"]))
'''


def line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def call_line(id: int | str, name: str, **arguments: object) -> bytes:
    return line({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"_meta": META, "name": name, "arguments": arguments}})


class GatedServer:
    """The real stdio server on GATED_APP, as a subprocess; its output is read on a thread into a queue."""

    def __init__(self, tmp_path: Path) -> None:
        app_file = tmp_path / "waiter_app.py"
        app_file.write_text(GATED_APP)
        self.gate = tmp_path / "gate"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=subprocess_env(tmp_path / "home"),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        with self.process.stdout:
            for raw in self.process.stdout:
                self.lines.put(raw)
        self.lines.put(b"")

    def write(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.write(line({"jsonrpc": "2.0", **message}))

    def call(self, id: int | str, name: str, **arguments: object) -> None:
        self.write(call_line(id, name, **arguments))

    def open_gate(self) -> None:
        self.gate.write_text("")

    def answer(self, timeout: float = 10) -> dict:
        try:
            raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout:g} s") from None
        assert raw, "the server closed its output"
        return strict_json(raw.decode("utf-8"))

    def answers(self, count: int) -> dict:
        """The next `count` answers, by id ("-" for an answer without one)."""
        found = {}
        for _ in range(count):
            answer = self.answer()
            found[answer.get("id", "-")] = answer
        return found

    def finish(self, within: float = 15) -> list[dict]:
        """Close stdin (if not yet closed); every line the server still writes, once it has exited 0 (within `within` s)."""
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(within)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the server did not exit within {within:g} s of EOF") from None
        rest = []
        while (raw := self.lines.get(timeout=10)) != b"":
            rest.append(strict_json(raw.decode("utf-8")))
        assert self.process.returncode == 0
        return rest
