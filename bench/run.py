"""rata's benchmarks, side by side with FastMCP and the MCP SDK.

    .venv/bin/python bench/run.py            # everything, about 3 minutes on 2 idle cores
    .venv/bin/python bench/run.py --quick    # fewer repetitions, a smoke test (about 1.5 minutes)

1. inspect: wall time of ``rata mcp inspect --json --app examples/crm`` against
   ``fastmcp inspect --format mcp bench/fastmcp_crm.py`` (the same four tools and resource),
   each a fresh process started from the venv's console scripts, run alternately.
2. memory: the peak resident set (ru_maxrss, from os.wait4 in bench/spawn.py) of those
   same processes.
3. codegen: N generated commands (bench/gen_commands.py) to tools/list JSON, in process,
   for rata, FastMCP and the MCP SDK's MCPServer (bench/codegen_bench.py, one child each).
4. end to end: ``rata codegen``, ``rata mcp inspect`` and ``fastmcp inspect`` on the
   generated 128- and N-command apps, as fresh processes.
5. server: the crm app as an MCP server on stdio (``crm --mcp``) against the same surface on
   FastMCP (bench/fastmcp_crm.py) and on the SDK's MCPServer (bench/sdk_crm.py): cold start,
   spawn to the first tools/list answered, alternating; then 2,000 sequential tools/call
   round trips on one connection each (rata: bench/rata_crm.py, the app without its rate
   limit), with p50/p99 latency and each server's peak RSS (through bench/spawn.py).

Every child runs with a private bytecode cache (PYTHONPYCACHEPREFIX in a temporary folder,
PYTHONDONTWRITEBYTECODE unset), primed before anything is timed, so each tool runs from
cached bytecode as an installed tool would, and nothing is written into the repository.

Prints markdown tables and writes bench/results/latest.json (and a timestamped copy).
Exits non-zero if a peer is missing or any output is not what it should be.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
BIN = Path(sys.executable).parent  # the venv's bin: run this with .venv/bin/python
CRM_TOOLS = {"customers_index", "customers_show", "customers_store", "customers_delete"}
CRM_RESOURCES = ["app://customers_index"]
INSPECT_TARGET_S = 0.5
SMALL = 128  # VS Code's tool limit: the largest surface an agent client takes whole
CODEGEN_TARGET_S = 1.0
SERVER_COLD_TARGET_S = 0.1  # rata's `crm --mcp`: spawn to the first tools/list answered
SERVER_RATIO_TARGET = 10.0  # against FastMCP: cold start and calls per second


class BenchError(SystemExit):
    def __init__(self, message: str) -> None:
        super().__init__(f"bench: {message}")


# --- environment ---------------------------------------------------------------------------


class Scratch:
    """A temporary folder: RATA_HOME, the bytecode cache, the generated apps; and the children's env."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="rata-bench-"))
        self.gen = self.root / "gen"
        self.gen.mkdir()
        env = dict(os.environ)
        for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONPROFILEIMPORTTIME"):
            env.pop(name, None)
        env.update(
            {
                "RATA_HOME": str(self.root / "home"),
                "PYTHONPYCACHEPREFIX": str(self.root / "pycache"),
                "FASTMCP_CHECK_FOR_UPDATES": "off",
                "NO_COLOR": "1",
            }
        )
        self.env = env

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def check_peers(scratch: Scratch) -> dict[str, str]:
    """The versions of rata and its peers; fail loudly when one is missing."""
    versions: dict[str, str] = {}
    for dist in ("rata-toolkit", "fastmcp", "mcp", "pydantic"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            raise BenchError(
                f"{dist} is not installed in {sys.prefix}. Install the peers first: .venv/bin/pip install fastmcp==4.1.6 mcp==2.3.0 (see bench/README.md)."
            ) from None
    for script in ("rata", "fastmcp", "crm"):
        if not (BIN / script).is_file():
            raise BenchError(f"the console script {BIN / script} does not exist; run bench/run.py with the venv's python (.venv/bin/python).")
    # Imported in a child: this process only starts others, and reads no framework.
    probe = subprocess.run([sys.executable, "-c", "import fastmcp, mcp.server.mcpserver, rata"], capture_output=True, text=True, env=scratch.env)
    if probe.returncode != 0:
        raise BenchError(f"fastmcp, mcp.server.mcpserver (the SDK peer needs mcp>=2) or rata cannot be imported:\n{probe.stderr[-2000:]}")
    return versions


def git_state() -> dict[str, Any]:
    """The commit measured, and the files that differ from it (the tree may be mid-change)."""

    def git(*argv: str) -> str:
        done = subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.rstrip("\n") if done.returncode == 0 else ""

    changed = [line[3:] for line in git("status", "--porcelain", "--", "rata", "examples").splitlines() if line.strip()]
    return {"commit": git("rev-parse", "HEAD"), "changed_under_rata_or_examples": changed}


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = -1.0
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu or platform.processor(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "loadavg_1min_at_start": load,
    }


# --- child processes -----------------------------------------------------------------------


def run_child(argv: list[str], env: dict[str, str], cwd: Path, *, rss: bool = True) -> dict[str, Any]:
    """Run one process through bench/spawn.py; its wall time, CPU time, peak RSS and stdout.

    The launcher is a small process of its own because a child's ru_maxrss starts from its
    parent's peak. The peak RSS is the command's own only when it is above the launcher's;
    with ``rss`` this fails loudly otherwise, without it the RSS is dropped.
    """
    with tempfile.TemporaryDirectory(prefix="rata-bench-out-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        launch = [sys.executable, "-I", "-S", str(BENCH / "spawn.py"), str(out), str(err), str(cwd), "--", *argv]
        done = subprocess.run(launch, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchError(f"bench/spawn.py failed for {' '.join(argv)}:\n{done.stderr[-2000:]}")
        report = json.loads(done.stdout)
        stdout, stderr = out.read_bytes(), err.read_bytes()
    if report["exit_code"] != 0:
        raise BenchError(f"{' '.join(argv)} exited with {report['exit_code']}:\n{stderr.decode(errors='replace')[-2000:]}")
    if rss and report["maxrss_kb"] <= report["launcher_maxrss_kb"]:
        raise BenchError(
            f"{' '.join(argv)}: its peak RSS ({report['maxrss_kb']} KB) is not above the launcher's "
            f"({report['launcher_maxrss_kb']} KB), so it cannot be told apart."
        )
    return {
        "wall_s": report["wall_s"],
        "cpu_s": report["cpu_s"],
        "maxrss_kb": report["maxrss_kb"] if rss else None,
        "launcher_maxrss_kb": report["launcher_maxrss_kb"],
        "stdout": stdout,
        "stderr": stderr,
    }


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def rows_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "wall_s": summary([r["wall_s"] for r in rows]),
        "cpu_s": summary([r["cpu_s"] for r in rows]),
        "maxrss_kb": summary([float(r["maxrss_kb"]) for r in rows]) if rows[0]["maxrss_kb"] is not None else None,
        "launcher_maxrss_kb": max(r["launcher_maxrss_kb"] for r in rows),
        "wall_runs_s": [r["wall_s"] for r in rows],
        "output_bytes": len(rows[0]["stdout"]),
    }


def _shape(tools: list[dict[str, Any]], output: bool = True) -> list[Any]:
    """Each tool's name, argument names, required arguments and (with `output`) whether it has an outputSchema."""
    return sorted(
        [t["name"], sorted(t["inputSchema"].get("properties", {})), sorted(t["inputSchema"].get("required", []))]
        + ([t.get("outputSchema") is not None] if output else [])
        for t in tools
    )


def check_rata_surface(stdout: bytes) -> list[Any]:
    data = json.loads(stdout)
    if set(data) != {"tools", "resources"}:
        raise BenchError(f"rata mcp inspect --json printed keys {sorted(data)}, expected tools and resources.")
    names = {t["name"] for t in data["tools"]}
    uris = [r["uri"] for r in data["resources"]]
    if names != CRM_TOOLS or uris != CRM_RESOURCES:
        raise BenchError(f"rata's crm surface changed: tools {sorted(names)}, resources {uris}.")
    return _shape(data["tools"])


def check_fastmcp_surface(stdout: bytes) -> list[Any]:
    data = json.loads(stdout)
    missing = {"serverInfo", "tools", "resources"} - set(data)
    if missing:
        raise BenchError(f"fastmcp inspect --format mcp did not print the MCP-format report (missing {sorted(missing)}).")
    names = {t["name"] for t in data["tools"]}
    uris = [r["uri"] for r in data["resources"]]
    if names != CRM_TOOLS or uris != CRM_RESOURCES or not all("inputSchema" in t for t in data["tools"]):
        raise BenchError(f"fastmcp's crm surface is not the peer of rata's: tools {sorted(names)}, resources {uris}.")
    return _shape(data["tools"])


INSPECT = {
    "rata": [str(BIN / "rata"), "mcp", "inspect", "--json", "--app", "examples/crm"],
    "fastmcp": [str(BIN / "fastmcp"), "inspect", "--format", "mcp", "bench/fastmcp_crm.py"],
}


def _shown(argv: list[str]) -> str:
    return " ".join(argv).replace(str(BIN) + "/", ".venv/bin/").replace(str(ROOT) + "/", "")


def prime(scratch: Scratch, count: int) -> None:
    """Write the generated apps and fill the bytecode cache for everything the children import."""
    sys.path.insert(0, str(BENCH))
    from gen_commands import generate

    for n in sorted({count, SMALL}):
        (scratch.gen / f"app_rata_{n}.py").write_text(generate("rata", n), encoding="utf-8")
        (scratch.gen / f"app_plain_{n}.py").write_text(generate("plain", n), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(scratch.gen), str(BENCH)], check=True, env=scratch.env)
    for argv in INSPECT.values():
        run_child(argv, scratch.env, ROOT)
    run_child([str(BIN / "rata"), "codegen", "--stdout", "--app", f"app_rata_{SMALL}.py:build_app"], scratch.env, scratch.gen)


# --- the benchmarks ------------------------------------------------------------------------


def bench_inspect(scratch: Scratch, runs: int, warmups: int) -> dict[str, Any]:
    floors = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import rata CLI": [sys.executable, "-c", "import rata.cli.main"],
        "import fastmcp CLI": [sys.executable, "-c", "import fastmcp.cli.cli"],
    }
    checks = {"rata": check_rata_surface, "fastmcp": check_fastmcp_surface}
    samples: dict[str, list[dict[str, Any]]] = {"rata": [], "fastmcp": [], **{name: [] for name in floors}}
    shapes: dict[str, list[Any]] = {}
    for index in range(warmups + runs):
        for name in ("rata", "fastmcp"):  # alternate, so drift on the machine hits both alike
            result = run_child(INSPECT[name], scratch.env, ROOT)
            shape = checks[name](result["stdout"])
            if name in shapes and shapes[name] != shape:
                raise BenchError(f"{name} printed a different surface on run {index + 1}.")
            shapes[name] = shape
            if index >= warmups:
                samples[name].append(result)
    if shapes["rata"] != shapes["fastmcp"]:
        raise BenchError(f"the two crm servers differ in tool names or arguments:\nrata:    {shapes['rata']}\nfastmcp: {shapes['fastmcp']}")
    floor_runs = 2
    for _ in range(floor_runs):
        for name, argv in floors.items():
            samples[name].append(run_child(argv, scratch.env, ROOT, rss=name != "python -c pass"))
    out: dict[str, Any] = {
        "runs": runs,
        "warmups": warmups,
        "floor_runs": floor_runs,
        "commands": {"rata": _shown(INSPECT["rata"]), "fastmcp": _shown(INSPECT["fastmcp"]), **{k: _shown(v) for k, v in floors.items()}},
    }
    for name, rows in samples.items():
        out[name] = rows_summary(rows)
    return out


