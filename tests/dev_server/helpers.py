"""Shared by the `rata mcp dev` tests: throwaway projects, a seeded crm database, JSON-lines logs, folder snapshots.

Test modules import what they use (``from tests.dev_server.helpers import ...``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import sys
import textwrap
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rata.folder import AppFolder
from rata.logs import JsonLinesFormatter, RotatingJsonLines
from tests.conftest import CRM
from tests.mcp.peers import search_path

CUSTOMERS = [
    {"name": "Ada Lovelace", "email": "ada@example.com"},
    {"name": "Grace Hopper", "email": "grace@example.com"},
    {"name": "Alan Turing", "email": "alan@example.com"},
]


# --- projects -----------------------------------------------------------------------------------


def copy_crm(dest: Path) -> Path:
    """A copy of examples/crm (without bytecode), so edits and snapshots never touch the real one."""
    shutil.copytree(CRM, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


APP_TEMPLATE = '''\
"""A throwaway app for the dev-server tests."""

from rata import App, Ctx, command


@command(can="notes.view", read_only=True)
def notes_count(ctx: Ctx) -> int:
    """{docstring}"""
    return 0

{extra}
app = App("{name}", identifier="test.dev.{name}", version="1.0.0").commands({commands}).allow_abilities(["notes.*"])
'''


def write_app(app_file: Path, *, name: str, docstring: str = "Count the notes.", extra: str = "", commands: str = "notes_count") -> None:
    app_file.write_text(APP_TEMPLATE.format(name=name, docstring=docstring, extra=textwrap.dedent(extra), commands=commands), encoding="utf-8")


def make_project(root: Path, *, docstring: str = "Count the notes.") -> tuple[Path, str]:
    """A project folder with a pyproject.toml naming a package of a unique name (so no test sees another's modules)."""
    package = f"devtarget_{uuid.uuid4().hex[:12]}"
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "{package}"\nversion = "1.0.0"\ndependencies = ["rata-toolkit"]\n\n[tool.rata]\napp = "{package}.app:app"\n',
        encoding="utf-8",
    )
    (root / package).mkdir()
    (root / package / "__init__.py").write_text("", encoding="utf-8")
    write_app(root / package / "app.py", name="notes", docstring=docstring)
    return root, package


def bump_mtime(path: Path, seconds: float = 10.0) -> None:
    """Move a file's mtime forward by whole seconds: a different mtime for the reloader and for stale bytecode checks."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + int(seconds * 1e9)))


@contextmanager
def isolated_imports() -> Iterator[None]:
    """Put sys.path back and forget the test projects' modules (the loader adds both)."""
    path = list(sys.path)
    try:
        yield
    finally:
        sys.path[:] = path
        for name in [n for n in sys.modules if n.startswith(("devtarget_", "_rata_app_"))]:
            del sys.modules[name]


# --- the crm database ---------------------------------------------------------------------------


def crm_app() -> Any:
    if str(CRM) not in sys.path:
        sys.path.insert(0, str(CRM))
    from crm.app import app

    return app


def many_customers(count: int) -> list[dict[str, str]]:
    """The three named customers, then numbered ones up to `count`."""
    return CUSTOMERS + [{"name": f"Customer {i}", "email": f"customer{i}@example.com"} for i in range(len(CUSTOMERS) + 1, count + 1)]


def seed_crm(home: Path, customers: list[dict[str, str]] = CUSTOMERS) -> list[dict[str, Any]]:
    """Migrate the crm app's database in `home` and store customers, through the app itself (in-process)."""
    app = crm_app()
    app.folder = AppFolder(home)
    try:
        app.migrate()
        stored = [app.call("customers_store", **customer) for customer in customers]
    finally:
        app.close()  # the last connection: SQLite checkpoints and removes -wal and -shm
        app.folder = None
    return stored


# --- logs ---------------------------------------------------------------------------------------


def entry(ts: dt.datetime, level: str = "INFO", logger: str = "crm", message: str = "", **extra: Any) -> str:
    """One log line in the app's format (rata.logs.JsonLinesFormatter)."""
    line: dict[str, Any] = {"ts": ts.isoformat(timespec="milliseconds"), "level": level, "logger": logger, "message": message}
    line.update(extra)
    return json.dumps(line, ensure_ascii=False)


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


T0 = dt.datetime(2026, 7, 28, 9, 0, 0, tzinfo=dt.UTC)


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


class AppLogger:
    """The app's real log handler (rotation included) on a logger of its own, not registered globally."""

    def __init__(self, home: Path, name: str = "crm", max_bytes: int = 2_000, backups: int = 5) -> None:
        folder = AppFolder(home).ensure()
        self.handler = RotatingJsonLines(folder.logs / f"{name}.log", max_bytes=max_bytes, backups=backups)
        self.handler.setFormatter(JsonLinesFormatter())
        self.logger = logging.Logger(name, logging.DEBUG)
        self.logger.addHandler(self.handler)

    def __enter__(self) -> logging.Logger:
        return self.logger

    def __exit__(self, *exc: object) -> None:
        self.handler.close()


def write_crm_logs(home: Path) -> None:
    """Real logs: INFO lines enough to rotate, an ERROR with a traceback, then enough newer lines that it sits in a rotated file."""
    with AppLogger(home) as log:
        billing = logging.Logger("crm.billing", logging.DEBUG)
        billing.addHandler(log.handlers[0])
        for i in range(30):
            log.info("customer listed", extra={"customer_id": i})
        try:
            {}["missing"]  # noqa: B018 - a real exception, for a real traceback
        except KeyError:
            log.exception("customer import failed")
        for i in range(25):
            log.info("after the error %d", i)
        billing.warning("invoice overdue", extra={"invoice": 7})


# --- snapshots ----------------------------------------------------------------------------------

def snapshot(folder: Path) -> dict[str, tuple[str, int, str]]:
    """Every file and folder under `folder`: relative path -> (kind, mtime_ns, sha256 of the content)."""
    out: dict[str, tuple[str, int, str]] = {}
    if not folder.exists():
        return out
    for path in sorted(folder.rglob("*")):
        stat = path.stat()
        rel = path.relative_to(folder).as_posix()
        if path.is_dir():
            out[rel] = ("dir", stat.st_mtime_ns, "")
        else:
            out[rel] = ("file", stat.st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def changes(before: dict[str, tuple[str, int, str]], after: dict[str, tuple[str, int, str]]) -> dict[str, list[str]]:
    """What differs between two snapshots, by path: created, removed, changed (content or mtime); empty when nothing did."""
    found = {
        "created": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": sorted(path for path in set(before) & set(after) if before[path] != after[path]),
    }
    return {kind: paths for kind, paths in found.items() if paths}


def sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


# --- the dev server as a subprocess -------------------------------------------------------------


def dev_command(app: Path | None = None) -> list[str]:
    """`python -m rata mcp dev [--app DIR]` with this interpreter."""
    return [sys.executable, "-m", "rata", "mcp", "dev", *(["--app", str(app)] if app is not None else [])]


def dev_env(home: Path, cache: Path) -> dict[str, str]:
    """An explicit environment: RATA_HOME, RATA_CACHE_DIR, PATH (and PYTHONPATH, if the run sets one)."""
    env = {"RATA_HOME": str(home), "RATA_CACHE_DIR": str(cache), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env
