"""Reading the app's JSON-lines logs from the newest entry backwards, across rotated files.

`read_entries(logs_dir, name, limit=20, ...)` reads blocks from the end of ``NAME.log``, then
``NAME.log.1``, ``NAME.log.2`` ..., so the cost depends on how far back the answer lies,
not on how big the files are. A scan stops after `MAX_SCAN_BYTES` and says so.

Every line is untrusted: whoever can write the file, or get the app to log a string, writes
it. A line longer than `MAX_LINE_BYTES` is skipped without being held whole; a line that is
not a JSON object is skipped; both are counted in `Scan.unreadable_lines`. What is read
comes back as JSON any strict encoder takes: NaN and the infinities as the strings
``"NaN"``, ``"Infinity"`` and ``"-Infinity"``, a number too long to be one (5,000 digits,
``1e999``) as its text, cut; invalid UTF-8 and lone surrogates as U+FFFD; every text cleaned
of what a reader cannot see (`rata.codegen.sanitize.clean_text`: control characters, bidi
overrides, zero-width characters) and cut at its bound; nesting deeper than `VALUE_DEPTH`
shown as its JSON text.

A `pattern` is a Python regular expression written by an agent; `re` backtracks, so a
pattern like ``(?:.|.)*Q`` takes exponential time, and a match cannot be interrupted from
another thread. So a scan with a pattern runs in a child process (`python -I -S`) that is
killed after `PATTERN_SECONDS` (and limits its own CPU time): the entries it found by then
come back, with `Scan.pattern_stopped` saying why it stopped.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rata import tokens
from rata.codegen.sanitize import clean_text
from rata.dev_server import logcursor
from rata.dev_server.logcursor import Identity, Position, identity
from rata.errors import RataError
from rata.logs import valid_text

BLOCK = 64 * 1024
MAX_SCAN_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 1024 * 1024
"""A longer line is skipped, and counted as unreadable; it is never held whole."""
MAX_ROTATIONS = 1_000
MESSAGE_CHARS = 2_000
TRACEBACK_CHARS = 8_000
EXTRA_CHARS = 500
KEY_CHARS = 200
MAX_FIELDS = 50
"""Fields shown per entry; the rest are counted in ``fields_left_out``."""
VALUE_DEPTH = 10
NUMBER_CHARS = 100
"""A number literal longer than this comes back as its text, cut."""
PATTERN_CHARS = 1_000
PATTERN_SECONDS = 5.0
CHILD_MEMORY = 1024 * 1024 * 1024
LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}
_ROOT = str(Path(__file__).resolve().parent.parent.parent)


class Scan:
    """What a backwards read found, and how far it went."""

    __slots__ = ("entries", "files", "pattern_stopped", "positions", "resume", "scanned_bytes", "stopped_early", "unreadable_lines")

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.positions: list[Position] = []
        """Where each entry's line starts, in the same order: a read from there goes on with the entries older than it."""
        self.resume: Position | None = None
        """Where a further read goes on (the limit or a bound stopped this one); None when this one reached the log's start or `since`."""
        self.files: list[str] = []
        self.scanned_bytes = 0
        self.stopped_early = False
        self.unreadable_lines = 0
        self.pattern_stopped = ""
        """Why a scan with a pattern stopped before its end (its time ran out, say); empty when it did not."""


def log_files(logs_dir: Path, name: str) -> list[Path]:
    """``NAME.log`` and its rotations, newest first (at most `MAX_ROTATIONS` of them)."""
    return [path for path, _ident in identified_files(logs_dir, name)]


def identified_files(logs_dir: Path, name: str) -> list[tuple[Path, Identity]]:
    """`log_files`, each with its identity (device and inode): what a position in the log names."""
    files = []
    for i in range(MAX_ROTATIONS + 1):
        path = logs_dir / (f"{name}.log" if i == 0 else f"{name}.log.{i}")
        try:
            info = path.stat()
        except (OSError, ValueError):
            info = None
        if info is None or not stat.S_ISREG(info.st_mode):
            if i == 0:
                continue  # the rotations may be there without the current file
            break
        files.append((path, identity(info)))
    return files


def cursor(logs_dir: Path, name: str, position: Position) -> str | None:
    """The cursor a client passes to go on from `position`; None when nothing lies before it.

    A position at the start of a file is given as the end of the next older file, so a cursor
    always has bytes before it (its fingerprint, `logcursor`)."""
    files = identified_files(logs_dir, name)
    device, inode, offset = position
    index = next((i for i, (_path, ident) in enumerate(files) if ident == (device, inode)), None)
    if index is None:
        return None
    while offset == 0:
        index += 1
        if index >= len(files):
            return None
        path, (device, inode) = files[index]
        try:
            offset = path.stat().st_size
        except OSError:
            return None
    return logcursor.encode(files[index][0], (device, inode, offset))


