"""Where a backwards read of the app's log goes on: a position that survives new entries and rotation.

A position is a file's identity (its device and inode) and a byte offset in it: the read goes
on with the line that ends just before that offset. rata's `JsonLinesFile` rotates by renaming
(``NAME.log`` becomes ``NAME.log.1``, ``NAME.log.1`` becomes ``NAME.log.2`` ...) and only ever
appends, so a file keeps its inode and every byte before the offset keeps its value, whatever
the app writes in between: the file that holds the position is found again by its inode among
the current files, whatever its name is now.

The cursor a client gets (`encode`) is that position as text with a fingerprint: a CRC-32 of
the file's first bytes and of the bytes just before the offset. A file removed by rotation
frees its inode, and a new file may get it; the fingerprint tells the two apart. Every cursor
is a client's value, hence hostile: `locate` checks its form, that its file is one of the log's
current files, that the offset is inside it and at the start of a line, and the fingerprint,
and raises `CursorError` saying what is wrong and how to start again.
"""

from __future__ import annotations

import os
import re
import zlib
from pathlib import Path
from typing import BinaryIO

from rata.errors import RataError

FINGERPRINT_BYTES = 64
MAX_CURSOR_CHARS = 100
_FORM = re.compile(r"(\d{1,20})-(\d{1,20})-(\d{1,20})-([0-9a-f]{8})")

Identity = tuple[int, int]
"""A file's device and inode."""
Position = tuple[int, int, int]
"""A file's device and inode, and a byte offset in it: the read goes on with the line that ends before it."""

START_AGAIN = "Leave before out to start again from the newest entry (add since to skip what you have already read)."


class CursorError(RataError):
    """A `before` value that is not a position in the log's current files."""


def identity(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino)


def _fingerprint(handle: BinaryIO, offset: int) -> int:
    read = handle.read
    seek = handle.seek
    seek(0)
    head = read(min(FINGERPRINT_BYTES, offset))
    start = max(0, offset - FINGERPRINT_BYTES)
    seek(start)
    before = read(offset - start)
    return zlib.crc32(head + b"|" + before)


def encode(path: Path, position: Position) -> str | None:
    """The cursor for `position` in the file at `path`; None when that file is no longer `position`'s (rotated away)."""
    device, inode, offset = position
    try:
        with open(path, "rb") as handle:
            if identity(os.fstat(handle.fileno())) != (device, inode):
                return None
            return f"{device}-{inode}-{offset}-{_fingerprint(handle, offset):08x}"
    except OSError:
        return None


def parse(cursor: str) -> tuple[Position, int]:
    """The position and fingerprint `cursor` names, or `CursorError` when it is not a cursor's form."""
    match = _FORM.fullmatch(cursor) if len(cursor) <= MAX_CURSOR_CHARS else None
    if match is None:
        from rata.codegen.sanitize import clean_text

        raise CursorError(
            f"before is not a cursor read_log_entries gave: {clean_text(cursor[:60])!r}.",
            hint=f"Pass the before value of an earlier answer unchanged. {START_AGAIN}",
        )
    device, inode, offset, crc = match.groups()
    return (int(device), int(inode), int(offset)), int(crc, 16)


def locate(files: list[tuple[Path, Identity]], cursor: str) -> tuple[int, Position]:
    """The index in `files` (the log's current files, newest first) of the file `cursor` names, and its position."""
    position, crc = parse(cursor)
    device, inode, offset = position
    for index, (path, ident) in enumerate(files):
        if ident != (device, inode):
            continue
        try:
            with open(path, "rb") as handle:
                if identity(os.fstat(handle.fileno())) != ident:
                    break  # rotated while looked at: the file is gone from this name
                size = os.fstat(handle.fileno()).st_size
                if not 0 < offset <= size:
                    raise _mismatch()
                handle.seek(offset - 1)
                if handle.read(1) != b"\n" or _fingerprint(handle, offset) != crc:
                    raise _mismatch()
        except OSError:
            break
        return index, position
    raise CursorError(
        "before names a log file that is gone: the log rotated past it (rata keeps the current file and its newest rotations; the oldest are removed).",
        hint=START_AGAIN,
    )


def _mismatch() -> CursorError:
    return CursorError(
        "before does not match the log file it names: that file is gone (the log rotated past it and a newer file took its place on disk), "
        "or the value was changed.",
        hint=f"Pass the before value of an earlier answer unchanged. {START_AGAIN}",
    )
