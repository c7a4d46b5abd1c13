"""Logs as JSON lines in the app folder's ``logs/``, through the standard `logging` module.

    configure_logging(folder, "crm")     # once, at start-up
    logging.getLogger("crm").info("customer added", extra={"customer_id": 7})

writes ``{"ts": "...", "level": "INFO", "logger": "crm", "message": "customer added",
"customer_id": 7}`` to ``logs/crm.log``, rotated at 1 MiB with 5 old files kept. Nothing is
written to stdout, which belongs to the protocol when the app serves MCP.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
from pathlib import Path

from rata.folder import AppFolder

MAX_BYTES = 1_048_576
BACKUPS = 5
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record, keys in a fixed order, extras after."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in sorted(set(vars(record)) - _STANDARD):
            entry[key] = _plain(vars(record)[key])
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class RotatingJsonLines(logging.FileHandler):
    """Appends lines; past `max_bytes` the file becomes NAME.1 (NAME.1 becomes NAME.2, ...), `backups` kept.

    The standard library has this as `logging.handlers.RotatingFileHandler`; that module pulls
    in sockets, pickle and queues, which a server that must start fast does not need.
    """

    def __init__(self, path: Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        super().__init__(path, mode="a", encoding="utf-8", delay=True)
        self.maxBytes = max_bytes
        self.backupCount = backups

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.stream is None:
                self.stream = self._open()
            if self.stream.tell() >= self.maxBytes:
                self._rotate()
        except OSError:
            self.handleError(record)
            return
        super().emit(record)

    def _rotate(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None  # type: ignore[assignment]
        base = self.baseFilename
        for i in range(self.backupCount - 1, 0, -1):
            if os.path.exists(f"{base}.{i}"):
                os.replace(f"{base}.{i}", f"{base}.{i + 1}")
        if self.backupCount > 0 and os.path.exists(base):
            os.replace(base, f"{base}.1")
        self.stream = self._open()


def _plain(value: object) -> object:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def log_file(folder: AppFolder, name: str) -> Path:
    return folder.logs / f"{name}.log"


def configure_logging(folder: AppFolder, name: str, level: int = logging.INFO) -> logging.Handler:
    """Send the app's logger and rata's to a rotating JSON-lines file; idempotent."""
    folder.ensure()
    path = log_file(folder, name)
    for logger_name in (name, "rata"):
        logger = logging.getLogger(logger_name)
        for handler in logger.handlers:
            if isinstance(handler, RotatingJsonLines) and Path(handler.baseFilename) == path:
                return handler
    handler = RotatingJsonLines(path)
    handler.setFormatter(JsonLinesFormatter())
    for logger_name in (name, "rata"):
        logger = logging.getLogger(logger_name)
        logger.addHandler(handler)
        logger.setLevel(level)
    return handler
