"""Running the official MCP conformance suite against a stdio server, behind a Streamable HTTP bridge.

The suite (`@modelcontextprotocol/conformance`) tests servers over Streamable HTTP only, so a
stdio server runs behind `supergateway` (both pinned in .ci/peers). For the 2026-07-28 set the
bridge is stateless: it starts a fresh server process for every HTTP request, which is exactly
the 2026-07-28 model (no session). For 2025-11-25 it is stateful (`--stateful`): one server
process per `initialize` session, so the server's own requests (elicitation, sampling) reach
the client. Each scenario's checks land in `OUT/server-<scenario>-<time>/checks.json`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.mcp.peers import LEGACY, MODERN, PEERS_BIN

SUITE = PEERS_BIN / "conformance"
BRIDGE = PEERS_BIN / "supergateway"
PACKAGE = PEERS_BIN.parent / "@modelcontextprotocol" / "conformance"
# How each requirement set is served: the bridge's mode for it.
STATEFUL = {MODERN: False, LEGACY: True}
SUITE_SECONDS = 300
_OUTPUT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


def installed() -> bool:
    return SUITE.exists() and BRIDGE.exists() and (PEERS_BIN / "node").exists()


def scored(version: str) -> list[str]:
    """The server scenarios a requirement set scores, from the suite's own `requirements/<version>.yaml`."""
    return list(yaml.safe_load((PACKAGE / "requirements" / f"{version}.yaml").read_text())["server"])


@dataclass
class Scenario:
    """One scenario's checks, as the suite wrote them: it passes when no check failed (warnings do not count)."""

    name: str
    checks: list[dict]

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> dict[str, str]:
        """The failed checks: id -> the suite's message."""
        return {check["id"]: check.get("errorMessage") or "" for check in self.checks if check["status"] == "FAILURE"}

    @property
    def warnings(self) -> dict[str, str]:
        return {check["id"]: check.get("errorMessage") or "" for check in self.checks if check["status"] == "WARNING"}


@dataclass
class Run:
    """What one `conformance server` run of a requirement set found: its scenarios, and what it printed."""

    version: str
    scenarios: dict[str, Scenario]
    output: str
    seconds: float

    def scored(self) -> dict[str, Scenario]:
        """The scored scenarios; a scored scenario the suite did not run is a failure of this harness."""
        names = scored(self.version)
        missing = [name for name in names if name not in self.scenarios]
        assert not missing, f"the suite ran none of {missing} for {self.version}:\n{self.output[-3000:]}"
        return {name: self.scenarios[name] for name in names}

    def passing(self) -> list[str]:
        return [name for name, scenario in self.scored().items() if scenario.passed]

    def failing(self) -> dict[str, dict[str, str]]:
        return {name: scenario.failures for name, scenario in self.scored().items() if not scenario.passed}

    def score(self) -> str:
        return f"{len(self.passing())}/{len(self.scored())}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, server: subprocess.Popen, seconds: float = 30) -> None:
    name = server.args[0] if isinstance(server.args, list) else server.args  # started from an argv list
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"{name} exited with {server.returncode} before it listened on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{name} did not listen on port {port} within {seconds} s")


def run_suite(server: list[str], version: str, out: Path, env: dict[str, str], scenario: str | None = None, timeout_ms: int = 10_000) -> Run:
    """Serve `server` (a stdio MCP server's argv) behind the bridge and run the suite's `version` set against it.

    With `scenario`, only that scenario, at `version`. `timeout_ms` bounds each scenario.
    """
    port = free_port()
    bridge = [str(BRIDGE), "--stdio", shlex.join(server), "--outputTransport", "streamableHttp", "--port", str(port), "--logLevel", "none"]
    return run_served([*bridge, "--stateful"] if STATEFUL[version] else bridge, port, version, out, env, scenario, timeout_ms)


def run_served(serve: list[str], port: int, version: str, out: Path, env: dict[str, str], scenario: str | None = None, timeout_ms: int = 10_000) -> Run:
    """Start `serve`, a Streamable HTTP server on `port` (the bridge, or a server of its own), and run the suite against it."""
    env = {**env, "PATH": os.pathsep.join([str(PEERS_BIN), env.get("PATH", "")])}
    # Its own process group: the server's children (the bridge's stdio servers) end with it.
    process = subprocess.Popen(serve, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_for_port(port, process)
        selection = ["--scenario", scenario, "--spec-version", version, "--force"] if scenario else ["--requirements", version]
        suite_argv = [str(SUITE), "server", "--url", f"http://localhost:{port}/mcp", *selection, "--timeout", str(timeout_ms), "-o", str(out)]
        started = time.monotonic()
        completed = subprocess.run(suite_argv, env=env, cwd=out.parent, capture_output=True, text=True, timeout=SUITE_SECONDS)
        seconds = time.monotonic() - started
    finally:
        _stop(process)
    return Run(version, read_results(out), completed.stdout + completed.stderr, seconds)


def _stop(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def read_results(out: Path) -> dict[str, Scenario]:
    """Every scenario's checks under `out` (the newest run of a scenario, if it ran twice)."""
    scenarios: dict[str, Scenario] = {}
    for folder in sorted(out.iterdir()) if out.exists() else []:
        match = _OUTPUT_DIR.match(folder.name)
        if match and (folder / "checks.json").exists():
            name = match.group("scenario")
            scenarios[name] = Scenario(name, json.loads((folder / "checks.json").read_text()))
    return scenarios


def main(argv: list[str]) -> int:
    """`python -m tests.conformance.suite rata|sdk|sdk-native 2026-07-28|2025-11-25`: one run's score and failures."""
    import secrets
    import sys
    import tempfile

    if len(argv) != 2 or argv[0] not in ("rata", "sdk", "sdk-native") or argv[1] not in STATEFUL:
        print(main.__doc__, file=sys.stderr)
        return 2
    who, version = argv
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = {**os.environ, "RATA_HOME": str(folder / "rata-home"), "HOME": str(folder), "CONFORMANCE_STATE_KEY": secrets.token_hex(32)}
        if who == "rata":
            result = run_suite([sys.executable, str(here / "app.py"), "--mcp"], version, folder / "out", env)
        elif who == "sdk":
            result = run_suite([sys.executable, str(here / "sdk_server.py")], version, folder / "out", env)
        else:
            port = free_port()
            result = run_served([sys.executable, str(here / "sdk_server.py"), "--http", str(port)], port, version, folder / "out", env)
        print(f"{who}, {version}: {result.score()} in {result.seconds:.0f} s")
        for name, failures in result.failing().items():
            print(f"  {name}: " + "; ".join(f"{check}: {message[:160]}" for check, message in failures.items()))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
