"""An MCP client of one server process over its stdin and stdout, for the benchmarks.

    from stdio_client import StdioClient

    client = StdioClient("rata", [".venv/bin/crm", "--mcp"], env, cwd, stderr_path)
    listed = client.request("tools/list", {})  # 2026-07-28: the enveloped request, nothing before it
    cpu_s = client.kill()

Used by bench/server_bench.py (benchmark 5 of bench/run.py), bench/shim_bench.py,
bench/window_bench.py and bench/dev_bench.py.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import BENCH, BenchError

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
LEGACY_INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "rata-bench", "version": "1.0.0"}}


class _Hung(Exception):
    """Raised by SIGALRM when a block of round trips outlasts its time (`StdioClient.round_trips`)."""


def _hung(signum: int, frame: Any) -> None:
    raise _Hung


class StdioClient:
    """An MCP client of one server process over its stdin and stdout: a line out, lines in until the answer.

    The clock starts just before the process is spawned. With ``launcher`` the server runs under
    bench/spawn.py, which hands it these pipes and reports its peak RSS as a last line once it exits.
    """

    def __init__(self, name: str, argv: list[str], env: dict[str, str], cwd: Path, stderr_path: Path, *, launcher: bool = False) -> None:
        self.name = name
        self.stderr_path = stderr_path
        if launcher:
            argv = [sys.executable, "-I", "-S", str(BENCH / "spawn.py"), "-", str(stderr_path), str(cwd), "--", *argv]
        self._stderr = open(stderr_path.with_suffix(".launcher") if launcher else stderr_path, "wb")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env, cwd=cwd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._buf = b""
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._ids = 0

    def _fail(self, why: str) -> BenchError:
        self.kill()
        tail = ""
        for path in (self.stderr_path, self.stderr_path.with_suffix(".launcher")):
            if path.exists():
                tail += path.read_bytes().decode(errors="replace")[-1500:]
        return BenchError(f"the {self.name} server {why}.\nIts stderr ends with:\n{tail}")

    def write(self, data: bytes) -> None:
        os.write(self._in, data)

    def line(self, timeout_s: float = 120.0) -> bytes:
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                line, self._buf = self._buf[:end], self._buf[end + 1 :]
                if line.strip():
                    return line
                continue
            if not self._poll.poll(timeout_s * 1000):
                raise self._fail(f"did not answer within {timeout_s:g} s")
            chunk = os.read(self._out, 65536)
            if not chunk:
                raise self._fail("closed its stdout before answering")
            self._buf += chunk

    def round_trips(self, requests: list[bytes], latencies: list[float] | None, timeout_s: float = 120.0) -> tuple[list[bytes], list[bytes]]:
        """Each request in turn: write it, read bytes until its answer's line; the lines, as read.

        Nothing is decoded here, and the reads block rather than poll: this is the loop the
        throughput run times, so it does as little as a client can. A line naming a "method" is
        the server's own (a notification, or a request to the client) and is skipped. Returns the
        answer lines and the skipped ones: decode and check both afterwards (`message`). One
        timer (SIGALRM) over the whole block stands in for a per-answer timeout.
        """
        write, read, clock = os.write, os.read, time.perf_counter
        fd_in, fd_out, buf = self._in, self._out, self._buf
        answers: list[bytes] = []
        skipped: list[bytes] = []
        previous = signal.signal(signal.SIGALRM, _hung)
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            for data in requests:
                sent = clock()
                write(fd_in, data)
                while True:
                    end = buf.find(b"\n")
                    if end < 0:
                        chunk = read(fd_out, 65536)
                        if not chunk:
                            raise self._fail("closed its stdout before answering")
                        buf += chunk
                        continue
                    line, buf = buf[:end], buf[end + 1 :]
                    if not line or line.isspace():
                        continue
                    if b'"method"' in line:
                        skipped.append(line)
                        continue
                    break
                if latencies is not None:
                    latencies.append(clock() - sent)
                answers.append(line)
        except _Hung:
            raise self._fail(f"did not answer a block of {len(requests)} requests within {timeout_s:g} s") from None
        except BrokenPipeError:
            raise self._fail("closed its stdin before the last request") from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            self._buf = buf
        return answers, skipped

    def message(self, raw: bytes) -> Any:
        """A line the server wrote, decoded (a line that is not JSON fails the run)."""
        try:
            return json.loads(raw)
        except ValueError:
            raise self._fail(f"wrote a line that is not JSON: {raw[:200]!r}") from None

    def encode(self, method: str, params: dict[str, Any] | None, *, modern: bool = True, notification: bool = False) -> tuple[int, bytes]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if not notification:
            self._ids += 1
            message["id"] = self._ids
        if params is not None or modern:
            message["params"] = {**(params or {}), **({"_meta": MODERN_META} if modern else {})}
        return self._ids, json.dumps(message, separators=(",", ":")).encode() + b"\n"

    def answer(self, request_id: int) -> dict[str, Any]:
        """The response to `request_id` (notifications and anything else in between are skipped)."""
        while True:
            message = self.message(self.line())
            if isinstance(message, dict) and message.get("id") == request_id and ("result" in message or "error" in message):
                if "error" in message:
                    raise self._fail(f"answered request {request_id} with an error: {json.dumps(message['error'])[:500]}")
                return message["result"]

    def request(self, method: str, params: dict[str, Any] | None = None, *, modern: bool = True) -> dict[str, Any]:
        request_id, data = self.encode(method, params, modern=modern)
        self.write(data)
        return self.answer(request_id)

    def server_pid(self) -> int | None:
        """The server's pid under the launcher (from /proc; None where the kernel does not list children)."""
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def kill(self) -> float:
        """Stop the server at once; its CPU time (user + sys) until then (direct children only)."""
        if self.proc.returncode is not None:
            self._close_pipes()
            return 0.0
        try:
            os.kill(self.proc.pid, signal.SIGKILL)  # not Popen.kill(): it may reap the process first, and lose its rusage
        except ProcessLookupError:
            pass
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self._close_pipes()
        return usage.ru_utime + usage.ru_stime

    def end_input(self) -> None:
        """Close the server's stdin: the end of the session."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
            self.proc.stdin = None

    def finish(self, timeout_s: float = 60.0) -> dict[str, Any]:
        """Close stdin (the end of the session), read stdout to the end; the launcher's report."""
        self.end_input()
        rest = self._buf
        deadline = time.monotonic() + timeout_s
        while True:
            if not self._poll.poll(max(0.0, deadline - time.monotonic()) * 1000):
                raise self._fail(f"did not exit within {timeout_s:g} s of its stdin closing")
            chunk = os.read(self._out, 65536)
            if not chunk:
                break
            rest += chunk
        self.proc.wait()
        self._close_pipes()
        lines = [line for line in rest.splitlines() if line.strip()]
        try:
            report = json.loads(lines[-1])
            assert isinstance(report, dict) and "maxrss_kb" in report
        except (IndexError, ValueError, AssertionError):
            raise self._fail("ended without the launcher's report (bench/spawn.py)") from None
        return report

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._stderr.close()


def _proc_cpu_s(pid: int | None) -> float | None:
    """user + sys CPU seconds of a live process, from /proc/PID/stat (clock-tick resolution)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
