"""Logs as JSON lines in the app folder's ``logs/``, for the standard `logging` module.

    configure_logging(folder, "crm")     # once, at start-up
    logging.getLogger("crm").info("customer added", extra={"customer_id": 7})

writes ``{"ts": "...", "level": "INFO", "logger": "crm", "message": "customer added",
"customer_id": 7}`` to ``logs/crm.log``, rotated at 1 MiB with 5 old files kept. Nothing is
written to stdout, which belongs to the protocol when the app serves MCP.

Every line is strict JSON of bounded length, whatever the app or a client hands it (see
`safe_value`): NaN and the infinities are written as the strings ``"NaN"``, ``"Infinity"``
and ``"-Infinity"``, a lone surrogate as U+FFFD, a value JSON cannot hold as its repr, and
each text is cut at its bound with ``…(+N chars)``: names (the logger's, each field's) at
`NAME_CHARS`, the message at `MESSAGE_CHARS`, the traceback at `EXCEPTION_CHARS` (its start
and end kept), any other text at `TEXT_CHARS`; a whole line at most `LINE_BYTES`.

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
import re
import sys
import threading
import time
from typing import Any

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    import logging
    from pathlib import Path

    from rata.folder import AppFolder

MAX_BYTES = 1_048_576
BACKUPS = 5
INFO = 20  # logging.INFO, without importing logging
NAME_CHARS = 200
"""The logger's name, the level's, and each field's name (a client's name or a tool's is a field's value: `TEXT_CHARS`)."""
MESSAGE_CHARS = 4_000
EXCEPTION_CHARS = 16_000
"""A traceback: its first `EXCEPTION_HEAD` characters and its end, where the error is."""
EXCEPTION_HEAD = 2_000
TEXT_CHARS = 1_000
"""Any other text: an extra field's value (a client's name, a tool's), or a string inside one."""
VALUE_CHARS = 4_000
"""A list or object field, as JSON; a longer one is written as its JSON text, cut at `TEXT_CHARS`."""
VALUE_ITEMS = 200
"""Values walked in one list or object field (nested ones included); the rest are left out, with a count."""
VALUE_DEPTH = 8
LINE_BYTES = 65_536
"""A whole line, in UTF-8; past it, the message and traceback are cut shorter and extra fields left out, with a count."""
_BIG_INT = 10**100
_SURROGATE = re.compile("[\ud800-\udfff]")
_NONFINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
_UTC = dt.UTC
HEAD_FIELDS = frozenset({"ts", "level", "logger", "message"})
"""The four fields every line starts with (a reader of the log, `rata.dev_server.shapes`, shows them apart)."""


def _unencodable(value: object) -> None:
    raise TypeError(f"{type(value).__name__} is not a JSON value")


# hot path: bench/run.py --only server (throughput): the per-call log line's JSON, from CPython's private encoder parts
_STRING = json.encoder.encode_basestring  # a str as JSON, as _ENCODE writes it (ensure_ascii=False)
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
if _C_ENCODER is not None:  # what _ENCODE runs, made once rather than per call (no circular check: the values are plain)
    _FIELDS = _C_ENCODER(None, _unencodable, _STRING, None, ": ", ", ", False, False, False)

    def _encode(o: Any) -> str:  # named as json.JSONEncoder.encode names it, which stands in below
        return "".join(_FIELDS(o, 0))
else:  # pragma: no cover - an interpreter without the C accelerator
    _encode = _ENCODE

_second: tuple[int, str] = (-1, "")
"""The last whole second formatted: (seconds since the epoch, its ``YYYY-MM-DDTHH:MM:SS`` in UTC)."""
_MILLIS = tuple(f".{ms:03d}+00:00" for ms in range(1000))


# hot path: bench/run.py --only server (throughput): a cache of one second's text, read by every call's log line
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


def cut(text: str, limit: int) -> str:
    """`text` at most `limit` characters, then ``…(+N chars)`` saying how many were left out."""
    return text if len(text) <= limit else f"{text[:limit]}…(+{len(text) - limit} chars)"


def _cut_middle(text: str, limit: int, head: int) -> str:
    """`text` at most `limit` characters: its first `head` and its last ones, with ``…(+N chars)…`` between."""
    if len(text) <= limit:
        return text
    tail = limit - head
    return f"{text[:head]}\n…(+{len(text) - limit} chars)…\n{text[-tail:]}"


