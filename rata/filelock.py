"""An exclusive lock on an open file that dies with the process: the one lock rata takes across processes.

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    if not try_lock(fd):       # another process holds it
        ...

``flock`` on POSIX, ``msvcrt.locking`` on the file's first byte on Windows; both are imported only when a lock is
taken, so no module needs ``fcntl`` or ``msvcrt`` at import time. Users: the running app's endpoint (a live endpoint
versus a crashed run's files), migrations on start (one process migrates at a time), and `rata mcp install --write`.
"""

from __future__ import annotations

import os
import sys


def try_lock(fd: int) -> bool:
    """Take the exclusive lock on the open file `fd` without waiting; False when another process holds it.

    Raises:
        OSError: the lock cannot be taken for another reason (a file system without locks, say).
    """
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:  # held (EACCES / EDEADLOCK): msvcrt says nothing finer
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):  # EWOULDBLOCK, or EACCES where flock says "held" that way
        return False
    return True


def unlock(fd: int) -> None:
    """Give back the lock `try_lock` took on `fd` (closing the file gives it back too)."""
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
