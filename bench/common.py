"""What every benchmark script shares: paths, the scratch folder, child processes, the report's numbers.

    from common import ROOT, Scratch, run_child, summary

bench/ is not a package: the scripts run from it (``.venv/bin/python bench/run.py``), so it is
first on sys.path and they import this as ``common``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
BIN = Path(sys.executable).parent  # the venv's bin: run this with .venv/bin/python
CRM_TOOLS = {"customers_index", "customers_show", "customers_store", "customers_delete"}
CRM_RESOURCES = ["app://customers_index"]


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


def _shown(argv: list[str]) -> str:
    return " ".join(argv).replace(str(BIN) + "/", ".venv/bin/").replace(str(ROOT) + "/", "")


# --- report --------------------------------------------------------------------------------


def _s(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _mb(kb: float) -> str:
    return f"{kb / 1024:.1f} MB"


def _us(value: float) -> str:
    return f"{value * 1e6:.0f} µs" if value < 1e-3 else f"{value * 1000:.2f} ms"


def _x(ratio: float) -> str:
    return f"{ratio:.1f}x" if ratio >= 1.95 else f"{ratio:.2f}x"
