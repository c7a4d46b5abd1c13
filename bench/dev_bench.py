"""`rata mcp dev` under load: big logs, a big docs corpus, a big schema, and its cold start.

    .venv/bin/python bench/dev_bench.py             # everything, about 2 minutes on 2 idle cores
    .venv/bin/python bench/dev_bench.py --no-save   # do not write bench/results/

1. logs: `rata.dev_server.logreader.read_entries(logs_dir, name, limit=50)` in process on a 1 GiB
   and a 1 MiB JSON-lines log in rata's format (rata/logs.py), warm page cache, median of
   the runs; the same with ``min_level="ERROR"`` where 1 line in 10,000 is an error (it may
   scan the whole 64 MiB budget); one run of each with the 1 GiB file's pages dropped from
   the page cache (posix_fadvise DONTNEED); then `tools/call read_log_entries` (and
   `last_error`) through a real `rata mcp dev --app tiny.py` process, once its connection is up.
2. docs: `DocsIndex([("project", corpus)], location=cache)` on 10,000 generated Markdown pages:
   the first build, the re-index after one file changed (`refresh()`, and a whole `search()`),
   a no-change `refresh()` (every search runs one), and `search()` p50/p99 over 120 queries.
3. schema: `database.schema(connect_read_only(path))` on a 500-table SQLite database, full and
   summary, in process and through the real server (`tools/call database_schema`).
4. cold start: `.venv/bin/rata mcp dev` run from examples/crm (RATA_HOME a migrated temporary
   folder, RATA_CACHE_DIR a temporary folder), spawn to the first `tools/list` answered, in
   both protocol eras, against `python -c pass`; then where the time goes: an in-process phase
   breakdown, `-X importtime` and a cProfile of building the server and answering tools/list.

Every child runs with a private bytecode cache (PYTHONPYCACHEPREFIX in the temporary folder,
PYTHONDONTWRITEBYTECODE unset), filled before anything is timed and checked with
PYTHONVERBOSE: the dev server sets ``sys.dont_write_bytecode`` itself, so the modules it
imports late are compiled into the cache with compileall. Big files live in a temporary
folder that is removed at the end; nothing is written in the repository except
bench/results/dev-latest.json (git-ignored).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import git_state  # noqa: E402
from common import machine as common_machine  # noqa: E402
from stdio_client import StdioClient  # noqa: E402 - one stdio client for every benchmark

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BIN = Path(sys.executable).parent
CRM = ROOT / "examples" / "crm"

GIB = 1 << 30
MIB = 1 << 20
LOG_BLOCK_LINES = 10_000  # one ERROR line per block: 1 in 10,000
DOC_PAGES = 10_000
TABLES = 500

TARGETS = {
    "log_1gib_ms": 50.0,
    "log_ratio": 2.0,
    "docs_build_s": 60.0,
    "docs_reindex_s": 0.5,
    "docs_query_p50_ms": 20.0,
    "cold_start_ms": 150.0,
}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
LEGACY_INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "rata-dev-bench", "version": "1.0.0"}}
DEV_TOOLS = {"app_info", "database_schema", "database_query", "migration_status", "last_error", "read_log_entries", "list_commands", "search_docs"}
DEV_TOOLS |= {"app_windows", "window_snapshot", "window_act", "window_screenshot", "app_calls"}  # they answer "no debug build" here


class BenchError(SystemExit):
    def __init__(self, message: str) -> None:
        super().__init__(f"dev_bench: {message}")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def stats(values: list[float]) -> dict[str, Any]:
    ordered = sorted(values)
    n = len(ordered)
    return {
        "n": n,
        "median": statistics.median(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "p90": ordered[max(0, -(-90 * n // 100) - 1)],
        "p99": ordered[max(0, -(-99 * n // 100) - 1)],  # nearest rank
    }


def timed(fn: Any, runs: int, warmups: int = 2) -> tuple[dict[str, Any], Any]:
    """Median etc. of `runs` calls of fn() in seconds, after `warmups`; and the last result."""
    result = None
    for _ in range(warmups):
        result = fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return stats(samples), result


# --- environment ---------------------------------------------------------------------------------


class Scratch:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="rata-dev-bench-"))
        env = dict(os.environ)
        for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONPROFILEIMPORTTIME", "PYTHONVERBOSE"):
            env.pop(name, None)
        env.update({"PYTHONPYCACHEPREFIX": str(self.root / "pycache"), "NO_COLOR": "1"})
        self.env = env

    def env_for(self, home: Path, cache: Path, **extra: str) -> dict[str, str]:
        return {**self.env, "RATA_HOME": str(home), "RATA_CACHE_DIR": str(cache), **extra}

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def machine() -> dict[str, Any]:
    """bench/common.py's machine facts, with SQLite's version and all three load averages."""
    return {**common_machine(), "sqlite": sqlite3.sqlite_version, "loadavg_at_start": list(os.getloadavg())}


# --- an MCP client over stdio ----------------------------------------------------------------------


class Client(StdioClient):
    """One `rata mcp dev` process on pipes (bench/stdio_client.py's client), plus what these benchmarks ask of it."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr_path: Path) -> None:
        if not Path(argv[0]).is_file():
            wait_for(Path(argv[0]))
        super().__init__("rata mcp dev", argv, env, cwd, stderr_path)
        self.last_bytes = 0
        """The size of the last answer read, in bytes."""

    def fail(self, why: str) -> SystemExit:
        return self._fail(why)

    def line(self, timeout_s: float = 120.0) -> bytes:
        raw = super().line(timeout_s)
        self.last_bytes = len(raw)
        return raw

    def send(self, method: str, params: dict[str, Any] | None, *, modern: bool = True, notification: bool = False) -> int:
        request_id, data = self.encode(method, params, modern=modern, notification=notification)
        self.write(data)
        return request_id

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError") or not isinstance(result.get("structuredContent"), (dict, list)):
            raise self.fail(f"answered {tool} {arguments} with an error: {json.dumps(result)[:800]}")
        return result["structuredContent"]


def check_listed(client: Client, result: dict[str, Any]) -> None:
    names = {t.get("name") for t in result.get("tools", [])}
    if names != DEV_TOOLS:
        raise client.fail(f"listed {sorted(names)}, expected {sorted(DEV_TOOLS)}")


# --- the bytecode cache ----------------------------------------------------------------------------


def source_compiles(stderr: str) -> list[str]:
    """Modules a PYTHONVERBOSE child compiled from source (not read from the bytecode cache)."""
    return sorted({m.group(1) for m in re.finditer(r"^# code object from (/\S+\.py)$", stderr, re.MULTILINE)})


def verbose_session(scratch: Scratch, argv: list[str], env: dict[str, str], cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Run a server session with PYTHONVERBOSE=1 (tools/list, then `calls`); the files it compiled from source."""
    path = scratch.root / "verbose.stderr"
    client = Client(argv, {**env, "PYTHONVERBOSE": "1"}, cwd, path)
    try:
        check_listed(client, client.request("tools/list", {}))
        for tool, arguments in calls:
            client.call(tool, arguments)
    finally:
        client.kill()
    return source_compiles(path.read_text(errors="replace"))


def prime(scratch: Scratch, sessions: list[tuple[list[str], dict[str, str], Path, list[tuple[str, dict[str, Any]]]]]) -> dict[str, Any]:
    """Fill the private bytecode cache until a verbose session compiles nothing from source."""
    import rata

    package = Path(rata.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", str(package), str(CRM / "crm")], check=True, env=scratch.env, capture_output=True)
    extra: list[str] = []
    rounds = 0
    for rounds in range(1, 5):
        missing: set[str] = set()
        for argv, env, cwd, calls in sessions:
            missing.update(verbose_session(scratch, argv, env, cwd, calls))
        missing = {m for m in missing if not m.startswith(str(scratch.root))}  # the generated tiny app is imported with dont_write_bytecode
        if not missing:
            break
        extra.extend(sorted(missing))
        subprocess.run([sys.executable, "-m", "compileall", "-q", *sorted(missing)], check=True, env=scratch.env, capture_output=True)
    else:
        raise BenchError(f"the bytecode cache is still missing modules after {rounds} rounds: {sorted(missing)[:20]}")
    return {"rounds": rounds, "compiled_after_warm_up": len(extra), "examples": extra[:10]}


# --- 1. logs -------------------------------------------------------------------------------------

LOGGERS = ["crm", "crm.customers", "rata.mcp", "rata.mcp.stdio", "rata.dispatch", "rata.live", "rata.migrations"]
TOOLS_CALLED = ["customers_index", "customers_show", "customers_store", "customers_delete"]
FRAMES = [
    ('/home/dev/.venv/lib/python3.11/site-packages/rata/dispatch.py', 212, "call", "result = spec.fn(ctx, **arguments)"),
    ('/home/dev/.venv/lib/python3.11/site-packages/rata/mcp/methods/tools.py', 141, "call_tool", "value = self.app.dispatch(name, arguments, caller)"),
    ('/home/dev/.venv/lib/python3.11/site-packages/rata/app.py', 240, "dispatch", "return run(spec, ctx, arguments)"),
    ('/home/dev/crm/crm/app.py', 88, "customers_store", 'cursor = ctx.db.execute("INSERT INTO customers (name, email) VALUES (?, ?)", (name, email))'),
    ('/home/dev/crm/crm/app.py', 61, "_check", "raise ValidationErrors(errors)"),
    ('/home/dev/.venv/lib/python3.11/site-packages/rata/validation.py', 97, "validate", "checked = node.check(value, path)"),
]
ERRORS = [
    "sqlite3.IntegrityError: UNIQUE constraint failed: customers.email",
    "sqlite3.OperationalError: database is locked",
    "KeyError: 'email'",
    "ValueError: invalid literal for int() with base 10: 'abc'",
]


def traceback_text(rng: random.Random, frames: int) -> str:
    lines = ["Traceback (most recent call last):"]
    for _ in range(frames):
        path, line, fn, code = rng.choice(FRAMES)
        lines += [f'  File "{path}", line {line + rng.randint(0, 40)}, in {fn}', f"    {code}", "    " + "^" * min(len(code), 40)]
    lines.append(rng.choice(ERRORS))
    return "\n".join(lines)


def log_block(seed: int = 7) -> bytes:
    """LOG_BLOCK_LINES lines in rata's format (rata/logs.py) over one hour; the hour is a 13-byte placeholder."""
    rng = random.Random(seed)
    error_at = rng.randrange(LOG_BLOCK_LINES)
    out = []
    for i in range(LOG_BLOCK_LINES):
        seconds = i * 3600 / LOG_BLOCK_LINES
        ts = f"@@@@@@@@@@@@@:{int(seconds // 60):02d}:{int(seconds % 60):02d}.{int(seconds * 1000) % 1000:03d}+00:00"
        roll = rng.random()
        level = "ERROR" if i == error_at else "DEBUG" if roll < 0.08 else "WARNING" if roll < 0.14 else "INFO"
        logger = rng.choice(LOGGERS)
        tool = rng.choice(TOOLS_CALLED)
        entry: dict[str, Any] = {"ts": ts, "level": level, "logger": logger}
        extras: dict[str, Any] = {}
        if level == "ERROR":
            entry["message"] = f"tool {tool} failed"
            extras = {"request_id": rng.randrange(10**6), "tool": tool}
        elif logger.startswith("rata.mcp"):
            entry["message"] = f"tools/call {tool}"
            extras = {"client": rng.choice(["claude-code", "cursor", "vscode"]), "duration_ms": round(rng.uniform(0.2, 40), 2), "era": rng.choice(["modern", "legacy"]), "request_id": rng.randrange(10**6), "tool": tool}
        elif logger.startswith("crm"):
            entry["message"] = rng.choice(["customer added", "customer updated", "customer deleted", "customers listed"])
            extras = {"customer_id": rng.randrange(1, 5000)}
        elif logger == "rata.live":
            entry["message"] = "live query refreshed"
            extras = {"subscribers": rng.randrange(1, 4), "tables": ["customers"]}
        else:
            entry["message"] = rng.choice(["command finished", "migration checked", "rate limit hit", "slow statement"])
            extras = {"ms": round(rng.uniform(0.1, 200), 1)}
        entry.update(sorted(extras.items()))
        if level == "ERROR":
            entry["exception"] = traceback_text(rng, rng.randint(3, 12))
        elif level == "WARNING" and rng.random() < 0.05:
            entry["exception"] = traceback_text(rng, rng.randint(2, 5))
        out.append(json.dumps(entry, ensure_ascii=False))
    return ("\n".join(out) + "\n").encode()


def write_log(path: Path, size: int, block: bytes, start: dt.datetime) -> dict[str, Any]:
    """Whole blocks, one hour later each time, then the block's first MiB of lines: at least `size` bytes.

    Every log written here ends with the same lines (the first MiB of the block, dated later
    in a bigger file), so a 1 GiB and a 1 MiB log differ only in what lies before their tails.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tail = block.rfind(b"\n", 0, MIB) + 1
    full = -(-(size - tail) // len(block)) if size > len(block) else 0
    written = 0
    began = time.perf_counter()
    with open(path, "wb") as handle:
        for blocks in range(full + 1):
            hour = (start + dt.timedelta(hours=blocks)).strftime("%Y-%m-%dT%H").encode()
            data = block.replace(b"@@@@@@@@@@@@@", hour)
            handle.write(data if blocks < full else data[:tail])
            written += len(data) if blocks < full else tail
        handle.flush()
        write_s = time.perf_counter() - began
        os.fsync(handle.fileno())
    return {"bytes": written, "lines_per_block": LOG_BLOCK_LINES, "full_blocks": full, "tail_bytes": tail, "write_s": write_s, "write_and_fsync_s": time.perf_counter() - began}


def drop_from_page_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def resident_fraction(path: Path) -> float | None:
    """How much of the file's last 64 MiB is in the page cache (mincore through mmap), or None."""
    try:
        import ctypes
        import mmap

        size = path.stat().st_size
        offset = max(0, size - 64 * MIB) // mmap.PAGESIZE * mmap.PAGESIZE
        length = size - offset
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        fd = os.open(path, os.O_RDONLY)
        try:
            addr = libc.mmap(None, length, mmap.PROT_READ, mmap.MAP_SHARED, fd, offset)
            if addr in (None, ctypes.c_void_p(-1).value):
                return None
            pages = (length + mmap.PAGESIZE - 1) // mmap.PAGESIZE
            vec = (ctypes.c_ubyte * pages)()
            ok = libc.mincore(ctypes.c_void_p(addr), length, vec) == 0
            libc.munmap(ctypes.c_void_p(addr), length)
        finally:
            os.close(fd)
        return sum(b & 1 for b in vec) / pages if ok else None
    except Exception:  # noqa: BLE001 - a diagnostic only
        return None


def check_scan(scan: Any, limit: int, what: str) -> None:
    times = [e["ts"] for e in scan.entries]
    if times != sorted(times, reverse=True):
        raise BenchError(f"{what}: the entries are not newest first")
    if len(scan.entries) != limit and not scan.stopped_early:
        raise BenchError(f"{what}: {len(scan.entries)} entries, expected {limit}")


def scan_facts(scan: Any) -> dict[str, Any]:
    return {"entries": len(scan.entries), "scanned_bytes": scan.scanned_bytes, "stopped_early": scan.stopped_early, "files": scan.files}


def bench_logs_in_process(big_logs: Path, small_logs: Path, runs: int) -> dict[str, Any]:
    from rata.dev_server import logreader

    out: dict[str, Any] = {}
    # The two unfiltered reads alternate, so a busy moment on the machine falls on both alike.
    pairs = (("1gib", big_logs), ("1mib", small_logs))
    samples: dict[str, list[float]] = {label: [] for label, _ in pairs}
    scans: dict[str, Any] = {}
    for k in range(runs + 2):
        for label, logs in pairs if k % 2 == 0 else pairs[::-1]:
            start = time.perf_counter()
            scans[label] = logreader.read_entries(logs, "tiny", limit=50)
            if k >= 2:
                samples[label].append(time.perf_counter() - start)
    for label, _ in pairs:
        check_scan(scans[label], 50, f"read_entries on {label}")
        out[f"limit50_{label}"] = {**stats(samples[label]), **scan_facts(scans[label])}
    for label, logs in pairs:
        t, scan = timed(lambda logs=logs: logreader.read_entries(logs, "tiny", limit=1, min_level="ERROR"), max(5, runs // 3), warmups=1)
        out[f"last_error_{label}"] = {**t, **scan_facts(scan)}
        t, scan = timed(lambda logs=logs: logreader.read_entries(logs, "tiny", limit=50, min_level="ERROR"), 3, warmups=0)
        if any(e["level"] != "ERROR" for e in scan.entries):
            raise BenchError("the ERROR filter let another level through")
        out[f"errors50_{label}"] = {**t, **scan_facts(scan)}
    return out


def bench_logs_cold(big_logs: Path) -> dict[str, Any]:
    from rata.dev_server import logreader

    path = big_logs / "tiny.log"
    out: dict[str, Any] = {}
    for label, kwargs in (("limit50", {"limit": 50}), ("errors50", {"limit": 50, "min_level": "ERROR"})):
        drop_from_page_cache(path)
        resident = resident_fraction(path)
        start = time.perf_counter()
        scan = logreader.read_entries(big_logs, "tiny", **kwargs)
        out[label] = {"s": time.perf_counter() - start, "resident_before": resident, **scan_facts(scan)}
    return out


def profile_filtered(big_logs: Path) -> list[str]:
    """cProfile of the ERROR-filtered read (what the 64 MiB scan spends its time on)."""
    import cProfile
    import io
    import pstats

    from rata.dev_server import logreader

    profiler = cProfile.Profile()
    profiler.enable()
    logreader.read_entries(big_logs, "tiny", limit=50, min_level="ERROR")
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(8)
    return _profile_rows(text.getvalue())


def _profile_rows(text: str) -> list[str]:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("ncalls"):
            return [lines[j].rstrip().replace(str(ROOT) + "/", "") for j in range(i, len(lines)) if lines[j].strip()]
    return []


# --- 2. docs -------------------------------------------------------------------------------------

STOP = "the a to of and is in for with that it you on as this be are by or from an can when each not its your".split()
TECH = (
    "app command commands tool tools server client agent request response schema database table column index query queries "
    "migration migrations log logs error errors traceback live subscription resource resources token ability abilities grant "
    "confirm delete update create list show store customer customers email name field type types string integer number boolean "
    "optional default value values argument arguments return returns async function functions decorator module package project "
    "folder file files path config configuration setting settings environment variable install version release test tests "
    "fixture mock transport stdio http session connection cursor row rows transaction commit rollback sqlite wal journal cache "
    "cached index indexed search ranking snippet heading anchor link markdown docs documentation example examples tutorial guide "
    "reference api cli option options flag flags output input json validation validate validator middleware rate limit limits "
    "timeout retry backoff event events listener listeners notify notification frontend backend ui window desktop tauri web "
    "protocol era legacy modern envelope capability capabilities inspect codegen catalog surface lint rule rules warning "
    "deploy build bundle wheel dependency dependencies upgrade downgrade performance latency throughput memory startup cold "
    "warm benchmark profile thread threads worker workers lock blocking queue message messages line lines byte bytes encoding"
).split()


def vocabulary(seed: int = 11, size: int = 6_000) -> tuple[list[str], list[float]]:
    """Stop words, then technical words, then invented words; Zipf weights (1/rank)."""
    rng = random.Random(seed)
    onsets = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cr", "st", "tr", "pl", "gr", "sh", "ch"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ou", "ea"]
    codas = ["", "n", "r", "s", "t", "l", "x", "nd", "rk", "st"]
    words = list(dict.fromkeys(STOP + TECH))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(1, 3))) + rng.choice(codas)
        if word not in seen and len(word) > 2:
            seen.add(word)
            words.append(word)
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    cumulative, total = [], 0.0
    for w in weights:
        total += w
        cumulative.append(total)
    return words, cumulative


def write_corpus(root: Path, pages: int, seed: int = 3) -> dict[str, Any]:
    """`pages` Markdown pages in 100 folders: a title, 3-8 sections (## and ###), paragraphs, lists, code fences."""
    words, cum = vocabulary()
    rng = random.Random(seed)
    pool = rng.choices(words, cum_weights=cum, k=1 << 21)  # drawn once (Zipf), read in runs from random places
    at = [0]

    def text(n: int) -> list[str]:
        if at[0] + n > len(pool):
            at[0] = rng.randrange(1 << 16)
        at[0] += n
        return pool[at[0] - n : at[0]]

    def sentence() -> str:
        chosen = text(rng.randint(6, 18))
        return chosen[0].capitalize() + " " + " ".join(chosen[1:]) + rng.choice([".", ".", ".", "?", ":"])

    def paragraph() -> str:
        return " ".join(sentence() for _ in range(rng.randint(2, 5)))

    def code() -> list[str]:
        lines = ["```python"]
        for _ in range(rng.randint(3, 10)):
            a, b, c, d = text(4)
            lines.append(rng.choice([f"{a}_{b} = {c}.{d}({rng.randint(0, 99)})", f"def {a}_{b}(ctx: Ctx, {c}: str) -> {d.capitalize()}:", f"    return {a}[{b!r}]", f"# {a} {b} {c} {d}"]))
        return lines + ["```"]

    total = 0
    began = time.perf_counter()
    for i in range(pages):
        folder = root / f"area-{i // 100:02d}"
        if i % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# {' '.join(w.capitalize() for w in text(rng.randint(2, 5)))}", "", paragraph(), ""]
        for _ in range(rng.randint(3, 8)):
            lines += [f"{rng.choice(['##', '##', '###'])} {' '.join(text(rng.randint(1, 5))).capitalize()}", ""]
            for _ in range(rng.randint(1, 3)):
                lines += [paragraph(), ""]
            if rng.random() < 0.3:
                lines += code() + [""]
            if rng.random() < 0.2:
                lines += [f"- {' '.join(text(rng.randint(3, 9)))}" for _ in range(rng.randint(2, 6))] + [""]
        data = "\n".join(lines)
        (folder / f"page-{i:05d}.md").write_text(data, encoding="utf-8")
        total += len(data.encode())
    return {"pages": pages, "bytes": total, "write_s": time.perf_counter() - began, "words": words}


def make_queries(words: list[str], seed: int = 5) -> list[str]:
    """104 queries: common and rare single words, two and three words, questions with stop words, a miss."""
    rng = random.Random(seed)
    tech = [w for w in TECH if w in words]
    queries = [rng.choice(tech) for _ in range(22)]
    queries += [words[rng.randrange(300, len(words))] for _ in range(22)]
    queries += [f"{rng.choice(tech)} {rng.choice(tech)}" for _ in range(22)]
    queries += [f"{rng.choice(tech)} {words[rng.randrange(40, 1500)]} {rng.choice(tech)}" for _ in range(18)]
    queries += [f"how do I {rng.choice(tech)} the {rng.choice(tech)}" for _ in range(10)]
    queries += [f"{rng.choice(STOP)} {rng.choice(tech)}" for _ in range(8)]
    queries += ["zzqxnotaword", "the"]  # nothing matches; the word in almost every section
    return queries


def bench_docs(scratch: Scratch, pages: int, queries_only: bool = False) -> dict[str, Any]:
    from rata.dev_server.docs_index import DocsIndex

    corpus = scratch.root / "docs"
    cache = scratch.root / "docs-cache"
    say(f"  writing {pages:,} Markdown pages ...")
    made = write_corpus(corpus, pages)
    words = made.pop("words")
    out: dict[str, Any] = {"corpus": made}

    say("  first index build ...")
    index = DocsIndex([("project", corpus)], location=cache)
    start = time.perf_counter()
    counts = index.refresh()
    out["build_s"] = time.perf_counter() - start
    if counts != (pages, 0):
        raise BenchError(f"the first build indexed {counts}, expected ({pages}, 0)")
    conn = sqlite3.connect(index.path)
    out["sections"] = conn.execute("SELECT count(*) FROM sections").fetchone()[0]
    conn.close()
    out["index_bytes"] = index.path.stat().st_size

    noop, _ = timed(index.refresh, 6, warmups=1)
    out["refresh_no_change"] = noop

    say("  re-index after one change ...")
    reindex, search_after = [], []
    files = sorted(corpus.glob("area-*/page-*.md"))
    rng = random.Random(9)
    for k in range(4):
        for mode in ("refresh", "search"):
            path = files[rng.randrange(len(files))]
            marker = f"qqmarker{k}{mode}"
            path.write_text(path.read_text(encoding="utf-8") + f"\n## Changed {marker}\n\nNow it mentions {marker} too.\n", encoding="utf-8")
            stat = path.stat()
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**10))
            start = time.perf_counter()
            if mode == "refresh":
                counts = index.refresh()
                reindex.append(time.perf_counter() - start)
                if counts != (1, 0):
                    raise BenchError(f"refresh after one change re-indexed {counts}")
            else:
                index._refreshed_at = None  # as when the last look at the files is older than REFRESH_INTERVAL
                start = time.perf_counter()
                hits = index.search([marker], count=8)
                search_after.append(time.perf_counter() - start)
                if not hits or marker not in hits[0].heading.lower():
                    raise BenchError(f"search did not find the changed section {marker}")
    out["reindex_one_refresh"] = stats(reindex)
    out["reindex_one_search"] = stats(search_after)

    say("  queries ...")
    queries = make_queries(words)
    for q in queries[:2]:
        index.search([q], count=8)
    samples, hit_counts = [], []
    for q in queries:
        start = time.perf_counter()
        hits = index.search([q], count=8)  # the first 8 hits, as an agent's first look shows about
        samples.append(time.perf_counter() - start)
        hit_counts.append(len(hits))
    out["queries"] = len(queries)
    out["query_search"] = stats(samples)
    out["query_hits"] = {"with_hits": sum(1 for h in hit_counts if h), "median_hits": statistics.median(hit_counts)}
    out["slowest_queries"] = sorted(((s * 1000, q) for s, q in zip(samples, queries)), reverse=True)[:5]

    # The same queries with the per-search refresh skipped: the FTS5 query alone.
    bare = DocsIndex([("project", corpus)], location=cache)
    bare.refresh = lambda: (0, 0)  # type: ignore[method-assign]
    samples = []
    for q in queries:
        start = time.perf_counter()
        bare.search([q], count=8)
        samples.append(time.perf_counter() - start)
    out["query_fts_only"] = stats(samples)

    # An agent's call with three queries at once.
    rng = random.Random(13)
    triples = [rng.sample(queries, 3) for _ in range(8)]
    samples = []
    for triple in triples:
        start = time.perf_counter()
        index.search(triple, count=24)
        samples.append(time.perf_counter() - start)
    out["query_search_3"] = stats(samples)

    out["profiles"] = {"refresh_no_change": _profile(index.refresh), "reindex_one": _profile(lambda: _touch_and_refresh(index, files[1]))}
    return out