def valid_text(text: str) -> str:
    """`text` as UTF-8 can hold it: a lone surrogate (a client's ``"\\udfff"``, say) becomes U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _text(value: str, limit: int) -> str:
    return valid_text(cut(value, limit))


def _repr(value: object) -> str:
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails still gets its line
        return f"<{type(value).__name__} that cannot be shown>"


def safe_value(value: Any, limit: int = TEXT_CHARS) -> Any:
    """`value` as a JSON value a strict parser takes and that stays small; see the module docstring."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= limit and value.isascii() else _text(value, limit)
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if -_BIG_INT < value < _BIG_INT else f"<integer of {value.bit_length()} bits>"
    if kind is float:
        return value if math.isfinite(value) else _NONFINITE.get(value, "NaN")
    if isinstance(value, (dict, list, tuple)):
        walked = _walk(value, [VALUE_ITEMS], VALUE_DEPTH)
        text = _encode(walked)
        return walked if len(text) <= VALUE_CHARS else _text(text, limit)
    if isinstance(value, str):
        return _text(str.__str__(value), limit)
    if isinstance(value, int):  # an IntEnum, say
        return safe_value(int.__int__(value), limit)
    if isinstance(value, float):
        return safe_value(float.__float__(value), limit)
    if isinstance(value, (bytes, bytearray, memoryview)) and len(value) > limit:  # its repr would be four times its size
        return f"{_text(_repr(bytes(value[:limit])), limit)} (of {len(value)} bytes)"
    if isinstance(value, (set, frozenset)) and len(value) > VALUE_ITEMS:
        return f"<{type(value).__name__} of {len(value)} items>"
    return _text(_repr(value), limit)


def _walk(value: Any, budget: list[int], depth: int) -> Any:
    """A list or object as plain JSON values, at most `budget[0]` of them and `depth` levels; what is left out is counted."""
    budget[0] -= 1
    if isinstance(value, dict):
        if depth <= 0:
            return f"<object of {len(value)} fields>"
        out: dict[str, Any] = {}
        for key, item in value.items():
            if budget[0] <= 0:
                out["…"] = f"+{len(value) - len(out)} fields"
                break
            name = key if type(key) is str else _repr(key) if not isinstance(key, str) else str.__str__(key)
            out[_text(name, NAME_CHARS)] = _walk(item, budget, depth - 1)
        return out
    if isinstance(value, (list, tuple)):
        if depth <= 0:
            return f"<list of {len(value)} items>"
        items: list[Any] = []
        for item in value:
            if budget[0] <= 0:
                items.append(f"…(+{len(value) - len(items)} items)")
                break
            items.append(_walk(item, budget, depth - 1))
        return items
    return safe_value(value)


def _field(name: str, value: Any) -> Any:
    if name == "exception" and type(value) is str:  # the traceback JsonLinesFormatter adds
        return valid_text(_cut_middle(value, EXCEPTION_CHARS, EXCEPTION_HEAD))
    return safe_value(value)


def _name(key: object) -> str:
    return _text(key if isinstance(key, str) else _repr(key), NAME_CHARS)


def _short(text: Any, limit: int) -> str:
    """A head field's text: as it is when short plain ASCII (the usual case), else made valid and cut."""
    if type(text) is str and len(text) <= limit and text.isascii():
        return text
    return _text(text if isinstance(text, str) else str(text), limit)


def format_line(created: float, level: str, logger: str, message: str, extra: dict[str, Any]) -> str:
    """One entry: ts, level, logger, message, then the extra fields in their order; strict JSON, at most `LINE_BYTES`."""
    level, logger, message = _short(level, NAME_CHARS), _short(logger, NAME_CHARS), _short(message, MESSAGE_CHARS)
    fields = {key if type(key) is str and len(key) <= NAME_CHARS and key.isascii() else _name(key): value for key, value in extra.items()}
    if not HEAD_FIELDS.isdisjoint(fields):  # an extra field named like one of the four takes its place
        entry: dict[str, Any] = {"ts": timestamp(created), "level": level, "logger": logger, "message": message}
        for key, value in fields.items():
            entry[key] = _field(key, value)
        line = _encode(entry)
    else:
        line = f'{{"ts": "{timestamp(created)}", "level": {_STRING(level)}, "logger": {_STRING(logger)}, "message": {_STRING(message)}'
        line = f"{line}, {_encode({key: _field(key, value) for key, value in fields.items()})[1:]}" if fields else line + "}"
    if len(line) * 4 <= LINE_BYTES or len(line.encode("utf-8", "replace")) <= LINE_BYTES:
        return line
    return _shorter(json.loads(line))  # rare: the line is this function's own strict JSON


