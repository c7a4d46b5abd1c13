"""Soak: valid, malformed and hostile traffic against `crm --mcp` and `rata mcp dev`, for a bounded time.

    .venv/bin/python bench/soak.py                  # 120 s, both servers at once
    .venv/bin/python bench/soak.py --seconds 30     # shorter
    .venv/bin/python bench/soak.py --json out.json  # every sample as well

Each server runs as a real process on pipes, in a scratch RATA_HOME with crm migrated. One client
per server keeps up to `--in-flight` requests outstanding, drawn (seeded, so every run sends the
same sequence) from a weighted mix: ordinary calls, lines that are not JSON-RPC at all, and hostile
ones (lone surrogates, 5,000-digit integers, NaN, 3,000-deep nesting, 5 MB lines, 1.5 MB client
names, catastrophic regexes, expensive SQL, replayed confirmations, accepts that are not a boolean
true). Every line a server writes is checked: UTF-8, strict JSON (no NaN), one answer per request.

Every `--sample` seconds it records each server's RSS and thread count, and prints a table over
time: requests sent, answers, JSON-RPC errors, requests lost (never answered), bad lines, RSS, threads.
It exits non-zero if a request was lost or answered twice, a line was not strict JSON, a
confirmation ran without a fresh boolean accept, a server died, or a server's RSS grew more than
`--max-growth-mb` after the first sample.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


def _strict_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict_loads(raw: bytes) -> Any:
    return json.loads(raw.decode("utf-8"), parse_constant=_strict_constant)


class Conn:
    """One server process and its client: lines out, a reader thread tallying lines in."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], cwd: Path, stderr: Path) -> None:
        self.name = name
        self._stderr = open(stderr, "wb")  # noqa: SIM115 - the child's stderr for its whole life, closed in finish()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env, cwd=cwd)
        assert self.proc.stdin is not None
        self._fd = self.proc.stdin.fileno()
        os.set_blocking(self._fd, False)
        self._out = select.poll()
        self._out.register(self._fd, select.POLLOUT)
        self.lock = threading.Lock()
        self.ids = 0
        self.waiting: dict[int, float] = {}  # id -> when sent
        self.answers: dict[int, dict[str, Any]] = {}
        self.events: dict[int, threading.Event] = {}
        self.tally: Counter[str] = Counter()
        self.bad_lines: list[bytes] = []
        self.slowest = 0.0
        self.reader = threading.Thread(target=self._read, name=f"soak-{name}", daemon=True)
        self.reader.start()

    def next_id(self) -> int:
        with self.lock:
            self.ids += 1
            return self.ids

    def send(self, data: bytes, request_id: int | None = None, keep: bool = False) -> None:
        with self.lock:
            if request_id is not None:
                self.waiting[request_id] = time.monotonic()
                if keep:
                    self.events[request_id] = threading.Event()
            self.tally["sent"] += 1
        self._write(data)

    def _write(self, data: bytes, timeout: float = 30.0) -> None:
        """Write it all, or give up when the server has stopped reading for `timeout` s (a frozen server)."""
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            if not self._out.poll(max(0.0, deadline - time.monotonic()) * 1000):
                raise TimeoutError(f"{self.name} stopped reading its stdin (nothing taken for {timeout:g} s)")
            view = view[os.write(self._fd, view) :]

    def call(self, method: str, params: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """A request whose answer the caller needs: sent, then waited for."""
        request_id = self.next_id()
        self.send(line({"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": META}}), request_id, keep=True)
        if not self.events[request_id].wait(timeout):
            raise TimeoutError(f"{self.name} did not answer {method} within {timeout:g} s")
        with self.lock:
            self.events.pop(request_id)
            return self.answers.pop(request_id)

    def in_flight(self) -> int:
        with self.lock:
            return len(self.waiting)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            raw = raw.rstrip(b"\n")
            if not raw.strip():
                continue
            try:
                message = strict_loads(raw)
            except ValueError:
                with self.lock:
                    self.tally["bad lines"] += 1
                    self.bad_lines.append(raw[:300])
                continue
            if not isinstance(message, dict) or "method" in message:
                with self.lock:
                    self.tally["notifications"] += 1
                continue
            with self.lock:
                if "error" in message:
                    self.tally["errors"] += 1
                answer_id = message.get("id")
                sent = self.waiting.pop(answer_id, None) if isinstance(answer_id, int) else None
                if sent is None:
                    # an answer without an id we sent: a parse error or a refused id, or a second answer
                    if isinstance(answer_id, int) and answer_id <= self.ids:
                        self.tally["answered twice"] += 1
                    else:
                        self.tally["answers to unusable ids"] += 1
                    continue
                self.tally["answers"] += 1
                self.slowest = max(self.slowest, time.monotonic() - sent)
                event = self.events.get(answer_id)
                if event is not None:
                    self.answers[answer_id] = message
                    event.set()

    def sample(self) -> dict[str, Any]:
        status = {}
        try:
            for row in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                key, _, value = row.partition(":")
                status[key] = value.strip()
        except OSError:
            pass
        with self.lock:
            tally = dict(self.tally)
            waiting = len(self.waiting)
        return {
            "rss_mb": int(status.get("VmRSS", "0 kB").split()[0]) / 1024,
            "threads": int(status.get("Threads", "0")),
            "alive": self.proc.poll() is None,
            "in_flight": waiting,
            **tally,
        }

    def finish(self, grace: float) -> dict[str, Any]:
        """Wait for the outstanding answers, close stdin, and time the exit."""
        deadline = time.monotonic() + grace
        while self.in_flight() and time.monotonic() < deadline:
            time.sleep(0.05)
        lost = self.in_flight()
        closed = time.monotonic()
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
            exit_s = time.monotonic() - closed
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            exit_s = None
        self.reader.join(5)
        self._stderr.close()
        return {"lost": lost, "exit_s": exit_s, "returncode": self.proc.returncode}


