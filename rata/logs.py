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
import logging.handlers
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
            if isinstance(handler, logging.handlers.RotatingFileHandler) and Path(handler.baseFilename) == path:
                return handler
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(JsonLinesFormatter())
    for logger_name in (name, "rata"):
        logger = logging.getLogger(logger_name)
        logger.addHandler(handler)
        logger.setLevel(level)
    return handler