def _shorter(entry: dict[str, Any]) -> str:
    """An entry too long for one line: the message and traceback cut shorter, and extra fields while they fit."""
    out: dict[str, Any] = {}
    left_out = 0
    size = 100  # the room "fields_left_out" needs
    for key, value in entry.items():
        if key == "message" and type(value) is str:
            value = cut(value, MESSAGE_CHARS // 4)
        elif key == "exception" and type(value) is str:
            value = _cut_middle(value, EXCEPTION_CHARS // 4, EXCEPTION_HEAD // 4)
        part = len(_encode({key: value}).encode("utf-8", "replace"))
        if key in HEAD_FIELDS or size + part <= LINE_BYTES:
            out[key] = value
            size += part
        else:
            left_out += 1
    if left_out:
        out["fields_left_out"] = left_out
    return _encode(out)


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
        self.append((line + "\n").encode("utf-8", "replace"))  # format_line leaves no lone surrogate: "replace" is only a guard

    def append(self, data: bytes) -> None:
        """Append `data`, whole lines, in one write; raises OSError when the file cannot be written."""
        with self._lock:
            fd = self._fd
            if fd is None:
                fd = self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
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
        self._fd = os.open(base, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

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
_syncing = threading.Lock()  # held while a waiting configuration is applied (`sync`)


def _build_classes() -> dict[str, type]:
    """`JsonLinesFormatter` and `RotatingJsonLines`: they subclass `logging`'s, so they are made when it is imported."""
    import logging

    standard = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}

    class JsonLinesFormatter(logging.Formatter):
        """One JSON object per record, keys in a fixed order, extras after."""

        def format(self, record: logging.LogRecord) -> str:
            fields = vars(record)
            extra = {key: fields[key] for key in sorted(fields.keys() - standard, key=str)}
            if record.exc_info:
                extra["exception"] = self.formatException(record.exc_info)
            try:
                message = record.getMessage()
            except Exception:  # noqa: BLE001 - arguments that do not fit the message still leave a line
                message = f"{_repr(record.msg)} % {_repr(record.args)} (the arguments do not fit the message)"
            return format_line(record.created, record.levelname, record.name, message, extra)

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
        handler: Any  # RotatingJsonLines is built on first use (`__getattr__`), so the checker cannot name it
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
    """Apply a waiting configuration once `logging` has been imported (cheap when there is none).

    A thread that comes while another applies it waits until the handlers are attached: returning
    at once, it could log before they are, and its record would go to `logging`'s last resort
    (stderr) instead of the file (two threads' first records at once: the app loading on its thread
    while a request is answered)."""
    if (_pending or _syncing.locked()) and "logging" in sys.modules:
        with _syncing:
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
    # hot path: bench/run.py --only server (throughput): the line written here, without a LogRecord, a tenth of the cost
    if "logging" not in sys.modules:
        try:
            file = _pending_files[logger]
        except KeyError:
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


# hot path: bench/run.py --only server (throughput): each line's template made once, not per call
_templates: dict[tuple[str, str, tuple[Any, ...]], tuple[str, tuple[str, ...]] | None] = {}
"""`log_info`'s lines by (logger, message, field names): a %-template and the names in the order written."""


def _template(logger: str, message: str, names: tuple[Any, ...]) -> tuple[str, tuple[str, ...]] | None:
    """The line `format_line` writes, with %s for the time and for each field's JSON; None when it cannot be one."""
    if not all(type(name) is str and name == _name(name) for name in names) or not HEAD_FIELDS.isdisjoint(names) or "exception" in names:
        return None
    if _text(logger, NAME_CHARS) != logger or _text(message, MESSAGE_CHARS) != message:
        return None
    ordered = tuple(sorted(names))
    head = f'", "level": "INFO", "logger": {_STRING(logger)}, "message": {_STRING(message)}'.replace("%", "%%")
    return '{"ts": "%s' + head + "".join(f", {_STRING(name)}: ".replace("%", "%%") + "%s" for name in ordered) + "}\n", ordered


def _value(value: Any) -> str:
    """A field's JSON, as `format_line` writes it."""
    kind = type(value)
    if kind is str and len(value) <= TEXT_CHARS and value.isascii():
        return _STRING(value)
    if (kind is int and -_BIG_INT < value < _BIG_INT) or (kind is float and math.isfinite(value)):
        return kind.__repr__(value)
    return _encode(safe_value(value))


def _write(files: list[JsonLinesFile], logger: str, message: str, fields: dict[str, Any]) -> None:
    try:
        line = _line(logger, message, fields)
    except Exception as error:  # noqa: BLE001 - a line that cannot be made must not fail the call it records
        sys.stderr.write(f"rata: cannot write a log line of {cut(_repr(logger), NAME_CHARS)}: {cut(_repr(error), TEXT_CHARS)}\n")
        return
    data = line.encode("utf-8", "replace")  # valid_text left no lone surrogate: "replace" is only a guard
    for file in files:
        try:
            file.append(data)
        except OSError as error:
            sys.stderr.write(f"rata: cannot write the log {file.path}: {error}\n")


def _line(logger: str, message: str, fields: dict[str, Any]) -> str:
    key = (logger, message, tuple(fields))
    try:
        shape = _templates[key]
    except KeyError:
        if len(_templates) >= 64:  # a bound, in case a caller's fields keep changing
            _templates.clear()
        shape = _templates[key] = _template(logger, message, key[2])
    if shape is not None:
        template, names = shape
        second, nanos = divmod(time.time_ns(), 1_000_000_000)
        cached = _second
        when = (cached[1] if cached[0] == second else _date_time(second)) + _MILLIS[nanos // 1_000_000]
        values = [_STRING(v) if type(v) is str and len(v) <= TEXT_CHARS and v.isascii() else _value(v) for v in map(fields.__getitem__, names)]
        line = template % (when, *values)
        if len(line) * 4 <= LINE_BYTES:
            return line
    return format_line(time.time(), "INFO", logger, message, {name: fields[name] for name in sorted(fields, key=str)}) + "\n"


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
    handler: Any  # RotatingJsonLines is built on first use (`__getattr__`), so the checker cannot name it
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