def line(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"


def raw_request(request_id: int, method: str, params_text: str) -> bytes:
    return f'{{"jsonrpc":"2.0","id":{request_id},"method":"{method}","params":{params_text}}}\n'.encode()


def enveloped(params: dict[str, Any], client_name: str | None = None) -> dict[str, Any]:
    meta = dict(META)
    if client_name is not None:
        meta["io.modelcontextprotocol/clientInfo"] = {"name": client_name, "version": "1"}
    return {**params, "_meta": meta}


# --- the traffic: each maker writes one line (or a few) and says which id, if any, must be answered ----


def ordinary(conn: Conn, rng: random.Random, tools: list[tuple[str, dict[str, Any]]]) -> None:
    tool, arguments = rng.choice(tools)
    request_id = conn.next_id()
    if rng.random() < 0.2:
        conn.send(line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": enveloped({})}), request_id)
    else:
        conn.send(line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": enveloped({"name": tool, "arguments": arguments})}), request_id)


def malformed(conn: Conn, rng: random.Random) -> None:
    request_id = conn.next_id()
    shapes = [
        (b'{"jsonrpc":"2.0","id":1,', None),
        (b"\xff\xfe\xfd not utf-8\n", None),
        (bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200))).replace(b"\n", b" ") + b"\n", None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n', None),
        (b'"just a string"\n', None),
        (line({"jsonrpc": "1.0", "id": request_id, "method": "tools/list"}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "no/such/method", "params": enveloped({})}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": enveloped({"name": 7, "arguments": []})}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "x"}}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": "not an object"}), request_id),
        (line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rng.randint(1, 10**6)}}), None),
        (line({"jsonrpc": "2.0", "id": f"rata-{rng.randint(1, 9)}", "result": {"odd": True}}), None),
        (line({"jsonrpc": "2.0", "id": "rata-1", "error": {"code": "not a number", "message": 5}}), None),
    ]
    data, answered = rng.choice(shapes)
    # a line whose id is not one of ours (or which has none) is answered with no id or its own: counted apart
    conn.send(data if data.endswith(b"\n") else data + b"\n", answered)


ODD_INITIALIZE = {"protocolVersion": 1e308, "capabilities": {}, "clientInfo": {"name": "\udfff"}}


