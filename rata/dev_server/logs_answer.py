"""The answers of `read_log_entries` and `last_error`: entries cut to the token budget, with the next part, and their text.

A model reads a log entry as one line, the way a developer reads a log: time, level, logger,
message, then the entry's fields as ``name=value``; a traceback (and the rest of a message of
several lines) follows, indented. `entry_text` writes it; `entries_text` and `error_text` are
the whole answers' texts (`@command(text=...)`), which carry every fact of the JSON: the
entries, the files read, and the note with the next call.

`log_entries` takes entries, newest first, while the answer fits the budget in both forms
(`budget.Fit`), and stops at an entry boundary; the answer's `before` is the cursor where the
oldest entry shown starts (`logreader.cursor`), and its note the exact call that gets the older
ones. An entry larger than the whole budget is the one thing cut inside (`shrink`): its long
texts shortened in the middle, then its last fields left out, and the note says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from rata.dev_server import budget, logreader
from rata.dev_server.shapes import LogEntry, NamedValue, log_entry

INDENT = "    "
_PLAIN = re.compile(r'[^\s="\\][^\s=\\]*')
"""A value shown as itself: no space, no ``=``, no backslash, not starting with a quote (a list or object's compact JSON is one)."""
_PLACEHOLDER_CURSOR = "0" * 80
"""As long as a cursor can be, for sizing an answer's fixed parts before its cursor is known."""


class LogEntries(TypedDict):
    """Log entries, newest first, how far back the read went, and where the next part starts."""

    entries: list[LogEntry]
    files: list[str]
    scanned_bytes: int
    stopped_early: bool
    before: str | None
    note: str


class LastError(TypedDict):
    """The newest ERROR or CRITICAL log entry, with its traceback."""

    entry: LogEntry | None
    note: str


# --- the text ------------------------------------------------------------------------------------


def value_text(value: Any) -> str:
    """A field's value as ``name=value`` shows it: a plain word (or a list or object's JSON) as itself, any other text quoted, a number as written."""
    if isinstance(value, str):
        return value if _PLAIN.fullmatch(value) else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def entry_text(entry: LogEntry) -> str:
    """One entry as a model reads it: ``TIME LEVEL LOGGER: MESSAGE name=value ...``, then the rest of the message and the traceback, indented."""
    first, *more = entry["message"].split("\n")
    fields = "".join(f" {value_text(field['name'])}={value_text(field['value'])}" for field in entry["fields"])
    line = f"{entry['ts'] or '-'} {entry['level'] or '-'} {entry['logger'] or '-'}: {first}{fields}"
    rest = more + (entry["exception"].rstrip("\n").split("\n") if entry["exception"] else [])
    return "\n".join([line, *(INDENT + part for part in rest)])


def entries_text(answer: LogEntries) -> str:
    """`read_log_entries`'s text: what was read, one entry a line (newest first), then the note with the next call."""
    count = len(answer["entries"])
    files = ", ".join(answer["files"]) if answer["files"] else "no log file"
    head = f"{count} {'entry' if count == 1 else 'entries'}, newest first ({answer['scanned_bytes']:,} bytes read from {files}):"
    return "\n".join([head, *(entry_text(entry) for entry in answer["entries"]), *([answer["note"]] if answer["note"] else [])])


def error_text(answer: LastError) -> str:
    """`last_error`'s text: the entry as `entry_text` writes it, then the note."""
    parts = ([entry_text(answer["entry"])] if answer["entry"] else []) + ([answer["note"]] if answer["note"] else [])
    return "\n".join(parts) or "No error."


# --- one entry larger than the budget ------------------------------------------------------------

_FLOOR = 1 / 64


def _scaled(entry: LogEntry, scale: float, keep: int) -> LogEntry:
    def cut(text: str, chars: int) -> str:
        return budget.shorten(text, max(40, int(chars * scale)))

    fields = [
        NamedValue(name=cut(field["name"], logreader.KEY_CHARS), value=cut(value, logreader.EXTRA_CHARS) if isinstance(value := field["value"], str) else value)
        for field in entry["fields"][:keep]
    ]
    return LogEntry(
        ts=cut(entry["ts"], logreader.EXTRA_CHARS),
        level=cut(entry["level"], logreader.EXTRA_CHARS),
        logger=cut(entry["logger"], logreader.EXTRA_CHARS),
        message=cut(entry["message"], logreader.MESSAGE_CHARS),
        exception=cut(entry["exception"], logreader.TRACEBACK_CHARS) if entry["exception"] else entry["exception"],
        fields=fields,
    )


def shrink(entry: LogEntry, fits: Callable[[LogEntry], bool]) -> tuple[LogEntry, int]:
    """`entry` with its texts shortened in the middle (and then its last fields left out) until `fits`; and how many fields were left out.

    Texts shrink by halves down to about 40 characters each; then the fields are halved. An
    entry with no fields and every text at 40 characters is returned even if it does not fit
    (it is about 100 tokens; the smallest budget leaves 700)."""
    scale, keep = 0.5, len(entry["fields"])
    while True:
        candidate = _scaled(entry, scale, keep)
        if fits(candidate) or (scale <= _FLOOR and keep == 0):
            return candidate, len(entry["fields"]) - keep
        if scale > _FLOOR:
            scale /= 2
        else:
            keep //= 2


def _shrunk_note(dropped: int) -> str:
    fields = f", and its last {dropped} fields left out" if dropped else ""
    return (
        f"The entry shown was larger than the whole budget: its long texts are cut in the middle (where it says how many characters were left out){fields}; "
        f"a larger budget_tokens (up to {budget.MAX_TOKENS:,}) shows more of it."
    )


# --- read_log_entries ----------------------------------------------------------------------------


def log_entries(scan: logreader.Scan, logs: Path, name: str, limit: int, arguments: dict[str, Any], notes: list[str]) -> LogEntries:
    """The answer for `scan` within `limit` tokens: the newest entries that fit, `before` where the next part starts, and the note.

    `arguments` are the call's (its filters and budget_tokens, `before` replaced by the next
    part's); `notes` what the answer says whether it is cut or not (no log, lines skipped)."""
    entries = [log_entry(raw) for raw in scan.entries]

    def answer(shown: list[LogEntry], before: str | None, note: str) -> LogEntries:
        return LogEntries(
            entries=shown, files=scan.files, scanned_bytes=scan.scanned_bytes, stopped_early=scan.stopped_early, before=before, note=note
        )

    # The fixed parts with the longest note the answer can get: cut, and its one entry shortened.
    longest = _note(scan, max(len(entries) - 1, 0), len(entries), _PLACEHOLDER_CURSOR, True, logreader.MAX_FIELDS, limit, arguments, notes)
    sizing = answer([], _PLACEHOLDER_CURSOR, longest)
    fit = budget.Fit(limit, entries_text(sizing), sizing)
    shown = budget.take(entries, fit, entry_text)
    shrunk, dropped = False, 0
    if shown == 0 and entries:
        entries[0], dropped = shrink(entries[0], lambda candidate: fit.fits(entry_text(candidate), candidate))
        shown, shrunk = 1, True
    position = scan.positions[shown - 1] if shown < len(entries) else scan.resume
    before = logreader.cursor(logs, name, position) if position is not None else None
    return answer(entries[:shown], before, _note(scan, shown, len(entries), before, shrunk, dropped, limit, arguments, notes))


def _note(
    scan: logreader.Scan, shown: int, read: int, before: str | None, shrunk: bool, dropped: int, limit: int, arguments: dict[str, Any], notes: list[str]
) -> str:
    parts = list(notes)
    call = budget.next_call("read_log_entries", {**arguments, "before": before})
    if before is not None and shown < read:
        newest = f"the newest {shown} {'entry' if shown == 1 else 'entries'}"
        parts.append(budget.cut_note(newest, "older entries", limit, "read_log_entries", {**arguments, "before": before}))
    elif before is not None and scan.pattern_stopped:
        parts.append(f"Go on after the last entry found with {call}.")
    elif before is not None and scan.stopped_early:
        parts.append(f"Search further back with {call}.")
    elif before is not None:
        parts.append(f"This is the limit of {read} {'entry' if read == 1 else 'entries'}; older ones, if any, come with {call}.")
    if shrunk:
        parts.append(_shrunk_note(dropped))
    return " ".join(part for part in parts if part)


# --- last_error ----------------------------------------------------------------------------------


def last_error(entry: dict[str, Any] | None, note: str, limit: int) -> LastError:
    """The answer for the newest error (a raw entry as the reader returned it), shortened inside when it is larger than `limit` tokens."""
    if entry is None:
        return LastError(entry=None, note=note)
    shaped = log_entry(entry)
    empty = LastError(entry=None, note=_shrunk_note(len(shaped["fields"])))
    fit = budget.Fit(limit, error_text(empty), empty)
    if fit.fits(entry_text(shaped), shaped):
        return LastError(entry=shaped, note=note)
    shaped, dropped = shrink(shaped, lambda candidate: fit.fits(entry_text(candidate), candidate))
    return LastError(entry=shaped, note=" ".join(part for part in (note, _shrunk_note(dropped)) if part))
