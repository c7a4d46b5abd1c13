"""Benchmark 3: turning N generated command functions into tools/list JSON, in one process.

    .venv/bin/python bench/codegen_bench.py --peer rata --count 1000 --repeat 5

Run once per peer, each in its own process (bench/run.py does that). The framework is
imported first and not timed. The generated module (bench/gen_commands.py) is compiled once,
untimed, the way an installed app's .pyc is; then each repetition, in a fresh module, times:

- ``exec``: running the module body (defining the functions and dataclasses; for rata,
  applying ``@command``);
- ``register``: rata ``build_app()`` (``App.commands`` reads every signature into type nodes);
  FastMCP ``server.tool(fn)`` per function; SDK ``MCPServer.add_tool(fn)`` per function;
- ``schemas``: rata ``build_catalog(app)``; FastMCP / SDK ``await server.list_tools()``
  (FastMCP's includes its default $ref-inlining middleware);
- ``json``: rata ``catalog_json(catalog)`` (tools, resources and every command's schemas);
  FastMCP / SDK the listed tools dumped to MCP wire dicts (``by_alias``, ``exclude_none``)
  and ``json.dumps(..., indent=2)``.

``total`` is the sum of the four; ``cpu`` is the process's CPU time over the same span (less
sensitive to other load on the machine than wall time). ``tools_json`` is reported beside it,
not in it: for rata the time to write ``{"tools": [...]}`` alone (what the peers' ``json``
phase writes), for the peers their ``json`` phase again.

One warm-up repetition with a small module (50 commands, another seed) runs first, so lazy
imports inside the framework are not counted. Prints one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import resource
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_commands import generate  # noqa: E402

PEERS = ("rata", "fastmcp", "sdk")


def _import_framework(peer: str) -> float:
    start = time.perf_counter()
    try:
        if peer == "rata":
            import rata  # noqa: F401
            import rata.codegen.catalog  # noqa: F401
        elif peer == "fastmcp":
            import fastmcp  # noqa: F401
            import pydantic  # noqa: F401
        else:
            import mcp.server.mcpserver  # noqa: F401
            import pydantic  # noqa: F401
    except ImportError as error:
        raise SystemExit(f"codegen_bench: the peer {peer!r} cannot be imported ({error}); install it in this venv (see bench/README.md).") from None
    return time.perf_counter() - start


class Runner:
    """One peer's four phases over one module."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.loop = asyncio.new_event_loop()
        self.counter = 0

    def module(self, code: types.CodeType) -> types.ModuleType:
        self.counter += 1
        name = f"_bench_commands_{self.peer}_{self.counter}"
        module = types.ModuleType(name)
        module.__file__ = f"<{name}>"
        sys.modules[name] = module  # dataclasses and get_type_hints look the module up
        return module

    def run(self, code: types.CodeType) -> tuple[dict[str, float], list[dict[str, Any]], str]:
        times: dict[str, float] = {}
        module = self.module(code)
        c0 = time.process_time()
        t0 = time.perf_counter()
        exec(code, module.__dict__)  # noqa: S102 - our own generated source
        t1 = time.perf_counter()
        if self.peer == "rata":
            from rata.codegen.catalog import build_catalog, catalog_json, dump_json

            app = module.build_app()
            t2 = time.perf_counter()
            catalog = build_catalog(app)
            t3 = time.perf_counter()
            text = catalog_json(catalog)
            t4 = time.perf_counter()
            tools = catalog.tools
            dump_json({"tools": tools})  # like for like with the peers: the tools alone, not part of total
            tools_json = time.perf_counter() - t4
        else:
            server = module.build_fastmcp() if self.peer == "fastmcp" else module.build_sdk()
            t2 = time.perf_counter()
            listed = self.loop.run_until_complete(server.list_tools())
            t3 = time.perf_counter()
            if self.peer == "fastmcp":
                tools = [t.to_mcp_tool().model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed]
            else:
                tools = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed]
            text = json.dumps({"tools": tools}, indent=2, ensure_ascii=False) + "\n"
            t4 = time.perf_counter()
            tools_json = t4 - t3
        cpu = time.process_time() - c0 - tools_json  # tools_json is wall time, but this process is single-threaded
        times = {"exec": t1 - t0, "register": t2 - t1, "schemas": t3 - t2, "json": t4 - t3, "total": t4 - t0, "cpu": cpu, "tools_json": tools_json}
        del sys.modules[module.__name__]
        return times, tools, text


def shape_digest(tools: list[dict[str, Any]]) -> tuple[str, int]:
    """A digest of each tool's name, argument names and required arguments (framework-neutral)."""
    rows = []
    for tool in sorted(tools, key=lambda t: t["name"]):
        schema = tool.get("inputSchema", {})
        rows.append([tool["name"], sorted(schema.get("properties", {})), sorted(schema.get("required", []))])
    blob = json.dumps(rows, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16], len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", choices=PEERS, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()

    import_s = _import_framework(args.peer)
    flavor = "rata" if args.peer == "rata" else "plain"
    source = generate(flavor, args.count, args.seed)
    code = compile(source, f"<generated {flavor} {args.count}>", "exec")
    warm_code = compile(generate(flavor, 50, args.seed + 1), f"<generated {flavor} 50>", "exec")

    runner = Runner(args.peer)
    warm_times, _, _ = runner.run(warm_code)
    gc.collect()

    reps = []
    digest = ""
    json_bytes = 0
    for index in range(args.repeat):
        times, tools, text = runner.run(code)
        if len(tools) != args.count:
            raise SystemExit(f"codegen_bench: {args.peer} listed {len(tools)} tools, expected {args.count}.")
        if index == 0:
            digest, _ = shape_digest(tools)
            json_bytes = len(text.encode())
        del tools, text
        gc.collect()
        reps.append(times)

    def stat(phase: str) -> dict[str, float]:
        values = [r[phase] for r in reps]
        return {"median": statistics.median(values), "min": min(values), "max": max(values)}

    result = {
        "peer": args.peer,
        "count": args.count,
        "repeat": args.repeat,
        "import_s": import_s,
        "warmup_total_s": warm_times["total"],
        "phases": {phase: stat(phase) for phase in ("exec", "register", "schemas", "json", "total", "cpu", "tools_json")},
        "runs": reps,
        "shape_digest": digest,
        "json_bytes": json_bytes,
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