def hostile(conn: Conn, rng: random.Random) -> None:
    request_id = conn.next_id()
    kinds = [
        (b'{"jsonrpc":"2.0","id":"\\udfff","method":"tools/list","params":{}}\n', None),
        # a line JSON cannot carry faithfully is a parse error, answered without an id (its id was never read)
        (raw_request(request_id, "tools/list", '{"x":' + "9" * 5000 + ',"_meta":' + json.dumps(META) + "}"), None),
        (raw_request(request_id, "tools/list", '{"x":NaN,"_meta":' + json.dumps(META) + "}"), None),
        (raw_request(request_id, "tools/list", '{"x":1e999,"_meta":' + json.dumps(META) + "}"), None),
        (raw_request(request_id, "tools/list", '{"x":' + "[" * 3000 + "]" * 3000 + ',"_meta":' + json.dumps(META) + "}"), None),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": enveloped({}, client_name="\udfff" * 3)}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": enveloped({}, client_name="A" * 1_500_000)}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": enveloped({}, client_name="\x1b[31m\u202e\u200bevil\x07")}), request_id),
        (line({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": ODD_INITIALIZE}), request_id),
    ]
    if rng.random() < 0.02:  # a line over the 4 MiB cap: answered with an id-less error and skipped
        kinds = [(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (5 * 1024 * 1024) + b'"}}\n', None)]
    data, answered = rng.choice(kinds)
    conn.send(data, answered)


def crm_tools(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("customers_index", {}),
        ("customers_index", {"search": rng.choice(["a", "%", "\udfff", "\x00", "é" * 50])}),
        ("customers_show", {"id": rng.randint(1, 50)}),
        ("customers_show", {"id": 10**30}),
        ("customers_store", {"name": f"Soak {rng.getrandbits(32)}", "email": f"s{rng.getrandbits(48)}@example.com"}),
        ("customers_store", {"name": "\udfff bad", "email": f"x{rng.getrandbits(48)}@example.com"}),
    ]


CATASTROPHIC = ["(?:.|.)*Q", "(a+)+$", "(a|aa)+b", "(x+x+)+y", "^(\\w+\\s?)*$"]


def dev_tools(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("app_info", {}),
        ("last_error", {}),
        ("migration_status", {}),
        ("list_commands", {}),
        ("database_schema", {}),
        ("read_log_entries", {"limit": rng.randint(1, 50)}),
        ("read_log_entries", {"pattern": rng.choice(CATASTROPHIC), "limit": 20}),
        ("read_log_entries", {"pattern": "[unclosed", "limit": 5}),
        ("database_query", {"sql": "SELECT id, name, email FROM customers ORDER BY id DESC", "limit": 20}),
        ("database_query", {"sql": "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i<40) SELECT length(randomblob(50000000)) FROM r"}),
        ("database_query", {"sql": "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r) SELECT i FROM r"}),
        ("database_query", {"sql": "SELECT " + ",".join(f"zeroblob(1000000) AS c{i}" for i in range(60))}),
        ("database_query", {"sql": "DELETE FROM customers"}),
        ("search_docs", {"query": rng.choice(["customers", "\udfff", "*", '"unbalanced'])}),
    ]


# --- confirmations: one accept runs a confirmed command once; anything but a boolean true never does ----


def confirmation_scenario(conn: Conn, rng: random.Random, problems: list[str]) -> None:
    stored = conn.call("tools/call", {"name": "customers_store", "arguments": {"name": "Doomed", "email": f"d{rng.getrandbits(48)}@example.com"}})
    customer = (stored.get("result") or {}).get("structuredContent") or {}
    if "id" not in customer:
        return  # rate limited, say: nothing to check this time
    arguments = {"id": customer["id"]}
    first = conn.call("tools/call", {"name": "customers_delete", "arguments": arguments}).get("result") or {}
    state = first.get("requestState")
    if first.get("resultType") != "input_required" or not isinstance(state, str):
        problems.append(f"customers_delete was not held for confirmation: {json.dumps(first)[:200]}")
        return
    not_accepts = [{"action": "accept", "content": {"confirm": value}} for value in ("false", 0, None, "yes", [])]
    not_accepts += [{"action": "accept"}, {"action": "accept", "content": {}}]
    for answer in rng.sample(not_accepts, 2):
        conn.call("tools/call", {"name": "customers_delete", "arguments": arguments, "requestState": state, "inputResponses": {"confirm": answer}})
        shown = conn.call("tools/call", {"name": "customers_show", "arguments": arguments}).get("result") or {}
        text = json.dumps(shown.get("content"))
        if shown.get("isError") and "Rate limit" not in text:
            problems.append(f"an accept of {json.dumps(answer)} deleted the customer: {text[:200]}")
            return
    accept = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    done = conn.call("tools/call", {"name": "customers_delete", "arguments": arguments, "requestState": state, "inputResponses": accept})
    if "error" in done:
        return  # the state was spent by a refused answer above: also single-use, and safe
    replay = conn.call("tools/call", {"name": "customers_delete", "arguments": arguments, "requestState": state, "inputResponses": accept})
    if "error" not in replay:
        problems.append("a replayed accept was served again")


# --- the run --------------------------------------------------------------------------------------


def drive(conn: Conn, maker: Any, seed: int, until: float, in_flight: int, problems: list[str]) -> None:
    rng = random.Random(seed)
    count = 0
    try:
        while time.monotonic() < until and conn.proc.poll() is None:
            while conn.in_flight() >= in_flight and time.monotonic() < until:
                time.sleep(0.002)
            roll = rng.random()
            if roll < 0.70:
                ordinary(conn, rng, maker(rng))
            elif roll < 0.85:
                malformed(conn, rng)
            else:
                hostile(conn, rng)
            count += 1
            if conn.name == "crm --mcp" and count % 400 == 0:
                confirmation_scenario(conn, rng, problems)
    except (BrokenPipeError, TimeoutError, OSError) as error:
        problems.append(f"{conn.name}: {error}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--in-flight", type=int, default=16, help="most requests outstanding per server")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--max-growth-mb", type=float, default=64.0)
    parser.add_argument("--json", type=Path, help="write every sample here too")
    parser.add_argument("--rate-limited", action="store_true", help="soak the real `crm --mcp`, with its default rate limit")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="rata-soak-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update({"RATA_HOME": str(scratch / "home"), "PYTHONPYCACHEPREFIX": str(scratch / "pycache"), "NO_COLOR": "1"})
    crm_dir = ROOT / "examples" / "crm"
    subprocess.run([str(BIN / "crm"), "--migrate"], env=env, cwd=crm_dir, check=True, capture_output=True)
    # By default the crm app is served as bench/rata_crm.py serves it (the same app and `--mcp` path, its rate limit
    # off) so that ordinary calls run their commands; --rate-limited soaks the real `crm --mcp`, where most calls
    # soon come back as rate-limit results.
    crm_argv = [str(BIN / "crm"), "--mcp"] if args.rate_limited else [sys.executable, str(ROOT / "bench" / "rata_crm.py"), "--mcp"]
    conns = [
        Conn("crm --mcp", crm_argv, env, crm_dir, scratch / "crm.stderr"),
        Conn("rata mcp dev", [str(BIN / "rata"), "mcp", "dev", "--app", "crm.app:app"], env, crm_dir, scratch / "dev.stderr"),
    ]
    makers = {"crm --mcp": crm_tools, "rata mcp dev": dev_tools}
    problems: list[str] = []
    started = time.monotonic()
    until = started + args.seconds
    drivers = [
        threading.Thread(target=drive, args=(conn, makers[conn.name], args.seed + i, until, args.in_flight, problems), daemon=True)
        for i, conn in enumerate(conns)
    ]
    for thread in drivers:
        thread.start()
    samples: list[dict[str, Any]] = []
    while time.monotonic() < until:
        time.sleep(min(args.sample, max(0.0, until - time.monotonic())))
        at = round(time.monotonic() - started)
        for conn in conns:
            samples.append({"t": at, "server": conn.name, **conn.sample()})
            print(f"soak: {at:>4} s  {conn.name:<13} {json.dumps(samples[-1])}", file=sys.stderr)
    for thread in drivers:
        thread.join(45)
    finals = {conn.name: {**conn.sample(), **conn.finish(grace=30.0), "slowest_s": round(conn.slowest, 2), "bad": conn.bad_lines[:3]} for conn in conns}
    shutil.rmtree(scratch, ignore_errors=True)

    limit = "with its default rate limit" if args.rate_limited else "with its rate limit off (bench/rata_crm.py)"
    print(f"Soak of {args.seconds:g} s, seed {args.seed}, up to {args.in_flight} requests in flight per server; crm {limit}.\n")
    print("| t (s) | server | sent | answers | JSON-RPC errors | other answers | in flight | RSS (MB) | threads |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in samples:
        print(
            f"| {row['t']} | `{row['server']}` | {row.get('sent', 0):,} | {row.get('answers', 0):,} | {row.get('errors', 0):,} | "
            f"{row.get('answers to unusable ids', 0):,} | {row['in_flight']} | {row['rss_mb']:.1f} | {row['threads']} |"
        )
    print()
    for name, final in finals.items():
        first_rss = next(s["rss_mb"] for s in samples if s["server"] == name)
        growth = final["rss_mb"] - first_rss if final["alive"] else 0.0
        print(
            f"- `{name}`: {final.get('sent', 0):,} lines sent, {final.get('answers', 0):,} requests answered, lost {final['lost']}, "
            f"answered twice {final.get('answered twice', 0)}, bad lines {final.get('bad lines', 0)}, slowest answer {final['slowest_s']} s, "
            f"RSS {first_rss:.1f} -> {final['rss_mb']:.1f} MB, exit {final['returncode']} {final['exit_s'] and round(final['exit_s'], 2)} s after stdin closed"
        )
        if final["lost"]:
            problems.append(f"{name}: {final['lost']} requests never answered")
        if final.get("answered twice"):
            problems.append(f"{name}: {final['answered twice']} requests answered twice")
        if final.get("bad lines"):
            problems.append(f"{name}: {final['bad lines']} lines were not strict JSON, e.g. {final['bad']}")
        if final["exit_s"] is None or final["returncode"] not in (0,):
            problems.append(f"{name}: did not exit cleanly when stdin closed (exit {final['returncode']})")
        if growth > args.max_growth_mb:
            problems.append(f"{name}: RSS grew {growth:.1f} MB")
    if args.json:
        shown = {name: {**final, "bad": [raw.decode("latin-1") for raw in final["bad"]]} for name, final in finals.items()}
        args.json.write_text(json.dumps({"samples": samples, "finals": shown}, indent=1))
    for problem in problems:
        print(f"soak: PROBLEM: {problem}", file=sys.stderr)
    print(f"\n{'no problems' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
