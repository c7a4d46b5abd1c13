"""Reading the app's JSON-lines logs from the newest entry backwards, across rotated files.

`read_entries(logs_dir, name, limit=20, ...)` reads blocks from the end of ``NAME.log``, then
``NAME.log.1``, ``NAME.log.2`` ..., so the cost depends on how far back the answer lies,
not on how big the files are. A scan stops after `MAX_SCAN_BYTES` and says so.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BLOCK = 64 * 1024
MAX_SCAN_BYTES = 64 * 1024 * 1024
MESSAGE_CHARS = 2_000
TRACEBACK_CHARS = 8_000
LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}


class Scan:
    """What a backwards read found, and how far it went."""

    __slots__ = ("entries", "files", "scanned_bytes", "stopped_early", "unreadable_lines")

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.files: list[str] = []
        self.scanned_bytes = 0
        self.stopped_early = False
        self.unreadable_lines = 0


def log_files(logs_dir: Path, name: str) -> list[Path]:
    """``NAME.log`` and its rotations, newest first."""
    base = logs_dir / f"{name}.log"
    files = [base] if base.is_file() else []
    i = 1
    while (logs_dir / f"{name}.log.{i}").is_file():
        files.append(logs_dir / f"{name}.log.{i}")
        i += 1
    return files


def _lines_backwards(path: Path, budget: list[int]) -> Iterator[bytes]:
    """The lines of `path`, last first, reading blocks from the end; `budget[0]` counts bytes left."""
    with open(path, "rb") as handle:
        position = handle.seek(0, os.SEEK_END)
        rest = b""
        while position > 0:
            if budget[0] <= 0:
                return
            size = min(BLOCK, position)
            position -= size
            handle.seek(position)
            chunk = handle.read(size)
            budget[0] -= size
            lines = (chunk + rest).split(b"\n")
            rest = lines[0]
            for line in reversed(lines[1:]):
                if line.strip():
                    yield line
        if rest.strip():
            yield rest


def read_entries(
    logs_dir: Path,
    name: str,
    *,
    limit: int = 20,
    min_level: str | None = None,
    logger: str | None = None,
    pattern: str | None = None,
    since: dt.datetime | None = None,
) -> Scan:
    """The newest `limit` entries that pass the filters, newest first."""
    wanted = LEVELS.get(min_level.upper(), 0) if min_level else 0
    regex = re.compile(pattern) if pattern else None
    scan = Scan()
    budget = [MAX_SCAN_BYTES]
    # Lines of a level worth keeping carry its name in quotes; others are skipped before parsing (most of the cost).
    level_marks = [f'"{level}"'.encode() for level, number in LEVELS.items() if number >= wanted] if wanted else []
    for path in log_files(logs_dir, name):
        scan.files.append(path.name)
        before = budget[0]
        for line in _lines_backwards(path, budget):
            if level_marks and not any(mark in line for mark in level_marks):
                continue
            try:
                entry = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                scan.unreadable_lines += 1
                continue
            if not isinstance(entry, dict):
                scan.unreadable_lines += 1
                continue
            if since is not None and _time(entry) is not None and _time(entry) < since:
                scan.scanned_bytes += before - budget[0]
                return scan  # older than asked for: every entry further back is older still
            if LEVELS.get(str(entry.get("level", "")).upper(), 0) < wanted:
                continue
            if logger and not str(entry.get("logger", "")).startswith(logger):
                continue
            if regex and not regex.search(str(entry.get("message", ""))) and not regex.search(str(entry.get("exception", ""))):
                continue
            scan.entries.append(_bounded(entry))
            if len(scan.entries) >= limit:
                scan.scanned_bytes += before - budget[0]
                return scan
        scan.scanned_bytes += before - budget[0]
        if budget[0] <= 0:
            scan.stopped_early = True
            return scan
    return scan


def _time(entry: dict[str, Any]) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(str(entry.get("ts", "")))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


EXTRA_CHARS = 500


def _bounded(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with every long text cut: the message, the traceback (its end is kept) and any extra field."""
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key == "exception" and isinstance(value, str):
            out[key] = value if len(value) <= TRACEBACK_CHARS else "... (cut: the start of the traceback)\n" + value[-TRACEBACK_CHARS:]
            continue
        limit = MESSAGE_CHARS if key == "message" else EXTRA_CHARS
        text = value if isinstance(value, str) else None
        if text is None and not isinstance(value, (int, float, bool, type(None))):
            text = json.dumps(value, ensure_ascii=False, default=str)
            if len(text) <= limit:
                out[key] = value
                continue
        if text is not None and len(text) > limit:
            out[key] = text[:limit] + f"... (cut, {len(text)} chars)"
        else:
            out[key] = value
    return out
