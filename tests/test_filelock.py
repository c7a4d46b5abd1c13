"""`rata.filelock`: one process at a time holds the lock, and it is free again once its holder closes the file."""

from __future__ import annotations

import os

from rata.filelock import try_lock, unlock


def test_the_lock_is_taken_once_and_free_again_when_its_holder_closes(tmp_path):
    path = tmp_path / "mcp.sock.lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    second = os.open(path, os.O_RDWR)
    try:
        assert try_lock(first)
        assert not try_lock(second)
        os.close(first)
        first = -1
        assert try_lock(second)
    finally:
        for fd in (first, second):
            if fd >= 0:
                os.close(fd)


def test_an_unlocked_file_can_be_locked_by_another_descriptor(tmp_path):
    path = tmp_path / "migrate.lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    second = os.open(path, os.O_RDWR)
    try:
        assert try_lock(first)
        unlock(first)
        assert try_lock(second)
    finally:
        os.close(first)
        os.close(second)
