"""Logs as JSON lines in the app folder's ``logs/``, for the standard `logging` module.

    configure_logging(folder, "crm")     # once, at start-up
    logging.getLogger("crm").info("customer added", extra={"customer_id": 7})

writes ``{"ts": "...", "level": "INFO", "logger": "crm", "message": "customer added",
"customer_id": 7}`` to ``logs/crm.log``, rotated at 1 MiB with 5 old files kept. Nothing is
written to stdout, which belongs to the protocol when the app serves MCP.

Importing this module, or configuring it, does not import `logging` (about a tenth of a
server's start). When `logging` is not imported yet, the configuration waits, and is applied
to the app's logger and rata's the moment rata needs `logging` (`get_logger`, `Ctx.log`, a
rata logger's first record) or finds it imported (`sync`, before every command runs). rata's
line for every agent call (`log_info`) skips `logging` when this file is all that would see
the record, and is written straight to the file: the same line, a tenth of the cost.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging
    from pathlib import Path

    from rata.folder import AppFolder

MAX_BYTES = 1_048_576
BACKUPS = 5
INFO = 20  # logging.INFO, without importing logging
_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode
_UTC = dt.timezone.utc
_HEAD = frozenset({"ts", "level", "logger", "message"})
_STRING = json.encoder.encode_basestring  # a str as JSON, as _ENCODE writes it (ensure_ascii=False)
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
if _C_ENCODER is not None:  # what _ENCODE runs, made once rather than per call (no circular check: the values are plain)
    _FIELDS = _C_ENCODER(None, str, _STRING, None, ": ", ", ", False, False, True)

    def _encode(value: Any) -> str:
        return "".join(_FIELDS(value, 0))
else:  # pragma: no cover - an interpreter without the C accelerator
    _encode = _ENCODE

_second: tuple[int, str] = (-1, "")
"""The last whole second formatted: (seconds since the epoch, its ``YYYY-MM-DDTHH:MM:SS`` in UTC)."""
_MILLIS = tuple(f".{ms:03d}+00:00" for ms in range(1000))


def _date_time(second: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS`` in UTC for this second since the epoch, made once a second."""
    global _second
    cached = _second
    if cached[0] != second:
        cached = _second = (second, dt.datetime.fromtimestamp(second, _UTC).isoformat()[:19])
    return cached[1]


