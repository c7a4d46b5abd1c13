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
5. server (bench/server_bench.py): the crm app as an MCP server on stdio (``crm --mcp``)
   against the same surface on FastMCP (bench/fastmcp_crm.py) and on the SDK's MCPServer
   (bench/sdk_crm.py): cold start, spawn to the first tools/list answered, alternating; then
   2,000 sequential tools/call round trips on one connection each (rata: bench/rata_crm.py,
   the app without its rate limit), with p50/p99 latency and each server's peak RSS (through
   bench/spawn.py).

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
import subprocess
import sys
import time
from typing import Any

from common import (
    BENCH,
    BIN,
    CRM_RESOURCES,
    CRM_TOOLS,
    RESULTS,
    ROOT,
    BenchError,
    Scratch,
    _mb,
    _s,
    _shape,
    _shown,
    _x,
    git_state,
    machine,
    rows_summary,
    run_child,
)
from server_bench import bench_server, render_server

INSPECT_TARGET_S = 0.5
SMALL = 128  # VS Code's tool limit: the largest surface an agent client takes whole
CODEGEN_TARGET_S = 1.0


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


# --- report --------------------------------------------------------------------------------


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
        lines += render_server(results["server"])
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
        choices=("customers_index", "customers_show", "customers_store"),
        default="customers_index",
        help="the tool called in the throughput run (default customers_index, also run by the SQL floor, bench/sql_floor.py)",
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