def bench_codegen(scratch: Scratch, count: int, repeats: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {"count": count}
    for peer, repeat in repeats.items():
        argv = [sys.executable, str(BENCH / "codegen_bench.py"), "--peer", peer, "--count", str(count), "--repeat", str(repeat)]
        result = run_child(argv, scratch.env, ROOT)
        data = json.loads(result["stdout"])
        data["child_wall_s"] = result["wall_s"]
        data["child_maxrss_kb"] = result["maxrss_kb"]
        out[peer] = data
    digests = {peer: out[peer]["shape_digest"] for peer in repeats}
    if len(set(digests.values())) != 1:
        raise BenchError(f"the peers listed different tools or arguments for the same functions: {digests}")
    return out


def bench_end_to_end(scratch: Scratch, count: int, runs: int) -> dict[str, Any]:
    """The CLIs on the generated apps: what a user waits for at that size (primed cache; few runs)."""
    out: dict[str, Any] = {"count": count, "runs": runs, "rows": []}
    for n in sorted({SMALL, count}):
        commands = {
            "rata codegen": [str(BIN / "rata"), "codegen", "--stdout", "--app", f"app_rata_{n}.py:build_app"],
            "rata inspect": [str(BIN / "rata"), "mcp", "inspect", "--json", "--app", f"app_rata_{n}.py:build_app"],
        }
        if n == SMALL:  # at the large size the in-process benchmark compares the frameworks; this saves ~12 s
            commands["fastmcp inspect"] = [str(BIN / "fastmcp"), "inspect", "--format", "mcp", f"app_plain_{n}.py:build_fastmcp"]
        shapes = {}
        for name, argv in commands.items():
            rows = [run_child(argv, scratch.env, scratch.gen) for _ in range(runs)]
            tools = json.loads(rows[0]["stdout"])["tools"]
            if len(tools) != n:
                raise BenchError(f"{name} on the {n}-command app listed {len(tools)} tools, expected {n}.")
            shapes[name] = _shape(tools, output=False)  # FastMCP gives `-> None` functions an outputSchema too
            out["rows"].append({"name": name, "count": n, "command": _shown(argv), **rows_summary(rows)})
        if len({json.dumps(v) for v in shapes.values()}) != 1:
            raise BenchError(f"rata and fastmcp listed different tools or arguments for the {n}-command app.")
    return out


# --- MCP servers over stdio (benchmark 5) --------------------------------------------------

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
LEGACY_INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "rata-bench", "version": "1.0.0"}}
# The floor: a Python process that answers every line with an empty result, nothing else.
ECHO = (
    "import json, sys\n"
    "out = sys.stdout.buffer\n"
    "for line in sys.stdin.buffer:\n"
    "    out.write(json.dumps({'jsonrpc': '2.0', 'id': json.loads(line)['id'], 'result': {}}).encode() + b'\\n')\n"
    "    out.flush()\n"
)
SERVER_NAMES = {
    "rata": "rata",
    "rata-legacy": "rata",
    "rata-fresh": "rata, no manifest (the first start after a change)",
    "fastmcp": "FastMCP",
    "sdk": "MCP SDK (MCPServer)",
    "floor": "floor",
}
MANIFEST_GLOB = "*.rata-mcp.json"  # rata.mcp.manifest.SUFFIX