def timestamp(created: float) -> str:
    """``datetime.fromtimestamp(created, utc).isoformat(timespec="milliseconds")``, with the date and time of day made once a second."""
    fraction, whole = math.modf(created)
    micros = round(fraction * 1e6)  # as datetime rounds a timestamp to microseconds: half to even
    second = int(whole)
    if micros >= 1_000_000:
        second, micros = second + 1, micros - 1_000_000
    elif micros < 0:
        second, micros = second - 1, micros + 1_000_000
    return _date_time(second) + _MILLIS[micros // 1000]


def format_line(created: float, level: str, logger: str, message: str, extra: dict[str, Any]) -> str:
    """One entry: ts, level, logger, message, then the extra fields in their order."""
    if extra and not _HEAD.isdisjoint(extra):  # an extra field named like one of the four takes its place
        entry: dict[str, Any] = {"ts": timestamp(created), "level": level, "logger": logger, "message": message}
        entry.update(extra)
        return _encode(entry)
    head = f'{{"ts": "{timestamp(created)}", "level": {_STRING(level)}, "logger": {_STRING(logger)}, "message": {_STRING(message)}'
    if not extra:
        return head + "}"
    return f"{head}, {_encode(extra)[1:]}"


class JsonLinesFile:
    """Appends lines to a file; past `max_bytes` it becomes NAME.1 (NAME.1 becomes NAME.2, ...), `backups` kept.

    One ``write`` per line on a file opened for appending, so lines from threads and
    processes never interleave. The standard library's `RotatingFileHandler` lives in
    `logging.handlers`, which pulls in sockets, pickle and queues.
    """

    def __init__(self, path: str | os.PathLike[str], max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self.max_bytes = max_bytes
        self.backups = backups
        self._fd: int | None = None
        self._lock = threading.Lock()

    def write(self, line: str) -> None:
        """Append `line` and a newline; raises OSError when the file cannot be written."""
        self.append((line + "\n").encode("utf-8", "backslashreplace"))  # a lone surrogate must not cost the line

    def append(self, data: bytes) -> None:
        """Append `data`, whole lines, in one write; raises OSError when the file cannot be written."""
        with self._lock:
            fd = self._fd
            if fd is None:
                fd = self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            if os.lseek(fd, 0, os.SEEK_END) >= self.max_bytes:
                self._rotate()
                fd = self._fd
                assert fd is not None
            os.write(fd, data)

    def _rotate(self) -> None:
        self._close()
        base = self.path
        for i in range(self.backups - 1, 0, -1):
            if os.path.exists(f"{base}.{i}"):
                os.replace(f"{base}.{i}", f"{base}.{i + 1}")
        if self.backups > 0 and os.path.exists(base):
            os.replace(base, f"{base}.1")
        self._fd = os.open(base, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def _close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def close(self) -> None:
        with self._lock:
            self._close()


# --- logging, when it is in use ----------------------------------------------------------------

_pending: dict[str, tuple[JsonLinesFile, int]] = {}
"""Loggers configured before `logging` was imported: name -> (file, level)."""
_pending_files: dict[str, JsonLinesFile | None] = {}
"""`_pending_file` by logger name, until `_pending` changes."""
_files: dict[str, JsonLinesFile] = {}
_classes: dict[str, type] = {}
_lock = threading.Lock()


def _plain(value: object) -> object:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def _build_classes() -> dict[str, type]:
    """`JsonLinesFormatter` and `RotatingJsonLines`: they subclass `logging`'s, so they are made when it is imported."""
    import logging

    standard = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}

    class JsonLinesFormatter(logging.Formatter):
        """One JSON object per record, keys in a fixed order, extras after."""

        def format(self, record: logging.LogRecord) -> str:
            fields = vars(record)
            extra = {key: _plain(fields[key]) for key in sorted(fields.keys() - standard)}
            if record.exc_info:
                extra["exception"] = self.formatException(record.exc_info)
            return format_line(record.created, record.levelname, record.name, record.getMessage(), extra)

    class RotatingJsonLines(logging.Handler):
        """A handler writing each formatted record as a line of a `JsonLinesFile`."""

        def __init__(self, path: str | os.PathLike[str], max_bytes: int = MAX_BYTES, backups: int = BACKUPS, *, file: JsonLinesFile | None = None) -> None:
            super().__init__()
            self.file = file if file is not None else JsonLinesFile(path, max_bytes, backups)

        @property
        def baseFilename(self) -> str:  # noqa: N802 - the name logging's FileHandler uses
            return self.file.path

        @property
        def maxBytes(self) -> int:  # noqa: N802
            return self.file.max_bytes

        @maxBytes.setter
        def maxBytes(self, value: int) -> None:  # noqa: N802
            self.file.max_bytes = value

        def emit(self, record: logging.LogRecord) -> None:
            try:
                self.file.write(self.format(record))
            except Exception:  # noqa: BLE001 - logging's rule: a failing handler reports and goes on
                self.handleError(record)

        def close(self) -> None:
            self.file.close()
            super().close()

    return {"JsonLinesFormatter": JsonLinesFormatter, "RotatingJsonLines": RotatingJsonLines}


def __getattr__(name: str) -> Any:
    if name in ("JsonLinesFormatter", "RotatingJsonLines"):
        with _lock:
            if not _classes:
                _classes.update(_build_classes())
        return _classes[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _attach(logger_name: str, file: JsonLinesFile, level: int) -> logging.Handler:
    """Give the logger a handler on `file` (one handler per file, shared), unless it has one."""
    import logging

    handler_class = __getattr__("RotatingJsonLines")
    for name in (logger_name, "rata"):
        for handler in logging.getLogger(name).handlers:
            if isinstance(handler, handler_class) and handler.file is file:
                logging.getLogger(logger_name).addHandler(handler)
                logging.getLogger(logger_name).setLevel(level)
                return handler
    handler = handler_class(file.path, file=file)
    handler.setFormatter(__getattr__("JsonLinesFormatter")())
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    logger.setLevel(level)
    return handler


def sync() -> None:
    """Apply a waiting configuration once `logging` has been imported (cheap when there is none)."""
    if _pending and "logging" in sys.modules:
        with _lock:
            pending = list(_pending.items())
            _pending.clear()
            _pending_files.clear()
        for name, (file, level) in pending:
            _attach(name, file, level)


def get_logger(name: str) -> logging.Logger:
    """`logging.getLogger(name)`, with any waiting configuration applied first."""
    import logging

    sync()
    return logging.getLogger(name)


class LazyLogger:
    """A module-level logger that imports `logging` only when it is first used.

        log = LazyLogger("rata.mcp")
        log.exception("tool %s failed", name)     # the first record imports logging
    """

    __slots__ = ("name", "_logger")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: logging.Logger | None = None

    def __getattr__(self, attr: str) -> Any:
        logger = self._logger
        if logger is None:
            logger = self._logger = get_logger(self.name)
        return getattr(logger, attr)


def log_info(logger: str, message: str, fields: dict[str, Any]) -> None:
    """Log an INFO record of `logger` with these fields, as ``logging.getLogger(logger).info(message, extra=fields)`` would.

    When the only handlers the record would reach are this module's, with their defaults,
    the line is formatted and written here, without building a `LogRecord`. Otherwise (a
    test's capture handler, a filter, a disabled logger, ...) it goes through `logging`. The
    fields must be JSON values.
    """
    if "logging" not in sys.modules:
        file = _pending_files.get(logger, False)
        if file is False:
            file = _pending_files[logger] = _pending_file(logger)
        if file is not None:
            _write([file], logger, message, fields)
        return  # no handler: logging would drop an INFO record too
    sync()
    files = _plain_files(logger)
    if files is None:
        get_logger(logger).info(message, extra=fields, stacklevel=2)
        return
    if files:
        _write(files, logger, message, fields)


_templates: dict[tuple[str, str, tuple[Any, ...]], tuple[str, tuple[str, ...]] | None] = {}
"""`log_info`'s lines by (logger, message, field names): a %-template and the names in the order written."""


def _template(logger: str, message: str, names: tuple[Any, ...]) -> tuple[str, tuple[str, ...]] | None:
    """The line `format_line` writes, with %s for the time and for each field's JSON; None when it cannot be one."""
    if not all(type(name) is str for name in names) or not _HEAD.isdisjoint(names):
        return None
    ordered = tuple(sorted(names))
    head = f'", "level": "INFO", "logger": {_STRING(logger)}, "message": {_STRING(message)}'.replace("%", "%%")
    return '{"ts": "%s' + head + "".join(f", {_STRING(name)}: ".replace("%", "%%") + "%s" for name in ordered) + "}\n", ordered


def _value(value: Any) -> str:
    """A field's JSON, as `format_line` writes it."""
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if kind is int or (kind is float and math.isfinite(value)):
        return kind.__repr__(value)
    return _encode(value)


def _write(files: list[JsonLinesFile], logger: str, message: str, fields: dict[str, Any]) -> None:
    key = (logger, message, tuple(fields))
    shape = _templates.get(key, False)
    if shape is False:
        if len(_templates) >= 64:  # a bound, in case a caller's fields keep changing
            _templates.clear()
        shape = _templates[key] = _template(logger, message, key[2])
    if shape is None:
        line = format_line(time.time(), "INFO", logger, message, {name: fields[name] for name in sorted(fields)}) + "\n"
    else:
        template, names = shape
        second, nanos = divmod(time.time_ns(), 1_000_000_000)
        cached = _second
        when = (cached[1] if cached[0] == second else _date_time(second)) + _MILLIS[nanos // 1_000_000]
        line = template % (when, *[_STRING(value) if type(value) is str else _value(value) for value in map(fields.__getitem__, names)])
    data = line.encode("utf-8", "backslashreplace")  # a lone surrogate must not cost the line
    for file in files:
        try:
            file.append(data)
        except OSError as error:
            sys.stderr.write(f"rata: cannot write the log {file.path}: {error}\n")


def _pending_file(logger: str) -> JsonLinesFile | None:
    """The file a waiting configuration gives an INFO record of `logger` (the nearest configured ancestor)."""
    name = logger
    while True:
        found = _pending.get(name)
        if found is not None:
            file, level = found
            return file if level <= INFO else None
        if "." not in name:
            return None
        name = name.rpartition(".")[0]


def _plain_files(name: str) -> list[JsonLinesFile] | None:
    """The files an INFO record of `name` reaches when rata's handlers alone would see it; None when anything else is involved."""
    import logging

    logger = logging.getLogger(name)
    if logger.disabled or logger.filters:
        return None
    if not logger.isEnabledFor(INFO):
        return []
    handler_class, formatter_class = __getattr__("RotatingJsonLines"), __getattr__("JsonLinesFormatter")
    files: list[JsonLinesFile] = []
    current: logging.Logger | None = logger
    while current is not None:
        for handler in current.handlers:
            if type(handler) is not handler_class or handler.filters or handler.level > INFO or type(handler.formatter) is not formatter_class:
                return None
            files.append(handler.file)
        current = current.parent if current.propagate else None
    return files


def log_file(folder: AppFolder, name: str) -> Path:
    return folder.logs / f"{name}.log"


def configure_logging(folder: AppFolder, name: str, level: int = INFO) -> logging.Handler | None:
    """Send the app's logger and rata's to a rotating JSON-lines file; idempotent.

    Returns the handler, or None when `logging` is not imported yet: then the handler is
    attached when it is (see the module's docstring).
    """
    folder.ensure()
    path = os.path.abspath(os.path.join(folder.logs_dir, f"{name}.log"))
    with _lock:
        file = _files.get(path)
        if file is None:
            file = _files[path] = JsonLinesFile(path)
        if "logging" not in sys.modules:
            _pending[name] = _pending["rata"] = (file, level)
            _pending_files.clear()
            return None
    sync()
    _attach("rata", file, level)
    return _attach(name, file, level)