def _touch_and_refresh(index: Any, path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2 * 10**10))
    index.refresh()


def _profile(fn: Any, rows: int = 8) -> list[str]:
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(rows)
    return _profile_rows(text.getvalue())


# --- 3. schema -----------------------------------------------------------------------------------

COLUMN_TYPES = [
    "TEXT NOT NULL", "TEXT", "INTEGER", "INTEGER NOT NULL DEFAULT 0", "REAL", "NUMERIC DEFAULT 0", "BLOB",
    "TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP", "TEXT DEFAULT 'new'", "INTEGER DEFAULT 1",
]


def write_database(path: Path, tables: int, seed: int = 17) -> dict[str, Any]:
    """`tables` tables of 5-12 columns, ~40% with foreign keys, 0-3 indexes each, 2-8 rows; 20 views, 10 triggers."""
    words, _ = vocabulary()
    rng = random.Random(seed)
    nouns = [w for w in words[len(STOP):] if w.isidentifier()]
    names: list[str] = []
    while len(names) < tables:
        name = f"{rng.choice(nouns)}_{rng.choice(['items', 'records', 'events', 'links', 'notes', 'logs', 'entries'])}"
        if name not in names:
            names.append(name)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    indexes = fks = 0
    began = time.perf_counter()
    with conn:
        for i, name in enumerate(names):
            columns = ["id INTEGER PRIMARY KEY"]
            plain: list[str] = []
            if i > 0 and rng.random() < 0.4:
                for ref in rng.sample(names[:i], min(i, rng.randint(1, 2))):
                    columns.append(f"{ref}_id INTEGER REFERENCES {ref}(id) ON DELETE {rng.choice(['CASCADE', 'SET NULL', 'NO ACTION'])}")
                    fks += 1
            for c in range(rng.randint(5, 12) - len(columns)):
                column = f"{rng.choice(nouns)}_{c}"
                plain.append(column)
                columns.append(f"{column} {rng.choice(COLUMN_TYPES)}")
            while len(columns) < 5:
                columns.append(f"extra_{len(columns)} TEXT")
            conn.execute(f"CREATE TABLE {name} ({', '.join(columns)})")
            for k in range(rng.randint(0, 3)):
                if not plain:
                    break
                cols = rng.sample(plain, min(len(plain), rng.randint(1, 2)))
                conn.execute(f"CREATE {'UNIQUE ' if rng.random() < 0.2 else ''}INDEX {name}_ix{k} ON {name} ({', '.join(cols)})")
                indexes += 1
            count = len(columns)
            for r in range(rng.randint(2, 8)):
                conn.execute(f"INSERT INTO {name} VALUES ({', '.join('?' * count)})", [r + 1] + [f"v{r}-{j}" for j in range(count - 1)])
        for v in range(20):
            a = names[v * 7]
            conn.execute(f"CREATE VIEW view_{v} AS SELECT * FROM {a} WHERE id > {v}")
        for t in range(10):
            a, b = names[t * 11], names[t * 11 + 1]
            conn.execute(f"CREATE TRIGGER trigger_{t} AFTER DELETE ON {a} BEGIN DELETE FROM {b} WHERE id = old.id; END")
    conn.close()
    return {"tables": tables, "indexes": indexes, "foreign_keys": fks, "views": 20, "triggers": 10, "bytes": path.stat().st_size, "write_s": time.perf_counter() - began}


