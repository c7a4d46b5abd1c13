"""Edit one config file without ever losing it: through its links, under a lock, replaced atomically.

`edit(path, change)` finds the file a link points to, takes a lock that every `rata mcp install
--write` on that file shares, reads the file (bounded, UTF-8, BOM kept aside), asks `change` for
the new text, and replaces the file with a temporary file and `os.replace`, keeping its mode
and owner, its BOM, and its bytes if `change` returns them unchanged. Every failure is an
`WriteRefusedError` that names the file, the problem and the fix; the file is then untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rata.errors import ConfigError
from rata.filelock import try_lock

MAX_BYTES = 16 * 1024 * 1024  # no client's config is near this; a larger file is not one rata edits
LOCK_TIMEOUT = 10.0  # seconds a writer waits for the lock; RATA_INSTALL_LOCK_TIMEOUT sets another (0 to 600)
BOM = "\ufeff"
_ATTEMPTS = 5  # rounds when another program changes the file between our read and our replace


class InstallError(ConfigError):
    """The server cannot be registered as asked."""


class WriteRefusedError(InstallError):
    """`--write` did not write; the snippet is still right to paste by hand."""


class EntryExistsError(WriteRefusedError):
    """The file already has a different entry of that name, and `--replace` was not given."""

    def __init__(self, message: str, *, hint: str | None = None, diff: str = "") -> None:
        super().__init__(message, hint=hint)
        self.diff = diff


@dataclass(frozen=True)
class Edited:
    target: Path  # the file written (a link's target)
    old: str | None  # None: there was no file
    new: str  # equal to `old`: nothing was written


def _refuse(path: Path, problem: str, fix: str = "Fix it, or paste the snippet above yourself.") -> WriteRefusedError:
    return WriteRefusedError(f"Cannot write {str(path)!r}: {problem}; nothing was changed.", hint=fix)


def _os_refusal(path: Path, error: OSError) -> WriteRefusedError:
    where = error.filename or path
    what = error.strerror or str(error)
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        return _refuse(
            path, f"{str(where)!r} is in the way ({what})", "A file stands where a folder should be: rename or remove it, or paste the snippet above yourself."
        )
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return _refuse(path, f"{what} ({str(where)!r})", "Make the folder and the file writable for you, or paste the snippet above yourself.")
    return _refuse(path, f"{what} ({str(where)!r})")


def resolve(path: Path) -> Path:
    """The file to write: `path`, or the file its links lead to (the links stay links)."""
    target = Path(os.path.realpath(path))
    if os.path.islink(path) and not os.path.exists(target):  # never create a file at the end of a dangling link
        raise _refuse(path, f"it is a link to {str(target)!r}, which does not exist", "Fix the link (or remove it), or paste the snippet above yourself.")
    return target


def edit(path: Path, change: Callable[[str | None], str]) -> Edited:
    """Replace `path`'s text with `change(old text)` (old is None when there is no file), safely.

    Raises:
        WriteRefusedError: the file or its folder cannot be read or written, another process
            holds the lock too long, or `change` refused. The file is untouched.
    """
    target = resolve(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _os_refusal(path, error) from None
    with _Lock(path, target):
        for _ in range(_ATTEMPTS):
            data = _read(path, target)
            old, bom = _decode(path, data)
            new = change(old)
            if old is not None and new == old:
                return Edited(target, old, old)
            if _read(path, target) != data:  # another program wrote it meanwhile: merge again into its version
                continue
            _replace(path, target, ((BOM if bom else "") + new), None if data is None else os.stat(target))
            return Edited(target, old, new)
    raise _refuse(path, "another program keeps changing it", "Close the program that is editing it and try again.")


# --- reading -----------------------------------------------------------------------------------


def _read(path: Path, target: Path) -> bytes | None:
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _os_refusal(path, error) from None
    if stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "it is a folder, not a file", "Move the folder away (the client cannot read it either), or paste the snippet above yourself.")
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, "it is not a regular file (a pipe, socket or device)", "Replace it with a file, or paste the snippet above yourself.")
    if info.st_size > MAX_BYTES:
        raise _refuse(
            path, f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB", "Check that it is the client's config file, or paste the snippet above yourself."
        )
    try:
        with open(target, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _os_refusal(path, error) from None
    if len(data) > MAX_BYTES:
        raise _refuse(
            path, f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB", "Check that it is the client's config file, or paste the snippet above yourself."
        )
    return data


def _decode(path: Path, data: bytes | None) -> tuple[str | None, bool]:
    if data is None:
        return None, False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WriteRefusedError(
            f"{str(path)!r} is not UTF-8 text (byte {error.start}); it was left unchanged.",
            hint="Save it as UTF-8 (every client reads UTF-8), or paste the snippet above yourself.",
        ) from None
    return (text[1:], True) if text.startswith(BOM) else (text, False)


# --- replacing ---------------------------------------------------------------------------------


def _replace(path: Path, target: Path, text: str, old: os.stat_result | None) -> None:
    """Write `text` to `target` atomically: a temporary file in the same folder, then os.replace."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse(path, "the entry holds text that is not valid Unicode (a path with undecodable bytes?)", "Paste the snippet above yourself.") from None
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        raise _os_refusal(path, error) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if old is not None:
            os.chmod(temp, stat.S_IMODE(old.st_mode))
            if hasattr(os, "chown") and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):  # only root may give a file away; else it is ours, as any editor leaves it
                    os.chown(temp, old.st_uid, old.st_gid)
        os.replace(temp, target)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise _os_refusal(path, error) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # Windows cannot open a folder; its rename is durable enough
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- the lock ----------------------------------------------------------------------------------


class _Lock:
    """An exclusive lock on `.NAME.lock` next to the file, held across read, merge and replace.

    The lock is a separate, stable file: a lock on the config itself would be lost when the config
    is replaced by rename. The lock file is removed on release; a waiter that locked a removed
    file sees that its inode is no longer the path's and tries again.
    """

    def __init__(self, path: Path, target: Path) -> None:
        self.path = path
        self.lock = target.with_name(f".{target.name}.lock")
        self.fd = -1

    def __enter__(self) -> _Lock:
        wait = lock_timeout()
        deadline = time.monotonic() + wait
        pause = 0.005
        while True:
            try:
                fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as error:
                raise _os_refusal(self.path, error) from None
            if try_lock(fd) and _same_file(fd, self.lock):
                self.fd = fd
                return self
            os.close(fd)
            if time.monotonic() >= deadline:
                raise WriteRefusedError(
                    f"Another process has been writing {str(self.path)!r} for {wait:g} s (it holds {str(self.lock)!r}); nothing was changed.",
                    hint="Wait for the other `rata mcp install --write` to finish and try again.",
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):  # Windows keeps an open file; the next writer opens and locks the same one
            os.unlink(self.lock)
        os.close(self.fd)


def lock_timeout() -> float:
    """How long a writer waits for the lock: RATA_INSTALL_LOCK_TIMEOUT if it is a number of seconds (0 to 600)."""
    try:
        value = float(os.environ.get("RATA_INSTALL_LOCK_TIMEOUT", LOCK_TIMEOUT))
    except ValueError:
        return LOCK_TIMEOUT
    return min(max(value, 0.0), 600.0) if value == value else LOCK_TIMEOUT


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)