def _open(path: Path) -> Any:
    """`path` opened for reading, or None when it is not a regular file (a FIFO put in its place must not block the read)."""
    from rata.projectfiles import ProjectFileError, open_regular

    try:
        fd = open_regular(path)
    except ProjectFileError:
        return None
    return open(fd, "rb", buffering=0)  # noqa: SIM115 - the caller closes it


def _lines_backwards(handle: Any, budget: list[int], end: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """The lines of the open file `handle` that end before byte `end` (default: its end), last first, each with the
    offset it starts at; reads blocks backwards, `budget[0]` counts bytes left.

    A line longer than `MAX_LINE_BYTES` comes as None: its bytes are dropped as they are read,
    so a 200 MB line costs one pass over it and no more memory than a block.
    """
    position = handle.seek(0, os.SEEK_END) if end is None else end
    tail: list[bytes] = []  # the end of the current line, read so far: its last piece first
    tail_size = 0
    too_long = False
    while position > 0:
        if budget[0] <= 0:
            return
        size = min(BLOCK, position)
        position -= size
        handle.seek(position)
        chunk = handle.read(size)
        budget[0] -= size
        if len(chunk) != size:  # the file was cut short while being read
            return
        parts = chunk.split(b"\n")
        if len(parts) > 1:
            last = parts[-1]  # the start of the line whose end was read before
            at = position + size - len(last)
            if too_long or tail_size + len(last) > MAX_LINE_BYTES:
                yield at, None
            else:
                line = last + b"".join(reversed(tail)) if tail else last
                if line and not line.isspace():
                    yield at, line
            tail, tail_size, too_long = [], 0, False
            for line in reversed(parts[1:-1]):  # whole lines, each shorter than a block
                at -= len(line) + 1
                if line and not line.isspace():
                    yield at, line
        first = parts[0]
        if too_long or not first:
            continue
        if tail_size + len(first) > MAX_LINE_BYTES:
            tail, tail_size, too_long = [], 0, True
        else:
            tail.append(first)
            tail_size += len(first)
    if too_long:
        yield 0, None
    elif tail:
        line = b"".join(reversed(tail))
        if not line.isspace():
            yield 0, line


# --- one line --------------------------------------------------------------------------------------


def _number_text(text: str) -> str:
    return text if len(text) <= NUMBER_CHARS else f"{text[:NUMBER_CHARS]}…(+{len(text) - NUMBER_CHARS} chars)"


def _int(text: str) -> int | str:
    return int(text) if len(text) <= NUMBER_CHARS else _number_text(text)


def _float(text: str) -> float | str:
    if len(text) > NUMBER_CHARS:
        return _number_text(text)
    number = float(text)
    return number if number - number == 0 else text  # 1e999 is inf: its text instead


_DECODE = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=str).decode


