"""Files that come from a project folder, read as hostile: regular files only, opened without blocking, size-capped.

    data = read_bytes(path, limit=MAX_DOC_BYTES)          # ProjectFileError: a FIFO, a device, too big, unreadable
    walk = walk_files(root, lambda name: name.endswith(".md"))
    walk.files, walk.skipped, walk.cut                    # what matched, what it passed over, and whether it stopped early

A project folder is the developer's, but what is in it may not be what a reader expects: a FIFO
blocks an ``open`` until something writes to it (a worker, or a lock held around it, waits for
ever), a link to ``/dev/zero`` never ends, a huge file fills memory, and a tree of a hundred
thousand files makes every look at it slow. Every reader of project files (declared file
resources, the docs index, migrations, the reload watcher) goes through here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from rata._record import Record

MAX_WALK_ENTRIES = 50_000
"""Folders and files one walk looks at before it stops (and says so): a look at the tree stays cheap however big it is."""
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", "build", "dist"}
)
"""Folders no walk enters (nor any folder whose name starts with a dot)."""


class ProjectFileError(Exception):
    """A project file that is not read: `reason` says why in words a message can end with; `missing` when nothing is
    there, `irregular` when something other than a regular file is (a FIFO, a device, a socket, a folder)."""

    def __init__(self, path: str | os.PathLike[str], reason: str, *, missing: bool = False, irregular: bool = False) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason
        self.missing = missing
        self.irregular = irregular


def open_regular(path: str | os.PathLike[str]) -> int:
    """A descriptor for reading the regular file at `path` (links followed), opened without blocking: a FIFO put there
    never blocks the open, and a FIFO, a device, a socket or a folder is refused. The caller closes it.

    Raises:
        ProjectFileError: not a regular file, or it cannot be opened (`missing` when there is nothing at `path`).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise ProjectFileError(path, f"cannot be opened ({error.strerror or error})", missing=isinstance(error, FileNotFoundError)) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as error:
        os.close(fd)
        raise ProjectFileError(path, f"cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ProjectFileError(path, f"is {_kind(mode)}, not a regular file", irregular=True)
    return fd


def read_bytes(path: str | os.PathLike[str], *, limit: int) -> bytes:
    """The bytes of the regular file at `path` (links followed, `open_regular`), at most `limit` of them.

    Raises:
        ProjectFileError: it is not a regular file (a FIFO, a device, a socket, a folder), it holds more than
            `limit` bytes, or it cannot be opened or read.
    """
    fd = open_regular(path)
    try:
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ProjectFileError(path, f"is over {limit:,} bytes")
        return b"".join(chunks)
    except OSError as error:
        raise ProjectFileError(path, f"cannot be read ({error.strerror or error})") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], *, limit: int, errors: str = "strict") -> str:
    """`read_bytes` decoded as UTF-8; with ``errors="strict"`` a file that is not UTF-8 is a `ProjectFileError`."""
    data = read_bytes(path, limit=limit)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as error:
        raise ProjectFileError(path, f"is not UTF-8 text (byte {error.start:,})") from None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a file"


class Walk(Record):
    """The regular files a walk found (path, mtime_ns, size), sorted by path; the paths of matching names it passed over
    (not regular files, or gone); and whether it stopped at `MAX_WALK_ENTRIES` before seeing the whole tree."""

    __slots__ = ("files", "skipped", "cut")
    files: list[tuple[str, int, int]]
    skipped: list[str]
    cut: bool


def walk_files(root: str | os.PathLike[str], wanted: Callable[[str], bool], *, max_entries: int = MAX_WALK_ENTRIES) -> Walk:
    """The regular files under `root` whose names `wanted` accepts, without entering `SKIP_DIRS` or dot folders,
    following no link to a folder, and looking at no more than `max_entries` folders and files in all (Python
    packages, folders with an ``__init__.py``, before the others at each level)."""
    found: list[tuple[str, int, int]] = []
    skipped: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        seen += len(dirs) + len(files)
        # Python packages first: a walk cut short by a huge data folder has still seen the code
        kept = (d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        dirs[:] = sorted(kept, key=lambda d: (not os.path.isfile(os.path.join(folder, d, "__init__.py")), d))
        for name in sorted(files):
            if not wanted(name):
                continue
            path = os.path.join(folder, name)
            try:
                info = os.stat(path)
            except OSError:
                skipped.append(path)
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(path)
                continue
            found.append((path, info.st_mtime_ns, info.st_size))
        if seen >= max_entries:
            return Walk(sorted(found), sorted(skipped), True)
    return Walk(sorted(found), sorted(skipped), False)


def under(root: Path, relative: str) -> Path | None:
    """`root / relative` with every link resolved, if it is still under `root` (resolved too); else None."""
    base = os.path.realpath(root)
    path = os.path.realpath(os.path.join(base, relative))
    return Path(path) if os.path.commonpath([base, path]) == base else None