def bench_schema_in_process(path: Path, runs: int) -> dict[str, Any]:
    from rata.dev_server import database

    def call(summary: bool) -> dict[str, Any]:
        conn = database.connect_read_only(path)
        try:
            return database.schema(conn, summary=summary)
        finally:
            conn.close()

    out: dict[str, Any] = {}
    for label, summary in (("full", False), ("summary", True)):
        t, found = timed(lambda summary=summary: call(summary), runs)
        if len(found["tables"]) != TABLES:
            raise BenchError(f"schema listed {len(found['tables'])} tables, expected {TABLES}")
        out[label] = {**t, "json_bytes": len(json.dumps(found))}
    out["profile_full"] = _profile(lambda: call(False))
    return out


# --- the real server: logs and schema ------------------------------------------------------------

TINY_APP = '''"""A tiny app for the dev server benchmark: its folder (RATA_HOME) holds the big log and database."""

from rata import App

app = App("tiny", identifier="dev.rata.bench.tiny", version="1.0.0")
'''


def follow_schema(client: Client, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every part of the schema, following next_after from the first (each answer is cut to the server's token budget)."""
    start = time.perf_counter()
    tables, parts, after = 0, 0, ""
    while after is not None:
        content = client.call("database_schema", {**arguments, **({"after": after} if after else {})})
        tables, parts, after = tables + len(content["tables"]), parts + 1, content["next_after"]
    if tables != TABLES:
        raise client.fail(f"listed {tables} tables in {parts} parts")
    return {"parts": parts, "follow_s": time.perf_counter() - start}


def bench_server_tools(scratch: Scratch, project: Path, homes: dict[str, Path], runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    argv = [str(BIN / "rata"), "mcp", "dev", "--app", str(project / "tiny.py")]
    for label, home in homes.items():
        client = Client(argv, scratch.env_for(home, scratch.root / "cache-server"), project, scratch.root / f"server-{label}.stderr")
        try:
            check_listed(client, client.request("tools/list", {}))
            rows: dict[str, Any] = {}
            cases: list[tuple[str, str, dict[str, Any], int]] = [
                ("read_log_entries_50", "read_log_entries", {"limit": 50}, runs),
                ("last_error", "last_error", {}, max(5, runs // 2)),
                ("read_log_entries_50_errors", "read_log_entries", {"limit": 50, "level": "ERROR"}, 3),
            ]
            if label == "1gib":
                cases += [("database_schema_full", "database_schema", {}, 5), ("database_schema_summary", "database_schema", {"summary": True}, 5)]
            for name, tool, arguments, count in cases:
                content = client.call(tool, arguments)  # untimed: the first call also loads the app
                samples = []
                for _ in range(count):
                    start = time.perf_counter()
                    content = client.call(tool, arguments)
                    samples.append(time.perf_counter() - start)
                row: dict[str, Any] = {**stats(samples), "answer_bytes": client.last_bytes}
                if tool == "read_log_entries":
                    if name == "read_log_entries_50" and len(content["entries"]) != 50:
                        raise client.fail(f"returned {len(content['entries'])} entries, expected 50")
                    row.update(entries=len(content["entries"]), scanned_bytes=content["scanned_bytes"], stopped_early=content["stopped_early"])
                elif tool == "database_schema":
                    row.update(follow_schema(client, arguments))
                elif tool == "last_error" and content.get("entry") is None and label == "1gib":
                    raise client.fail(f"found no error: {content}")
                rows[name] = row
            out[label] = rows
        finally:
            client.kill()
    return out


# --- 4. cold start -------------------------------------------------------------------------------


def wait_for(path: Path, timeout_s: float = 30.0) -> None:
    """A console script can vanish for a moment while something reinstalls the package (pip install -e)."""
    deadline = time.monotonic() + timeout_s
    while not path.is_file():
        if time.monotonic() > deadline:
            raise BenchError(f"{path} does not exist; run this with the venv's python (.venv/bin/python) after pip install -e .")
        time.sleep(0.2)


def cold_once(scratch: Scratch, argv: list[str], env: dict[str, str], legacy: bool) -> float:
    wait_for(Path(argv[0]))
    client = Client(argv, env, CRM, scratch.root / "cold.stderr")
    try:
        if legacy:
            init = client.request("initialize", LEGACY_INIT, modern=False)
            if init.get("protocolVersion") != "2025-11-25":
                raise client.fail(f"answered initialize with {init.get('protocolVersion')!r}")
            client.send("notifications/initialized", None, modern=False, notification=True)
            listed = client.request("tools/list", {}, modern=False)
        else:
            listed = client.request("tools/list", {})
        wall = time.perf_counter() - client.started
        check_listed(client, listed)
    finally:
        client.kill()
    return wall


def floor_once(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    return time.perf_counter() - start


PHASES = r"""
import time
t0 = time.perf_counter()
import json, sys
from pathlib import Path
from rata.dev_server.serve import dev_server
t1 = time.perf_counter()
out = []
app_server = dev_server(None, Path.cwd(), out.append)
t2 = time.perf_counter()
line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": %r}}).encode() + b"\n"
app_server.server.receive(line)
while not out:
    time.sleep(0.0001)
t3 = time.perf_counter()
assert b'"tools"' in out[0]
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "tools_list_s": t3 - t2, "answer_bytes": len(out[0]), "modules": len(sys.modules)}))
app_server.server.close()
""" % (META,)

PROFILE_BUILD = r"""
import cProfile, io, json, pstats, sys, time
from pathlib import Path
from rata.dev_server.serve import dev_server
out = []
line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": %r}}).encode() + b"\n"
profiler = cProfile.Profile()
profiler.enable()
app_server = dev_server(None, Path.cwd(), out.append)
app_server.server.receive(line)
while not out:
    time.sleep(0.0001)
profiler.disable()
text = io.StringIO()
pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(14)
print(text.getvalue())
app_server.server.close()
""" % (META,)


def importtime(scratch: Scratch, argv: list[str], env: dict[str, str], runs: int = 5) -> dict[str, Any]:
    """Server starts with -X importtime (PYTHONPROFILEIMPORTTIME): per-module medians over `runs` starts."""
    path = scratch.root / "importtime.stderr"
    per_run: list[dict[str, tuple[int, int, int]]] = []
    for _ in range(runs):
        client = Client(argv, {**env, "PYTHONPROFILEIMPORTTIME": "1"}, CRM, path)
        try:
            check_listed(client, client.request("tools/list", {}))
        finally:
            client.kill()
        rows: dict[str, tuple[int, int, int]] = {}
        for line in path.read_text(errors="replace").splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
            if m:
                rows[m.group(4)] = (int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2)
        per_run.append(rows)
    names = set(per_run[0]).intersection(*per_run[1:])
    med = {n: (statistics.median(r[n][0] for r in per_run), statistics.median(r[n][1] for r in per_run), per_run[0][n][2]) for n in names}
    groups: dict[str, float] = {}
    for name, (self_us, _, _) in med.items():
        parts = name.split(".")
        key = ".".join(parts[:2]) if parts[0] == "rata" else parts[0]
        groups[key] = groups.get(key, 0) + self_us
    return {
        "runs": runs,
        "modules": len(per_run[0]),
        "total_self_ms": statistics.median(sum(v[0] for v in r.values()) for r in per_run) / 1000,
        "top_cumulative": [
            {"module": n, "depth": d, "cumulative_ms": c / 1000, "self_ms": s_ / 1000}
            for n, (s_, c, d) in sorted(med.items(), key=lambda kv: -kv[1][1])[:20]
        ],
        "top_self": [{"module": n, "self_ms": s_ / 1000} for n, (s_, _, _) in sorted(med.items(), key=lambda kv: -kv[1][0])[:15]],
        "by_package_self_ms": dict(sorted(((k, v / 1000) for k, v in groups.items()), key=lambda kv: -kv[1])[:14]),
    }


def bench_cold(scratch: Scratch, home: Path, cache: Path, runs: int, warmups: int) -> dict[str, Any]:
    argv = [str(BIN / "rata"), "mcp", "dev"]
    env = scratch.env_for(home, cache)
    for _ in range(warmups):
        cold_once(scratch, argv, env, False)
        cold_once(scratch, argv, env, True)
        floor_once(scratch.env)
    modern, legacy, floor = [], [], []
    for _ in range(runs):  # alternate, so drift on the machine falls on all three alike
        modern.append(cold_once(scratch, argv, env, False))
        legacy.append(cold_once(scratch, argv, env, True))
        floor.append(floor_once(scratch.env))
    phases = []
    for _ in range(7):
        done = subprocess.run([sys.executable, "-c", PHASES], env=env, cwd=CRM, capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchError(f"the phase breakdown failed:\n{done.stderr[-2000:]}")
        phases.append(json.loads(done.stdout.strip().splitlines()[-1]))
    done = subprocess.run([sys.executable, "-c", PROFILE_BUILD], env=env, cwd=CRM, capture_output=True, text=True)
    profile = _profile_rows(done.stdout)[:16] if done.returncode == 0 else [done.stderr[-500:]]
    return {
        "command": "cd examples/crm && .venv/bin/rata mcp dev",
        "runs": runs,
        "warmups": warmups,
        "modern": stats(modern),
        "legacy": stats(legacy),
        "python_c_pass": stats(floor),
        "phases_median_s": {k: statistics.median(p[k] for p in phases) for k in ("import_s", "build_s", "tools_list_s")},
        "modules_loaded": phases[0]["modules"],
        "tools_list_bytes": phases[0]["answer_bytes"],
        "importtime": importtime(scratch, argv, env),
        "profile_build_and_list": profile,
    }


# --- report --------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    value = seconds * 1000
    return f"{value:.0f} ms" if value >= 100 else f"{value:.1f} ms" if value >= 1 else f"{value:.2f} ms"


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def render(r: dict[str, Any]) -> str:
    lg, srv, docs, db, cold = r["logs"], r["server_tools"], r["docs"], r["schema"], r["cold"]
    big, small = lg["limit50_1gib"], lg["limit50_1mib"]
    ratio = big["median"] / small["median"]
    rows = [
        ("read_log_entries limit 50, 1 GiB log, in process (median of %d)" % big["n"], ms(big["median"]), "< 50 ms", verdict(big["median"] * 1000 < TARGETS["log_1gib_ms"])),
        ("read_log_entries limit 50, 1 MiB log, in process (median of %d)" % small["n"], ms(small["median"]), "", ""),
        ("1 GiB / 1 MiB", f"{ratio:.2f}x", "<= 2x", verdict(ratio <= TARGETS["log_ratio"])),
        ("read_log_entries limit 50, 1 GiB, page cache dropped (1 run)", ms(lg["cold"]["limit50"]["s"]), "", ""),
        ("tools/call read_log_entries limit 50, 1 GiB, real server (median of %d)" % srv["1gib"]["read_log_entries_50"]["n"], ms(srv["1gib"]["read_log_entries_50"]["median"]), "", ""),
        ("tools/call read_log_entries limit 50, 1 MiB, real server (median of %d)" % srv["1mib"]["read_log_entries_50"]["n"], ms(srv["1mib"]["read_log_entries_50"]["median"]), "", ""),
        (
            "level ERROR limit 50 (1 line in 10,000), 1 GiB, in process (median of %d): %d found, %d MiB scanned%s"
            % (lg["errors50_1gib"]["n"], lg["errors50_1gib"]["entries"], lg["errors50_1gib"]["scanned_bytes"] // MIB, ", stopped at the budget" if lg["errors50_1gib"]["stopped_early"] else ""),
            ms(lg["errors50_1gib"]["median"]), "", "",
        ),
        ("the same, page cache dropped (1 run)", ms(lg["cold"]["errors50"]["s"]), "", ""),
        ("the same through the real server (median of %d)" % srv["1gib"]["read_log_entries_50_errors"]["n"], ms(srv["1gib"]["read_log_entries_50_errors"]["median"]), "", ""),
        (
            "last_error (ERROR, limit 1), 1 GiB, in process: %.1f MiB scanned" % (lg["last_error_1gib"]["scanned_bytes"] / MIB),
            ms(lg["last_error_1gib"]["median"]), "", "",
        ),
        ("tools/call last_error, 1 GiB, real server", ms(srv["1gib"]["last_error"]["median"]), "", ""),
        (f"search_docs: first index build, {docs['corpus']['pages']:,} pages ({docs['corpus']['bytes'] / MIB:.0f} MiB, {docs['sections']:,} sections)", f"{docs['build_s']:.1f} s", "< 60 s", verdict(docs["build_s"] < TARGETS["docs_build_s"])),
        ("re-index after one file changed: refresh() (median of %d, max %s)" % (docs["reindex_one_refresh"]["n"], ms(docs["reindex_one_refresh"]["max"])), ms(docs["reindex_one_refresh"]["median"]), "< 0.5 s", verdict(docs["reindex_one_refresh"]["median"] < TARGETS["docs_reindex_s"])),
        ("re-index after one file changed: whole search() call (median of %d, max %s)" % (docs["reindex_one_search"]["n"], ms(docs["reindex_one_search"]["max"])), ms(docs["reindex_one_search"]["median"]), "< 0.5 s", verdict(docs["reindex_one_search"]["median"] < TARGETS["docs_reindex_s"])),
        ("refresh() with nothing changed (every search runs it; median)", ms(docs["refresh_no_change"]["median"]), "", ""),
        (f"search() p50, {docs['queries']} queries, one per call", ms(docs["query_search"]["median"]), "< 20 ms", verdict(docs["query_search"]["median"] * 1000 < TARGETS["docs_query_p50_ms"])),
        (f"search() p99", ms(docs["query_search"]["p99"]), "", ""),
        ("FTS5 query alone (refresh skipped) p50 / p99", f"{ms(docs['query_fts_only']['median'])} / {ms(docs['query_fts_only']['p99'])}", "", ""),
        ("search() with 3 queries per call, p50 / p99", f"{ms(docs['query_search_3']['median'])} / {ms(docs['query_search_3']['p99'])}", "", ""),
        (f"database_schema full, {TABLES} tables, in process (median of {db['full']['n']}; {db['full']['json_bytes'] / 1000:.0f} kB JSON)", ms(db["full"]["median"]), "", ""),
        (f"database_schema summary, in process (median of {db['summary']['n']})", ms(db["summary"]["median"]), "", ""),
        (f"tools/call database_schema full, real server: the first part (median of {srv['1gib']['database_schema_full']['n']}; {srv['1gib']['database_schema_full']['answer_bytes'] / 1000:.0f} kB answer)", ms(srv["1gib"]["database_schema_full"]["median"]), "", ""),
        (f"tools/call database_schema full, real server: all {srv['1gib']['database_schema_full']['parts']} parts, following next_after", ms(srv["1gib"]["database_schema_full"]["follow_s"]), "", ""),
        ("tools/call database_schema summary, real server", ms(srv["1gib"]["database_schema_summary"]["median"]), "", ""),
        (f"cold start, 2026-07-28 tools/list first (median of {cold['runs']}; min {ms(cold['modern']['min'])}, max {ms(cold['modern']['max'])})", ms(cold["modern"]["median"]), "< 150 ms", verdict(cold["modern"]["median"] * 1000 < TARGETS["cold_start_ms"])),
        (f"cold start, 2025-11-25 initialize + tools/list (median; min {ms(cold['legacy']['min'])}, max {ms(cold['legacy']['max'])})", ms(cold["legacy"]["median"]), "< 150 ms", verdict(cold["legacy"]["median"] * 1000 < TARGETS["cold_start_ms"])),
        (f"python -c pass (median; min {ms(cold['python_c_pass']['min'])})", ms(cold["python_c_pass"]["median"]), "", ""),
    ]
    lines = ["| measurement | figure | target | |", "|---|---:|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    ph = cold["phases_median_s"]
    it = cold["importtime"]
    lines += [
        "",
        f"Cold start, in process (median of 7): imports {ms(ph['import_s'])}, building the dev app and its catalog {ms(ph['build_s'])}, "
        f"answering tools/list {ms(ph['tools_list_s'])}; {cold['modules_loaded']} modules loaded. "
        f"-X importtime: {it['modules']} imports, {it['total_self_ms']:.1f} ms in total.",
        "",
        "Top imports by cumulative time (median of %d starts): " % it["runs"]
        + ", ".join(f"{e['module']} {e['cumulative_ms']:.1f} ms" for e in it["top_cumulative"][:14]) + ".",
        "",
        "Import time by package (self): " + ", ".join(f"{k} {v:.1f} ms" for k, v in list(it["by_package_self_ms"].items())[:10]) + ".",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmarks of `rata mcp dev` on big logs, docs and schemas, and its cold start.")
    parser.add_argument("--log-bytes", type=int, default=GIB, help="size of the big log (default 1 GiB)")
    parser.add_argument("--pages", type=int, default=DOC_PAGES, help="Markdown pages in the docs corpus (default 10,000)")
    parser.add_argument("--runs", type=int, default=60, help="in-process runs of the unfiltered log read, each size (default 60)")
    parser.add_argument("--server-runs", type=int, default=15, help="timed tools/call round trips of read_log_entries (default 15)")
    parser.add_argument("--cold-runs", type=int, default=25, help="measured cold starts per era (default 25)")
    parser.add_argument("--cold-warmups", type=int, default=3, help="untimed cold-start rounds first (default 3)")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/dev-latest.json")
    args = parser.parse_args()

    started = time.perf_counter()
    scratch = Scratch()
    results: dict[str, Any] = {
        "when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([".venv/bin/python", "bench/dev_bench.py", *sys.argv[1:]]),
        "machine": machine(),
        "git": git_state(),
        "targets": TARGETS,
    }
    sections: dict[str, float] = {}
    results["section_s"] = sections
    mark = time.perf_counter()

    def done(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        sections[name] = round(now - mark, 1)
        results["machine"].setdefault("loadavg_1min_after_section", {})[name] = os.getloadavg()[0]
        say(f"  ({name}: {now - mark:.1f} s, load {os.getloadavg()[0]:.2f})")
        mark = now

    try:
        # The folders: the tiny app's project, its homes (big and small log, the big schema), crm's home.
        project = scratch.root / "tiny-project"
        project.mkdir()
        (project / "tiny.py").write_text(TINY_APP, encoding="utf-8")
        home_big, home_small = scratch.root / "home-1gib", scratch.root / "home-1mib"
        crm_home = scratch.root / "crm-home"

        say(f"logs: writing a {args.log_bytes / GIB:.2f} GiB and a 1 MiB log ...")
        block = log_block()
        start = dt.datetime(2026, 10, 1, tzinfo=dt.timezone.utc)
        results["log_files"] = {
            "1gib": write_log(home_big / "logs" / "tiny.log", args.log_bytes, block, start),
            "1mib": write_log(home_small / "logs" / "tiny.log", MIB, block, start),
            "block_bytes": len(block),
            "mean_line_bytes": len(block) / LOG_BLOCK_LINES,
        }
        say("schema: writing the 500-table database ...")
        results["database"] = write_database(home_big / "app.db", TABLES)
        shutil.copy(home_big / "app.db", home_small / "app.db")
        wait_for(BIN / "rata")
        subprocess.run([str(BIN / "rata"), "migrate"], cwd=CRM, env=scratch.env_for(crm_home, scratch.root / "cache-migrate"), check=True, capture_output=True)
        done("write logs and database")

        say("priming the bytecode cache ...")
        tiny = [str(BIN / "rata"), "mcp", "dev", "--app", str(project / "tiny.py")]
        every_tool = [
            ("app_info", {}), ("list_commands", {}), ("migration_status", {}), ("database_schema", {"summary": True}),
            ("database_query", {"sql": "SELECT 1"}), ("last_error", {}), ("read_log_entries", {"limit": 5}), ("search_docs", {"queries": ["live"]}),
        ]
        results["bytecode_cache"] = prime(
            scratch,
            [
                ([str(BIN / "rata"), "mcp", "dev"], scratch.env_for(crm_home, scratch.root / "cache-prime"), CRM, every_tool),
                (tiny, scratch.env_for(home_small, scratch.root / "cache-prime"), project, every_tool),
            ],
        )
        done("prime")

        say("logs: in process ...")
        results["logs"] = bench_logs_in_process(home_big / "logs", home_small / "logs", args.runs)
        results["logs"]["cold"] = bench_logs_cold(home_big / "logs")
        results["logs"]["profile_errors50_1gib"] = profile_filtered(home_big / "logs")
        done("logs in process")

        say("schema: in process ...")
        results["schema"] = bench_schema_in_process(home_big / "app.db", 10)
        done("schema in process")

        say("logs and schema through the real server ...")
        results["server_tools"] = bench_server_tools(scratch, project, {"1gib": home_big, "1mib": home_small}, args.server_runs)
        done("server tools")
        for path in (home_big / "logs" / "tiny.log",):
            path.unlink()  # the big file goes as soon as it is no longer needed

        say("docs:")
        results["docs"] = bench_docs(scratch, args.pages)
        done("docs")

        say(f"cold start: {args.cold_warmups} untimed rounds, then {args.cold_runs} runs each of both eras and python -c pass ...")
        results["cold"] = bench_cold(scratch, crm_home, scratch.root / "cache-cold", args.cold_runs, args.cold_warmups)
        done("cold start")
    finally:
        scratch.close()
    results["machine"]["loadavg_at_end"] = list(os.getloadavg())
    results["elapsed_s"] = time.perf_counter() - started
    print(render(results))
    say(f"(took {results['elapsed_s']:.0f} s: " + ", ".join(f"{k} {v:.0f} s" for k, v in sections.items()) + ")")
    say(f"load average at start {results['machine']['loadavg_at_start']}, at end {results['machine']['loadavg_at_end']}")
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "dev-latest.json").write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        say("wrote bench/results/dev-latest.json")


if __name__ == "__main__":
    main()