def parse_line(line: bytes) -> dict[str, Any] | None:
    """The JSON object a line holds, numbers and constants made safe; None when it holds none."""
    try:
        value = _DECODE(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # not JSON, or nested past what the parser takes
        return None
    return value if isinstance(value, dict) else None


def _text_of(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return value if isinstance(value, str) else ""


def _time(entry: dict[str, Any]) -> dt.datetime | None:
    text = _text_of(entry, "ts")
    if not text or len(text) > 64:
        return None
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _clean(text: str, limit: int) -> str:
    """`text` cut at `limit` characters, then cleaned (cutting first keeps the cleaning bounded)."""
    if len(text) > limit:
        text = text[:limit] + f"... (cut, {len(text)} chars)"
    return clean_text(valid_text(text))


def _cleaned_tail(text: str) -> str:
    if len(text) > TRACEBACK_CHARS:
        text = "... (cut: the start of the traceback)\n" + text[-TRACEBACK_CHARS:]
    return clean_text(valid_text(text))


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether `value` nests more than `depth` lists or objects deep (looked at without recursion)."""
    level = [(value, 0)]
    while level:
        item, at = level.pop()
        if isinstance(item, (dict, list)):
            if at >= depth:
                return True
            level.extend((child, at + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _clean_value(value: Any) -> Any:
    """A small list or object, every string and key in it cleaned (its depth is checked before)."""
    if isinstance(value, str):
        return _clean(value, EXTRA_CHARS)
    if isinstance(value, list):
        return [_clean_value(item) for item in value]
    if isinstance(value, dict):
        return {_clean(key, KEY_CHARS): _clean_value(item) for key, item in value.items()}
    return value


def bounded(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry as shown: long texts cut (a traceback keeps its end), every text cleaned, at most `MAX_FIELDS` fields."""
    out: dict[str, Any] = {}
    for count, (key, value) in enumerate(entry.items()):
        if count >= MAX_FIELDS:
            out["fields_left_out"] = len(entry) - MAX_FIELDS
            break
        name = _clean(key, KEY_CHARS)
        if isinstance(value, str):
            out[name] = _cleaned_tail(value) if key == "exception" else _clean(value, MESSAGE_CHARS if key == "message" else EXTRA_CHARS)
        elif isinstance(value, (dict, list)):
            out[name] = _container(value)
        else:
            out[name] = value  # None, a bool, a finite float or a short int: the parser left nothing else
    return out


def _container(value: dict[str, Any] | list[Any]) -> Any:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        return "<a value nested too deeply to show>"
    if len(text) <= EXTRA_CHARS and not _deeper_than(value, VALUE_DEPTH):
        return _clean_value(value)
    return _clean(text, EXTRA_CHARS)


# --- the scan --------------------------------------------------------------------------------------


def read_entries(
    logs_dir: Path,
    name: str,
    *,
    limit: int = 20,
    min_level: str | None = None,
    logger: str | None = None,
    pattern: str | None = None,
    since: dt.datetime | None = None,
    before: str | None = None,
    token_room: int | None = None,
) -> Scan:
    """The newest `limit` entries that pass the filters, newest first; with `before` (a `cursor`), the newest older than it.

    With `token_room`, the read also stops at the first entry that takes the entries read past
    that many tokens (as compact JSON): the ones after it could not be shown anyway.

    Raises:
        RataError: `pattern` is not a regular expression, or longer than `PATTERN_CHARS`.
        logcursor.CursorError: `before` is not a position in the log's current files.
    """
    if pattern:
        if before is not None:
            logcursor.locate(identified_files(logs_dir, name), before)  # a bad cursor fails here, not in the child
        return _scan_in_child(logs_dir, name, limit, min_level, logger, pattern, since, before, token_room)
    return scan(logs_dir, name, limit=limit, min_level=min_level, logger=logger, regex=None, since=since, before=before, token_room=token_room)


def scan(
    logs_dir: Path,
    name: str,
    *,
    limit: int,
    min_level: str | None,
    logger: str | None,
    regex: re.Pattern[str] | None,
    since: dt.datetime | None,
    before: str | None = None,
    token_room: int | None = None,
    found: Callable[[Scan], None] | None = None,
) -> Scan:
    """`read_entries` in this process; `found(scan)` is told of each entry kept and each file opened."""
    wanted = LEVELS.get(min_level.upper(), 0) if min_level else 0
    result = Scan()
    budget = [MAX_SCAN_BYTES]
    # Lines of a level worth keeping carry its name in quotes; others are skipped before parsing (most of the cost).
    level_marks = [f'"{level}"'.encode() for level, number in LEVELS.items() if number >= wanted] if wanted else []
    room = token_room if token_room is not None else -1
    files = identified_files(logs_dir, name)
    index, end = 0, None
    if before is not None:
        index, (_device, _inode, end) = logcursor.locate(files, before)
    while index < len(files):
        path, ident = files[index]
        handle = _open(path)
        if handle is not None and identity(os.fstat(handle.fileno())) != ident:
            handle.close()
            handle = None
        if handle is None:  # rotated since it was listed: find it under its new name
            files = identified_files(logs_dir, name)
            found_at = next((i for i, (_path, other) in enumerate(files) if other == ident), None)
            if found_at is None:
                break  # rotated away, and every older file with it
            index = found_at
            continue
        result.files.append(path.name)
        before_bytes = budget[0]
        if found is not None:
            found(result)
        with handle:
            at = end if end is not None else os.fstat(handle.fileno()).st_size  # where the lines examined so far start
            for at, line in _lines_backwards(handle, budget, end):
                if line is None:
                    result.unreadable_lines += 1
                    continue
                if level_marks and not any(mark in line for mark in level_marks):
                    continue
                entry = parse_line(line)
                if entry is None:
                    result.unreadable_lines += 1
                    continue
                moment = _time(entry) if since is not None else None
                if since is not None and moment is not None and moment < since:
                    result.scanned_bytes += before_bytes - budget[0]
                    return result  # older than asked for: every entry further back is older still
                if LEVELS.get(_text_of(entry, "level").upper(), 0) < wanted:
                    continue
                if logger and not _text_of(entry, "logger").startswith(logger):
                    continue
                if regex and not regex.search(_text_of(entry, "message")) and not regex.search(_text_of(entry, "exception")):
                    continue
                result.entries.append(bounded(entry))
                result.positions.append((*ident, at))
                if found is not None:
                    result.scanned_bytes += before_bytes - budget[0]
                    before_bytes = budget[0]
                    found(result)
                if token_room is not None:
                    room -= tokens.estimate(tokens.compact_json(result.entries[-1]))
                if len(result.entries) >= limit or (token_room is not None and room < 0):
                    result.scanned_bytes += before_bytes - budget[0]
                    result.resume = (*ident, at)
                    return result
        result.scanned_bytes += before_bytes - budget[0]
        if budget[0] <= 0:
            result.stopped_early = True
            result.resume = (*ident, at)
            return result
        index, end = index + 1, None
    return result


# --- a scan with a pattern, in a child process -----------------------------------------------------


def _scan_in_child(
    logs_dir: Path,
    name: str,
    limit: int,
    min_level: str | None,
    logger: str | None,
    pattern: str,
    since: dt.datetime | None,
    before: str | None,
    token_room: int | None,
) -> Scan:
    if len(pattern) > PATTERN_CHARS:
        raise RataError(
            f"pattern is {len(pattern)} characters long; at most {PATTERN_CHARS} are allowed.", hint="Search for a shorter, distinctive part of the text."
        )
    request = {
        "logs_dir": str(logs_dir),
        "name": name,
        "limit": limit,
        "min_level": min_level,
        "logger": logger,
        "pattern": pattern,
        "since": since.isoformat() if since else None,
        "before": before,
        "token_room": token_room,
        "seconds": PATTERN_SECONDS,
    }
    code = f"import sys; sys.path.insert(0, {_ROOT!r}); from rata.dev_server.logreader import child_main; child_main()"
    try:
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as error:
        raise RataError(f"could not start the process that searches the log with a pattern: {error}.", hint="Call read_log_entries without pattern.") from None
    timed_out = False
    try:
        out, err = child.communicate(json.dumps(request).encode(), timeout=PATTERN_SECONDS)
    except subprocess.TimeoutExpired:
        timed_out = True
        child.kill()
        out, err = child.communicate()  # what it wrote before: the entries it found in time
    result = Scan()
    finished = False
    for line in out.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the last line, cut by the kill
        if "error" in record:
            raise RataError(f"pattern is not a valid regular expression: {record['error']}.", hint="Escape special characters, e.g. \\( for a parenthesis.")
        if "entry" in record:
            result.entries.append(record["entry"])
            result.positions.append(tuple(record["at"]))
        for key in ("files", "scanned_bytes", "stopped_early", "unreadable_lines"):
            if key in record:
                setattr(result, key, record[key])
        if record.get("resume"):
            result.resume = tuple(record["resume"])
        finished = finished or record.get("done", False)
    if not finished:
        result.stopped_early = True
        result.resume = result.positions[-1] if result.positions else None  # go on after the last entry found in time
        if timed_out:
            result.pattern_stopped = f"the pattern search ran out of its {PATTERN_SECONDS:g} seconds"
        else:
            last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {child.returncode}"]
            result.pattern_stopped = "the pattern search failed: " + clean_text(last[0][:300])
    return result


def child_main() -> None:
    """The child process: a request as JSON on stdin; a JSON line per entry found and per file opened, then one with ``done``."""
    request = json.loads(sys.stdin.buffer.read())
    _limit_self(request["seconds"])
    try:
        regex = re.compile(request["pattern"])
    except (re.error, RecursionError, OverflowError, ValueError) as error:
        _emit({"error": clean_text(str(error))[:300]})
        return
    since = dt.datetime.fromisoformat(request["since"]) if request["since"] else None
    sent = [0]

    def found(progress: Scan) -> None:
        record: dict[str, Any] = {"files": progress.files, "scanned_bytes": progress.scanned_bytes, "unreadable_lines": progress.unreadable_lines}
        if len(progress.entries) > sent[0]:
            record["entry"] = progress.entries[sent[0]]
            record["at"] = progress.positions[sent[0]]
            sent[0] += 1
        _emit(record)

    logs_dir = Path(request["logs_dir"])
    options = {key: request[key] for key in ("limit", "min_level", "logger", "before", "token_room")}
    done = scan(logs_dir, request["name"], regex=regex, since=since, found=found, **options)
    _emit({"files": done.files, "scanned_bytes": done.scanned_bytes, "stopped_early": done.stopped_early, "unreadable_lines": done.unreadable_lines})
    _emit({"resume": done.resume})
    _emit({"done": True})


def _emit(record: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(record).encode() + b"\n")
    sys.stdout.buffer.flush()


def _limit_self(seconds: float) -> None:
    """Bound this process even if its parent is gone: CPU time a little past the budget, and memory."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: the parent's kill is the bound
        return
    cpu = int(seconds) + 2
    for kind, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, CHILD_MEMORY)):
        try:
            _soft, hard = resource.getrlimit(kind)
            resource.setrlimit(kind, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
        except (ValueError, OSError):
            continue