def server_commands() -> dict[str, dict[str, list[str]]]:
    """Each server's command for the cold start and for the throughput run (rata: the bench copy without rate limit)."""
    py = sys.executable
    return {
        "rata": {"cold": [str(BIN / "crm"), "--mcp"], "calls": [py, str(BENCH / "rata_crm.py")]},
        "fastmcp": {"cold": [py, str(BENCH / "fastmcp_crm.py")], "calls": [py, str(BENCH / "fastmcp_crm.py")]},
        "sdk": {"cold": [py, str(BENCH / "sdk_crm.py")], "calls": [py, str(BENCH / "sdk_crm.py")]},
        "floor": {"cold": [py, "-c", ECHO], "calls": [py, "-c", ECHO]},
    }


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


def _check_listed(name: str, result: dict[str, Any]) -> list[Any]:
    tools = result.get("tools")
    if not isinstance(tools, list) or {t.get("name") for t in tools} != CRM_TOOLS:
        raise BenchError(f"the {name} server listed {sorted(t.get('name') for t in tools or [])}, expected {sorted(CRM_TOOLS)}.")
    return _shape(tools)


def cold_start(scratch: Scratch, name: str, argv: list[str], legacy: bool) -> dict[str, Any]:
    """Spawn the server, send what a client sends first, time the answer to tools/list, then to a first tools/call; kill it.

    ``rata-fresh`` is rata with its manifest deleted first: the start after the app's code changed.
    """
    if name == "rata-fresh":
        for manifest in (scratch.root / "pycache").rglob(MANIFEST_GLOB):
            manifest.unlink()
    client = StdioClient(name, argv, scratch.env, ROOT, scratch.root / f"{name}.stderr")
    modern = not legacy
    if legacy:  # 2025-11-25: initialize, its answer, notifications/initialized, tools/list
        init = client.request("initialize", LEGACY_INIT, modern=False)
        if init.get("protocolVersion") != "2025-11-25":
            raise client._fail(f"answered initialize with protocolVersion {init.get('protocolVersion')!r}")
        client.write(client.encode("notifications/initialized", None, modern=False, notification=True)[1])
        listed = client.request("tools/list", {}, modern=False)
    else:  # 2026-07-28: the enveloped tools/list is the first and only message
        listed = client.request("tools/list", {})
    wall = time.perf_counter() - client.started
    first_call = None
    if name != "floor":  # then the first call, which needs the app's code (and database) for real
        called = client.request("tools/call", {"name": "customers_index", "arguments": {}}, modern=modern)
        first_call = time.perf_counter() - client.started
        if called.get("isError") or "content" not in called:
            raise client._fail(f"answered the first customers_index call wrongly: {json.dumps(called)[:300]}")
    cpu = client.kill()
    return {"wall_s": wall, "first_call_s": first_call, "cpu_s": cpu, "shape": None if name == "floor" else _check_listed(name, listed)}


class CallSession:
    """One server's connection for the throughput run: set up, then driven in blocks of calls."""

    def __init__(self, scratch: Scratch, name: str, argv: list[str], tool: str, calls: int, warmup: int) -> None:
        self.name, self.argv, self.tool, self.calls, self.warmup = name, argv, tool, calls, warmup
        self.floor = name == "floor"
        self.token = uuid.uuid4().hex[:12]  # rata's database outlives the process: fresh emails every run
        self.customer: dict[str, Any] = {"id": 1}
        self.lines: list[tuple[int, bytes]] = []
        self.next = 0
        self.latencies: list[float] = []
        self.elapsed = 0.0
        self.server_cpu: float | None = 0.0
        self.client_cpu = 0.0
        self.pid: int | None = None
        # The floor runs directly: its RSS would not be above the launcher's, and is not reported.
        self.client = StdioClient(name, argv, scratch.env, ROOT, scratch.root / f"{name}-calls.stderr", launcher=not self.floor)

    def setup(self) -> None:
        """tools/list, one stored customer, the untimed calls."""
        listed = self.client.request("tools/list", {})  # the connection is set up (2026-07-28: nothing else to do)
        if not self.floor:
            _check_listed(self.name, listed)
            email = f"ada-{self.token}@example.com"
            stored = self.client.request("tools/call", {"name": "customers_store", "arguments": {"name": "Ada Lovelace", "email": email}})
            self.customer = stored.get("structuredContent") or {}
            if stored.get("isError") or self.customer.get("email") != email:
                raise self.client._fail(f"did not store the customer: {json.dumps(stored)[:500]}")
        self.lines = [self.client.encode("tools/call", self._params(k)) for k in range(self.warmup + self.calls)]
        self.run(self.warmup, timed=False)
        self.pid = self.client.server_pid()

    def _params(self, k: int) -> dict[str, Any]:
        if self.tool == "customers_show":
            return {"name": self.tool, "arguments": {"id": self.customer["id"]}}
        return {"name": self.tool, "arguments": {"name": f"Customer {k}", "email": f"bench-{self.token}-{k}@example.com"}}

    def _check(self, result: dict[str, Any], k: int) -> None:
        if self.floor:
            return
        content = result.get("structuredContent")
        ok = not result.get("isError") and isinstance(content, dict)
        if ok and self.tool == "customers_show":
            ok = content.get("id") == self.customer["id"]
        elif ok:
            ok = content.get("email") == f"bench-{self.token}-{k}@example.com"
        if not ok:
            raise self.client._fail(f"answered call {k} of {self.tool} wrongly: {json.dumps(result)[:500]}")

    def run(self, count: int, timed: bool = True) -> None:
        """The next `count` calls, one at a time: write the request, wait for its answer; then check every answer."""
        client, first = self.client, self.next
        block = self.lines[first : first + count]
        requests = [data for _, data in block]
        if timed:
            server_cpu_0, client_cpu_0 = _proc_cpu_s(self.pid), time.process_time()
            started = time.perf_counter()
        answers, skipped = client.round_trips(requests, self.latencies if timed else None)
        if timed:
            self.elapsed += time.perf_counter() - started
            self.client_cpu += time.process_time() - client_cpu_0
            server_cpu_1 = _proc_cpu_s(self.pid)
            if self.server_cpu is not None and server_cpu_0 is not None and server_cpu_1 is not None:
                self.server_cpu += server_cpu_1 - server_cpu_0
            else:
                self.server_cpu = None
        self.next += count
        for k, (request_id, _), raw in zip(range(first, first + count), block, answers, strict=True):  # off the clock: every answer checked
            message = client.message(raw)
            if not isinstance(message, dict) or message.get("id") != request_id or not ("result" in message or "error" in message):
                raise client._fail(f"answered request {request_id} with another line: {raw[:300]!r}")
            if "error" in message:
                raise client._fail(f"answered request {request_id} with an error: {json.dumps(message['error'])[:500]}")
            self._check(message["result"], k)
        for raw in skipped:
            message = client.message(raw)
            if not isinstance(message, dict) or "method" not in message:
                raise client._fail(f"wrote a line that is neither an answer nor a message of its own: {raw[:300]!r}")

    def finish(self) -> dict[str, Any]:
        if self.floor:
            self.client.kill()
            report: dict[str, Any] = {"maxrss_kb": None, "launcher_maxrss_kb": None, "exit_code": None}
        else:
            report = self.client.finish()
            if report["maxrss_kb"] <= report["launcher_maxrss_kb"]:
                raise BenchError(
                    f"the {self.name} server's peak RSS ({report['maxrss_kb']} KB) is not above the launcher's ({report['launcher_maxrss_kb']} KB)."
                )
        ordered = sorted(self.latencies)
        n = len(ordered)
        return {
            "command": _shown(self.argv),
            "calls": n,
            "elapsed_s": self.elapsed,
            "calls_per_s": n / self.elapsed,
            "latency_s": {
                "p50": statistics.median(ordered),
                "p99": ordered[max(0, -(-99 * n // 100) - 1)],  # nearest rank
                "min": ordered[0],
                "max": ordered[-1],
                "mean": statistics.fmean(ordered),
            },
            "server_cpu_per_call_s": self.server_cpu / n if self.server_cpu is not None else None,
            "client_cpu_per_call_s": self.client_cpu / n,
            "maxrss_kb": report["maxrss_kb"],
            "launcher_maxrss_kb": report["launcher_maxrss_kb"],
            "exit_code": report["exit_code"],
            "process_cpu_s": report.get("cpu_s"),
            "process_wall_s": report.get("wall_s"),
        }


def bench_calls(scratch: Scratch, commands: dict[str, dict[str, list[str]]], tool: str, calls: int, warmup: int, blocks: int) -> dict[str, Any]:
    """Throughput: every server connected at once, driven in turn, `calls / blocks` round trips at a time.

    Only the server being driven does anything (the others wait on their stdin), so a slow
    patch on the machine falls on all of them alike instead of on whichever ran then.
    """
    names = ["rata", "fastmcp", "sdk", "floor"]
    sessions: dict[str, CallSession] = {}
    try:
        for name in names:  # started together: their start-up is not what this measures
            sessions[name] = CallSession(scratch, name, commands[name]["calls"], tool, calls, warmup)
        for session in sessions.values():
            session.setup()
        per_block = [calls // blocks + (1 if i < calls % blocks else 0) for i in range(blocks)]
        for index, count in enumerate(per_block):
            shift = index % len(names)
            for name in names[shift:] + names[:shift]:
                sessions[name].run(count)
        out: dict[str, Any] = {"tool": tool, "calls": calls, "warmup_calls": warmup, "blocks": blocks}
        for session in sessions.values():  # end every session first: they shut down together
            session.client.end_input()
        for name in names:
            out[name] = sessions.pop(name).finish()
        return out
    finally:
        for session in sessions.values():  # only after a failure
            session.client.kill()


def bench_server(scratch: Scratch, runs: int, warmups: int, calls: int, warmup_calls: int, tool: str, blocks: int) -> dict[str, Any]:
    commands = server_commands()
    cold_order = ["rata", "rata-legacy", "rata-fresh", "fastmcp", "sdk", "floor"]
    run_child([str(BIN / "crm"), "--migrate"], scratch.env, ROOT, rss=False)  # the app's database, in RATA_HOME
    started = time.perf_counter()

    def cold_argv(name: str) -> list[str]:
        return commands["rata" if name.startswith("rata") else name]["cold"]

    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in cold_order}
    shapes: dict[str, list[Any]] = {}
    for index in range(warmups + runs):
        shift = index % len(cold_order)  # alternate, and rotate who goes first
        for name in cold_order[shift:] + cold_order[:shift]:
            row = cold_start(scratch, name, cold_argv(name), legacy=name == "rata-legacy")
            if row["shape"] is not None:
                if name in shapes and shapes[name] != row["shape"]:
                    raise BenchError(f"the {name} server listed a different surface on run {index + 1}.")
                shapes[name] = row["shape"]
            if index >= warmups:
                samples[name].append(row)
    if len({json.dumps(shape) for shape in shapes.values()}) != 1:
        raise BenchError("the servers listed different tools or arguments:\n" + "\n".join(f"{k}: {v}" for k, v in shapes.items()))
    cold: dict[str, Any] = {"runs": runs, "warmups": warmups, "commands": {name: _shown(cold_argv(name)) for name in cold_order}}
    for name, rows in samples.items():
        walls, cpus = [r["wall_s"] for r in rows], [r["cpu_s"] for r in rows]
        cold[name] = {"wall_s": summary(walls), "cpu_s": summary(cpus), "wall_runs_s": walls}
        if name != "floor":
            cold[name]["first_call_s"] = summary([r["first_call_s"] for r in rows])
    cold["elapsed_s"] = time.perf_counter() - started
    out: dict[str, Any] = {"cold": cold}
    print(f"server: {calls} tools/call {tool} round trips on each server, in {blocks} turns ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    out["calls"] = bench_calls(scratch, commands, tool, calls, warmup_calls, blocks)
    out["calls"]["elapsed_s"] = time.perf_counter() - started
    return out


# --- report --------------------------------------------------------------------------------


def _s(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _mb(kb: float) -> str:
    return f"{kb / 1024:.1f} MB"


def _us(value: float) -> str:
    return f"{value * 1e6:.0f} µs" if value < 1e-3 else f"{value * 1000:.2f} ms"


def _x(ratio: float) -> str:
    return f"{ratio:.1f}x" if ratio >= 1.95 else f"{ratio:.2f}x"


def render(results: dict[str, Any]) -> str:
    lines: list[str] = []
    v = results["versions"]
    m = results["machine"]
    lines.append(
        f"Machine: {m['nproc']} cores ({m['cpu']}), Python {m['python']}, {m['platform']}; 1-min load average at start {m['loadavg_1min_at_start']:.2f}"
    )
    lines.append(f"Versions: rata {v['rata-toolkit']}, fastmcp {v['fastmcp']}, mcp {v['mcp']}, pydantic {v['pydantic']}")
    lines.append(f"Command: `{results['command']}`")
    g = results.get("git", {})
    if g.get("commit"):
        changed = g["changed_under_rata_or_examples"]
        dirty = f" plus uncommitted changes to {len(changed)} path(s) under rata/ and examples/ (listed in the JSON)" if changed else ", clean"
        lines.append(f"Tree: {g['commit'][:12]}{dirty}")
    if "inspect" in results:
        ins = results["inspect"]
        r, f, py = ins["rata"], ins["fastmcp"], ins["python -c pass"]
        ir, ifm = ins["import rata CLI"], ins["import fastmcp CLI"]
        lines.append("")
        lines.append(f"### 1-2. Inspect the crm server ({ins['runs']} runs each after a priming run and {ins['warmups']} warm-up(s), alternating)")
        lines.append("")
        lines.append("| measure | rata | FastMCP | FastMCP / rata |")
        lines.append("|---|---:|---:|---:|")
        for label, key, stat in (
            ("wall time, median", "wall_s", "median"),
            ("wall time, min", "wall_s", "min"),
            ("wall time, max", "wall_s", "max"),
            ("CPU time (user+sys), median", "cpu_s", "median"),
        ):
            lines.append(f"| {label} | {_s(r[key][stat])} | {_s(f[key][stat])} | {_x(f[key][stat] / r[key][stat])} |")
        rss_r, rss_f = r["maxrss_kb"]["median"], f["maxrss_kb"]["median"]
        lines.append(f"| peak RSS (ru_maxrss), median | {_mb(rss_r)} | {_mb(rss_f)} | {_x(rss_f / rss_r)} |")
        lines.append(f"| JSON printed | {r['output_bytes']:,} B | {f['output_bytes']:,} B | |")
        lines.append(
            f"| only importing the CLI, median of {ins['floor_runs']} | {_s(ir['wall_s']['median'])}, {_mb(ir['maxrss_kb']['median'])} | "
            f"{_s(ifm['wall_s']['median'])}, {_mb(ifm['maxrss_kb']['median'])} | {_x(ifm['wall_s']['median'] / ir['wall_s']['median'])} |"
        )
        verdict = "met" if r["wall_s"]["median"] < INSPECT_TARGET_S else "NOT met"
        lines.append("")
        lines.append(f"Target: rata inspect under {_s(INSPECT_TARGET_S)} (median): **{verdict}** ({_s(r['wall_s']['median'])}).")
        lines.append(
            f"Floor: `python -c pass` takes {_s(py['wall_s']['median'])} wall (median). "
            'The import row is `python -c "import rata.cli.main"` and `python -c "import fastmcp.cli.cli"`.'
        )
        lines.append("")
        lines.append(f"- rata: `{ins['commands']['rata']}` (RATA_HOME set to a temporary folder)")
        lines.append(f"- FastMCP: `{ins['commands']['fastmcp']}`")
    if "codegen" in results:
        cg = results["codegen"]
        peers = [p for p in ("rata", "fastmcp", "sdk") if p in cg]
        names = {"rata": "rata", "fastmcp": "FastMCP", "sdk": "MCP SDK (MCPServer)"}
        lines.append("")
        lines.append(f"### 3. Codegen of {cg['count']:,} generated commands, in process (median of the repetitions)")
        lines.append("")
        lines.append(
            "| peer | reps | exec module | register | list / catalog | JSON | total (median) | total (min) | peer / rata (median) "
            "| CPU (median) | JSON size | tools-only JSON | child peak RSS |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        base = cg["rata"]["phases"]["total"]["median"] if "rata" in cg else None
        for peer in peers:
            d = cg[peer]
            ph = d["phases"]
            ratio = _x(ph["total"]["median"] / base) if base else ""
            lines.append(
                f"| {names[peer]} | {d['repeat']} | {_s(ph['exec']['median'])} | {_s(ph['register']['median'])} | {_s(ph['schemas']['median'])} | "
                f"{_s(ph['json']['median'])} | **{_s(ph['total']['median'])}** | {_s(ph['total']['min'])} | {ratio} | "
                f"{_s(ph['cpu']['median'])} | {d['json_bytes'] / 1e6:.2f} MB | "
                f"{_s(ph['tools_json']['median'])} | {_mb(d['child_maxrss_kb'])} |"
            )
        if base is not None:
            verdict = "met" if base < CODEGEN_TARGET_S else "NOT met"
            lines.append("")
            lines.append(f"Target: rata under {_s(CODEGEN_TARGET_S)} for {cg['count']:,} commands (median total): **{verdict}** ({_s(base)}).")
        lines.append("All peers listed the same tool names, argument names and required arguments (checked by digest).")
        lines.append('rata\'s JSON is its whole catalog (tools, resources, every command); tools-only JSON is `{"tools": [...]}` alone, as the peers write it.')
    if "end_to_end" in results:
        e2e = results["end_to_end"]
        lines.append("")
        lines.append(f"### 4. End to end on generated apps: fresh processes ({e2e['runs']} run(s) each, median)")
        lines.append("")
        lines.append("| commands | command | wall time | CPU time | peak RSS | JSON printed |")
        lines.append("|---:|---|---:|---:|---:|---:|")
        by = {(row["name"], row["count"]): row for row in e2e["rows"]}
        for row in e2e["rows"]:
            lines.append(
                f"| {row['count']:,} | `{row['command']}` | {_s(row['wall_s']['median'])} | {_s(row['cpu_s']['median'])} | "
                f"{_mb(row['maxrss_kb']['median'])} | {row['output_bytes'] / 1e6:.2f} MB |"
            )
        lines.append("")
        ratio = by[("fastmcp inspect", SMALL)]["wall_s"]["median"] / by[("rata inspect", SMALL)]["wall_s"]["median"]
        lines.append(
            f"fastmcp inspect / rata mcp inspect at {SMALL} commands: {_x(ratio)}. `rata mcp inspect` also lints the surface; `rata codegen` does not."
        )
    if "server" in results:
        sv = results["server"]
        cold, calls = sv["cold"], sv["calls"]
        base = cold["rata"]["wall_s"]["median"]
        lines.append("")
        lines.append(
            f"### 5. MCP server over stdio: cold start, spawn to the first tools/list answered "
            f"({cold['runs']} runs each after {cold['warmups']} untimed round(s), alternating)"
        )
        lines.append("")
        lines.append(
            "| server | first messages | wall, median | wall, min | wall, max | median / rata's (2026-07-28) "
            "| then the first `tools/call`, answered at (median) | CPU, median |"
        )
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|")
        requests = {
            "rata": "2026-07-28 `tools/list`",
            "rata-legacy": "2025-11-25 `initialize`, `notifications/initialized`, `tools/list`",
            "rata-fresh": "2026-07-28 `tools/list`",
            "fastmcp": "2026-07-28 `tools/list`",
            "sdk": "2026-07-28 `tools/list`",
            "floor": "any line",
        }
        for name in ("rata", "rata-legacy", "rata-fresh", "fastmcp", "sdk", "floor"):
            if name not in cold:
                continue  # a results file from before the row existed
            row = cold[name]
            w = row["wall_s"]
            label = f"{SERVER_NAMES[name]}: `{cold['commands'][name] if name != 'floor' else 'python -c <echo loop>'}`"
            ratio = _x(w["median"] / base) if name not in ("rata",) else "1.00x"
            first = _s(row["first_call_s"]["median"]) if "first_call_s" in row else ""
            lines.append(
                f"| {label} | {requests[name]} | **{_s(w['median'])}** | {_s(w['min'])} | {_s(w['max'])} | {ratio} | {first} | {_s(row['cpu_s']['median'])} |"
            )
        f_ratio = cold["fastmcp"]["wall_s"]["median"] / base
        lines.append("")
        lines.append(
            f"Targets: rata under {_s(SERVER_COLD_TARGET_S)} (median): **{'met' if base < SERVER_COLD_TARGET_S else 'NOT met'}** ({_s(base)}); "
            f"at least {SERVER_RATIO_TARGET:.0f}x faster than FastMCP: **{'met' if f_ratio >= SERVER_RATIO_TARGET else 'NOT met'}** ({_x(f_ratio)})."
        )
        lines.append(
            "Every server answered the enveloped 2026-07-28 `tools/list` as its first message, and all three listed the same tools, "
            "argument names and required arguments. rata answers it from the app's manifest while the app loads (docs/mcp.md, "
            "Start-up); the `no manifest` row deletes the manifest before each start, as a change to the app's code would. "
            "After the list, each server gets one `tools/call` `customers_index`, which needs the app's code: that column is "
            "spawn to its answer. CPU is the server's until it was stopped, right after that answer. "
            "The floor is a Python process that answers any line."
        )
        lines.append("")
        lines.append(
            f"#### Throughput: {calls['calls']:,} sequential `tools/call` `{calls['tool']}` round trips on one connection "
            f"(after `tools/list`, one `customers_store` and {calls['warmup_calls']} untimed calls)"
        )
        lines.append("")
        lines.append(
            "| server | calls/s | latency p50 | latency p99 | server CPU per call | peak RSS | rata's calls/s ÷ this | this p50 / rata's | this RSS / rata's |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        r = calls["rata"]
        for name in ("rata", "fastmcp", "sdk", "floor"):
            row = calls[name]
            cpu = _us(row["server_cpu_per_call_s"]) if row["server_cpu_per_call_s"] is not None else "n/a"
            rss = _mb(row["maxrss_kb"]) if row["maxrss_kb"] is not None else ""
            if name == "rata":
                ratios = "1.00x | 1.00x | 1.00x"
            elif name == "floor":
                ratios = f"{_x(r['calls_per_s'] / row['calls_per_s'])} | {_x(row['latency_s']['p50'] / r['latency_s']['p50'])} | "
            else:
                ratios = (
                    f"{_x(r['calls_per_s'] / row['calls_per_s'])} | {_x(row['latency_s']['p50'] / r['latency_s']['p50'])} | "
                    f"{_x(row['maxrss_kb'] / r['maxrss_kb'])}"
                )
            lines.append(
                f"| {SERVER_NAMES[name]}: `{row['command'] if name != 'floor' else 'python -c <echo loop>'}` | **{row['calls_per_s']:,.0f}** | "
                f"{_us(row['latency_s']['p50'])} | {_us(row['latency_s']['p99'])} | {cpu} | {rss} | {ratios} |"
            )
        t_ratio = r["calls_per_s"] / calls["fastmcp"]["calls_per_s"]
        lines.append("")
        lines.append(
            f"Target: rata at least {SERVER_RATIO_TARGET:.0f}x FastMCP's calls/s: **{'met' if t_ratio >= SERVER_RATIO_TARGET else 'NOT met'}** ({_x(t_ratio)})."
        )
        lines.append(
            "rata runs `bench/rata_crm.py` here: the crm app with `Mcp().rate_limit(None)` (the default, 300 calls per tool per 60 s, "
            "would refuse most of these calls). rata reads SQLite; the peers' bodies use an in-memory list. Peak RSS is the server "
            "process's `ru_maxrss` over the whole session (bench/spawn.py). The client spends "
            f"{_us(r['client_cpu_per_call_s'])} of CPU per call on rata's run."
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="rata's benchmarks against FastMCP and the MCP SDK.")
    parser.add_argument("--runs", type=int, default=8, help="measured inspect runs per tool (default 8)")
    parser.add_argument("--warmups", type=int, default=1, help="inspect warm-up runs per tool, after the priming run (default 1)")
    parser.add_argument("--count", type=int, default=1000, help="generated commands for the codegen benchmarks (default 1000)")
    parser.add_argument("--rata-repeat", type=int, default=10, help="codegen repetitions for rata (default 10)")
    parser.add_argument("--peer-repeat", type=int, default=1, help="codegen repetitions for FastMCP and the SDK (default 1)")
    parser.add_argument("--e2e-runs", type=int, default=1, help="runs of each end-to-end command on the generated app (default 1)")
    parser.add_argument("--server-runs", type=int, default=15, help="measured cold starts per MCP server (default 15)")
    parser.add_argument("--server-warmups", type=int, default=2, help="untimed cold-start rounds first; the first fills the bytecode cache (default 2)")
    parser.add_argument("--calls", type=int, default=2000, help="timed tools/call round trips per MCP server (default 2000)")
    parser.add_argument("--warmup-calls", type=int, default=100, help="untimed tools/call round trips before them (default 100)")
    parser.add_argument("--blocks", type=int, default=10, help="the timed calls are made in this many turns per server, alternating (default 10)")
    parser.add_argument(
        "--server-tool",
        choices=("customers_show", "customers_store"),
        default="customers_show",
        help="the tool called in the throughput run (default customers_show of a stored customer)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 inspect runs, 2/1 codegen repetitions, 1 end-to-end run, 3 cold starts and 500 calls per server"
    )
    parser.add_argument("--only", choices=("inspect", "codegen", "e2e", "server"), help="run one benchmark")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.warmups, args.rata_repeat, args.peer_repeat, args.e2e_runs = 3, 0, 2, 1, 1
        args.server_runs, args.server_warmups, args.calls, args.warmup_calls = 3, 1, 500, 50

    started = time.perf_counter()
    scratch = Scratch()
    try:
        results: dict[str, Any] = {
            "when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join([".venv/bin/python", "bench/run.py", *sys.argv[1:]]),
            "machine": machine(),
            "versions": check_peers(scratch),
            "parent_PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE"),
            "git": git_state(),
        }
        sections: dict[str, float] = {}
        results["section_s"] = sections  # how long each part took, to keep the whole run short
        mark = time.perf_counter()

        def done(name: str) -> None:
            nonlocal mark
            now = time.perf_counter()
            sections[name] = round(now - mark, 1)
            mark = now

        print("priming the bytecode cache ...", file=sys.stderr, flush=True)
        prime(scratch, args.count)
        done("prime")
        if args.only in (None, "inspect"):
            print(f"inspect: {args.warmups} warm-ups + {args.runs} runs each of rata and fastmcp ...", file=sys.stderr, flush=True)
            results["inspect"] = bench_inspect(scratch, args.runs, args.warmups)
            done("inspect")
        if args.only in (None, "codegen"):
            print(f"codegen: {args.count} commands, rata x{args.rata_repeat}, FastMCP and SDK x{args.peer_repeat} ...", file=sys.stderr, flush=True)
            results["codegen"] = bench_codegen(scratch, args.count, {"rata": args.rata_repeat, "fastmcp": args.peer_repeat, "sdk": args.peer_repeat})
            done("codegen")
        if args.only in (None, "e2e"):
            print(f"end to end: the {SMALL}- and {args.count}-command apps, x{args.e2e_runs} ...", file=sys.stderr, flush=True)
            results["end_to_end"] = bench_end_to_end(scratch, args.count, args.e2e_runs)
            done("e2e")
        if args.only in (None, "server"):
            print(
                f"server: {args.server_warmups} untimed rounds + {args.server_runs} cold starts each of crm --mcp (both eras), FastMCP, the SDK ...",
                file=sys.stderr,
                flush=True,
            )
            results["server"] = bench_server(scratch, args.server_runs, args.server_warmups, args.calls, args.warmup_calls, args.server_tool, args.blocks)
            done("server")
    finally:
        scratch.close()
    results["elapsed_s"] = time.perf_counter() - started
    print(render(results))
    parts = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in results["section_s"].items())
    print(f"(benchmarks took {results['elapsed_s']:.0f} s: {parts})", file=sys.stderr)
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        text = json.dumps(results, indent=2) + "\n"
        stamp = results["when"].replace(":", "").replace("+0000", "Z")
        (RESULTS / f"{stamp}.json").write_text(text, encoding="utf-8")
        (RESULTS / "latest.json").write_text(text, encoding="utf-8")
        print(f"wrote {RESULTS.relative_to(ROOT)}/latest.json", file=sys.stderr)


if __name__ == "__main__":
    main()
